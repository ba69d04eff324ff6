"""Bad input raises Python exceptions carrying what went wrong, and never
takes the interpreter down."""

import os
import random

import pytest

import gdl
from conftest import RULES


def test_invalid_rules_locate_the_first_error():
    text = "(role x)\n(init (p))\n(<= (legal x ?m) (true ?n))\n"
    with pytest.raises(gdl.LoadError) as caught:
        gdl.loads(text, name="bad.gdl")
    e = caught.value
    assert isinstance(e, gdl.GdlError)
    assert e.file == "bad.gdl"
    codes = [d.code for d in e.diagnostics]
    assert "unsafe-variable" in codes
    unsafe = e.diagnostics[codes.index("unsafe-variable")]
    assert (unsafe.line, unsafe.column) == (3, 14)
    assert (unsafe.end_line, unsafe.end_column) == (3, 16)
    assert unsafe.severity == "error"
    assert str(unsafe).startswith("bad.gdl:3:14: error[unsafe-variable]:")
    first = next(d for d in e.diagnostics if d.severity == "error")
    assert (e.line, e.column, e.code) == (first.line, first.column, first.code)
    assert "bad.gdl:3:14" in str(e)


def test_a_syntax_error_is_located():
    with pytest.raises(gdl.LoadError) as caught:
        gdl.loads("(role x)\n(init (p)\n", name="open.gdl")
    e = caught.value
    assert e.file == "open.gdl" and e.line == 2 and e.column == 1
    assert e.code


def test_loading_files(tmp_path):
    with pytest.raises(FileNotFoundError) as caught:
        gdl.load(tmp_path / "missing.gdl")
    assert caught.value.filename == str(tmp_path / "missing.gdl")
    with pytest.raises(IsADirectoryError):
        gdl.load(tmp_path)
    binary = tmp_path / "binary.gdl"
    binary.write_bytes(b"(role x)\n\xff\xfe\x00")
    with pytest.raises(gdl.LoadError) as caught:
        gdl.load(binary)
    assert caught.value.code == "not-text"
    assert caught.value.file == str(binary) and caught.value.line == 2
    bad = tmp_path / "bad.gdl"
    bad.write_text("(role x) (<= (legal x ?m) (true ?n))")
    with pytest.raises(gdl.LoadError) as caught:
        gdl.load(str(bad))
    assert caught.value.file == str(bad)
    with pytest.raises(TypeError):
        gdl.load(42)


def test_bad_moves(tictactoe):
    g = tictactoe
    s = g.initial_state()
    with pytest.raises(gdl.IllegalMoveError) as caught:
        g.next_state(s, ["noop", "noop"])
    e = caught.value
    assert isinstance(e, gdl.MoveError) and isinstance(e, ValueError)
    assert e.role == "xplayer" and e.move == "noop" and len(e.legal) == 9
    with pytest.raises(gdl.IllegalMoveError):
        g.next_state(s, ["(mark 9 9)", "noop"])
    with pytest.raises(gdl.MoveError) as caught:
        g.next_state(s, ["(mark 1 1)"])
    assert (caught.value.expected, caught.value.given) == (2, 1)
    with pytest.raises(gdl.MoveError):
        g.next_state(s, ["(mark 1", "noop"])
    with pytest.raises(gdl.MoveError):
        g.next_state(s, ["?x", "noop"])
    with pytest.raises(gdl.MoveError):
        g.parse_move("(a) (b)")
    with pytest.raises(ValueError):
        g.next_state(s, [("mark", "1 1"), "noop"])
    with pytest.raises(ValueError):
        g.next_state(s, [(), "noop"])
    with pytest.raises(TypeError):
        g.next_state(s, "(mark 1 1)")
    with pytest.raises(TypeError):
        g.next_state(s, [1.5, "noop"])
    with pytest.raises(TypeError):
        g.next_state(s, 7)
    with pytest.raises(ValueError, match="no move for role oplayer"):
        g.next_state(s, {"xplayer": "(mark 1 1)"})
    # A set has no order: which role plays which move would hang on the
    # hash seed.
    for unordered in ({"(mark 1 1)", "noop"}, frozenset(["(mark 1 1)", "noop"])):
        with pytest.raises(TypeError, match="a set has no order"):
            g.next_state(s, unordered)
    # A dict that names a role twice (by another case, or by name and
    # index) gives it two moves: refused, not the last one kept.
    for twice in (
        {"xplayer": "(mark 1 1)", "XPLAYER": "(mark 2 2)", "oplayer": "noop"},
        {0: "(mark 1 1)", "xplayer": "(mark 2 2)", 1: "noop"},
    ):
        with pytest.raises(ValueError, match="role xplayer is given two moves"):
            g.next_state(s, twice)


