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
