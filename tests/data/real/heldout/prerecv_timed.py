"""Held-out: a receiver that posts its receive, then sleeps SLEEP seconds outside MPI, then
waits; rank 0 sends M bytes (rendezvous above the eager limit) once rank 1 is asleep.

    python prerecv_timed.py M SLEEP
"""

import sys
import time

from mpi4py import MPI
from timing import Timer

m, sleep = int(sys.argv[1]), float(sys.argv[2])
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
buf = bytearray(m)
timer = Timer(sleep)
comm.Barrier()
if rank == 0:
    time.sleep(sleep / 10)  # rank 1 has posted its receive and is asleep
    timer("send", comm.Send, [buf, MPI.BYTE], dest=1, tag=1)
else:
    request = comm.Irecv([buf, MPI.BYTE], source=0, tag=1)
    time.sleep(sleep)
    timer("wait", request.Wait)
print(f"rank {rank}: {timer.line()}", flush=True)
