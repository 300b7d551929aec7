"""The handle's topology queries and neighbourhood collectives that no other test names,
each against MPI 4.1 §8: Cartesian coordinates and ranks (§8.5.5), the map functions
(§8.5.8), graph queries (§8.5.5), adjacent distributed graphs (§8.5.4) and the v, w and
nonblocking neighbourhood collectives (§8.6, §8.7)."""

from __future__ import annotations

import numpy as np

import mpisim as ms
from mpisim.mpi.constants import UNDEFINED


def run(program, ranks):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def test_cart_coords_and_cart_rank_invert_each_other_in_row_major_order_8_5_5():
    def program(mpi):
        cart = yield mpi.cart_create([2, 3], [False, True])
        coords = mpi.cart_coords(mpi.rank, comm=cart)
        wrapped = mpi.cart_rank([1, coords[1] + 3], comm=cart)  # periodic in dimension 1
        return mpi.cartdim_get(cart), coords, mpi.cart_rank(coords, comm=cart), wrapped

    out = run(program, 6)
    assert out[4] == (2, [1, 1], 4, 4)  # rank 4 of a 2 x 3 grid: row 1, column 1
    assert [o[1] for o in out] == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]


def test_the_map_functions_give_each_process_its_rank_or_undefined_8_5_8():
    def program(mpi):
        cart = mpi.cart_map([2, 2], [False, False])
        graph = mpi.graph_map([1, 2, 3], [1, 0, 2][:3])  # 3 nodes
        return cart, graph

    out = run(program, 5)
    assert [c for c, _ in out] == [0, 1, 2, 3, UNDEFINED]  # mpisim keeps the order
    assert [g for _, g in out] == [0, 1, 2, UNDEFINED, UNDEFINED]


def test_graph_get_and_neighbour_counts_return_what_graph_create_was_given_8_5_5():
    def program(mpi):
        index, edges = [2, 3, 4], [1, 2, 0, 0]  # 0 - 1, 0 - 2
        graph = yield mpi.graph_create(index, edges)
        dist = yield mpi.dist_graph_create_adjacent(
            sources=[(mpi.rank - 1) % mpi.size], destinations=[(mpi.rank + 1) % mpi.size],
            sourceweights=[5], destweights=[5])
        return (mpi.graph_get(graph), mpi.graph_neighbors_count(0, comm=graph),
                mpi.dist_graph_neighbors_count(dist), mpi.dist_graph_neighbors(dist))

    out = run(program, 3)
    assert out[0][:2] == (([2, 3, 4], [1, 2, 0, 0]), 2)
    assert out[1][2] == (1, 1, True)  # in-degree, out-degree, weighted
    assert out[1][3] == ([0], [5], [2], [5])


def ring(mpi):
    """A periodic line of every rank: each rank's -1 and +1 neighbours."""
    return (yield mpi.cart_create([mpi.size], [True]))


def test_neighbor_allgatherv_places_each_in_neighbours_block_at_its_displacement_8_6_1():
    def program(mpi, nonblocking):
        comm = yield from ring(mpi)
        buf = np.full(6, -1, "i")
        mine = np.full(mpi.rank + 1, mpi.rank, "i")  # rank k sends k + 1 ints
        counts = [(mpi.rank - 1) % mpi.size + 1, (mpi.rank + 1) % mpi.size + 1]
        kwargs = dict(datatype=ms.INT, recvbuf=buf, recvcounts=counts, rdispls=[0, 3],
                      comm=comm)
        if nonblocking:
            req = yield mpi.ineighbor_allgatherv(mine, **kwargs)
            yield mpi.wait(req)
        else:
            yield mpi.neighbor_allgatherv(mine, **kwargs)
        return buf.tolist()

    blocking = run(lambda mpi: program(mpi, False), 3)
    assert blocking == run(lambda mpi: program(mpi, True), 3)  # §8.7: the same result
    assert blocking[1] == [0, -1, -1, 2, 2, 2]  # 1 int from rank 0 at 0, 3 from rank 2 at 3


def _alltoall(mpi, call, **kwargs):
    """A neighbourhood alltoall, blocking or (``call`` starting with i) waited for."""
    made = yield call(**kwargs)
    if call.__name__.startswith("i"):
        yield mpi.wait(made)


def test_neighbor_alltoallv_and_w_send_each_out_neighbour_its_own_block_8_6_2_8_7():
    def program(mpi, w, nonblocking):
        comm = yield from ring(mpi)
        send = np.array([10 * mpi.rank, 10 * mpi.rank + 1], "i")  # to left, to right
        if w:  # a datatype per block; the receive buffer's counts and displacements in bytes
            raw = np.zeros(8, np.uint8)
            call = mpi.ineighbor_alltoallw if nonblocking else mpi.neighbor_alltoallw
            yield from _alltoall(mpi, call, sendbuf=send, count=[1, 1],
                                 datatype=[ms.INT, ms.INT], recvbuf=raw, recvcounts=[4, 4],
                                 rdispls=[0, 4], comm=comm)
            return raw.view("i").tolist()
        buf = np.full(2, -1, "i")
        call = mpi.ineighbor_alltoallv if nonblocking else mpi.neighbor_alltoallv
        yield from _alltoall(mpi, call, sendbuf=send, count=[1, 1], datatype=ms.INT,
                             recvbuf=buf, recvcounts=[1, 1], rdispls=[0, 1], comm=comm)
        return buf.tolist()

    v = run(lambda mpi: program(mpi, False, False), 3)
    assert v[1] == [1, 20]  # from the left neighbour its to-right block, and vice versa
    for w, nonblocking in ((True, False), (False, True), (True, True)):
        assert run(lambda mpi, w=w, nb=nonblocking: program(mpi, w, nb), 3) == v


def test_ineighbor_alltoall_gives_its_request_the_blocking_forms_list_8_7():
    def program(mpi):
        comm = yield from ring(mpi)
        req = yield mpi.ineighbor_alltoall([f"{mpi.rank}L", f"{mpi.rank}R"], comm=comm)
        yield mpi.wait(req)
        return req.result

    assert run(program, 3)[0] == ["2R", "1L"]
