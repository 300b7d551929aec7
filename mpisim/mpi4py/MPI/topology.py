"""Process topologies in the stand-in (MPI 4.1 §8): the methods of mpi4py's ``Intracomm``
that make them, of ``Cartcomm``, ``Graphcomm``, ``Distgraphcomm`` and ``Topocomm`` that
query them, the neighbourhood collectives, and ``MPI.Compute_dims``.

The classes themselves are composed in :mod:`.comm` (as mpi4py's ``Comm.pyx`` holds them);
here are their methods, one mixin per class, each a call of the rank's ``mpi`` handle
(:mod:`mpisim.handle.topology`). mpi4py's argument conventions are kept: ``periods`` a
sequence or one bool for every dimension, a graph's ``index`` with or without its leading
0, a distributed graph's weights ``None``/``MPI.UNWEIGHTED`` or ``MPI.WEIGHTS_EMPTY``, and
mpi4py's ValueError for lengths that do not match. Lowercase neighbourhood collectives move
pickled objects; uppercase ones take buffer specs (:mod:`..msgbuffer.collective`) and fill
the receive buffer, blocks of MPI_PROC_NULL neighbours untouched.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...mpi.constants import BOTTOM
from ...mpi.errors import MPIError
from ..bridge import current
from ..datatypes.integers import c_int, index
from ..exceptions import as_exception
from ..msgbuffer import bottom
from ..msgbuffer.collective import simple, vector
from ..msgbuffer.p2p import located
from .request import Request

__all__ = ["UNWEIGHTED", "WEIGHTS_EMPTY", "CartQueries", "Compute_dims", "DistGraphQueries",
           "GraphQueries", "NeighborMethods", "TopologyMaker"]

_UINT8 = np.dtype(np.uint8)


class _Weights:
    """MPI.UNWEIGHTED and MPI.WEIGHTS_EMPTY: sentinels, as mpi4py's."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"MPI.{self.name}"

    def __reduce__(self) -> str:
        return self.name


UNWEIGHTED = _Weights("UNWEIGHTED")
WEIGHTS_EMPTY = _Weights("WEIGHTS_EMPTY")


def Compute_dims(nnodes: int, dims: int | Sequence[int]) -> list[int]:
    """MPI_Dims_create, as the run's profile's library balances (mpisim.mpi.topology)."""
    try:
        if not isinstance(dims, int):
            len(dims)  # a float: "object of type 'float' has no len()", as mpi4py says
        return current().plain().dims_create(c_int(nnodes), dims if isinstance(dims, int)
                                             else _ints(dims))
    except MPIError as e:
        raise as_exception(e) from None


def _ints(values: Any) -> list[int]:
    """An integer array argument (dims, coords, a graph's edges, weights...) as mpi4py reads
    it: each item through ``operator.index``, so a float, a str or a numpy bool is a
    TypeError as under mpi4py 4.1.2 (:mod:`..datatypes.integers`)."""
    return [index(v) for v in values]


def _periods(periods: Any, ndims: int) -> list[bool]:
    """mpi4py's ``periods``: None (none periodic), one bool for all, or one per dimension
    (each item an integer, as :func:`_ints` reads it)."""
    if periods is None or isinstance(periods, bool | int | np.bool_):
        return [bool(periods)] * ndims
    flags = [bool(p) for p in _ints(periods)]
    if len(flags) != ndims:
        raise ValueError(f"periods: expecting {ndims} items, got {len(flags)}")
    return flags


def _index(index: Sequence[int]) -> list[int]:
    """A graph's cumulative index, its leading 0 dropped when given (mpi4py takes both)."""
    index = _ints(index)
    return index[1:] if len(index) > 1 and index[0] == 0 else index


def _weights(weights: Any, ranks: list[int], what: str) -> list[int] | None:
    if weights is None or weights is UNWEIGHTED:
        return None
    if weights is WEIGHTS_EMPTY:
        if ranks:
            raise ValueError(f"{what}: MPI.WEIGHTS_EMPTY for {len(ranks)} neighbours")
        return []
    out = _ints(weights)
    if len(out) != len(ranks):
        raise ValueError(f"{what}: expecting {len(ranks)} weights, got {len(out)}")
    return out


