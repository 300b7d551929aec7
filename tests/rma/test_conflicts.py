"""Conflicting accesses to one target location in one epoch (MPI 4.1 §12.7) are a warning
in the result, naming both calls and where they were made; the run goes on."""

from __future__ import annotations

import numpy as np

import mpisim as ms


def warnings_of(program, ranks=3, **kw):
    result = ms.run(program, ranks=ranks, **kw)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return [w for w in result.warnings if "conflicting accesses" in w]


def fence_epoch(first, second, disp=(0, 0), ranks=(0, 2)):
    """Ranks ``ranks`` make ``first`` and ``second`` to rank 1 in one fence epoch."""
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        yield mpi.win_fence(win=win)
        if mpi.rank in ranks:
            make = first if mpi.rank == ranks[0] else second
            yield make(mpi, win, disp[ranks.index(mpi.rank)])
        yield mpi.win_fence(win=win)
        yield mpi.win_free(win)
    return program


def put(mpi, win, disp):
    return mpi.put(np.ones(2), target=1, target_disp=disp, win=win)


def get(mpi, win, disp):
    return mpi.get(np.ones(2), target=1, target_disp=disp, win=win)


def acc(op):
    return lambda mpi, win, disp: mpi.accumulate(np.ones(2), target=1, target_disp=disp,
                                                 op=op, win=win)


def test_two_puts_to_the_same_place_conflict():
    found = warnings_of(fence_epoch(put, put))
    assert len(found) == 1
    assert "bytes 0..15 of rank 1's part of win#1" in found[0]
    assert "rank 0's MPI_Put (test_conflicts.py:" in found[0]
    assert "rank 2's MPI_Put (test_conflicts.py:" in found[0]


def test_a_put_and_a_get_of_overlapping_bytes_conflict():
    found = warnings_of(fence_epoch(put, get, disp=(0, 1)))
    assert len(found) == 1 and "bytes 8..15" in found[0] and "MPI_Get" in found[0]


def test_disjoint_bytes_do_not_conflict():
    assert warnings_of(fence_epoch(put, put, disp=(0, 2))) == []


def test_two_gets_do_not_conflict():
    assert warnings_of(fence_epoch(get, get)) == []


def test_accumulates_with_the_same_op_do_not_conflict_with_different_ops_they_do():
    """§12.7: concurrent accumulates with the same op are atomic; the default
    accumulate_ops (same_op_no_op) makes different ops erroneous."""
    assert warnings_of(fence_epoch(acc(ms.SUM), acc(ms.SUM))) == []
    assert len(warnings_of(fence_epoch(acc(ms.SUM), acc(ms.MAX)))) == 1
    assert len(warnings_of(fence_epoch(acc(ms.SUM), put))) == 1


def test_one_origins_put_then_get_in_one_epoch_conflict():
    """A put is not ordered before a get of the same origin in one epoch."""
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        yield mpi.win_fence(win=win)
        if mpi.rank == 0:
            yield put(mpi, win, 0)
            yield get(mpi, win, 0)
        yield mpi.win_fence(win=win)
        yield mpi.win_free(win)

    assert len(warnings_of(program, ranks=2)) == 1


def test_accesses_of_different_fence_epochs_do_not_conflict():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        for epoch in range(3):
            yield mpi.win_fence(win=win)
            if mpi.rank == epoch % 2 * 2:  # ranks 0, 2, 0 put, one epoch each
                yield put(mpi, win, 0)
        yield mpi.win_fence(win=win)
        yield mpi.win_free(win)

    assert warnings_of(program) == []


def test_a_flush_orders_one_origins_accesses():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank == 0:
            yield mpi.win_lock(1, win=win)
            yield put(mpi, win, 0)
            yield mpi.win_flush(1, win=win)
            yield get(mpi, win, 0)
            yield mpi.win_unlock(1, win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)

    assert warnings_of(program, ranks=2) == []


def locked(lock_type):
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        if mpi.rank != 1:
            yield mpi.win_lock(1, lock_type, win=win)
            yield put(mpi, win, 0)
            yield mpi.compute(5e-6)  # both epochs open at once, if the locks allow it
            yield mpi.win_unlock(1, win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)
    return program


def test_shared_locks_let_puts_conflict_exclusive_locks_order_them():
    assert len(warnings_of(locked(ms.LOCK_SHARED))) == 1
    assert warnings_of(locked(ms.LOCK_EXCLUSIVE)) == []
