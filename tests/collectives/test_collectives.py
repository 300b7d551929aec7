"""Collectives (MPI 4.1 §6) built from point-to-point messages: every algorithm gives
numpy's answer on communicators of 1 to 17 processes, and costs its closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mpisim as ms
from mpisim.collectives import ALGORITHMS

SIZES = range(1, 18)
NET = {"latency": "1us", "bandwidth": "1 GB/s", "eager_limit": "64 KiB"}


def _data(rank, n=6):
    return np.arange(n, dtype=np.int64) * (rank + 1) + rank


def _run(prog, ranks, **kw):
    r = ms.run(prog, ranks=ranks, network=NET, **kw)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    return r


@pytest.mark.parametrize("alg", list(ALGORITHMS["allreduce"]))
@pytest.mark.parametrize("p", SIZES)
def test_6_9_allreduce_equals_numpy_for_every_algorithm(alg, p):
    """6.9.6 MPI_Allreduce: every rank gets the elementwise reduction of every input."""
    def prog(mpi):
        total = yield mpi.allreduce(_data(mpi.rank), op=ms.SUM, algorithm=alg)
        largest = yield mpi.allreduce(_data(mpi.rank), op=ms.MAX, algorithm=alg)
        return total, largest

    r = _run(prog, p)
    inputs = np.array([_data(k) for k in range(p)])
    for total, largest in r.returned:
        assert (total == inputs.sum(axis=0)).all() and (largest == inputs.max(axis=0)).all()


@pytest.mark.parametrize("alg", list(ALGORITHMS["reduce"]))
@pytest.mark.parametrize("p", SIZES)
def test_6_9_reduce_gives_the_root_numpys_reduction(alg, p):
    """6.9.1 MPI_Reduce: the root gets the reduction, the others None."""
    root = p // 2

    def prog(mpi):
        recv = np.zeros(6, dtype=np.int64)
        got = yield mpi.reduce(_data(mpi.rank), recv, op=ms.PROD, root=root, algorithm=alg)
        return got, recv

    r = _run(prog, p)
    want = np.prod([_data(k) for k in range(p)], axis=0)
    for k, (got, recv) in enumerate(r.returned):
        if k == root:
            assert (got == want).all() and (recv == want).all()
        else:
            assert got is None


@pytest.mark.parametrize("alg", list(ALGORITHMS["bcast"]))
@pytest.mark.parametrize("p", SIZES)
def test_6_4_bcast_gives_everyone_the_roots_buffer(alg, p):
    """6.4 MPI_Bcast: every rank gets the root's data, into its numpy buffer too."""
    root = p - 1

    def prog(mpi):
        buf = _data(99) if mpi.rank == root else np.zeros(6, dtype=np.int64)
        got = yield mpi.bcast(buf, root=root, algorithm=alg)
        return got, buf

    for got, buf in _run(prog, p).returned:
        assert (got == _data(99)).all() and (buf == _data(99)).all()


@pytest.mark.parametrize("kind", ["gather", "allgather", "gatherv", "allgatherv"])
@pytest.mark.parametrize("p", SIZES)
def test_6_5_gathers_list_every_rank_in_order(kind, p):
    """6.5 / 6.7 MPI_Gather(v), MPI_Allgather(v): rank order, per algorithm (each rank's
    own count in the v forms; one count for all in the plain ones, as 6.5 requires)."""
    for alg in ALGORITHMS[kind]:
        def prog(mpi, alg=alg):
            count = 1 + mpi.rank if kind.endswith("v") else 1
            return (yield getattr(mpi, kind)(mpi.rank * 10, count=count,
                                             datatype=ms.INT, algorithm=alg))
        r = _run(prog, p)
        want = [k * 10 for k in range(p)]
        for k, got in enumerate(r.returned):
            assert got == (want if kind.startswith("all") or k == 0 else None), (alg, k)


