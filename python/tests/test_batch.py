"""Batched stepping: many games stepped in Rust give the observations,
masks, rewards and ends the module's own calls give, game by game."""

import numpy as np
import pytest

import gdl
from gdl._spaces import Tables
from gdl.batch import Batch
from games import RPS


def replay(game, actions_seq):
    """What the batch should say for one game, by the module's own calls:
    per step the observation, masks, rewards and end (restarting as the
    batch does)."""
    t = Tables(game)
    width = max(len(a) for a in t.actions)
    roles = len(game.roles)
    state = game.initial_state()
    steps = 0
    out = []
    for actions in actions_seq:
        legal = [game.legal_moves(state, r) for r in range(roles)]
        joint = [t.move(r, a, legal[r]) for r, a in enumerate(actions)]
        state = game.next_state(state, joint)
        steps += 1
        rewards = [0.0] * roles
        end = 0
        if game.is_terminal(state):
            rewards = [g / 50 - 1 for g in game.goals(state)]
            end = 1
        if end:
            state, steps = game.initial_state(), 0
        masks = np.zeros((roles, width), np.uint8)
        for r in range(roles):
            masks[r, : len(t.actions[r])] = t.mask(t.legal(state, r), r)
        out.append((t.observation(state).astype(np.uint8), masks, rewards, end))
    return out


@pytest.mark.parametrize("engine", ["auto", "interpreter"])
@pytest.mark.parametrize("threads", [1, 3])
def test_a_batch_steps_as_the_module_does(rules, engine, threads):
    game = gdl.load(rules / "connect_four.gdl", engine=engine)
    n = 7
    b = Batch(game, n, threads=threads)
    assert (b.n, b.roles, b.size, b.width) == (n, 2, len(game.base_facts()), 8)
    obs, masks = b.reset()
    rng = np.random.default_rng(4)
    seqs = [[] for _ in range(n)]
    got = [[] for _ in range(n)]
    for _ in range(60):
        actions = b.random_actions(masks, rng)
        obs, masks, rewards, ends = b.step(actions)
        for i in range(n):
            seqs[i].append(actions[i].tolist())
            got[i].append((obs[i], masks[i], rewards[i].tolist(), int(ends[i])))
    for i in range(n):
        want = replay(game, seqs[i])
        for step, ((o, m, r, e), (wo, wm, wr, we)) in enumerate(zip(got[i], want)):
            assert (o == wo).all() and (m == wm).all(), f"game {i} step {step}"
            assert r == pytest.approx(wr) and e == we, f"game {i} step {step}"
    assert sum(e for g in got for _, _, _, e in g) > 0, "some games ended"


def test_a_simultaneous_game_and_cut_short_games(rules):
    b = Batch(gdl.load(RPS), 3)
    obs, masks = b.reset()
    assert masks.shape == (3, 2, 3) and masks.all()
    obs, masks, rewards, ends = b.step([[1, 2], [0, 0], [2, 1]])  # rock/scissors, paper/paper, ...
    assert ends.tolist() == [1, 1, 1]
    assert rewards.tolist() == [[1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]]
    ttt = Batch(gdl.load(rules / "tictactoe.gdl"), 2, max_steps=2)
    _, masks = ttt.reset()
    _, masks, _, ends = ttt.step([[0, 9], [4, 9]])
    assert ends.tolist() == [0, 0]
    _, masks, rewards, ends = ttt.step([[9, 1], [9, 0]])
    assert ends.tolist() == [2, 2] and not rewards.any()
    assert masks[:, 0, :9].all()  # back at the start


def test_bad_actions_and_arguments(rules, tictactoe):
    b = Batch(tictactoe, 2)
    b.reset()
    with pytest.raises(ValueError, match=r"game 1: action 9 is not legal for role 0"):
        b.step([[0, 9], [9, 9]])
    with pytest.raises(ValueError, match="game 0: action 99"):
        b.step([[99, 9], [0, 9]])
    with pytest.raises(ValueError, match="game 0: action -1"):
        b.step([[-1, 9], [0, 9]])
    with pytest.raises(ValueError, match="shape"):
        b.step([[0, 9]])
    with pytest.raises(ValueError, match="int array"):
        b.step([[0.5, 9], [0, 9]])
    # Nothing moved: the same first move is still legal.
    obs, masks, _, _ = b.step([[4, 9], [4, 9]])
    assert masks[:, 1, :9].sum(axis=1).tolist() == [8, 8]
    with pytest.raises(TypeError):
        Batch("tictactoe.gdl", 2)
    with pytest.raises(ValueError, match="threads"):
        Batch(tictactoe, 2, threads=0)
    bare = gdl.loads("(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= (next (c 1)) (does p go))"
                     "(<= terminal (true (c 1))) (goal p 100)")
    with pytest.raises(ValueError, match="no input"):
        Batch(bare, 2)
    with pytest.raises(gdl.LimitError, match="max_memory"):
        Batch(tictactoe, 2**40)


@pytest.mark.parametrize("name", ["connect_four.gdl", "tictactoe.gdl", "breakthrough.gdl"])
def test_random_actions_pick_legal_actions_uniformly(rules, name):
    # Connect four's masks are 8 wide (one word of bytes), tic-tac-toe's
    # 10 (a second word begun), breakthrough's wider than 64.
    b = Batch(gdl.load(rules / name), 5)
    _, masks = b.reset()
    rng = np.random.default_rng(1)
    counts = np.zeros((b.n, b.roles, b.width), int)
    draws = 2000
    for _ in range(draws):
        a = b.random_actions(masks, rng)
        assert a.shape == (b.n, b.roles) and a.dtype == np.int64
        counts[np.arange(b.n)[:, None], np.arange(b.roles)[None, :], a] += 1
    # Only marked actions, each of them drawn about as often.
    assert not counts[masks == 0].any()
    legal = masks.sum(axis=2)
    expected = draws / legal[..., None]
    marked = masks == 1
    assert (counts[marked] > 0.5 * np.broadcast_to(expected, counts.shape)[marked]).all()
    assert (counts[marked] < 1.5 * np.broadcast_to(expected, counts.shape)[marked]).all()
    # The same generator state, the same actions; the result is writable.
    again = b.random_actions(masks, np.random.default_rng(7))
    assert (again == b.random_actions(masks, np.random.default_rng(7))).all()
    again[0, 0] = 0
    # Masks of another dtype count what is not zero; none marked: 0.
    assert (b.random_actions(masks.astype(bool), rng) < b.width).all()
    assert not b.random_actions(np.zeros_like(masks), rng).any()
    with pytest.raises(ValueError, match="shape"):
        b.random_actions(masks[:2], rng)
    # Stepping with them plays legal moves throughout.
    for _ in range(50):
        _, masks, _, _ = b.step(b.random_actions(masks, rng))


def test_a_batch_over_its_memory_budget_is_refused(rules):
    game = gdl.load(rules / "connect_four.gdl")
    with pytest.raises(gdl.LimitError) as caught:
        Batch(game, 10**6, max_memory=1 << 20)
    e = caught.value
    assert e.limit == "memory" and e.value == 1 << 20, str(e)
    assert "Batch(1000000)" in str(e) and "max_memory=" in str(e), str(e)
    # A budget that is the game's own, from gdl.load.
    small = gdl.load(rules / "connect_four.gdl", limits={"max_memory": 1 << 20})
    with pytest.raises(gdl.LimitError, match=r'limits=\{"max_memory": \.\.\.\}'):
        Batch(small, 10**6)
    assert Batch(small, 10, max_memory=1 << 30).n == 10