class TopologyMaker:
    """Intracomm's topology constructors (MPI 4.1 §8.5) and the map queries."""

    def Create_cart(self, dims: Sequence[int], periods: Any = None,
                    reorder: bool = False) -> Any:
        dims = _ints(dims)
        made = self._p2p("cart_create", True, dims=dims,  # type: ignore[attr-defined]
                         periods=_periods(periods, len(dims)), reorder=bool(reorder))
        return self._wrap(made)  # type: ignore[attr-defined]

    def Create_graph(self, index: Sequence[int], edges: Sequence[int],
                     reorder: bool = False) -> Any:
        made = self._p2p("graph_create", True, index=_index(index),  # type: ignore[attr-defined]
                         edges=_ints(edges), reorder=bool(reorder))
        return self._wrap(made)  # type: ignore[attr-defined]

    def Create_dist_graph_adjacent(self, sources: Any, destinations: Any,
                                   sourceweights: Any = None, destweights: Any = None,
                                   info: Any = None, reorder: bool = False) -> Any:
        sources = _ints(sources or ())
        destinations = _ints(destinations or ())
        made = self._p2p(  # type: ignore[attr-defined]
            "dist_graph_create_adjacent", True, sources=sources, destinations=destinations,
            sourceweights=_weights(sourceweights, sources, "sourceweights"),
            destweights=_weights(destweights, destinations, "destweights"),
            reorder=bool(reorder))
        return self._wrap(made)  # type: ignore[attr-defined]

    def Create_dist_graph(self, sources: Any, degrees: Any, destinations: Any,
                          weights: Any = None, info: Any = None, reorder: bool = False) -> Any:
        sources = _ints(sources or ())
        destinations = _ints(destinations or ())
        made = self._p2p(  # type: ignore[attr-defined]
            "dist_graph_create", True, sources=sources, degrees=_ints(degrees),
            destinations=destinations, weights=_weights(weights, destinations, "weights"),
            reorder=bool(reorder))
        return self._wrap(made)  # type: ignore[attr-defined]

    def Cart_map(self, dims: Sequence[int], periods: Any = None) -> int:
        dims = _ints(dims)
        return self._local("cart_map", dims=dims,  # type: ignore[attr-defined]
                           periods=_periods(periods, len(dims)))

    def Graph_map(self, index: Sequence[int], edges: Sequence[int]) -> int:
        return self._local("graph_map", index=_index(index),  # type: ignore[attr-defined]
                           edges=_ints(edges))


