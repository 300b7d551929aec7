"""Deadlocks recorded on MPICH and stopped by ``--timeout`` replay as DEADLOCK, each blocked
call named, and agree with the recording on those calls.

The commonest shape of a real deadlock is one process that has finished, in MPI_Finalize,
and another waiting for a message with the wrong tag, communicator or source. MPI 4.1
§11.2.2 makes MPI_Finalize collective over the connected processes: the finished process
waits there for the other (MPICH 5.0.2 and Open MPI 5.0.11 both do), so the replay names
both. tests/data/deadlock_c/ holds one small C program per shape; its first line says which
call each process is blocked in. Each was recorded under MPICH 5.0.2 into
tests/data/deadlock/NAME.trace (``python tests/recorded/test_recorded_deadlocks.py``
records them again); the stored recordings are judged without any MPI, and the real_mpi test
records them afresh.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import replay_scenario

SOURCES = DATA / "deadlock_c"
STORED = DATA / "deadlock"
CODES = sorted(SOURCES.glob("*.c"))
TIMEOUT = 5.0
"""Seconds ``mpisim record`` lets a program run before it stops it (each of these hangs)."""


def expected(source: Path) -> tuple[dict[int, str], int]:
    """({rank: the MPI call it is blocked in}, processes), from the program's first line
    ``/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Wait (2 processes)``."""
    first = source.read_text().splitlines()[0]
    calls = {int(r): c for r, c in re.findall(r"rank (\d+) (MPI_\w+)", first)}
    size = int(re.search(r"\((\d+) processes\)", first).group(1))
    return calls, size


def judge(trace: Path) -> tuple[ms.Result, str]:
    """The replay of a recording and its verdict."""
    sc = replay_scenario(trace)
    result = sc.run()
    return result, sc.compare(result)


def assert_replayed_as_the_deadlock(source: Path, trace: Path) -> None:
    calls, size = expected(source)
    result, verdict = judge(trace)
    assert result.outcome is ms.Outcome.DEADLOCK, result.report()
    assert {b.rank: b.call for b in result.deadlock.blocked} == calls, result.report()
    assert len(calls) == size
    for b in result.deadlock.blocked:  # each at its recorded call
        assert b.where is not None and b.where.startswith("call "), b
    assert verdict.startswith("agrees with the recording: the same calls are blocked ("), \
        verdict
    for rank, call in calls.items():
        assert f"rank {rank} in {call} at call " in verdict


def test_every_shape_is_labelled_and_recorded_under_mpich():
    assert len(CODES) >= 8
    for source in CODES:
        calls, size = expected(source)
        assert sorted(calls) == list(range(size)), source.name
        trace = STORED / f"{source.stem}.trace"
        assert trace.exists(), f"{source.name} was not recorded"
        text = trace.read_text()
        assert "MPICH Version:      5.0.2" in text
        assert text.count("# signal 15") == size, "every process stopped by --timeout"


@pytest.mark.parametrize("source", CODES, ids=lambda p: p.stem)
def test_a_deadlock_stopped_by_timeout_replays_as_deadlock_naming_each_blocked_call(source):
    """MPI 4.1 §11.2.2: a process in MPI_Finalize waits for the others; with another
    blocked forever, the replay is a DEADLOCK naming both, each at its recorded call, and
    agrees with the recording (not TIMEOUT, 'computing after its last recorded call')."""
    assert_replayed_as_the_deadlock(source, STORED / f"{source.stem}.trace")


def test_the_finalizing_rank_waits_for_the_blocked_one_in_a_cycle():
    """The wait-for graph: rank 0 in MPI_Finalize waits for rank 1, whose MPI_Wait waits
    for rank 0's message (tag 1): the cycle 0 -> 1 -> 0."""
    result, _ = judge(STORED / "tag_send_irecv.trace")
    finalizing = next(b for b in result.deadlock.blocked if b.call == "MPI_Finalize")
    assert (finalizing.rank, finalizing.waits_for) == (0, [1])
    assert "MPI 4.1 §11.2.2" in finalizing.reason
    assert result.deadlock.cycles == [[0, 1]]


def test_a_local_finalize_profile_lets_the_finalizing_rank_go_and_says_it_differs(tmp_path):
    """Under a profile whose MPI_Finalize is local (a library observed to return from it),
    rank 0 ends and only rank 1 is blocked: that is not where the recorded process was."""
    profile = tmp_path / "local-finalize.yaml"
    profile.write_text("mpisim_profile: 1\nname: local-finalize\nbased_on: standard\n"
                       "settings:\n  finalize: local\n")
    sc = replay_scenario(STORED / "tag_send_irecv.trace").with_overrides(
        {"mpi.profile": str(profile)})
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert [(b.rank, b.call) for b in result.deadlock.blocked] == [(1, "MPI_Wait")]
    verdict = sc.compare(result)
    assert verdict.startswith("DIFFERS from the recording: rank 0 ")
    assert "the recorded process was in MPI_Finalize at call " in verdict


