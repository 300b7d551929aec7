"""Groups, communicators made from them and intercommunicators in the ``mpi`` handle (MPI
4.1 §7.3-§7.6, mpisim.handle.groups, mpisim.collectives.intercomm): point-to-point ranks on
an intercommunicator name the remote group, its collectives join the two groups, and
Intercomm_merge puts the group that gave high false first."""

from __future__ import annotations

import mpisim as ms
from mpisim.mpi.constants import PROC_NULL, ROOT
from mpisim.mpi.group import CONGRUENT, IDENT, SIMILAR, UNEQUAL


def run(program, ranks):
    out: dict = {}
    result = ms.run(lambda mpi: program(mpi, out), ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return out


def halves(mpi):
    """The lower and upper halves of the world and the intercommunicator between them."""
    low = mpi.rank < mpi.size // 2
    half = yield mpi.comm_split(0 if low else 1, mpi.rank)
    inter = yield mpi.intercomm_create(half, 0, None, mpi.size // 2 if low else 0, tag=1)
    return low, inter


def test_point_to_point_across_an_intercommunicator_names_remote_ranks():
    def program(mpi, out):
        low, inter = yield from halves(mpi)
        if low:
            yield mpi.send(f"from {mpi.rank}", count=1, dest=0, tag=4, comm=inter)
        elif mpi.comm_rank(inter) == 0:
            got = []
            for _ in range(mpi.comm_remote_size(inter)):
                status = yield mpi.recv(tag=4, comm=inter)
                got.append((status.source, status.data))
            out["got"] = sorted(got)
        out[mpi.rank] = (mpi.comm_test_inter(inter), mpi.comm_size(inter),
                         mpi.comm_remote_size(inter))
    out = run(program, 5)
    assert out["got"] == [(0, "from 0"), (1, "from 1")]  # sources: ranks of the low group
    assert out[0] == (True, 2, 3) and out[4] == (True, 3, 2)


def test_collectives_over_an_intercommunicator_give_each_group_the_others_values():
    def program(mpi, out):
        low, inter = yield from halves(mpi)
        yield mpi.barrier(comm=inter)
        root = (ROOT if mpi.comm_rank(inter) == 0 else PROC_NULL) if low else 0
        b = yield mpi.bcast("low's leader" if root == ROOT else None, root=root, comm=inter)
        total = yield mpi.allreduce(mpi.rank, comm=inter)
        gathered = yield mpi.allgather(mpi.rank, comm=inter)
        out[mpi.rank] = (b, total, gathered)
    out = run(program, 5)
    assert out[0] == (None, 2 + 3 + 4, [2, 3, 4])   # the root's group gets nothing
    assert out[1] == (None, 9, [2, 3, 4])
    assert out[3] == ("low's leader", 0 + 1, [0, 1])


def test_scatter_and_gather_v_over_an_intercommunicator_serve_the_other_group():
    """6.2.2: the root passes MPI_ROOT and its items go to the other group, one per remote
    process; Gatherv's root gets the other group's blocks at its displacements."""
    import numpy as np

    def program(mpi, out):
        low, inter = yield from halves(mpi)
        leader = mpi.comm_rank(inter) == 0
        root = (ROOT if leader else PROC_NULL) if low else 0
        items = [f"to {k}" for k in range(mpi.comm_remote_size(inter))] if root == ROOT \
            else None
        got = yield mpi.scatter(items, root=root, comm=inter)
        recv = np.full(12, -1, dtype="i")
        mine = np.arange(mpi.rank + 1, dtype="i")  # rank k of the high group sends k+1 ints
        yield mpi.gatherv(None if low else mine, root=root, comm=inter,
                          recvbuf=recv if root == ROOT else None,
                          recvcounts=[3, 4, 5] if root == ROOT else None,
                          displs=[0, 3, 7] if root == ROOT else None,
                          datatype=ms.INT if root == ROOT else None)
        out[mpi.rank] = (got, recv.tolist() if root == ROOT else None)
    out = run(program, 5)
    assert out[2][0] == "to 0" and out[4][0] == "to 2"   # the high group's items
    assert out[0][0] is None and out[1][0] is None        # the root's group gets none
    # ranks 2, 3, 4 of the world are ranks 0, 1, 2 of the high group: 3, 4 and 5 ints
    assert out[0][1] == [0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4]


def test_alltoall_and_reduce_scatter_over_an_intercommunicator_cross_the_groups():
    """6.2.2, 6.8: item k goes to remote process k; 6.10.1: each group gets the reduction
    of the other group's vectors, cut by its own counts."""
    import numpy as np

    def program(mpi, out):
        _low, inter = yield from halves(mpi)
        me, remote = mpi.comm_rank(inter), mpi.comm_remote_size(inter)
        got = yield mpi.alltoall([(mpi.rank, k) for k in range(remote)], comm=inter)
        size = mpi.comm_size(inter)
        counts = [6 // size] * size                      # 6 elements in each group
        vec = np.full(6, mpi.rank + 1, dtype="i")
        recv = np.zeros(counts[me], dtype="i")
        yield mpi.reduce_scatter(vec, recvcounts=counts, comm=inter, recvbuf=recv)
        out[mpi.rank] = (got, recv.tolist())
    out = run(program, 5)
    assert out[0][0] == [(2, 0), (3, 0), (4, 0)]   # from each high process, its item 0
    assert out[3][0] == [(0, 1), (1, 1)]           # from each low process, its item 1
    assert out[0][1] == [3 + 4 + 5] * 3            # the high group's sum, 3 of 6 per process
    assert out[2][1] == [1 + 2] * 2                # the low group's sum, 2 of 6 per process


def test_in_place_and_scans_are_refused_over_an_intercommunicator():
    """6.2.2: MPI_IN_PLACE has no meaning over an intercommunicator, and scans are not
    defined on one."""
    def program(mpi, out):
        _low, inter = yield from halves(mpi)
        for call in (lambda: mpi.allreduce(ms.IN_PLACE, comm=inter),
                     lambda: mpi.scan(1, comm=inter)):
            try:
                yield call()
            except ms.MPIError as e:
                out.setdefault(mpi.rank, []).append(type(e).__name__)
    out = run(program, 4)
    assert out[0] == ["ErrBuffer", "ErrComm"]


def test_merge_puts_the_group_that_gave_high_false_first():
    def program(mpi, out):
        low, inter = yield from halves(mpi)
        merged = yield mpi.intercomm_merge(inter, high=low)  # the low half goes last
        out[mpi.rank] = merged.rank
    assert run(program, 4) == {2: 0, 3: 1, 0: 2, 1: 3}


def test_comm_create_makes_one_communicator_per_disjoint_group():
    def program(mpi, out):
        world = mpi.comm_group()
        mine = mpi.group_incl(world, [0, 2] if mpi.rank % 2 == 0 else [1, 3])
        made = yield mpi.comm_create(mine)
        total = yield mpi.allreduce(mpi.rank, comm=made)
        evens = mpi.group_incl(world, [0, 2])
        sub = (yield mpi.comm_create_group(evens, tag=3)) if mpi.rank in (0, 2) else None
        out[mpi.rank] = (made.size, total, None if sub is None else sub.size,
                         mpi.comm_compare(made, made), mpi.comm_compare(None, mpi.comm_world))
    out = run(program, 4)
    assert out[0] == (2, 2, 2, IDENT, IDENT) and out[3] == (2, 4, None, IDENT, IDENT)


def test_comm_compare():
    def program(mpi, out):
        dup = yield mpi.comm_dup()
        rev = yield mpi.comm_split(0, -mpi.rank)
        half = yield mpi.comm_split(mpi.rank % 2)
        out[mpi.rank] = [mpi.comm_compare(None, c) for c in (dup, rev, half)]
    assert run(program, 2)[0] == [CONGRUENT, SIMILAR, UNEQUAL]
