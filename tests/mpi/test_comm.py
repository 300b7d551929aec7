"""Communicators (MPI 4.1 §6): groups, contexts, matching per communicator."""

from __future__ import annotations

import pytest

import mpisim as ms


def test_6_1_a_message_on_a_dup_never_matches_a_receive_on_the_world():
    """3.5 / 6.1: matching is per communicator; the world receive takes the world message
    even though the dup's message (same source and tag) was sent first."""
    def prog(mpi):
        dup = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.send(buf="dup", count=8, dest=1, tag=0, comm=dup)
            yield mpi.send(buf="world", count=8, dest=1, tag=0)
            return None
        first = (yield mpi.recv(count=8, source=0, tag=0)).data
        second = (yield mpi.recv(count=8, source=0, tag=0, comm=dup)).data
        return first, second

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[1] == ("world", "dup")


def test_6_4_split_orders_ranks_by_key_then_parent_rank_and_translates_sources():
    """6.4.2 MPI_Comm_split: one communicator per color, ranked by (key, old rank); ranks
    given to calls on it are its ranks, and Status.source is a rank in it."""
    def prog(mpi):
        sub = yield mpi.comm_split(color=mpi.rank % 2, key=-mpi.rank)
        me, size = mpi.comm_rank(sub), mpi.comm_size(sub)
        right, left = (me + 1) % size, (me - 1) % size
        yield mpi.isend(buf=mpi.rank, count=4, dest=right, comm=sub)
        status = yield mpi.recv(count=4, source=ms.ANY_SOURCE, comm=sub)
        return me, size, sub.group, status.source == left, status.data

    r = ms.run(prog, ranks=5)
    assert r.outcome is ms.Outcome.COMPLETED
    evens = (4, 2, 0)   # key = -rank: highest world rank first
    assert r.returned[0][:3] == (2, 3, evens)
    assert r.returned[4][:3] == (0, 3, evens)
    assert r.returned[3][:3] == (0, 2, (3, 1))
    assert all(x[3] for x in r.returned)
    assert r.returned[0][4] == 2  # rank 0's left neighbour in (4, 2, 0) is world rank 2


def test_split_with_undefined_gives_comm_null():
    def prog(mpi):
        sub = yield mpi.comm_split(ms.UNDEFINED if mpi.rank == 0 else 1)
        return None if sub is None else sub.size

    assert ms.run(prog, ranks=3).returned == [None, 2, 2]


def test_comm_self_and_world_handles():
    def prog(mpi):
        me = mpi.comm_self
        yield mpi.isend(buf="x", count=1, dest=0, comm=me)
        got = (yield mpi.recv(count=1, source=0, comm=me)).data
        return got, me.size, mpi.comm_world.size, mpi.comm_size(), mpi.comm_rank()

    assert ms.run(prog, ranks=3).returned[2] == ("x", 1, 3, 3, 2)


def test_a_freed_communicator_is_mpi_err_comm():
    def prog(mpi):
        dup = yield mpi.comm_dup()
        yield mpi.comm_free(dup)
        try:
            yield mpi.send(count=1, dest=0, comm=dup)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1).returned == ["MPI_ERR_COMM"]


def test_ranks_outside_the_communicator_are_mpi_err_rank():
    def prog(mpi):
        sub = yield mpi.comm_split(0 if mpi.rank < 2 else 1)
        try:
            yield mpi.send(count=1, dest=2, comm=sub)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=3).returned[0] == "MPI_ERR_RANK"


def test_a_dup_missing_a_member_deadlocks_naming_it():
    """MPI_Comm_dup is collective: a member that never calls it blocks the others, and the
    report names that member."""
    def prog(mpi):
        if mpi.rank == 2:
            yield mpi.recv(count=1, source=0, tag=5)
            return
        yield mpi.comm_dup()

    r = ms.run(prog, ranks=3)
    assert r.outcome is ms.Outcome.DEADLOCK
    blocked = {b.rank: b for b in r.deadlock.blocked}
    assert blocked[0].call == "MPI_Comm_dup" and blocked[0].waits_for == [2]


def test_deadlock_on_a_communicator_names_it_with_world_ranks():
    def prog(mpi):
        sub = yield mpi.comm_split(0, key=-mpi.rank)   # ranks reversed
        yield mpi.recv(count=1, source=0, comm=sub)    # sub rank 0 is world rank 1

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.DEADLOCK
    d = r.to_dict()["deadlock"]["blocked"]
    assert [(b["rank"], b["peer"], b["comm"].startswith("split")) for b in d] == [
        (0, 1, True), (1, 1, True)]


