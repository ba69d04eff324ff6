"""Random playouts per second through the Python module, beside `gdl bench`.

    python python/bench/bench.py [--seconds 3] [--rounds 5] [--gdl target/release/gdl] [GAME.gdl ...]

For each game (by default tictactoe, connect_four and breakthrough from
rules/), in one run, on one thread each:

- `gdl bench`: the library's random playouts (random_playout), no Python;
- bulk, fast: `game.playouts(n, fast=True)`, the same playouts in one call;
- bulk: `game.playouts(n)`, the games `gdl trace --seed` plays (moves
  chosen in natural order, through the general API);
- per step: a Python loop calling `legal_moves` for each role,
  `random.choice`, `next_state` and `is_terminal` at every step.

Like `gdl bench FILE --seconds S` (S/ROUNDS-second rounds, median), each
figure is the median over ROUNDS rounds of S/ROUNDS seconds; the rounds of
the four ways take turns (`gdl bench FILE --seconds S/ROUNDS --rounds 1`,
then each way of the module), so that a change in the machine's load
falls on all alike. Prints a Markdown table.
"""

import argparse
import json
import pathlib
import random
import statistics
import subprocess
import sys
import time

import gdl

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = ["tictactoe.gdl", "connect_four.gdl", "breakthrough.gdl"]


def rate_for(seconds, play_some):
    """Playouts per second of `play_some()` (which plays some and says how
    many), called until `seconds` are over."""
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        count += play_some()
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def gdl_bench(gdl_bin, path, seconds, figure="playouts_per_second"):
    """Playouts (or another `figure` of its JSON) per second of one round
    of `gdl bench`."""
    out = subprocess.run(
        [gdl_bin, "bench", str(path), "--seconds", str(seconds), "--rounds", "1", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)[figure]


def per_step(game, rng):
    """One random playout by single calls, as a Python agent would."""
    roles = range(len(game.roles))
    state = game.initial_state()
    while not game.is_terminal(state):
        joint = [rng.choice(game.legal_moves(state, r)) for r in roles]
        state = game.next_state(state, joint)
    return 1


def batch_of(game, fast, size):
    """Bulk playouts, `size` a call, with fresh seeds each call."""
    seed = [0]

    def play():
        game.playouts(size, seed=seed[0], fast=fast)
        seed[0] += size
        return size

    return play


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="rules files (default: three games of rules/)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gdl", default=str(ROOT / "target" / "release" / "gdl"))
    args = parser.parse_args()
    paths = [pathlib.Path(g) for g in args.games] or [ROOT / "rules" / g for g in GAMES]
    rows = []
    slice_ = args.seconds / args.rounds
    for path in paths:
        game = gdl.load(path)
        # About a tenth of a second of playouts per bulk call.
        size = max(10, int(gdl_bench(args.gdl, path, 0.2) / 10))
        rng = random.Random(1)
        ways = {
            "gdl bench": lambda: gdl_bench(args.gdl, path, slice_),
            "fast": lambda: rate_for(slice_, batch_of(game, True, size)),
            "natural": lambda: rate_for(slice_, batch_of(game, False, max(10, size // 5))),
            "per step": lambda: rate_for(slice_, lambda: per_step(game, rng)),
        }
        rates = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, measure in ways.items():
                rates[name].append(measure())
        native, fast, natural, step = (statistics.median(rates[n]) for n in ways)
        rows.append((path.name, native, fast, natural, step))
        print(f"{path.name}: gdl bench {native:,.0f}/s, bulk fast {fast:,.0f}/s, "
              f"bulk {natural:,.0f}/s, per step {step:,.0f}/s", file=sys.stderr)
    print("| game | `gdl bench` | bulk, `fast=True` | bulk (as `gdl trace`) | per step (Python loop) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, native, fast, natural, step in rows:
        print(f"| {name} | {native:,.0f} | {fast:,.0f} ({fast / native:.0%}) | "
              f"{natural:,.0f} ({natural / native:.0%}) | {step:,.0f} ({step / native:.1%}) |")


if __name__ == "__main__":
    main()
