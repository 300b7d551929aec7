# mbi: error rma-sync
# A Put outside any epoch: no fence, start or lock (MPI 4.1 §12.5).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
win = MPI.Win.Allocate(16, comm=comm)
if comm.rank == 0:
    win.Put(np.ones(2, dtype=np.int32), 1)
win.Fence()
win.Free()
