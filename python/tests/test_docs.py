"""Every Python example of docs/python.md runs as written: each block is a
complete program, run from the root of the checkout."""

import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), re.S | re.M)


def test_the_guide_has_examples():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_an_example_of_the_guide_runs(block, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(block)
    run = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"{block}\n--- stderr:\n{run.stderr}"
