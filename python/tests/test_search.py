"""The search player from Python: the library's SearchPlayer."""

import pytest

import gdl


def test_the_search_player_beats_random_play(tictactoe):
    g = tictactoe
    wins = 0
    for seed in range(4):
        player = gdl.SearchPlayer(g, "xplayer", iterations=300, seed=seed)
        assert player.role == "xplayer" and player.game is g
        state = g.initial_state()
        others = g.random_game(seed)
        step = 0
        while not g.is_terminal(state):
            m = player.choose(state)
            assert m in g.legal_moves(state, 0)
            o = g.legal_moves(state, 1)
            # o answers as its random game would, where legal.
            reply = others[step][1] if step < len(others) and others[step][1] in o else o[0]
            joint = [m, reply]
            player.observe(joint)
            state = g.next_state(state, joint)
            step += 1
        wins += g.goals(state)[0] >= 50
    assert wins == 4


def test_a_seed_gives_one_move_and_stats_tell_the_search(tictactoe):
    g = tictactoe
    s = g.initial_state()
    a = gdl.SearchPlayer(g, 0, iterations=200, seed=7)
    b = gdl.SearchPlayer(g, 0, iterations=200, seed=7)
    assert a.choose(s) == b.choose(s)
    st = a.stats
    assert st["iterations"] == 200 and st["nodes"] > 1
    assert sum(v for _, v, _ in st["root"]) >= 199
    assert all(0.0 <= r <= 1.0 for _, _, r in st["root"])
    # The role not on turn has one move: played at once.
    assert gdl.SearchPlayer(g, "oplayer", iterations=10).choose(s) == "noop"


def test_a_time_budget(tictactoe):
    p = gdl.SearchPlayer(tictactoe, 0, seconds=0.05, threads=2)
    assert p.choose(tictactoe.initial_state()) in tictactoe.legal_moves(tictactoe.initial_state(), 0)
    assert p.stats["iterations"] >= 1


def test_a_simultaneous_game():
    from games import RPS

    g = gdl.load(RPS)
    p = gdl.SearchPlayer(g, "right", iterations=100)
    assert p.choose(g.initial_state()) in g.legal_moves(g.initial_state(), "right")


def test_bad_arguments(tictactoe, rules):
    g = tictactoe
    with pytest.raises(ValueError, match="iterations=N or seconds=S"):
        gdl.SearchPlayer(g, 0)
    with pytest.raises(ValueError, match="not both"):
        gdl.SearchPlayer(g, 0, iterations=10, seconds=1.0)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="seconds"):
            gdl.SearchPlayer(g, 0, seconds=bad)
    with pytest.raises(ValueError, match="iterations"):
        gdl.SearchPlayer(g, 0, iterations=0)
    with pytest.raises(ValueError, match="no role"):
        gdl.SearchPlayer(g, "nobody", iterations=10)
    with pytest.raises(ValueError, match="threads"):
        gdl.SearchPlayer(g, 0, iterations=10, threads=0)
    with pytest.raises(TypeError):
        gdl.SearchPlayer("tictactoe.gdl", 0, iterations=10)
    p = gdl.SearchPlayer(g, 0, iterations=10)
    other = gdl.load(rules / "tictactoe.gdl")
    with pytest.raises(ValueError, match="another game"):
        p.choose(other.initial_state())
    end = g.initial_state()
    for joint in g.random_game(1):
        end = g.next_state(end, joint)
    with pytest.raises(gdl.TerminalStateError):
        p.choose(end)
    with pytest.raises(gdl.MoveError):
        p.observe(["(mark 1 1)"])
    with pytest.raises(gdl.MoveError):
        p.observe(["(mark 1", "noop"])


def test_ctrl_c_stops_a_search(ctrl_c_raises):
    import _thread

    from test_playouts import ENDLESS

    g = gdl.loads(ENDLESS)
    p = gdl.SearchPlayer(g, 0, iterations=10**15)
    # Pending before the call (no timer): Python raises it before the
    # call, or the player at its first look at the signals.
    with pytest.raises(KeyboardInterrupt):
        _thread.interrupt_main()
        p.choose(g.initial_state())
    # The player stays usable.
    p2 = gdl.SearchPlayer(g, 0, iterations=5)
    assert p2.choose(g.initial_state()) in ("flip", "wait")
