# mbi: correct
# A send of MPI_INT received as MPI_INT (MPI 4.1 §3.3.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    comm.Send([np.arange(4, dtype=np.int32), MPI.INT], dest=1, tag=0)
elif comm.rank == 1:
    buf = np.empty(4, dtype=np.int32)
    comm.Recv([buf, MPI.INT], source=0, tag=0)
