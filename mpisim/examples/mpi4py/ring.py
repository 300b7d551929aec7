"""A ring of buffered sends: every rank bsends ROUNDS messages to its right neighbour and
receives as many from its left; the attached buffer holds DEPTH messages at once.

    python ring.py [rounds] [count] [depth]
"""

import sys

import numpy as np
from mpi4py import MPI

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
count = int(sys.argv[2]) if len(sys.argv) > 2 else 256
depth = int(sys.argv[3]) if len(sys.argv) > 3 else rounds
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
MPI.Attach_buffer(bytearray(depth * (MPI.INT.Pack_size(count, comm) + MPI.BSEND_OVERHEAD)))
out = np.empty(count, dtype=np.int32)
got = np.empty(count, dtype=np.int32)
total = 0
for r in range(rounds):
    out[:] = rank * 1000 + r
    comm.Bsend([out, MPI.INT], dest=right, tag=r)
for r in range(rounds):
    comm.Recv([got, MPI.INT], source=left, tag=r)
    total += int(got[0])
MPI.Detach_buffer()
print(f"rank {rank}: {rounds} messages from {left}, first values sum {total}")
