"""Rank programs that tests in several layers run: the MPI standard's examples and the cases
the facts about real libraries are built on. A test that needs its own variant writes it
beside itself; these stay as they are (tests count on their sizes and timings)."""

from __future__ import annotations

import mpisim as ms


def exchange(mpi, count=1000, send="send"):
    """MPI 3.5 Example 3.10: both ranks send (``send`` names the mode's call), then receive.
    Completes only if a message is buffered (eager: 4 * count bytes within the limit)."""
    peer = 1 - mpi.rank
    yield getattr(mpi, send)(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)


def buffered_exchange(mpi, count=1000):
    """Example 3.10 with bsend and enough buffer: completes, but only thanks to buffering."""
    peer = 1 - mpi.rank
    yield mpi.buffer_attach(mpi.pack_size(count, ms.REAL) + mpi.BSEND_OVERHEAD)
    yield mpi.bsend(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
    yield mpi.buffer_detach()


WRAP_UNITS = (7, 11, 4, 8, 5, 11)


def wrap(mpi, unit=100, gap=1e-3, units=WRAP_UNITS):
    """3.6.1's circular queue, the non-monotonic case: rank 0 bsends entries of units[i] * unit
    bytes (overhead included: 700, 1100, 400, 800, 500, 1100 B), one every gap; rank 1
    receives message i at (i + 1.5) * gap, so at each bsend exactly the previous message is
    still pending and every older one has completed. With an eager limit of 0, 1800 B
    suffice and 2200..2399 B overflow again."""
    sizes = [u * unit - mpi.BSEND_OVERHEAD for u in units]
    if mpi.rank == 0:
        for i, n in enumerate(sizes):
            yield mpi.bsend(count=n, dest=1, tag=i)
            yield mpi.compute(gap)
    else:
        yield mpi.compute(1.5 * gap)
        for i, n in enumerate(sizes):
            yield mpi.recv(count=n, source=0, tag=i)
            yield mpi.compute(gap)


def fallback(mpi, n=100_000):
    """Catch MPI_ERR_BUFFER from a bsend and fall back to MPI_Send: the second of two n-byte
    bsends does not fit a buffer of n + 1000 B while the first is pending."""
    if mpi.rank == 0:
        yield mpi.buffer_attach(n + 1000)
        yield mpi.bsend(count=n, dest=1, tag=0)
        try:
            yield mpi.bsend(count=n, dest=1, tag=1)
        except ms.MPIError:
            yield mpi.send(count=n, dest=1, tag=1)
        yield mpi.buffer_detach()
    else:
        yield mpi.compute(1e-3)
        yield mpi.recv(count=n, source=0, tag=0)
        yield mpi.recv(count=n, source=0, tag=1)


def thread_senders(mpi):
    """MPI 4.1 §11.6: rank 0's threads a (1 B) and b (2 B) send to rank 1 at one instant;
    rank 1 returns the size of the first message it receives: the threads' order decides
    it (the seed's order of threads runnable at one instant)."""
    def send(mpi, nbytes):
        yield mpi.send(count=nbytes, dest=1, tag=0)

    mpi.init_thread("multiple")
    if mpi.rank == 0:
        a = mpi.spawn_thread(send, mpi, 1, name="a")
        b = mpi.spawn_thread(send, mpi, 2, name="b")
        yield a
        yield b
        return None
    first = yield mpi.recv(count=2, source=0, tag=0)
    yield mpi.recv(count=2, source=0, tag=0)
    return first.count
