"""Every rank but 0 sends its rank to rank 0, which receives them with ANY_SOURCE and
replies to each sender in arrival order (pickled objects)."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
if rank == 0:
    seen = []
    for _ in range(size - 1):
        status = MPI.Status()
        msg = comm.recv(source=MPI.ANY_SOURCE, tag=1, status=status)
        seen.append(msg["rank"])
        comm.send({"ack": status.Get_source()}, dest=status.Get_source(), tag=2)
    print(f"rank 0: heard from {sorted(seen)}")
else:
    comm.send({"rank": rank}, dest=0, tag=1)
    reply = comm.recv(source=0, tag=2)
    print(f"rank {rank}: acknowledged {reply['ack'] == rank}")
