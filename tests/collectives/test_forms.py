"""The v and w forms, receive buffers, MPI_IN_PLACE and integer arguments of the ``mpi``
handle's collectives (MPI 4.1 §6.5 to §6.10), natively: each result is what the section
defines, computed here with numpy from every rank's input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.collectives import ALGORITHMS


def _run(prog, ranks, **kw):
    result = ms.run(prog, ranks=ranks, **kw)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


@st.composite
def layouts(draw):
    """Counts per rank and displacements that leave gaps (blocks in rank order)."""
    p = draw(st.integers(1, 6))
    counts = draw(st.lists(st.integers(0, 4), min_size=p, max_size=p))
    gaps = draw(st.lists(st.integers(0, 2), min_size=p, max_size=p))
    displs, at = [], 0
    for c, g in zip(counts, gaps, strict=True):
        at += g
        displs.append(at)
        at += c
    return p, counts, displs, at


def _part(k, n):
    return np.arange(n, dtype="i") + 100 * k


@settings(max_examples=80, deadline=None)
@given(layouts(), st.data())
def test_6_5_gatherv_and_allgatherv_place_block_k_at_displs_k(layout, data):
    """6.5 / 6.7: rank k's recvcounts[k] elements land at displs[k] (gaps untouched)."""
    p, counts, displs, span = layout
    root = data.draw(st.integers(0, p - 1))
    kind = data.draw(st.sampled_from(["gatherv", "allgatherv", "igatherv", "iallgatherv"]))
    alg = data.draw(st.sampled_from(sorted(ALGORITHMS[kind.removeprefix("i")])))
    want = np.full(span, -1, "i")
    for k in range(p):
        want[displs[k]:displs[k] + counts[k]] = _part(k, counts[k])

    def prog(mpi):
        out = np.full(span, -1, "i")
        extra = {"root": root} if "all" not in kind else {}
        got = yield getattr(mpi, kind)(_part(mpi.rank, counts[mpi.rank]), recvbuf=out,
                                       recvcounts=counts, displs=displs, algorithm=alg,
                                       **extra)
        if kind.startswith("i"):
            yield mpi.wait(got)
        return out

    for k, out in enumerate(_run(prog, p)):
        if "all" in kind or k == root:
            assert out.tolist() == want.tolist()
        else:
            assert (out == -1).all()


@settings(max_examples=80, deadline=None)
@given(layouts(), st.data())
def test_6_6_scatterv_sends_each_rank_its_block_from_displs(layout, data):
    """6.6: rank k receives the root's sendcounts[k] elements from displs[k]."""
    p, counts, displs, span = layout
    root = data.draw(st.integers(0, p - 1))
    source = np.arange(span, dtype="d") * 1.5

    def prog(mpi):
        out = np.zeros(counts[mpi.rank])
        yield mpi.scatterv(source if mpi.rank == root else None, root=root, recvbuf=out,
                           sendcounts=counts, displs=displs, datatype=ms.DOUBLE,
                           count=counts[mpi.rank])
        return out

    for k, out in enumerate(_run(prog, p)):
        assert out.tolist() == source[displs[k]:displs[k] + counts[k]].tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.data())
def test_6_8_alltoallv_block_k_of_rank_j_arrives_as_block_j_of_rank_k(p, data):
    """6.8: rank j sends sendcounts_j[k] elements to k; with recvcounts and rdispls the
    receiver places them (rank j's counts: (j + k) % 3 elements to rank k)."""
    alg = data.draw(st.sampled_from(sorted(ALGORITHMS["alltoallv"])))

    def count(j, k):
        return (j + k) % 3

    def prog(mpi):
        j = mpi.rank
        sc = [count(j, k) for k in range(p)]
        send = np.concatenate([np.full(c, 10 * j + k, "i") for k, c in enumerate(sc)] or
                              [np.zeros(0, "i")])
        rc = [count(k, j) for k in range(p)]
        out = np.zeros(sum(rc), "i")
        yield mpi.alltoallv(send, recvbuf=out, sendcounts=sc, recvcounts=rc, algorithm=alg)
        return out

    for k, out in enumerate(_run(prog, p)):
        want = [10 * j + k for j in range(p) for _ in range(count(j, k))]
        assert out.tolist() == want


