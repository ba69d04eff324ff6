"""GDL games as OpenSpiel games: ``pip install './python[spiel]'``.

Importing ``gdl.spiel`` registers the game ``gdl`` with OpenSpiel
(``pyspiel.register_game``), so that a rules file loads by name::

    import pyspiel
    import gdl.spiel

    game = pyspiel.load_game("gdl", {"rules": "rules/tictactoe.gdl"})
    game = pyspiel.load_game("gdl(rules=rules/tictactoe.gdl)")   # the same

and OpenSpiel's own code plays it unchanged: ``pyspiel.random_sim_test``,
``pyspiel.evaluate_bots``, the MCTS bot, ``rl_environment``. A game loaded
in Python (``gdl.load``, ``gdl.loads``) becomes one with
``gdl.spiel.SpielGame.from_gdl(game)``.

- **Actions** are numbers: the index of a move in the union of every
  role's ``input`` moves, sorted in natural order, the same numbering for
  every player. OpenSpiel needs the number of actions up front, so rules
  without ``input`` declarations are refused.
- **Observations**: the observation tensor is a 0/1 vector over the game's
  ``base`` facts in natural order (``game.base`` names the positions),
  the observation string the facts one a line. GDL games have perfect
  information: every player observes the same.
- **Dynamics**: a GDL step is a joint move of every role. A game where at
  most one role has a choice in any state (turn-taking games, the others
  playing ``noop``) is sequential: ``current_player()`` is the role with a
  choice. Otherwise it is simultaneous: every non-terminal state is a
  simultaneous node, played with ``apply_actions``. The parameter
  ``dynamics`` says which (``sequential``, ``simultaneous``); by default
  (``auto``) random games from the initial state decide.
- **Returns** are the goals scaled from 0..100 to -1..1 (``goal / 50 -
  1``): a win and a loss of 100 and 0 are 1 and -1, a draw 0 and 0. The
  game is zero-sum when the scaled goals of every end that random games
  reach sum to 0 (``utility``: ``zero_sum``, ``constant_sum``,
  ``general_sum`` or ``auto``). ``state.goals()`` gives the GDL goals.
- ``max_game_length`` (default 1,000 joint moves) is the length OpenSpiel
  is told; a game that goes on past it raises when it is reached.
"""

from __future__ import annotations

import os
import random
from typing import Dict, List, Optional, Sequence, Union

try:
    import numpy as np
    import pyspiel
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "gdl.spiel needs OpenSpiel and NumPy: pip install './python[spiel]' "
        "(or pip install open_spiel numpy)"
    ) from e

from ._gdl import Game, Move, State, load

#: The name the game is registered under.
SHORT_NAME = "gdl"
#: The most roles a game may have.
MAX_PLAYERS = 64
#: The default ``max_game_length``.
DEFAULT_MAX_GAME_LENGTH = 1000
#: Random games played to tell the dynamics and the utility (``auto``).
PROBE_GAMES = 20

_Dynamics = pyspiel.GameType.Dynamics
_Utility = pyspiel.GameType.Utility

_DYNAMICS = {"sequential": _Dynamics.SEQUENTIAL, "simultaneous": _Dynamics.SIMULTANEOUS}
_UTILITIES = {
    "zero_sum": _Utility.ZERO_SUM,
    "constant_sum": _Utility.CONSTANT_SUM,
    "general_sum": _Utility.GENERAL_SUM,
}

_PARAMETERS = {
    "rules": "",
    "engine": "auto",
    "dynamics": "auto",
    "utility": "auto",
    "max_game_length": DEFAULT_MAX_GAME_LENGTH,
}


def _game_type(dynamics, utility, tensor: bool) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="A GDL game (rules: the path of its rules file)",
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=tensor,
        provides_observation_string=True,
        provides_observation_tensor=tensor,
        parameter_specification=_PARAMETERS,
    )


#: The type registered: each game's own says its dynamics and utility.
GAME_TYPE = _game_type(_Dynamics.SEQUENTIAL, _Utility.GENERAL_SUM, True)


