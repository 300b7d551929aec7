"""Recordings of threaded C programs replayed with their threads (MPI 4.1 §11.6).

tests/data/replay_c/two_threads.c (MPI_THREAD_MULTIPLE, two pthreads per process, each
exchanging messages with the other rank's same thread on a tag of its own) and
two_threads_deadlock.c (each thread waits for a message the other rank's other thread sends
only after its own receive) were recorded under MPICH 5.0.2 in the text format into
tests/data/replay/two-threads.trace and two-threads-deadlock.trace (``#exe``, ``#host`` and
``#pid`` made neutral). The stored recordings are replayed without any MPI; the real_mpi
tests record the programs afresh (skipped without MPICH's mpicc).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario

STORED = DATA / "replay"
SOURCES = DATA / "replay_c"
HEADER = ("#mpisim-trace 1\n#rank {rank} 2\n#pid {pid}\n#mpi 4.1\n#bsend-overhead 96\n"
          "#any-source -2\n#proc-null -1\n#exe ./prog\n#host recorder\n#library MPICH\n")


def _convert(source: Path, tmp_path: Path) -> Path:
    """The text recording ``source`` in the compact format (``mpisim record --convert``)."""
    out = tmp_path / f"{source.stem}.compact.trace"
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--convert", str(source),
                          "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return out


def _write(tmp_path: Path, *ranks: str) -> Path:
    path = tmp_path / "hand.trace"
    path.write_text("".join(HEADER.format(rank=r, pid=100 + r) + body
                            for r, body in enumerate(ranks)))
    return path


def test_11_6_each_call_carries_its_thread():
    """§11.6: the recorder numbers the threads (0: MPI_Init's, then in order of first
    call); each thread's calls read in its own order."""
    trace = read_trace(STORED / "two-threads.trace", sources=False)
    assert trace.outcome() == "completed"
    for log in trace.ranks:
        assert log.threads == [0, 1, 2]
        assert log.calls[0].name == "Init" and log.calls[0].args["thread"] == 3  # MULTIPLE
        by_thread = {t: [c for c in log.calls if c.thread == t] for t in (1, 2)}
        for t, calls in by_thread.items():
            assert [c.args["tag"] for c in calls] == [t] * 6  # each thread its own tag
            assert len({c.name for c in calls}) == 2          # 3 sends and 3 receives
        assert [c.name for c in log.calls if c.thread == 0] == ["Init", "Barrier", "Finalize"]


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_6_two_threads_replayed_agree_with_the_recording(fmt, tmp_path):
    """§11.6: each recorded thread replays as a simulated thread of its rank, its calls in
    order; the run completes as recorded, every message matched on its thread's tag."""
    path = STORED / "two-threads.trace"
    if fmt == "compact":
        path = _convert(path, tmp_path)
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert "14 messages sent" in result.report()  # 12 by the threads, 2 by the barrier
    assert sc.compare(result).startswith("agrees")


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_6_a_deadlock_between_threads_names_every_blocked_thread(fmt, tmp_path):
    """§11.6: a blocking call blocks its thread only. Each rank's two threads wait in
    MPI_Recv for messages the other rank's threads never send: the replay is a DEADLOCK
    naming the four blocked threads, and agrees with the recording on their calls."""
    path = STORED / "two-threads-deadlock.trace"
    if fmt == "compact":
        path = _convert(path, tmp_path)
    trace = read_trace(path, sources=False)
    assert [(r, c.number, c.thread) for r, c in trace.blocked()] == [
        (0, 2, 1), (0, 3, 2), (1, 2, 1), (1, 3, 2)]
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    report = result.report()
    for rank in (0, 1):
        for thread in (1, 2):
            assert f"rank {rank} (thread 'thread {thread}'): MPI_Recv" in report
    verdict = sc.compare(result)
    assert verdict.startswith("agrees"), verdict
    assert "rank 1 in MPI_Recv at call 3 (thread 2)" in verdict


def test_11_6_the_recorded_thread_level_is_the_replays(tmp_path):
    """§11.2.1, §11.6: a recording whose MPI_Init_thread provided MPI_THREAD_FUNNELED and
    which has a second thread calling MPI replays with the level's finding."""
    body = ("Init g=0 thread=1\n= 0 d=0\nT 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
            "{call}\n= 0 d=1000{st}\nFinalize g=1000\n= 0 d=1000\n")
    path = _write(tmp_path,
                  body.format(call="Send g=1000 t=1 dest=1 tag=5 comm=0 n=1 T=1", st=""),
                  body.format(call="Recv g=1000 src=0 tag=5 comm=0 n=1 T=1",
                              st=" st=0:5:4"))
    result = replay_scenario(path).run()
    assert result.outcome is ms.Outcome.COMPLETED
    rules = [(f.rule, f.section) for f in result.findings]
    assert ("thread-level", "11.2.1, 11.6") in rules


