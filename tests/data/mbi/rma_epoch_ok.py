# mbi: correct
# A Put inside a fence epoch, closed by a fence, the window freed (MPI 4.1 §12.5.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
win = MPI.Win.Allocate(16, comm=comm)
win.Fence()
if comm.rank == 0:
    win.Put(np.ones(2, dtype=np.int32), 1)
win.Fence()
win.Free()
