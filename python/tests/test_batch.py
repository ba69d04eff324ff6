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