def test_a_threads_call_after_its_own_unreturned_call_cuts_the_log(tmp_path):
    """A call in progress of one thread followed by calls of another is read (a threaded
    log ends with one open call per thread); followed by a call of its own thread, the log
    is read up to it (broken), as a single-threaded log is."""
    head = "Init g=0 thread=3\n= 0 d=0\nT 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
    fine = _write(tmp_path, head + "Recv g=5 t=1 src=1 tag=1 comm=0 n=1 T=1\n"
                  "Barrier g=5 comm=0\n= 0 d=9\nRecv g=5 t=2 src=1 tag=2 comm=0 n=1 T=1\n",
                  head + "Recv g=5 src=0 tag=1 comm=0 n=1 T=1\n")
    log = read_trace(fine, sources=False).ranks[0]
    assert log.broken is None
    assert [(c.name, c.thread, c.returned) for c in log.calls[1:]] == [
        ("Recv", 1, False), ("Barrier", 0, True), ("Recv", 2, False)]
    assert [c.number for c in log.in_progress] == [4]  # the open calls at the log's end
    cut = _write(tmp_path, head + "Recv g=5 t=1 src=1 tag=1 comm=0 n=1 T=1\n"
                 "Send g=5 t=1 dest=1 tag=2 comm=0 n=1 T=1\n= 0 d=9\n",
                 head + "Recv g=5 src=0 tag=1 comm=0 n=1 T=1\n")
    log = read_trace(cut, sources=False).ranks[0]
    assert log.broken is not None and "starts another call (MPI_Send)" in log.broken
    assert [c.name for c in log.calls] == ["Init", "Recv"]


# -- recorded afresh on MPICH ------------------------------------------------------------------
def _record(tmp_path: Path, name: str, *extra: str) -> tuple[Path, subprocess.CompletedProcess]:
    mpicc, mpiexec = oracle_mpich()
    exe = tmp_path / name
    subprocess.run([mpicc, "-g", "-O1", "-o", str(exe), str(SOURCES / f"{name}.c")],
                   check=True, timeout=120)
    out = tmp_path / f"{name}.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out), *extra,
                          "--", mpiexec, "-n", "2", str(exe)], capture_output=True, text=True,
                         env=env, timeout=300, cwd=tmp_path)
    return out, run


@pytest.mark.real_mpi
@pytest.mark.slow
def test_11_6_two_pthreads_recorded_on_mpich_replay_as_recorded(tmp_path):
    """§11.6: two_threads.c recorded on MPICH 5.0.2 (the compact format, the default):
    every call carries its thread, and the replay agrees with the recording."""
    out, run = _record(tmp_path, "two_threads")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("done") == 2
    trace = read_trace(out, sources=False)
    assert [log.threads for log in trace.ranks] == [[0, 1, 2], [0, 1, 2]]
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")


@pytest.mark.real_mpi
@pytest.mark.slow
def test_11_6_a_deadlock_between_pthreads_recorded_on_mpich_replays_as_deadlock(tmp_path):
    """§11.6: two_threads_deadlock.c stopped by --stall: every thread's blocked call is
    named by mpisim record and by the replay's DEADLOCK, which agrees with it."""
    out, run = _record(tmp_path, "two_threads_deadlock", "--stall", "1")
    assert run.returncode == 3, run.stderr
    blocked = re.findall(r"rank (\d): blocked in MPI_Recv src=\d tag=(\d) "
                         r"\(call \d \(thread (\d)\)", run.stderr)
    assert sorted((r, tag) for r, tag, _ in blocked) == [("0", "1"), ("0", "2"), ("1", "1"),
                                                         ("1", "2")]
    assert sorted((r, t) for r, _, t in blocked) == [("0", "1"), ("0", "2"), ("1", "1"),
                                                     ("1", "2")]
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sc.compare(result).startswith("agrees")


def test_to_yaml_refuses_a_threaded_recording_naming_the_call(tmp_path):
    """--to-yaml writes a rank's calls as one sequence: a call of a second thread is
    refused in one line naming it, and nothing is written."""
    out = tmp_path / "t.yaml"
    run = subprocess.run([sys.executable, "-m", "mpisim", "replay",
                          str(STORED / "two-threads.trace"), "--to-yaml", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "call 2 (thread 1)" in run.stderr and "second thread" in run.stderr
    assert "Traceback" not in run.stderr
    assert not out.exists()


def test_the_timeline_of_a_deadlock_between_threads_counts_ranks():
    """Four threads of two ranks blocked: the timeline's title says 2 ranks, not 4 (a
    rank's threads share its lane)."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from mpisim.plot.timeline import plot_timeline
    result = replay_scenario(STORED / "two-threads-deadlock.trace").run(trace=True)
    title = plot_timeline(result).axes[0].get_title()
    assert "2 rank(s) blocked" in title


@pytest.mark.real_mpi
@pytest.mark.slow
def test_11_8_2_a_spawning_program_is_recorded_with_its_children(tmp_path):
    """§11.8.2: the child MPI_Comm_spawn starts writes a log of its own (it no longer
    writes over its parent's rank.0.log): the recording holds the two processes mpiexec
    started, whole, and the child; the replay starts the child at the spawn and agrees."""
    out, run = _record(tmp_path, "spawn_child", "--format", "text")
    assert run.returncode == 0, run.stderr
    assert "2 processes and 1 spawned" in run.stderr and "does not log" not in run.stderr
    trace = read_trace(out, sources=False)
    assert trace.outcome() == "completed"
    assert [(log.rank, log.size) for log in trace.ranks] == [(0, 2), (1, 2)]
    assert [(log.rank, log.size) for log in trace.spawns["0.1"]] == [(0, 1)]
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")
