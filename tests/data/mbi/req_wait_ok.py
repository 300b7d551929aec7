# mbi: correct
# Every nonblocking request is completed before MPI_Finalize (MPI 4.1 §3.7.3).
from mpi4py import MPI

comm = MPI.COMM_WORLD
peer = (comm.rank + 1) % comm.size
req = comm.isend(comm.rank, dest=peer, tag=1)
comm.recv(source=(comm.rank - 1) % comm.size, tag=1)
req.wait()