@pytest.mark.parametrize("profile", ["mpich", "openmpi"])
def test_non_overtaking_holds_per_communicator(profile):
    """3.5: order is kept per (sender, receiver, communicator): a dup's messages wait for
    nothing on the world and vice versa."""
    def prog(mpi):
        dup = yield mpi.comm_dup()
        if mpi.rank == 0:
            for k in range(5):
                yield mpi.send(buf=k, count=100_000 if k % 2 else 8, dest=1, comm=dup)
            return None
        got = []
        for _ in range(5):
            got.append((yield mpi.recv(count=100_000, source=0, comm=dup)).data)
        return got

    assert ms.run(prog, ranks=2, mpi={"profile": profile}).returned[1] == [0, 1, 2, 3, 4]


def test_3_10_sendrecv_exchanges_without_deadlock_on_a_ring():
    """3.10 MPI_Sendrecv: a ring shift of rendezvous-sized messages completes (the same
    with send then recv would deadlock)."""
    def prog(mpi, n=100_000):
        right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
        status = yield mpi.sendrecv(mpi.rank, n, ms.BYTE, right, 0, None, n, ms.BYTE, left, 0)
        return status.source, status.data

    r = ms.run(prog, ranks=4)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned == [(3, 3), (0, 0), (1, 1), (2, 2)]


def test_sendrecv_replace_overwrites_the_buffer():
    import numpy as np

    def prog(mpi):
        buf = np.full(4, mpi.rank, dtype=np.int32)
        yield mpi.sendrecv_replace(buf, dest=1 - mpi.rank, source=1 - mpi.rank)
        return buf.tolist()

    assert ms.run(prog, ranks=2).returned == [[1] * 4, [0] * 4]


def test_3_9_persistent_requests_start_again_after_each_wait():
    """3.9: a persistent request is inactive until started, and again after each wait;
    starting an active one is an error."""
    def prog(mpi, rounds=3):
        peer = 1 - mpi.rank
        s = yield mpi.send_init(count=8, dest=peer, tag=1)
        r = yield mpi.recv_init(count=8, source=peer, tag=1)
        got = []
        for k in range(rounds):
            s.args = (k + 10 * mpi.rank, 8, None, peer, 1, None)
            yield mpi.startall([s, r])
            statuses = yield mpi.waitall([s, r])
            got.append(statuses[1].data)
        yield mpi.start(r)
        try:
            yield mpi.start(r)
        except ms.MPIError as e:
            got.append(e.error_class)
        yield mpi.send(count=8, dest=peer, tag=1)
        yield mpi.wait(r)
        return got

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned == [[10, 11, 12, "MPI_ERR_REQUEST"], [0, 1, 2, "MPI_ERR_REQUEST"]]


def test_persistent_bsend_uses_the_buffer_at_each_start():
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach(2 * (100 + 96))
            req = yield mpi.bsend_init(count=100, dest=1)
            for _ in range(2):
                yield mpi.start(req)
                yield mpi.wait(req)
            yield mpi.buffer_detach()
        else:
            for _ in range(2):
                yield mpi.recv(count=100, source=0)

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED and r.ranks[0].buffer.bsends == 2


def _scenario(tmp_path, ops: str, extra: str = ""):
    from mpisim.scenario import load
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nranks: 4\nprograms:\n  - ranks: all\n    ops:\n" + ops + extra)
    return load(path)


def test_scenarios_name_communicators_made_by_comm_split_and_use_collectives(tmp_path):
    """Scenario files: comm_split / comm_dup bind a name (as:), comm: on calls uses it,
    collectives take count or bytes, root and algorithm."""
    sc = _scenario(tmp_path, """\
      - comm_split: {color: rank % 2, key: rank, as: half}
      - bcast: {bytes: 1 KiB, root: 1, comm: half}
      - allreduce: {count: 100, datatype: DOUBLE, comm: half, algorithm: ring}
      - alltoall: {count: 8, datatype: INT}
      - send: {dest: 1 - rank // 2, count: 1, comm: half, tag: 3}
      - recv: {source: 1 - rank // 2, count: 1, comm: half, tag: 3}
      - barrier: {comm: half}
      - comm_free: half
""")
    r = sc.run()
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    calls = set(r.trace.calls["call"].tolist())
    assert {"MPI_Comm_split", "MPI_Bcast", "MPI_Allreduce", "MPI_Alltoall", "MPI_Barrier",
            "MPI_Comm_free"} <= calls


def test_scenario_communicator_names_are_checked_at_load(tmp_path):
    from mpisim.scenario import ScenarioError
    with pytest.raises(ScenarioError) as info:
        _scenario(tmp_path, "      - send: {dest: 1, count: 1, comm: lib}\n")
    assert "unknown communicator 'lib'" in str(info.value)