@pytest.mark.parametrize("kind", ["scatter", "scatterv"])
@pytest.mark.parametrize("p", SIZES)
def test_6_6_scatter_gives_each_rank_its_item(kind, p):
    """6.6 MPI_Scatter(v): rank k gets item k of the root's list."""
    for alg in ALGORITHMS[kind]:
        def prog(mpi, alg=alg):
            items = [f"item {k}" for k in range(mpi.size)] if mpi.rank == 1 % p else None
            return (yield getattr(mpi, kind)(items, root=1 % p, algorithm=alg))
        assert _run(prog, p).returned == [f"item {k}" for k in range(p)]


@pytest.mark.parametrize("alg", list(ALGORITHMS["alltoall"]))
@pytest.mark.parametrize("p", SIZES)
def test_6_8_alltoall_transposes(alg, p):
    """6.8 MPI_Alltoall: item j of rank i arrives as item i of rank j."""
    def prog(mpi):
        return (yield mpi.alltoall([(mpi.rank, j) for j in range(mpi.size)], count=8,
                                   algorithm=alg))

    r = _run(prog, p)
    for j, got in enumerate(r.returned):
        assert got == [(i, j) for i in range(p)]


@pytest.mark.parametrize("kind", ["scan", "exscan"])
@pytest.mark.parametrize("p", SIZES)
def test_6_11_scans_are_prefix_reductions(kind, p):
    """6.11 MPI_Scan / MPI_Exscan: inclusive / exclusive prefix sums (rank 0 of an
    exscan gets nothing)."""
    for alg in ALGORITHMS[kind]:
        def prog(mpi, alg=alg):
            return (yield getattr(mpi, kind)(_data(mpi.rank), algorithm=alg))
        r = _run(prog, p)
        prefix = np.cumsum([_data(k) for k in range(p)], axis=0)
        for k, got in enumerate(r.returned):
            if kind == "scan":
                assert (got == prefix[k]).all()
            elif k == 0:
                assert got is None
            else:
                assert (got == prefix[k - 1]).all()


@pytest.mark.parametrize("p", SIZES)
def test_6_10_reduce_scatter_block(p):
    """6.10.1 MPI_Reduce_scatter_block: block k of the sum goes to rank k."""
    def prog(mpi):
        return (yield mpi.reduce_scatter_block(np.arange(2 * mpi.size) + mpi.rank))

    r = _run(prog, p)
    total = sum(np.arange(2 * p) + k for k in range(p))
    for k, got in enumerate(r.returned):
        assert (got == total[2 * k:2 * k + 2]).all()


def _binomial_times(p, lat, per_msg):
    """When each rank of a binomial bcast from rank 0 is done, by the tree's definition: a
    rank receives from r - 2^k (its lowest set bit), then sends to r + 2^j for the j below
    that bit, largest first, one after the other on its port."""
    got = {0: 0.0}
    done = {}
    for r in range(p):
        children = []
        mask = 1
        while mask < p and not (r & mask):
            mask <<= 1
        mask >>= 1
        while mask > 0:
            if r + mask < p:
                children.append(r + mask)
            mask >>= 1
        for j, child in enumerate(children, start=1):
            got[child] = got[r] + j * per_msg + lat
        done[r] = got[r] + len(children) * per_msg
    return [done[r] for r in range(p)]


@pytest.mark.parametrize("p", [2, 3, 4, 5, 7, 8, 16, 17])
def test_binomial_bcast_costs_its_closed_form(p):
    """Binomial bcast (eager): p - 1 messages; each rank is done at the time the tree
    gives (computed here from the tree, not from the code); on a power of two the last one
    after log2 p rounds of latency + n / bandwidth."""
    n = 1000

    def prog(mpi):
        yield mpi.bcast(count=n, root=0, algorithm="binomial")
        return mpi.now

    r = _run(prog, p)
    assert r.returned == [pytest.approx(t) for t in _binomial_times(p, 1e-6, n / 1e9)]
    assert len(r.trace.messages) == p - 1
    if p & (p - 1) == 0:
        assert max(r.returned) == pytest.approx(math.log2(p) * (1e-6 + n / 1e9))


