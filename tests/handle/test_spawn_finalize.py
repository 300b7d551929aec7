"""MPI_Finalize waits only for the processes connected to the finishing one (MPI 4.1
§11.2.2: collective over the connected processes; §11.10.4: connected through a
communicator not disconnected; MPI_Comm_disconnect cuts the connection, MPI_Comm_free does
not).

Outcomes are hand-computed. Process numbers: the run's rank 0 is process 0, the children
of its spawn are processes 1 and 2 (their ranks 0 and 1 in their own world).
"""

from __future__ import annotations

import mpisim as ms


def _blocked(r: ms.Result) -> list[tuple[int, str, list[int]]]:
    return [(b.rank, b.call, b.waits_for) for b in r.deadlock.blocked]


def _stuck_child(mpi, cut):
    """Child 0 waits for a message its sibling never sends, after cutting the parents off
    (``cut``: MPI_Comm_disconnect) or not."""
    parent = mpi.comm_get_parent()
    if cut:
        yield mpi.comm_disconnect(parent)
    if mpi.comm_rank() == 0:
        yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=0)


def _parent(mpi, cut):
    inter = yield mpi.comm_spawn(_stuck_child, args=(cut,), maxprocs=2, comm=mpi.comm_self)
    if cut:
        yield mpi.comm_disconnect(inter)


def test_11_10_4_a_parent_that_disconnected_does_not_wait_in_finalize_for_its_children():
    r = ms.run(_parent, ranks=1, params={"cut": True})
    assert r.outcome is ms.Outcome.DEADLOCK
    # child 0 (process 1) waits for child 1 (process 2), which waits in MPI_Finalize for
    # it; the parent, connected to neither, has simply finished
    assert _blocked(r) == [(1, "MPI_Recv", [2]), (2, "MPI_Finalize", [1])]
    assert r.deadlock.cycles == [[1, 2]]
    assert "connected to it (MPI 4.1 §11.2.2, §11.10.4)" in r.deadlock.blocked[1].reason
    text = r.report()
    assert "rank 0: MPI_Finalize" not in text and "2 ranks blocked" in text


def test_11_2_2_without_the_disconnect_the_parent_waits_in_finalize_for_the_child():
    r = ms.run(_parent, ranks=1, params={"cut": False})
    assert r.outcome is ms.Outcome.DEADLOCK
    assert _blocked(r) == [(1, "MPI_Recv", [2]), (0, "MPI_Finalize", [1]),
                           (2, "MPI_Finalize", [1])]
    assert r.deadlock.cycles == [[1, 2]]


def test_11_10_4_a_child_that_disconnected_does_not_wait_for_its_blocked_parent():
    def child(mpi):
        yield mpi.comm_disconnect(mpi.comm_get_parent())

    def program(mpi):
        if mpi.rank == 0:
            inter = yield mpi.comm_spawn(child, comm=mpi.comm_self)
            yield mpi.comm_disconnect(inter)
            yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=0)  # rank 1 never sends

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.DEADLOCK
    assert _blocked(r) == [(0, "MPI_Recv", [1]), (1, "MPI_Finalize", [0])]
    assert r.deadlock.cycles == [[0, 1]]  # the run's two ranks; the child (2) is not named


def test_11_10_4_a_child_still_connected_waits_for_its_blocked_parent():
    """The parent, blocked, still holds the intercommunicator: the child's MPI_Finalize
    waits for it (a cycle through rank 0's receive from rank 1 and rank 1's Finalize)."""
    def child(mpi):
        yield mpi.barrier()

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.comm_spawn(child, comm=mpi.comm_self)
            yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=0)

    r = ms.run(program, ranks=2)
    assert _blocked(r) == [(0, "MPI_Recv", [1]), (1, "MPI_Finalize", [0]),
                           (2, "MPI_Finalize", [0])]


def test_11_10_4_comm_free_does_not_cut_the_connection():
    """A communicator freed with MPI_Comm_free rather than disconnected still connects
    (§11.10.4 (b)): the parent waits in MPI_Finalize for its stuck children."""
    def program(mpi):
        inter = yield mpi.comm_spawn(_stuck_child, args=(False,), maxprocs=2,
                                     comm=mpi.comm_self)
        yield mpi.comm_free(inter)

    r = ms.run(program, ranks=1)
    assert (0, "MPI_Finalize", [1]) in _blocked(r)


def test_11_10_4_a_merged_communicator_connects_after_its_intercomm_is_disconnected():
    """Connected through any communicator (§11.10.4): the merge of the spawn's
    intercommunicator still joins parent and children once that one is disconnected."""
    def child(mpi):
        parent = mpi.comm_get_parent()
        yield mpi.intercomm_merge(parent, high=True)
        yield mpi.comm_disconnect(parent)
        if mpi.comm_rank() == 0:
            yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=0)

    def program(mpi):
        inter = yield mpi.comm_spawn(child, maxprocs=2, comm=mpi.comm_self)
        yield mpi.intercomm_merge(inter, high=False)
        yield mpi.comm_disconnect(inter)

    r = ms.run(program, ranks=1)
    assert (0, "MPI_Finalize", [1]) in _blocked(r)


def test_11_10_4_two_disconnected_sets_deadlock_apart():
    """The run's ranks and their children, disconnected, each deadlock on their own: two
    cycles and two knots, each set's MPI_Finalize waiting only inside it."""
    def child(mpi):
        yield mpi.comm_disconnect(mpi.comm_get_parent())
        if mpi.comm_rank() == 0:
            yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=0)

    def program(mpi):
        inter = yield mpi.comm_spawn(child, maxprocs=2)
        yield mpi.comm_disconnect(inter)
        if mpi.rank == 1:
            yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=5)

    r = ms.run(program, ranks=2)
    assert _blocked(r) == [(1, "MPI_Recv", [0]), (2, "MPI_Recv", [3]),
                           (0, "MPI_Finalize", [1]), (3, "MPI_Finalize", [2])]
    assert r.deadlock.cycles == [[0, 1], [2, 3]]
    assert r.deadlock.knots == [[0, 1], [2, 3]]
