"""Games, states and moves from their pickles.

A ``gdl.Game`` pickles as its rules text, name, engine and limits; a
``State`` as its game and facts; a ``Move`` as its game and text. The
functions here make them again. A game is loaded once per process: each
game pickled or unpickled is remembered (weakly) by what it was loaded
from, so unpickling in the process that pickled gives back the very game
(and states and moves equal to the originals), and unpickling many states
of one game elsewhere loads its rules once.
"""

from __future__ import annotations

import threading
import weakref
from typing import Dict, Iterable, Tuple

from ._gdl import Game, Move, State, loads

_games: "weakref.WeakValueDictionary[Tuple, Game]" = weakref.WeakValueDictionary()
_lock = threading.Lock()


def _key(text: str, name: str, engine: str, limits: Dict[str, int]) -> Tuple:
    return (text, name, engine.lower(), tuple(sorted(limits.items())))


def remember(game: Game, args: Tuple[str, str, str, Dict[str, int]]) -> None:
    """Remembers ``game`` as the game loaded from ``args`` (the arguments
    of ``game``), unless another is remembered already."""
    with _lock:
        _games.setdefault(_key(*args), game)


def game(text: str, name: str, engine: str, limits: Dict[str, int]) -> Game:
    """The game of these rules, loaded as ``gdl.loads(text, name,
    engine=engine, limits=limits)`` unless this process has it already."""
    key = _key(text, name, engine, limits)
    with _lock:
        found = _games.get(key)
    if found is not None:
        return found
    made = loads(text, name, engine=engine, limits=limits)
    with _lock:
        return _games.setdefault(key, made)


def state(game: Game, facts: Iterable[str]) -> State:
    """The state of ``game`` holding ``facts``."""
    return game.state_from_facts(facts)


def move(game: Game, text: str) -> Move:
    """The move of ``game`` written ``text``."""
    return game.parse_move(text)
