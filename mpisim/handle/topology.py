"""Process topology calls of the ``mpi`` handle (MPI 4.1 §8): Cartesian, graph and
distributed-graph communicators, their queries, and the neighbourhood collectives.

The creation calls (``cart_create``, ``cart_sub``, ``graph_create``,
``dist_graph_create_adjacent``, ``dist_graph_create``) are collective over the parent, as
``comm_split`` is (:mod:`mpisim.mpi.comm`): each member waits for the others and yields its
new communicator, or None (MPI_COMM_NULL) when it is left out. ``reorder`` is accepted and
ignored, as MPICH 5.0.2 and Open MPI 5.0.11 ignore it (a process keeps its rank: observed
with mpi4py's ``Create_cart``/``Create_graph``/``Create_dist_graph_adjacent`` and
``Cart_map``/``Graph_map`` on 4 processes). The queries are local calls (their value at
once, nothing to yield). The topology is what :mod:`mpisim.mpi.topology` describes.

The neighbourhood collectives (§8.6, :mod:`mpisim.collectives.neighbor`) yield the list of
values received, one per in-neighbour (None for MPI_PROC_NULL); the nonblocking ones yield
a Request whose ``result`` holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from simpy.events import Event

from ..collectives import neighbor
from ..collectives.arguments import nbytes_of
from ..engine.clock import failed
from ..mpi.comm import Comm
from ..mpi.constants import UNDEFINED
from ..mpi.errors import ErrArg, ErrTopology, MPIError
from ..mpi.topology import (
    CART,
    DIST_GRAPH,
    GRAPH,
    Cart,
    DistGraph,
    Graph,
    check_cart,
    check_graph,
    dims_create,
    topo_kind,
)
from .base import HandleBase

__all__ = ["TopologyCalls"]

_DIMS_RULE = {"openmpi": "greedy"}
"""MPI_Dims_create's balance per library family (mpisim.mpi.topology.DIMS_RULES)."""