@pytest.mark.parametrize("p", [2, 4, 8, 16])
def test_recursive_doubling_allreduce_costs_log2_p_exchanges(p):
    """Recursive doubling on a power of two: log2 p exchanges, p log2 p messages."""
    n = 800

    def prog(mpi):
        yield mpi.allreduce(count=n, algorithm="recursive_doubling")
        return mpi.now

    r = _run(prog, p)
    assert r.returned == [pytest.approx(math.log2(p) * (1e-6 + n / 1e9))] * p
    assert len(r.trace.messages) == p * int(math.log2(p))


def test_ring_allreduce_sends_2_p_minus_1_chunks_per_rank():
    p, n = 5, 10_000

    def prog(mpi):
        yield mpi.allreduce(np.ones(n // 8), algorithm="ring")
        return mpi.now

    r = _run(prog, p)
    assert len(r.trace.messages) == p * 2 * (p - 1)
    assert r.returned == [pytest.approx(2 * (p - 1) * (1e-6 + (n // p) / 1e9))] * p


def test_a_collective_missing_one_rank_deadlocks_naming_it():
    """6.1: all members must call a collective; the one that does not is named."""
    def prog(mpi):
        if mpi.rank == 3:
            yield mpi.recv(count=1, source=0, tag=7)
            return
        yield mpi.allreduce(np.ones(3))

    r = ms.run(prog, ranks=5, network=NET)
    assert r.outcome is ms.Outcome.DEADLOCK
    for b in r.deadlock.blocked:
        if b.rank != 3:
            assert b.call == "MPI_Allreduce" and b.waits_for == [3]
            assert "not called it: rank 3" in b.reason


def test_collective_traffic_never_matches_a_users_receive():
    """Collective messages travel on the communicator's own context: a user's
    ANY_SOURCE/ANY_TAG receive posted before a bcast does not take them."""
    def prog(mpi):
        req = yield mpi.irecv(count=100, source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
        got = yield mpi.bcast("hello", root=0)
        if mpi.rank == 0:
            for k in range(1, mpi.size):
                yield mpi.send(buf="user", count=4, dest=k)
            return got, None
        status = yield mpi.wait(req)
        return got, status.data

    r = _run(prog, 4)
    assert r.returned[1:] == [("hello", "user")] * 3


def test_nonblocking_collectives_overlap_and_hold_their_result():
    def prog(mpi):
        a = yield mpi.iallreduce(mpi.rank + 1)
        b = yield mpi.ibcast("x" if mpi.rank == 0 else None)
        yield mpi.waitall([a, b])
        return a.result, b.result

    assert _run(prog, 6).returned == [(21, "x")] * 6


def test_collectives_on_a_split_communicator_use_its_ranks():
    def prog(mpi):
        sub = yield mpi.comm_split(mpi.rank % 3)
        total = yield mpi.allreduce(mpi.rank, comm=sub)
        names = yield mpi.gather(mpi.rank, root=0, comm=sub)
        return total, names

    r = _run(prog, 7)
    assert r.returned[0] == (0 + 3 + 6, [0, 3, 6])
    assert r.returned[4] == (1 + 4, None)


def test_profiles_choose_algorithms_and_a_setting_overrides():
    def prog(mpi):
        yield mpi.alltoall(list(range(mpi.size)), count=100)

    def messages(**kw):
        return ms.run(prog, ranks=4, network=NET, **kw).trace.messages
    assert len(messages()) == len(messages(mpi={"profile": "openmpi"})) == 12
    ring = ms.run(lambda mpi: (yield mpi.allgather(mpi.rank, count=8)), ranks=4, network=NET,
                  mpi={"collectives": {"allgather": "ring"}})
    assert ring.outcome is ms.Outcome.COMPLETED and len(ring.trace.messages) == 12
    with pytest.raises(ValueError, match="allgather: unknown algorithm 'tree'"):
        ms.run(prog, ranks=2, mpi={"collectives": {"allgather": "tree"}})


def test_bad_root_and_op_are_mpi_errors():
    def prog(mpi, **kw):
        try:
            yield mpi.reduce(1, **kw)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=2, params={"root": 5}).returned == ["MPI_ERR_ROOT"] * 2
    assert ms.run(prog, ranks=2, params={"op": "median"}).returned == ["MPI_ERR_OP"] * 2
