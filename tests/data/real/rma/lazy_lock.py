"""Which call of a lock epoch waits for a target asleep outside MPI, for any sequence.

    mpiexec -n 2 python lazy_lock.py L,P,A,U

L Lock(1), U Unlock(1), P Put, G Get, A Accumulate, F Fetch_and_op, R Get_accumulate; rank
1 sleeps 0.5 s; rank 0 prints each call's seconds (a window over a numpy array).
"""

import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
win = MPI.Win.Create(np.zeros(4), 8, MPI.INFO_NULL, comm)
calls = {"L": lambda: win.Lock(1), "U": lambda: win.Unlock(1),
         "P": lambda: win.Put(np.ones(1), 1), "G": lambda: win.Get(np.ones(1), 1),
         "A": lambda: win.Accumulate(np.ones(1), 1),
         "F": lambda: win.Fetch_and_op(np.ones(1), np.ones(1), 1),
         "R": lambda: win.Get_accumulate(np.ones(1), np.ones(1), 1)}
comm.Barrier()
if rank == 1:
    time.sleep(0.5)
else:
    out = []
    for step in sys.argv[1].split(","):
        t0 = MPI.Wtime()
        calls[step]()
        out.append(f"{step} {MPI.Wtime() - t0:.2f}")
    print(f"rank 0: {', '.join(out)}", flush=True)
comm.Barrier()
win.Free()
