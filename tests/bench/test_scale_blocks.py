"""bench.scale's reader window (``--lockstep``) and its recordings' block budget
(``--block-budget``): a many-process recording's blocks as the writers scale them, or as
large as before, and its calls taken as a replay takes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench.scale", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_lockstep_takes_every_call_and_the_budget_sets_the_blocks(tmp_path):
    """128 processes: blocks of 32,768 calls by the writers' budget (2^22 / 128), 65,536
    with a budget as large as before; every call taken, none replayed."""
    rows = {}
    for budget in (None, "1e12"):
        out = tmp_path / f"{budget}.json"
        done = _bench("--format", "compact", "--patterns", "halo3d", "--ranks", "128",
                      "--sizes", "4e3", "--lockstep", "--json", str(out),
                      *(("--block-budget", budget) if budget else ()))
        assert done.returncode == 0, done.stderr
        (rows[budget],) = json.loads(out.read_text())
        assert "taken in step" in done.stdout
    assert rows[None]["block_calls"] == 32768 and rows["1e12"]["block_calls"] == 65536
    for row in rows.values():
        figures = row["no_trace"]
        assert figures["calls"] == row["calls"] and "replay_cpu" not in figures
        assert figures["lockstep_cpu"] > 0 and figures["peak_growth"] > 0


def test_lockstep_with_read_only_or_a_budget_of_nothing_is_one_line():
    for args in (["--read-only", "--lockstep"], ["--block-budget", "0"]):
        done = _bench("--format", "compact", "--sizes", "1e3", *args)
        assert done.returncode == 2
        last = done.stderr.strip().splitlines()[-1]  # (after argparse's usage)
        assert "Traceback" not in done.stderr and last.startswith("python -m bench.scale: ")
        assert ("one or the other" if "--lockstep" in args else "--block-budget: 0") in last
