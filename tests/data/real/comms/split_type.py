"""MPI_Comm_split_type as node-aware codes call it: COMM_TYPE_SHARED (every process of an
mpiexec on one machine shares a node) and UNDEFINED (MPI.COMM_NULL), and the predefined
attributes each rank reads. Every rank prints its node communicator and the attributes."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=-rank)
none = comm.Split_type(MPI.UNDEFINED)
attrs = {name: comm.Get_attr(getattr(MPI, name))
         for name in ("TAG_UB", "WTIME_IS_GLOBAL", "APPNUM", "IO")}
print(f"rank {rank}: node {node.Get_rank()}/{node.Get_size()} undefined "
      f"{none == MPI.COMM_NULL} io_any {attrs.pop('IO') == MPI.ANY_SOURCE} {attrs}",
      flush=True)