def test_bad_roles_and_states(tictactoe):
    g = tictactoe
    s = g.initial_state()
    with pytest.raises(ValueError, match="no role"):
        g.legal_moves(s, "nobody")
    with pytest.raises(ValueError, match="out of range"):
        g.legal_moves(s, 2)
    with pytest.raises(ValueError, match="out of range"):
        g.legal_moves(s, -1)
    with pytest.raises(TypeError):
        g.legal_moves(s, 0.0)
    with pytest.raises(TypeError):
        g.legal_moves("state", 0)
    with pytest.raises(TypeError):
        g.is_terminal(None)
    with pytest.raises(TypeError):
        gdl.State()


def test_terminal_states_and_goals():
    g = gdl.loads(
        "(role a) (role b) (init on) (<= (legal ?r go) (role ?r)) (<= (next off) (true on))"
        "(<= terminal (true off)) (<= (goal a 100) (true off)) (<= (goal b 0) (true off))"
        "(<= (goal b 10) (true off))"
    )
    s = g.initial_state()
    with pytest.raises(gdl.GoalError) as caught:
        g.goals(s)
    assert caught.value.role == "a" and caught.value.values == []
    # The initial state is not terminal: the message does not call it so.
    assert not g.is_terminal(s)
    assert str(caught.value) == "the state gives a no goal value"
    end = g.next_state(s, ["go", "go"])
    assert g.is_terminal(end)
    with pytest.raises(gdl.GoalError) as caught:
        g.goals(end)
    assert caught.value.role == "b" and caught.value.values == ["0", "10"]
    with pytest.raises(gdl.TerminalStateError):
        g.next_state(end, ["go", "go"])


def test_no_legal_move_in_playouts():
    g = gdl.loads(
        "(role a) (init (t 0)) (<= (legal a go) (true (t 0)))"
        "(<= (next (t 1)) (true (t 0))) (<= terminal (true (t 2))) (goal a 0)"
    )
    with pytest.raises(gdl.NoLegalMoveError) as caught:
        g.playouts(3, seed=1)
    assert caught.value.role == "a"
    assert "game 0 (seed 1)" in str(caught.value)
    with pytest.raises(gdl.NoLegalMoveError):
        g.playouts(3, seed=1, fast=True, threads=2)
    with pytest.raises(gdl.NoLegalMoveError):
        g.random_game(0)


def test_runaway_rules_raise_a_limit_error():
    # Each state derives an ever deeper term: the interpreter's depth limit.
    g = gdl.loads(
        "(role a) (init (n 0)) (<= (deep ?x) (true (n ?x))) (<= (deep (s ?x)) (deep ?x))"
        "(<= (legal a go) (deep ?x)) (<= (next (n 0)) (true (n 0)))"
        "(<= terminal (true (n 1))) (goal a 0)"
    )
    s = g.initial_state()
    with pytest.raises(gdl.LimitError) as caught:
        g.legal_moves(s, 0)
    e = caught.value
    assert e.limit and e.relation == "deep"
    # The message says how Python raises it, never a flag of the command.
    assert 'limits={"max_term_depth": ...}' in str(e), str(e)
    assert "--max" not in str(e)


def test_limits_are_keywords_of_load():
    rules = (
        "(role a) (init (n 0)) (<= (deep ?x) (true (n ?x))) (<= (deep (s ?x)) (deep ?x))"
        "(<= (legal a go) (deep ?x)) (<= (next (n 0)) (true (n 0)))"
        "(<= terminal (true (n 1))) (goal a 0)"
    )
    g = gdl.loads(rules, limits={"max_term_depth": 5})
    with pytest.raises(gdl.LimitError) as caught:
        g.legal_moves(g.initial_state(), 0)
    assert "(`max_term_depth`, 5)" in str(caught.value), str(caught.value)
    with pytest.raises(ValueError, match='unknown limit "max_speed"'):
        gdl.loads(rules, limits={"max_speed": 1})
    with pytest.raises(TypeError, match="max_work is a count"):
        gdl.loads(rules, limits={"max_work": -1})
    # A limit reached while loading is a located LoadError with the note.
    with pytest.raises(gdl.LoadError) as caught:
        gdl.loads("(role a) (p 0) (<= (p (s ?x)) (p ?x)) (<= (legal a go) (p ?x))"
                  "(<= terminal (p 0)) (goal a 0)", limits={"max_term_depth": 4})
    assert caught.value.code == "runaway"
    assert any('limits={"max_term_depth"' in n for d in caught.value.diagnostics for n in d.notes)