def _scaled(goals: Sequence[int]) -> List[float]:
    """GDL goals (0..100) as returns (-1..1)."""
    return [g / 50.0 - 1.0 for g in goals]


def _choosers(game: Game, state: State) -> List[int]:
    """The roles with more than one legal move in ``state``."""
    return [r for r in range(len(game.roles)) if len(game.legal_moves(state, r)) > 1]


def _probe(game: Game, max_steps: int):
    """Plays ``PROBE_GAMES`` random games: whether a state had several
    roles with a choice, and the sums of the scaled goals of their ends."""
    rng = random.Random(0)
    simultaneous = False
    sums = set()
    for _ in range(PROBE_GAMES):
        state = game.initial_state()
        for _ in range(max_steps):
            if game.is_terminal(state):
                sums.add(round(sum(_scaled(game.goals(state))), 9))
                break
            legal = [game.legal_moves(state, r) for r in range(len(game.roles))]
            if sum(len(m) > 1 for m in legal) > 1:
                simultaneous = True
            state = game.next_state(state, [rng.choice(m) for m in legal])
    return simultaneous, sums


class IllegalActionError(ValueError, pyspiel.SpielError):
    """An action that is not legal for the player, or no action of the
    game: a ``ValueError``, and the ``pyspiel.SpielError`` OpenSpiel's own
    games raise, which RLlib's ``OpenSpielEnv`` catches (it then plays a
    random legal action and gives the player a penalty)."""


