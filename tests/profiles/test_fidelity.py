"""Fidelity: non-overtaking across protocols, and profiles that wait where the real libraries
wait. Each real-library case cites the measurement in the facts about MPICH 4.0.2 (ch4:ucx)
and Open MPI 4.1.4 (shared memory) that it reproduces."""

from __future__ import annotations

import pytest
from helpers.programs import fallback
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms

EAGER_LIMIT = 256


def _ordered_pair(sends, delays, bandwidth):
    """Rank 0 isends ``sends`` (sizes) to rank 1 with ``delays`` before each; rank 1
    receives each with a buffer of exactly that size, so a message matched out of posting
    order truncates or is seen out of order."""
    def prog(mpi):
        if mpi.rank == 0:
            reqs = []
            for k, (n, d) in enumerate(zip(sends, delays, strict=True)):
                if d:
                    yield mpi.compute(d)
                reqs.append((yield mpi.isend(buf=k, count=n, dest=1, tag=0)))
            yield mpi.waitall(reqs)
            return None
        got = []
        for n in sends:
            got.append((yield mpi.recv(count=n, source=0, tag=0)).data)
        return got
    return ms.run(prog, ranks=2, network=ms.Network(eager_limit=EAGER_LIMIT, bandwidth=bandwidth))


@pytest.mark.parametrize("bandwidth", ["10 GB/s", "1 GB/s", "100 MB/s", "1 MB/s"])
def test_3_5_a_later_rendezvous_message_never_overtakes_earlier_eager_ones(bandwidth):
    """3.5 non-overtaking: 16, 16, 104 B eager then, 100 ns later, 512 B rendezvous; the
    request-to-send costs only latency and could reach the receiver before the eager bytes
    still queued on the sender's port, but it is matched after them."""
    r = _ordered_pair([16, 16, 104, 512], [0, 0, 0, 100e-9], bandwidth)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[1] == [0, 1, 2, 3]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 8, 16, 104, 256, 257, 512, 4096]),
                          st.one_of(st.just(0.0), st.floats(1e-9, 3e-7))),
                min_size=2, max_size=12),
       st.sampled_from([1e10, 3e9, 1e9, 7e8, 1e8]))
def test_3_5_matching_follows_posting_order_per_pair_whatever_the_protocol(sends, bw):
    """3.5 non-overtaking, as a property: eager and rendezvous messages back to back, with
    the sender's port congested, are matched in the order they were posted."""
    sizes = [n for n, _ in sends]
    r = _ordered_pair(sizes, [d for _, d in sends], bw)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[1] == list(range(len(sizes)))


def _eager_flood(n, profile="mpich", sleep=1.0):
    """The issue's program: n eager sends, then one with another tag that the sleeping
    receiver asks for first."""
    def prog(mpi):
        if mpi.rank == 0:
            times = []
            for _ in range(n):
                yield mpi.send(count=8, dest=1, tag=0)
                times.append(mpi.now)
            yield mpi.send(count=4, dest=1, tag=99)
            return times
        yield mpi.compute(sleep)
        yield mpi.recv(count=4, source=0, tag=99)  # the last message first
        for _ in range(n):
            yield mpi.recv(count=8, source=0, tag=0)
        return None
    return ms.run(prog, ranks=2, mpi={"profile": profile})


@pytest.mark.parametrize("n", [64, 65, 200, 1000])
def test_mpich_cells_are_freed_by_the_receivers_progress_not_by_matching(n):
    """facts (MPICH): 64, 65, 200 and 1000 eager 8-byte sends followed by one with another
    tag that the receiver asks for first all complete; the 65th send waits about as long
    as the receiver slept (its 64 cells free once the receiver enters MPI)."""
    r = _eager_flood(n)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    times = r.returned[0]
    assert max(times[:64]) < 1e-3
    if n > 64:
        assert times[64] >= 1.0 and times[64] < 1.0 + 1e-3


def test_a_send_waiting_for_a_cell_shows_in_the_timeline_as_the_call_that_waits():
    """facts (MPICH): it is the 65th MPI_Send that waits; its call interval in the trace
    lasts as long as the receiver slept."""
    r = _eager_flood(65)
    calls = r.trace.calls[(r.trace.calls["rank"] == 0)]
    durations = calls["end"] - calls["start"]
    assert (durations >= 1.0).sum() == 1 and durations[64] >= 1.0


@pytest.mark.parametrize("nbytes, local", [(8, 143), (64, 58), (256, 30), (300, 0),
                                           (1024, 0), (2048, 0), (4040, 0)])
