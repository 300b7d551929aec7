"""The race exploration's happens-before through dynamic-process calls: a spawned process
starts knowing its parents' past (MPI 4.1 §11.8.2: MPI_Comm_spawn is collective over the
parents and the children's MPI_Init), and the groups an accept/connect joins learn each
other's (§11.9.2). A message sent after such a call cannot have matched a wildcard receive
made before it, so no such alternative order is listed (forcing it would deadlock).

Outcomes are hand-computed. Rank 0 receives twice from MPI_ANY_SOURCE (tag 0 on its
world); rank 2 sends it one message at once; rank 1 sends it one only after a message from
the child (or, through a port, after the connection), so in the first two cases rank 1's
message comes causally after rank 0's first receive.
"""

from __future__ import annotations

import mpisim as ms


def _child(mpi):
    yield mpi.send(count=1, datatype=ms.INT, dest=1, tag=0, comm=mpi.comm_get_parent())


def _relay(mpi, early):
    """Ranks 0-2 spawn one child together; ``early``: rank 0's first wildcard receive and
    rank 2's send come before the spawn, else after it."""
    got = []
    if mpi.rank == 0 and early:
        got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)).source)
    if mpi.rank == 2 and early:
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    inter = yield mpi.comm_spawn(_child)
    if mpi.rank == 1:  # the child's message, then its own to rank 0
        yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=0, comm=inter)
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    if mpi.rank == 2 and not early:
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    while mpi.rank == 0 and len(got) < 2:
        got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)).source)
    return got


def test_11_8_2_a_message_sent_after_a_spawn_never_matches_a_receive_made_before_it():
    """Rank 0's first receive is before its spawn call, which is before the child starts,
    which is before rank 1's send: rank 1 cannot be its sender in any execution."""
    races = ms.check_races(_relay, ranks=3, params={"early": True})
    assert races.tried[0].result.outcome is ms.Outcome.COMPLETED
    assert races.tried[0].result.returned[0] == [2, 1]
    assert races.alternatives == 0 and len(races.tried) == 1
    assert not races.racy and races.exhausted


def test_11_8_2_after_the_spawn_both_senders_race_for_the_first_receive():
    """Both sends come after the spawn, concurrent with each other: either may match rank
    0's first receive (3.5), and the two orders return different senders."""
    races = ms.check_races(_relay, ranks=3, params={"early": False})
    assert races.tried[0].result.returned[0] == [2, 1]
    assert races.alternatives >= 1
    assert {(0, 0): 1} in [t.forced for t in races.tried]
    assert races.racy
    assert sorted(t.result.returned[0] for t in races.tried) == [[1, 2], [2, 1]]


def _ported(mpi):
    """Rank 1 accepts at a published port, rank 0 connects after its first receive."""
    got = []
    if mpi.rank == 1:
        port = mpi.open_port()
        mpi.publish_name("relay", port)
        yield mpi.comm_accept(port, comm=mpi.comm_self)
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    elif mpi.rank == 2:
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    else:
        got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)).source)
        yield mpi.comm_connect(mpi.lookup_name("relay"), comm=mpi.comm_self)
        got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)).source)
    return got


def test_11_9_2_accept_and_connect_order_what_came_before_them():
    """Rank 1's send follows its accept, which rank 0's connect (after its first
    receive) completes: rank 1 cannot be the first receive's sender."""
    races = ms.check_races(_ported, ranks=3)
    assert races.tried[0].result.returned[0] == [2, 1]
    assert races.alternatives == 0 and not races.racy


def test_3_5_a_spawned_processs_wildcard_receives_are_explored_too():
    """The children's own wildcard receives count and are forced as the ranks' are: child
    0 receives from its two siblings (processes 2 and 3) in either order, and one order
    makes it wait for a message never sent."""
    def child(mpi):
        if mpi.comm_rank() == 0:
            first = yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
            yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
            if first.source == 2:
                yield mpi.recv(count=1, datatype=ms.INT, source=1, tag=9)  # never sent
        else:
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)

    def program(mpi):
        yield mpi.comm_spawn(child, maxprocs=3, comm=mpi.comm_self)

    races = ms.check_races(program, ranks=1)
    assert races.wildcards == 2 and races.racy and races.exhausted
    assert [t.forced for t in races.tried] == [{}, {(1, 0): 3}]
    assert races.tried[1].result.deadlock.blocked[0].rank == 1


def test_11_8_2_a_parent_returns_from_spawn_after_every_parents_call():
    """MPI_Comm_spawn and the children's MPI_Init are one collective over parents and
    children (§11.8.2): rank 1's send after the spawn cannot match rank 0's receive made
    before rank 0 called it."""
    def child(mpi):
        yield mpi.barrier()

    def program(mpi):
        got = []
        if mpi.rank == 0:
            got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE,
                                       tag=0)).source)
        if mpi.rank == 2:
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
        yield mpi.comm_spawn(child)
        if mpi.rank == 1:
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
        if mpi.rank == 0:
            got.append((yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE,
                                       tag=0)).source)
        return got

    races = ms.check_races(program, ranks=3)
    assert races.tried[0].result.returned[0] == [2, 1]
    assert races.alternatives == 0 and not races.racy