class NeighborMethods:
    """Topocomm: neighbour lists (§8.5) and the neighbourhood collectives (§8.6)."""

    def _neighbors(self) -> tuple[list[int], list[int]]:
        mpi = current().plain()
        comm = self._comm(mpi)  # type: ignore[attr-defined]
        return comm.topo.neighbors(comm.rank)

    @property
    def degrees(self) -> tuple[int, int]:
        sources, destinations = self._neighbors()
        return len(sources), len(destinations)

    indegree = property(lambda self: self.degrees[0])
    outdegree = property(lambda self: self.degrees[1])
    inoutedges = property(lambda self: self._neighbors())
    inedges = property(lambda self: self._neighbors()[0])
    outedges = property(lambda self: self._neighbors()[1])

    # -- lowercase: pickled objects -------------------------------------------------------
    def neighbor_allgather(self, sendobj: Any) -> list[Any]:
        got = self._p2p("neighbor_allgather", True, sendbuf=_pack(sendobj))  # type: ignore[attr-defined]
        return [_unpack(x) for x in got]

    def neighbor_alltoall(self, sendobj: Sequence[Any]) -> list[Any]:
        got = self._p2p("neighbor_alltoall", True,  # type: ignore[attr-defined]
                        sendbuf=[_pack(x) for x in sendobj])
        return [_unpack(x) for x in got]

    # -- uppercase: buffer specs ----------------------------------------------------------
    def Neighbor_allgather(self, sendbuf: Any, recvbuf: Any) -> None:
        self._neighbor_allgather("neighbor_allgather", sendbuf, recvbuf, False)

    def Ineighbor_allgather(self, sendbuf: Any, recvbuf: Any) -> Request:
        return Request(self._neighbor_allgather("ineighbor_allgather", sendbuf, recvbuf, False))

    def Neighbor_allgatherv(self, sendbuf: Any, recvbuf: Any) -> None:
        self._neighbor_allgather("neighbor_allgatherv", sendbuf, recvbuf, True)

    def Ineighbor_allgatherv(self, sendbuf: Any, recvbuf: Any) -> Request:
        return Request(self._neighbor_allgather("ineighbor_allgatherv", sendbuf, recvbuf, True))

    def _neighbor_allgather(self, call: str, sendbuf: Any, recvbuf: Any, v: bool) -> Any:
        indegree = self.degrees[0]
        send = simple(sendbuf)
        data = np.array(send.buf, copy=True).reshape(-1)
        if v:
            recv_v = vector(recvbuf, indegree, writable=True)
            return self._p2p(call, True, sendbuf=data, recvbuf=recv_v.buf,  # type: ignore[attr-defined]
                             recvcounts=recv_v.counts, rdispls=recv_v.displs)
        recv = simple(recvbuf, indegree, writable=True)
        return self._p2p(call, True, sendbuf=data, recvbuf=recv.buf)  # type: ignore[attr-defined]

    def Neighbor_alltoall(self, sendbuf: Any, recvbuf: Any) -> None:
        self._neighbor_alltoall("neighbor_alltoall", sendbuf, recvbuf, False)

    def Ineighbor_alltoall(self, sendbuf: Any, recvbuf: Any) -> Request:
        return Request(self._neighbor_alltoall("ineighbor_alltoall", sendbuf, recvbuf, False))

    def Neighbor_alltoallv(self, sendbuf: Any, recvbuf: Any) -> None:
        self._neighbor_alltoall("neighbor_alltoallv", sendbuf, recvbuf, True)

    def Ineighbor_alltoallv(self, sendbuf: Any, recvbuf: Any) -> Request:
        return Request(self._neighbor_alltoall("ineighbor_alltoallv", sendbuf, recvbuf, True))

    def _neighbor_alltoall(self, call: str, sendbuf: Any, recvbuf: Any, v: bool) -> Any:
        indegree, outdegree = self.degrees
        if v:
            send_v = vector(sendbuf, outdegree)
            items = _blocks(send_v.buf, send_v.counts, send_v.displs)
            recv_v = vector(recvbuf, indegree, writable=True)
            return self._p2p(call, True, sendbuf=items, recvbuf=recv_v.buf,  # type: ignore[attr-defined]
                             recvcounts=recv_v.counts, rdispls=recv_v.displs)
        send = simple(sendbuf, outdegree)
        items = _blocks(send.buf, [send.count] * outdegree, None)
        recv = simple(recvbuf, indegree, writable=True)
        return self._p2p(call, True, sendbuf=items, recvbuf=recv.buf)  # type: ignore[attr-defined]

    def Neighbor_alltoallw(self, sendbuf: Any, recvbuf: Any) -> None:
        _, finish = self._neighbor_alltoallw("neighbor_alltoallw", sendbuf, recvbuf)
        finish()

    def Ineighbor_alltoallw(self, sendbuf: Any, recvbuf: Any) -> Request:
        engine, finish = self._neighbor_alltoallw("ineighbor_alltoallw", sendbuf, recvbuf)
        return Request(engine, result=lambda _r: finish())

    def _neighbor_alltoallw(self, call: str, sendbuf: Any, recvbuf: Any) -> tuple[Any, Any]:
        """The call's value and the step that completes it (MPI.BOTTOM receive blocks are
        written through their addresses then, :mod:`..msgbuffer.bottom`)."""
        indegree, outdegree = self.degrees
        sraw, scounts, sdispls, stypes = _wspec(sendbuf, outdegree)
        rraw, rcounts, rdispls, rtypes = _wspec(recvbuf, indegree)
        finish: Any = bottom.nothing
        if sraw is BOTTOM:
            items = bottom.gathered(scounts, sdispls, [t._type() for t in stypes]).parts()
        else:
            items = [sraw[d:d + c * t.Get_size()].copy()
                     for c, d, t in zip(scounts, sdispls, stypes, strict=True)]
        if rraw is BOTTOM:
            packed, finish = bottom.receiving(rcounts, rdispls, [t._type() for t in rtypes])
            rraw, sizes, rdispls = packed.buf, packed.counts, packed.displs
        else:
            sizes = [c * t.Get_size() for c, t in zip(rcounts, rtypes, strict=True)]
        value = self._p2p(call, True, sendbuf=items,  # type: ignore[attr-defined]
                          recvbuf=rraw, recvcounts=sizes, rdispls=rdispls)
        return value, finish


def _pack(obj: Any) -> np.ndarray:
    return np.frombuffer(bytearray(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)), dtype=_UINT8)


def _unpack(arr: Any) -> Any:
    return None if arr is None else pickle.loads(np.asarray(arr, dtype=_UINT8).tobytes())


def _blocks(buf: Any, counts: list[int] | None, displs: list[int] | None) -> list[Any]:
    """The blocks of a send buffer (in its elements): ``counts[j]`` at ``displs[j]``
    (default: one after the other)."""
    flat = np.asarray(buf).reshape(-1)
    out, at = [], 0
    for j, n in enumerate(counts or []):
        start = at if displs is None else displs[j]
        out.append(flat[start:start + n].copy())
        at = start + n
    return out


