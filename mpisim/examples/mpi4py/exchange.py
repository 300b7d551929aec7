"""MPI standard Example 3.10 in mpi4py: both ranks send, then receive.

    python exchange.py [send|ssend|bsend] [count] [buffer-bytes]

With ``send`` it completes only while the message fits the eager limit (unsafe, 3.5); with
``ssend`` it always deadlocks; with ``bsend`` it completes when the attached buffer holds
the message (buffer-bytes, default: exactly the message plus MPI.BSEND_OVERHEAD).
Prints what each rank received.
"""

import sys

import numpy as np
from mpi4py import MPI

mode = sys.argv[1] if len(sys.argv) > 1 else "send"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
peer = 1 - rank
out = np.full(count, rank, dtype=np.float32)
got = np.empty(count, dtype=np.float32)
if mode == "bsend":
    size = int(sys.argv[3]) if len(sys.argv) > 3 else \
        MPI.FLOAT.Pack_size(count, comm) + MPI.BSEND_OVERHEAD
    MPI.Attach_buffer(bytearray(size))
    comm.Bsend([out, MPI.FLOAT], dest=peer, tag=0)
else:
    getattr(comm, mode.capitalize())([out, MPI.FLOAT], dest=peer, tag=0)
comm.Recv([got, MPI.FLOAT], source=peer, tag=0)
if mode == "bsend":
    MPI.Detach_buffer()
print(f"rank {rank}: received {count} floats from {peer}, sum {got.sum():.0f}")
