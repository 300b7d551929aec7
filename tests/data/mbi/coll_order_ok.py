# mbi: correct
# Every rank makes the same collective calls in the same order (MPI 4.1 §6.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
comm.Barrier()
comm.Bcast(np.zeros(1), root=0)
