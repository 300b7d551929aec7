"""One-sided communication with a process that has called MPI_Finalize (MPI 4.1 §11.2.2: a
process completes its part in the others' communications, and frees its windows, before
MPI_Finalize): an error finding under every profile; under mpich-5.0 the lock is never
granted, as MPICH 5.0.2 never returns from MPI_Win_lock (tests/data/real/rma/
lock_finalized.py)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms

SCRIPT = DATA / "real" / "rma" / "lock_finalized.py"


def lock_get(mpi, free_first=False, target_computes=0.0):
    buf = np.zeros(4)
    win = yield mpi.win_create(buf, disp_unit=8)
    if mpi.rank == 1 and target_computes:
        yield mpi.compute(target_computes)
    if mpi.rank == 0:
        got = np.zeros(4)
        yield mpi.win_lock(1, win=win)
        yield mpi.get(got, target=1, win=win)
        yield mpi.win_unlock(1, win=win)
        yield mpi.win_free(win)
        return got.tolist()
    if free_first:
        yield mpi.win_free(win)
    return None


def finding(result):
    return next((f for f in result.findings if f.rule == "rma-target-finalized"), None)


def test_11_2_2_under_mpich_a_finalized_target_never_grants_the_lock():
    result = ms.run(lock_get, ranks=2, mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.DEADLOCK
    blocked = {b.rank: b for b in result.deadlock.blocked}
    assert blocked[0].call == "MPI_Win_lock" and blocked[0].waits_for == [1]
    assert blocked[1].call == "MPI_Finalize"
    found = finding(result)
    assert found is not None and found.kind == "error"
    assert found.calls[0].call == "MPI_Win_lock" and found.calls[0].rank == 0
    assert "in MPI_Finalize" in result.report()


def test_a_request_held_while_the_target_computed_is_not_served_by_its_finalize():
    """The lock request reaches rank 1 while it computes (held until its next MPI call);
    that call is MPI_Finalize, which serves nothing: MPICH 5.0.2 hangs the same way with
    the target asleep for 1 s before it finalizes."""
    result = ms.run(lambda mpi: lock_get(mpi, target_computes=1e-3), ranks=2,
                    mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.DEADLOCK
    assert {b.rank: b.call for b in result.deadlock.blocked} == {0: "MPI_Win_lock",
                                                                 1: "MPI_Finalize"}
    assert finding(result) is not None


def test_11_2_2_under_the_standard_profile_it_is_still_an_error():
    result = ms.run(lock_get, ranks=2)
    assert finding(result) is not None  # the lock is served, the program is erroneous
    # and rank 0's collective MPI_Win_free then waits for a rank that never calls it
    assert result.outcome is ms.Outcome.DEADLOCK


def test_a_target_that_frees_its_window_first_is_no_finding():
    """Win_free is collective: the target waits in it until the origin's epoch is over."""
    result = ms.run(lambda mpi: lock_get(mpi, free_first=True), ranks=2,
                    mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert finding(result) is None


def test_the_stand_in_runs_the_public_programs_shape_as_mpich_does():
    result = ms.run_mpi4py(str(SCRIPT), ranks=2, mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.DEADLOCK
    assert finding(result) is not None


@pytest.mark.real_mpi
def test_mpich_never_returns_from_the_lock():
    found = real_mpi.oracle()
    if found is None or found[2] != "mpich":
        pytest.skip("needs mpi4py with MPICH (pip install mpi4py mpich)")
    python, mpiexec, _ = found
    outcome, lines = real_mpi.real([mpiexec, "-n", "2", python, str(SCRIPT)],
                                   deadlock_after=10)
    assert outcome == "deadlock" and not any("got" in line for line in lines)
