"""Every case of the tables of what real MPI libraries do (MPICH 4.0.2 ch4:ucx, Open MPI
4.1.4 shared memory, measured on one host), run under the profile that describes the library:
outcome, counts and which call waited must be what the library did. The same programs
under ``standard`` follow the standard's model (3.6, 3.6.1) where the libraries differ."""

from __future__ import annotations

import pytest
from helpers.programs import fallback

import mpisim as ms

OK, DEADLOCK, ERROR = ms.Outcome.COMPLETED, ms.Outcome.DEADLOCK, ms.Outcome.ERROR


def _error_class(call):
    """A one-rank program that makes ``call(mpi)`` and returns the error class or None."""
    def prog(mpi):
        try:
            yield from call(mpi)
        except ms.MPIError as e:
            return e.error_class
        return None
    return prog


def _bsend_no_buffer(n):
    def call(mpi):
        yield mpi.bsend(count=n, dest=0)
        if n:
            yield mpi.recv(count=n, source=0)
    return call


def _attach(*sizes):
    def call(mpi):
        for size in sizes:
            yield mpi.buffer_attach(size)
    return call


def _detach_none(mpi):
    got = yield mpi.buffer_detach()
    assert got == (None, 0)


def _bsend_proc_null(mpi):
    yield mpi.bsend(count=100_000, dest=ms.PROC_NULL)


EDGE_CASES = [
    # (case, program, {profile: error class or None})
    ("bsend with no buffer, 0 bytes", _bsend_no_buffer(0),
     {"mpich": "MPI_ERR_BUFFER", "openmpi": None, "standard": "MPI_ERR_BUFFER"}),
    ("bsend with no buffer, large", _bsend_no_buffer(100_000),
     {"mpich": "MPI_ERR_BUFFER", "openmpi": "MPI_ERR_BUFFER", "standard": "MPI_ERR_BUFFER"}),
    ("attach while attached", _attach(1000, 1000),
     {"mpich": "MPI_ERR_BUFFER", "openmpi": "MPI_ERR_BUFFER", "standard": "MPI_ERR_BUFFER"}),
    ("attach smaller than MPI_BSEND_OVERHEAD", _attach(50),
     {"mpich": "MPI_ERR_BUFFER", "openmpi": None, "standard": None}),
    ("attach negative size", _attach(-1),
     {"mpich": "MPI_ERR_ARG", "openmpi": "MPI_ERR_ARG", "standard": "MPI_ERR_ARG"}),
    ("detach with none attached", _detach_none,
     {"mpich": None, "openmpi": "MPI_ERR_BUFFER", "standard": None}),
    ("bsend to MPI_PROC_NULL needs no buffer", _bsend_proc_null,
     {"mpich": None, "openmpi": None, "standard": None}),
]


