"""GDL games as registered OpenSpiel games: OpenSpiel's own code plays
them unchanged."""

import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import gdl  # noqa: E402
import gdl.spiel  # noqa: E402,F401  (registers the game "gdl")
from games import RPS, corpus  # noqa: E402

T = pyspiel.GameType


@pytest.fixture(scope="module")
def ttt(rules):
    return pyspiel.load_game("gdl", {"rules": str(rules / "tictactoe.gdl")})


def test_the_game_is_registered_and_typed(ttt, rules):
    assert isinstance(ttt, pyspiel.Game)
    t = ttt.get_type()
    assert t.short_name == "gdl"
    assert t.dynamics == T.Dynamics.SEQUENTIAL
    assert t.chance_mode == T.ChanceMode.DETERMINISTIC
    assert t.information == T.Information.PERFECT_INFORMATION
    assert t.utility == T.Utility.ZERO_SUM
    assert t.reward_model == T.RewardModel.TERMINAL
    assert ttt.num_players() == 2 and ttt.num_distinct_actions() == 10
    assert ttt.observation_tensor_shape() == [29]
    assert (ttt.min_utility(), ttt.max_utility()) == (-1.0, 1.0)
    # By the game string OpenSpiel writes, too.
    again = pyspiel.load_game(str(ttt))
    assert again.num_distinct_actions() == 10
    assert pyspiel.load_game(f"gdl(rules={rules / 'tictactoe.gdl'})").num_players() == 2


def test_a_sequential_game_through_the_state_api(ttt):
    s = ttt.new_initial_state()
    assert isinstance(s, pyspiel.State)
    assert s.current_player() == 0 and not s.is_simultaneous_node()
    assert s.legal_actions() == list(range(9)) and s.legal_actions(1) == []
    assert s.action_to_string(0, 4) == "(mark 2 2)"
    obs = np.array(s.observation_tensor(0))
    assert obs.shape == (29,) and obs.sum() == 10
    base = ttt.base
    assert obs[base.index("(cell 1 1 b)")] == 1
    c = s.child(4)
    assert c.current_player() == 1 and c.history() == [4]
    assert c.observation_tensor()[base.index("(cell 2 2 x)")] == 1
    for a in [0, 2, 1, 6]:
        c.apply_action(a)
    assert c.is_terminal() and c.returns() == [1.0, -1.0] and c.goals() == [100, 0]
    assert "(cell 2 2 x)" in str(c)


def test_bad_actions_raise(ttt):
    s = ttt.new_initial_state()
    with pytest.raises(Exception, match="not legal"):
        s.apply_action(9)  # noop, not x's
    with pytest.raises(Exception, match="no action"):
        s.apply_action(99)
    s.apply_action(4)
    with pytest.raises(Exception, match="not legal"):
        s.apply_action(4)  # taken


