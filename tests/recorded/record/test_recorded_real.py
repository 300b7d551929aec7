"""Record real MPI runs of the C examples in tests/data/replay_c/ with ``mpisim record`` and replay
them: the replay under the profile of the library that ran them gives what the library gave.

Needs MPICH's ``mpicc`` and ``mpiexec`` (``pip install mpi4py mpich``: the ``oracle`` extra in
this venv, or a venv whose Python ``MPISIM_ORACLE_PYTHON`` names); skipped cleanly without
them. The Open MPI and Fortran checks need Debian's ``openmpi-bin libopenmpi-dev gfortran``
(Open MPI's ``mpicc``, ``mpif90`` and ``mpiexec`` all from one folder on PATH, whichever
library comes first there: ``helpers.mpi_tools``) and skip without them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import openmpi, oracle_mpich
from helpers.paths import DATA

import mpisim as ms
from mpisim.cli.main import main
from mpisim.recorded import read_trace, replay, replay_scenario

pytestmark = pytest.mark.real_mpi  # launches a real MPI library

HERE = DATA / "replay_c"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A private recorder cache, so the tests build it as a first-time user would."""
    cache = tmp_path_factory.mktemp("cache")
    return dict(os.environ, XDG_CACHE_HOME=str(cache))


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    mpicc, _ = oracle_mpich()
    out = tmp_path_factory.mktemp("apps")
    for name in ("example_3_10", "bsend_ring", "bsend_burst"):
        subprocess.run([mpicc, "-O1", "-o", str(out / name), str(HERE / f"{name}.c")],
                       check=True, timeout=120)
    subprocess.run([mpicc, "-g", "-O1", "-o", str(out / "cart_halo"), str(HERE / "cart_halo.c")],
                   check=True, timeout=120)
    return out


def _record(env, out: Path, *command: str, timeout: float | None = None
            ) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "mpisim", "record", "--out", str(out)]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    return subprocess.run([*args, "--", *command], capture_output=True, text=True, env=env,
                          timeout=180, cwd=out.parent)


def test_example_3_10_bsend_completes_as_in_mpich(apps, env, tmp_path):
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "bsend.trace"
    run = _record(env, trace, mpiexec, "-n", "2", str(apps / "example_3_10"), "bsend", "2000")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("done") == 2
    sc = replay_scenario(trace).with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")
    standard = replay_scenario(trace, overrides={"mpi.profile": "standard"})
    assert ms.min_buffer(standard).min_buffer == 8096  # 3.6.1: pack_size + 96


def test_example_3_10_send_deadlock_killed_and_replayed(apps, env, tmp_path):
    """40000 B standard sends: MPICH (eager limit 8255 B) deadlocks; the recording, stopped
    by --timeout, replays under the mpich profile to the same blocked calls, and completes
    under the standard profile's 64 KiB eager limit."""
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "send.trace"
    run = _record(env, trace, mpiexec, "-n", "2", str(apps / "example_3_10"), "send",
                  "10000", timeout=4)
    assert run.returncode == 5, run.stderr  # stopped by the timeout
    t = read_trace(trace)
    assert t.outcome() == "killed"
    assert [(r, c.name) for r, c in t.blocked()] == [(0, "Send"), (1, "Send")]
    sc = replay_scenario(trace).with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sc.compare(result).startswith("agrees with the recording: the same calls")
    assert replay(trace).outcome is ms.Outcome.DEADLOCK  # the recorded library's profile
    # standard: eager up to 64 KiB, the sends complete; the processes, stopped, keep running
    assert replay(trace, mpi={"profile": "standard"}).outcome is ms.Outcome.TIMEOUT


def test_example_3_10_send_small_completes(apps, env, tmp_path):
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "small.trace"
    run = _record(env, trace, mpiexec, "-n", "2", str(apps / "example_3_10"), "send", "1000")
    assert run.returncode == 0, run.stderr
    assert replay(trace, mpi={"profile": "mpich"}).outcome is ms.Outcome.COMPLETED


def test_bsend_ring_any_source(apps, env, tmp_path):
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "ring.trace"
    run = _record(env, trace, mpiexec, "-n", "4", str(apps / "bsend_ring"), "5", "100")
    assert run.returncode == 0, run.stderr
    result = replay(trace, mpi={"profile": "mpich"}, as_matched=True)
    assert result.outcome is ms.Outcome.COMPLETED
    assert not [w for w in result.warnings if w.startswith("replay diverged")]
    assert [r.buffer.bsends for r in result.ranks] == [5] * 4


