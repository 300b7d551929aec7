"""Invariants of one-sided communication, for any program hypothesis draws.

- Accumulates commute (MPI 4.1 §12.7: concurrent accumulates with one op act as if in some
  order, atomically per element): SUM accumulates made by any ranks, in any order, at any
  times, to any elements, leave the window holding the sum of what was added.
- Exclusive locks exclude: with any delays, no two origins ever hold one exclusive lock at
  the same time (§12.5.3).
- A fence completes everything (§12.5.1): after it, every rank reads what was put to it.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms

SIZE = 6
accumulate_ops = st.lists(
    st.tuples(st.integers(0, 2),                     # origin
              st.integers(0, 2),                     # target
              st.integers(0, SIZE - 1),              # element
              st.integers(-5, 5),                    # value
              st.floats(0, 5e-6)),                   # delay before it
    max_size=12)


@given(accumulate_ops, st.sampled_from(["fence", "lock_all", "lock"]))
def test_sum_accumulates_commute(ops, sync):
    def program(mpi):
        win = yield mpi.win_allocate(SIZE * 8, disp_unit=8)
        if sync == "fence":
            yield mpi.win_fence(win=win)
        elif sync == "lock_all":
            yield mpi.win_lock_all(win=win)
        for origin, target, element, value, delay in ops:
            if origin != mpi.rank:
                continue
            yield mpi.compute(delay)
            if sync == "lock":
                yield mpi.win_lock(target, ms.LOCK_SHARED, win=win)
            yield mpi.accumulate(np.array([value], dtype=np.int64), target=target,
                                 target_disp=element, win=win)
            if sync == "lock":
                yield mpi.win_unlock(target, win=win)
        if sync == "fence":
            yield mpi.win_fence(win=win)
        elif sync == "lock_all":
            yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        memory = win.memory.view(np.int64).copy()
        yield mpi.win_free(win)
        return memory.tolist()

    result = ms.run(program, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    expected = np.zeros((3, SIZE), dtype=np.int64)
    for _, target, element, value, _ in ops:
        expected[target, element] += value
    assert result.returned == expected.tolist()
    assert not [w for w in result.warnings if "conflicting" in w]


@given(st.lists(st.floats(0, 10e-6), min_size=3, max_size=3),
       st.lists(st.floats(0, 10e-6), min_size=3, max_size=3))
def test_no_two_origins_hold_an_exclusive_lock_together(before, held):
    def program(mpi):
        win = yield mpi.win_allocate(8)
        if mpi.rank == 3:
            return None
        yield mpi.compute(before[mpi.rank])
        yield mpi.win_lock(3, ms.LOCK_EXCLUSIVE, win=win)
        start = mpi.now
        yield mpi.compute(held[mpi.rank])
        end = mpi.now
        yield mpi.win_unlock(3, win=win)
        return start, end

    result = ms.run(program, ranks=4)
    spans = sorted(result.returned[:3])
    assert all(a[1] <= b[0] for a, b in pairwise(spans))


@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(1, 64))
def test_after_a_fence_every_target_holds_what_was_put(targets, nbytes):
    def program(mpi):
        win = yield mpi.win_allocate(8 * 8, disp_unit=8)
        yield mpi.win_fence(win=win)
        for slot, target in enumerate(targets):
            if slot % 4 == mpi.rank:
                yield mpi.put(np.full(1, slot + 1.0), target=target, target_disp=slot,
                              win=win)
        yield mpi.win_fence(win=win)
        memory = win.memory.view(np.float64).copy()
        yield mpi.win_free(win)
        return memory.tolist()

    result = ms.run(program, ranks=4, network={"bandwidth": nbytes * 1e8})
    for rank, memory in enumerate(result.returned):
        expected = [slot + 1.0 if slot < len(targets) and targets[slot] == rank else 0.0
                    for slot in range(8)]
        assert memory == expected
