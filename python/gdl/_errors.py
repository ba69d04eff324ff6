"""The exceptions gdl raises (all derive from ``gdl.GdlError``)."""

from __future__ import annotations


class GdlError(Exception):
    """Base class of gdl's errors. Keyword arguments become attributes."""

    def __init__(self, message: str = "", **attributes: object) -> None:
        super().__init__(message)
        self.message = message
        for key, value in attributes.items():
            setattr(self, key, value)


class LoadError(GdlError):
    """The rules are not valid GDL.

    ``str(error)`` is every diagnostic rendered with its source excerpt.
    Attributes: ``file``, ``line`` and ``column`` (from 1) and ``code`` of
    the first error, and ``diagnostics``, every ``gdl.Diagnostic`` of the
    file (warnings included).
    """

    file: str
    line: int | None = None
    column: int | None = None
    code: str | None = None
    diagnostics: list = []


class GameError(GdlError):
    """Something went wrong while playing: a bad move, or rules that
    misbehave in this state."""


class MoveError(GameError, ValueError):
    """Text that is not a move (``text``, ``reason``), or a joint move
    with the wrong number of moves (``expected``, ``given``)."""


class IllegalMoveError(MoveError):
    """A move that is not legal for its role: ``role``, ``move`` (its
    text) and ``legal`` (the texts of the role's legal moves)."""

    role: str
    move: str
    legal: list


class TerminalStateError(GameError):
    """A next state asked of a terminal state."""


class NoLegalMoveError(GameError):
    """A role (``role``) has no legal move in a state that is not
    terminal."""

    role: str


class GoalError(GameError):
    """A role (``role``) has no goal value in the state, several, or one
    that is not a whole number from 0 to 100 (``values``, as written)."""

    role: str
    values: list


class LimitError(GameError):
    """A limit of the evaluator was reached (the rules derive too much):
    ``limit`` (its name), ``value`` and ``relation`` (being derived)."""

    limit: str
    value: int
    relation: str


class InternalError(GdlError, RuntimeError):
    """A bug of gdl (a panic of the engine, caught): please report it.
    The game stays usable; its caches were dropped."""


__all__ = [
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
