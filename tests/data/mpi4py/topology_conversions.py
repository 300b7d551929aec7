"""Topology arguments as mpi4py converts them: one line per case, its outcome. The outcomes
mpi4py 4.1.2 gives on MPICH 5.0.2 are topology_conversions.txt beside this file."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
adjacent = comm.Create_dist_graph_adjacent


def neighbours(made):
    return made.Get_dist_neighbors()

CASES = {
    "Create_cart dims float": lambda: comm.Create_cart([1.0]).Get_topo(),
    "Create_cart dims numpy float": lambda: comm.Create_cart([np.float64(1)]).Get_topo(),
    "Create_cart dims numpy int": lambda: comm.Create_cart([np.int64(1)]).Get_topo(),
    "Create_cart dims bool": lambda: comm.Create_cart([True]).Get_topo(),
    "Create_cart dims str": lambda: comm.Create_cart(["1"]).Get_topo(),
    "Create_cart dims None item": lambda: comm.Create_cart([None]).Get_topo(),
    "Create_cart periods float": lambda: comm.Create_cart([1], periods=[1.5]).Get_topo(),
    "Create_cart periods scalar True": lambda: comm.Create_cart([1], periods=True).Get_topo(),
    "Create_cart periods numpy bool":
        lambda: comm.Create_cart([1], periods=[np.bool_(True)]).Get_topo(),
    "Create_cart periods None": lambda: comm.Create_cart([1], periods=None).Get_topo(),
    "Create_cart reorder float": lambda: comm.Create_cart([1], reorder=0.5).Get_topo(),
    "Create_graph index float": lambda: comm.Create_graph([1.0], [0]).Get_topo(),
    "Create_graph edges float": lambda: comm.Create_graph([1], [0.0]).Get_topo(),
    "Create_graph edges numpy int": lambda: comm.Create_graph([1], [np.int16(0)]).Get_topo(),
    "Create_dist_graph_adjacent sources float": lambda: neighbours(adjacent([0.0], [0])),
    "Create_dist_graph_adjacent weights float": lambda: neighbours(adjacent([0], [0], [1.0], [1])),
    "Create_dist_graph_adjacent numpy int": lambda: neighbours(adjacent([np.int32(0)], [0])),
    "Create_dist_graph degrees float": lambda: neighbours(comm.Create_dist_graph([0], [1.0], [0])),
    "Create_dist_graph sources float": lambda: neighbours(comm.Create_dist_graph([0.0], [1], [0])),
    "Compute_dims dims float": lambda: MPI.Compute_dims(4, [0.0, 0]),
    "Compute_dims nnodes float": lambda: MPI.Compute_dims(4.0, 2),
    "Compute_dims ndims float": lambda: MPI.Compute_dims(4, 2.0),
    "Cart_map dims float": lambda: comm.Cart_map([1.0]),
    "Graph_map edges float": lambda: comm.Graph_map([1], [0.0]),
    "Get_cart_rank coords float": lambda: comm.Create_cart([1]).Get_cart_rank([0.0]),
    "Get_coords rank float": lambda: comm.Create_cart([1]).Get_coords(0.0),
    "Shift direction float": lambda: comm.Create_cart([1], periods=[True]).Shift(0.0, 1),
    "Shift disp str": lambda: comm.Create_cart([1], periods=[True]).Shift(0, "1"),
    "Sub remain_dims float": lambda: comm.Create_cart([1]).Sub([1.0]).Get_topo(),
    "Sub remain_dims bool": lambda: comm.Create_cart([1]).Sub([True]).Get_topo(),
    "Get_neighbors rank float": lambda: comm.Create_graph([1], [0]).Get_neighbors(0.0),
    "Get_neighbors_count rank float": lambda: comm.Create_graph([1], [0]).Get_neighbors_count(0.0),
}
for label, case in CASES.items():
    try:
        got = case()
        print(f"{label}: ok {got}")
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {e}")
