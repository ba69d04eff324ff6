"""The OpenSpiel-shaped wrapper: actions over `input`, observations over
`base`, sequential and simultaneous nodes."""

import random

import pytest

import gdl
from gdl.spiel import SIMULTANEOUS, TERMINAL, SpielGame, load_game

RPS = """
(role left) (role right)
(base (played left rock)) (base (played left paper)) (base (played left scissors))
(base (played right rock)) (base (played right paper)) (base (played right scissors))
(input left rock) (input left paper) (input left scissors)
(input right rock) (input right paper) (input right scissors)
(init (round 0))
(<= (legal ?r rock) (role ?r) (true (round 0)))
(<= (legal ?r paper) (role ?r) (true (round 0)))
(<= (legal ?r scissors) (role ?r) (true (round 0)))
(<= (next (played ?r ?m)) (does ?r ?m))
(<= (next (round 1)) (true (round 0)))
(<= terminal (true (round 1)))
(beats rock scissors) (beats paper rock) (beats scissors paper)
(<= (goal left 100) (true (played left ?a)) (true (played right ?b)) (beats ?a ?b))
(<= (goal left 0) (true (played left ?a)) (true (played right ?b)) (beats ?b ?a))
(<= (goal left 50) (true (played left ?a)) (true (played right ?a)))
(<= (goal right 100) (true (played left ?a)) (true (played right ?b)) (beats ?b ?a))
(<= (goal right 0) (true (played left ?a)) (true (played right ?b)) (beats ?a ?b))
(<= (goal right 50) (true (played left ?a)) (true (played right ?a)))
"""


@pytest.fixture(scope="module")
def ttt(rules):
    return load_game(rules / "tictactoe.gdl")


def test_the_game(ttt):
    assert ttt.num_players() == 2
    assert ttt.num_distinct_actions() == 10
    assert ttt.actions[0] == "(mark 1 1)" and ttt.actions[-1] == "noop"
    assert ttt.observation_tensor_shape() == [29]
    assert (ttt.min_utility(), ttt.max_utility()) == (0.0, 100.0)
    assert ttt.get_type().provides_observation_tensor


def test_a_sequential_game(ttt):
    s = ttt.new_initial_state()
    assert s.current_player() == 0 and s.is_player_node() and not s.is_simultaneous_node()
    assert s.legal_actions() == list(range(9))
    assert s.legal_actions(1) == [9]
    assert sum(s.legal_actions_mask()) == 9 and s.legal_actions_mask(1)[9] == 1
    assert s.action_to_string(0, 4) == "(mark 2 2)" == s.action_to_string(4)
    assert s.string_to_action("(mark 2 2)") == 4
    obs = s.observation_tensor()
    assert len(obs) == 29 and sum(obs) == 10
    assert obs[ttt.base.index("(cell 1 1 b)")] == 1.0
    assert "(control xplayer)" in s.facts()
    c = s.child(4)
    assert s.move_number() == 0 and c.move_number() == 1
    assert c.current_player() == 1 and c.history() == [4]
    assert c.observation_tensor()[ttt.base.index("(cell 2 2 x)")] == 1.0
    with pytest.raises(ValueError):
        c.apply_action(4)  # taken
    for a in [0, 2, 1, 6]:  # o (mark 1 1), x (mark 1 3), o (mark 1 2), x (mark 3 1)
        c.apply_action(a)
    # x holds the diagonal (1 3), (2 2), (3 1).
    assert c.is_terminal() and c.current_player() == TERMINAL
    assert c.returns() == [100.0, 0.0] and c.rewards() == [100.0, 0.0]
    assert c.legal_actions(0) == []
    with pytest.raises(ValueError):
        c.apply_action(0)


def test_random_games_through_the_wrapper_match_the_module(ttt):
    g = ttt.game
    rng = random.Random(5)
    for seed in range(50):
        s = ttt.new_initial_state()
        state = g.initial_state()
        while not s.is_terminal():
            a = rng.choice(s.legal_actions())
            joint = [ttt.actions[a] if r == s.current_player() else g.legal_moves(state, r)[0]
                     for r in range(2)]
            state = g.next_state(state, joint)
            s.apply_action(a)
            assert s.gdl_state == state
        assert s.returns() == [float(v) for v in g.goals(state)]


def test_a_simultaneous_game():
    game = SpielGame(gdl.loads(RPS, name="rps.gdl"))
    assert game.num_distinct_actions() == 3
    assert game.actions == ["paper", "rock", "scissors"]
    s = game.new_initial_state()
    assert s.current_player() == SIMULTANEOUS and s.is_simultaneous_node()
    assert s.legal_actions(0) == s.legal_actions(1) == [0, 1, 2]
    with pytest.raises(ValueError):
        s.apply_action(0)
    with pytest.raises(ValueError):
        s.legal_actions()
    s.apply_actions([1, 2])  # rock, scissors
    assert s.is_terminal() and s.returns() == [100.0, 0.0]
    obs = s.observation_tensor()
    assert obs == [1.0 if f in ("(played left rock)", "(played right scissors)") else 0.0
                   for f in game.base]


def test_a_game_without_base_or_input():
    game = SpielGame(gdl.loads(
        "(role p) (init (c 0)) (<= (legal p (go 1)) (true (c 0))) (<= (legal p (go 2)) (true (c 0)))"
        "(<= (next (c 1)) (does p (go 1))) (<= (next (c 2)) (does p (go 2)))"
        "(<= terminal (not (true (c 0)))) (<= (goal p 100) (true (c 2))) (<= (goal p 0) (true (c 1)))"
    ))
    s = game.new_initial_state()
    assert s.current_player() == 0
    actions = s.legal_actions()
    assert sorted(s.action_to_string(a) for a in actions) == ["(go 1)", "(go 2)"]
    with pytest.raises(ValueError, match="no input"):
        game.num_distinct_actions()
    with pytest.raises(ValueError, match="no base"):
        s.observation_tensor()
    assert s.observation_string() == "(c 0)"
    s.apply_action(s.string_to_action("(go 2)"))
    assert s.returns() == [100.0]
