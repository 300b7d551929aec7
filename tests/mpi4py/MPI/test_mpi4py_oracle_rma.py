"""Differential tests of one-sided communication (MPI 4.1 §12): each script of
tests/data/real/rma/ under the real library and under the stand-in with the profile
measured on it (``mpich-5.0``, ``openmpi-5.0``).

- ``epochs.py``: puts, gets, accumulates and fetch-and-ops in fence, post/start/complete/
  wait, lock and lock_all epochs, at 1 to 4 ranks: what every rank's window holds and what
  its gets and fetches brought back must agree;
- ``faulty.py``: a missing fence, an unreleased lock, a start without post, a wait without
  complete (the real run hangs: a deadlock under mpisim) and a put outside any epoch
  (MPI_ERR_RMA_SYNC on both);
- ``sleeping_target.py``: with the target asleep outside MPI, which of the origin's calls
  waited for it (over half the sleep) must be the same calls.

Needs the real mpi4py with mpiexec: ``MPISIM_ORACLE_PYTHON`` (MPICH; or this Python with
the ``oracle`` extra) and ``MPISIM_ORACLE_OMPI_PYTHON`` (Open MPI); each library's cases
are skipped without it. A real hang is a deadlock after DEADLOCK_AFTER seconds.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms

pytestmark = pytest.mark.real_mpi

SCRIPTS = DATA / "real" / "rma"
DEADLOCK_AFTER = 8.0
SLEEP = 0.5  # sleeping_target.py's
LIBRARIES = {"mpich": ("MPISIM_ORACLE_PYTHON", [], "mpich-5.0"),
             "openmpi": ("MPISIM_ORACLE_OMPI_PYTHON", ["--oversubscribe"], "openmpi-5.0")}


@cache
def _found(library: str) -> str | None:
    env, _, _ = LIBRARIES[library]
    python = os.environ.get(env) or (sys.executable if library == "mpich" else None)
    if not python or not (Path(python).parent / "mpiexec").exists():
        return None
    probe = subprocess.run([python, "-c", "from mpi4py import MPI; import numpy; "
                            "print(MPI.Get_library_version())"],
                           capture_output=True, text=True, env=real_mpi.ENV, timeout=60)
    name = "MPICH" if library == "mpich" else "Open MPI"
    return python if probe.returncode == 0 and name in probe.stdout else None


def real(library: str, script: str, args: list[str], ranks: int) -> tuple[str, list[str]]:
    python = _found(library)
    if python is None:
        pytest.skip(f"set {LIBRARIES[library][0]} to a Python with mpi4py, numpy and "
                    f"{library}'s mpiexec beside it")
    extra = LIBRARIES[library][1]
    return real_mpi.real([str(Path(python).parent / "mpiexec"), *extra, "-n", str(ranks),
                          python, str(SCRIPTS / script), *args], DEADLOCK_AFTER)


def simulated(library: str, script: str, args: list[str], ranks: int) -> tuple[str, list[str]]:
    return real_mpi.simulated(SCRIPTS / script, args, ranks, LIBRARIES[library][2])


EPOCHS = [(mode, ranks) for mode in ("fence", "pscw", "lock", "lock_all")
          for ranks in (1, 2, 3, 4)]


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("mode, ranks", EPOCHS, ids=[f"{m}-n{n}" for m, n in EPOCHS])
def test_every_rank_ends_with_the_data_the_real_library_gives(library, mode, ranks):
    real_outcome, real_lines = real(library, "epochs.py", [mode], ranks)
    assert real_outcome == "completed", real_lines
    sim_outcome, sim_lines = simulated(library, "epochs.py", [mode], ranks)
    assert (sim_outcome, sim_lines) == (real_outcome, real_lines)


FAULTY = [("missing_fence", 2, "deadlock"), ("unreleased_lock", 3, "deadlock"),
          ("missing_post", 2, "deadlock"), ("missing_complete", 2, "deadlock"),
          ("no_epoch", 2, "completed")]


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("case, ranks, outcome", FAULTY, ids=[c for c, _, _ in FAULTY])
def test_a_faulty_program_fails_as_under_the_real_library(library, case, ranks, outcome):
    real_outcome, real_lines = real(library, "faulty.py", [case], ranks)
    assert real_outcome == outcome, real_lines
    sim_outcome, sim_lines = simulated(library, "faulty.py", [case], ranks)
    assert sim_outcome == real_outcome
    if outcome == "completed":  # the put outside an epoch: ERR_RMA_SYNC on every rank
        assert sim_lines == real_lines
        assert sum("ERR_RMA_SYNC" in line for line in real_lines) == ranks


WAITING = [(scenario, flavor) for scenario in (
    "lock_put", "lock_shared_put", "lock_get", "lock_acc", "lock_all_put", "lock_put_flush",
    "lock_put_flush_local", "lock_nocheck_put", "lock_only", "fence_put", "pscw_late_post",
    "pscw_sleep_after_post") for flavor in ("create", "allocate")]


def durations(lines: list[str]) -> dict[str, float]:
    """Each timed call of rank 0 and how long it took, in seconds."""
    line = next(line for line in lines if line.startswith("rank 0: "))
    calls = re.findall(r"(\w+) ([\d.]+)", line.removeprefix("rank 0: "))
    return {call: float(seconds) for call, seconds in calls}


def waited(lines: list[str]) -> dict[str, bool]:
    """Each timed call of rank 0 and whether it waited (over half the sleep)."""
    return {call: seconds > SLEEP / 2 for call, seconds in durations(lines).items()}


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("scenario, flavor", WAITING, ids=[f"{s}-{f}" for s, f in WAITING])
def test_the_calls_that_wait_for_a_sleeping_target_are_the_real_librarys(library, scenario,
                                                                          flavor):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(SCRIPTS / "sleeping_target.py", ranks=2,
                               args=[scenario, flavor],
                               mpi={"profile": LIBRARIES[library][2]})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    expected = waited(real_mpi.lines(out.getvalue()))
    # A loaded machine only lengthens a call, never shortens a wait the library makes: each
    # call's shortest time over up to three real runs says whether it waited.
    shortest: dict[str, float] = {}
    for _ in range(3):
        real_outcome, real_lines = real(library, "sleeping_target.py", [scenario, flavor], 2)
        assert real_outcome == "completed", real_lines
        for call, seconds in durations(real_lines).items():
            shortest[call] = min(seconds, shortest.get(call, seconds))
        if {call: t > SLEEP / 2 for call, t in shortest.items()} == expected:
            break
    assert {call: t > SLEEP / 2 for call, t in shortest.items()} == expected, shortest
