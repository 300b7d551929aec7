# mbi: correct
# A send on MPI_COMM_WORLD.
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    comm.send(1, dest=1)
elif comm.rank == 1:
    comm.recv(source=0)