@pytest.mark.parametrize("name", ["tictactoe.gdl", "connect_four.gdl"])
def test_random_sim_test_with_serialization(rules, name):
    game = pyspiel.load_game("gdl", {"rules": str(rules / name)})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_simultaneous_game():
    game = pyspiel.load_game("gdl", {"rules": str(RPS)})
    t = game.get_type()
    assert t.dynamics == T.Dynamics.SIMULTANEOUS and t.utility == T.Utility.ZERO_SUM
    s = game.new_initial_state()
    assert s.is_simultaneous_node()
    assert s.legal_actions(0) == s.legal_actions(1) == [0, 1, 2]  # paper, rock, scissors
    s.apply_actions([1, 2])
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    # OpenSpiel's turn-based view of it.
    turns = pyspiel.convert_to_turn_based(game)
    pyspiel.random_sim_test(turns, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("name", ["gt_prisoner.kif", "connectFourSimultaneous.kif"])
def test_simultaneous_games_of_the_corpus(name):
    game = gdl.spiel.load_game(corpus(name))
    assert game.get_type().dynamics == T.Dynamics.SIMULTANEOUS
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_evaluate_bots_and_the_mcts_bot(ttt):
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    x = mcts.MCTSBot(ttt, uct_c=2.0, max_simulations=60, evaluator=evaluator, random_state=rng)
    results = []
    for seed in range(4):
        o = pyspiel.make_uniform_random_bot(1, seed)
        results.append(pyspiel.evaluate_bots(ttt.new_initial_state(), [x, o], seed))
    # MCTS as x does not lose to random play.
    assert all(r[0] >= 0 for r in results), results
    r = pyspiel.evaluate_bots(ttt.new_initial_state(),
                              [pyspiel.make_uniform_random_bot(0, 1),
                               pyspiel.make_uniform_random_bot(1, 2)], 3)
    assert sorted(r) in ([-1.0, 1.0], [0.0, 0.0])


def test_rl_environment(ttt):
    # OpenSpiel's RL environment (what RLlib's OpenSpielEnv does too:
    # observation tensors, legal actions, apply_action, returns).
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(ttt)
    step = env.reset()
    rng = random.Random(3)
    while not step.last():
        p = step.observations["current_player"]
        assert len(step.observations["info_state"][p]) == 29
        step = env.step([rng.choice(step.observations["legal_actions"][p])])
    assert sorted(step.rewards) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("name", ["tictactoe", "rps"])
def test_rllib_open_spiel_env(ttt, name):
    # RLlib's own wrapper, unchanged, on a gdl game loaded by pyspiel:
    # reset, step with legal actions to the end (a sequential game one
    # player at a time, a simultaneous one all at once), returns at the end.
    from ray.rllib.env.wrappers.open_spiel import OpenSpielEnv

    game = ttt if name == "tictactoe" else pyspiel.load_game("gdl", {"rules": str(RPS)})
    env = OpenSpielEnv(game)
    assert env.agents == list(range(game.num_players()))
    size = game.observation_tensor_size()
    obs, infos = env.reset()
    rng = random.Random(5)
    played = []
    done = False
    while not done:
        s = env.state
        assert all(o.shape == (size,) and o.dtype == np.float32 for o in obs.values())
        if s.is_simultaneous_node():
            assert sorted(obs) == env.agents
            action = {p: rng.choice(s.legal_actions(p)) for p in env.agents}
        else:
            assert list(obs) == [s.current_player()]
            action = {s.current_player(): rng.choice(s.legal_actions())}
        played.append(action)
        obs, rewards, terminateds, truncateds, infos = env.step(action)
        done = terminateds["__all__"]
        assert not truncateds["__all__"]
    assert obs == {} and env.state.is_terminal()
    assert [rewards[p] for p in env.agents] == env.state.returns()
    # The same actions through OpenSpiel's state API give the same end.
    s = game.new_initial_state()
    for action in played:
        if s.is_simultaneous_node():
            s.apply_actions([action[p] for p in env.agents])
        else:
            s.apply_action(action[s.current_player()])
    assert s.returns() == env.state.returns()
    if name == "tictactoe":
        # An action that is not legal: RLlib catches OpenSpiel's error,
        # plays a legal action instead and gives the player a penalty.
        env.reset()
        _, rewards, _, _, _ = env.step({0: 9})  # noop, not x's
        assert rewards[0] == pytest.approx(-0.1) and len(env.state.history()) == 1


def test_illegal_actions_are_spiel_errors(ttt):
    s = ttt.new_initial_state()
    for bad in (9, 99):
        with pytest.raises(pyspiel.SpielError) as caught:
            s.apply_action(bad)
        assert isinstance(caught.value, ValueError)


def test_pickling_games_and_states(ttt):
    s = ttt.new_initial_state()
    for a in [4, 0]:
        s.apply_action(a)
    g2 = pickle.loads(pickle.dumps(ttt))
    assert g2.num_distinct_actions() == 10
    s2 = pickle.loads(pickle.dumps(s))
    assert s2.history() == [4, 0] and str(s2) == str(s)
    assert s2.legal_actions() == s.legal_actions()
    c = s.clone()
    c.apply_action(1)
    assert s.history() == [4, 0] and c.history() == [4, 0, 1]
    # A game loaded from text pickles by its rules text.
    text = gdl.loads(RPS.read_text(), "rps.gdl")
    g = gdl.spiel.SpielGame.from_gdl(text)
    assert pickle.loads(pickle.dumps(g)).num_distinct_actions() == 3


def test_bad_games_are_refused(tmp_path):
    with pytest.raises(Exception, match="needs its rules file"):
        pyspiel.load_game("gdl")
    with pytest.raises(Exception, match="No such file"):
        pyspiel.load_game("gdl", {"rules": str(tmp_path / "missing.gdl")})
    bare = tmp_path / "bare.gdl"
    bare.write_text("(role p) (init (c 0)) (<= (legal p go) (true (c 0))) (<= (next (c 1)) (does p go))"
                    "(<= terminal (true (c 1))) (goal p 100)")
    with pytest.raises(Exception, match="no input moves"):
        pyspiel.load_game("gdl", {"rules": str(bare)})
    with pytest.raises(Exception, match="dynamics"):
        pyspiel.load_game("gdl", {"rules": str(RPS), "dynamics": "sideways"})
    # A simultaneous game forced to be sequential says so where it shows.
    seq = pyspiel.load_game("gdl", {"rules": str(RPS), "dynamics": "sequential"})
    with pytest.raises(Exception, match="dynamics=simultaneous"):
        seq.new_initial_state()
