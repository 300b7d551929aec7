"""Dynamic processes (MPI 4.1 §11.8-§11.10): spawned processes, ports, names, disconnect.

Times are hand-computed: the standard profile spawns in no time; ``mpich-4.0`` takes its
``spawn_latency``, 0.09 s (measured on MPICH 5.0.2); a 4-byte message takes the default
network's 1 us latency plus 4 B at 10 GB/s.
"""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms
from mpisim.mpi.attributes import APPNUM, UNIVERSE_SIZE


def _run(program, ranks=1, **kwargs):
    return ms.run(program, ranks=ranks, **kwargs)


def test_11_8_2_children_have_their_own_world_and_the_parents_as_remote_group():
    seen = {}

    def child(mpi, tag):
        parent = mpi.comm_get_parent()
        seen[mpi.comm_rank()] = (mpi.comm_size(), parent.size, mpi.comm_remote_size(parent))
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=tag, comm=parent)

    def program(mpi):
        seen["parent of the original"] = mpi.comm_get_parent()
        inter = yield mpi.comm_spawn(child, args=(5,), maxprocs=2, comm=mpi.comm_self)
        seen["inter"] = (inter.size, mpi.comm_remote_size(inter))
        sources = []
        for _ in range(2):
            st = yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=5,
                                comm=inter)
            sources.append(st.source)
        seen["sources"] = sorted(sources)

    r = _run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert seen["parent of the original"] is None  # MPI_COMM_NULL
    assert seen[0] == seen[1] == (2, 2, 1)  # world of 2, parent intercomm: 2 local, 1 remote
    assert seen["inter"] == (1, 2)
    assert seen["sources"] == [0, 1]  # the children's ranks in the remote group
    assert [s.rank for s in r.ranks] == [0, 1, 2]
    assert r.ranks[0].spawned is None
    assert r.ranks[2].spawned == {"by": [0], "call": "MPI_Comm_spawn", "time": 0.0,
                                  "world_rank": 1, "appnum": 0, "program": "child"}
    assert r.to_dict()["ranks"][1]["spawned"]["world_rank"] == 0


def test_11_8_2_a_childs_default_world_is_its_own_not_the_parents():
    """dest=0 without comm names the children's rank 0, not the run's rank 0."""
    got = []

    def child(mpi):
        if mpi.comm_rank() == 1:
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=3)
        else:
            st = yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=3)
            got.append(st.source)

    def program(mpi):
        yield mpi.comm_spawn(child, maxprocs=2, comm=mpi.comm_self)

    r = _run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert got == [1]
    assert r.messages["received"] == 1


def test_11_8_2_children_start_spawn_latency_after_the_call():
    times = {}

    def child(mpi):
        times["child start"] = mpi.now
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0, comm=mpi.comm_get_parent())

    def program(mpi):
        inter = yield mpi.comm_spawn(child, comm=mpi.comm_self)
        times["parent back"] = mpi.now
        yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=0, comm=inter)
        times["received"] = mpi.now

    r = _run(program, mpi={"profile": "mpich-4.0"})
    assert r.outcome is ms.Outcome.COMPLETED
    assert times["child start"] == times["parent back"] == pytest.approx(0.09)
    assert times["received"] == pytest.approx(0.09 + 1e-6 + 4 / 10e9)
    assert r.ranks[1].spawned["time"] == pytest.approx(0.09)


def test_11_8_2_spawn_is_collective_and_only_the_roots_arguments_count():
    def child(mpi):
        yield mpi.barrier()

    def program(mpi):
        mine = child if mpi.rank == 1 else None  # the others' program is ignored
        inter = yield mpi.comm_spawn(mine, maxprocs=3 if mpi.rank == 1 else 0, root=1)
        assert mpi.comm_remote_size(inter) == 3 and inter.size == 2

    r = _run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert len(r.ranks) == 5


@pytest.mark.parametrize("maxprocs", [0, -1, 1.5])
def test_11_8_2_maxprocs_below_one_is_mpi_err_arg(maxprocs):
    def program(mpi):
        yield mpi.comm_spawn(lambda m: (yield m.barrier()), maxprocs=maxprocs,
                             comm=mpi.comm_self)

    r = _run(program)
    assert r.outcome is ms.Outcome.ERROR
    assert r.error.error_class == "MPI_ERR_ARG"
    assert "maxprocs" in r.error.message


