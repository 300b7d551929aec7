"""One-sided communication on the network model (MPI 4.1 §12.5), one rule per test, each
time computed by hand from latency L and bandwidth B (standard profile: every request is
served when it arrives, a lock is asked at MPI_Win_lock).

A window over ``n`` ranks is made after ``ceil(log2 n)`` latencies (the allgather of bases
and sizes); an operation's bytes leave the origin's port in ``bytes / B`` and arrive ``L``
later, a control message (a get's request, a lock request or grant, an acknowledgement, a
post or complete notice) takes ``L``.
"""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms

L, B = 1e-6, 1e10  # 1 us, 10 GB/s
N = 80_000         # bytes of the operations below: N / B = 8 us
NET = {"latency": L, "bandwidth": B}


def run(program, ranks=2, **mpi):
    result = ms.run(program, ranks=ranks, network=NET, mpi=mpi or None)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result


def test_a_window_is_made_after_an_allgather_of_the_members():
    """§12.2: creation is collective; the members exchange base, size and unit:
    ceil(log2 p) rounds of latency (as a communicator's creation)."""
    def program(mpi):
        yield mpi.win_allocate(64)
        return mpi.now

    assert run(program, 2).returned == [pytest.approx(L)] * 2
    assert run(program, 4).returned == [pytest.approx(2 * L)] * 4


def test_an_empty_fence_is_one_barrier():
    """§12.5.1: a fence with nothing to complete is a barrier over the window: two ranks,
    one round of the dissemination barrier (L)."""
    def program(mpi):
        win = yield mpi.win_allocate(64)
        start = mpi.now
        yield mpi.win_fence(win=win)
        return mpi.now - start

    assert run(program, 2).returned == [pytest.approx(L)] * 2
    assert run(program, 4).returned == [pytest.approx(2 * L)] * 4


def test_a_fence_completes_a_put_at_its_target():
    """§12.5.1: the origin's fence waits for its bytes to leave (N/B), then the barrier;
    the target's returns when the put has arrived (N/B + L) and is in its memory."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        yield mpi.win_fence(win=win)
        start = mpi.now
        if mpi.rank == 0:
            yield mpi.put(count=N, datatype=ms.BYTE, target=1, win=win)
        yield mpi.win_fence(win=win)
        return mpi.now - start

    assert run(program).returned == [pytest.approx(N / B), pytest.approx(N / B + L)]


def test_a_get_is_a_request_and_the_targets_answer():
    """§12.3.2: the request reaches the target (L), whose port sends the data back
    (N/B + L): the origin's fence waits for them before its barrier."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        yield mpi.win_fence(win=win)
        start = mpi.now
        if mpi.rank == 0:
            yield mpi.get(count=N, datatype=ms.BYTE, target=1, win=win)
        yield mpi.win_fence(win=win)
        return mpi.now - start

    got = run(program).returned
    assert got[0] == pytest.approx(2 * L + N / B)        # answer back, then 1's barrier
    assert got[1] == pytest.approx(2 * L + N / B + L)    # 0's barrier message after that


def test_start_waits_for_the_post_and_complete_for_the_acknowledgement():
    """§12.5.2: the post notice reaches the origin after L (its start returns then); the
    put arrives L + N/B later and is acknowledged (L): complete returns; its notice
    reaches the target (L), whose wait returns."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        start = mpi.now
        if mpi.rank == 0:
            yield mpi.win_start([1], win=win)
            started = mpi.now - start
            yield mpi.put(count=N, datatype=ms.BYTE, target=1, win=win)
            yield mpi.win_complete(win)
            return started, mpi.now - start
        yield mpi.win_post([0], win=win)
        posted = mpi.now - start
        yield mpi.win_wait(win)
        return posted, mpi.now - start

    origin, target = run(program).returned
    assert origin == (pytest.approx(L), pytest.approx(3 * L + N / B))
    assert target == (pytest.approx(0), pytest.approx(4 * L + N / B))


def test_a_start_made_before_the_post_waits_for_it():
    """§12.5.2: MPI_Win_start waits for the matching post (MPICH 5.0.2 and Open MPI 5.0.11
    block there too)."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        if mpi.rank == 0:
            start = mpi.now
            yield mpi.win_start([1], win=win)
            yield mpi.win_complete(win)
            return mpi.now - start
        yield mpi.compute(50e-6)
        yield mpi.win_post([0], win=win)
        yield mpi.win_wait(win)
        return None

    assert run(program).returned[0] == pytest.approx(50e-6 + L)


