"""The memory budget holds in Python, measured from outside: each call that
keeps results (bulk playouts, a random game's moves, a batch of games) runs
in a child process with a small budget, asked for far more than fits and
for as much as fits, and the child's peak resident set, which the kernel
reports when it exits (`os.wait4`), stays within the budget plus the peak
of a baseline child: one that imports gdl and loads the games, and makes
each call once on a count of one (the resident set counts the pages of
code a process has run, NumPy's and the module's, some 7 MiB of it: the
calls' own, not what they keep)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import RULES
from test_playouts import ENDLESS

BUDGET = 16 << 20

# The child: the same imports and game in every case, then one call.
CHILD = r"""
import json, sys
import numpy as np
import gdl
from gdl.batch import Batch

ENDLESS, RULES, what, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
game = gdl.load(RULES + "/tictactoe.gdl")
endless = gdl.loads(ENDLESS)


def largest(make):
    # The most that fits, as a user would find it: a quarter fewer each
    # time the call is refused (a refusal keeps nothing).
    n = 10**9
    while True:
        try:
            return n, make(n)
        except gdl.LimitError:
            n = n * 3 // 4


out = {}
try:
    if what == "baseline":
        game.playouts(1, threads=2, max_memory=budget)
        endless.random_game(max_steps=1, max_memory=budget)
        batch = Batch(game, 1, threads=2, max_memory=budget)
        _, masks = batch.reset()
        rng = np.random.default_rng(0)
        for _ in range(30):
            _, masks, _, end = batch.step(batch.random_actions(masks, rng))
    elif what == "playouts-refused":
        game.playouts(10**12, threads=2, max_memory=budget)
    elif what == "playouts":
        n, results = largest(lambda n: game.playouts(n, threads=2, max_memory=budget))
        out["kept"] = len(results)
    elif what == "random-game-refused":
        endless.random_game(max_steps=10**12, max_memory=budget)
    elif what == "batch-refused":
        Batch(game, 10**9, max_memory=budget)
    elif what == "batch":
        n, batch = largest(lambda n: Batch(game, n, threads=2, max_memory=budget))
        _, masks = batch.reset()
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(30):
            _, masks, _, end = batch.step(batch.random_actions(masks, rng))
            ends += int((end != 0).sum())
        out["kept"], out["ends"] = n, ends
except gdl.LimitError as e:
    out["error"] = str(e)
    out["limit"], out["value"] = e.limit, e.value
print(json.dumps(out))
"""


def peak(what):
    """What the child said, and its peak resident set in bytes."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, ENDLESS, str(RULES), what, str(BUDGET)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stdout.close()
    assert child.returncode == 0, output
    return json.loads(output.splitlines()[-1]), usage.ru_maxrss * 1024


@pytest.fixture(scope="module")
def baseline():
    said, bytes_ = peak("baseline")
    assert said == {}
    return bytes_


def refused_within_budget(said):
    assert said["limit"] == "memory" and said["value"] == BUDGET, said
    message = said["error"]
    assert "16 MiB" in message and "max_memory" in message, message
    assert "max_memory=..." in message and 'limits={"max_memory": ...}' in message, message


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="os.wait4 reports a child's peak")
@pytest.mark.parametrize(
    "what",
    ["playouts-refused", "playouts", "random-game-refused", "batch-refused", "batch"],
)
def test_the_peak_of_a_call_stays_within_its_budget(baseline, what):
    said, bytes_ = peak(what)
    if what.endswith("refused"):
        refused_within_budget(said)
    else:
        # As much as fits was kept: more than a trivial amount.
        assert "error" not in said and said["kept"] > 1000, said
    if what == "playouts":
        # A result of tic-tac-toe takes about 200 bytes at the peak (its
        # tuple, its goals' tuple, the list's slot, and the outcome in Rust
        # while the list is made; measured with /proc/self/status): the
        # estimate lets at least half of the budget be used.
        assert said["kept"] * 200 >= BUDGET // 2, said
    if what == "batch":
        assert said["ends"] > 0, said
    over = bytes_ - baseline
    assert over <= BUDGET, f"{what}: {over / 2**20:.1f} MiB past the baseline, {said}"