class TopologyCalls(HandleBase):
    """MPI 4.1 §8: process topologies and neighbourhood collectives."""

    __slots__ = ()

    # -- §8.5.2 ---------------------------------------------------------------------------
    def dims_create(self, nnodes: int, dims: int | Sequence[int]) -> list[int]:
        """MPI_Dims_create: ``dims`` (a count, or a list whose zeros are filled) balanced
        for ``nnodes`` processes, as the profile's library balances them.

        Parameters
        ----------
        nnodes
            Number of processes to spread over the grid.
        dims
            The number of dimensions, or a list whose zeros are filled in (the
            others kept).
        """
        rule = _DIMS_RULE.get(self._config.profile.collectives_family, "closest")
        return dims_create(nnodes, dims, rule)

    # -- creation -------------------------------------------------------------------------
    def cart_create(self, dims: Sequence[int], periods: Sequence[bool] | None = None,
                    reorder: bool = False, comm: Comm | None = None) -> Event:
        """MPI_Cart_create (collective): yields the grid's communicator (its first
        prod(dims) ranks of ``comm``, in order: ``reorder`` is ignored as MPICH and Open MPI
        do), None for the others.

        Parameters
        ----------
        dims
            Number of processes along each dimension.
        periods
            Whether each dimension wraps around (default: none does).
        reorder
            Whether ranks may be reordered; accepted and ignored, as MPICH and
            Open MPI do (False by default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        def topo(parent: Comm) -> Cart:
            return check_cart(dims, periods, parent.size)
        return self._topology("MPI_Cart_create", comm, topo, "cart")

    def graph_create(self, index: Sequence[int], edges: Sequence[int], reorder: bool = False,
                     comm: Comm | None = None) -> Event:
        """MPI_Graph_create (collective): yields the graph's communicator (the first
        len(index) ranks of ``comm``), None for the others. ``index`` is cumulative, as
        in C.

        Parameters
        ----------
        index
            Cumulative number of neighbours of nodes 0, 1, ... (MPI's index).
        edges
            The neighbours of every node, one after another.
        reorder
            Whether ranks may be reordered; accepted and ignored, as MPICH and
            Open MPI do (False by default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        def topo(parent: Comm) -> Graph:
            return check_graph(index, edges, parent.size)
        return self._topology("MPI_Graph_create", comm, topo, "graph")

    def _topology(self, call: str, comm: Any, topo: Any, what: str) -> Event:
        try:
            parent = self._intra(comm, call)
            made = topo(parent)
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        return self._create(call, parent, made, lambda p: self._comms.placed(p, what))

    def cart_sub(self, remain_dims: Sequence[bool], comm: Comm | None = None) -> Event:
        """MPI_Cart_sub (collective): yields the sub-grid of the dimensions kept that holds
        this process (the split by the dropped coordinates).

        Parameters
        ----------
        remain_dims
            For each dimension, whether the sub-grid keeps it.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        try:
            parent = self._intra(comm, "MPI_Cart_sub")
            cart = _cart(parent, "cart_sub")
            sub = cart.sub(remain_dims)
            color, key = cart.sub_split(parent.rank, [bool(r) for r in remain_dims])
        except MPIError as e:
            self._enter("MPI_Cart_sub")
            return failed(self._env, e)
        return self._create("MPI_Cart_sub", parent, (color, key),
                            lambda p: self._comms.split(p, sub, "cart_sub"))

    def dist_graph_create_adjacent(self, sources: Sequence[int], destinations: Sequence[int],
                                   sourceweights: Sequence[int] | None = None,
                                   destweights: Sequence[int] | None = None,
                                   info: Any = None, reorder: bool = False,
                                   comm: Comm | None = None) -> Event:
        """MPI_Dist_graph_create_adjacent (collective): each process names its own in- and
        out-neighbours (ranks of ``comm``; weights None for MPI_UNWEIGHTED); yields the
        distributed graph's communicator (every process of ``comm``, ranks kept).

        Parameters
        ----------
        sources
            The processes with edges to this one (its in-neighbours).
        destinations
            The processes this one has edges to (its out-neighbours).
        sourceweights
            Weight of each in-edge (default: unweighted).
        destweights
            Weight of each out-edge (default: unweighted).
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        reorder
            Whether ranks may be reordered; accepted and ignored, as MPICH and
            Open MPI do (False by default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        call = "MPI_Dist_graph_create_adjacent"
        try:
            parent = self._intra(comm, call)
            mine = (_ranks(sources, parent, call), _weights(sourceweights, sources, call),
                    _ranks(destinations, parent, call),
                    _weights(destweights, destinations, call))
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        return self._create(call, parent, mine, lambda p: self._comms.distributed(
            p, "dist_graph", lambda args: _adjacent(p, args)))

    def dist_graph_create(self, sources: Sequence[int], degrees: Sequence[int],
                          destinations: Sequence[int], weights: Sequence[int] | None = None,
                          info: Any = None, reorder: bool = False,
                          comm: Comm | None = None) -> Event:
        """MPI_Dist_graph_create (collective): each process gives some edges (``degrees[i]``
        edges from ``sources[i]`` to the next ``destinations``); yields the communicator of
        the graph they make together (every process of ``comm``, ranks kept). A process's
        neighbours are listed in the order of the giving processes' ranks, then of their
        lists.

        Parameters
        ----------
        sources
            Nodes this process gives edges for (MPI's sources).
        degrees
            Number of edges of each of ``sources``.
        destinations
            The edges' destinations, ``degrees[i]`` for ``sources[i]``, one
            after another.
        weights
            Weight of each edge (default: unweighted, MPI_UNWEIGHTED).
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        reorder
            Whether ranks may be reordered; accepted and ignored, as MPICH and
            Open MPI do (False by default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        call = "MPI_Dist_graph_create"
        try:
            parent = self._intra(comm, call)
            edges = _edges(sources, degrees, destinations, weights, parent, call)
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        return self._create(call, parent, edges, lambda p: self._comms.distributed(
            p, "dist_graph", lambda args: _gathered(p, args)))

    # -- queries (local) --------------------------------------------------------------------
    def topo_test(self, comm: Comm | None = None) -> int:
        """MPI_Topo_test: ``ms.CART``, ``ms.GRAPH``, ``ms.DIST_GRAPH`` or ``ms.UNDEFINED``.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return topo_kind(self._comm(comm).topo)

    def cartdim_get(self, comm: Comm | None = None) -> int:
        """MPI_Cartdim_get: the grid's number of dimensions.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return len(_cart(self._comm(comm), "cartdim_get").dims)

    def cart_get(self, comm: Comm | None = None) -> tuple[list[int], list[bool], list[int]]:
        """MPI_Cart_get: (dims, periods, this process's coordinates).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        cart = _cart(c, "cart_get")
        return list(cart.dims), list(cart.periods), cart.coords(c.rank)

    def cart_coords(self, rank: int, comm: Comm | None = None) -> list[int]:
        """MPI_Cart_coords: the coordinates of ``rank``.

        Parameters
        ----------
        rank
            Rank in ``comm``.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return _cart(self._comm(comm), "cart_coords").coords(rank)

    def cart_rank(self, coords: Sequence[int], comm: Comm | None = None) -> int:
        """MPI_Cart_rank: the rank at ``coords`` (periodic coordinates wrap).

        Parameters
        ----------
        coords
            Coordinates in the grid, one per dimension.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return _cart(self._comm(comm), "cart_rank").rank(coords)

    def cart_shift(self, direction: int, disp: int = 1, comm: Comm | None = None
                   ) -> tuple[int, int]:
        """MPI_Cart_shift: (source, dest) of a shift by ``disp`` along ``direction``
        (``ms.PROC_NULL`` past a non-periodic edge).

        Parameters
        ----------
        direction
            The dimension to shift along, from 0.
        disp
            Steps to shift by (negative: downwards); 1 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        return _cart(c, "cart_shift").shift(c.rank, direction, disp)

    def cart_map(self, dims: Sequence[int], periods: Sequence[bool] | None = None,
                 comm: Comm | None = None) -> int:
        """MPI_Cart_map: the rank this process would have in such a grid (its own, or
        ``ms.UNDEFINED`` beyond the grid: no reordering, as MPICH and Open MPI).

        Parameters
        ----------
        dims
            Number of processes along each dimension.
        periods
            Whether each dimension wraps around (default: none does).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        cart = check_cart(dims, periods, c.size)
        return c.rank if c.rank < cart.size else _undefined()

    def graphdims_get(self, comm: Comm | None = None) -> tuple[int, int]:
        """MPI_Graphdims_get: (nodes, edges).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        graph = _graph(self._comm(comm), "graphdims_get")
        return graph.size, len(graph.edges)

    def graph_get(self, comm: Comm | None = None) -> tuple[list[int], list[int]]:
        """MPI_Graph_get: (index, edges), ``index`` cumulative.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        graph = _graph(self._comm(comm), "graph_get")
        return list(graph.index), list(graph.edges)

    def graph_neighbors_count(self, rank: int, comm: Comm | None = None) -> int:
        """MPI_Graph_neighbors_count.

        Parameters
        ----------
        rank
            Rank in ``comm``.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return len(_graph(self._comm(comm), "graph_neighbors_count").neighbors_of(rank))

    def graph_neighbors(self, rank: int, comm: Comm | None = None) -> list[int]:
        """MPI_Graph_neighbors: the neighbours of node ``rank``.

        Parameters
        ----------
        rank
            Rank in ``comm``.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return _graph(self._comm(comm), "graph_neighbors").neighbors_of(rank)

    def graph_map(self, index: Sequence[int], edges: Sequence[int],
                  comm: Comm | None = None) -> int:
        """MPI_Graph_map: this process's rank in such a graph (its own, or ``ms.UNDEFINED``
        beyond it).

        Parameters
        ----------
        index
            Cumulative number of neighbours of nodes 0, 1, ... (MPI's index).
        edges
            The neighbours of every node, one after another.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        graph = check_graph(index, edges, c.size)
        return c.rank if c.rank < graph.size else _undefined()

    def dist_graph_neighbors_count(self, comm: Comm | None = None) -> tuple[int, int, bool]:
        """MPI_Dist_graph_neighbors_count: (indegree, outdegree, weighted).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        graph = _dist(c, "dist_graph_neighbors_count")
        sources, dests = graph.neighbors(c.rank)
        return len(sources), len(dests), graph.weighted(c.rank)

    def dist_graph_neighbors(self, comm: Comm | None = None
                             ) -> tuple[list[int], list[int] | None, list[int], list[int] | None]:
        """MPI_Dist_graph_neighbors: (sources, sourceweights, destinations, destweights),
        the weights None when unweighted.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        g = _dist(c, "dist_graph_neighbors")
        r = c.rank
        sw, dw = g.sourceweights[r], g.destweights[r]
        return (list(g.sources[r]), None if sw is None else list(sw), list(g.destinations[r]),
                None if dw is None else list(dw))

    # -- §8.6: neighbourhood collectives ---------------------------------------------------
    # Each yields the list of values received, one per in-neighbour (None for PROC_NULL);
    # with a numpy ``recvbuf`` the blocks are written into it too (v and w forms: block j
    # at ``rdispls[j]``, ``recvcounts[j]`` elements of the buffer), PROC_NULL slots untouched.
    def neighbor_allgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                           recvbuf: Any = None, comm: Comm | None = None) -> Event:
        """MPI_Neighbor_allgather: ``sendbuf`` to every out-neighbour; yields the list of
        what each in-neighbour sent (None for MPI_PROC_NULL).

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _allgather(self, "MPI_Neighbor_allgather", sendbuf, count, datatype, comm,
                          recvbuf)

    def ineighbor_allgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                            recvbuf: Any = None, comm: Comm | None = None) -> Event:
        """MPI_Ineighbor_allgather: yields a Request whose ``result`` holds the list.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _allgather(self, "MPI_Ineighbor_allgather", sendbuf, count, datatype, comm,
                          recvbuf)

    def neighbor_allgatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                            recvbuf: Any = None, recvcounts: Any = None, rdispls: Any = None,
                            comm: Comm | None = None) -> Event:
        """MPI_Neighbor_allgatherv: as neighbor_allgather; each process's value may have
        its own size.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Elements received from each in-neighbour (one count per neighbour).
        rdispls
            Displacement, in elements, of each in-neighbour's block in
            ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _allgather(self, "MPI_Neighbor_allgatherv", sendbuf, count, datatype, comm,
                          recvbuf, recvcounts, rdispls)

    def ineighbor_allgatherv(self, sendbuf: Any = None, count: Any = None,
                             datatype: Any = None, recvbuf: Any = None, recvcounts: Any = None,
                             rdispls: Any = None, comm: Comm | None = None) -> Event:
        """MPI_Ineighbor_allgatherv: yields a Request whose ``result`` holds the list.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Elements received from each in-neighbour (one count per neighbour).
        rdispls
            Displacement, in elements, of each in-neighbour's block in
            ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _allgather(self, "MPI_Ineighbor_allgatherv", sendbuf, count, datatype, comm,
                          recvbuf, recvcounts, rdispls)

    def neighbor_alltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                          recvbuf: Any = None, comm: Comm | None = None) -> Event:
        """MPI_Neighbor_alltoall: item j of ``sendbuf`` (a list, one item per out-neighbour,
        or a numpy array cut in equal parts) to out-neighbour j; yields the list of what
        each in-neighbour sent.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _alltoall(self, "MPI_Neighbor_alltoall", sendbuf, count, datatype, comm,
                         recvbuf)

    def ineighbor_alltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                           recvbuf: Any = None, comm: Comm | None = None) -> Event:
        """MPI_Ineighbor_alltoall: yields a Request whose ``result`` holds the list.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _alltoall(self, "MPI_Ineighbor_alltoall", sendbuf, count, datatype, comm,
                         recvbuf)

    def neighbor_alltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                           recvbuf: Any = None, recvcounts: Any = None, rdispls: Any = None,
                           comm: Comm | None = None) -> Event:
        """MPI_Neighbor_alltoallv: as neighbor_alltoall, items of their own sizes.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Elements received from each in-neighbour (one count per neighbour).
        rdispls
            Displacement, in elements, of each in-neighbour's block in
            ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _alltoall(self, "MPI_Neighbor_alltoallv", sendbuf, count, datatype, comm,
                         recvbuf, recvcounts, rdispls)

    def ineighbor_alltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                            recvbuf: Any = None, recvcounts: Any = None, rdispls: Any = None,
                            comm: Comm | None = None) -> Event:
        """MPI_Ineighbor_alltoallv: yields a Request whose ``result`` holds the list.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Elements received from each in-neighbour (one count per neighbour).
        rdispls
            Displacement, in elements, of each in-neighbour's block in
            ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _alltoall(self, "MPI_Ineighbor_alltoallv", sendbuf, count, datatype, comm,
                         recvbuf, recvcounts, rdispls)

    def neighbor_alltoallw(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                           recvbuf: Any = None, recvcounts: Any = None, rdispls: Any = None,
                           comm: Comm | None = None) -> Event:
        """MPI_Neighbor_alltoallw: as neighbor_alltoallv; each item's size is its own
        datatype's (give the items as bytes, ``recvcounts``/``rdispls`` in bytes).

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Bytes received from each in-neighbour.
        rdispls
            Byte displacement of each in-neighbour's block in ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _alltoall(self, "MPI_Neighbor_alltoallw", sendbuf, count, datatype, comm,
                         recvbuf, recvcounts, rdispls)

    def ineighbor_alltoallw(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                            recvbuf: Any = None, recvcounts: Any = None, rdispls: Any = None,
                            comm: Comm | None = None) -> Event:
        """MPI_Ineighbor_alltoallw: yields a Request whose ``result`` holds the list.

        Parameters
        ----------
        sendbuf
            The data: one item (sent to every out-neighbour) for allgather, a
            list with one item per out-neighbour for alltoall.
        count
            Elements of ``datatype`` per block. Default: from ``sendbuf``.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        recvbuf
            A numpy array that receives the blocks of the in-neighbours in place
            (optional: the yield gives the list).
        recvcounts
            Bytes received from each in-neighbour.
        rdispls
            Byte displacement of each in-neighbour's block in ``recvbuf``.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        """
        return _alltoall(self, "MPI_Ineighbor_alltoallw", sendbuf, count, datatype, comm,
                         recvbuf, recvcounts, rdispls)

    # -- helpers --------------------------------------------------------------------------
    def _intra(self, comm: Any, call: str) -> Comm:
        """``comm`` as an intracommunicator (topologies are for intracommunicators, §8.4)."""
        c = self._comm(comm)
        if c.is_inter:
            raise ErrArg(f"{call}: {c.name} is an intercommunicator (MPI 4.1 §8.4)")
        return c


