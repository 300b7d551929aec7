"""A lock and a get on a window whose target makes no further MPI call and never frees it
(the shape of two public programs): MPICH 5.0.2 never returns from MPI_Win_lock (the target,
in MPI_Finalize, grants nothing); erroneous by MPI 4.1 §11.2.2 whatever the library."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = np.zeros(4)
win = MPI.Win.Create(buf, comm=comm)
if comm.rank == 0:
    got = np.zeros(4)
    win.Lock(1)
    win.Get(got, 1)
    win.Unlock(1)
    print("got", got)
    win.Free()
