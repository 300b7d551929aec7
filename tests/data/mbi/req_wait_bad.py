# mbi: error request-not-completed
# The isend's request is never waited for (MPI 4.1 §3.7.3: MissingWait).
from mpi4py import MPI

comm = MPI.COMM_WORLD
peer = (comm.rank + 1) % comm.size
req = comm.isend(comm.rank, dest=peer, tag=1)
comm.recv(source=(comm.rank - 1) % comm.size, tag=1)
