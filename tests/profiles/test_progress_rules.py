"""The receiver-progress rules of the profiles, at their boundaries: cells freed by the
receiver's progress are used again; a box that a message fills exactly still takes it
(see mpisim.p2p.progress)."""

from __future__ import annotations

import pytest

import mpisim as ms

NET = {"latency": 1e-6, "bandwidth": 1e9, "eager_limit": 65536}


def _send_times(network, first, later, nbytes=40, pause=1e-3, asleep=5e-3):
    """Rank 0 sends ``first`` messages, pauses, sends ``later`` more; rank 1 takes the first
    ones at once, then computes ``asleep`` seconds before taking the rest. Each send's end."""
    def prog(mpi):
        if mpi.rank == 0:
            ends = []
            for tag in range(first + later):
                if tag == first:
                    yield mpi.compute(pause)
                yield mpi.send(count=nbytes, dest=1, tag=tag)
                ends.append(mpi.now)
            return ends
        for tag in range(first):
            yield mpi.recv(count=nbytes, source=0, tag=tag)
        yield mpi.compute(asleep)
        for tag in range(first, first + later):
            yield mpi.recv(count=nbytes, source=0, tag=tag)
        return None

    r = ms.run(prog, ranks=2, network={**NET, **network})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    return r.returned[0]


def test_cells_the_receiver_took_are_free_again():
    """MPICH's cells: two per pair here; the receiver takes the first two messages at once,
    so the two sent 1 ms later find free cells and complete at once, although the receiver
    computes then (were the cells never freed, they would wait for its progress, at 5 ms)."""
    ends = _send_times({"eager_cells": 2}, first=2, later=2)
    assert max(ends) < 2e-3


def test_a_third_message_waits_when_the_cells_are_taken():
    ends = _send_times({"eager_cells": 2}, first=0, later=3)
    assert max(ends[:2]) < 2e-3 and ends[2] >= 5e-3


@pytest.mark.parametrize(("box", "fits"), [(128, 2), (127, 1), (129, 2)])
def test_a_box_takes_messages_while_their_slots_fit_exactly_or_less(box, fits):
    """Open MPI's box: a 40 B message takes ceil16(40 + 24) = 64 B; a box of 128 B takes two
    (an exact fit), 127 B one. The sends that fit complete while the receiver computes, the
    others wait for its progress (at 5 ms)."""
    ends = _send_times({"eager_box": box, "local_send_limit": 256}, first=0, later=3)
    assert [t < 2e-3 for t in ends] == [True] * fits + [False] * (3 - fits)


@pytest.mark.parametrize("network", [{"eager_cells": 64}, {"eager_box": 4088,
                                                             "local_send_limit": 256},
                                     {"rendezvous_needs_progress": True}])
def test_3_5_messages_held_while_the_receiver_computes_keep_their_order(network):
    """§3.5 non-overtaking: messages that arrive while the receiver computes are held until
    its next MPI call, then matched in the order they arrived."""
    def prog(mpi):
        if mpi.rank == 0:
            for word in ("first", "second", "third"):
                yield mpi.send(buf=word, count=8, dest=1, tag=7)
            return None
        yield mpi.compute(1e-3)
        got = []
        for _ in range(3):
            got.append((yield mpi.recv(count=8, source=ms.ANY_SOURCE, tag=ms.ANY_TAG)).data)
        return got

    r = ms.run(prog, ranks=2, network={**NET, **network})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[1] == ["first", "second", "third"]


@pytest.mark.parametrize("network", [{"eager_cells": 64}, {"rendezvous_needs_progress": True}])
def test_messages_held_for_a_computing_receiver_are_taken_in_arrival_order(network):
    """Held messages of different senders are taken at the receiver's next MPI call in the
    order they arrived: an ANY_SOURCE receive then gets the earliest (rank 0's, sent at
    once; rank 2's is sent 0.5 ms later)."""
    def prog(mpi):
        if mpi.rank in (0, 2):
            if mpi.rank == 2:
                yield mpi.compute(5e-4)
            yield mpi.send(count=8, dest=1, tag=0)
            return None
        yield mpi.compute(1e-3)
        first = yield mpi.recv(count=8, source=ms.ANY_SOURCE, tag=0)
        second = yield mpi.recv(count=8, source=ms.ANY_SOURCE, tag=0)
        return first.source, second.source

    r = ms.run(prog, ranks=3, network={**NET, **network})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[1] == (0, 2)
