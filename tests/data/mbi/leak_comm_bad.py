# mbi: leak leak-comm
# A duplicated communicator is never freed (a resource leak).
from mpi4py import MPI

dup = MPI.COMM_WORLD.Dup()
dup.Barrier()
