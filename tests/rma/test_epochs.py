"""A synchronization call out of place is MPI_ERR_RMA_SYNC (MPI 4.1 §12.5), as MPICH 5.0.2
and Open MPI 5.0.11 report it (docs/guide/facts-rma.md: both libraries agree on every case
below but the three marked, where one of them does not check)."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms


def put(mpi, win):
    return mpi.put(np.ones(1), target=1 - mpi.rank, win=win)


CASES = {
    # name: (calls before the faulty one, the faulty one)
    "put outside any epoch": ([], put),
    "get outside any epoch": ([], lambda mpi, w: mpi.get(np.ones(1), target=0, win=w)),
    "accumulate outside any epoch": ([], lambda mpi, w: mpi.accumulate(np.ones(1), target=0,
                                                                       win=w)),
    "unlock without lock": ([], lambda mpi, w: mpi.win_unlock(0, win=w)),
    "flush without lock": ([], lambda mpi, w: mpi.win_flush(0, win=w)),
    "complete without start (Open MPI: no error)": ([], lambda mpi, w: mpi.win_complete(w)),
    "wait without post": ([], lambda mpi, w: mpi.win_wait(w)),
    "lock the same target twice (Open MPI: hangs)": (
        [lambda mpi, w: mpi.win_lock(mpi.rank, win=w)],
        lambda mpi, w: mpi.win_lock(mpi.rank, win=w)),
    "lock after fence and put": ([lambda mpi, w: mpi.win_fence(win=w), put],
                                 lambda mpi, w: mpi.win_lock(0, win=w)),
    "put after fence, lock, unlock": ([lambda mpi, w: mpi.win_fence(win=w),
                                       lambda mpi, w: mpi.win_lock(0, win=w),
                                       lambda mpi, w: mpi.win_unlock(0, win=w)], put),
    "start inside a lock epoch": ([lambda mpi, w: mpi.win_lock(mpi.rank, win=w)],
                                  lambda mpi, w: mpi.win_start([0], win=w)),
    "put after fence(NOSUCCEED)": ([lambda mpi, w: mpi.win_fence(win=w),
                                    lambda mpi, w: mpi.win_fence(ms.MODE_NOSUCCEED, win=w)],
                                   put),
    "lock inside lock_all": ([lambda mpi, w: mpi.win_lock_all(win=w)],
                             lambda mpi, w: mpi.win_lock(0, win=w)),
    "flush in a fence epoch": ([lambda mpi, w: mpi.win_fence(win=w)],
                               lambda mpi, w: mpi.win_flush(0, win=w)),
    "free inside a lock epoch (Open MPI: no error)": (
        [lambda mpi, w: mpi.win_lock(mpi.rank, win=w)], lambda mpi, w: mpi.win_free(w)),
}


@pytest.mark.parametrize("name", CASES)
def test_a_call_out_of_place_is_rma_sync(name):
    before, faulty = CASES[name]

    def program(mpi):
        win = yield mpi.win_allocate(16, disp_unit=8)
        for call in before:
            yield call(mpi, win)
        try:
            yield faulty(mpi, win)
        except ms.ErrRmaSync as e:
            return e.error_class
        return "ok"

    result = ms.run(program, ranks=2, until="1s")
    assert result.returned == ["MPI_ERR_RMA_SYNC"] * 2, result.report()


def test_a_lock_after_a_fence_without_operations_ends_the_fence_epoch():
    """Both libraries accept Lock after a fence no operation followed."""
    def program(mpi):
        win = yield mpi.win_allocate(16, disp_unit=8)
        yield mpi.win_fence(win=win)
        yield mpi.win_lock(1 - mpi.rank, win=win)
        yield mpi.put(np.ones(1), target=1 - mpi.rank, win=win)
        yield mpi.win_unlock(1 - mpi.rank, win=win)
        yield mpi.win_free(win)
        return "ok"

    assert ms.run(program, ranks=2).returned == ["ok", "ok"]


def test_an_operation_to_a_target_outside_the_start_group_is_rma_sync():
    def program(mpi):
        win = yield mpi.win_allocate(16, disp_unit=8)
        if mpi.rank == 0:
            yield mpi.win_start([1], win=win)
            try:
                yield mpi.put(np.ones(1), target=2, win=win)
            except ms.ErrRmaSync:
                return "sync"
        elif mpi.rank == 1:
            yield mpi.win_post([0], win=win)
        return None

    assert ms.run(program, ranks=3, until="1s").returned[0] == "sync"


def test_assertions_are_accepted_and_unknown_bits_refused():
    """§12.5.5: any combination of MPI_MODE_* (the hints change nothing here); another
    bit is MPI_ERR_ASSERT."""
    def program(mpi):
        win = yield mpi.win_allocate(16, disp_unit=8)
        yield mpi.win_fence(ms.MODE_NOPRECEDE | ms.MODE_NOSTORE | ms.MODE_NOPUT, win=win)
        yield mpi.win_fence(ms.MODE_NOSUCCEED, win=win)
        try:
            yield mpi.win_fence(1, win=win)
        except ms.ErrAssert as e:
            return e.error_class

    assert ms.run(program, ranks=2).returned == ["MPI_ERR_ASSERT"] * 2


def test_a_lock_type_must_be_exclusive_or_shared():
    def program(mpi):
        win = yield mpi.win_allocate(16)
        try:
            yield mpi.win_lock(0, 7, win=win)
        except ms.ErrLocktype as e:
            return e.error_class

    assert ms.run(program, ranks=1).returned == ["MPI_ERR_LOCKTYPE"]
