# mbi: error collective-op
# Rank 0 reduces with MPI_MAX, the others with MPI_SUM (MPI 4.1 §6.9.1).
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
out = np.zeros(1)
comm.Allreduce(np.ones(1), out, op=MPI.MAX if comm.rank == 0 else MPI.SUM)