def test_11_8_3_spawn_multiple_numbers_the_commands_with_appnum():
    seen = {}

    def first(mpi):
        seen[mpi.comm_rank()] = ("first", mpi.comm_get_attr(APPNUM), mpi.comm_size())
        yield mpi.barrier()

    def second(mpi, x):
        seen[mpi.comm_rank()] = ("second", mpi.comm_get_attr(APPNUM), x)
        yield mpi.barrier()

    def program(mpi):
        yield mpi.comm_spawn_multiple([first, second], args=[(), (9,)], maxprocs=[2, 1],
                                      comm=mpi.comm_self)

    r = _run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert seen == {0: ("first", 0, 3), 1: ("first", 0, 3), 2: ("second", 1, 9)}
    assert [s.spawned["appnum"] for s in r.ranks[1:]] == [0, 0, 1]


def test_11_10_1_universe_size_as_the_libraries_give_it():
    got = {}

    def program(mpi):
        got[mpi.rank] = mpi.comm_get_attr(UNIVERSE_SIZE)
        yield mpi.barrier()

    _run(program, ranks=2, mpi={"profile": "mpich-4.0"})
    assert got == {0: None, 1: None}  # MPICH's hydra sets none
    _run(program, ranks=2, mpi={"profile": "mpich-4.0", "universe": 8})
    assert got == {0: 8, 1: 8}  # mpiexec -usize 8
    _run(program, ranks=2, mpi={"profile": "openmpi-4.1"})
    assert got == {0: 2, 1: 2}  # its slots: the run's ranks here


def test_11_10_1_a_spawn_beyond_open_mpis_slots_is_mpi_err_spawn_mpich_starts_it():
    def child(mpi):
        yield mpi.barrier()

    def program(mpi):
        yield mpi.comm_spawn(child, maxprocs=2, comm=mpi.comm_self)

    r = _run(program, mpi={"profile": "openmpi-4.1", "universe": 2})
    assert r.outcome is ms.Outcome.ERROR
    assert r.error.error_class == "MPI_ERR_SPAWN"
    assert "1 of the universe's 2 free" in r.error.message
    assert _run(program, mpi={"profile": "openmpi-4.1", "universe": 3}).outcome is \
        ms.Outcome.COMPLETED
    assert _run(program, mpi={"profile": "mpich-4.0", "universe": 1}).outcome is \
        ms.Outcome.COMPLETED  # MPICH 5.0.2 spawned 2 under -usize 1


def test_11_9_accept_and_connect_join_two_groups_through_a_published_port():
    got = []

    def client(mpi):
        port = mpi.lookup_name("svc")
        inter = yield mpi.comm_connect(port, comm=mpi.comm_self)
        yield mpi.send(count=2, datatype=ms.INT, dest=0, tag=1, comm=inter)
        yield mpi.comm_disconnect(inter)

    def program(mpi):
        port = mpi.open_port()
        mpi.publish_name("svc", port)
        yield mpi.comm_spawn(client, comm=mpi.comm_self)
        inter = yield mpi.comm_accept(port, comm=mpi.comm_self)
        st = yield mpi.recv(count=2, datatype=ms.INT, source=0, tag=1, comm=inter)
        got.append((port, st.count, mpi.comm_remote_size(inter)))
        yield mpi.comm_disconnect(inter)
        mpi.unpublish_name("svc", port)
        mpi.close_port(port)

    r = _run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert got == [("mpisim-port:1", 8, 1)]


@pytest.mark.parametrize("call, error", [
    (lambda mpi: mpi.comm_connect("nowhere", comm=mpi.comm_self), "MPI_ERR_PORT"),
    (lambda mpi: mpi.comm_join(3), "MPI_ERR_UNSUPPORTED_OPERATION"),
])
def test_11_9_and_11_10_5_connecting_to_no_port_and_join_fail(call, error):
    def program(mpi):
        yield call(mpi)

    r = _run(program)
    assert r.error.error_class == error


def test_11_9_4_lookup_of_an_unpublished_name_is_mpi_err_name():
    def program(mpi):
        try:
            mpi.lookup_name("nobody")
        except ms.MPIError as e:
            assert e.error_class == "MPI_ERR_NAME"
        else:
            raise AssertionError("no error")
        yield mpi.barrier()

    assert _run(program).outcome is ms.Outcome.COMPLETED


