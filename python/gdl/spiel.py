"""A gdl game in the shape of OpenSpiel's game and state API.

``SpielGame`` answers like ``pyspiel.Game`` (``num_players``,
``num_distinct_actions``, ``new_initial_state``, ``observation_tensor_shape``,
...) and ``SpielState`` like ``pyspiel.State`` (``current_player``,
``legal_actions``, ``legal_actions_mask``, ``apply_action``,
``apply_actions``, ``is_terminal``, ``returns``, ``observation_tensor``,
``clone``, ``child``, ...). OpenSpiel need not be installed: nothing here
imports it, and every answer is a plain Python list.

Actions are numbers: the index of a move in the sorted (natural order)
union of every role's ``input`` moves, the same numbering for every player.
Observations are the facts of the state: ``observation_string`` and
``facts()`` give them as text, ``observation_tensor`` as a 0/1 vector over
the game's ``base`` facts. GDL games have perfect information, so every
player observes the same.

A GDL step is a joint move: every role moves, turn-taking games giving the
role not on turn a single move (``noop``). A state where at most one role
has a choice is a sequential node: ``current_player()`` is that role and
``apply_action`` plays its move with every other role's only move. A state
where several roles have a choice is a simultaneous node
(``current_player() == SIMULTANEOUS``): play it with ``apply_actions``, one
action per player.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Dict, List, Optional, Sequence, Union

from ._gdl import Game, Move, State, load

#: ``current_player()`` at a simultaneous node (as ``pyspiel.PlayerId.SIMULTANEOUS``).
SIMULTANEOUS = -2
#: ``current_player()`` at a terminal state (as ``pyspiel.PlayerId.TERMINAL``).
TERMINAL = -4


class SpielGame:
    """A ``gdl.Game`` in the shape of ``pyspiel.Game``.

    ``game`` is a loaded ``gdl.Game`` or the path of a rules file. The
    action numbering and the observation vector come from the rules'
    ``input`` and ``base`` declarations; without them, actions are numbered
    as moves are first seen (``num_distinct_actions`` and
    ``legal_actions_mask`` raise ``ValueError``) and ``observation_tensor``
    raises ``ValueError``.
    """

    def __init__(self, game: Union[Game, str, "os.PathLike[str]"]) -> None:
        if not isinstance(game, Game):
            game = load(game)
        #: The wrapped ``gdl.Game``.
        self.game: Game = game
        self._roles = game.roles
        base = game.base_facts()
        #: The ``base`` facts in natural order (the observation vector's
        #: positions), or ``None``.
        self.base: Optional[List[str]] = base
        self._base_index = None if base is None else {f: i for i, f in enumerate(base)}
        inputs = [game.input_moves(r) for r in range(len(self._roles))]
        self._fixed = all(i is not None for i in inputs)
        #: Each action's move text, by action number.
        self.actions: List[str] = []
        self._action_of: Dict[str, int] = {}
        if self._fixed:
            for m in sorted({m for moves in inputs for m in moves}):
                self._number(str(m))

    def _number(self, text: str) -> int:
        """The action number of a move's text, numbering it if new."""
        a = self._action_of.get(text)
        if a is None:
            a = len(self.actions)
            self.actions.append(text)
            self._action_of[text] = a
        return a

    def action_of(self, move: Union[Move, str]) -> int:
        """The action number of a move (a ``gdl.Move`` or its text)."""
        text = str(move)
        a = self._action_of.get(text)
        if a is not None:
            return a
        if self._fixed:
            raise ValueError(
                f"the move {text} is not among the input moves the rules declare"
            )
        return self._number(text)

    def num_players(self) -> int:
        """The number of roles."""
        return len(self._roles)

    def num_distinct_actions(self) -> int:
        """How many action numbers there are: the distinct ``input`` moves
        of all roles."""
        self._need_input()
        return len(self.actions)

    def new_initial_state(self) -> "SpielState":
        """The initial state."""
        return SpielState(self, self.game.initial_state())

    def observation_tensor_shape(self) -> List[int]:
        """``[len(base)]``: one 0/1 entry per ``base`` fact."""
        return [self.observation_tensor_size()]

    def observation_tensor_size(self) -> int:
        """The number of ``base`` facts."""
        return len(self._need_base())

    def min_utility(self) -> float:
        """The least goal value GDL allows, 0."""
        return 0.0

    def max_utility(self) -> float:
        """The greatest goal value GDL allows, 100."""
        return 100.0

    def get_type(self) -> SimpleNamespace:
        """What kind of game it is, with the attribute names of
        ``pyspiel.GameType`` (values are plain strings and booleans)."""
        return SimpleNamespace(
            short_name="gdl",
            long_name=f"GDL: {self.game.name}",
            dynamics="simultaneous-or-sequential",
            chance_mode="deterministic",
            information="perfect_information",
            utility="general_sum",
            reward_model="terminal",
            provides_observation_string=True,
            provides_observation_tensor=self.base is not None,
            provides_information_state_string=True,
            provides_information_state_tensor=self.base is not None,
        )

    def _need_input(self) -> None:
        if not self._fixed:
            raise ValueError(
                f"{self.game.name} declares no input moves: action numbers are given as "
                "moves are first seen, and there is no fixed number of them"
            )

    def _need_base(self) -> List[str]:
        if self.base is None:
            raise ValueError(
                f"{self.game.name} declares no base facts: use observation_string() or facts()"
            )
        return self.base

    def __repr__(self) -> str:
        return f"SpielGame({self.game.name!r})"


