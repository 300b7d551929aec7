"""A synchronization that can never return is a deadlock (MPI 4.1 §12.5), reported like
any other: each blocked rank's call, its place, and whom it waits for (the rank that never
fenced, the target that never posted, the origin that never completed, the holder of a lock
never released), with the cycles of the wait-for graph. MPICH 5.0.2 and Open MPI 5.0.11
hang on each of these programs (docs/guide/facts-rma.md)."""

from __future__ import annotations

import numpy as np

import mpisim as ms


def blocked(program, ranks=2):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.DEADLOCK, result.report()
    return {b.rank: b for b in result.deadlock.blocked}, result


def test_a_missing_fence_names_the_rank_that_never_fenced():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        yield mpi.win_fence(win=win)
        if mpi.rank == 0:
            yield mpi.put(np.ones(4), target=1, win=win)
            yield mpi.win_fence(win=win)  # rank 1 never makes this one
        yield mpi.win_free(win)

    ranks, result = blocked(program)
    assert ranks[0].call == "MPI_Win_fence" and ranks[0].waits_for == [1]
    assert "for the members that have not called it: rank 1" in ranks[0].reason
    assert ranks[0].where.startswith("test_deadlocks.py:")
    assert ranks[1].call == "MPI_Win_free" and ranks[1].waits_for == [0]
    assert result.deadlock.cycles == [[0, 1]]
    assert {b.cause.value for b in ranks.values()} == {"one-sided"}


def test_an_unreleased_lock_names_its_holder_and_where_it_locked():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank == 0:
            yield mpi.win_lock(1, win=win)  # never unlocked
            yield mpi.put(np.ones(4), target=1, win=win)
            yield mpi.win_flush(1, win=win)
        yield mpi.barrier()
        if mpi.rank == 2:
            yield mpi.win_lock(1, win=win)
            yield mpi.win_unlock(1, win=win)
        yield mpi.barrier()

    ranks, result = blocked(program, 3)
    lock = ranks[2]
    assert lock.call == "MPI_Win_lock" and lock.waits_for == [0]
    assert "rank 0 holds rank 1's lock (exclusive, locked at test_deadlocks.py:" in lock.reason
    assert ranks[0].call == ranks[1].call == "MPI_Barrier"
    assert [0, 2] in result.deadlock.cycles


def test_a_start_without_post_names_the_target():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank == 0:
            yield mpi.win_start([1], win=win)
            yield mpi.win_complete(win)
        yield mpi.win_free(win)

    ranks, _ = blocked(program)
    assert ranks[0].call == "MPI_Win_start" and ranks[0].waits_for == [1]
    assert "for MPI_Win_post of rank 1" in ranks[0].reason


def test_a_wait_without_complete_names_the_origin():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank == 1:
            yield mpi.win_post([0], win=win)
            yield mpi.win_wait(win)
        else:
            yield mpi.win_start([1], win=win)  # never completed
            yield mpi.barrier()
        yield mpi.win_free(win)

    ranks, _ = blocked(program)
    assert ranks[1].call == "MPI_Win_wait" and ranks[1].waits_for == [0]
    assert "for MPI_Win_complete of rank 0" in ranks[1].reason
    assert ranks[0].call == "MPI_Barrier"


def test_a_lazy_lock_held_elsewhere_blocks_the_unlock_of_an_epoch_that_made_operations():
    """rma_lock lazy: the put asks for the lock; its unlock waits for the grant, which the
    holder never releases."""
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank == 0:
            yield mpi.win_lock(2, win=win)
            yield mpi.put(np.ones(1), target=2, win=win)
            yield mpi.win_flush(2, win=win)  # holds the lock, never unlocks
            yield mpi.barrier()
        elif mpi.rank == 1:
            yield mpi.barrier()
            yield mpi.win_lock(2, win=win)
            yield mpi.put(np.ones(1), target=2, win=win)
            yield mpi.win_unlock(2, win=win)
        else:
            yield mpi.barrier()

    result = ms.run(program, ranks=3, mpi={"rma_lock": "lazy"})
    assert result.outcome is ms.Outcome.DEADLOCK, result.report()
    unlock = next(b for b in result.deadlock.blocked if b.rank == 1)
    assert unlock.call == "MPI_Win_unlock" and unlock.waits_for == [0]
    assert "rank 0 holds rank 2's lock" in unlock.reason


def test_a_test_loop_that_can_never_succeed_is_a_livelock():
    """MPI_Win_test polls; a loop of tests for a complete that never comes is stopped and
    reported as a livelock naming its call."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        if mpi.rank == 1:
            yield mpi.win_post([0], win=win)
            while not (yield mpi.win_test(win)):
                pass

    result = ms.run(program, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert result.deadlock.livelock == [1]
    assert result.deadlock.blocked[0].call == "MPI_Win_test"