def _log(rank: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} 2\n#library MPICH Version: 5.0.2\n"
            "Init g=0 thread=0\n= 0 d=0\nT 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
            + body)


def test_a_log_that_ends_abruptly_inside_a_call_is_replayed_up_to_it(tmp_path):
    """Rank 0's log goes on past its MPI_Ialltoall without the call's result line (an
    error handler that never returned): the recording is not refused; rank 0 is replayed
    up to that call, said so, and the replay agrees that it got there."""
    path = tmp_path / "cut.trace"
    path.write_text(_log(0, "Ialltoall g=0 comm=0 n=1 T=1\nWait g=10 r=1\n= 0 d=10\n")
                    + _log(1, "Ialltoall g=0 comm=0 n=1 T=1\n= 0 d=10 r=1\nWait g=10 r=1\n"
                              "= 0 d=10\nFinalize g=0\n= 0 d=0\n"))
    sc = replay_scenario(path)
    assert "rank 0's log ends abruptly inside call 2 (MPI_Ialltoall)" in sc.recording()
    assert ("rank 0 was in MPI_Ialltoall at call 2 and its log ends inside this call: line 8 "
            "starts another call (MPI_Wait) before it returned") in sc.recording()
    result = sc.run()
    assert result.outcome is ms.Outcome.TIMEOUT
    assert "rank 0 past the call in which its log ends abruptly" in result.timeout_reason
    assert sc.compare(result) == (
        "agrees with the recording: stopped while running; the replay reached the same "
        "point (rank 0 at MPI_Ialltoall call 2, where its log ends)")


def test_a_process_stopped_in_finalize_beside_one_still_computing_is_the_same_point(
        tmp_path):
    """Rank 0 waits in MPI_Finalize while rank 1 computes (stopped outside MPI after 2.7 s,
    as MPICH 5.0.2 keeps them): not a deadlock, rank 1 could still move. The replay stops
    where the recording was, rank 0 in MPI_Finalize, and agrees."""
    path = tmp_path / "slow.trace"
    path.write_text(_log(0, "Finalize g=1000\n# signal 15 in=2700000000\n")
                    + _log(1, "# signal 15 g=2700000000\n"))
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.TIMEOUT
    assert sc.compare(result) == (
        "agrees with the recording: stopped while running; the replay reached the same "
        "point (rank 0 in MPI_Finalize call 2; rank 1 computing after call 1)")


# -- recording them (a real MPI) ---------------------------------------------------------------
def record(source: Path, out: Path, mpicc: str, mpiexec: str, build: Path
           ) -> subprocess.CompletedProcess:
    """Compile ``source`` in ``build`` and record it (stopped after TIMEOUT s) into ``out``
    in the text format, as the stored recordings are, its machine-specific header lines made
    neutral (``#exe ./name``, ``#pid 0``)."""
    _, size = expected(source)
    build.mkdir(parents=True, exist_ok=True)
    subprocess.run([mpicc, "-g", "-O0", "-o", str(build / source.stem), str(source)],
                   check=True, timeout=120)
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--format", "text",
                          "--out", str(out), "--timeout", str(TIMEOUT), "--", mpiexec, "-n",
                          str(size),
                          f"./{source.stem}"], capture_output=True, text=True,
                         timeout=180, cwd=build)
    if out.exists():
        text = out.read_text()
        text = re.sub(r"^#exe .*/", "#exe ./", text, flags=re.M)
        text = re.sub(r"^#pid \d+", "#pid 0", text, flags=re.M)
        text = re.sub(r"^#host .*", "#host recorder", text, flags=re.M)
        out.write_text(text.replace(f"{build}/", "./"))
    return run


@pytest.mark.real_mpi
@pytest.mark.slow
@pytest.mark.parametrize("source", CODES, ids=lambda p: p.stem)
def test_a_fresh_recording_under_mpich_replays_as_the_same_deadlock(source, tmp_path):
    mpicc, mpiexec = oracle_mpich()
    trace = tmp_path / f"{source.stem}.trace"
    run = record(source, trace, mpicc, mpiexec, tmp_path / "build")
    assert trace.exists(), run.stderr
    assert_replayed_as_the_deadlock(source, trace)


if __name__ == "__main__":  # record them again: python tests/recorded/test_recorded_deadlocks.py
    import tempfile

    python = os.environ.get("MPISIM_ORACLE_PYTHON", sys.executable)
    compiler, launcher = (str(Path(python).parent / tool) for tool in ("mpicc", "mpiexec"))
    STORED.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for code in ([SOURCES / f"{n}.c" for n in sys.argv[1:]] or CODES):
            done = record(code, STORED / f"{code.stem}.trace", compiler, launcher,
                          Path(tmp) / code.stem)
            print(code.stem, done.returncode, done.stderr.strip().splitlines()[-1:])