def _assert_cart_halo_splits(t) -> None:
    """cart_halo's communicators on 4 ranks, as the splits of their parents the recorder
    logged: the 2x2 grid (not reordered), its rows, the even ranks, the node."""
    for log in t.ranks:
        grid = log.calls[1].out["rank"]
        made = {c.name: c.split() for c in log.calls
                if c.name in ("Cart_create", "Cart_sub", "Comm_create", "Comm_split_type")}
        assert made == {"Cart_create": (0, grid), "Cart_sub": (grid - grid % 2, grid % 2),
                        "Comm_create": (0, grid // 2) if grid % 2 == 0 else (ms.UNDEFINED, 0),
                        "Comm_split_type": (0, grid)}


def test_topology_and_group_communicators_replay_as_split_communicators(apps, env, tmp_path):
    """A halo exchange over MPI_Cart_create (reorder allowed), MPI_Cart_sub, MPI_Comm_create
    and MPI_Comm_split_type: each new communicator is logged as the split of its parent that
    makes it (7.5.4; a process left out gets MPI_COMM_NULL, color U), so the replay and the
    scenario written from it complete as MPICH did, with the four neighbours' bsends."""
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "cart.trace"
    run = _record(env, trace, mpiexec, "-n", "4", str(apps / "cart_halo"), "bsend", "1000")
    assert run.returncode == 0, run.stderr
    assert sorted(line.split(", row")[0] for line in run.stdout.splitlines()) == [
        f"rank {r}: grid {r} at ({r // 2},{r % 2})" for r in range(4)]
    t = read_trace(trace)
    _assert_cart_halo_splits(t)
    sc = replay_scenario(trace).with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")
    assert [r.buffer.bsends for r in result.ranks] == [4] * 4
    written = tmp_path / "cart.yaml"
    assert main(["replay", str(trace), "--to-yaml", str(written)]) == 0
    assert ms.load_scenario(written).with_overrides({"mpi.profile": "mpich"}).run().outcome \
        is ms.Outcome.COMPLETED


def test_a_stopped_deadlock_keeps_every_processs_log_and_names_the_source_line(apps, env,
                                                                               tmp_path):
    """3.5: four MPI_Ssend in two cycles deadlock. --timeout pauses MPICH's launcher and
    proxy while each process flushes its log on SIGTERM (else the proxy kills the others
    with SIGKILL at the first death), so every log ends with the blocked MPI_Ssend, located
    by its source line (compiled with -g). Three recordings, for the race."""
    _, mpiexec = oracle_mpich()
    line = next(i for i, text in enumerate((HERE / "cart_halo.c").read_text().splitlines(), 1)
                if "MPI_Ssend(" in text)
    for attempt in range(3):
        trace = tmp_path / f"ssend{attempt}.trace"
        run = _record(env, trace, mpiexec, "-n", "4", str(apps / "cart_halo"), "ssend", "10",
                      timeout=4)  # time enough to reach the MPI_Ssend on a busy machine
        assert run.returncode == 5, run.stderr
        t = read_trace(trace)
        assert [(log.ended, [c.name for c in log.calls]) for log in t.ranks] == [
            ("signal 15", ["Init", "Cart_create", "Ssend"])] * 4
    where = f"call 3, cart_halo.c:{line} in main"
    assert [c.where() for _, c in t.blocked()] == [where] * 4
    result = replay(trace, mpi={"profile": "mpich"})
    assert result.outcome is ms.Outcome.DEADLOCK
    assert result.report().count("MPI_Ssend(peer=") == 4 and where in result.report()


def test_overflowing_burst_same_count_as_mpich(apps, env, tmp_path):
    """MPI_ERR_BUFFER after as many successful bsends in the replay as in MPICH."""
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "burst.trace"
    run = _record(env, trace, mpiexec, "-n", "2", str(apps / "bsend_burst"), "10", "20000",
                  "3")
    assert run.returncode == 0, run.stderr
    real = int(run.stdout.split("successful bsends:")[1].split()[0])
    result = replay(trace, mpi={"profile": "mpich"})
    assert result.ranks[0].buffer.bsends == real == 3
    assert result.ranks[0].buffer.overflows == 1
    assert result.outcome is ms.Outcome.COMPLETED


def test_open_mpi_recorder_builds_and_records(env, tmp_path):
    tools = openmpi()  # (its mpicc and mpiexec, not PATH's first)
    app = tmp_path / "ex"
    subprocess.run([tools.mpicc, "-O1", "-o", str(app), str(HERE / "example_3_10.c")], check=True)
    trace = tmp_path / "ompi.trace"
    run = _record(env, trace, *tools.launcher, "-n", "2", str(app), "bsend", "2000")
    assert run.returncode == 0, run.stderr
    t = read_trace(trace)
    assert "Open MPI" in t.library and t.outcome() == "completed"
    assert replay(trace, mpi={"profile": "openmpi"}).outcome is ms.Outcome.COMPLETED


def test_fortran_program_is_recorded(env, tmp_path):
    """Open MPI's Fortran bindings call PMPI_ directly: the recorder's mpi_*_ definitions
    record them anyway."""
    tools = openmpi(fortran=True)
    app = tmp_path / "exf"
    subprocess.run([tools.mpif90, "-o", str(app), str(HERE / "example_3_10.f90")], check=True)
    trace = tmp_path / "f.trace"
    run = _record(env, trace, *tools.launcher, "-n", "2", str(app))
    assert run.returncode == 0, run.stderr
    t = read_trace(trace)
    names = [c.name for c in t.ranks[0].calls]
    assert names == ["Init", "Buffer_attach", "Bsend", "Recv", "Buffer_detach", "Barrier",
                     "Finalize"]
    assert t.ranks[0].calls[3].statuses[0].source == 1
    assert replay(trace).outcome is ms.Outcome.COMPLETED


def test_fortran_topology_and_group_communicators_are_recorded(env, tmp_path):
    """The recorder's mpi_cart_create_, mpi_cart_sub_, mpi_comm_create_ and
    mpi_comm_split_type_ (LOGICAL arguments converted) log the Fortran calls as their splits;
    the replay completes and names the calls by their Fortran source lines (-g)."""
    tools = openmpi(fortran=True)
    app = tmp_path / "cartf"
    subprocess.run([tools.mpif90, "-g", "-o", str(app), str(HERE / "cart_halo.f90")], check=True)
    trace = tmp_path / "cartf.trace"
    run = _record(env, trace, *tools.launcher, "-n", "4", str(app))
    assert run.returncode == 0, run.stderr
    t = read_trace(trace)
    _assert_cart_halo_splits(t)
    line = next(i for i, text in enumerate((HERE / "cart_halo.f90").read_text().splitlines(), 1)
                if "call MPI_Cart_create" in text)
    assert t.ranks[0].calls[1].where() == f"call 2, cart_halo.f90:{line} in MAIN__"
    sc = replay_scenario(trace).with_overrides({"mpi.profile": "openmpi"})
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")
