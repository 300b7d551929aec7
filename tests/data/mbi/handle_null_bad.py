# mbi: error invalid-argument
# A send on MPI_COMM_NULL: MPI_ERR_COMM.
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    MPI.COMM_NULL.send(1, dest=1)
elif comm.rank == 1:
    comm.recv(source=0)
