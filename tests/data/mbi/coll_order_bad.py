# mbi: error collective-order
# Rank 0 calls Bcast then Barrier; the others Barrier then Bcast (MPI 4.1 §6.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    comm.Bcast(np.zeros(1), root=0)
    comm.Barrier()
else:
    comm.Barrier()
    comm.Bcast(np.zeros(1), root=0)
