# mbi: error collective-root
# The last rank names another root than the others (MPI 4.1 §6.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = np.zeros(2, dtype=np.int32)
root = 1 if comm.rank == comm.size - 1 else 0
comm.Bcast([buf, MPI.INT], root=root)
