"""A rank's list of issued requests (mpisim.handle.lifecycle): what MPI_Finalize checks
(§3.7.3: a nonblocking operation's request must be completed or freed) needs every request
still active, and nothing more; completed ones are dropped as the list grows, so a long run's
memory does not grow with the requests it completed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.handle.lifecycle import COMPACT_AT, Lifecycle
from mpisim.mpi.findings import Findings
from mpisim.p2p.requests import Request


def _request(n: int) -> Request:
    return Request("send", "MPI_Isend", 0, 1, n, 8)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 10)), max_size=600))
def test_3_7_3_the_list_keeps_every_active_request_and_is_bounded_by_them(steps):
    """Each step issues a request and then completes up to k of the oldest active ones (or
    none): the list holds every active request, in issue order, and at most
    max(COMPACT_AT, 2 x active) + 1 entries."""
    life = Lifecycle(0, Findings())
    active: list[Request] = []
    for n, (complete, k) in enumerate(steps):
        req = _request(n)
        life.issued(req, None)
        active.append(req)
        if complete:
            for done in active[:k]:
                done.active = False
            del active[:k]
        kept = list(life.requests)
        assert [r for r in kept if r.active] == active
        assert len(kept) <= max(COMPACT_AT, 2 * len(active)) + 1


def test_3_7_3_ten_thousand_completed_requests_are_not_kept():
    """A rank that completes each request before issuing the next keeps at most COMPACT_AT."""
    life = Lifecycle(0, Findings())
    for n in range(10_000):
        req = _request(n)
        life.issued(req, None)
        req.active = False
        assert len(life.requests) <= COMPACT_AT + 1


def test_3_7_3_a_request_left_active_among_many_completed_is_found_at_finalize():
    """The one irecv never waited for, issued before 500 completed exchanges (the list
    compacted many times over), is still reported at MPI_Finalize."""
    def program(mpi):
        other = 1 - mpi.rank
        if mpi.rank == 1:
            yield mpi.irecv(count=1, source=0, tag=99)  # never completed
        for _ in range(500):
            send = yield mpi.isend(count=1, dest=other, tag=1)
            recv = yield mpi.irecv(count=1, source=other, tag=1)
            yield mpi.waitall([send, recv])

    result = ms.run(program, ranks=2)
    left = [f for f in result.findings if f.rule == "request-not-completed"]
    assert len(left) == 1 and "rank 1's MPI_Irecv" in left[0].message, result.report()
    assert "tag 99" in left[0].message
