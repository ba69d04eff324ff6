"""Random games: the module plays the games `gdl trace --seed` plays, in
bulk on threads, without holding the GIL."""

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import gdl


def trace(gdl_bin, path, seed):
    """`gdl trace PATH --seed SEED --format json`, read."""
    out = subprocess.run(
        [gdl_bin, "trace", str(path), "--seed", str(seed), "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def check_against_trace(game, seed, t):
    """The module's random game of `seed` is the trace's, step by step:
    the moves, every state's facts, terminal, legal moves and goals."""
    assert list(game.roles) == t["roles"]
    joints = game.random_game(seed)
    steps = t["steps"]
    assert len(joints) == len(steps) - 1
    state = game.initial_state()
    for step, joint in zip(steps, joints + [None]):
        assert state.facts() == step["state"], f"seed {seed} step {step['step']}"
        assert game.is_terminal(state) == step["terminal"]
        if step["legal"]:
            legal = [[str(m) for m in sorted(game.legal_moves(state, r))] for r in game.roles]
            assert legal == step["legal"]
        if joint is None:
            assert "moves" not in step
            break
        assert [str(m) for m in joint] == step["moves"]
        state = game.next_state(state, joint)
    assert game.is_terminal(state)
    assert game.goals(state) == t["goals"]
    return (len(joints), tuple(t["goals"]))


def test_a_thousand_games_agree_with_gdl_trace(tictactoe, rules, gdl_bin):
    seeds = range(1000)
    with ThreadPoolExecutor(max_workers=4) as pool:
        traces = list(pool.map(lambda s: trace(gdl_bin, rules / "tictactoe.gdl", s), seeds))
    outcomes = [check_against_trace(tictactoe, s, t) for s, t in zip(seeds, traces)]
    # Bulk playouts play the same games: game i with seed 0 + i.
    assert tictactoe.playouts(1000, seed=0) == outcomes
    assert tictactoe.playouts(1000, seed=0, threads=2) == outcomes


@pytest.mark.parametrize("name", ["connect_four.gdl", "breakthrough.gdl"])
def test_larger_games_agree_with_gdl_trace(rules, gdl_bin, name):
    game = gdl.load(rules / name)
    seeds = range(100, 110)
    outcomes = [check_against_trace(game, s, trace(gdl_bin, rules / name, s)) for s in seeds]
    assert game.playouts(10, seed=100, threads=2) == outcomes


def test_playouts_are_reproducible(tictactoe):
    g = tictactoe
    for fast in (False, True):
        a = g.playouts(500, seed=42, fast=fast)
        assert len(a) == 500
        assert a == g.playouts(500, seed=42, threads=2, fast=fast)
        assert a == g.playouts(500, seed=42, threads=0, fast=fast)
        assert a[10:] == g.playouts(490, seed=52, threads=3, fast=fast)
        assert a != g.playouts(500, seed=43, fast=fast)
        for steps, goals in a:
            assert 5 <= steps <= 9
            assert goals in {(100, 0), (0, 100), (50, 50)}
    assert g.playouts(0) == []


def test_playouts_from_a_state_and_cut_short(tictactoe):
    g = tictactoe
    s = g.next_state(g.initial_state(), ["(mark 2 2)", "noop"])
    for fast in (False, True):
        for steps, goals in g.playouts(100, seed=1, state=s, fast=fast):
            assert 4 <= steps <= 8
        assert g.playouts(5, seed=1, max_steps=2, fast=fast) == [(2, None)] * 5
    end = g.initial_state()
    for joint in g.random_game(3):
        end = g.next_state(end, joint)
    assert g.playouts(2, state=end) == [(0, tuple(g.goals(end)))] * 2


@pytest.mark.parametrize("call", ["playouts", "random_game"])
def test_playouts_and_random_games_release_the_gil(call, ctrl_c_raises):
    # The main thread plays games that never end: only another Python
    # thread can end the call, by interrupting the main thread, and it can
    # run only while the call has released the GIL. It interrupts once a
    # profile hook has seen the main thread enter the call, so that an
    # interrupt made before the call does not pass for one made during it.
    # (Holding the GIL, the call would never end.)
    import _thread

    game = gdl.loads(ENDLESS)
    entered = threading.Event()

    def hook(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", None) == call:
            entered.set()

    def interrupt():
        entered.wait()
        _thread.interrupt_main()

    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sys.setprofile(hook)
            if call == "playouts":
                game.playouts(2, threads=2, max_steps=10**12)
            else:
                game.random_game(max_steps=10**12, max_memory=1 << 40)
    finally:
        sys.setprofile(None)
        entered.set()
        helper.join()


def test_playouts_on_a_thread_of_their_own(tictactoe):
    result = []
    worker = threading.Thread(target=lambda: result.append(tictactoe.playouts(500, seed=3)))
    worker.start()
    worker.join()
    assert result == [tictactoe.playouts(500, seed=3)]


def test_a_game_shared_by_threads(tictactoe):
    g = tictactoe

    def play(seed):
        s = g.initial_state()
        for joint in g.random_game(seed):
            s = g.next_state(s, joint)
        return tuple(g.goals(s))

    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(play, range(200)))
    assert together == [play(s) for s in range(200)]


# A light flipped on and off, or left, forever: no playout ends.
ENDLESS = """(role r) (init (light off))
    (<= (legal r flip) (true (light ?x))) (<= (legal r wait) (true (light ?x)))
    (<= (next (light on)) (does r flip) (true (light off)))
    (<= (next (light off)) (does r flip) (true (light on)))
    (<= (next (light ?x)) (does r wait) (true (light ?x)))
    (<= terminal (true (light broken))) (goal r 50)"""


@pytest.mark.parametrize("engine", ["ground", "interpreter"])
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_games_under_way(engine, threads, ctrl_c_raises):
    import _thread

    # Each game would play a trillion steps: only the module's own look
    # at the signals can end the call. The interrupt is made pending
    # before the call (no timer: nothing races the clock); Python may
    # raise it before the call or the module at its first look.
    game = gdl.loads(ENDLESS, engine=engine)
    with pytest.raises(KeyboardInterrupt):
        _thread.interrupt_main()
        game.playouts(4, threads=threads, max_steps=10**12)


@pytest.mark.parametrize("engine", ["ground", "interpreter"])
def test_ctrl_c_stops_a_random_game(engine, ctrl_c_raises):
    import _thread

    # As above: a game of a trillion steps, the interrupt made pending
    # before the call; the game still answers afterwards.
    game = gdl.loads(ENDLESS, engine=engine)
    with pytest.raises(KeyboardInterrupt):
        _thread.interrupt_main()
        game.random_game(max_steps=10**12, max_memory=1 << 40)
    assert len(game.random_game(max_steps=3)) == 3


# A game whose first state has no legal move: any game played raises.
STUCK = ("(role r) (init (s 0)) (<= (legal r go) (true (s 1))) (<= (next (s 1)) (does r go))"
         "(<= terminal (true (s 1))) (goal r 0)")


def test_results_beyond_the_memory_budget_are_refused_before_playing(rules):
    # Refused before any game is played: a game played would raise
    # NoLegalMoveError instead.
    stuck = gdl.loads(STUCK)
    with pytest.raises(gdl.NoLegalMoveError):
        stuck.playouts(1)
    with pytest.raises(gdl.LimitError) as caught:
        stuck.playouts(2**63, threads=2)
    e = caught.value
    assert e.limit == "memory" and "playouts(9223372036854775808)" in str(e), str(e)
    assert "max_memory=" in str(e) and 'limits={"max_memory": ...}' in str(e), str(e)
    # The budget of one call, and of every call of a game.
    with pytest.raises(gdl.LimitError) as caught:
        stuck.playouts(100_000, max_memory=1 << 20)
    assert caught.value.value == 1 << 20 and "1 MiB" in str(caught.value)
    small = gdl.load(rules / "tictactoe.gdl", limits={"max_memory": 1 << 20})
    with pytest.raises(gdl.LimitError):
        small.playouts(100_000)
    assert len(small.playouts(1000)) == 1000
    assert len(small.playouts(100_000, max_memory=1 << 30)) == 100_000