def test_openmpi_small_standard_sends_are_not_local(nbytes, local):
    """facts (Open MPI, shared memory, receiver asleep 1 s): blocking MPI_Sends of 8 B: 143
    return at once, the 144th waits for the receiver; of 64 B: 58; of 256 B: 30; of 300,
    1024, 2048 or 4040 B the first one already waits."""
    def prog(mpi, count=200):
        if mpi.rank == 0:
            returned = 0
            for _ in range(count):
                yield mpi.send(count=nbytes, dest=1)
                if mpi.now >= 1.0:
                    break
                returned += 1
            return returned
        yield mpi.compute(1.0)
        for _ in range(count):
            yield mpi.recv(count=nbytes, source=0)
        return None

    r = ms.run(prog, ranks=2, params={"count": local + 1}, mpi={"profile": "openmpi"})
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[0] == local


@pytest.mark.parametrize("nbytes", [1024, 4040])
def test_openmpi_bsends_below_the_eager_limit_return_at_once(nbytes):
    """facts (Open MPI): MPI_Bsends of 1024 and 4040 B return at once (copied into transport
    memory, bypassing the attached buffer), even to a sleeping receiver."""
    def prog(mpi):
        if mpi.rank == 0:
            for _ in range(200):
                yield mpi.bsend(count=nbytes, dest=1)
            return mpi.now
        yield mpi.compute(1.0)
        for _ in range(200):
            yield mpi.recv(count=nbytes, source=0)
        return None

    r = ms.run(prog, ranks=2, mpi={"profile": "openmpi"})
    assert r.outcome is ms.Outcome.COMPLETED and r.returned[0] < 1e-3