class SpielGame(pyspiel.Game):
    """A GDL game as a ``pyspiel.Game``, made by ``pyspiel.load_game("gdl",
    {"rules": path, ...})`` or ``SpielGame.from_gdl(game)``."""

    def __init__(self, params: Optional[Dict] = None, game: Optional[Game] = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        unknown = set(params) - set(_PARAMETERS)
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {sorted(unknown)} of the game gdl: "
                f"expected {sorted(_PARAMETERS)}"
            )
        if game is None:
            if not params["rules"]:
                raise ValueError(
                    'the game gdl needs its rules file: pyspiel.load_game("gdl", '
                    '{"rules": "path/to/game.gdl"})'
                )
            game = load(params["rules"], engine=params["engine"])
        n = len(game.roles)
        if n > MAX_PLAYERS:
            raise ValueError(f"{game.name}: {n} roles, more than the {MAX_PLAYERS} gdl.spiel allows")
        inputs = [game.input_moves(r) for r in range(n)]
        if any(i is None for i in inputs):
            raise ValueError(
                f"{game.name} declares no input moves: OpenSpiel needs the number of "
                "actions up front (declare (input ROLE MOVE) for every move)"
            )
        actions = [str(m) for m in sorted({m for ms in inputs for m in ms})]
        base = game.base_facts()
        length = int(params["max_game_length"])
        if length < 1:
            raise ValueError(f"max_game_length: at least 1, not {length}")
        dynamics, utility = params["dynamics"], params["utility"]
        for name, value, known in (
            ("dynamics", dynamics, _DYNAMICS),
            ("utility", utility, _UTILITIES),
        ):
            if value != "auto" and value not in known:
                raise ValueError(f"{name}: {value!r} is not one of auto, {', '.join(known)}")
        if "auto" in (dynamics, utility):
            simultaneous, sums = _probe(game, min(length, 300))
            if dynamics == "auto":
                dynamics = "simultaneous" if simultaneous else "sequential"
            if utility == "auto":
                utility = (
                    "general_sum" if len(sums) != 1
                    else "zero_sum" if sums == {0.0}
                    else "constant_sum"
                )
        params = {**params, "dynamics": dynamics, "utility": utility}
        info = pyspiel.GameInfo(
            num_distinct_actions=len(actions),
            max_chance_outcomes=0,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if utility == "zero_sum" else None,
            max_game_length=length,
        )
        gtype = _game_type(_DYNAMICS[dynamics], _UTILITIES[utility], base is not None)
        super().__init__(gtype, info, params)
        #: The ``gdl.Game`` played.
        self.gdl: Game = game
        #: Each action's move text, by action number.
        self.actions: List[str] = actions
        self._action_of: Dict[str, int] = {t: a for a, t in enumerate(actions)}
        #: The ``base`` facts in natural order (the observation tensor's
        #: positions), or ``None``.
        self.base: Optional[List[str]] = base
        self._base_index = {f: i for i, f in enumerate(base or [])}
        #: ``"sequential"`` or ``"simultaneous"``.
        self.dynamics: str = dynamics
        self._params = params

    @classmethod
    def from_gdl(cls, game: Union[Game, str, "os.PathLike[str]"], **params) -> "SpielGame":
        """The OpenSpiel game of a loaded ``gdl.Game`` (or of a rules file's
        path), with the parameters ``dynamics``, ``utility`` and
        ``max_game_length``."""
        if isinstance(game, Game):
            return cls({**params, "rules": game.name}, game=game)
        return cls({**params, "rules": os.fspath(game)})

    def new_initial_state(self) -> "SpielState":
        """The initial state."""
        return SpielState(self, self.gdl.initial_state())

    def state_of(self, state: State) -> "SpielState":
        """The OpenSpiel state standing on a ``gdl.State`` of this game
        (its history empty)."""
        if not isinstance(state, State) or state.game is not self.gdl:
            raise ValueError("expected a gdl.State of this game")
        return SpielState(self, state)

    def action_of(self, move: Union[Move, str]) -> int:
        """The action number of a move (a ``gdl.Move`` or its text)."""
        text = str(move)
        a = self._action_of.get(text)
        if a is None:
            a = self._action_of.get(str(self.gdl.parse_move(text)))
        if a is None:
            raise ValueError(f"the move {text} is not among the input moves the rules declare")
        return a

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the facts: ``base`` as a 0/1 tensor, the facts
        as text, or the history as text when perfect recall is asked for
        (information-state strings)."""
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return FactsObserver(self, params, perfect_recall=recall)

    def __reduce__(self):
        # By the gdl.Game (its rules text), so that a game loaded from text
        # pickles too.
        return (_from_pickle, (self.gdl, self._params))


def _from_pickle(game: Game, params: Dict) -> SpielGame:
    return SpielGame(params, game=game)


class SpielState(pyspiel.State):
    """A state of a ``SpielGame``: a ``gdl.State`` (``gdl_state``) and the
    actions that led to it."""

    def __init__(self, game: SpielGame, state: State) -> None:
        super().__init__(game)
        self._spiel = game
        self._set(state)

    def _set(self, state: State) -> None:
        g = self._spiel.gdl
        #: The ``gdl.State`` it stands on.
        self.gdl_state = state
        self._terminal = g.is_terminal(state)
        n = len(g.roles)
        self._legal: List[List[Move]] = (
            [[] for _ in range(n)] if self._terminal else [g.legal_moves(state, r) for r in range(n)]
        )
        if self._terminal:
            self._current = pyspiel.PlayerId.TERMINAL
            return
        if self.move_number() >= self._spiel.max_game_length():
            raise ValueError(
                f"{g.name}: the game went on past max_game_length="
                f"{self._spiel.max_game_length()} joint moves: load it with a larger one"
            )
        if self._spiel.dynamics == "simultaneous":
            self._current = pyspiel.PlayerId.SIMULTANEOUS
            return
        choosers = [r for r in range(n) if len(self._legal[r]) > 1]
        if len(choosers) > 1:
            raise ValueError(
                f"{g.name}: roles {', '.join(g.roles[r] for r in choosers)} all have a choice "
                "here, in a game loaded as sequential: load it with dynamics=simultaneous"
            )
        if choosers:
            self._current = choosers[0]
        else:
            # Every move forced: the role whose move is not noop moves.
            forced = [r for r in range(n) if str(self._legal[r][0]).lower() != "noop"]
            self._current = forced[0] if forced else 0

    def current_player(self) -> int:
        """The role to move (sequential), ``SIMULTANEOUS`` or ``TERMINAL``."""
        return self._current

    def _legal_actions(self, player: int) -> List[int]:
        """The action numbers of ``player``'s legal moves, sorted (none for
        a player not on turn at a sequential node)."""
        if self._current >= 0 and player != self._current:
            return []
        return sorted(self._spiel.action_of(m) for m in self._legal[player])

    def _move(self, player: int, action: int) -> Move:
        actions = self._spiel.actions
        if not 0 <= action < len(actions):
            raise IllegalActionError(f"no action {action}: the game has {len(actions)}")
        text = actions[action]
        for m in self._legal[player]:
            if str(m) == text:
                return m
        raise IllegalActionError(
            f"action {action} ({text}) is not legal for player {player} "
            f"({self._spiel.gdl.roles[player]})"
        )

    def _apply_action(self, action: int) -> None:
        if self._terminal:
            raise ValueError("the game is over")
        p = self._current
        joint = [self._move(p, action) if r == p else self._legal[r][0] for r in range(len(self._legal))]
        self._set(self._spiel.gdl.next_state(self.gdl_state, joint))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        if self._terminal:
            raise ValueError("the game is over")
        if len(actions) != len(self._legal):
            raise ValueError(f"expected {len(self._legal)} actions, got {len(actions)}")
        joint = [self._move(p, a) for p, a in enumerate(actions)]
        self._set(self._spiel.gdl.next_state(self.gdl_state, joint))

    def _action_to_string(self, player: int, action: int) -> str:
        if not 0 <= action < len(self._spiel.actions):
            raise ValueError(f"no action {action}: the game has {len(self._spiel.actions)}")
        return self._spiel.actions[action]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._terminal

    def goals(self) -> List[int]:
        """The GDL goals (0..100) at a terminal state."""
        return self._spiel.gdl.goals(self.gdl_state)

    def returns(self) -> List[float]:
        """The goals scaled to -1..1 at a terminal state, 0 before."""
        if not self._terminal:
            return [0.0] * len(self._legal)
        return _scaled(self.goals())

    def facts(self) -> List[str]:
        """The facts that hold, as KIF text, in natural order."""
        return self.gdl_state.facts()

    def __str__(self) -> str:
        return "\n".join(self.gdl_state.facts())


class FactsObserver:
    """OpenSpiel's observer of a GDL state: ``tensor`` is 0/1 over the
    game's ``base`` facts (empty without them), ``dict["facts"]`` the same
    array; the string is the facts one a line, or with ``perfect_recall``
    the actions played so far. The same for every player (GDL games have
    perfect information, and the facts of a state decide all that
    follows)."""

    def __init__(self, game: SpielGame, params=None, perfect_recall: bool = False) -> None:
        if params:
            raise ValueError(f"the observer of gdl takes no parameters, got {params}")
        self._recall = perfect_recall
        self._index = game._base_index
        self.tensor = np.zeros(len(game.base or []), np.float32)
        self.dict = {"facts": self.tensor}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor.fill(0)
        for f in state.gdl_state.facts():
            i = self._index.get(f)
            if i is not None:
                self.tensor[i] = 1

    def string_from(self, state: SpielState, player: int) -> str:
        if self._recall:
            return " ".join(str(a) for a in state.history())
        return "\n".join(state.gdl_state.facts())


def load_game(path: Union[str, "os.PathLike[str]"], **params) -> SpielGame:
    """``pyspiel.load_game("gdl", {"rules": path, **params})``."""
    return pyspiel.load_game(SHORT_NAME, {**params, "rules": os.fspath(path)})


pyspiel.register_game(GAME_TYPE, SpielGame)

__all__ = ["SpielGame", "SpielState", "FactsObserver", "IllegalActionError", "load_game", "GAME_TYPE", "SHORT_NAME"]
