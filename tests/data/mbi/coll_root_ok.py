# mbi: correct
# Every rank names root 0 (MPI 4.1 §6.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = np.zeros(2, dtype=np.int32)
comm.Bcast([buf, MPI.INT], root=0)
