# mbi: correct
# A duplicated communicator is freed (MPI 4.1 §7.4.3).
from mpi4py import MPI

dup = MPI.COMM_WORLD.Dup()
dup.Barrier()
dup.Free()