def test_6_8_alltoallw_takes_a_datatype_and_byte_displacement_per_rank():
    """6.8 MPI_Alltoallw: ints sent from byte offsets 4k, received at byte offsets 8k."""
    p = 3

    def prog(mpi):
        send = np.arange(p, dtype="i") + 10 * mpi.rank
        wide = np.zeros(2 * p, "i")
        yield mpi.alltoallw(send, [1] * p, [4 * k for k in range(p)], [ms.INT] * p,
                            wide, [1] * p, [8 * k for k in range(p)], [ms.INT] * p)
        return wide

    for k, wide in enumerate(_run(prog, p)):
        assert wide[::2].tolist() == [10 * j + k for j in range(p)]
        assert (wide[1::2] == 0).all()


def test_6_10_2_reduce_scatter_gives_rank_k_block_k_of_the_sum():
    counts = [1, 3, 0, 2]
    p = len(counts)
    starts = np.cumsum([0, *counts])

    def prog(mpi):
        out = np.zeros(counts[mpi.rank], "i")
        yield mpi.reduce_scatter(np.arange(sum(counts), dtype="i") * (mpi.rank + 1),
                                 counts, recvbuf=out)
        return out

    total = sum(np.arange(sum(counts)) * (k + 1) for k in range(p))
    for k, out in enumerate(_run(prog, p)):
        assert out.tolist() == total[starts[k]:starts[k + 1]].tolist()


# -- MPI_IN_PLACE ------------------------------------------------------------------------------
def test_6_in_place_reads_each_ranks_part_from_its_receive_buffer():
    """IN_PLACE where MPI allows it: the gather's root (6.5), allgather (6.7), alltoall
    (6.8), the scatter's root as receive buffer (6.6), reduce at the root (6.9.1),
    allreduce (6.9.6), reduce_scatter_block (6.10.1), scan and exscan (6.11)."""
    p = 3

    def prog(mpi):
        r = mpi.rank
        got = {}
        buf = np.zeros(2 * p, "i")
        if r == 0:
            buf[:2] = [0, 1]
            yield mpi.gather(ms.IN_PLACE, root=0, recvbuf=buf)
        else:
            yield mpi.gather(np.array([2 * r, 2 * r + 1], "i"), root=0)
        got["gather"] = buf.tolist() if r == 0 else None
        buf = np.zeros(2 * p, "i")
        buf[2 * r:2 * r + 2] = [r, r]
        yield mpi.allgather(ms.IN_PLACE, recvbuf=buf)
        got["allgather"] = buf.tolist()
        buf = np.arange(p, dtype="i") + 10 * r
        yield mpi.alltoall(ms.IN_PLACE, recvbuf=buf)
        got["alltoall"] = buf.tolist()
        source = np.arange(2 * p, dtype="i")
        mine = np.zeros(2, "i")
        yield mpi.scatter(source if r == 0 else None, root=0,
                          recvbuf=ms.IN_PLACE if r == 0 else mine)
        got["scatter"] = source.tolist() if r == 0 else mine.tolist()
        acc = np.full(2, r + 1, "i")
        yield mpi.reduce(ms.IN_PLACE if r == 0 else acc, acc, root=0)
        got["reduce"] = acc.tolist()
        acc = np.full(2, r + 1, "i")
        yield mpi.allreduce(ms.IN_PLACE, acc, op=ms.MAX)
        got["allreduce"] = acc.tolist()
        acc = np.arange(p, dtype="i") + r
        yield mpi.reduce_scatter_block(ms.IN_PLACE, count=1, recvbuf=acc)
        got["reduce_scatter_block"] = int(acc[0])
        acc = np.full(1, r + 1, "i")
        yield mpi.scan(ms.IN_PLACE, acc)
        got["scan"] = int(acc[0])
        acc = np.full(1, r + 1, "i")
        yield mpi.exscan(ms.IN_PLACE, acc)
        got["exscan"] = int(acc[0])
        return got

    for r, got in enumerate(_run(prog, p)):
        assert got["gather"] == (list(range(2 * p)) if r == 0 else None)
        assert got["allgather"] == [k for k in range(p) for _ in range(2)]
        assert got["alltoall"] == [10 * k + r for k in range(p)]
        assert got["scatter"] == (list(range(2 * p)) if r == 0 else [2 * r, 2 * r + 1])
        assert got["reduce"] == ([sum(range(1, p + 1))] * 2 if r == 0 else [r + 1] * 2)
        assert got["allreduce"] == [p] * 2
        assert got["reduce_scatter_block"] == sum(k + r for k in range(p))
        assert got["scan"] == sum(range(1, r + 2))
        assert got["exscan"] == (sum(range(1, r + 1)) if r else 1)  # rank 0: untouched


