"""Buffered mode in the running simulator (MPI 3.6, 3.6.1): attach, bsend, detach, overflow."""

from __future__ import annotations

import json

import pytest

import mpisim as ms

L, BW = 1e-6, 1e10
NET = {"latency": L, "bandwidth": BW, "eager_limit": "4 KiB"}


def example_3_10_bsend(mpi, count=1000, extra=0):
    """3.5 Example 3.10 with MPI_Bsend: the attached buffer does the buffering."""
    peer = 1 - mpi.rank
    yield mpi.buffer_attach(mpi.pack_size(count, ms.REAL) + mpi.BSEND_OVERHEAD + extra)
    yield mpi.bsend(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
    _address, size = yield mpi.buffer_detach()
    return size


def test_example_3_10_with_bsend_completes_with_pack_size_plus_overhead():
    """3.6.1: an entry needs pack_size(count, datatype) + MPI_BSEND_OVERHEAD bytes."""
    r = ms.run(example_3_10_bsend, ranks=2, network=NET, params={"count": 5000})
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned == [20096, 20096]
    assert [x.buffer.peak_used for x in r.ranks] == [20096, 20096]
    assert [x.buffer.bsends for x in r.ranks] == [1, 1]


def test_example_3_10_with_bsend_overflows_one_byte_below():
    """3.5 advice: with too little buffer the program fails with an overflow, not a deadlock."""
    r = ms.run(example_3_10_bsend, ranks=2, network=NET, params={"count": 5000, "extra": -1})
    assert r.outcome is ms.Outcome.ERROR
    assert (r.error.call, r.error.error_class) == ("MPI_Bsend", "MPI_ERR_BUFFER")
    d = json.loads(r.to_json())["error"]
    assert d["requested"] == 20000 and d["entry_bytes"] == 20096
    assert d["free"] == 20095 and d["entries"] == []
    assert "20096" in r.error.message and "20095" in r.error.message


def test_bsend_with_no_buffer_attached_raises_mpi_err_buffer():
    """3.6: with no buffer attached MPI behaves as with a zero-size buffer."""
    def prog(mpi):
        try:
            yield mpi.bsend(count=1, dest=0)
        except ms.MPIError as e:
            return e.error_class

    r = ms.run(prog, ranks=1)
    assert r.returned == ["MPI_ERR_BUFFER"] and r.ranks[0].buffer.overflows == 1


def test_only_one_buffer_can_be_attached_at_a_time():
    """3.6: 'Only one buffer can be attached to a process at a time.'"""
    def prog(mpi):
        yield mpi.buffer_attach(1000)
        try:
            yield mpi.buffer_attach(1000)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1).returned == ["MPI_ERR_BUFFER"]


def _after_a_refused_attach(mpi):
    """Attach 95 B (below MPICH's 96), then try a valid attach, a bsend, and detach."""
    got = []
    for call in (lambda: mpi.buffer_attach(95), lambda: mpi.buffer_attach(4096),
                 lambda: mpi.bsend(count=8, datatype=ms.BYTE, dest=0, tag=0), mpi.buffer_detach,
                 lambda: mpi.buffer_attach(4096), mpi.buffer_detach):
        try:
            value = yield call()
            got.append("ok" if value is None else value[1])
        except ms.MPIError as e:
            got.append(e.error_class)
    return got


@pytest.mark.parametrize(("profile", "expected"), [
    ("mpich-5.0", ["MPI_ERR_BUFFER", "MPI_ERR_OTHER", "MPI_ERR_BUFFER", 0, "ok", 4096]),
    ("mpich-4.0", ["MPI_ERR_BUFFER", "ok", "ok", 4096, "ok", 4096])])
def test_a_refused_attach_stays_attached_where_the_library_leaves_it(profile, expected):
    """MPICH 5.0.2 (observed, tests/data/real/refused_attach.py): an attach below
    MPI_BSEND_OVERHEAD is MPI_ERR_BUFFER yet stays attached with 0 B usable: attaching
    another is attaching twice, a bsend finds no room, detach returns size 0. Elsewhere (3.6)
    a refused attach attaches nothing."""
    result = ms.run(_after_a_refused_attach, ranks=1, mpi={"profile": profile})
    assert result.returned == [expected]


@pytest.mark.parametrize("size", [-1, 2**63, 1.5])
def test_bad_attach_sizes_raise_mpi_err_arg(size):
    """facts: a negative size is MPI_ERR_ARG; a size must be an integer that fits the
    MPI_Count of MPI_Buffer_attach_c."""
    def prog(mpi):
        try:
            yield mpi.buffer_attach(size)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1).returned == ["MPI_ERR_ARG"]