@pytest.mark.parametrize("profile", ["mpich", "openmpi", "standard"])
@pytest.mark.parametrize("case, call, expected", EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_facts_edge_cases(case, call, expected, profile):
    """facts, edge-case table (3.6 leaves these to the implementation)."""
    r = ms.run(_error_class(call), ranks=1, mpi={"profile": profile})
    assert r.outcome is OK, r.report()
    assert r.returned == [expected[profile]]


def _ibsend_then_test(mpi, n=100_000):
    if mpi.rank == 0:
        yield mpi.buffer_attach(n + 1000)
        req = yield mpi.ibsend(count=n, dest=1)
        flag, _ = yield mpi.test(req)
        t0 = mpi.now
        yield mpi.buffer_detach()
        return flag, mpi.now - t0
    yield mpi.compute(1.5)
    yield mpi.recv(count=n, source=0)
    return None


@pytest.mark.parametrize("profile", ["mpich", "openmpi"])
def test_facts_ibsend_is_complete_at_once_and_detach_waits(profile):
    """facts: MPI_Ibsend's request is complete when returned (MPI_Test flag 1 at once,
    100000 B to a receiver asleep 1.5 s); detach is what waits."""
    r = ms.run(_ibsend_then_test, ranks=2, mpi={"profile": profile})
    flag, detach = r.returned[0]
    assert r.outcome is OK and flag is True and detach >= 1.5 - 1e-3


def _finalize_with_pending(mpi, n=100_000):
    if mpi.rank == 0:
        yield mpi.buffer_attach(n + 1000)
        yield mpi.bsend(count=n, dest=1)
        return None  # MPI_Finalize waits for the entry
    yield mpi.compute(1.0)
    yield mpi.recv(count=n, source=0)
    return None


@pytest.mark.parametrize("profile", ["mpich", "openmpi", "standard"])
def test_facts_finalize_waits_for_pending_entries(profile):
    """facts: detach / MPI_Finalize with pending entries waits for them."""
    r = ms.run(_finalize_with_pending, ranks=2, mpi={"profile": profile})
    assert r.outcome is OK and r.ranks[0].end_time >= 1.0


@pytest.mark.parametrize("profile, outcome", [("mpich", OK), ("openmpi", DEADLOCK),
                                              ("standard", OK)])
def test_facts_after_a_failed_bsend(profile, outcome):
    """facts, last edge case: a program that catches MPI_ERR_BUFFER and falls back to
    MPI_Send completes on MPICH and hangs on Open MPI (the pair's later messages never
    match)."""
    assert ms.run(fallback, ranks=2, mpi={"profile": profile}).outcome is outcome


def _example_3_10(mpi, nbytes):
    peer = 1 - mpi.rank
    yield mpi.send(count=nbytes, dest=peer)
    yield mpi.recv(count=nbytes, source=peer)


@pytest.mark.parametrize("profile, completes_up_to", [("openmpi", 4040), ("mpich", 8255)])
def test_facts_eager_limits_example_3_10(profile, completes_up_to):
    """facts, eager limits: Example 3.10 (both send, then receive) completes up to 4040 B on
    Open MPI (shared memory) and 8255 B on MPICH (ch4:ucx), and deadlocks one byte above."""
    def outcome(n):
        return ms.run(_example_3_10, ranks=2, params={"nbytes": n},
                      mpi={"profile": profile}).outcome
    assert outcome(completes_up_to) is OK
    assert outcome(completes_up_to + 1) is DEADLOCK


def _bsends_until_overflow(mpi, size, m):
    """Bsends of m bytes (above every eager limit, so none completes) into ``size`` bytes:
    how many succeed. The count reaches the receiver through rank 2, since Open MPI never
    matches a pair's messages after a failed bsend."""
    if mpi.rank == 2:
        k = (yield mpi.recv(count=1, source=0, tag=99)).data
        yield mpi.send(buf=k, count=1, dest=1, tag=99)
        return None
    if mpi.rank == 1:
        k = (yield mpi.recv(count=1, source=2, tag=99)).data
        for _ in range(k):
            yield mpi.recv(count=m, source=0, tag=0)
        return None
    yield mpi.buffer_attach(size)
    k = 0
    while k < 10:
        try:
            yield mpi.bsend(count=m, dest=1, tag=0)
        except ms.MPIError:
            break
        k += 1
    yield mpi.send(buf=k, count=1, dest=2, tag=99)
    return k


@pytest.mark.parametrize("profile, sizes", [
    ("mpich", [9088, 18184, 27280]),      # (k-1)(ceil16(m) + 88) + m + 88
    ("openmpi", [9024, 18040, 27056]),    # 8 + k(8 floor(m/8) + 16)
    ("standard", [9096, 18192, 27288]),   # k(m + 96), 3.6.1
])
def test_facts_k_entries_fit_exactly(profile, sizes):
    """facts, allocators: k bsends of 9000 B fit a fresh buffer of exactly these sizes, and
    k - 1 fit one byte less."""
    for k, size in enumerate(sizes, start=1):
        for b, fits in ((size, k), (size - 1, k - 1)):
            r = ms.run(_bsends_until_overflow, ranks=3, params={"size": b, "m": 9000},
                       mpi={"profile": profile}, until=1.0)
            assert r.outcome is OK and r.returned[0] == fits, (profile, b)


def _holes(mpi, m=10_000, which="middle"):
    """Four entries fill the buffer; the receiver takes the middle two (or the last one);
    then one more bsend of 2m (or m) bytes."""
    if mpi.rank == 0:
        entry = mpi.pack_size(m, ms.BYTE) + mpi.BSEND_OVERHEAD
        yield mpi.buffer_attach(4 * entry + 200)
        for tag in range(4):
            yield mpi.bsend(count=m, dest=1, tag=tag)
        yield mpi.recv(count=1, source=1, tag=9)  # the receiver took its messages
        try:
            yield mpi.bsend(count=2 * m if which == "middle" else m, dest=1, tag=5)
            result = None
        except ms.MPIError as e:
            result = e.error_class
        yield mpi.send(count=1, dest=1, tag=8)  # then the receiver takes the rest
        return result
    for tag in ((1, 2) if which == "middle" else (3,)):
        yield mpi.recv(count=m, source=0, tag=tag)
    yield mpi.send(count=1, dest=0, tag=9)
    while (yield mpi.recv(count=2 * m, source=0)).tag != 8:
        pass
    return None


@pytest.mark.parametrize("which", ["middle", "last"])
@pytest.mark.parametrize("profile, expected", [("mpich", None), ("openmpi", None),
                                               ("standard", "MPI_ERR_BUFFER")])
def test_facts_holes_are_reused_anywhere(which, profile, expected):
    """facts, both libraries: with four entries filling the buffer, receiving the two middle
    ones lets a bsend of 2m bytes succeed, receiving only the last one an m-byte bsend; the
    standard's model refuses both (3.6.1: reclaim stops at the pending head)."""
    r = ms.run(_holes, ranks=2, params={"which": which}, mpi={"profile": profile},
               network={"eager_limit": 0}, until=1.0)
    assert r.outcome is OK and r.returned[0] == expected
