"""States per second of batched stepping (`gdl.batch.Batch`), beside `gdl
bench`'s states per second for the same game.

    python python/bench/batch.py [--seconds 3] [--rounds 5] [--batch 1024[,64...]]
                                 [--threads 1] [--gdl target/release/gdl] [GAME.gdl ...]

For each game (by default connect_four from rules/): a batch of BATCH
games stepped with random legal actions (`Batch.random_actions`, from the
masks, as an agent would), counting every game's step as a state, against
`gdl bench FILE --seconds S/ROUNDS --rounds 1` (random playouts in the
library, no Python), the rounds taking turns (`gdl bench`, then each batch
size) so that a change in the machine's load falls on all alike; each
figure is the median of ROUNDS rounds of S/ROUNDS seconds. Prints a
Markdown table, a row per game and batch size.
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import gdl
from bench import gdl_bench
from gdl.batch import Batch

ROOT = pathlib.Path(__file__).resolve().parents[2]


def batch_rate(batch, masks, rng, seconds):
    """States per second of stepping `batch` for `seconds`; the masks
    where it stopped."""
    steps, start = 0, time.perf_counter()
    while True:
        _, masks, _, _ = batch.step(batch.random_actions(masks, rng))
        steps += 1
        now = time.perf_counter()
        if now >= start + seconds:
            return steps * batch.n / (now - start), masks


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--batch", default="1024", help="batch sizes, separated by commas")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--gdl", default=str(ROOT / "target" / "release" / "gdl"))
    p.add_argument("games", nargs="*", default=[str(ROOT / "rules" / "connect_four.gdl")])
    args = p.parse_args()
    each = args.seconds / args.rounds
    sizes = [int(b) for b in args.batch.split(",")]
    print(f"| game | `gdl bench` states/s | batch | states/s ({args.threads} thread(s)) | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for path in args.games:
        game = gdl.load(path)
        batches = [Batch(game, size, threads=args.threads) for size in sizes]
        masks = [batch.reset()[1] for batch in batches]
        rng = np.random.default_rng(0)
        bench, ours = [], [[] for _ in sizes]
        for _ in range(args.rounds):
            bench.append(gdl_bench(args.gdl, path, each, "states_per_second"))
            for k, batch in enumerate(batches):
                rate, masks[k] = batch_rate(batch, masks[k], rng, each)
                ours[k].append(rate)
        b = statistics.median(bench)
        for size, rates in zip(sizes, ours):
            o = statistics.median(rates)
            ratio = f"{b / o:.1f}x slower" if o < b else f"{o / b:.1f}x faster"
            print(f"| {pathlib.Path(path).name} | {b:,.0f} | {size:,} | {o:,.0f} | {ratio} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
