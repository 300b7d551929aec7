"""The handle's nonblocking forms that no other test names, each held to its blocking form:
MPI 4.1 §6.12 ("the nonblocking variants ... have the same semantics ... except for the
completion"), §3.7.2 (issend, irsend), §3.9 (the persistent modes) and §7.4.2 (comm_idup)."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms

P = 4


def run(program, ranks=P):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def call(mpi, name, nonblocking, *args, **kwargs):
    """The blocking call's value, or the nonblocking one's request's result after its
    wait: what each form gives the program."""
    if not nonblocking:
        return (yield getattr(mpi, name)(*args, **kwargs))
    request = yield getattr(mpi, NONBLOCKING[name])(*args, **kwargs)
    yield mpi.wait(request)
    return request.result


def _ints(values):
    return np.asarray(values, dtype="i")


def _counts():
    return [1, 2, 3, 4], [0, 1, 3, 6]  # rank k's block: k + 1 ints at k(k+1)/2


CASES = {
    # name: (mpi, rank) -> (args, kwargs, the buffer the call fills, or None)
    "barrier": lambda r: ((), {}, None),
    "bcast": lambda r: (("x" if r == 0 else None,), {}, None),
    "reduce": lambda r: ((r + 1,), {"root": 0}, None),
    "allreduce": lambda r: ((r + 1,), {}, None),
    "scan": lambda r: ((r + 1,), {}, None),
    "exscan": lambda r: ((r + 1,), {}, None),
    "gather": lambda r: ((r * 10,), {"root": 1}, None),
    "allgather": lambda r: ((r * 10,), {}, None),
    "scatter": lambda r: (([100 + k for k in range(P)] if r == 0 else None,), {}, None),
    "alltoall": lambda r: (([10 * r + k for k in range(P)],), {}, None),
    "reduce_scatter_block": lambda r: ((np.arange(2 * P) + r,), {}, None),
    "gatherv": lambda r: ((_ints([r] * (r + 1)),), {
        "datatype": ms.INT, "root": 0,
        **({"recvbuf": np.zeros(10, "i"), "recvcounts": _counts()[0], "displs": _counts()[1]}
           if r == 0 else {})}, "recvbuf"),
    "allgatherv": lambda r: ((_ints([r] * (r + 1)),), {
        "datatype": ms.INT, "recvbuf": np.zeros(10, "i"), "recvcounts": _counts()[0],
        "displs": _counts()[1]}, "recvbuf"),
    "scatterv": lambda r: ((np.arange(10, dtype="i") if r == 0 else None,), {
        "datatype": ms.INT, "recvbuf": np.zeros(r + 1, "i"), "count": r + 1,
        **({"sendcounts": _counts()[0], "displs": _counts()[1]} if r == 0 else {})},
        "recvbuf"),
    "alltoallv": lambda r: ((_ints([10 * r + k for k in range(P)]),), {
        "datatype": ms.INT, "recvbuf": np.zeros(P, "i"), "sendcounts": [1] * P,
        "sdispls": list(range(P)), "recvcounts": [1] * P, "rdispls": list(range(P))},
        "recvbuf"),
    "alltoallw": lambda r: ((_ints([10 * r + k for k in range(P)]), [1] * P,
                             [4 * k for k in range(P)], [ms.INT] * P), {
        "recvbuf": np.zeros(P, "i"), "recvcounts": [1] * P,
        "rdispls": [4 * k for k in range(P)], "recvtypes": [ms.INT] * P}, "recvbuf"),
    "reduce_scatter": lambda r: ((np.arange(10, dtype="i") * (r + 1), _counts()[0]), {},
                                 None),
}
"""Each collective's arguments per rank; the nonblocking form takes the same."""

NONBLOCKING = {
    "barrier": "ibarrier", "bcast": "ibcast", "reduce": "ireduce", "allreduce": "iallreduce",
    "scan": "iscan", "exscan": "iexscan", "gather": "igather", "allgather": "iallgather",
    "scatter": "iscatter", "alltoall": "ialltoall",
    "reduce_scatter_block": "ireduce_scatter_block", "gatherv": "igatherv",
    "allgatherv": "iallgatherv", "scatterv": "iscatterv", "alltoallv": "ialltoallv",
    "alltoallw": "ialltoallw", "reduce_scatter": "ireduce_scatter",
}
"""Each blocking collective's nonblocking form (§6.12), named in full."""