def _undefined() -> int:
    return UNDEFINED


def _cart(comm: Comm, call: str) -> Cart:
    if topo_kind(comm.topo) != CART:
        raise ErrTopology(f"{call}: {comm.name} has no Cartesian topology")
    return comm.topo


def _graph(comm: Comm, call: str) -> Graph:
    if topo_kind(comm.topo) != GRAPH:
        raise ErrTopology(f"{call}: {comm.name} has no graph topology")
    return comm.topo


def _dist(comm: Comm, call: str) -> DistGraph:
    kind = topo_kind(comm.topo)
    if kind == DIST_GRAPH:
        return comm.topo
    raise ErrTopology(f"{call}: {comm.name} has no distributed graph topology")


def _ranks(ranks: Sequence[int] | None, comm: Comm, call: str) -> tuple[int, ...]:
    out = tuple(int(r) for r in (ranks or ()))
    for r in out:
        if not 0 <= r < comm.size:
            raise ErrArg(f"{call}: {r} is not a rank of {comm.name} (size {comm.size})")
    return out


def _weights(weights: Sequence[int] | None, ranks: Sequence[int] | None, call: str
             ) -> tuple[int, ...] | None:
    if weights is None:
        return None
    out = tuple(int(w) for w in weights)
    if len(out) != len(ranks or ()):
        raise ErrArg(f"{call}: {len(out)} weights for {len(ranks or ())} neighbours")
    return out


