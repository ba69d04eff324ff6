"""One-role GDL puzzles as Gymnasium environments: ``pip install
'./python[envs]'``.

``Env(game)`` plays a game of one role that declares ``input`` (the
actions: its ``input`` moves in natural order) and ``base`` (the
observation: a 0/1 int8 vector over the ``base`` facts in natural order).
``info["action_mask"]`` marks the legal actions. The reward comes at the
end: the goal scaled from 0..100 to -1..1 (``info["goal"]`` is the GDL
goal). An action of the action space that is not legal in the state ends
the episode with reward -1 (``illegal="lose"``, the default, so that
agents sampling the whole space learn to avoid it) or raises
``ValueError`` (``illegal="raise"``); one outside the space always raises.
``max_steps`` moves truncate an episode. ``render_mode="ansi"`` makes
``render()`` return the board as ``gdl play`` draws it.
"""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "gdl.gymnasium needs Gymnasium: pip install './python[envs]' "
        "(or pip install gymnasium numpy)"
    ) from e

from ._gdl import Game, State
from ._spaces import Tables, as_game, check_render_mode, render, reward

#: The default most moves of an episode before it is truncated.
DEFAULT_MAX_STEPS = 1000


class Env(gymnasium.Env):
    """A one-role GDL game as a Gymnasium environment (see the module)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Union[Game, str, "os.PathLike[str]"],
        render_mode: Optional[str] = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        illegal: str = "lose",
    ) -> None:
        #: The ``gdl.Game`` played.
        self.game = as_game(game)
        if len(self.game.roles) != 1:
            raise ValueError(
                f"{self.game.name} has {len(self.game.roles)} roles: gdl.gymnasium.Env plays "
                "games of one role (use gdl.pettingzoo for more)"
            )
        check_render_mode(render_mode)
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal: 'lose' or 'raise', not {illegal!r}")
        self._tables = Tables(self.game)
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.illegal = illegal
        self.action_space = spaces.Discrete(len(self._tables.actions[0]))
        self.observation_space = spaces.Box(0, 1, (len(self._tables.base),), np.int8)
        #: The ``gdl.State`` of the game (``None`` before ``reset``).
        self.state: Optional[State] = None

    def _info(self) -> dict:
        return {"action_mask": self._tables.mask(self._legal, 0)}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Starts an episode: the observation and info (GDL games have no
        chance: ``seed`` changes nothing)."""
        super().reset(seed=seed)
        self.state = self.game.initial_state()
        self.steps = 0
        self._legal = self._tables.legal(self.state, 0)
        return self._tables.observation(self.state), self._info()

    def step(self, action):
        """Plays ``action``: observation, reward, terminated, truncated,
        info."""
        if self.state is None:
            raise ValueError("step() before reset()")
        if not self._legal:
            raise ValueError("the episode is over: call reset()")
        try:
            move = self._tables.move(0, action, self._legal)
        except ValueError:
            if self.illegal == "raise" or not self.action_space.contains(action):
                raise
            self._legal = []
            info = {"action_mask": np.zeros(self.action_space.n, np.int8), "illegal": True}
            return self._tables.observation(self.state), -1.0, True, False, info
        self.state = self.game.next_state(self.state, [move])
        self.steps += 1
        terminated = self.game.is_terminal(self.state)
        truncated = not terminated and self.steps >= self.max_steps
        self._legal = [] if truncated else self._tables.legal(self.state, 0)
        info = self._info()
        r = 0.0
        if terminated:
            goal = self.game.goals(self.state)[0]
            info["goal"] = goal
            r = reward(goal)
        return self._tables.observation(self.state), r, terminated, truncated, info

    def render(self) -> Optional[str]:
        """The board as ``gdl play`` draws it (``render_mode="ansi"``)."""
        return render(self)


__all__ = ["Env", "DEFAULT_MAX_STEPS"]