def test_attach_sizes_above_int_max_are_accepted_and_allocate_nothing():
    """MPI 4.1 MPI_Buffer_attach_c takes an MPI_Count (mpi4py passes Python ints): a 1 TiB
    buffer above INT_MAX is accepted, holds a bsend, and detach returns its size."""
    import tracemalloc

    def prog(mpi):
        yield mpi.buffer_attach(2**40)
        yield mpi.bsend(count=2**33, dest=0)
        yield mpi.recv(count=2**33, source=0)
        return (yield mpi.buffer_detach())[1]

    tracemalloc.start()
    r = ms.run(prog, ranks=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.outcome is ms.Outcome.COMPLETED and r.returned == [2**40]
    assert r.ranks[0].buffer.peak_live == 2**33 + 96
    assert peak < 10_000_000


@pytest.mark.parametrize("profile, error", [("openmpi", "MPI_ERR_BUFFER"), ("standard", None),
                                            ("mpich", "MPI_ERR_BUFFER")])
def test_attaching_zero_bytes(profile, error):
    """facts: MPICH refuses attaches below MPI_BSEND_OVERHEAD (0 included); Open MPI accepts
    small ones but not 0 (it returns an invalid raw error code, reported as MPI_ERR_BUFFER);
    the standard's model takes a zero-size buffer (3.6)."""
    def prog(mpi):
        try:
            yield mpi.buffer_attach(0)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1, mpi={"profile": profile}).returned == [error]


def test_detach_without_a_buffer_returns_none_and_zero():
    """facts: MPICH (and the standard profile) return address NULL, size 0."""
    def prog(mpi):
        return (yield mpi.buffer_detach())

    assert ms.run(prog, ranks=1).returned == [(None, 0)]


def test_example_3_11_attach_detach_attach_again():
    """3.6 Example: detach returns the address and size given; attaching them again works."""
    def prog(mpi):
        yield mpi.buffer_attach(10000)
        address, size = yield mpi.buffer_detach()
        yield mpi.buffer_attach(size, address)
        yield mpi.bsend(count=100, dest=mpi.rank)
        yield mpi.recv(count=100, source=mpi.rank)
        again = yield mpi.buffer_detach()
        return size, again == (address, size)

    assert ms.run(prog, ranks=1).returned == [(10000, True)]


def detach_waits(mpi, nbytes=100_000, delay=50e-6):
    if mpi.rank == 0:
        yield mpi.buffer_attach(nbytes + mpi.BSEND_OVERHEAD)
        yield mpi.bsend(count=nbytes, dest=1)
        t_bsend = mpi.now
        yield mpi.buffer_detach()
        return t_bsend, mpi.now
    yield mpi.compute(delay)
    yield mpi.recv(count=nbytes, source=0)
    return mpi.now


def test_detach_blocks_until_the_receiver_took_a_rendezvous_message():
    """3.6: detach blocks until all messages in the buffer have been transmitted; a
    rendezvous entry's send completes when the data has left after the match."""
    n, delay = 100_000, 50e-6
    r = ms.run(detach_waits, ranks=2, network=NET, params={"nbytes": n, "delay": delay})
    t_bsend, t_detach = r.returned[0]
    assert t_bsend == 0.0  # bsend is local
    assert t_detach == pytest.approx(delay + L + n / BW)  # CTS back, then the bytes left
    assert r.returned[1] == pytest.approx(delay + 2 * L + n / BW)


def test_eager_entry_is_freed_once_injected():
    """Entry life cycle: an eager message's entry completes once its bytes have left."""
    r = ms.run(detach_waits, ranks=2, network=NET, params={"nbytes": 1000})
    assert r.returned[0][1] == pytest.approx(1000 / BW)