def test_an_eager_lock_is_a_round_trip_and_unlock_waits_for_the_acknowledgement():
    """§12.5.3 (rma_lock eager): the request reaches the target (L), the grant comes back
    (L); a put then arrives after N/B + L and its acknowledgement after L more."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        if mpi.rank == 0:
            start = mpi.now
            yield mpi.win_lock(1, win=win)
            locked = mpi.now - start
            yield mpi.put(count=N, datatype=ms.BYTE, target=1, win=win)
            yield mpi.win_unlock(1, win=win)
            return locked, mpi.now - start
        return None

    assert run(program).returned[0] == (pytest.approx(2 * L), pytest.approx(4 * L + N / B))


def test_flush_local_waits_for_the_bytes_to_leave_flush_for_the_acknowledgement():
    """§12.5.4: locally complete once the bytes have left (N/B); remotely once the target's
    acknowledgement is back (N/B + 2L)."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        if mpi.rank == 1:
            return None
        yield mpi.win_lock(1, win=win)
        start = mpi.now
        yield mpi.put(count=N, datatype=ms.BYTE, target=1, win=win)
        yield mpi.win_flush_local(1, win=win)
        local = mpi.now - start
        yield mpi.win_flush(1, win=win)
        remote = mpi.now - start
        yield mpi.win_unlock(1, win=win)
        return local, remote

    assert run(program).returned[0] == (pytest.approx(N / B), pytest.approx(N / B + 2 * L))


def test_an_exclusive_lock_waits_for_the_holders_release():
    """§12.5.3: ranks 1 and 2 ask for rank 0's exclusive lock at once; rank 1's request is
    first: it holds the lock at 2L and unlocks at once; the release reaches rank 0 at 3L,
    which grants rank 2's queued request; the grant reaches rank 2 at 4L."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        start = mpi.now
        if mpi.rank != 0:
            yield mpi.win_lock(0, ms.LOCK_EXCLUSIVE, win=win)
            locked = mpi.now - start
            yield mpi.win_unlock(0, win=win)
            return locked
        return None

    got = run(program, 4).returned
    assert got[1] == pytest.approx(2 * L)
    assert got[2] == pytest.approx(4 * L)
    assert got[3] == pytest.approx(6 * L)


def test_shared_locks_are_held_together():
    """§12.5.3: MPI_LOCK_SHARED requests are granted together: each a round trip."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        start = mpi.now
        if mpi.rank != 0:
            yield mpi.win_lock(0, ms.LOCK_SHARED, win=win)
            locked = mpi.now - start
            yield mpi.win_unlock(0, win=win)
            return locked
        return None

    assert run(program, 4).returned[1:] == [pytest.approx(2 * L)] * 3


def test_a_lazy_lock_asks_with_the_first_operation():
    """rma_lock lazy (Open MPI 5.0.11): the lock call returns at once; the put asks for the
    lock and leaves with the grant (2L), arrives N/B + L later, is acknowledged (L)."""
    def program(mpi):
        win = yield mpi.win_allocate(N)
        if mpi.rank == 1:
            return None
        start = mpi.now
        yield mpi.win_lock(1, win=win)
        locked = mpi.now - start
        yield mpi.put(count=N, datatype=ms.BYTE, target=1, win=win)
        put = mpi.now - start
        yield mpi.win_unlock(1, win=win)
        return locked, put, mpi.now - start

    got = run(program, rma_lock="lazy").returned[0]
    assert got == (pytest.approx(0), pytest.approx(0), pytest.approx(4 * L + N / B))


