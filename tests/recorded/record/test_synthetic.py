"""Synthetic recordings (mpisim.recorded.record.synthetic): read as recordings, replayed to
COMPLETED, agreeing with what they say, written as they stream."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import pytest

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.record import synthetic as syn


def _replayed(path):
    sc = replay_scenario(path)
    result = sc.run()
    return sc, result


@pytest.mark.parametrize(("shape", "ranks"), [("halo3d", 1), ("halo3d", 8), ("halo3d", 12),
                                              ("master-worker", 2), ("master-worker", 9),
                                              ("pingpong", 2), ("pingpong", 5)])
def test_each_shape_replays_to_completion_and_agrees(tmp_path, shape, ranks):
    """Every process finalizes; a wildcard receive (MPI 4.1 §3.2.4) of master-worker matches
    the source written, so the replay has no divergence."""
    path = tmp_path / "r.trace"
    calls = syn.write(path, shape, ranks, steps=6)
    trace = read_trace(path)
    assert trace.size == ranks and trace.outcome() == "completed"
    assert sum(len(r.calls) for r in trace.ranks) == calls
    sc, result = _replayed(path)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert not [w for w in result.warnings if "diverged" in w]
    assert sc.compare(result).startswith("agrees with the recording")


def test_halo3d_is_nonblocking_to_six_neighbours_with_an_allreduce():
    """Per step: 6 MPI_Irecv, 6 MPI_Isend, an MPI_Waitall of their 12 requests (each id
    new, as the recorder numbers them), an MPI_Allreduce."""
    import io

    out = io.StringIO()
    syn._write_rank(out, "halo3d", 0, 27, 2, 1)
    calls = [line.split()[0] for line in out.getvalue().splitlines()
             if line[:1].isupper() and not line.startswith(("T ", "@ ", "C "))]
    step = ["Irecv"] * 6 + ["Isend"] * 6 + ["Waitall", "Allreduce"]
    assert calls == ["Init", *step, *step, "Finalize"]
    waits = [line for line in out.getvalue().splitlines() if line.startswith("Waitall")]
    assert waits[0].split("r=")[1] == ",".join(map(str, range(1, 13)))
    assert waits[1].split("r=")[1] == ",".join(map(str, range(13, 25)))


def test_grid_is_balanced_and_neighbours_are_symmetric():
    assert syn.grid(1024) == (16, 8, 8)
    assert syn.grid(12) == (3, 2, 2)
    assert syn.grid(7) == (7, 1, 1)
    size = 60
    for rank in range(size):
        for d, (src, dest) in enumerate(syn._neighbours(rank, size)):
            assert syn._neighbours(dest, size)[d][0] == rank  # dest receives from me
            assert syn._neighbours(src, size)[d][1] == rank


def test_a_directory_of_rank_logs_for_1024_processes(tmp_path):
    out = tmp_path / "mw"
    calls = syn.write(out, "master-worker", 1024, steps=1)
    assert sorted(p.name for p in out.iterdir())[:2] == ["rank.0.log", "rank.1.log"]
    assert len(list(out.iterdir())) == 1024
    assert calls == syn.total_calls("master-worker", 1024, 1) == 4 * 1023 + 2048
    trace = read_trace(out)
    assert trace.size == 1024 and trace.outcome() == "completed"


def test_writing_streams(tmp_path, monkeypatch):
    """The memory a write takes does not grow with its length (one chunk of steps)."""
    monkeypatch.setattr(syn, "_CHUNK", 64)

    def peak(steps: int) -> int:
        tracemalloc.start()
        syn.write(tmp_path / f"p{steps}.trace", "halo3d", 2, steps)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top
    small, large = peak(4 * 64), peak(32 * 64)  # 3,588 and 28,676 calls
    assert large < 1.5 * small


def test_calls_sets_the_steps():
    steps = syn.steps_for("halo3d", 8, 1_000_000)
    assert abs(syn.total_calls("halo3d", 8, steps) - 1_000_000) <= 14 * 8


def test_command_line(tmp_path):
    out = tmp_path / "h.trace"
    done = subprocess.run([sys.executable, "-m", "mpisim.recorded.record.synthetic", "halo3d",
                           "--ranks", "4", "--calls", "1000", "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "halo3d, 4 processes" in done.stdout and out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["nope", "-o", "x.trace"], "invalid choice"),
    (["pingpong", "--ranks", "1", "-o", "x.trace"], "ranks: 1 is not in 2.."),
    (["halo3d", "--steps", "-1", "-o", "x.trace"], "steps: -1 is negative"),
    (["halo3d", "--ranks", "0", "-o", "x.trace"], "ranks: 0 is not a positive number")])
def test_bad_arguments_are_one_line_and_write_nothing(tmp_path, args, message):
    done = subprocess.run([sys.executable, "-m", "mpisim.recorded.record.synthetic", *args],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())