def test_11_10_4_disconnect_frees_the_parent_intercomm_on_both_sides():
    after = {}

    def child(mpi):
        parent = mpi.comm_get_parent()
        yield mpi.comm_disconnect(parent)
        after["child"] = mpi.comm_get_parent()

    def program(mpi):
        inter = yield mpi.comm_spawn(child, comm=mpi.comm_self)
        yield mpi.comm_disconnect(inter)
        after["parent at"] = mpi.now
        yield mpi.send(count=1, datatype=ms.INT, dest=0, comm=inter)

    r = _run(program)
    assert after["child"] is None  # MPI_COMM_NULL once disconnected
    assert r.error.error_class == "MPI_ERR_COMM"  # the freed handle refuses use


def test_a_deadlock_report_names_a_blocked_child_and_a_lonely_accept():
    def child(mpi):
        yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=0,
                       comm=mpi.comm_get_parent())  # the parent never sends

    def program(mpi):
        yield mpi.comm_spawn(child, comm=mpi.comm_self)
        yield mpi.comm_accept(mpi.open_port(), comm=mpi.comm_self)  # nobody connects

    r = _run(program)
    assert r.outcome is ms.Outcome.DEADLOCK
    calls = {b.rank: b.call for b in r.deadlock.blocked}
    assert calls == {0: "MPI_Comm_accept", 1: "MPI_Recv"}
    accept = next(b for b in r.deadlock.blocked if b.rank == 0)
    assert "mpisim-port:1" in accept.reason
    assert "rank 1 (spawned: rank 0 of its world): MPI_Recv" in r.report()


def test_check_races_finds_the_two_orders_of_two_childrens_messages():
    """A wildcard receive over the intercommunicator may match either child first (3.5:
    order holds per pair only); the exploration grows its clocks with the children."""
    def child(mpi):
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0, comm=mpi.comm_get_parent())

    def program(mpi):
        inter = yield mpi.comm_spawn(child, maxprocs=2, comm=mpi.comm_self)
        order = []
        for _ in range(2):
            st = yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0,
                                comm=inter)
            order.append(st.source)
        return order

    races = ms.check_races(program, ranks=1)
    assert races.racy and races.exhausted
    assert [t.result.returned[0] for t in races.tried] == [[0, 1], [1, 0]]


def test_a_run_holds_its_ranks_and_1024_spawned_processes():
    """Beyond the simulator's room (its ranks, or universe, plus 1024) a spawn is
    MPI_ERR_SPAWN naming the bound; within it, the run grows as it goes."""
    def child(mpi):
        yield mpi.barrier()

    def program(mpi, n):
        yield mpi.comm_spawn(child, maxprocs=n, comm=mpi.comm_self)

    r = _run(program, params={"n": 1025})
    assert r.error.error_class == "MPI_ERR_SPAWN"
    assert "the run holds at most 1025 processes" in r.error.message
    r = _run(program, params={"n": 1024})
    assert r.outcome is ms.Outcome.COMPLETED and len(r.ranks) == 1025


def test_11_10_4_disconnect_waits_for_the_pending_communication_on_it():
    """The parent disconnects at once after an MPI_Isend of 10 MB to its child (1 ms at
    10 GB/s); its MPI_Comm_disconnect returns when that send completes, not when the
    members have agreed (at 0 + latencies)."""
    got = {}

    def child(mpi):
        buf = np.zeros(10**7, dtype=np.uint8)
        req = yield mpi.irecv(buf, source=0, tag=0, comm=mpi.comm_get_parent())
        yield mpi.comm_disconnect(mpi.comm_get_parent())
        got["child back"] = mpi.now
        yield mpi.wait(req)

    def program(mpi):
        inter = yield mpi.comm_spawn(child, comm=mpi.comm_self)
        req = yield mpi.isend(np.ones(10**7, dtype=np.uint8), dest=0, tag=0, comm=inter)
        yield mpi.comm_disconnect(inter)
        got["parent back"] = mpi.now
        yield mpi.wait(req)
        got["send done"] = req.done_at

    r = _run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert got["send done"] >= 1e-3
    assert got["parent back"] == pytest.approx(got["send done"])
    assert got["child back"] >= 1e-3
