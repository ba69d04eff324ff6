"""What the environments share: each role's actions (its ``input`` moves
in natural order), the observation vector (the ``base`` facts in natural
order), action masks, and goals as rewards."""

from __future__ import annotations

import os
from typing import List, Optional, Sequence, Union

import numpy as np

from ._gdl import Game, Move, State, load


def as_game(game: Union[Game, str, "os.PathLike[str]"]) -> Game:
    """A loaded ``gdl.Game``: ``game`` itself, or the rules file at that
    path."""
    if isinstance(game, Game):
        return game
    if isinstance(game, (str, os.PathLike)):
        return load(game)
    raise TypeError(f"expected a gdl.Game or the path of a rules file, not {type(game).__name__}")


def check_render_mode(render_mode: Optional[str]) -> Optional[str]:
    """``render_mode`` if the environments know it (``None``, ``"ansi"``)."""
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode: None or 'ansi', not {render_mode!r}")
    return render_mode


def render(env) -> Optional[str]:
    """What ``env.render()`` returns: the board of ``env.state`` as ``gdl
    play`` draws it under ``render_mode="ansi"``; a warning and ``None``
    without a render mode."""
    if env.render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='ansi'")
        return None
    if env.state is None:
        raise ValueError("render() before reset()")
    return env.game.draw(env.state)


def reward(goal: int) -> float:
    """A GDL goal (0..100) as a reward (-1..1): ``goal / 50 - 1``."""
    return goal / 50.0 - 1.0


class Tables:
    """The numbering of a game's actions and observations."""

    def __init__(self, game: Game) -> None:
        self.game = game
        n = len(game.roles)
        inputs = [game.input_moves(r) for r in range(n)]
        missing = [game.roles[r] for r in range(n) if inputs[r] is None]
        if missing:
            raise ValueError(
                f"{game.name} declares no input moves for {', '.join(missing)}: an "
                "environment needs each role's actions up front (declare (input ROLE MOVE))"
            )
        base = game.base_facts()
        if base is None:
            raise ValueError(
                f"{game.name} declares no base facts: an environment needs the facts a "
                "state may hold up front for its observation vector (declare (base FACT))"
            )
        #: Each role's action moves, as text, in natural order.
        self.actions: List[List[str]] = [[str(m) for m in sorted(i)] for i in inputs]
        self._action_of = [{t: a for a, t in enumerate(acts)} for acts in self.actions]
        #: The ``base`` facts, the positions of the observation vector.
        self.base: List[str] = base
        self._base_index = {f: i for i, f in enumerate(base)}

    def observation(self, state: State) -> np.ndarray:
        """A 0/1 vector (int8) over the ``base`` facts: 1 where one holds."""
        obs = np.zeros(len(self.base), np.int8)
        for f in state.facts():
            i = self._base_index.get(f)
            if i is not None:
                obs[i] = 1
        return obs

    def legal(self, state: State, role: int) -> List[Move]:
        """The role's legal moves (none in a terminal state)."""
        if self.game.is_terminal(state):
            return []
        return self.game.legal_moves(state, role)

    def mask(self, legal: Sequence[Move], role: int) -> np.ndarray:
        """A 0/1 vector (int8) over the role's actions: 1 for each legal."""
        mask = np.zeros(len(self.actions[role]), np.int8)
        for m in legal:
            a = self._action_of[role].get(str(m))
            if a is None:
                raise ValueError(
                    f"{self.game.name}: the legal move {m} of {self.game.roles[role]} is not "
                    "among the input moves the rules declare"
                )
            mask[a] = 1
        return mask

    def move(self, role: int, action: object, legal: Sequence[Move]) -> Move:
        """The legal move of action number ``action``; ``ValueError`` for an
        action out of range or not legal."""
        acts = self.actions[role]
        try:
            a = int(action)  # numpy integers too
        except (TypeError, ValueError):
            raise TypeError(
                f"an action of {self.game.roles[role]} is an int from 0 to {len(acts) - 1}, "
                f"not {action!r}"
            ) from None
        if a != action or not 0 <= a < len(acts):
            raise ValueError(
                f"no action {action!r} for {self.game.roles[role]}: it has {len(acts)} "
                f"(0 to {len(acts) - 1})"
            )
        for m in legal:
            if str(m) == acts[a]:
                return m
        raise ValueError(
            f"action {a} ({acts[a]}) is not legal for {self.game.roles[role]} here: the "
            f"legal ones are {sorted(self._action_of[role][str(m)] for m in legal)}"
        )