def _wspec(spec: Any, blocks: int) -> tuple[Any, list[int], list[int], list[Any]]:
    """An alltoallw buffer spec: ``[buf, (counts, displs), datatypes]`` or ``[buf, counts,
    displs, datatypes]``, displacements in bytes; the buffer as its raw bytes (MPI.BOTTOM
    as itself: the displacements are then addresses)."""
    if isinstance(spec, list | tuple) and len(spec) == 3:
        buf, (counts, displs), types = spec
    elif isinstance(spec, list | tuple) and len(spec) == 4:
        buf, counts, displs, types = spec
    else:
        raise ValueError(f"message: expecting [buffer, (counts, displacements), datatypes], "
                         f"got {spec!r}")
    counts, displs, types = list(counts), list(displs), list(types)
    if buf is None or buf is BOTTOM:
        raw: Any = BOTTOM
    else:
        arr = located(buf)
        raw = arr.reshape(-1).view(_UINT8) if arr.flags.c_contiguous else arr
    if not len(counts) == len(displs) == len(types) == blocks:
        raise ValueError(f"message: expecting {blocks} counts, displacements and datatypes")
    return raw, [int(c) for c in counts], [int(d) for d in displs], types


class CartQueries:
    """Cartcomm's queries (MPI 4.1 §8.5.5) and MPI_Cart_sub."""

    def _cart(self) -> tuple[list[int], list[bool], list[int]]:
        return self._local("cart_get")  # type: ignore[attr-defined]

    def Get_dim(self) -> int:
        return self._local("cartdim_get")  # type: ignore[attr-defined]

    dim = ndim = property(Get_dim)

    def Get_topo(self) -> tuple[list[int], list[int], list[int]]:
        """(dims, periods, coords), periods as 0/1 as mpi4py gives them."""
        dims, periods, coords = self._cart()
        return dims, [int(p) for p in periods], coords

    topo = property(Get_topo)
    dims = property(lambda self: self.Get_topo()[0])
    periods = property(lambda self: self.Get_topo()[1])
    coords = property(lambda self: self.Get_topo()[2])

    def Get_coords(self, rank: int) -> list[int]:
        return self._local("cart_coords", rank=c_int(rank))  # type: ignore[attr-defined]

    def Get_cart_rank(self, coords: Sequence[int]) -> int:
        return self._local("cart_rank", coords=_ints(coords))  # type: ignore[attr-defined]

    def Shift(self, direction: int, disp: int) -> tuple[int, int]:
        return self._local("cart_shift", direction=c_int(direction),  # type: ignore[attr-defined]
                           disp=c_int(disp))

    def Sub(self, remain_dims: Sequence[bool]) -> Any:
        made = self._p2p("cart_sub", True,  # type: ignore[attr-defined]
                         remain_dims=[bool(r) for r in _ints(remain_dims)])
        return self._wrap(made)  # type: ignore[attr-defined]


class GraphQueries:
    """Graphcomm's queries (MPI 4.1 §8.5.5)."""

    def Get_dims(self) -> tuple[int, int]:
        return self._local("graphdims_get")  # type: ignore[attr-defined]

    dims = property(Get_dims)
    nnodes = property(lambda self: self.Get_dims()[0])
    nedges = property(lambda self: self.Get_dims()[1])

    def Get_topo(self) -> tuple[list[int], list[int]]:
        return self._local("graph_get")  # type: ignore[attr-defined]

    topo = property(Get_topo)
    index = property(lambda self: self.Get_topo()[0])
    edges = property(lambda self: self.Get_topo()[1])

    def Get_neighbors_count(self, rank: int) -> int:
        return self._local("graph_neighbors_count", rank=c_int(rank))  # type: ignore[attr-defined]

    def Get_neighbors(self, rank: int) -> list[int]:
        return self._local("graph_neighbors", rank=c_int(rank))  # type: ignore[attr-defined]

    neighbors = property(lambda self: self.Get_neighbors(self.Get_rank()))
    nneighbors = property(lambda self: self.Get_neighbors_count(self.Get_rank()))


class DistGraphQueries:
    """Distgraphcomm's queries (MPI 4.1 §8.5.5)."""

    def Get_dist_neighbors_count(self) -> tuple[int, int, bool]:
        return self._local("dist_graph_neighbors_count")  # type: ignore[attr-defined]

    def Get_dist_neighbors(self) -> tuple[list[int], list[int], Any]:
        """(sources, destinations, (sourceweights, destweights) or None), as mpi4py."""
        sources, sw, destinations, dw = self._local("dist_graph_neighbors")  # type: ignore[attr-defined]
        return sources, destinations, None if sw is None else (sw, dw)
