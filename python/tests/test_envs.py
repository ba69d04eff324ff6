"""GDL games as PettingZoo and Gymnasium environments, checked by the
official API tests."""

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

import gdl  # noqa: E402
from gdl.gymnasium import Env  # noqa: E402
from gdl.pettingzoo import AECEnv, ParallelEnv  # noqa: E402
from games import LIGHTS, RPS, corpus  # noqa: E402


@pytest.mark.parametrize("name", ["tictactoe.gdl", "breakthrough.gdl"])
def test_aec_api_test(rules, name):
    api_test(AECEnv(rules / name, max_steps=60), num_cycles=60)


def test_aec_api_test_on_a_simultaneous_game():
    api_test(AECEnv(RPS), num_cycles=10)


@pytest.mark.parametrize("name", ["tictactoe.gdl", "breakthrough.gdl"])
def test_parallel_api_test(rules, name):
    parallel_api_test(ParallelEnv(rules / name, max_steps=60), num_cycles=60)


def test_parallel_api_test_on_a_simultaneous_game():
    parallel_api_test(ParallelEnv(RPS), num_cycles=10)


@pytest.mark.parametrize("name", ["gt_prisoner.kif", "connectFourSimultaneous.kif"])
def test_simultaneous_games_of_the_corpus(name):
    path = corpus(name)
    parallel_api_test(ParallelEnv(path, max_steps=30), num_cycles=30)
    api_test(AECEnv(path, max_steps=30), num_cycles=30)


def test_an_aec_game_of_tictactoe(tictactoe):
    env = AECEnv(tictactoe, render_mode="ansi")
    env.reset()
    assert env.agent_selection == "xplayer"
    obs = env.observe("xplayer")
    assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (29,)
    assert obs["action_mask"].tolist() == [1] * 9 + [0]
    assert env.observe("oplayer")["action_mask"].sum() == 0
    # x: (mark 2 2), o: (mark 1 1), x: (mark 1 3), o: (mark 1 2), x: (mark 3 1).
    for a in [4, 0, 2, 1, 6]:
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"xplayer": 1.0, "oplayer": -1.0}
    assert env.infos["xplayer"]["goal"] == 100
    board = env.render()
    assert "x" in board and "o" in board
    with pytest.raises(ValueError, match="not legal"):
        env.reset()
        env.step(9)


def test_a_parallel_game_of_rock_paper_scissors():
    env = ParallelEnv(gdl.load(RPS))
    obs, infos = env.reset()
    assert obs["left"]["action_mask"].tolist() == [1, 1, 1]
    obs, rewards, terms, truncs, infos = env.step({"left": 1, "right": 2})  # rock, scissors
    assert rewards == {"left": 1.0, "right": -1.0} and all(terms.values())
    assert env.agents == []
    with pytest.raises(ValueError, match="reset"):
        env.step({"left": 0, "right": 0})
    env.reset()
    with pytest.raises(ValueError, match="none for"):
        env.step({"left": 0})
    with pytest.raises(ValueError, match="no action 7"):
        env.step({"left": 7, "right": 0})


def test_gymnasium_check_env_on_a_puzzle():
    check_env(Env(LIGHTS))


def test_a_puzzle_solved():
    env = Env(LIGHTS, render_mode="ansi")
    obs, info = env.reset(seed=1)
    assert obs.dtype == np.int8 and info["action_mask"].tolist() == [1, 1, 1]
    obs, r, terminated, truncated, info = env.step(1)  # (press 2)
    assert terminated and not truncated and r == 1.0 and info["goal"] == 100
    assert "(on 2)" in env.render()
    env.reset()
    env.step(0)  # (press 1): lights 1 and 2
    obs, r, terminated, truncated, info = env.step(0)  # 1 is on: not legal
    assert terminated and r == -1.0 and info["illegal"]
    strict = Env(LIGHTS, illegal="raise")
    strict.reset()
    strict.step(0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(0)
    with pytest.raises(ValueError, match="no action"):
        strict.step(5)


def test_environments_refuse_what_they_cannot_play(rules, tictactoe):
    with pytest.raises(ValueError, match="one role"):
        Env(tictactoe)
    bare = gdl.loads("(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= (next (c 1)) (does p go))"
                     "(<= terminal (true (c 1))) (goal p 100)")
    for make in (Env, AECEnv, ParallelEnv):
        with pytest.raises(ValueError, match="no input"):
            make(bare)
    with pytest.raises(TypeError):
        AECEnv(42)
    with pytest.raises(ValueError, match="render_mode"):
        AECEnv(tictactoe, render_mode="human")
