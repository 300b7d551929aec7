"""Matched probes (MPI 4.1 §3.8.2, §3.8.3) in native programs: ``mpi.mprobe`` and
``mpi.improbe`` take the message they match, so that no other receive can match it, and
``mpi.mrecv`` / ``mpi.imrecv`` receive it, once.

Each rule is one test; the expectations are worked out by hand from the program (which
message each call meets), and a hypothesis test checks the invariant over many message
patterns: every message is received exactly once and, per sender, in sending order
(non-overtaking, 3.5), when every receive goes through a matched probe.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.p2p.matched import NO_PROC

NET = {"latency": 1e-6, "bandwidth": 1e10}


def run(program, ranks=2, **kw):
    return ms.run(program, ranks=ranks, network={**NET, **kw.pop("network", {})}, **kw)


def test_a_matched_message_cannot_be_taken_by_a_later_receive():
    """3.8.2: after MPI_Mprobe matched a message, a receive that would match it (ANY_SOURCE,
    ANY_TAG) gets the next message instead; Mrecv then gets the probed one."""
    seen = []

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(buf=np.array([1.0]), dest=1, tag=5)
            yield mpi.send(buf=np.array([2.0]), dest=1, tag=6)
            return
        message, status = yield mpi.mprobe(source=0, tag=5)
        seen.append(("mprobe", status.source, status.tag, status.count))
        other = np.zeros(1)
        status = yield mpi.recv(buf=other, source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
        seen.append(("recv", status.tag, other[0]))
        probed = np.zeros(1)
        status = yield mpi.mrecv(buf=probed, message=message)
        seen.append(("mrecv", status.tag, probed[0]))

    r = run(program)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert seen == [("mprobe", 0, 5, 8), ("recv", 6, 2.0), ("mrecv", 5, 1.0)]


def test_a_plain_probe_does_not_see_a_matched_message():
    """3.8.2: a matched message is out of matching: MPI_Iprobe for it finds nothing."""
    seen = []

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=4, datatype=ms.BYTE, dest=1, tag=1)
            return
        message, _ = yield mpi.mprobe(source=0, tag=1)
        flag, _ = yield mpi.iprobe(source=0, tag=1)
        seen.append(flag)
        yield mpi.mrecv(message=message)
        flag, _ = yield mpi.iprobe(source=0, tag=1)
        seen.append(flag)

    assert run(program).outcome is ms.Outcome.COMPLETED
    assert seen == [False, False]


def test_a_blocked_mprobe_takes_the_message_before_a_later_improbe():
    """3.8.2: a blocked MPI_Mprobe takes the message when it arrives; an MPI_Improbe of
    the same rank, later, finds nothing (here two ranks' threads are modelled by one rank
    that probes, blocks, then polls)."""
    seen = []

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.compute(1e-3)
            yield mpi.send(count=8, datatype=ms.BYTE, dest=1, tag=3)
            return
        message, status = yield mpi.mprobe(source=ms.ANY_SOURCE, tag=3)
        seen.append((mpi.now > 1e-3, status.source, status.count))
        flag, other, _ = yield mpi.improbe(source=0, tag=3)
        seen.append((flag, other))
        yield mpi.mrecv(message=message)

    assert run(program).outcome is ms.Outcome.COMPLETED
    assert seen == [(True, 0, 8), (False, None)]


def test_improbe_that_finds_nothing_is_a_poll_and_a_loop_on_it_ends():
    """3.8.2: MPI_Improbe returns flag false at once when nothing matches; a loop on it
    advances simulated time (each poll takes the poll time) until the message is there."""
    polls = []

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.compute(5e-6)
            yield mpi.send(count=1, datatype=ms.INT, dest=1, tag=0)
            return
        flag = False
        while not flag:
            flag, message, status = yield mpi.improbe(source=0, tag=0)
            polls.append(mpi.now)
        status = yield mpi.mrecv(count=1, datatype=ms.INT, message=message)
        assert status.count == 4

    r = run(program)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert len(polls) > 10 and polls[-1] > 5e-6


def test_mprobe_of_proc_null_gives_message_no_proc():
    """3.8.2: a matched probe of MPI_PROC_NULL returns MPI_MESSAGE_NO_PROC at once; its
    receive completes at once with source PROC_NULL, tag ANY_TAG, count 0 (3.11)."""
    seen = []

    def program(mpi):
        message, status = yield mpi.mprobe(source=ms.PROC_NULL)
        seen.append((message is NO_PROC, status.source, status.tag, status.count))
        flag, message, _ = yield mpi.improbe(source=ms.PROC_NULL)
        seen.append((flag, message is NO_PROC))
        status = yield mpi.mrecv(message=message)
        seen.append((status.source, status.tag, status.count))

    assert run(program, ranks=1).outcome is ms.Outcome.COMPLETED
    assert seen == [(True, -1, -1, 0), (True, True), (-1, -1, 0)]


def test_a_matched_message_is_received_once():
    """3.8.3: MPI_Mrecv on a message already received is erroneous: MPI_ERR_REQUEST."""
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=1, datatype=ms.BYTE, dest=1)
            return
        message, _ = yield mpi.mprobe(source=0)
        yield mpi.mrecv(message=message)
        yield mpi.mrecv(message=message)

    r = run(program)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "MPI_ERR_REQUEST"


def test_imrecv_of_a_rendezvous_message_completes_after_the_data_arrived():
    """3.8.3 with the rendezvous protocol: the data of a matched message larger than the
    eager limit moves only when it is received (MPI_Imrecv sends the clear-to-send), so the
    sender's MPI_Send returns only after the receiver's Imrecv."""
    times = {}

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=1000, datatype=ms.DOUBLE, dest=1)
            times["sent"] = mpi.now
            return
        message, _ = yield mpi.mprobe(source=0)
        yield mpi.compute(1e-3)
        times["imrecv"] = mpi.now
        req = yield mpi.imrecv(count=1000, datatype=ms.DOUBLE, message=message)
        yield mpi.wait(req)

    r = run(program, network={"eager_limit": 1024})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert times["sent"] > times["imrecv"] >= 1e-3


def test_a_matched_message_never_received_is_reported_unreceived():
    """A message a matched probe took and nobody received is still a send nobody
    received at the end of the run (the run's unreceived messages count it)."""
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=1, datatype=ms.BYTE, dest=1)
            return
        yield mpi.mprobe(source=0)

    r = run(program)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.messages["sent"] == 1 and r.messages["received"] == 0


