# mbi: race message-race
# Rank 0 expects rank 1's message first and then receives rank 2's; when rank 2's comes
# first, the wildcard receive takes it and the second receive waits forever (MessageRace).
from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    status = MPI.Status()
    comm.recv(source=MPI.ANY_SOURCE, tag=0, status=status)
    comm.recv(source=2, tag=0)
else:
    comm.send(comm.rank, dest=0, tag=0)
