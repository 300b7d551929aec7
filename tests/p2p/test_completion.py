"""Nonblocking calls and their completion (MPI 3.7): wait/test families, probe, barrier."""

from __future__ import annotations

import pytest

import mpisim as ms

NET = {"latency": 1e-6, "bandwidth": 1e10, "eager_limit": 4096}


def test_wait_returns_the_status_and_makes_the_request_inactive():
    """3.7.3: after MPI_Wait the request is MPI_REQUEST_NULL; waiting again returns at once."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.compute("5us")
            yield mpi.send(count=8, dest=1, tag=2)
        else:
            req = yield mpi.irecv(count=8, source=0, tag=2)
            st = yield mpi.wait(req)
            t = mpi.now
            again = yield mpi.wait(req)
            return st.source, st.tag, st.count, t, again.count, mpi.now

    src, tag, count, t, again, t2 = ms.run(prog, ranks=2, network=NET).returned[1]
    assert (src, tag, count, again) == (0, 2, 8, 0)
    assert t == pytest.approx(5e-6 + 1e-6 + 8 / 1e10) and t2 == t


def test_test_reports_false_until_completion_and_polling_advances_time():
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.compute("3us")
            yield mpi.send(count=1, dest=1)
        else:
            req = yield mpi.irecv(count=1, source=0)
            polls = 0
            while True:
                flag, st = yield mpi.test(req)
                if flag:
                    return polls, st.source, mpi.now
                polls += 1

    polls, src, t = ms.run(prog, ranks=2, network=NET).returned[1]
    assert src == 0 and polls > 10 and t >= 4e-6


def test_waitany_returns_the_first_completed_request():
    def prog(mpi):
        if mpi.rank == 0:
            reqs = []
            for src in (1, 2):
                reqs.append((yield mpi.irecv(count=4, source=src)))
            i, st = yield mpi.waitany(reqs)
            j, st2 = yield mpi.waitany(reqs)
            k, _ = yield mpi.waitany(reqs)
            return i, st.source, j, st2.source, k
        yield mpi.compute("20us" if mpi.rank == 1 else "1us")
        yield mpi.send(count=4, dest=0)

    assert ms.run(prog, ranks=3, network=NET).returned[0] == (1, 2, 0, 1, ms.UNDEFINED)


def test_waitsome_and_testall():
    def prog(mpi):
        if mpi.rank == 0:
            reqs = []
            for src in (1, 2, 3):
                reqs.append((yield mpi.irecv(count=4, source=src)))
            flag, _ = yield mpi.testall(reqs)
            idx, sts = yield mpi.waitsome(reqs)
            rest = yield mpi.waitall(reqs)
            return flag, idx, [s.source for s in sts], len(rest)
        yield mpi.compute("1us" if mpi.rank < 3 else "9us")
        yield mpi.send(count=4, dest=0)

    flag, idx, sources, n = ms.run(prog, ranks=4, network=NET).returned[0]
    assert flag is False and idx == [0, 1] and sources == [1, 2] and n == 3


def test_request_free_lets_the_send_complete():
    def prog(mpi):
        if mpi.rank == 0:
            req = yield mpi.isend(count=8, dest=1)
            yield mpi.request_free(req)
        else:
            st = yield mpi.recv(count=8, source=0)
            return st.count

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED and r.returned[1] == 8


def test_probe_sees_a_message_without_receiving_it():
    """3.8.1: probe returns the envelope of a message that a receive would then match."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=12, dest=1, tag=9)
        else:
            flag, _ = yield mpi.iprobe(source=0)
            st = yield mpi.probe(source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
            flag2, st2 = yield mpi.iprobe(source=0, tag=9)
            got = yield mpi.recv(count=st.count, source=st.source, tag=st.tag)
            return flag, st.count, st.tag, flag2, st2.count, got.count

    assert ms.run(prog, ranks=2, network=NET).returned[1] == (False, 12, 9, True, 12, 12)


@pytest.mark.parametrize("ranks, rounds", [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3),
                                           (9, 4)])
def test_barrier_is_a_dissemination_of_ceil_log2_p_latency_rounds(ranks, rounds):
    """6.3 MPI_Barrier, built from 0-byte messages: ranks entering together leave after
    ceil(log2 p) rounds of one latency."""
    def prog(mpi):
        yield mpi.barrier()
        return mpi.now

    assert ms.run(prog, ranks=ranks, network=NET).returned == [pytest.approx(rounds * 1e-6)] * ranks


def test_no_rank_leaves_a_barrier_before_the_last_one_entered():
    """6.3: a barrier blocks until every member has entered it. Entering at 0, 1, 2, 3 us,
    the dissemination rounds (hand-computed) let rank 3 leave at once, having heard of all,
    and the others when the news reaches them."""
    def prog(mpi):
        yield mpi.compute(f"{mpi.rank}us")
        yield mpi.barrier()
        return mpi.now

    r = ms.run(prog, ranks=4, network=NET)
    assert r.returned == [pytest.approx(t * 1e-6) for t in (4, 4, 5, 3)]
    assert min(r.returned) >= 3e-6


def test_barrier_missing_rank_is_a_deadlock_naming_it():
    def prog(mpi):
        if mpi.rank != 2:
            yield mpi.barrier()
        else:
            yield mpi.recv(count=1, source=0)

    r = ms.run(prog, ranks=3, network=NET)
    assert r.outcome is ms.Outcome.DEADLOCK
    by_rank = {b.rank: b for b in r.deadlock.blocked}
    assert by_rank[0].call == "MPI_Barrier" and by_rank[0].waits_for == [2]
    assert by_rank[2].waits_for == [0]
    assert [0, 2] in r.deadlock.cycles


def test_any_source_deadlock_is_reported_as_a_knot():
    """OR waits: three ranks each receiving from ANY_SOURCE, nobody sending, form a knot."""
    def prog(mpi):
        yield mpi.recv(count=1, source=ms.ANY_SOURCE)

    r = ms.run(prog, ranks=3, network=NET)
    assert r.outcome is ms.Outcome.DEADLOCK
    assert all(b.waits_for == [x for x in range(3) if x != b.rank] for b in r.deadlock.blocked)
    assert r.deadlock.knots == [[0, 1, 2]] and "knot: ranks 0, 1, 2" in r.report()
    assert r.to_dict()["deadlock"]["knots"] == [[0, 1, 2]]


def test_a_receiver_woken_by_its_message_runs_before_the_other_events_of_that_instant():
    """The event order at one instant (mpisim.engine.clock, ``Clock.then``): a blocking
    receive completed by an arrival resumes its rank right after that arrival, before the
    arrivals queued for the same instant after it. Rank 0's message from rank 1 and rank
    2's reach it at the same time, rank 1's first: its probe for rank 2's finds nothing yet
    (MPI allows either answer for messages that arrive together), and polls again later."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.recv(count=8, source=1, tag=0)
            t = mpi.now
            flag, _ = yield mpi.iprobe(source=2, tag=0)
            yield mpi.recv(count=8, source=2, tag=0)
            return t, flag, mpi.now
        yield mpi.send(count=8, dest=0, tag=0)

    t, flag, end = ms.run(prog, ranks=3, network=NET).returned[0]
    assert t == pytest.approx(1e-6 + 8 / 1e10)
    assert flag is False and end == pytest.approx(t + 100e-9)  # a failed poll's POLL_TIME
