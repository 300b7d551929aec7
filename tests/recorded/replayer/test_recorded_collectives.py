"""Collectives of recorded C and Fortran runs (MPI 4.1 §6): every blocking and nonblocking
collective, the v and w forms' counts per rank (``ns``) and types per rank (``Ts``), and
MPI_IN_PLACE, replayed with the recorded sizes and written out by ``--to-yaml``.

The hand-written recordings need no MPI. The real ones build tests/data/replay_c/
collectives.c with MPICH's ``mpicc`` (the ``oracle`` extra) and collectives.f90 with
Debian's Open MPI ``mpif90`` (``apt-get install openmpi-bin libopenmpi-dev gfortran``); each
program checks its results itself (a Fortran MPI_IN_PLACE the recorder failed to recognise
would read the wrong buffer) and skips without its library.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import fortran_mpi, oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay, replay_scenario
from mpisim.recorded.toyaml.write import scenario_text
from mpisim.scenario import load

HERE = DATA / "replay_c"
COLLECTIVES = {"Barrier", "Ibarrier", "Bcast", "Ibcast", "Reduce", "Ireduce", "Allreduce",
               "Iallreduce", "Scan", "Iscan", "Exscan", "Iexscan", "Reduce_scatter_block",
               "Ireduce_scatter_block", "Reduce_scatter", "Ireduce_scatter", "Gather",
               "Igather", "Gatherv", "Igatherv", "Allgather", "Iallgather", "Allgatherv",
               "Iallgatherv", "Scatter", "Iscatter", "Scatterv", "Iscatterv", "Alltoall",
               "Ialltoall", "Alltoallv", "Ialltoallv", "Alltoallw", "Ialltoallw"}
"""Every collective of §6 on an intracommunicator, blocking and nonblocking."""


def _log(rank: int, size: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} {size}\n#library test\n"
            "Init g=0 thread=0\n= 0 d=0\nT 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
            "T 2 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            f"{body}Finalize g=0\n= 0 d=0\n")


def _messages(result) -> list[tuple[int, int, int]]:
    return sorted((int(m["src"]), int(m["dst"]), int(m["bytes"]))
                  for m in result.trace.messages)


def test_6_6_scatterv_counts_per_rank_replay_as_recorded(tmp_path):
    """6.6: the root's ``ns`` are its blocks; a receiver logged its own count."""
    root = "Scatterv g=0 comm=0 root=0 T=1 ns=1,2,3\n= 0 d=1\n"
    other = "Scatterv g=0 comm=0 root=0 n={n} T=1\n= 0 d=1\n"
    path = tmp_path / "sv.trace"
    path.write_text(_log(0, 3, root) + _log(1, 3, other.format(n=2))
                    + _log(2, 3, other.format(n=3)))
    result = replay(path, mpi={"collectives": {"scatterv": "linear"}})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert _messages(result) == [(0, 1, 8), (0, 2, 12)]


def test_6_8_alltoallw_sends_each_rank_its_count_of_its_type(tmp_path):
    """6.8 MPI_Alltoallw: ns and Ts per rank; block k is ns[k] elements of Ts[k]."""
    body = ("Ialltoallw g=0 comm=0 ns=1,3 Ts=2,1\n= 0 d=1 r=5\n"
            "Wait g=0 r=5\n= 0 d=1 st=-\n")
    path = tmp_path / "w.trace"
    path.write_text(_log(0, 2, body) + _log(1, 2, body))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert _messages(result) == [(0, 1, 3 * 4), (1, 0, 1 * 8)]  # to rank 1: 3 ints


def test_6_10_2_reduce_scatter_and_its_yaml(tmp_path):
    """6.10.2: ``ns`` are the receive counts; --to-yaml writes them as ``recvcounts``."""
    body = "Reduce_scatter g=0 comm=0 T=2 ns=1,2\n= 0 d=1\n"
    path = tmp_path / "rs.trace"
    path.write_text(_log(0, 2, body) + _log(1, 2, body))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    text = scenario_text(replay_scenario(path))
    assert "reduce_scatter: {recvcounts: [1, 2], datatype: DOUBLE}" in text


# -- real recordings -------------------------------------------------------------------------
def _record(out: Path, *command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out), "--",
                           *command], capture_output=True, text=True, env=env, timeout=300,
                          cwd=out.parent)


def _roundtrip(trace: Path, profile: str, tmp_path: Path) -> None:
    """The recording has every call, replays as the library ran it, and its --to-yaml
    scenario runs with the same messages."""
    t = read_trace(trace)
    assert t.outcome() == "completed"
    sc = replay_scenario(trace).with_overrides({"mpi.profile": profile})
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert sc.compare(result).startswith("agrees")
    yaml = tmp_path / "as.yaml"
    yaml.write_text(scenario_text(replay_scenario(trace)))
    again = load(yaml).run(mpi={"profile": profile})
    assert again.outcome is ms.Outcome.COMPLETED, again.report()
    assert _messages(again) == _messages(result)


@pytest.mark.real_mpi
def test_every_c_collective_is_recorded_and_replays_as_mpich_ran_it(tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "collectives"
    subprocess.run([mpicc, "-g", "-O1", "-o", str(app), str(HERE / "collectives.c")],
                   check=True, timeout=120)
    trace = tmp_path / "c.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = _record(trace, mpiexec, "-n", "4", str(app), env=env)
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.split("\n"))[1:] == [f"rank {r}: ok" for r in range(4)]
    names = {c.name for log in read_trace(trace).ranks for c in log.calls}
    assert names >= COLLECTIVES
    _roundtrip(trace, "mpich", tmp_path)


@pytest.mark.real_mpi
def test_fortran_collectives_with_in_place_are_recorded_and_replay(tmp_path):
    """Open MPI's Fortran bindings call PMPI_ directly: the recorder's mpi_*_ definitions
    of the collectives record them, Fortran's MPI_IN_PLACE made C's (the program's own
    checks pass under the recorder)."""
    launcher, mpif90, _ = fortran_mpi("openmpi")  # (its mpif90 and mpiexec, not PATH's first)
    app = tmp_path / "collectives_f"
    subprocess.run([mpif90, "-g", "-o", str(app), str(HERE / "collectives.f90")], check=True,
                   timeout=120)
    trace = tmp_path / "f.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = _record(trace, *launcher, "-n", "4", str(app), env=env)
    assert run.returncode == 0, run.stderr
    assert sorted(line.strip() for line in run.stdout.splitlines()) == [
        f"rank {r} ok" for r in range(4)]
    names = {c.name for log in read_trace(trace).ranks for c in log.calls}
    assert {"Allreduce", "Reduce", "Allgather", "Gather", "Alltoall", "Reduce_scatter",
            "Alltoallw", "Gatherv", "Scatterv", "Iallreduce", "Ibcast", "Ibarrier"} <= names
    line = next(i for i, text in enumerate((HERE / "collectives.f90").read_text().splitlines(),
                                           1) if "MPI_Allreduce(MPI_IN_PLACE" in text)
    first = read_trace(trace).ranks[0].calls[1]
    assert first.name == "Allreduce" and f"collectives.f90:{line}" in first.where()
    _roundtrip(trace, "openmpi", tmp_path)