def test_a_lazy_epoch_without_operations_asks_nothing():
    """Open MPI 5.0.11: lock then unlock with no operation both return at once."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        if mpi.rank == 0:
            start = mpi.now
            yield mpi.win_lock(1, win=win)
            yield mpi.win_unlock(1, win=win)
            return mpi.now - start
        return None

    assert run(program, rma_lock="lazy").returned[0] == pytest.approx(0)


def test_an_accumulate_of_a_lazy_epoch_returns_with_the_grant():
    """Open MPI 5.0.11: the epoch's first accumulate waits for the lock (2L); a put does
    not."""
    def program(mpi):
        win = yield mpi.win_allocate(8)
        if mpi.rank == 1:
            return None
        yield mpi.win_lock(1, win=win)
        start = mpi.now
        yield mpi.accumulate(count=1, datatype=ms.DOUBLE, target=1, win=win)
        waited = mpi.now - start
        yield mpi.win_unlock(1, win=win)
        return waited

    assert run(program, rma_lock="lazy").returned[0] == pytest.approx(2 * L)


SLEEP = 100e-6


def sleeping_target(mpi, flavor="create", assertion=0):
    """Rank 1 computes SLEEP outside MPI; rank 0 locks it, puts 8 bytes, unlocks."""
    win = yield (mpi.win_create(None if mpi.rank == 0 else np.zeros(1))
                 if flavor == "create" else mpi.win_allocate(8))
    yield mpi.barrier()
    start = mpi.now
    if mpi.rank == 1:
        yield mpi.compute(SLEEP)
        yield mpi.barrier()
        return None
    yield mpi.win_lock(1, assertion=assertion, win=win)
    locked = mpi.now - start
    yield mpi.put(count=1, datatype=ms.DOUBLE, target=1, win=win)
    yield mpi.win_unlock(1, win=win)
    unlocked = mpi.now - start
    yield mpi.barrier()
    return locked, unlocked


@pytest.mark.parametrize("flavor", ["create", "allocate"])
def test_with_rma_lock_progress_the_lock_waits_for_the_targets_next_mpi_call(flavor):
    """mpich-5.0 (measured): the target grants only inside MPI, whatever the window: the
    request waits for the end of its computation, the grant comes back L later."""
    r = ms.run(sleeping_target, ranks=2, network=NET, params={"flavor": flavor},
               mpi={"profile": "standard", "rma_lock_progress": True})
    locked, _ = r.returned[0]
    assert locked == pytest.approx(SLEEP + L)


@pytest.mark.parametrize("flavor, waits", [("create", True), ("allocate", False)])
def test_rma_progress_created_holds_a_created_windows_operations(flavor, waits):
    """rma_progress created (MPICH 5.0.2, Open MPI 5.0.11, measured): with MODE_NOCHECK the
    lock asks nothing; the put to a created window is applied when the target enters MPI
    again (its acknowledgement L later), to an allocated one when it arrives."""
    r = ms.run(sleeping_target, ranks=2, network=NET,
               params={"flavor": flavor, "assertion": ms.MODE_NOCHECK},
               mpi={"rma_progress": "created"})
    locked, unlocked = r.returned[0]
    assert locked == pytest.approx(0)
    assert unlocked == pytest.approx(SLEEP + L if waits else 2 * L + 8 / B)


def test_the_ideal_target_serves_while_it_computes():
    """The standard profile: the lock is a round trip, the put's acknowledgement follows
    its arrival, whatever the target does."""
    r = ms.run(sleeping_target, ranks=2, network=NET)
    assert r.returned[0] == (pytest.approx(2 * L), pytest.approx(4 * L + 8 / B))
