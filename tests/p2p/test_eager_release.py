"""How a receiver's progress frees the room of eager sends it has not taken yet
(``network.eager_release``, mpisim.p2p.progress), with times computed by hand.

A standard send may complete once its message is buffered (MPI 4.1 §3.4); MPICH buffers up
to ``eager_cells`` messages per pair in shared-memory cells, and a send that finds them all
taken waits until one is freed. Under ``poll`` (MPICH 5.0.2, measured) a call that does not
block frees one cell (it polls once), a call that blocks frees them one by one until it can
return, and a receive whose message is already taken polls nothing; under ``progress`` the
receiver's next call frees them all. Sender: 12 eager sends of 8 B, 2 cells; receiver:
asleep 1 s, then its calls 0.1 s apart. Latency and bandwidth are tiny next to 0.1 s, so a
send's return time is the time of the receiver's call that freed its cell.
"""

from __future__ import annotations

import pytest

import mpisim as ms
from mpisim.calibrate.fit import fit_release

NET = {"latency": "1ns", "bandwidth": "1 TB/s", "eager_cells": 2}
SENDS, SLEEP, GAP = 12, 1.0, 0.1


def _waits(release: str, receiver) -> list[tuple[int, float]]:
    """(index, return time) of each send that waited for a cell."""
    def prog(mpi):
        if mpi.rank == 0:
            waited = []
            for i in range(SENDS):
                t = mpi.now
                yield mpi.send(count=8, dest=1, tag=i)
                if mpi.now - t > GAP / 3:
                    waited.append((i, round(mpi.now, 6)))
            return waited
        yield mpi.compute(SLEEP)
        yield from receiver(mpi)

    r = ms.run(prog, ranks=2, network={**NET, "eager_release": release})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    return r.returned[0]


def _receive_each(mpi):
    for i in range(SENDS):
        yield mpi.recv(count=8, source=0, tag=i)
        yield mpi.compute(GAP)


def test_poll_one_receive_frees_one_cell():
    """MPICH: each receive polls once; from the third send on, each waits one gap."""
    assert _waits("poll", _receive_each) == [(k, round(SLEEP + (k - 2) * GAP, 6))
                                             for k in range(2, SENDS)]


def test_progress_the_next_call_frees_every_cell():
    """progress: the receiver's call takes every held message, so the sender goes on by
    as many sends as there are cells, plus the one that waited, at each call."""
    assert _waits("progress", _receive_each) == [
        (2, SLEEP), (5, SLEEP + GAP), (8, SLEEP + 2 * GAP), (11, SLEEP + 3 * GAP)]


def test_poll_a_nonblocking_call_frees_one_cell():
    """MPICH: an MPI_Iprobe that finds nothing polls once (one send goes on per call)."""
    def receiver(mpi):
        for _ in range(3):
            yield mpi.iprobe(source=0, tag=999)
            yield mpi.compute(GAP)
        for i in range(SENDS):
            yield mpi.recv(count=8, source=0, tag=i)
    waited = _waits("poll", receiver)
    assert waited[:3] == [(2, SLEEP), (3, SLEEP + GAP), (4, SLEEP + 2 * GAP)]
    assert waited[3][1] == pytest.approx(SLEEP + 3 * GAP)  # then the blocking receives


def test_poll_a_blocked_receive_frees_every_cell_until_it_returns():
    """MPICH: a receive whose message is not there yet polls until it comes: every held
    message is taken (the last tag first, so all the others queue up unexpected)."""
    def receiver(mpi):
        yield mpi.recv(count=8, source=0, tag=SENDS - 1)
        for i in range(SENDS - 1):
            yield mpi.recv(count=8, source=0, tag=i)
    assert _waits("poll", receiver) == [(2, SLEEP)]


def test_poll_a_receive_of_a_message_already_taken_polls_nothing():
    """MPICH looks at the messages it has taken before it polls: after two MPI_Iprobe
    calls took two messages, the two receives of them free no cell."""
    def receiver(mpi):
        for _ in range(2):
            yield mpi.iprobe(source=0, tag=999)
            yield mpi.compute(GAP)
        for i in range(SENDS):
            yield mpi.recv(count=8, source=0, tag=i)
            yield mpi.compute(GAP)
    waited = _waits("poll", receiver)
    # the iprobes free a cell each (sends 2, 3); receives 0 and 1 poll nothing; receive 2
    # (at SLEEP + 4 GAP) frees the next
    assert waited[:3] == [(2, SLEEP), (3, SLEEP + GAP), (4, round(SLEEP + 4 * GAP, 6))]


@pytest.mark.parametrize(("moved", "expected"), [(4, "poll"), (30, "progress"),
                                                 (0, "progress")])
def test_the_calibration_tells_the_release_rules_apart(moved, expected):
    """calibrate's release probe: one send per MPI_Iprobe is poll; more is progress; none
    (Open MPI 5.0.11: its receives free the box, in batches) is kept as progress."""
    first, polls, gap = 64, 4, 0.03
    waited = [[first + k, k * gap] for k in range(min(moved, polls))] if moved <= polls else \
        [[first, 0.0]]
    waited.append([first + moved, polls * gap + 0.05])
    rec = {"sleep": 0.24, "gap": gap, "polls": polls, "count": first + 40, "waited": waited}
    value, evidence = fit_release(rec, "lib")
    assert value == expected and evidence["observed"]["went on while polling"] == moved
