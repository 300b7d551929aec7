"""An intercommunicator between the lower and upper halves of the processes, as a
coupled code makes one: Split, Create_intercomm, a send across (ranks name the remote
group), Barrier, Bcast from MPI.ROOT, Allreduce and Allgather over it, Get_remote_group,
then Merge. Every rank prints what it received and its merged rank."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
low = rank < size // 2
half = comm.Split(0 if low else 1, rank)
inter = half.Create_intercomm(0, comm, size // 2 if low else 0, tag=5)
me, remote = inter.Get_rank(), inter.Get_remote_size()
got = None
if low and me < remote:
    inter.send({"from": rank}, dest=me, tag=3)
if not low and me < remote:
    got = inter.recv(source=me, tag=3)
inter.Barrier()
root = (MPI.ROOT if me == 0 else MPI.PROC_NULL) if low else 0
value = inter.bcast("low leader" if root == MPI.ROOT else None, root=root)
total = inter.allreduce(rank)
everyone = inter.allgather(rank)
group = inter.Get_remote_group()
merged = inter.Merge(high=not low)
print(f"rank {rank}: inter {me}/{inter.Get_size()} remote {remote} group {group.size} got "
      f"{got} bcast {value} sum {total} gather {everyone} merged {merged.Get_rank()}",
      flush=True)
