"""gdl: a fast engine for the Game Description Language (GDL) of General
Game Playing, from Python.

>>> import gdl
>>> game = gdl.load("rules/tictactoe.gdl")          # doctest: +SKIP
>>> state = game.initial_state()                      # doctest: +SKIP
>>> while not game.is_terminal(state):                # doctest: +SKIP
...     joint = [game.legal_moves(state, r)[0] for r in game.roles]
...     state = game.next_state(state, joint)
>>> game.goals(state)                                 # doctest: +SKIP
[100, 0]

``gdl.load`` / ``gdl.loads`` give a ``Game``; states (``State``) and moves
(``Move``) are values it hands out. ``Game.playouts`` plays random games
in bulk without the GIL; ``gdl.SearchPlayer`` searches. Integrations, each
an extra of the package: ``gdl.spiel`` (OpenSpiel), ``gdl.pettingzoo`` and
``gdl.gymnasium`` (environments), ``gdl.batch`` (many games stepped at once,
NumPy arrays), ``gdl.ray`` (Ray). The guide is docs/python.md.
"""

from ._errors import (
    GameError,
    GdlError,
    GoalError,
    IllegalMoveError,
    InternalError,
    LimitError,
    LoadError,
    MoveError,
    NoLegalMoveError,
    TerminalStateError,
)
from ._gdl import (
    Diagnostic,
    Game,
    Move,
    SearchPlayer,
    State,
    load,
    loads,
    parse_term,
    term_text,
)

__version__ = "0.1.0"

__all__ = [
    "Game",
    "State",
    "Move",
    "Diagnostic",
    "SearchPlayer",
    "load",
    "loads",
    "parse_term",
    "term_text",
    "GdlError",
    "LoadError",
    "GameError",
    "MoveError",
    "IllegalMoveError",
    "TerminalStateError",
    "NoLegalMoveError",
    "GoalError",
    "LimitError",
    "InternalError",
]
