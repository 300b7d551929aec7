# mbi: correct
# Rank 0 receives one message from each other rank in any order and sums them.
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    total = sum(comm.recv(source=MPI.ANY_SOURCE, tag=0) for _ in range(comm.size - 1))
    assert total == sum(range(1, comm.size))
else:
    comm.send(comm.rank, dest=0, tag=0)