@pytest.mark.parametrize("call", ["reduce", "gather"])
def test_6_in_place_at_a_non_root_is_err_buffer(call):
    """MPI_IN_PLACE is the root's option of MPI_Reduce (6.9.1) and MPI_Gather (6.5)."""
    def prog(mpi):
        try:
            if call == "reduce":
                yield mpi.reduce(ms.IN_PLACE, np.zeros(2), root=0)
            else:
                yield mpi.gather(ms.IN_PLACE, root=0, recvbuf=np.zeros(4))
        except ms.MPIError as e:
            return e.error_class

    returned = ms.run(prog, ranks=2).returned
    assert returned[1] == "MPI_ERR_BUFFER"


def test_in_place_is_one_object_in_mpisim_and_the_mpi4py_stand_in():
    from mpisim.mpi4py.run.module import modules

    assert modules()["mpi4py.MPI"].IN_PLACE is ms.IN_PLACE
    assert repr(ms.IN_PLACE) == "IN_PLACE"


# -- integer arguments -------------------------------------------------------------------------
def test_numpy_integers_are_integers_and_bools_are_not():
    """A root, a count, counts and a split's color/key may be numpy integers (as the
    point-to-point calls' ranks and tags); a bool or a float is refused with the class MPI
    gives that argument."""
    def prog(mpi):
        got = yield mpi.bcast(np.arange(2, dtype="i") if mpi.rank == 1 else np.zeros(2, "i"),
                              count=np.int64(2), datatype=ms.INT, root=np.int32(1))
        sub = yield mpi.comm_split(np.int64(mpi.rank % 2), np.uint8(0))
        parts = yield mpi.allgatherv(count=np.int16(1), datatype=ms.INT)
        errors = []
        for kwargs in ({"root": True}, {"root": 1.0}, {"count": 2.0}, {"count": np.bool_(True)}):
            try:
                yield mpi.bcast(np.zeros(2, "i"), **{"datatype": ms.INT, **kwargs})
            except ms.MPIError as e:
                errors.append(e.error_class)
        try:
            yield mpi.gatherv(count=1, recvcounts=[1.0, 1], root=0)
        except ms.MPIError as e:
            errors.append(e.error_class)
        return got.tolist(), sub.size, len(parts), errors

    for r, (got, size, n, errors) in enumerate(_run(prog, 2)):
        assert got == [0, 1] and size == 1 and n == 2
        want = ["MPI_ERR_ROOT", "MPI_ERR_ROOT", "MPI_ERR_COUNT", "MPI_ERR_COUNT"]
        assert errors == want + (["MPI_ERR_COUNT"] if r == 0 else [])


def test_bad_counts_and_displacements_are_mpi_errors():
    def prog(mpi, **kwargs):
        try:
            yield mpi.scatterv(np.zeros(4), root=0, **kwargs)
        except ms.MPIError as e:
            return e.error_class
        return "done"

    def classes(**kwargs):
        return ms.run(prog, ranks=2, params=kwargs).returned[0]

    assert classes(sendcounts=[1, 2, 3]) == "MPI_ERR_COUNT"       # one per rank
    assert classes(sendcounts=[1, -1]) == "MPI_ERR_COUNT"
    assert classes(sendcounts=[2, 2], displs=[0, 3]) == "MPI_ERR_ARG"  # past the end
    assert classes(sendcounts=[2, 2], displs=[0]) == "MPI_ERR_ARG"
