"""Held-out: a ring of bsends (ROUNDS messages of COUNT ints to the right neighbour, then
as many received from the left, the buffer holding DEPTH) in which the last rank sleeps
SLEEP seconds first; each rank says which of its calls waited.

    python ring_timed.py ROUNDS COUNT DEPTH SLEEP
"""

import sys
import time

import numpy as np
from mpi4py import MPI
from timing import Timer

rounds, count, depth = (int(a) for a in sys.argv[1:4])
sleep = float(sys.argv[4])
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
MPI.Attach_buffer(bytearray(depth * (MPI.INT.Pack_size(count, comm) + MPI.BSEND_OVERHEAD)))
out = np.empty(count, dtype=np.int32)
got = np.empty(count, dtype=np.int32)
timer = Timer(sleep)
comm.Barrier()
# the others start after a tenth of the sleep: the sleeper is surely asleep by then
time.sleep(sleep if rank == size - 1 else sleep / 10)
for r in range(rounds):
    out[:] = rank * 1000 + r
    timer(f"bsend {r}", comm.Bsend, [out, MPI.INT], dest=right, tag=r)
total = 0
for r in range(rounds):
    timer(f"recv {r}", comm.Recv, [got, MPI.INT], source=left, tag=r)
    total += int(got[0])
timer("detach", MPI.Detach_buffer)
print(f"rank {rank}: sum {total}; {timer.line()}", flush=True)
