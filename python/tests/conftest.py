"""Shared fixtures: the repository's rules files and the `gdl` command."""

import os
import pathlib
import shutil

import pytest

import gdl

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"


def gdl_binary():
    """The `gdl` command: $GDL_BIN, else target/release/gdl of the
    checkout, else `gdl` on the PATH; None when there is none."""
    given = os.environ.get("GDL_BIN")
    if given:
        return given
    built = ROOT / "target" / "release" / "gdl"
    if built.exists():
        return str(built)
    return shutil.which("gdl")


@pytest.fixture(scope="session")
def rules():
    return RULES


@pytest.fixture(scope="session")
def tictactoe():
    return gdl.load(RULES / "tictactoe.gdl")


@pytest.fixture(scope="session")
def gdl_bin():
    found = gdl_binary()
    if found is None:
        pytest.skip("no gdl binary: build it with `cargo build --release` or set GDL_BIN")
    return found


@pytest.fixture
def ctrl_c_raises():
    """Ctrl-C (`_thread.interrupt_main()`) raises KeyboardInterrupt during
    the test, whatever the process was started with: a shell starts a
    background job (`bash .ci/run &`) with SIGINT ignored, Python then
    keeps it ignored, and an interrupt the test makes would never come."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
