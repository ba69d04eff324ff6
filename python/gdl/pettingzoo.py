"""GDL games as PettingZoo environments: ``pip install './python[envs]'``.

``AECEnv(game)`` steps one agent at a time (turn-taking games: the role
on turn; where several roles have a choice, each of them in role order,
the joint move played once all have chosen); ``ParallelEnv(game)`` takes
every agent's action at each step (every role moves at every GDL step).
``game`` is a ``gdl.Game`` or the path of a rules file that declares
``input`` (each role's actions: its ``input`` moves in natural order) and
``base`` (the observation: a 0/1 int8 vector over the ``base`` facts in
natural order).

Each agent's observation is ``{"observation": vector, "action_mask":
mask}``, the mask 1 for each legal action. Rewards come at the end: the
goals scaled from 0..100 to -1..1 (``info["goal"]`` is the GDL goal).
``max_steps`` joint moves truncate a game. ``render_mode="ansi"`` makes
``render()`` return the board as ``gdl play`` draws it. An action that is
not legal raises ``ValueError`` (use the mask).
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Union

import numpy as np

try:
    import pettingzoo
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "gdl.pettingzoo needs PettingZoo and Gymnasium: pip install './python[envs]' "
        "(or pip install pettingzoo gymnasium numpy)"
    ) from e

from ._gdl import Game, Move, State
from ._spaces import Tables, as_game, check_render_mode, render, reward

#: The default most joint moves of a game before it is truncated.
DEFAULT_MAX_STEPS = 1000


def _spaces(tables: Tables, agents: List[str]):
    obs = {
        a: spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (len(tables.base),), np.int8),
                "action_mask": spaces.Box(0, 1, (len(tables.actions[r]),), np.int8),
            }
        )
        for r, a in enumerate(agents)
    }
    act = {a: spaces.Discrete(len(tables.actions[r])) for r, a in enumerate(agents)}
    return obs, act


class _Common:
    """What both environments answer alike."""

    def _setup(self, game, render_mode: Optional[str], max_steps: int) -> None:
        #: The ``gdl.Game`` played.
        self.game = as_game(game)
        self._tables = Tables(self.game)
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = max_steps
        self.possible_agents = list(self.game.roles)
        self.observation_spaces, self.action_spaces = _spaces(self._tables, self.possible_agents)
        #: The ``gdl.State`` of the game (``None`` before ``reset``).
        self.state: Optional[State] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def render(self) -> Optional[str]:
        """The board as ``gdl play`` draws it (``render_mode="ansi"``)."""
        return render(self)

    def close(self) -> None:
        pass


class AECEnv(_Common, pettingzoo.AECEnv):
    """A GDL game as a PettingZoo AEC environment (see the module)."""

    metadata = {"render_modes": ["ansi"], "name": "gdl_aec_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: Union[Game, str, "os.PathLike[str]"],
        render_mode: Optional[str] = None,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        super().__init__()
        self._setup(game, render_mode, max_steps)
        self._role = {a: r for r, a in enumerate(self.possible_agents)}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Starts a game from the initial state (GDL games have no chance:
        ``seed`` changes nothing)."""
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.steps = 0
        self._begin(self.game.initial_state())

    def _begin(self, state: State) -> None:
        """Stands on ``state``: plays on through states where no role has a
        choice, then lines up the roles that have one."""
        g = self.game
        n = len(self.possible_agents)
        while True:
            self.state = state
            if g.is_terminal(state):
                self._legal = [[] for _ in range(n)]
                for a, goal in zip(self.possible_agents, g.goals(state)):
                    self.rewards[a] = reward(goal)
                    self.terminations[a] = True
                    self.infos[a] = {"goal": goal}
                self.agent_selection = self.agents[0]
                return
            if self.steps >= self.max_steps:
                self._legal = [[] for _ in range(n)]
                for a in self.agents:
                    self.truncations[a] = True
                self.agent_selection = self.agents[0]
                return
            self._legal = [g.legal_moves(state, r) for r in range(n)]
            self._waiting = [r for r in range(n) if len(self._legal[r]) > 1]
            if self._waiting:
                break
            # Every move forced: played at once.
            state = g.next_state(state, [m[0] for m in self._legal])
            self.steps += 1
        self._chosen: Dict[int, Move] = {}
        self.agent_selection = self.possible_agents[self._waiting[0]]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        """The agent's observation: the state's facts and its action mask
        (all 0 when it is not the agent's turn)."""
        r = self._role[agent]
        on_turn = agent == self.agent_selection and bool(self._legal[r])
        legal = self._legal[r] if on_turn else []
        return {
            "observation": self._tables.observation(self.state),
            "action_mask": self._tables.mask(legal, r),
        }

    def step(self, action) -> None:
        """Plays the action of ``agent_selection``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        r = self._role[agent]
        self._chosen[r] = self._tables.move(r, action, self._legal[r])
        self._cumulative_rewards[agent] = 0.0
        self._waiting.pop(0)
        if self._waiting:
            self.agent_selection = self.possible_agents[self._waiting[0]]
        else:
            joint = [self._chosen.get(i, m[0]) for i, m in enumerate(self._legal)]
            self.steps += 1
            self._begin(self.game.next_state(self.state, joint))
        self._accumulate_rewards()


class ParallelEnv(_Common, pettingzoo.ParallelEnv):
    """A GDL game as a PettingZoo Parallel environment: every agent acts at
    every step (see the module)."""

    metadata = {"render_modes": ["ansi"], "name": "gdl_parallel_v0"}

    def __init__(
        self,
        game: Union[Game, str, "os.PathLike[str]"],
        render_mode: Optional[str] = None,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        self._setup(game, render_mode, max_steps)
        self.agents: List[str] = []

    def _observe(self):
        obs = self._tables.observation(self.state)
        return {
            a: {"observation": obs.copy(), "action_mask": self._tables.mask(self._legal[r], r)}
            for r, a in enumerate(self.possible_agents)
            if a in self.agents
        }

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Starts a game: the observations and infos of every agent."""
        self.agents = self.possible_agents[:]
        self.steps = 0
        self.state = self.game.initial_state()
        self._legal = [self._tables.legal(self.state, r) for r in range(len(self.agents))]
        return self._observe(), {a: {} for a in self.agents}

    def step(self, actions: Dict[str, int]):
        """Plays one action per agent (a dict from agent to action): the
        observations, rewards, terminations, truncations and infos."""
        if not self.agents:
            raise ValueError("the game is over: call reset()")
        missing = [a for a in self.agents if a not in actions]
        extra = [a for a in actions if a not in self.agents]
        if missing or extra:
            raise ValueError(
                f"step() takes one action for each of {self.agents}"
                + (f": none for {missing}" if missing else "")
                + (f": {extra} not playing" if extra else "")
            )
        joint = [
            self._tables.move(r, actions[a], self._legal[r])
            for r, a in enumerate(self.possible_agents)
        ]
        self.state = self.game.next_state(self.state, joint)
        self.steps += 1
        terminal = self.game.is_terminal(self.state)
        truncated = not terminal and self.steps >= self.max_steps
        self._legal = [
            [] if terminal or truncated else self.game.legal_moves(self.state, r)
            for r in range(len(self.possible_agents))
        ]
        goals = self.game.goals(self.state) if terminal else None
        observations = self._observe()
        rewards = {a: reward(goals[r]) if terminal else 0.0 for r, a in enumerate(self.agents)}
        terminations = {a: terminal for a in self.agents}
        truncations = {a: truncated for a in self.agents}
        infos = {a: ({"goal": goals[r]} if terminal else {}) for r, a in enumerate(self.agents)}
        if terminal or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


__all__ = ["AECEnv", "ParallelEnv", "DEFAULT_MAX_STEPS"]