class SpielState:
    """A state of a ``SpielGame``, in the shape of ``pyspiel.State``.

    Unlike a ``gdl.State`` (a value), it changes in place with
    ``apply_action`` and ``apply_actions``; ``clone()`` and ``child()`` give
    new ones. ``gdl_state`` is the ``gdl.State`` it stands on.
    """

    def __init__(self, game: SpielGame, state: State, history: Sequence[int] = ()) -> None:
        self._game = game
        self._history = list(history)
        self._set(state)

    def _set(self, state: State) -> None:
        g = self._game.game
        #: The ``gdl.State`` it stands on.
        self.gdl_state = state
        self._terminal = g.is_terminal(state)
        n = len(g.roles)
        self._legal: List[List[Move]] = (
            [[] for _ in range(n)] if self._terminal else [g.legal_moves(state, r) for r in range(n)]
        )
        if self._terminal:
            self._current = TERMINAL
            return
        choosers = [r for r in range(n) if len(self._legal[r]) > 1]
        if len(choosers) == 1:
            self._current = choosers[0]
        elif choosers:
            self._current = SIMULTANEOUS
        else:
            # Every move forced: the role whose move is not noop "moves".
            forced = [r for r in range(n) if self._legal[r] and str(self._legal[r][0]) != "noop"]
            self._current = forced[0] if forced else 0

    def get_game(self) -> SpielGame:
        """The game."""
        return self._game

    def num_players(self) -> int:
        """The number of roles."""
        return self._game.num_players()

    def current_player(self) -> int:
        """The role to move at a sequential node, ``SIMULTANEOUS`` (-2)
        when several roles have a choice, ``TERMINAL`` (-4) at the end."""
        return self._current

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._terminal

    def is_simultaneous_node(self) -> bool:
        """Whether several roles have a choice here."""
        return self._current == SIMULTANEOUS

    def is_chance_node(self) -> bool:
        """Always ``False``: GDL games have no chance."""
        return False

    def is_player_node(self) -> bool:
        """Whether one role is to move (a sequential node)."""
        return self._current >= 0

    def _player(self, player: Optional[int]) -> int:
        if player is None:
            if self._current < 0:
                raise ValueError("name the player: this is not a sequential node")
            return self._current
        if not 0 <= player < self.num_players():
            raise ValueError(f"no player {player}: the game has {self.num_players()}")
        return player

    def legal_actions(self, player: Optional[int] = None) -> List[int]:
        """The action numbers of ``player``'s legal moves (the current
        player's by default), sorted; empty at a terminal state."""
        p = self._player(player)
        return sorted(self._game.action_of(m) for m in self._legal[p])

    def legal_actions_mask(self, player: Optional[int] = None) -> List[int]:
        """A 0/1 list of ``num_distinct_actions()`` entries: 1 for each
        legal action of ``player`` (the current player's by default)."""
        mask = [0] * self._game.num_distinct_actions()
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    def legal_moves(self, player: Optional[int] = None) -> List[Move]:
        """``player``'s legal moves as ``gdl.Move`` objects."""
        return list(self._legal[self._player(player)])

    def _move(self, player: int, action: int) -> Move:
        actions = self._game.actions
        if not 0 <= action < len(actions):
            raise ValueError(f"no action {action}")
        text = actions[action]
        for m in self._legal[player]:
            if str(m) == text:
                return m
        raise ValueError(
            f"action {action} ({text}) is not legal for player {player} ({self._game.game.roles[player]})"
        )

    def apply_action(self, action: int) -> None:
        """Plays ``action`` for the current player, with every other
        role's only legal move. At a simultaneous node, use
        ``apply_actions``."""
        if self._terminal:
            raise ValueError("the game is over")
        if self._current == SIMULTANEOUS:
            raise ValueError("a simultaneous node: use apply_actions, one action per player")
        p = self._current
        joint = [self._move(p, action) if r == p else self._legal[r][0] for r in range(self.num_players())]
        self._history.append(action)
        self._set(self._game.game.next_state(self.gdl_state, joint))

    def apply_actions(self, actions: Sequence[int]) -> None:
        """Plays one action per player, in player order (any node)."""
        if self._terminal:
            raise ValueError("the game is over")
        if len(actions) != self.num_players():
            raise ValueError(f"expected {self.num_players()} actions, got {len(actions)}")
        joint = [self._move(p, a) for p, a in enumerate(actions)]
        self._history.extend(actions)
        self._set(self._game.game.next_state(self.gdl_state, joint))

    def child(self, action: int) -> "SpielState":
        """A new state: this one after ``apply_action(action)``."""
        c = self.clone()
        c.apply_action(action)
        return c

    def clone(self) -> "SpielState":
        """A copy (cheap: ``gdl.State`` is an immutable value)."""
        c = SpielState.__new__(SpielState)
        c.__dict__.update(self.__dict__)
        c._history = list(self._history)
        return c

    def history(self) -> List[int]:
        """The actions applied so far (a simultaneous node adds one per
        player, in player order)."""
        return list(self._history)

    def move_number(self) -> int:
        """The number of actions applied so far."""
        return len(self._history)

    def returns(self) -> List[float]:
        """Each player's goal value at a terminal state, 0 before."""
        if not self._terminal:
            return [0.0] * self.num_players()
        return [float(g) for g in self._game.game.goals(self.gdl_state)]

    def rewards(self) -> List[float]:
        """The rewards of the last step: the goals at a terminal state
        (GDL rewards only at the end), 0 before."""
        return self.returns()

    def player_return(self, player: int) -> float:
        """``returns()[player]``."""
        return self.returns()[player]

    def action_to_string(self, player_or_action: int, action: Optional[int] = None) -> str:
        """The move text of an action: ``action_to_string(action)`` or, as
        OpenSpiel also writes it, ``action_to_string(player, action)``."""
        a = player_or_action if action is None else action
        if not 0 <= a < len(self._game.actions):
            raise ValueError(f"no action {a}")
        return self._game.actions[a]

    def string_to_action(self, player_or_text: Union[int, str], text: Optional[str] = None) -> int:
        """The action of a move's text (``string_to_action(text)`` or
        ``string_to_action(player, text)``)."""
        t = player_or_text if text is None else text
        return self._game.action_of(self._game.game.parse_move(t))

    def facts(self) -> frozenset:
        """The observation as a set: the facts that hold, as KIF text."""
        return frozenset(self.gdl_state.facts())

    def observation_string(self, player: Optional[int] = None) -> str:
        """The facts that hold, one a line, in natural order (the same for
        every player)."""
        return "\n".join(self.gdl_state.facts())

    def observation_tensor(self, player: Optional[int] = None) -> List[float]:
        """A 0/1 list over the game's ``base`` facts (in natural order):
        1.0 where the fact holds (the same for every player). Facts
        outside ``base`` are not shown."""
        base = self._game._need_base()
        index = self._game._base_index
        tensor = [0.0] * len(base)
        for f in self.gdl_state.facts():
            i = index.get(f)
            if i is not None:
                tensor[i] = 1.0
        return tensor

    def information_state_string(self, player: Optional[int] = None) -> str:
        """As ``observation_string`` (perfect information)."""
        return self.observation_string(player)

    def information_state_tensor(self, player: Optional[int] = None) -> List[float]:
        """As ``observation_tensor`` (perfect information)."""
        return self.observation_tensor(player)

    def __str__(self) -> str:
        return self.observation_string()

    def __repr__(self) -> str:
        return f"<SpielState of {self._game.game.name!r} after {len(self._history)} actions>"


def load_game(path: Union[str, "os.PathLike[str]"]) -> SpielGame:
    """A ``SpielGame`` of the rules file at ``path`` (as
    ``pyspiel.load_game`` gives a game by name)."""
    return SpielGame(load(path))


__all__ = ["SpielGame", "SpielState", "load_game", "SIMULTANEOUS", "TERMINAL"]
