"""Many games stepped together for learning: ``gdl.batch.Batch``.

``Batch(game, n, threads=1, max_steps=1000)`` holds ``n`` games of a GDL
game that declares ``input`` and ``base``, each at its initial state, and
steps all of them at once in Rust, without the GIL, on ``threads`` threads
(each with its own clone of the game; a game on ground rules is played on a
stepper of its own). What it gives are NumPy arrays over whole-batch
buffers, not a copy per state:

- ``observations``: ``uint8 [n, len(base)]``, 1 where a ``base`` fact
  holds (the facts in natural order, as ``Game.base_facts()`` lists them);
- ``masks``: ``uint8 [n, roles, width]``, 1 for each legal action of each
  role (a role's actions are its ``input`` moves in natural order; width is
  the most actions of a role);
- ``rewards``: ``float32 [n, roles]``, the goals scaled from 0..100 to -1..1
  in a step that ended a game, 0 otherwise;
- ``ends``: ``uint8 [n]``, 0 for a game going on, 1 for one that reached a
  terminal state, 2 for one cut short at ``max_steps``. A game that ended
  is back at its initial state: the observation and masks returned are
  that state's.

What the games hold (their positions, and the buffers of a step) is
counted against a memory budget as they are made: ``max_memory`` bytes
when given, else the game's (``limits={"max_memory": ...}`` of
``gdl.load``); a batch that would not fit raises ``LimitError`` naming the
budget and how to raise it.

``step(actions)`` takes ``int [n, roles]`` action numbers (one per role,
its only legal one where it has no choice) and raises ``ValueError``
naming the first game and role whose action is not legal, before any game
moves. The arrays are read-only views of bytes; ``.copy()`` for writable
ones.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ._gdl import Batch as _Batch
from ._gdl import Game


class Batch:
    """``n`` games of ``game`` stepped together (see the module)."""

    def __init__(
        self,
        game: Game,
        n: int,
        threads: int = 1,
        max_steps: int = 1000,
        max_memory: Optional[int] = None,
    ) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"expected a gdl.Game, not {type(game).__name__}")
        self._batch = _Batch(game, n, threads, max_steps, max_memory)
        #: The game played.
        self.game = game
        #: Games, roles, observation size and mask width.
        self.n, self.roles, self.size, self.width = self._batch.shape
        #: Each role's actions as text, in action order.
        self.actions: List[List[str]] = self._batch.action_texts(game)

    def _arrays(self, obs: bytes, masks: bytes) -> Tuple[np.ndarray, np.ndarray]:
        return (
            np.frombuffer(obs, np.uint8).reshape(self.n, self.size),
            np.frombuffer(masks, np.uint8).reshape(self.n, self.roles, self.width),
        )

    def reset(self) -> Tuple[np.ndarray, np.ndarray]:
        """Every game back to the initial state: observations and masks."""
        return self._arrays(*self._batch.reset())

    def observe(self) -> Tuple[np.ndarray, np.ndarray]:
        """The observations and masks of the games as they stand."""
        return self._arrays(*self._batch.observe())

    def step(self, actions) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Plays ``actions`` (``[n, roles]`` action numbers): observations,
        masks, rewards and ends (see the module)."""
        a = np.asarray(actions)
        if a.shape != (self.n, self.roles) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"actions: an int array of shape ({self.n}, {self.roles}), "
                f"not {a.dtype} {a.shape}"
            )
        obs, masks, rewards, ends = self._batch.step(np.ascontiguousarray(a, "<i8").tobytes())
        obs, masks = self._arrays(obs, masks)
        return (
            obs,
            masks,
            np.frombuffer(rewards, "<f4").reshape(self.n, self.roles),
            np.frombuffer(ends, np.uint8),
        )

    def random_actions(self, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per game and role, uniformly at random among
        those ``masks`` marks (0 for a role whose mask marks none): what a
        random agent plays. Drawn in Rust, by a generator seeded from
        ``rng`` (one draw a call), so the same ``rng`` state gives the same
        actions."""
        m = np.asarray(masks)
        if m.shape != (self.n, self.roles, self.width):
            raise ValueError(
                f"masks: an array of shape ({self.n}, {self.roles}, {self.width}), not {m.shape}"
            )
        m = np.ascontiguousarray(m != 0 if m.dtype != np.uint8 else m)
        seed = int(rng.integers(0, 2**63))
        picked = self._batch.random_actions(m.view(np.uint8), seed)
        return np.frombuffer(picked, "<i8").reshape(self.n, self.roles).copy()


__all__ = ["Batch"]
