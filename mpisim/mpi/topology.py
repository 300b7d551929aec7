"""Process topologies (MPI 4.1 §8): what a Cartesian, graph or distributed-graph
communicator knows of its processes' neighbours.

A topology is information attached to a communicator (§8.2): it never changes how messages
travel, only which ranks a program names. :class:`Cart` (§8.5.1) numbers its processes in
row-major order over ``dims`` (the last coordinate varies fastest, §8.5.1); :class:`Graph`
(§8.5.3) holds the whole graph as MPI_Graph_create's ``index`` and ``edges``;
:class:`DistGraph` (§8.5.4) holds each process's own in- and out-neighbours, as a
distributed graph is known only piecewise. Each answers :meth:`neighbors` in the order
§8.6 fixes for the neighbourhood collectives: for a Cartesian topology, in each dimension
the source then the destination of ``MPI_Cart_shift(dim, 1)`` (MPI_PROC_NULL off a
non-periodic edge); for a graph, MPI_Graph_neighbors' order both ways; for a distributed
graph, the ``sources`` and ``destinations`` as given.

:func:`dims_create` is MPI_Dims_create (§8.5.2). The standard asks for dimensions "as close
to each other as possible"; MPICH 5.0.2 finds the closest (smallest spread, then smallest
sum), Open MPI 5.0.11 deals the prime factors largest first to the smallest dimension (for
72 nodes in 2 dimensions MPICH gives [9, 8], Open MPI [12, 6]; both agree on every other
count up to 96 in 1 to 4 dimensions, observed with mpi4py's ``MPI.Compute_dims``).

The values of MPI_CART, MPI_GRAPH and MPI_DIST_GRAPH (MPI_Topo_test) are MPICH's; programs
compare them by name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .constants import PROC_NULL, UNDEFINED
from .errors import ErrArg, ErrDims, ErrRank, ErrTopology

__all__ = ["CART", "DIMS_RULES", "DIST_GRAPH", "GRAPH", "UNWEIGHTED", "Cart", "DistGraph",
           "Graph", "dims_create"]

GRAPH, CART, DIST_GRAPH = 1, 2, 3
"""MPI_Topo_test's answers (MPICH's values); a communicator without one gives UNDEFINED."""

UNWEIGHTED = None
"""MPI_UNWEIGHTED: a distributed graph whose edges carry no weights."""


# -- MPI_Dims_create (§8.5.2) ---------------------------------------------------------------
def _factorizations(n: int, k: int, largest: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``n`` as ``k`` factors in non-increasing order, each <= largest."""
    if k == 1:
        if n <= largest:
            yield (n,)
        return
    for f in range(min(n, largest), 0, -1):
        if n % f == 0:
            for rest in _factorizations(n // f, k - 1, f):
                yield (f, *rest)


def _closest(n: int, k: int) -> list[int]:
    """MPICH: the factorization with the smallest spread (then the smallest sum)."""
    best = min(_factorizations(n, k, n), key=lambda t: (t[0] - t[-1], sum(t), t))
    return list(best)


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def _greedy(n: int, k: int) -> list[int]:
    """Open MPI: each prime factor, largest first, multiplies the smallest dimension."""
    dims = [1] * k
    for p in sorted(_primes(n), reverse=True):
        dims[dims.index(min(dims))] *= p
    return sorted(dims, reverse=True)


DIMS_RULES = {"closest": _closest, "greedy": _greedy}
"""How MPI_Dims_create balances: ``closest`` (MPICH, and the standard's model), ``greedy``
(Open MPI)."""


def dims_create(nnodes: int, dims: int | Sequence[int], rule: str = "closest") -> list[int]:
    """MPI_Dims_create: ``dims`` (a count of dimensions, or a list whose zeros are to be
    filled) completed so that their product is ``nnodes``, the filled ones in non-increasing
    order. MPI_ERR_DIMS when it cannot be (a negative entry, a product of the given entries
    that does not divide ``nnodes``).

    Parameters
    ----------
    nnodes
        The number of processes to lay out, at least 1.
    dims
        The number of dimensions, or a list whose zeros are filled in (the other entries
        kept).
    rule
        How the filled dimensions are balanced: ``"closest"`` (the default: MPICH's, and
        the standard's model, as close to one another as possible) or ``"greedy"`` (Open
        MPI's).

    Returns
    -------
    list of int
        The processes along each dimension; their product is ``nnodes``.
    """
    if isinstance(dims, bool) or not isinstance(nnodes, int) or nnodes < 1:
        raise ErrDims(f"dims_create: nnodes must be a positive integer, got {nnodes!r}")
    given = [0] * dims if isinstance(dims, int) else list(dims)
    if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in given):
        raise ErrDims(f"dims_create: dims must be non-negative integers, got {given!r}")
    fixed = math.prod(d for d in given if d)
    free = given.count(0)
    if nnodes % fixed or (not free and fixed != nnodes):
        raise ErrDims(f"dims_create: {nnodes} nodes cannot be laid out with dims {given}")
    filled = iter(DIMS_RULES[rule](nnodes // fixed, free) if free else [])
    return [d if d else next(filled) for d in given]


# -- topologies -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Cart:
    """A Cartesian topology (MPI_Cart_create): ``dims[i]`` processes along dimension i,
    ``periods[i]`` whether it wraps around.

    ``mpi.cart_create`` makes one; a communicator's ``topo`` holds it.

    Parameters
    ----------
    dims
        Processes along each dimension.
    periods
        Whether each dimension wraps around.
    """

    dims: tuple[int, ...]
    periods: tuple[bool, ...]

    kind = CART

    @property
    def size(self) -> int:
        """How many processes the grid holds (the parent's others get MPI_COMM_NULL)."""
        return math.prod(self.dims)

    def coords(self, rank: int) -> list[int]:
        """MPI_Cart_coords: the coordinates of ``rank`` (row-major: the last varies fastest).

        Parameters
        ----------
        rank
            A rank of the grid.
        """
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < self.size:
            raise ErrRank(f"cart_coords: {rank!r} is not a rank of the grid (size {self.size})")
        out = []
        for d in reversed(self.dims):
            out.append(rank % d)
            rank //= d
        return out[::-1]

    def rank(self, coords: Sequence[int]) -> int:
        """MPI_Cart_rank: the rank at ``coords``; a periodic coordinate out of range wraps,
        a non-periodic one is MPI_ERR_ARG.

        Parameters
        ----------
        coords
            One coordinate per dimension.
        """
        coords = list(coords)
        if len(coords) != len(self.dims):
            raise ErrArg(f"cart_rank: expected {len(self.dims)} coordinates, got {coords}")
        rank = 0
        for c, d, periodic in zip(coords, self.dims, self.periods, strict=True):
            if not 0 <= c < d:
                if not periodic:
                    raise ErrArg(f"cart_rank: coordinate {c} is outside a non-periodic "
                                 f"dimension of {d}")
                c %= d
            rank = rank * d + c
        return rank

    def shift(self, rank: int, direction: int, disp: int) -> tuple[int, int]:
        """MPI_Cart_shift: (source, dest) of a shift by ``disp`` along ``direction``;
        MPI_PROC_NULL past a non-periodic edge.

        Parameters
        ----------
        rank
            The rank whose neighbours are asked for.
        direction
            The dimension shifted along, from 0.
        disp
            Steps (negative: towards lower coordinates).
        """
        if isinstance(direction, bool) or not isinstance(direction, int) or \
                not 0 <= direction < len(self.dims):
            raise ErrArg(f"cart_shift: direction {direction!r} is not a dimension of the grid "
                         f"({len(self.dims)} dimensions)")
        coords = self.coords(rank)
        return self._moved(coords, direction, -disp), self._moved(coords, direction, disp)

    def _moved(self, coords: list[int], direction: int, disp: int) -> int:
        moved = list(coords)
        moved[direction] += disp
        d = self.dims[direction]
        if not 0 <= moved[direction] < d:
            if not self.periods[direction]:
                return PROC_NULL
            moved[direction] %= d
        return self.rank(moved)

    def neighbors(self, rank: int) -> tuple[list[int], list[int]]:
        """(sources, destinations) in §8.6's order: per dimension, shift -1 then +1.

        Parameters
        ----------
        rank
            A rank of the grid.
        """
        out: list[int] = []
        for i in range(len(self.dims)):
            source, dest = self.shift(rank, i, 1)
            out += [source, dest]
        return out, list(out)

    def sub(self, remain: Sequence[bool]) -> Cart:
        """MPI_Cart_sub: the grid of the dimensions ``remain`` keeps.

        Parameters
        ----------
        remain
            For each dimension, whether the sub-grid keeps it.
        """
        if len(remain) != len(self.dims):
            raise ErrArg(f"cart_sub: expected {len(self.dims)} flags, got {list(remain)}")
        keep = [bool(r) for r in remain]
        return Cart(tuple(d for d, k in zip(self.dims, keep, strict=True) if k),
                    tuple(p for p, k in zip(self.periods, keep, strict=True) if k))

    def sub_split(self, rank: int, remain: Sequence[bool]) -> tuple[int, int]:
        """(color, key) of ``rank`` in the split that MPI_Cart_sub makes: one color per
        value of the dropped coordinates, ranked by the kept ones.

        Parameters
        ----------
        rank
            A rank of the grid.
        remain
            For each dimension, whether the sub-grid keeps it.
        """
        coords = self.coords(rank)
        color = key = 0
        for c, d, k in zip(coords, self.dims, remain, strict=True):
            if k:
                key = key * d + c
            else:
                color = color * d + c
        return color, key


@dataclass(frozen=True)
class Graph:
    """A graph topology (MPI_Graph_create): node i's neighbours are
    ``edges[index[i-1]:index[i]]`` (``index`` cumulative, as in C).

    Parameters
    ----------
    index
        The cumulative number of neighbours of nodes 0, 1, ...
    edges
        The neighbours of every node, one after another.
    """

    index: tuple[int, ...]
    edges: tuple[int, ...]

    kind = GRAPH

    @property
    def size(self) -> int:
        return len(self.index)

    def neighbors_of(self, rank: int) -> list[int]:
        """MPI_Graph_neighbors.

        Parameters
        ----------
        rank
            A node of the graph.
        """
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < self.size:
            raise ErrRank(f"graph_neighbors: {rank!r} is not a node of the graph "
                          f"({self.size} nodes)")
        start = self.index[rank - 1] if rank else 0
        return list(self.edges[start:self.index[rank]])

    def neighbors(self, rank: int) -> tuple[list[int], list[int]]:
        """(sources, destinations) of node ``rank``: its neighbours, both ways.

        Parameters
        ----------
        rank
            A node of the graph.
        """
        out = self.neighbors_of(rank)
        return out, list(out)


@dataclass(frozen=True)
class DistGraph:
    """A distributed graph (MPI_Dist_graph_create[_adjacent]): every process's in- and
    out-neighbours and their weights (None: MPI_UNWEIGHTED).

    Parameters
    ----------
    sources
        Per rank, its in-neighbours.
    sourceweights
        Per rank, the weights of its in-edges, or None (unweighted).
    destinations
        Per rank, its out-neighbours.
    destweights
        Per rank, the weights of its out-edges, or None (unweighted).
    """

    sources: tuple[tuple[int, ...], ...]
    sourceweights: tuple[tuple[int, ...] | None, ...]
    destinations: tuple[tuple[int, ...], ...]
    destweights: tuple[tuple[int, ...] | None, ...]

    kind = DIST_GRAPH

    @property
    def size(self) -> int:
        return len(self.sources)

    def weighted(self, rank: int) -> bool:
        """Whether ``rank``'s edges carry weights.

        Parameters
        ----------
        rank
            A rank of the graph's communicator.
        """
        return self.sourceweights[rank] is not None

    def neighbors(self, rank: int) -> tuple[list[int], list[int]]:
        """(sources, destinations) of ``rank``: its in- and out-neighbours.

        Parameters
        ----------
        rank
            A rank of the graph's communicator.
        """
        return list(self.sources[rank]), list(self.destinations[rank])


def check_cart(dims: Sequence[int], periods: Sequence[bool] | None, size: int) -> Cart:
    """The Cart of MPI_Cart_create's arguments over a parent of ``size`` processes:
    MPI_ERR_DIMS for a negative extent, MPI_ERR_ARG for a grid larger than the parent."""
    dims = list(dims)
    if any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in dims):
        raise ErrDims(f"cart_create: dims must be positive integers, got {dims}")
    flags = [False] * len(dims) if periods is None else [bool(p) for p in periods]
    if len(flags) != len(dims):
        raise ErrArg(f"cart_create: {len(dims)} dims but {len(flags)} periods")
    cart = Cart(tuple(dims), tuple(flags))
    if cart.size > size:
        raise ErrArg(f"cart_create: a grid of {cart.size} processes is larger than the "
                     f"communicator ({size})")
    return cart


def check_graph(index: Sequence[int], edges: Sequence[int], size: int) -> Graph:
    """The Graph of MPI_Graph_create's arguments: ``index`` cumulative and non-decreasing,
    every edge a node of the graph, no more nodes than the parent has processes."""
    index, edges = [int(i) for i in index], [int(e) for e in edges]
    if len(index) > size:
        raise ErrArg(f"graph_create: {len(index)} nodes, more than the communicator's {size}")
    if any(b < a for a, b in zip([0, *index], index, strict=False)) or \
            (index and index[-1] != len(edges)):
        raise ErrArg(f"graph_create: index {index} is not the cumulative degrees of "
                     f"{len(edges)} edges")
    if any(not 0 <= e < len(index) for e in edges):
        raise ErrTopology(f"graph_create: edges {edges} name a node outside 0..{len(index) - 1}")
    return Graph(tuple(index), tuple(edges))


def topo_kind(topo: object) -> int:
    """MPI_Topo_test: CART, GRAPH, DIST_GRAPH, or UNDEFINED for no topology."""
    return UNDEFINED if topo is None else topo.kind  # type: ignore[attr-defined]
