"""Games, states and moves pickle and copy: a game by its rules text, a
state by its facts; a state is made again from its facts."""

import copy
import multiprocessing
import pickle

import pytest

import gdl


def play(game, seed, steps):
    """The state after `steps` joint moves of the random game `seed`."""
    state = game.initial_state()
    for joint in game.random_game(seed)[:steps]:
        state = game.next_state(state, joint)
    return state


def test_copies_are_the_values_themselves(tictactoe):
    s = play(tictactoe, 1, 3)
    m = tictactoe.legal_moves(s, 0)[0]
    for value in (s, m, tictactoe):
        assert copy.copy(value) is value
        assert copy.deepcopy(value) is value
    assert copy.deepcopy([s, m]) == [s, m]


def test_pickled_in_the_same_process_they_are_equal(tictactoe):
    s = play(tictactoe, 2, 4)
    m = tictactoe.legal_moves(s, 1)[0]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        s2, m2, g2 = pickle.loads(pickle.dumps((s, m, tictactoe), protocol))
        assert g2 is tictactoe
        assert s2 == s and hash(s2) == hash(s) and s2.facts() == s.facts()
        assert m2 == m and m2 is m


def test_a_game_pickles_by_its_rules_text(rules):
    text = (rules / "tictactoe.gdl").read_text()
    g = gdl.loads(text, "ttt.gdl", engine="interpreter", limits={"max_facts": 1000})
    name, args = g.__reduce__()[0].__name__, g.__reduce__()[1]
    assert name == "game" and args[0] == text and args[1] == "ttt.gdl"
    assert args[2] == "interpreter" and args[3] == {"max_facts": 1000}


def unpickled_elsewhere(data):
    """In a new process: the game, the state and the move of `data`, and
    what the game says of them."""
    game, state, move = pickle.loads(data)
    return (
        game.name,
        game.engine,
        state.facts(),
        str(move),
        [str(m) for m in game.legal_moves(state, 0)],
        str(game.next_state(state, [move, "noop"])),
    )


def test_pickles_cross_processes(tictactoe):
    s = play(tictactoe, 5, 2)
    m = tictactoe.legal_moves(s, 0)[0]
    data = pickle.dumps((tictactoe, s, m))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        got = pool.apply(unpickled_elsewhere, (data,))
    assert got == (
        tictactoe.name,
        tictactoe.engine,
        s.facts(),
        str(m),
        [str(x) for x in tictactoe.legal_moves(s, 0)],
        str(tictactoe.next_state(s, [m, "noop"])),
    )


def test_a_state_from_its_facts(tictactoe):
    g = tictactoe
    for seed in range(20):
        s = play(g, seed, seed % 7)
        assert g.state_from_facts(s.facts()) == s
        assert g.state_from_facts(reversed(s.fact_tuples())) == s
        assert g.state_from_facts(s.facts() + s.facts()[:2]) == s
        assert g.legal_moves(g.state_from_facts(s.facts()), 0) == g.legal_moves(s, 0)
    # Names in any case; facts outside base are kept.
    s = g.state_from_facts(["(CELL 1 1 x)", ("control", "oplayer"), "(extra 1)"])
    assert "(cell 1 1 x)" in s and "(extra 1)" in s and len(s) == 3


def test_bad_facts_are_refused(tictactoe):
    g = tictactoe
    with pytest.raises(ValueError, match=r"fact 1 .*not a ground term"):
        g.state_from_facts(["(cell 1 1 x)", "(cell 1"])
    with pytest.raises(ValueError, match="not a ground term"):
        g.state_from_facts(["(cell ?x 1 b)"])
    with pytest.raises(TypeError, match="not one string"):
        g.state_from_facts("(cell 1 1 x)")
    with pytest.raises(TypeError):
        g.state_from_facts(42)
    with pytest.raises(TypeError):
        g.state_from_facts([3.5])


def test_a_move_of_a_freed_game_does_not_pickle(rules):
    import gc

    g = gdl.load(rules / "tictactoe.gdl")
    m = g.legal_moves(g.initial_state(), 0)[0]
    del g
    gc.collect()
    assert str(m) == "(mark 1 1)"
    with pytest.raises(ValueError, match="game has been freed"):
        pickle.dumps(m)