def test_a_program_ending_with_pending_entries_waits_like_finalize():
    def prog(mpi, n=100_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(n + mpi.BSEND_OVERHEAD)
            yield mpi.bsend(count=n, dest=1)
            return mpi.now
        yield mpi.compute("20us")
        yield mpi.recv(count=n, source=0)

    r = ms.run(prog, ranks=2, network=NET)
    assert r.returned[0] == 0.0
    assert r.ranks[0].end_time == pytest.approx(20e-6 + L + 100_000 / BW)
    assert r.trace.calls_of(0)["call"][-1] == "MPI_Finalize"


def test_finalize_waiting_for_a_receiver_that_never_comes_is_a_deadlock():
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach("1 MiB")
            yield mpi.bsend(count=100_000, dest=1, tag=5)

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.DEADLOCK
    b, other = r.deadlock.blocked  # rank 1 waits in MPI_Finalize too (collective, 11.2.2)
    assert (b.rank, b.call, b.waits_for) == (0, "MPI_Finalize", [1])
    assert (other.rank, other.call, other.waits_for) == (1, "MPI_Finalize", [0])


def test_ibsend_request_is_complete_once_buffered():
    def prog(mpi):
        yield mpi.buffer_attach("1 MiB")
        req = yield mpi.ibsend(count=100_000, dest=mpi.rank)
        flag, _ = yield mpi.test(req)
        yield mpi.recv(count=100_000, source=mpi.rank)
        return flag

    assert ms.run(prog, ranks=1, network=NET).returned == [True]


def test_overflow_error_lists_the_entries_and_the_largest_free_block():
    def prog(mpi):
        yield mpi.buffer_attach(3 * (5000 + 96))
        for _ in range(4):
            yield mpi.bsend(count=5000, dest=1)

    r = ms.run(prog, ranks=2, network=NET)
    err = r.to_dict()["error"]
    assert err["requested"] == 5000 and err["entry_bytes"] == 5096 and err["free"] == 0
    assert [(e["offset"], e["size"], e["state"]) for e in err["entries"]] == [
        (0, 5096, "pending"), (5096, 5096, "pending"), (10192, 5096, "pending")]
    assert r.ranks[0].buffer.overflows == 1


def test_buffer_trace_records_every_change():
    r = ms.run(example_3_10_bsend, ranks=2, network=NET, params={"count": 5000})
    rows = r.trace.buffer_of(0)
    assert list(rows["event"]) == ["attach", "bsend", "complete", "detach"]
    bsend = rows[1]
    assert (bsend["used"], bsend["live"], bsend["entries"]) == (20096, 20096, 1)
    complete = rows[2]
    assert (complete["used"], complete["live"]) == (20096, 0)  # done but not yet reclaimed
    (entry,) = r.trace.entries[r.trace.entries["rank"] == 0]
    assert entry["offset"] == 0 and entry["size"] == 20096 and entry["msg"] >= 0


def test_attaching_a_huge_buffer_allocates_nothing():
    """The allocator works on offsets, so the largest attach (INT_MAX
    bytes: MPI_Buffer_attach's size is a C int) and a 1 TiB allocator cost what 1 KiB costs."""
    import tracemalloc

    from mpisim.buffered.allocators import make_allocator

    def prog(mpi):
        yield mpi.buffer_attach(2**31 - 1)
        yield mpi.bsend(count=2**30, dest=0)
        yield mpi.recv(count=2**30, source=0)

    tracemalloc.start()
    r = ms.run(prog, ranks=1)
    alloc = make_allocator("circular", 2**40, overhead=96)
    entry = alloc.allocate(2**39)[0]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert r.outcome is ms.Outcome.COMPLETED and r.ranks[0].buffer.peak_used == 2**30 + 96
    assert entry.offset == 0 and alloc.free_total() == 2**40 - 2**39 - 96
    assert peak < 10 * 2**20


def test_bsend_overhead_is_the_value_in_force():
    def prog(mpi):
        return mpi.BSEND_OVERHEAD
        yield

    assert ms.run(prog, ranks=1).returned == [96]
    assert ms.run(prog, ranks=1, mpi={"profile": "openmpi"}).returned == [128]
    assert ms.run(prog, ranks=1, mpi={"bsend_overhead": 512}).returned == [512]


def test_force_ssend_makes_bsend_synchronous():
    """3.5: a safe program completes when every send is synchronous; Example 3.10 with
    bsend is not safe."""
    r = ms.run(example_3_10_bsend, ranks=2, network=NET, mpi={"force_ssend": True})
    assert r.outcome is ms.Outcome.DEADLOCK
    assert {b.call for b in r.deadlock.blocked} == {"MPI_Bsend"}


def test_openmpi_profile_detach_without_a_buffer_is_an_error():
    """facts: Open MPI errs on a detach with no buffer attached (MPICH returns NULL, 0)."""
    def prog(mpi):
        try:
            yield mpi.buffer_detach()
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1, mpi={"profile": "openmpi"}).returned == ["MPI_ERR_BUFFER"]
    assert ms.run(prog, ranks=1, mpi={"profile": "mpich"}).returned == [None]


