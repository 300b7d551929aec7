"""MPI standard 3.5, Example 3.10 with MPI_Bsend, written as a Python scenario.

A Python scenario is a file with ``main(mpi, **params)`` (the program every rank runs; it
yields each MPI call) and a ``SCENARIO`` dict with the keys of a YAML scenario except
``programs``. This one also moves data: rank r sends a numpy array filled with r, and the
receiver checks what arrived, which a YAML scenario cannot express.
"""

import numpy as np

import mpisim as ms

SCENARIO = {
    "name": "example-3.10-python",
    "description": (
        "Example 3.10 (3.5) with MPI_Bsend and numpy data: each rank attaches "
        "pack_size(count, DOUBLE) + MPI_BSEND_OVERHEAD bytes (3.6), bsends an array of "
        "count doubles to the other rank, receives the other's array into its own buffer "
        "and checks the values; the exchange completes whatever the eager limit."
    ),
    "ranks": 2,
    "params": {"count": 1000},
    "network": {"latency": "1us", "bandwidth": "10 GB/s", "eager_limit": "4 KiB"},
    "mpi": {"profile": "standard", "allocator": "circular"},
    "expect": {"outcome": "completed"},
}


def main(mpi, count=1000):
    peer = 1 - mpi.rank
    outgoing = np.full(count, float(mpi.rank))
    incoming = np.empty(count)
    yield mpi.buffer_attach(mpi.pack_size(count, ms.DOUBLE) + mpi.BSEND_OVERHEAD)
    yield mpi.bsend(outgoing, dest=peer, tag=0)
    status = yield mpi.recv(incoming, source=peer, tag=0)
    yield mpi.buffer_detach()
    if status.source != peer or not np.all(incoming == peer):
        raise ValueError(f"rank {mpi.rank} received wrong data from {status.source}")
    return float(incoming[0])