def _edges(sources: Sequence[int], degrees: Sequence[int], destinations: Sequence[int],
           weights: Sequence[int] | None, comm: Comm, call: str) -> list[tuple[int, int, Any]]:
    """MPI_Dist_graph_create's edges as (source, destination, weight) triplets."""
    sources, degrees = _ranks(sources, comm, call), [int(d) for d in degrees]
    destinations = _ranks(destinations, comm, call)
    if len(degrees) != len(sources) or sum(degrees) != len(destinations) or min(
            degrees, default=0) < 0:
        raise ErrArg(f"{call}: degrees {degrees} do not fit {len(sources)} sources and "
                     f"{len(destinations)} destinations")
    w = _weights(weights, destinations, call)
    out, k = [], 0
    for s, d in zip(sources, degrees, strict=True):
        for _ in range(d):
            out.append((s, destinations[k], None if w is None else w[k]))
            k += 1
    return out


def _adjacent(parent: Comm, args: dict[int, Any]) -> DistGraph:
    """The DistGraph of MPI_Dist_graph_create_adjacent: each member's own lists."""
    mine = [args[parent.world(r)] for r in range(parent.size)]
    return DistGraph(tuple(m[0] for m in mine), tuple(m[1] for m in mine),
                     tuple(m[2] for m in mine), tuple(m[3] for m in mine))


