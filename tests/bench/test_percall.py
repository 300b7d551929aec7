"""bench.percall without valgrind: each of its runs completes (the halo's native program,
its point-to-point part, its allreduce part, the replay) and counts the run's events; bad
arguments are refused in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.percall import run
from mpisim.recorded.record import synthetic as syn

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def halo(tmp_path_factory):
    path = tmp_path_factory.mktemp("percall") / "halo3d-small.trace"
    syn.write(path, "halo3d", 8, 20, fmt="compact")
    return str(path)


def test_the_halos_parts_each_make_their_share_of_its_events(halo):
    whole, p2p, allreduce = (run(halo, how) for how in ("native", "native-p2p",
                                                         "native-allreduce"))
    assert whole > p2p > allreduce > 0
    assert run(halo, "replay") == 0  # (a replay's events are not counted)


def test_calls_must_grow():
    done = subprocess.run([sys.executable, "-m", "bench.percall", "--calls", "100", "50"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    if "valgrind is not installed" in done.stderr:
        pytest.skip("valgrind is not installed")
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "--calls: SMALL must be positive and below LARGE"]
