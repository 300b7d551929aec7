# mbi: error rma-conflict
# Ranks 0 and 1 put into the same bytes of rank 2's window in one epoch (MPI 4.1 §12.7).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
win = MPI.Win.Allocate(16, comm=comm)
win.Fence()
if comm.rank in (0, 1):
    win.Put(np.full(2, comm.rank, dtype=np.int32), 2, target=(0, 8, MPI.BYTE))
win.Fence()
win.Free()
