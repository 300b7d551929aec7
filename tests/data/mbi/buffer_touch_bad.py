# mbi: error buffer-modified
# The send buffer is changed before the Wait (MPI 4.1 §3.7.2: LocalConcurrency).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = np.arange(4, dtype=np.int32)
if comm.rank == 0:
    req = comm.Isend([buf, MPI.INT], dest=1)
    buf[0] = 99
    req.Wait()
elif comm.rank == 1:
    comm.Recv([buf, MPI.INT], source=0)