def test_a_blocked_mprobe_in_a_deadlock_is_reported_with_its_peer():
    def program(mpi):
        if mpi.rank == 1:
            yield mpi.mprobe(source=0, tag=9)

    r = run(program)
    assert r.outcome is ms.Outcome.DEADLOCK
    assert [(b.rank, b.call, b.peer, b.tag) for b in r.deadlock.blocked] == [
        (1, "MPI_Mprobe", 0, 9), (0, "MPI_Finalize", None, None)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.sampled_from([8, 4096])),
                min_size=1, max_size=12),
       st.booleans())
def test_every_message_is_received_once_in_order_through_matched_probes(plan, blocking):
    """3.5 and 3.8.2: senders 1..3 send (tag, size) messages to rank 0, which receives all
    of them with ANY_SOURCE/ANY_TAG matched probes (blocking or polling) and Mrecv; every
    message arrives exactly once, and each sender's in the order it sent them."""
    sent: dict[int, list[int]] = {1: [], 2: [], 3: []}
    got: dict[int, list[int]] = {1: [], 2: [], 3: []}
    for serial, (sender, _tag, _size) in enumerate(plan):
        sent[sender + 1].append(serial)

    def program(mpi):
        if mpi.rank == 0:
            for _ in plan:
                if blocking:
                    message, status = yield mpi.mprobe()
                else:
                    flag = False
                    while not flag:
                        flag, message, status = yield mpi.improbe()
                buf = np.zeros(status.count // 8)
                yield mpi.mrecv(buf=buf, message=message)
                got[status.source].append(int(buf[0]))
            return
        for serial, (sender, tag, size) in enumerate(plan):
            if sender + 1 == mpi.rank:
                data = np.full(size // 8, float(serial))
                yield mpi.send(buf=data, dest=0, tag=tag)

    r = run(program, ranks=4, network={"eager_limit": 1024})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert got == sent


@pytest.mark.parametrize("call", ["mprobe", "improbe"])
def test_a_bad_source_fails_the_matched_probe(call):
    def program(mpi):
        yield getattr(mpi, call)(source=5)

    r = run(program)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "MPI_ERR_RANK"
