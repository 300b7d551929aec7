"""Process topologies with reorder=True, as a stencil code creates them: MPI.Compute_dims,
Create_cart (periodic in the first dimension), Shift, Sub, a graph ring and a distributed
graph, then a neighbourhood all-to-all and allgather on each. Every rank prints its ranks,
coordinates, neighbours and what it received: MPICH and Open MPI ignore reorder (each
process keeps its rank), and the stand-in must print the same lines."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
dims = MPI.Compute_dims(size, 2)


def named(ranks):
    """Ranks with MPI_PROC_NULL by name (MPICH's is -1, Open MPI's -2)."""
    return ["null" if r == MPI.PROC_NULL else r for r in ranks]



cart = comm.Create_cart(dims, periods=[True, False], reorder=True)
print(f"rank {rank}: cart rank {cart.rank} of {dims} at {cart.coords}, map "
      f"{comm.Cart_map(dims, [True, False])}, shifts {named(cart.Shift(0, 1))} "
      f"{named(cart.Shift(1, 1))} in {named(cart.inedges)}",
      flush=True)
got = cart.neighbor_alltoall([f"{rank}>{j}" for j in range(2 * len(dims))])
row = cart.Sub([False, True])
print(f"rank {rank}: alltoall {got} allgather {cart.neighbor_allgather(rank)} row "
      f"{row.rank}/{row.size} dims {row.dims}", flush=True)
index = [2 * (i + 1) for i in range(size)]
edges = [n for i in range(size) for n in ((i - 1) % size, (i + 1) % size)]
graph = comm.Create_graph(index, edges, reorder=True)
ring = comm.Create_dist_graph_adjacent([(rank - 1) % size], [(rank + 1) % size], reorder=True)
print(f"rank {rank}: graph rank {graph.rank} neighbours {graph.neighbors} gathered "
      f"{graph.neighbor_allgather(rank)}; ring rank {ring.rank} "
      f"{ring.Get_dist_neighbors()} gathered {ring.neighbor_allgather(rank)}", flush=True)