def test_mpich_small_send_behind_a_pending_rendezvous_waits_and_detach_returns_at_once():
    """facts (MPICH, ch4:ucx): a small standard send queued behind a pending rendezvous
    message to the same peer blocks until the receiver makes progress; detach then returns
    at once (receiver asleep 1 s: the 4-byte MPI_Send takes 1.0 s, detach 0.0001 s)."""
    def prog(mpi, big=100_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(big + 1000)
            yield mpi.bsend(count=big, dest=1, tag=1)
            t0 = mpi.now
            yield mpi.send(count=4, dest=1, tag=2)
            t1 = mpi.now
            yield mpi.buffer_detach()
            return t1 - t0, mpi.now - t1
        yield mpi.compute(1.0)
        yield mpi.recv(count=big, source=0, tag=1)
        yield mpi.recv(count=4, source=0, tag=2)
        return None

    send, detach = ms.run(prog, ranks=2, mpi={"profile": "mpich"}).returned[0]
    assert send == pytest.approx(1.0, abs=1e-4)
    assert detach < 1e-4
    send, detach = ms.run(prog, ranks=2, mpi={"profile": "standard"}).returned[0]
    assert send < 1e-4 and detach == pytest.approx(1.0, abs=1e-4)  # the standard's model


def test_openmpi_stalls_a_pair_after_a_failed_bsend_mpich_goes_on():
    """facts (edge cases): after a bsend fails with MPI_ERR_BUFFER, a later MPI_Send of
    that pair is never matched on Open MPI (5.0.11 and 4.1.4, shared memory); MPICH goes on.
    The deadlock report names the failed bsend as the cause."""
    assert ms.run(fallback, ranks=2, mpi={"profile": "mpich"}).outcome is ms.Outcome.COMPLETED
    r = ms.run(fallback, ranks=2, mpi={"profile": "openmpi"})
    assert r.outcome is ms.Outcome.DEADLOCK
    blocked = {b.rank: b for b in r.deadlock.blocked}
    assert blocked[1].call == "MPI_Recv" and blocked[1].tag == 1
    assert "MPI_Bsend to rank 1 failed with MPI_ERR_BUFFER" in blocked[1].reason
    assert "MPI_Bsend to rank 1 failed" in r.report()


def test_mpich_overflow_says_exactly_what_the_message_needs():
    """facts (MPICH): a bsend of m bytes fits a free block of 88 + m bytes (the entry is cut
    at 88 + ceil16(m) only when more follows), so the overflow names 88 + m, and a buffer of
    exactly that size takes the message. The JSON gives the message's packed size
    (``requested``, as MPICH reports it) and the entry size apart."""
    def prog(mpi, size=9087):
        yield mpi.buffer_attach(size)
        yield mpi.bsend(count=9000, dest=0)
        yield mpi.recv(count=9000, source=0)

    r = ms.run(prog, ranks=1, mpi={"profile": "mpich"})
    assert r.outcome is ms.Outcome.ERROR
    assert "needs 9088 B of contiguous free space" in r.error.message
    assert "an entry of 9096 B when more follows" in r.error.message
    err = r.to_dict()["error"]
    assert (err["requested"], err["entry_bytes"], err["largest_free"]) == (9000, 9096, 9087)
    ok = ms.run(prog, ranks=1, mpi={"profile": "mpich"}, params={"size": 9088})
    assert ok.outcome is ms.Outcome.COMPLETED


def test_flush_covers_the_messages_in_the_buffer_at_the_call():
    """MPI 4.1 MPI_Buffer_iflush / MPI_Buffer_flush: "all messages currently in the buffer";
    a bsend made after the call does not delay its completion."""
    def prog(mpi, n=100_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(3 * (n + 96))
            yield mpi.bsend(count=n, dest=1, tag=1)       # received at 10 us
            req = yield mpi.buffer_iflush()
            yield mpi.bsend(count=n, dest=1, tag=2)       # received at 50 us
            yield mpi.wait(req)
            flushed = mpi.now
            yield mpi.bsend(count=n, dest=1, tag=3)       # received at 90 us
            yield mpi.buffer_flush()
            return flushed, mpi.now
        for tag, at in ((1, 10e-6), (2, 50e-6), (3, 90e-6)):
            yield mpi.compute(at - mpi.now)
            yield mpi.recv(count=n, source=0, tag=tag)
        return None

    r = ms.run(prog, ranks=2, network={"latency": "1us", "bandwidth": "10 GB/s"})
    iflush, flush = r.returned[0]
    assert iflush == pytest.approx(10e-6 + 1e-6 + 10e-6)   # CTS, then the bytes leave
    assert flush == pytest.approx(90e-6 + 1e-6 + 10e-6)


@pytest.mark.parametrize("how", ["AUTOMATIC", "automatic", ms.BUFFER_AUTOMATIC])
def test_buffer_automatic_as_the_run_buffer(how):
    """MPI 4.1 MPI_BUFFER_AUTOMATIC as ``ms.run(buffer=...)``: MPI allocates as needed, so
    50 outstanding 100000-byte bsends never overflow; the peak is what they needed."""
    def prog(mpi):
        for _ in range(50):
            yield mpi.bsend(count=100_000, dest=1 - mpi.rank)
        for _ in range(50):
            yield mpi.recv(count=100_000, source=1 - mpi.rank)

    r = ms.run(prog, ranks=2, buffer=how)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.ranks[0].buffer.peak_live == 50 * (100_000 + 96)


@pytest.mark.parametrize("profile", ["standard", "mpich", "openmpi"])
def test_example_3_10_with_ibsend_and_wait_completes_under_every_profile(profile):
    """3.5 Example 3.10 written with MPI_Ibsend + MPI_Wait + MPI_Recv of 100000 B: the
    ibsend request is complete when the call returns (3.6; both libraries), so both
    ranks reach their receive."""
    def prog(mpi, n=100_000):
        peer = 1 - mpi.rank
        yield mpi.buffer_attach(n + 1000)
        req = yield mpi.ibsend(count=n, dest=peer)
        yield mpi.wait(req)
        yield mpi.recv(count=n, source=peer)
        yield mpi.buffer_detach()

    assert ms.run(prog, ranks=2, mpi={"profile": profile}).outcome is ms.Outcome.COMPLETED


def test_buffer_automatic_from_the_command_line(tmp_path):
    """`--set buffer=AUTOMATIC` and the scenario key `buffer: AUTOMATIC` attach
    MPI_BUFFER_AUTOMATIC on every rank (MPI 4.1)."""
    import json
    import subprocess
    import sys
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nranks: 2\nbuffer: AUTOMATIC\nprograms:\n  - ranks: all\n"
                    "    ops:\n      - loop: {times: 5, ops: [{bsend: {dest: 1 - rank, "
                    "bytes: 100 KiB}}]}\n      - loop: {times: 5, ops: [{recv: {source: "
                    "1 - rank, bytes: 100 KiB}}]}\n")
    for args in ([], ["--set", "buffer=AUTOMATIC"]):
        out = subprocess.run([sys.executable, "-m", "mpisim", "run", str(path), "--json", *args],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        d = json.loads(out.stdout)
        assert d["outcome"] == "completed"
        assert d["ranks"][0]["buffer"]["peak_live"] == 5 * (102400 + 96)


def test_jitter_never_reorders_a_pairs_channel_even_where_the_receiver_takes_messages():
    """3.5 non-overtaking with seeded jitter: a pair's channel is FIFO, so a message never
    reaches the receiver's shared memory before an earlier one. Under Open MPI's model the
    receiver's progress completes sends of 300 B as their messages arrive: those completion
    times follow the sending order."""
    def prog(mpi, n=30):
        if mpi.rank == 0:
            reqs = []
            for _ in range(n):
                reqs.append((yield mpi.isend(count=300, dest=1, tag=1)))
            yield mpi.waitall(reqs)
            yield mpi.send(count=1, dest=1, tag=2)
            return None
        yield mpi.recv(count=1, source=0, tag=2)  # inside MPI all along: takes each arrival
        for _ in range(n):
            yield mpi.recv(count=300, source=0, tag=1)
        return None

    r = ms.run(prog, ranks=2, mpi={"profile": "openmpi"},
               network={"jitter": "5us", "latency": "1us"}, seed=3)
    assert r.outcome is ms.Outcome.COMPLETED
    msgs = r.trace.messages
    done = msgs[msgs["tag"] == 1]["send_done"]
    assert (done[1:] >= done[:-1]).all()


def _send_to_a_receiver_asleep_after_posting(mode, needs_progress, profile="standard",
                                             nbytes=100_000, sleep=0.5):
    """The held-out program: rank 1 posts its receive, then computes ``sleep`` s, then
    waits; rank 0 sends ``nbytes`` (rendezvous) once rank 1 computes. (When rank 0's send
    returned, when rank 1's wait did.)"""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.compute(sleep / 10)
            yield getattr(mpi, mode)(count=nbytes, dest=1, tag=1)
            return mpi.now
        req = yield mpi.irecv(count=nbytes, source=0, tag=1)
        yield mpi.compute(sleep)
        yield mpi.wait(req)
        return mpi.now
    net = ms.Network(rendezvous_needs_progress=needs_progress, eager_limit=65536)
    r = ms.run(prog, ranks=2, network=net, mpi={"profile": profile})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    return r.returned


@pytest.mark.parametrize("mode", ["send", "ssend"])
def test_a_rendezvous_send_waits_for_a_receiver_computing_after_posting(mode):
    """Measured (MPICH 5.0.2 and Open MPI 5.0.11, shared memory, no asynchronous progress
    thread): rank 1 posts its receive and sleeps 0.5 s; rank 0's rendezvous MPI_Send, made
    while rank 1 sleeps, waits until rank 1's next MPI call (MPI_Wait): the receiver answers
    the request-to-send only inside MPI. Under ``rendezvous_needs_progress`` the send
    completes at 0.5 s + clear-to-send (1 us) + data (100000 B at 10 GB/s); without it (the
    standard's ideal transport, 3.4) as soon as the posted receive answers."""
    sleep, cts, data = 0.5, 1e-6, 100_000 / 10e9
    send, wait = _send_to_a_receiver_asleep_after_posting(mode, True)
    assert send == pytest.approx(sleep + cts + data, abs=1e-9)
    assert wait == pytest.approx(sleep + cts + data + 1e-6, abs=1e-9)  # + the data's latency
    send, wait = _send_to_a_receiver_asleep_after_posting(mode, False)
    assert send == pytest.approx(sleep / 10 + 2e-6 + data, abs=1e-9)  # RTS + CTS + data
    assert wait == pytest.approx(sleep, abs=1e-9)


def test_an_eager_send_to_a_receiver_computing_after_posting_never_waits_for_it():
    """The setting holds request-to-send messages only: an eager 1000-byte MPI_Send to the
    same receiver completes as soon as its bytes have left (3.4: buffered by the system)."""
    send, _ = _send_to_a_receiver_asleep_after_posting("send", True, nbytes=1000)
    assert send < 0.05 + 1e-5


@pytest.mark.parametrize(("profile", "waits"), [("mpich-5.0", True), ("openmpi-5.0", True),
                                                ("mpich-4.0", False), ("openmpi-4.1", False),
                                                ("standard", False)])
def test_the_measured_5_0_profiles_answer_a_request_to_send_only_inside_mpi(profile, waits):
    """Measured on MPICH 5.0.2 and Open MPI 5.0.11 (receiver posts, sleeps 0.5 s; the
    rendezvous MPI_Send waits until its MPI_Wait): their profiles turn the setting on; the
    4.x measurements say nothing of it, so those profiles keep the ideal transport."""
    send, _ = _send_to_a_receiver_asleep_after_posting("send", None, profile=profile)
    assert (send >= 0.5) is waits
