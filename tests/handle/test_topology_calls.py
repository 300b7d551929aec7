"""The topology calls of the ``mpi`` handle (MPI 4.1 §8, mpisim.handle.topology): creation
is collective and keeps every rank (reorder ignored, as MPICH 5.0.2 and Open MPI 5.0.11
ignore it), queries are local, and the neighbourhood collectives fill the slots §8.6
assigns, from point-to-point messages."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms
from mpisim.mpi.constants import PROC_NULL, UNDEFINED
from mpisim.mpi.errors import ErrTopology
from mpisim.mpi.topology import CART, DIST_GRAPH, GRAPH


def run(program, ranks, **kwargs):
    out: dict = {}
    result = ms.run(lambda mpi: program(mpi, out), ranks=ranks, **kwargs)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return out, result


def test_cart_create_keeps_ranks_and_leaves_out_the_ranks_beyond_the_grid():
    def program(mpi, out):
        cart = yield mpi.cart_create([2, 2], [True, False], reorder=True)
        out[mpi.rank] = None if cart is None else (cart.rank, mpi.cart_get(cart),
                                                   mpi.cart_shift(1, 1, comm=cart),
                                                   mpi.topo_test(cart))
    out, _ = run(program, 5)
    assert out[4] is None  # §8.5.1: the processes beyond prod(dims) get MPI_COMM_NULL
    assert out[1] == (1, ([2, 2], [True, False], [0, 1]), (0, PROC_NULL), CART)
    assert out[2] == (2, ([2, 2], [True, False], [1, 0]), (PROC_NULL, 3), CART)


def test_neighbor_alltoall_on_a_periodic_dimension_of_two_fills_the_slots_8_6_assigns():
    """On 2 processes, each is the other's -1 and +1 neighbour: what rank 0 sends to its +1
    neighbour arrives in rank 1's slot of its -1 neighbour (MPICH and Open MPI agree)."""
    def program(mpi, out):
        ring = yield mpi.cart_create([2], [True])
        out[mpi.rank] = yield mpi.neighbor_alltoall([f"{mpi.rank}-to-left",
                                                     f"{mpi.rank}-to-right"], comm=ring)
    out, _ = run(program, 2)
    assert out == {0: ["1-to-right", "1-to-left"], 1: ["0-to-right", "0-to-left"]}


def test_neighbor_allgather_leaves_proc_null_slots_untouched_in_a_receive_buffer():
    def program(mpi, out):
        line = yield mpi.cart_create([3], [False])
        buf = np.full(2, -1, dtype=np.int32)
        got = yield mpi.neighbor_allgather(np.array([mpi.rank], dtype=np.int32),
                                           recvbuf=buf, comm=line)
        out[mpi.rank] = ([None if g is None else int(g[0]) for g in got], buf.tolist())
    out, _ = run(program, 3)
    assert out == {0: ([None, 1], [-1, 1]), 1: ([0, 2], [0, 2]), 2: ([1, None], [1, -1])}


def test_graph_and_distributed_graph_neighbours_and_their_collectives():
    def program(mpi, out):
        n = mpi.size
        graph = yield mpi.graph_create([2 * (i + 1) for i in range(n)],
                                       [x for i in range(n) for x in ((i - 1) % n, (i + 1) % n)])
        dist = yield mpi.dist_graph_create([mpi.rank], [1], [(mpi.rank + 1) % n], [7])
        req = yield mpi.ineighbor_allgather(mpi.rank, comm=dist)
        yield mpi.wait(req)
        out[mpi.rank] = (mpi.graph_neighbors(mpi.rank, comm=graph), mpi.topo_test(graph),
                         mpi.dist_graph_neighbors(dist), mpi.topo_test(dist), req.result,
                         mpi.graphdims_get(graph))
    out, _ = run(program, 3)
    assert out[0] == ([2, 1], GRAPH, ([2], [7], [1], [7]), DIST_GRAPH, [2], (3, 6))
    assert out[1][2] == ([0], [7], [2], [7]) and out[1][4] == [0]


def test_cart_sub_makes_the_rows_of_the_grid():
    def program(mpi, out):
        grid = yield mpi.cart_create(mpi.dims_create(6, 2))
        row = yield mpi.cart_sub([False, True], comm=grid)
        total = yield mpi.allreduce(mpi.rank, comm=row)
        out[mpi.rank] = (mpi.cart_get(row)[0], row.rank, total)
    out, _ = run(program, 6)
    assert out[4] == ([2], 0, 9) and out[1] == ([2], 1, 1)  # rows (0,1), (2,3), (4,5)


def test_queries_on_a_communicator_without_that_topology_are_mpi_err_topology():
    def program(mpi, out):
        assert mpi.topo_test() == UNDEFINED
        with pytest.raises(ErrTopology):
            mpi.cart_shift(0, 1)
        try:
            yield mpi.neighbor_allgather(1)
        except ErrTopology as e:
            out[mpi.rank] = e.error_class
    out, _ = run(program, 2)
    assert out == {0: "MPI_ERR_TOPOLOGY", 1: "MPI_ERR_TOPOLOGY"}


def test_dims_create_balances_as_the_profiles_library():
    def program(mpi, out):
        out[mpi.rank] = mpi.dims_create(72, 2)
        yield mpi.barrier()
    assert run(program, 1, mpi={"profile": "mpich"})[0] == {0: [9, 8]}
    assert run(program, 1, mpi={"profile": "openmpi"})[0] == {0: [12, 6]}


def test_a_neighbour_exchange_costs_one_round_of_messages():
    """Every send and receive is posted at once (one round): on a periodic 4-ring a rank's
    two sends of n bytes share its port (2 n/bandwidth), then one latency; creating the ring
    cost an allgather's ceil(log2 4) = 2 latencies before (mpisim.mpi.comm)."""
    def program(mpi, out):
        ring = yield mpi.cart_create([4], [True])
        yield mpi.neighbor_allgather(np.zeros(1000, dtype=np.uint8), comm=ring)
    _, result = run(program, 4, network={"latency": "1us", "bandwidth": "1 GB/s"})
    assert result.sim_time == pytest.approx(2e-6 + 2 * 1000 / 1e9 + 1e-6)
