"""The game API on tic-tac-toe: roles, states, moves, terms, the whole game
tree."""

import pytest

import gdl

NIM = """
(role player)
(init (count 2))
(<= (legal player take) (true (count ?n)) (distinct ?n 0))
(<= (next (count ?m)) (true (count ?n)) (does player take) (minus ?n ?m))
(minus 2 1) (minus 1 0)
(<= terminal (true (count 0)))
(goal player 100)
"""


def test_roles_engine_and_initial_state(tictactoe):
    g = tictactoe
    assert g.roles == ("xplayer", "oplayer")
    assert g.engine.startswith("ground rules")
    assert g.name.endswith("tictactoe.gdl")
    s = g.initial_state()
    assert len(s) == 10
    assert s.facts()[0] == "(cell 1 1 b)"
    assert "(control xplayer)" in s
    assert ("control", "xplayer") in s
    assert ("control", "oplayer") not in s
    assert list(s) == s.facts()
    assert s.fact_tuples()[0] == ("cell", "1", "1", "b")
    assert not g.is_terminal(s)
    assert s.game is g


def test_legal_moves_by_name_and_index(tictactoe):
    g = tictactoe
    s = g.initial_state()
    x = g.legal_moves(s, "xplayer")
    assert len(x) == 9
    assert x == g.legal_moves(s, 0) == g.legal_moves(s, "XPLAYER")
    assert [str(m) for m in g.legal_moves(s, 1)] == ["noop"]
    assert "noop" in g.legal_moves(s, "oplayer")
    assert "(mark 2 2)" in x
    assert x[0].tuple == ("mark", "1", "1")
    assert g.legal_moves(s, 1)[0].tuple == "noop"
    assert repr(x[0]) == "Move('(mark 1 1)')"
    # One object per move: asking again gives the same objects.
    assert g.legal_moves(s, 0)[0] is x[0]
    assert len(g.joint_moves(s)) == 9
    assert all(len(j) == 2 for j in g.joint_moves(s))


def test_moves_given_every_way_give_one_state(tictactoe):
    g = tictactoe
    s = g.initial_state()
    m = g.legal_moves(s, 0)[4]
    noop = g.legal_moves(s, 1)[0]
    ways = [
        [m, noop],
        ("(mark 2 2)", "noop"),
        [("mark", 2, 2), "noop"],
        [("mark", "2", "2"), noop],
        ["(MARK 2  2)", "NOOP"],
        {"xplayer": "(mark 2 2)", "oplayer": "noop"},
        {0: m, 1: "noop"},
    ]
    states = [g.next_state(s, w) for w in ways]
    assert all(t == states[0] for t in states)
    assert len({hash(t) for t in states}) == 1
    assert len(set(states)) == 1
    assert "(cell 2 2 x)" in states[0]
    assert g.parse_move(("mark", 2, 2)) is m
    assert g.parse_move("(mark 2 2)") == "(mark 2 2)"


def test_a_game_to_its_end(tictactoe):
    g = tictactoe
    s = g.initial_state()
    for x, o in [("(mark 1 1)", "(mark 2 1)"), ("(mark 1 2)", "(mark 2 2)")]:
        s = g.next_state(s, [x, "noop"])
        s = g.next_state(s, ["noop", o])
    assert not g.is_terminal(s)
    s = g.next_state(s, ["(mark 1 3)", "noop"])
    assert g.is_terminal(s)
    assert g.goals(s) == [100, 0]


def test_moves_sort_in_natural_order():
    g = gdl.loads(
        "(role r) (init (at 1)) (<= (legal r (go ?n)) (n ?n)) (n 9) (n 10) (n 2)"
        "(<= (next (at ?n)) (does r (go ?n))) (<= terminal (true (at 10))) (goal r 100)"
    )
    moves = g.legal_moves(g.initial_state(), "r")
    assert [str(m) for m in sorted(moves)] == ["(go 2)", "(go 9)", "(go 10)"]


def test_terms_as_text_and_tuples():
    assert gdl.parse_term("(move a 2 (b 3))") == ("move", "a", "2", ("b", "3"))
    assert gdl.parse_term("NOOP") == "NOOP"
    assert gdl.parse_term("(f)") == ("f",)
    assert gdl.term_text(("move", "a", 2, ("b", 3))) == "(move a 2 (b 3))"
    assert gdl.term_text("noop") == "noop"
    assert gdl.term_text(("f",)) == "(f)"
    for text in ["(cell 1 1 x)", "noop", "(f (g (h a)) b)"]:
        assert gdl.term_text(gdl.parse_term(text)) == text