EXPECTED_AT_RANK_1 = {
    "barrier": None, "bcast": "x", "reduce": None, "allreduce": 10, "scan": 3, "exscan": 1,
    "gather": [0, 10, 20, 30], "allgather": [0, 10, 20, 30], "scatter": 101,
    "alltoall": [1, 11, 21, 31],
}
"""What rank 1 gets, by hand (§6.3-§6.11), for the cases whose value is a Python object."""


@pytest.mark.parametrize("name", CASES)
def test_a_nonblocking_collective_gives_what_its_blocking_form_gives_6_12(name):
    def program(mpi, nonblocking):
        args, kwargs, filled = CASES[name](mpi.rank)
        value = yield from call(mpi, name, nonblocking, *args, **kwargs)
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if filled is not None and filled in kwargs:
            value = kwargs[filled].tolist()
        return value

    blocking = run(lambda mpi: program(mpi, False))
    nonblocking = run(lambda mpi: program(mpi, True))
    assert nonblocking == blocking
    if name in EXPECTED_AT_RANK_1:
        assert blocking[1] == EXPECTED_AT_RANK_1[name]
    if name == "gatherv":
        assert blocking[0] == [0, 1, 1, 2, 2, 2, 3, 3, 3, 3]
    if name in ("alltoallv", "alltoallw"):
        assert blocking[2] == [2, 12, 22, 32]


def test_issend_completes_only_after_the_match_and_irsend_needs_the_receive_posted_3_7_2():
    def program(mpi):
        if mpi.rank == 0:
            req = yield mpi.issend(count=1, datatype=ms.INT, dest=1, tag=1)
            early, _ = yield mpi.test(req)  # the receive is not posted yet: not complete
            yield mpi.wait(req)
            yield mpi.barrier()
            req = yield mpi.irsend(count=1, datatype=ms.INT, dest=1, tag=2)
            yield mpi.wait(req)
            return early
        yield mpi.compute(1e-3)
        yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=1)
        posted = yield mpi.irecv(count=1, datatype=ms.INT, source=0, tag=2)
        yield mpi.barrier()  # posted before the ready send starts: the program is correct
        status = yield mpi.wait(posted)
        return status.tag

    assert run(program, 2) == [False, 2]


def test_ssend_and_rsend_persistent_requests_send_once_per_start_3_9():
    def program(mpi):
        if mpi.rank == 0:
            ssend = yield mpi.ssend_init(count=1, datatype=ms.INT, dest=1, tag=3)
            rsend = yield mpi.rsend_init(count=1, datatype=ms.INT, dest=1, tag=4)
            for _ in range(2):
                yield mpi.barrier()  # rank 1 has posted both receives
                yield mpi.startall([ssend, rsend])
                yield mpi.waitall([ssend, rsend])
            yield mpi.request_free(ssend)
            yield mpi.request_free(rsend)
            return None
        tags = []
        for _ in range(2):
            a = yield mpi.irecv(count=1, datatype=ms.INT, source=0, tag=3)
            b = yield mpi.irecv(count=1, datatype=ms.INT, source=0, tag=4)
            yield mpi.barrier()
            statuses = yield mpi.waitall([a, b])
            tags += [s.tag for s in statuses]
        return tags

    result = ms.run(program, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.returned[1] == [3, 4, 3, 4]
    tags = result.trace.messages["tag"].tolist()  # (the barriers' messages too)
    assert tags.count(3) == 2 and tags.count(4) == 2  # one message per start


def test_comm_idup_gives_a_new_communicator_when_every_member_has_started_it_7_4_2():
    def program(mpi):
        yield mpi.compute((mpi.rank + 1) * 1e-6)  # they start it at different times
        req = yield mpi.comm_idup()
        info = mpi.info_create()
        mpi.info_set(info, "mpi_assert_no_any_tag", "true")
        req2 = yield mpi.comm_idup_with_info(info)
        yield mpi.waitall([req, req2])
        mpi.info_free(info)  # (mpisim refuses an info freed while the idup is pending)
        dup, dup2 = req.result, req2.result
        total = yield mpi.allreduce(mpi.rank, comm=dup)
        hints = mpi.comm_get_info(dup2)
        return (mpi.comm_size(dup), total, dup is not mpi.comm_world,
                mpi.info_get(hints, "mpi_assert_no_any_tag"))

    assert run(program, 3) == [(3, 3, True, "true")] * 3
