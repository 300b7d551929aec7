"""bench.scale at small sizes: a recording written, read and replayed in a child per size,
the figures set beside the smallest size's; ``--read-only``; ``--ranks``; bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bench.scale ARGS`` from the project's root, as its docstring runs it."""
    return subprocess.run([sys.executable, "-m", "bench.scale", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_a_compact_halo_of_many_processes_replays_and_is_set_beside_the_smallest(tmp_path):
    out = tmp_path / "scale.json"
    done = _bench("--format", "compact", "--patterns", "halo3d", "--ranks", "27", "--sizes",
                  "2e3", "4e3", "--json", str(out))
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    assert [r["ranks"] for r in rows] == [27, 27]
    assert rows[1]["calls"] > rows[0]["calls"] > 1000
    assert all(r["no_trace"]["calls"] == r["calls"] for r in rows)  # read back whole
    assert all(r["no_trace"]["replay_cpu"] > 0 for r in rows)
    assert "halo3d (nonblocking, 27 processes, blocks of 65,536 calls)" in done.stdout


def test_a_master_worker_replays_as_its_native_program_runs(tmp_path):
    """The master-worker pattern (MPI_ANY_SOURCE at the master) replayed and set beside its
    native program, which reaches the same simulated time."""
    out = tmp_path / "scale.json"
    done = _bench("--format", "compact", "--patterns", "master-worker", "--native",
                  "--sizes", "2e3", "--json", str(out))
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(out.read_text())
    assert row["kind"] == "wildcard" and row["ranks"] == 8
    assert row["no_trace"]["same_sim_time"] is True


def test_read_only_reads_without_replaying(tmp_path):
    out = tmp_path / "scale.json"
    done = _bench("--format", "compact", "--patterns", "pingpong", "--sizes", "1e3",
                  "--read-only", "--json", str(out))
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(out.read_text())
    assert row["no_trace"]["calls"] == row["calls"] and "replay_cpu" not in row["no_trace"]
    assert "not replayed" in done.stdout


def test_too_few_ranks_is_one_line():
    done = _bench("--ranks", "1")
    assert done.returncode == 2 and "--ranks: 1 is less than 2" in done.stderr
    assert "Traceback" not in done.stderr