def test_names_as_the_rules_file_writes_them():
    g = gdl.loads(
        "(role Red) (init (Count 0)) (<= (legal Red (do thrustCounter)) (true (Count 0)))"
        "(<= (next (Count 1)) (does Red (do thrustCounter))) (<= terminal (true (Count 1)))"
        "(goal Red 100)"
    )
    assert g.roles == ("Red",)
    s = g.initial_state()
    assert s.facts() == ["(Count 0)"]
    assert s.fact_tuples() == [("Count", "0")]
    # Read without case: facts, roles and moves.
    assert "(count 0)" in s and ("COUNT", 0) in s
    [m] = g.legal_moves(s, "red")
    assert str(m) == "(do thrustCounter)" and m.tuple == ("do", "thrustCounter")
    assert g.parse_move("(DO THRUSTCOUNTER)") is m
    end = g.next_state(s, ["(do thrustcounter)"])
    assert g.is_terminal(end) and g.goals(end) == [100]


def test_base_and_input(tictactoe):
    g = tictactoe
    base = g.base_facts()
    assert len(base) == 29
    assert base[:3] == ["(cell 1 1 b)", "(cell 1 1 o)", "(cell 1 1 x)"]
    assert base[-2:] == ["(control oplayer)", "(control xplayer)"]
    inputs = g.input_moves("xplayer")
    assert [str(m) for m in inputs][:2] == ["(mark 1 1)", "(mark 1 2)"]
    assert inputs[-1] == "noop" and len(inputs) == 10
    # Every legal move is an input move.
    s = g.initial_state()
    assert set(g.legal_moves(s, 0)) <= set(inputs)
    nim = gdl.loads(NIM, name="nim.gdl")
    assert nim.base_facts() is None
    assert nim.input_moves(0) is None


def test_warnings_are_diagnostics():
    nim = gdl.loads(NIM, name="nim.gdl")
    codes = [w.code for w in nim.warnings]
    assert "no-base-input" in codes
    w = nim.warnings[codes.index("no-base-input")]
    assert w.severity == "warning" and w.file == "nim.gdl" and w.line >= 1
    assert str(w).startswith("nim.gdl:")


def test_a_one_role_game():
    nim = gdl.loads(NIM)
    s = nim.initial_state()
    steps = 0
    while not nim.is_terminal(s):
        s = nim.next_state(s, nim.legal_moves(s, "player")[:1])
        steps += 1
    assert steps == 2 and nim.goals(s) == [100]


def test_states_are_values(tictactoe):
    g = tictactoe
    s = g.initial_state()
    a = g.next_state(g.next_state(s, ["(mark 1 1)", "noop"]), ["noop", "(mark 2 2)"])
    b = g.next_state(g.next_state(s, ["(mark 1 1)", "noop"]), ["noop", "(mark 2 2)"])
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != s and not (a == s)
    assert {a: 1}[b] == 1
    with pytest.raises(TypeError):
        a < b  # noqa: B015  states are not ordered
    assert a != "a string"
    # The same position by another order of moves is the same state.
    c = g.next_state(g.next_state(s, ["(mark 2 2)", "noop"]), ["noop", "(mark 1 1)"])
    assert c != a  # x and o swapped
    d1 = g.next_state(g.next_state(g.next_state(g.next_state(s, ["(mark 1 1)", "noop"]), ["noop", "(mark 2 2)"]), ["(mark 3 3)", "noop"]), ["noop", "(mark 1 3)"])
    d2 = g.next_state(g.next_state(g.next_state(g.next_state(s, ["(mark 3 3)", "noop"]), ["noop", "(mark 1 3)"]), ["(mark 1 1)", "noop"]), ["noop", "(mark 2 2)"])
    assert d1 == d2 and hash(d1) == hash(d2)


def test_states_of_two_loads_of_one_file_differ(rules):
    a = gdl.load(rules / "tictactoe.gdl")
    b = gdl.load(rules / "tictactoe.gdl")
    assert a.initial_state() != b.initial_state()
    assert a.initial_state().facts() == b.initial_state().facts()
    with pytest.raises(ValueError, match="another game"):
        a.legal_moves(b.initial_state(), 0)
    with pytest.raises(ValueError, match="another game"):
        a.next_state(a.initial_state(), [b.legal_moves(b.initial_state(), 0)[0], "noop"])


def count_games(g, s, stats, seen):
    """Every complete game from `s`, depth first, through the module:
    adds the goals of each game's end to `stats`, each state to `seen`."""
    seen.add(s)
    if g.is_terminal(s):
        goals = tuple(g.goals(s))
        stats[goals] = stats.get(goals, 0) + 1
        return 1
    return sum(count_games(g, g.next_state(s, j), stats, seen) for j in g.joint_moves(s))


def test_every_game_of_tictactoe(tictactoe):
    stats, seen = {}, set()
    games = count_games(tictactoe, tictactoe.initial_state(), stats, seen)
    assert games == 255_168
    assert stats == {(100, 0): 131_184, (0, 100): 77_904, (50, 50): 46_080}
    # The distinct positions: states hash and compare as sets of facts.
    assert len(seen) == 5_478