def _gathered(parent: Comm, args: dict[int, Any]) -> DistGraph:
    """The DistGraph of MPI_Dist_graph_create: every member's edges, gathered in the order
    of the members' ranks."""
    n = parent.size
    group = [parent.world(r) for r in range(n)]
    ins: list[list[tuple[int, Any]]] = [[] for _ in range(n)]
    outs: list[list[tuple[int, Any]]] = [[] for _ in range(n)]
    weighted = False
    for w in group:
        for s, d, weight in args[w]:
            outs[s].append((d, weight))
            ins[d].append((s, weight))
            weighted = weighted or weight is not None
    def parts(lists: list[list[tuple[int, Any]]]) -> tuple[tuple, tuple]:
        ranks = tuple(tuple(r for r, _ in row) for row in lists)
        weights = tuple(tuple(int(x or 0) for _, x in row) if weighted else None
                        for row in lists)
        return ranks, weights
    (srcs, sws), (dsts, dws) = parts(ins), parts(outs)
    return DistGraph(srcs, sws, dsts, dws)


def _deliver(recvbuf: Any, counts: Any, displs: Any) -> Any:
    if not isinstance(recvbuf, np.ndarray):
        return None
    return neighbor.placed(recvbuf, None if counts is None else [int(c) for c in counts],
                           None if displs is None else [int(d) for d in displs])