def test_the_memory_budget_holds_in_python():
    # Nearly a million facts of three digits each: far past an 8 MiB
    # budget. The module counts what its Rust code holds, as the command
    # does, so the budget stops the derivation with an error naming it.
    # (`distinct` keeps the places: where a place only carries the domain
    # of `d`, loading drops it, and `big` would be one fact. The frame of
    # `(s 0)` reads `(s 1)` too: a fact no move changes is read as `init`
    # gives it, and `big` would be derived, and refused, at load.)
    digits = " ".join(f"(d {i})" for i in range(100))
    g = gdl.loads(
        f"(role a) {digits} (init (s 0)) "
        "(<= (big ?x ?y ?z) (true (s 0)) (d ?x) (d ?y) (d ?z) (distinct ?x ?y) (distinct ?y ?z))"
        "(<= (legal a go) (big ?x ?y ?z)) (<= (next (s 0)) (true (s 0)) (not (true (s 1))))"
        "(<= terminal (true (s 1))) (goal a 0)",
        engine="interpreter",
        limits={"max_memory": 8 << 20},
    )
    with pytest.raises(gdl.LimitError) as caught:
        g.legal_moves(g.initial_state(), 0)
    assert 'limits={"max_memory": ...}' in str(caught.value), str(caught.value)


def test_the_engine_is_a_keyword_of_load(tictactoe):
    assert tictactoe.engine.startswith("ground")
    assert gdl.load(RULES / "tictactoe.gdl", engine="interpreter").engine == "interpreter"
    assert gdl.load(RULES / "tictactoe.gdl", engine="ground").engine.startswith("ground")
    with pytest.raises(ValueError, match="unknown engine `fast`"):
        gdl.load(RULES / "tictactoe.gdl", engine="fast")
    # Ground rules asked for where they do not fit: a LoadError, located.
    with pytest.raises(gdl.LoadError) as caught:
        gdl.load(RULES / "tictactoe.gdl", engine="ground", limits={"max_ground_work": 1})
    assert caught.value.code == "not-ground"
    assert any("max_ground_work" in n for d in caught.value.diagnostics for n in d.notes)


def test_deep_and_large_input_does_not_crash(tictactoe):
    deep = "x"
    for _ in range(100_000):
        deep = (deep,)
    with pytest.raises(ValueError, match="nested"):
        gdl.term_text(deep)
    with pytest.raises(ValueError, match="nested"):
        tictactoe.parse_move(deep)
    with pytest.raises(gdl.LoadError):
        gdl.loads("(" * 1_000_000)
    with pytest.raises(ValueError):
        gdl.parse_term("(" * 1_000_000)
    with pytest.raises(gdl.MoveError):
        tictactoe.parse_move("(" * 1_000_000)


def test_garbage_never_crashes():
    rng = random.Random(7)
    pieces = ["(", ")", "role", "init", "legal", "next", "true", "does", "goal", "terminal",
              "<=", "not", "or", "distinct", "?x", "?y", "a", "b", "0", "100", " ", "\n", ";", "\x00", "é"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60)))
        try:
            g = gdl.loads(text)
        except gdl.LoadError:
            continue
        try:
            g.playouts(2, seed=1, max_steps=20)
        except gdl.GameError:
            pass
    for _ in range(300):
        raw = os.urandom(rng.randrange(1, 40))
        text = raw.decode("latin-1")
        try:
            gdl.parse_term(text)
        except ValueError:
            pass


def test_bad_playout_arguments(tictactoe):
    with pytest.raises(ValueError, match="threads"):
        tictactoe.playouts(10, threads=5000)
    with pytest.raises(OverflowError):
        tictactoe.playouts(-1)
    with pytest.raises(OverflowError):
        tictactoe.playouts(1, seed=-1)
    with pytest.raises(TypeError):
        tictactoe.playouts(1, state="initial")
