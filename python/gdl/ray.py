"""Playouts and self-play across a Ray cluster: ``pip install './python[ray]'``.

Ray schedules, ships and gathers; gdl plays. A game goes to the workers
by its rules text (``gdl.Game`` pickles so, and is put in Ray's object
store once per call); each task plays a chunk of games with the module's
own calls (``Game.playouts`` without the GIL, ``SearchPlayer``), and the
results come back in game order, the same whatever the number of workers
or chunks: game ``i`` uses seed ``seed + i``, as ``Game.playouts`` does.

Connect to a cluster as Ray says (``ray.init(address="auto")`` on a node
of it, or ``ray.init("ray://head:10001")``) before calling; without it,
Ray starts a local one on the first call.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

try:
    import ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("gdl.ray needs Ray: pip install './python[ray]' (or pip install ray)") from e

from ._gdl import Game, SearchPlayer, State

#: The default number of games one task plays.
DEFAULT_CHUNK = 10_000


def _chunks(n: int, chunk: int) -> List[Tuple[int, int]]:
    """``(first game, count)`` of each chunk of ``n`` games."""
    if chunk < 1:
        raise ValueError(f"chunk: at least 1 game a task, not {chunk}")
    return [(i, min(chunk, n - i)) for i in range(0, n, chunk)]


@ray.remote
def _playouts_task(game: Game, count: int, seed: int, max_steps: int, fast: bool,
                   state_facts: Optional[Sequence[str]]):
    start = None if state_facts is None else game.state_from_facts(state_facts)
    return game.playouts(count, seed=seed, threads=1, max_steps=max_steps, fast=fast,
                         state=start)


def playouts(
    game: Game,
    n: int,
    *,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
    max_steps: int = 1000,
    fast: bool = False,
    state: Optional[State] = None,
) -> List[Tuple[int, Optional[Tuple[int, ...]]]]:
    """``game.playouts(n, seed=seed, ...)`` played as Ray tasks of
    ``chunk`` games each: the same list, in game order."""
    if not isinstance(game, Game):
        raise TypeError(f"expected a gdl.Game, not {type(game).__name__}")
    if n < 0:
        raise ValueError(f"n: a count of games from 0, not {n}")
    facts = None if state is None else state.facts()
    if state is not None and state.game is not game:
        raise ValueError("the state belongs to another game")
    ref = ray.put(game)
    tasks = [
        _playouts_task.remote(ref, count, seed + first, max_steps, fast, facts)
        for first, count in _chunks(n, chunk)
    ]
    results = []
    for part in ray.get(tasks):
        results.extend(part)
    return results


def _self_play_one(game: Game, seed: int, iterations: int, max_steps: int):
    players = [SearchPlayer(game, r, iterations=iterations, seed=seed * 1009 + r)
               for r in range(len(game.roles))]
    state = game.initial_state()
    moves = []
    for _ in range(max_steps):
        if game.is_terminal(state):
            return moves, tuple(game.goals(state))
        joint = [p.choose(state) for p in players]
        for p in players:
            p.observe(joint)
        moves.append(tuple(str(m) for m in joint))
        state = game.next_state(state, joint)
    return moves, tuple(game.goals(state)) if game.is_terminal(state) else None


@ray.remote
def _self_play_task(game: Game, first: int, count: int, iterations: int, max_steps: int):
    return [_self_play_one(game, first + i, iterations, max_steps) for i in range(count)]


def self_play(
    game: Game,
    games: int,
    *,
    iterations: int = 200,
    seed: int = 0,
    chunk: int = 1,
    max_steps: int = 1000,
) -> List[Tuple[List[Tuple[str, ...]], Optional[Tuple[int, ...]]]]:
    """Plays ``games`` games in which every role is a ``gdl.SearchPlayer``
    of ``iterations`` iterations a move (game ``i``'s players seeded from
    ``seed + i``), as Ray tasks of ``chunk`` games: per game, in order, the
    joint moves played (as text) and the goals (``None`` when
    ``max_steps`` cut it short)."""
    if not isinstance(game, Game):
        raise TypeError(f"expected a gdl.Game, not {type(game).__name__}")
    if games < 0:
        raise ValueError(f"games: a count from 0, not {games}")
    ref = ray.put(game)
    tasks = [
        _self_play_task.remote(ref, seed + first, count, iterations, max_steps)
        for first, count in _chunks(games, chunk)
    ]
    results = []
    for part in ray.get(tasks):
        results.extend(part)
    return results


__all__ = ["playouts", "self_play", "DEFAULT_CHUNK"]
