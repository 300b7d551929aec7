"""Held-out: Example 3.10 (both ranks send, then receive) with rank 1 sleeping SLEEP
seconds before it enters the exchange; each rank says which of its calls waited.

    python exchange_timed.py send|bsend COUNT SLEEP [BUFFER-BYTES]
"""

import sys
import time

import numpy as np
from mpi4py import MPI
from timing import Timer

mode, count, sleep = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
peer = 1 - rank
out = np.full(count, rank, dtype=np.float32)
got = np.empty(count, dtype=np.float32)
timer = Timer(sleep)
if mode == "bsend":
    size = int(sys.argv[4]) if len(sys.argv) > 4 else \
        MPI.FLOAT.Pack_size(count, comm) + MPI.BSEND_OVERHEAD
    MPI.Attach_buffer(bytearray(size))
comm.Barrier()
# the others start after a tenth of the sleep: the sleeper is surely asleep by then
time.sleep(sleep if rank == 1 else sleep / 10)
timer(mode, getattr(comm, mode.capitalize()), [out, MPI.FLOAT], dest=peer, tag=0)
timer("recv", comm.Recv, [got, MPI.FLOAT], source=peer, tag=0)
if mode == "bsend":
    timer("detach", MPI.Detach_buffer)
print(f"rank {rank}: sum {got.sum():.0f}; {timer.line()}", flush=True)
