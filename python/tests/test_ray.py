"""Playouts and self-play across Ray workers, on a local Ray the test
starts: the results are those of the module played here, in order."""

import pytest

ray = pytest.importorskip("ray")

import gdl  # noqa: E402
import gdl.ray  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_playouts_across_workers_are_the_module_s(local_ray, rules):
    # A game loaded from text: it reaches the workers by its rules text.
    game = gdl.loads((rules / "tictactoe.gdl").read_text(), "ttt.gdl")
    got = gdl.ray.playouts(game, 2500, seed=5, chunk=600)
    assert got == game.playouts(2500, seed=5)
    start = game.next_state(game.initial_state(), ["(mark 2 2)", "noop"])
    assert gdl.ray.playouts(game, 50, seed=1, chunk=20, state=start) == game.playouts(
        50, seed=1, state=start)
    assert gdl.ray.playouts(game, 0) == []


def test_self_play_across_workers(local_ray, tictactoe):
    games = gdl.ray.self_play(tictactoe, 4, iterations=50, seed=3, chunk=1)
    assert len(games) == 4
    for moves, goals in games:
        assert 5 <= len(moves) <= 9 and goals in {(100, 0), (0, 100), (50, 50)}
    # Seeded: the same games again.
    assert gdl.ray.self_play(tictactoe, 4, iterations=50, seed=3, chunk=2) == games


def test_bad_arguments(local_ray, tictactoe, rules):
    with pytest.raises(TypeError):
        gdl.ray.playouts("tictactoe.gdl", 10)
    with pytest.raises(ValueError, match="chunk"):
        gdl.ray.playouts(tictactoe, 10, chunk=0)
    other = gdl.load(rules / "tictactoe.gdl")
    with pytest.raises(ValueError, match="another game"):
        gdl.ray.playouts(tictactoe, 10, state=other.initial_state())
