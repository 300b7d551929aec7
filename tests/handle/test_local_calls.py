"""The handle's local calls, group calls and session buffer flushes that no other test
names, each against its section of MPI 4.1: type sizes (§5.1.5), address arithmetic
(§5.1.5), MPI_Reduce_local (§6.9.7), communicator hints (§7.4.4), the group constructors and
queries (§7.3), intercommunicators from groups (§7.6.2) and the flush of a session's buffer
(§3.6)."""

from __future__ import annotations

import numpy as np

import mpisim as ms
from mpisim.mpi.group import IDENT, SIMILAR, UNEQUAL

NET = {"latency": 1e-6, "bandwidth": 1e9, "eager_limit": 64}


def run(program, ranks, **kwargs):
    result = ms.run(program, ranks=ranks, **kwargs)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def test_type_sizes_and_address_differences_5_1_5():
    def program(mpi):
        vector = ms.DOUBLE.create_vector(3, 2, 5).commit()  # 6 doubles of data
        return (mpi.type_size(ms.INT), mpi.type_size(vector), mpi.type_size_x(vector),
                mpi.aint_diff(mpi.aint_add(1000, 24), 1000))
        yield

    assert run(program, 1) == [(4, 48, 48, 24)]


def test_reduce_local_combines_into_its_inout_buffer_at_once_6_9_7():
    def program(mpi):
        acc = np.array([1, 2, 3], "i")
        mpi.reduce_local(np.array([10, 20, 30], "i"), acc, op=ms.SUM)
        mpi.reduce_local(np.array([5, 50, 0], "i"), acc, op=ms.MAX)
        return acc.tolist()
        yield

    assert run(program, 1) == [[11, 50, 33]]


def test_comm_set_info_replaces_the_hints_comm_get_info_returns_7_4_4():
    def program(mpi):
        info = mpi.info_create()
        mpi.info_set(info, "mpi_assert_allow_overtaking", "true")
        mpi.comm_set_info(info, comm=mpi.comm_world)
        mpi.info_free(info)  # the communicator keeps its own copy
        got = mpi.comm_get_info(mpi.comm_world)
        return mpi.info_get(got, "mpi_assert_allow_overtaking")
        yield

    assert run(program, 2) == ["true", "true"]


def test_group_constructors_and_queries_follow_the_set_rules_of_7_3():
    def program(mpi):
        world = mpi.comm_group()
        evens = mpi.group_range_incl(world, [(0, 5, 2)])            # 0 2 4
        odds = mpi.group_excl(world, [0, 2, 4])                      # 1 3 5
        no_ends = mpi.group_range_excl(world, [(0, 0, 1), (5, 5, 1)])  # 1 2 3 4
        union = mpi.group_union(odds, evens)                         # 1 3 5 0 2 4
        both = mpi.group_intersection(no_ends, evens)                # 2 4
        rest = mpi.group_difference(world, no_ends)                  # 0 5
        out = (mpi.group_size(evens), mpi.group_rank(evens),
               mpi.group_translate_ranks(union, [0, 3], world),
               mpi.group_translate_ranks(both, [0, 1], world),
               mpi.group_translate_ranks(rest, [0, 1], world),
               mpi.group_compare(world, union), mpi.group_compare(world, world),
               mpi.group_compare(evens, odds))
        for g in (world, evens, odds, no_ends, union, both, rest):
            mpi.group_free(g)
        return out
        yield

    out = run(program, 6)
    undefined = ms.UNDEFINED
    assert out[2] == (3, 1, [1, 0], [2, 4], [0, 5], SIMILAR, IDENT, UNEQUAL)
    assert out[1][1] == undefined  # rank 1 is not in the evens


def test_an_intercommunicator_from_two_groups_and_its_remote_group_7_6_2():
    def program(mpi):
        world = mpi.comm_group()
        low = mpi.group_incl(world, [0, 1])
        high = mpi.group_incl(world, [2, 3, 4])
        mine, other = (low, high) if mpi.rank < 2 else (high, low)
        inter = yield mpi.intercomm_create_from_groups(mine, 0, other, 0, tag="halves")
        remote = mpi.comm_remote_group(inter)
        total = yield mpi.allreduce(mpi.rank, comm=inter)  # the other group's sum
        return mpi.group_size(remote), mpi.group_translate_ranks(remote, [0], world), total
        yield

    out = run(program, 5)
    assert out[0] == (3, [2], 2 + 3 + 4) and out[4] == (2, [0], 0 + 1)


def test_a_session_buffer_flush_waits_for_its_messages_to_leave_3_6():
    """MPI 4.1 §3.6: MPI_Session_flush_buffer returns when the bsends that use the
    session's buffer have completed (their entries freed); the i form yields a request."""
    def program(mpi):
        session = yield mpi.session_init()
        comm = yield mpi.comm_create_from_group(session, "app")
        if mpi.rank == 0:
            yield mpi.session_attach_buffer(4096, session)
            yield mpi.bsend(count=1000, dest=1, tag=1, comm=comm)
            yield mpi.session_flush_buffer(session)
            flushed = mpi.now
            yield mpi.bsend(count=1000, dest=1, tag=2, comm=comm)
            req = yield mpi.session_iflush_buffer(session)
            yield mpi.wait(req)
            return flushed, mpi.now
        yield mpi.compute(1e-4)  # the receives come late: the flush must wait for them
        for tag in (1, 2):
            yield mpi.recv(count=1000, source=0, tag=tag, comm=comm)
        return None

    flushed, iflushed = run(program, 2, network=NET)[0]
    assert flushed > 1e-4 and iflushed > flushed