def _allgather(mpi: Any, call: str, sendbuf: Any, count: Any, datatype: Any, comm: Any,
               recvbuf: Any, counts: Any = None, displs: Any = None) -> Any:
    def make(c: Comm, sources: list[int], destinations: list[int]) -> neighbor.Exchange:
        nbytes = nbytes_of(sendbuf, count, datatype)
        return neighbor.Exchange(sources, destinations, [sendbuf] * len(destinations),
                                 [nbytes] * len(destinations))
    return neighbor.start(mpi._port, mpi._colls, call, comm, not call.startswith("MPI_I"), make,
                          _deliver(recvbuf, counts, displs))


def _alltoall(mpi: Any, call: str, sendbuf: Any, count: Any, datatype: Any, comm: Any,
              recvbuf: Any, counts: Any = None, displs: Any = None) -> Any:
    def make(c: Comm, sources: list[int], destinations: list[int]) -> neighbor.Exchange:
        n = len(destinations)
        if isinstance(sendbuf, np.ndarray):
            flat = sendbuf.reshape(-1)
            items = np.array_split(flat, n) if n else []
            return neighbor.Exchange(sources, destinations, list(items),
                                     [int(p.nbytes) for p in items])
        if not isinstance(sendbuf, list | tuple) or len(sendbuf) != n:
            raise ErrArg(f"{call}: expected a list of {n} items (one per out-neighbour) or a "
                         f"numpy array, got {type(sendbuf).__name__}")
        return neighbor.Exchange(sources, destinations, list(sendbuf),
                                 [nbytes_of(x, count, datatype) for x in sendbuf])
    return neighbor.start(mpi._port, mpi._colls, call, comm, not call.startswith("MPI_I"), make,
                          _deliver(recvbuf, counts, displs))