@pytest.mark.parametrize("profile", ["standard", "mpich", "openmpi"])
@pytest.mark.parametrize("size", ["1 MiB", "AUTOMATIC"])
def test_ibsend_request_is_complete_when_the_call_returns_detach_is_what_waits(profile, size):
    """facts (edge cases, MPI_Ibsend request): complete when returned in MPICH and Open MPI
    (MPI_Test flag 1 at once, MPI_Wait returns at once, 100000 B to a sleeping receiver),
    as 3.6 says of buffered mode; detach is what waits for the message to leave."""
    if profile == "openmpi" and size == "AUTOMATIC":
        pytest.skip("Open MPI has no MPI_BUFFER_AUTOMATIC")

    def prog(mpi, n=100_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(size)
            req = yield mpi.ibsend(count=n, dest=1)
            flag, _ = yield mpi.test(req)
            yield mpi.wait(req)
            waited = mpi.now
            yield mpi.buffer_detach()
            return flag, waited, mpi.now
        yield mpi.compute("20us")
        yield mpi.recv(count=n, source=0)

    flag, waited, detached = ms.run(prog, ranks=2, network=NET,
                                    mpi={"profile": profile}).returned[0]
    assert flag is True and waited == pytest.approx(0.0, abs=1e-9)
    assert detached == pytest.approx(20e-6 + L + 100_000 / BW)  # CTS, then the bytes leave


def test_circular_keeps_a_completed_entry_behind_a_pending_head_first_fit_does_not():
    """3.6.1: reclaim stops at the first uncompleted entry; MPICH's first-fit frees every
    completed entry (facts: holes are reused)."""
    def prog(mpi, m=10_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(2 * (m + 96))
            yield mpi.bsend(count=m, dest=1, tag=1)   # head: received late
            yield mpi.bsend(count=m, dest=2, tag=2)   # received at once
            yield mpi.compute("50us")
            try:
                yield mpi.bsend(count=m, dest=2, tag=3)
                return "fits"
            except ms.MPIError as e:
                return e.error_class
        if mpi.rank == 1:
            yield mpi.compute("100us")
            yield mpi.recv(count=m, source=0, tag=1)
        else:
            yield mpi.recv(count=m, source=0, tag=2)
            yield mpi.recv(count=m, source=0, tag=3)

    net = {**NET, "eager_limit": 0}
    circular = ms.run(prog, ranks=3, network=net, mpi={"allocator": "circular"})
    first_fit = ms.run(prog, ranks=3, network=net, mpi={"allocator": "first-fit"})
    assert circular.returned[0] == "MPI_ERR_BUFFER"
    assert first_fit.returned[0] == "fits"


def test_buffer_flush_waits_for_the_buffer_and_keeps_it_attached():
    """MPI 4.1 MPI_Buffer_flush (facts): waits until every message in the buffer has been
    transmitted; the buffer stays attached."""
    def prog(mpi, n=100_000):
        if mpi.rank == 0:
            yield mpi.buffer_attach(n + mpi.BSEND_OVERHEAD)
            yield mpi.bsend(count=n, dest=1)
            yield mpi.buffer_flush()
            t = mpi.now
            yield mpi.bsend(count=n, dest=1)  # fits again: the first entry completed
            req = yield mpi.buffer_iflush()
            flag, _ = yield mpi.test(req)
            yield mpi.wait(req)
            return t, flag, mpi.now
        yield mpi.compute("20us")
        yield mpi.recv(count=n, source=0)
        yield mpi.recv(count=n, source=0)

    t, flag, t2 = ms.run(prog, ranks=2, network=NET).returned[0]
    assert t == pytest.approx(20e-6 + L + 100_000 / BW)
    assert flag is False and t2 > t


def test_buffer_automatic_never_overflows_and_detach_returns_it():
    """MPI 4.1 MPI_BUFFER_AUTOMATIC (facts): MPI allocates as needed; detach returns it."""
    def prog(mpi):
        yield mpi.buffer_attach(ms.BUFFER_AUTOMATIC)
        for _ in range(50):
            yield mpi.bsend(count=100_000, dest=1 - mpi.rank)
        for _ in range(50):
            yield mpi.recv(count=100_000, source=1 - mpi.rank)
        return (yield mpi.buffer_detach())

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned == [(ms.BUFFER_AUTOMATIC, 0)] * 2
    assert r.ranks[0].buffer.peak_live == 50 * (100_000 + 96)


def test_mpich_eager_cells_free_entries_at_once_65_bsends_then_overflow():
    """facts (MPICH 4.0): with B = 96 + 8 and 8-byte bsends to a sleeping receiver, 65
    succeeded and the 66th failed: 64 eager messages fit MPICH's cells and complete at once,
    the 65th waits for a cell, so its entry stays and the 66th finds no room."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach(96 + 8)
            for k in range(1, 100):
                try:
                    yield mpi.bsend(count=8, dest=1)
                except ms.MPIError as e:
                    return k, e.error_class
        else:
            yield mpi.compute("1ms")
            for _ in range(65):
                yield mpi.recv(count=8, source=0)

    r = ms.run(prog, ranks=2, mpi={"profile": "mpich"})
    assert r.returned[0] == (66, "MPI_ERR_BUFFER")
    assert r.outcome is ms.Outcome.COMPLETED


def test_eager_cells_keep_the_pair_in_order_and_block_a_standard_send():
    """network.eager_cells: a send that finds no free cell waits for the receiver, and
    later messages of the pair (even rendezvous ones) never overtake it (3.5)."""
    def prog(mpi):
        if mpi.rank == 0:
            for k in range(3):
                yield mpi.send(buf=k, count=8, dest=1)
            yield mpi.send(buf=3, count=100_000, dest=1)  # rendezvous, behind the queue
            return mpi.now
        yield mpi.compute("50us")
        got = []
        for _ in range(4):
            got.append((yield mpi.recv(count=100_000, source=0)).data)
        return got

    r = ms.run(prog, ranks=2, network={**NET, "eager_cells": 2})
    assert r.returned[1] == [0, 1, 2, 3]
    assert r.returned[0] > 50e-6  # the third send waited for a cell


def test_a_receiver_blocked_in_mpi_frees_cells_so_only_it_deadlocks():
    """facts (MPICH): cells are freed by the receiver's progress, not by matching; a rank
    blocked in a receive is inside MPI, so three sends through two cells all complete and
    only the receiver, waiting for a tag nobody sends, is blocked."""
    def prog(mpi):
        if mpi.rank == 0:
            for _ in range(3):
                yield mpi.send(count=8, dest=1)
        else:
            yield mpi.recv(count=8, source=0, tag=99)  # never matches

    r = ms.run(prog, ranks=2, network={**NET, "eager_cells": 2})
    assert r.outcome is ms.Outcome.DEADLOCK
    assert [(b.rank, b.call) for b in r.deadlock.blocked] == [
        (1, "MPI_Recv"), (0, "MPI_Finalize")]  # rank 0 returned from its sends (11.2.2)
    assert r.ranks[0].finished


def _bsend_at_completion(mpi, wait):
    """Rank 0 bsends 1 KiB into a buffer of one entry, waits ``wait`` seconds, bsends again."""
    if mpi.rank == 0:
        yield mpi.buffer_attach(1024 + mpi.BSEND_OVERHEAD)
        yield mpi.bsend(count=1024, dest=1)
        yield mpi.compute(wait)
        yield mpi.bsend(count=1024, dest=1)
    else:
        for _ in range(2):
            yield mpi.recv(count=1024, source=0)


@pytest.mark.parametrize(("wait", "outcome"), [(2.0 ** -20, ms.Outcome.COMPLETED),
                                               (2.0 ** -20 - 2.0 ** -40, ms.Outcome.ERROR)])
def test_a_bsend_at_the_instant_an_entry_completes_reclaims_it(wait, outcome):
    """3.6.1: reclaim frees the entries completed by the time of the bsend. 1 KiB at
    1 GiB/s leaves the port at exactly 2**-20 s: a bsend at that instant finds the entry
    complete (its send completed before the program went on), one just before does not,
    although nothing but the rank's next buffer call looks at that completion."""
    net = {"latency": 2.0 ** -20, "bandwidth": 2.0 ** 30}
    r = ms.run(_bsend_at_completion, ranks=2, network=net, params={"wait": wait})
    assert r.outcome is outcome
    events = list(r.trace.buffer_of(0)["event"])
    if outcome is ms.Outcome.COMPLETED:
        assert events[:4] == ["attach", "bsend", "complete", "bsend"]
        assert r.trace.entries["done"][0] == 2.0 ** -20
    else:
        assert events == ["attach", "bsend", "overflow"]


def test_buffer_rows_are_in_event_order_when_completions_are_applied_late():
    """The buffer trace lists every change in the order it happened (time first), also
    for entry completions applied when the rank next calls (2 SimPy events per bsend)."""
    def ring(mpi):
        right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
        yield mpi.buffer_attach(3 * (100 + mpi.BSEND_OVERHEAD))
        for i in range(20):
            yield mpi.bsend(count=100, dest=right, tag=0)
            if i % 3 == 2:
                yield mpi.compute(1e-6)
            yield mpi.recv(count=100, source=left, tag=0)

    s = ms.Simulation(ring, ranks=4, network=NET)
    r = s.run()
    assert r.outcome is ms.Outcome.COMPLETED
    assert s.events <= 2 * r.messages["sent"] + 4 * 8  # the bsends', the computes', the ends'
    times = r.trace.buffer["time"]
    assert (times[1:] >= times[:-1]).all()
    for rank in range(4):
        rows = r.trace.buffer_of(rank)
        done = rows[rows["event"] == "complete"]["time"]
        assert sorted(done) == sorted(r.trace.entries[r.trace.entries["rank"] == rank]["done"])


def mixed_traffic(mpi):
    """Bsends and ibsends between standard sends and collectives, whose messages go through
    the same transport: the message ids interleave."""
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    yield mpi.buffer_attach(8 * (256 + mpi.BSEND_OVERHEAD))
    for i in range(3):
        yield mpi.bsend(count=100 + i, dest=right, tag=1)
        req = yield mpi.isend(count=8, dest=right, tag=2)
        yield mpi.barrier()
        breq = yield mpi.ibsend(count=200 + i, dest=left, tag=3)
        for source, tag in ((left, 1), (left, 2), (right, 3)):
            yield mpi.recv(count=256, source=source, tag=tag)
        yield mpi.waitall([req, breq])
    yield mpi.buffer_detach()


def test_every_buffer_entry_names_the_message_its_send_posted():
    """3.6.1: each entry holds the standard send posted for it. The entry's trace row names
    that send's message, whatever other sends and collectives post messages around it."""
    r = ms.run(mixed_traffic, ranks=4, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED
    entries, messages = r.trace.entries, r.trace.messages
    assert len(entries) == 4 * 3 * 2
    by_id = {int(m["id"]): m for m in messages}
    for e in entries:
        m = by_id[int(e["msg"])]
        assert (m["src"], m["mode"], m["bytes"]) == (e["rank"], "buffered", e["packed"])
        assert m["post"] == e["alloc"]
    assert sorted(int(e["msg"]) for e in entries) == sorted(
        int(m["id"]) for m in messages if m["mode"] == "buffered")


IBSEND_SIZES = (8, 1024, 4000, 4100, 8192, 8300, 12288, 70000)


@pytest.mark.parametrize("profile", ["mpich-5.0", "openmpi-5.0"])
def test_an_ibsend_is_complete_at_once_and_detach_waits_only_above_the_eager_limit(profile):
    """3.6 (buffered mode is local) and 3.6.1: MPI_Ibsend's request tests complete as soon
    as it returns, for messages on both sides of the eager limit, and MPI_Buffer_detach
    waits for the receiver only for messages that went rendezvous. Observed with a receiver
    asleep 0.2 s: MPICH 5.0.2 and Open MPI 5.0.11 both give Test true at once for all eight
    sizes; detach waited from 8192 B on MPICH (eager up to 8111 B) and from 4100 B on Open MPI
    (eager up to 4040 B; smaller bsends bypass its buffer)."""
    from mpisim.profiles.library import get_profile

    def prog(mpi):
        out = []
        for n in IBSEND_SIZES:
            if mpi.rank == 0:
                yield mpi.buffer_attach(n + 2 * mpi.BSEND_OVERHEAD + 64)
                yield mpi.barrier()
                req = yield mpi.ibsend(count=n, dest=1, tag=n)
                flag, _ = yield mpi.test(req)
                t = mpi.now
                yield mpi.buffer_detach()
                out.append((n, flag, mpi.now - t > 0.1))
            else:
                yield mpi.barrier()
                yield mpi.compute(0.2)
                yield mpi.recv(count=n, source=0, tag=n)
            yield mpi.barrier()
        return out

    r = ms.run(prog, ranks=2, mpi={"profile": profile})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    eager = get_profile(profile).eager_limit
    assert r.returned[0] == [(n, True, n > eager) for n in IBSEND_SIZES]
