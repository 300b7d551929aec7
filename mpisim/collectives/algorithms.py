"""Collective algorithms as generators over a :class:`~.channel.Channel`'s messages.

Each function is one process's part: it yields the events of its sends and receives and
returns the collective's value on that process. The algorithms are the classic ones MPICH
and Open MPI implement (Thakur, Rabenseifner and Gropp, "Optimization of Collective
Communication Operations in MPICH", 2005): binomial trees, recursive doubling, ring,
pairwise exchange, dissemination, and the linear (flat) forms. Ranks are those of the
communicator; ``a`` carries the call's arguments (:class:`Args`). Reductions cost no
simulated time of their own; their data moves in the messages.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import numpy as np

__all__ = ["ALGORITHMS", "Args", "copy_of"]

Gen = Generator[Any, Any, Any]


class Args:
    """A collective call's arguments on one process."""

    __slots__ = ("deliver", "items", "nbytes", "op", "overlap", "root", "sig", "sizes", "value")

    def __init__(self, value: Any = None, nbytes: int = 0, root: int = 0, op: Any = None,
                 items: list[Any] | None = None, sizes: list[int] | None = None) -> None:
        self.value = value        # this process's contribution (bcast: the root's data)
        self.nbytes = nbytes      # its bytes on the wire
        self.root = root
        self.op = op
        self.items = items        # one item per rank (scatter at the root, alltoall)
        self.sizes = sizes        # the bytes of each item
        self.deliver: Any = None  # value -> value: writes the result into a receive buffer
        self.sig: Any = None      # what it says to the other members (meeting.Signature)
        self.overlap: tuple[int, int] | None = None  # two blocks of recvbuf that overlap

    def per_rank(self) -> tuple[list[Any], list[int]]:
        """(items, sizes) of a process that has one item per rank (scatter's root, every
        process of an alltoall or a reduce_scatter)."""
        items, sizes = self.items, self.sizes
        if items is None or sizes is None:
            raise TypeError("this collective's process has no item per rank")
        return items, sizes


def copy_of(value: Any) -> Any:
    """What a receiver gets of a value: its own copy of a numpy array (others are shared)."""
    return value.copy() if isinstance(value, np.ndarray) else value


def _binomial_tree(rel: int, p: int) -> tuple[int | None, list[tuple[int, int]]]:
    """A process's place in a binomial tree of ``p`` rooted at relative rank 0: its parent
    (None at the root) and its children as (relative rank, size of the subtree it heads),
    the largest subtree first, which is the order MPICH sends in."""
    mask, parent = 1, None
    while mask < p:
        if rel & mask:
            parent = rel - mask
            break
        mask <<= 1
    mask >>= 1
    children = []
    while mask > 0:
        if rel + mask < p:
            children.append((rel + mask, mask))
        mask >>= 1
    return parent, children


# -- barrier ------------------------------------------------------------------------------
def barrier_dissemination(ch: Any, a: Args) -> Gen:
    """ceil(log2 p) rounds: round k sends to r + 2^k and receives from r - 2^k."""
    p, r, dist = ch.size, ch.rank, 1
    while dist < p:
        s = ch.isend((r + dist) % p, None, 0)
        q = ch.irecv((r - dist) % p)
        yield ch.wait(s, q)
        dist *= 2
    return None


def barrier_linear(ch: Any, a: Args) -> Gen:
    """Everyone tells rank 0, which then releases everyone."""
    if ch.rank == 0:
        reqs = [ch.irecv(k) for k in range(1, ch.size)]
        yield ch.wait(*reqs)
        yield ch.wait(*[ch.isend(k, None, 0) for k in range(1, ch.size)])
    else:
        yield ch.wait(ch.isend(0, None, 0))
        yield ch.wait(ch.irecv(0))
    return None


# -- bcast --------------------------------------------------------------------------------
def bcast_binomial(ch: Any, a: Args) -> Gen:
    """Binomial tree from the root: ceil(log2 p) rounds; the largest subtree first."""
    p, root = ch.size, a.root
    parent, children = _binomial_tree((ch.rank - root) % p, p)
    value = a.value
    if parent is not None:
        value = (yield ch.wait(ch.irecv((parent + root) % p)))[0].data
    sends = [ch.isend((child + root) % p, value, a.nbytes) for child, _ in children]
    if sends:
        yield ch.wait(*sends)
    return copy_of(value)


def bcast_linear(ch: Any, a: Args) -> Gen:
    """The root sends to every other rank in turn."""
    if ch.rank == a.root:
        yield ch.wait(*[ch.isend(k, a.value, a.nbytes) for k in range(ch.size) if k != a.root])
        return copy_of(a.value)
    return copy_of((yield ch.wait(ch.irecv(a.root)))[0].data)


# -- reduce -------------------------------------------------------------------------------
def reduce_binomial(ch: Any, a: Args) -> Gen:
    """Binomial tree towards the root, combining on the way up (lower ranks' partial result
    first). A non-commutative op to another root than 0: the tree to rank 0, which keeps rank
    order, then rank 0 sends the result to the root (MPICH's reduce_intra_binomial)."""
    if a.root == 0 or getattr(a.op, "commutative", True):
        return (yield from _reduce_tree(ch, a))
    acc = yield from _reduce_tree(ch, Args(a.value, a.nbytes, 0, a.op))
    if ch.rank == 0:
        yield ch.wait(ch.isend(a.root, acc, a.nbytes))
        return None
    if ch.rank == a.root:
        return copy_of((yield ch.wait(ch.irecv(0)))[0].data)
    return None


def _reduce_tree(ch: Any, a: Args) -> Gen:
    p, root = ch.size, a.root
    rel = (ch.rank - root) % p
    acc, mask = a.value, 1
    while mask < p:
        if rel & mask == 0:
            src = rel | mask
            if src < p:
                got = (yield ch.wait(ch.irecv((src + root) % p)))[0].data
                acc = a.op(acc, got)
        else:
            yield ch.wait(ch.isend(((rel & ~mask) + root) % p, acc, a.nbytes))
            return None
        mask <<= 1
    return copy_of(acc)


def reduce_linear(ch: Any, a: Args) -> Gen:
    """Every rank sends to the root, which combines in rank order."""
    if ch.rank != a.root:
        yield ch.wait(ch.isend(a.root, a.value, a.nbytes))
        return None
    reqs = {k: ch.irecv(k) for k in range(ch.size) if k != a.root}
    statuses = yield ch.wait(*reqs.values())
    got = dict(zip(reqs, (s.data for s in statuses), strict=True))
    got[a.root] = a.value
    acc = got[0]
    for k in range(1, ch.size):
        acc = a.op(acc, got[k])
    return copy_of(acc)


# -- allreduce ----------------------------------------------------------------------------
def allreduce_recursive_doubling(ch: Any, a: Args) -> Gen:
    """Recursive doubling; with p not a power of two the first 2*rem ranks fold in pairs
    first and get the result back at the end (MPICH)."""
    p, r = ch.size, ch.rank
    pof2 = 1 << (p.bit_length() - 1)
    rem = p - pof2
    acc = a.value
    if r < 2 * rem:
        if r % 2 == 0:
            yield ch.wait(ch.isend(r + 1, acc, a.nbytes))
            newrank = -1
        else:
            acc = a.op((yield ch.wait(ch.irecv(r - 1)))[0].data, acc)
            newrank = r // 2
    else:
        newrank = r - rem
    if newrank >= 0:
        mask = 1
        while mask < pof2:
            newdst = newrank ^ mask
            dst = newdst * 2 + 1 if newdst < rem else newdst + rem
            s, q = ch.isend(dst, acc, a.nbytes), ch.irecv(dst)
            got = (yield ch.wait(s, q))[1].data
            acc = a.op(got, acc) if dst < r else a.op(acc, got)
            mask <<= 1
    if r < 2 * rem:
        if r % 2:
            yield ch.wait(ch.isend(r - 1, acc, a.nbytes))
        else:
            acc = (yield ch.wait(ch.irecv(r + 1)))[0].data
    return copy_of(acc)


def allreduce_ring(ch: Any, a: Args) -> Gen:
    """Ring: a reduce-scatter then an allgather of p chunks, 2(p-1) steps of n/p bytes
    (numpy arrays and a commutative op; otherwise recursive doubling, which keeps rank
    order)."""
    p, r = ch.size, ch.rank
    if p == 1:
        return copy_of(a.value)
    if not isinstance(a.value, np.ndarray) or a.value.size < p \
            or not getattr(a.op, "commutative", True):
        return (yield from allreduce_recursive_doubling(ch, a))
    chunks = [c.copy() for c in np.array_split(a.value.reshape(-1), p)]
    chunk_bytes = -(-a.nbytes // p)
    right, left = (r + 1) % p, (r - 1) % p
    for step in range(p - 1):
        send_i, recv_i = (r - step) % p, (r - step - 1) % p
        s, q = ch.isend(right, chunks[send_i], chunk_bytes), ch.irecv(left)
        chunks[recv_i] = a.op((yield ch.wait(s, q))[1].data, chunks[recv_i])
    for step in range(p - 1):
        send_i, recv_i = (r + 1 - step) % p, (r - step) % p
        s, q = ch.isend(right, chunks[send_i], chunk_bytes), ch.irecv(left)
        chunks[recv_i] = (yield ch.wait(s, q))[1].data
    out = np.empty(a.value.size, a.value.dtype)  # (np.concatenate would pack a pair type)
    at = 0
    for chunk in chunks:
        out[at:at + chunk.size] = chunk
        at += chunk.size
    return out.reshape(a.value.shape)


def allreduce_reduce_bcast(ch: Any, a: Args) -> Gen:
    """A binomial reduce to rank 0, then a binomial bcast from it."""
    acc = yield from reduce_binomial(ch, Args(a.value, a.nbytes, 0, a.op))
    return (yield from bcast_binomial(ch, Args(acc, a.nbytes, 0)))


# -- gather / scatter ---------------------------------------------------------------------
def gather_binomial(ch: Any, a: Args) -> Gen:
    """Binomial tree towards the root; each message carries a whole subtree's data."""
    p, root = ch.size, a.root
    rel = (ch.rank - root) % p
    have = {ch.rank: (a.value, a.nbytes)}
    mask = 1
    while mask < p:
        if rel & mask == 0:
            src = rel | mask
            if src < p:
                have.update((yield ch.wait(ch.irecv((src + root) % p)))[0].data)
        else:
            nbytes = sum(n for _, n in have.values())
            yield ch.wait(ch.isend(((rel & ~mask) + root) % p, have, nbytes))
            return None
        mask <<= 1
    return [copy_of(have[k][0]) for k in range(p)]


def gather_linear(ch: Any, a: Args) -> Gen:
    """Every rank sends its data to the root."""
    if ch.rank != a.root:
        yield ch.wait(ch.isend(a.root, a.value, a.nbytes))
        return None
    reqs = {k: ch.irecv(k) for k in range(ch.size) if k != a.root}
    statuses = yield ch.wait(*reqs.values())
    got = dict(zip(reqs, (s.data for s in statuses), strict=True))
    got[a.root] = a.value
    return [copy_of(got[k]) for k in range(ch.size)]


def scatter_binomial(ch: Any, a: Args) -> Gen:
    """Binomial tree from the root; each message carries a whole subtree's items."""
    p, root = ch.size, a.root
    rel = (ch.rank - root) % p
    have: dict[int, tuple[Any, int]] = {}
    if ch.rank == root:
        items, sizes = a.per_rank()
        have = {(k - root) % p: (items[k], sizes[k]) for k in range(p)}
    parent, children = _binomial_tree(rel, p)
    if parent is not None:
        have = (yield ch.wait(ch.irecv((parent + root) % p)))[0].data
    sends = []
    for child, span in children:
        part = {k: v for k, v in have.items() if child <= k < child + span}
        sends.append(ch.isend((child + root) % p, part, sum(n for _, n in part.values())))
    if sends:
        yield ch.wait(*sends)
    return copy_of(have[rel][0])


def scatter_linear(ch: Any, a: Args) -> Gen:
    """The root sends each rank its item."""
    if ch.rank == a.root:
        items, sizes = a.per_rank()
        yield ch.wait(*[ch.isend(k, items[k], sizes[k]) for k in range(ch.size)
                        if k != a.root])
        return copy_of(items[a.root])
    return copy_of((yield ch.wait(ch.irecv(a.root)))[0].data)


# -- allgather ----------------------------------------------------------------------------
def allgather_ring(ch: Any, a: Args) -> Gen:
    """Ring: p-1 steps, each passing on the block received in the previous one."""
    p, r = ch.size, ch.rank
    blocks: list[Any] = [None] * p
    blocks[r] = (a.value, a.nbytes)
    right, left = (r + 1) % p, (r - 1) % p
    for step in range(p - 1):
        send_i, recv_i = (r - step) % p, (r - step - 1) % p
        s = ch.isend(right, blocks[send_i], blocks[send_i][1])
        blocks[recv_i] = (yield ch.wait(s, ch.irecv(left)))[1].data
    return [copy_of(v) for v, _ in blocks]


def allgather_recursive_doubling(ch: Any, a: Args) -> Gen:
    """Recursive doubling: log2 p exchanges of doubling size (p a power of two; otherwise
    the ring, as MPICH falls back)."""
    p, r = ch.size, ch.rank
    if p & (p - 1):
        return (yield from allgather_ring(ch, a))
    have = {r: (a.value, a.nbytes)}
    mask = 1
    while mask < p:
        peer = r ^ mask
        s = ch.isend(peer, dict(have), sum(n for _, n in have.values()))
        have.update((yield ch.wait(s, ch.irecv(peer)))[1].data)
        mask <<= 1
    return [copy_of(have[k][0]) for k in range(p)]


# -- alltoall -----------------------------------------------------------------------------
def alltoall_pairwise(ch: Any, a: Args) -> Gen:
    """p-1 steps: step i sends to r + i and receives from r - i."""
    p, r = ch.size, ch.rank
    out: list[Any] = [None] * p
    items, sizes = a.per_rank()
    out[r] = copy_of(items[r])
    for i in range(1, p):
        to, frm = (r + i) % p, (r - i) % p
        s = ch.isend(to, items[to], sizes[to])
        out[frm] = copy_of((yield ch.wait(s, ch.irecv(frm)))[1].data)
    return out


def alltoall_linear(ch: Any, a: Args) -> Gen:
    """Every send and receive posted at once, then waited for."""
    p, r = ch.size, ch.rank
    items, sizes = a.per_rank()
    recvs = {k: ch.irecv(k) for k in range(p) if k != r}
    sends = [ch.isend(k, items[k], sizes[k]) for k in range(p) if k != r]
    statuses = yield ch.wait(*recvs.values(), *sends)
    out = [None] * p
    for k, status in zip(recvs, statuses, strict=False):
        out[k] = copy_of(status.data)
    out[r] = copy_of(items[r])
    return out


# -- scans --------------------------------------------------------------------------------
def scan_recursive_doubling(ch: Any, a: Args, exclusive: bool = False) -> Gen:
    """Recursive doubling: log2 p exchanges of the partial reduction (MPICH)."""
    p, r = ch.size, ch.rank
    partial, result, mask = a.value, (None if exclusive else a.value), 1
    while mask < p:
        dst = r ^ mask
        if dst < p:
            s = ch.isend(dst, partial, a.nbytes)
            got = (yield ch.wait(s, ch.irecv(dst)))[1].data
            if r > dst:
                partial = a.op(got, partial)
                result = got if result is None else a.op(got, result)
            else:
                partial = a.op(partial, got)
        mask <<= 1
    return copy_of(result)


def exscan_recursive_doubling(ch: Any, a: Args) -> Gen:
    """As the scan, without this process's own contribution (rank 0 gets None)."""
    return (yield from scan_recursive_doubling(ch, a, exclusive=True))


def scan_linear(ch: Any, a: Args) -> Gen:
    """A chain: rank r waits for r - 1's prefix, adds its own, passes it on."""
    r, acc = ch.rank, a.value
    if r > 0:
        acc = a.op((yield ch.wait(ch.irecv(r - 1)))[0].data, acc)
    if r < ch.size - 1:
        yield ch.wait(ch.isend(r + 1, acc, a.nbytes))
    return copy_of(acc)


# -- reduce_scatter_block, reduce_scatter -------------------------------------------------
def reduce_scatter_block_reduce_scatter(ch: Any, a: Args) -> Gen:
    """A binomial reduce of the p blocks to rank 0, then a binomial scatter of them (the
    blocks may differ in size: Reduce_scatter's recvcounts)."""
    items, sizes = a.per_rank()
    blocks = list(items)
    total = sum(sizes)
    acc = yield from reduce_binomial(ch, Args(blocks, total, 0, blockwise(a.op)))
    return (yield from scatter_binomial(ch, Args(items=acc if ch.rank == 0 else None,
                                                 sizes=sizes, root=0)))


def blockwise(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda x, y: [op(u, v) for u, v in zip(x, y, strict=True)]


ALGORITHMS: dict[str, dict[str, Callable[..., Gen]]] = {
    "barrier": {"dissemination": barrier_dissemination, "linear": barrier_linear},
    "bcast": {"binomial": bcast_binomial, "linear": bcast_linear},
    "reduce": {"binomial": reduce_binomial, "linear": reduce_linear},
    "allreduce": {"recursive_doubling": allreduce_recursive_doubling, "ring": allreduce_ring,
                  "reduce_bcast": allreduce_reduce_bcast},
    "gather": {"binomial": gather_binomial, "linear": gather_linear},
    "gatherv": {"linear": gather_linear},
    "scatter": {"binomial": scatter_binomial, "linear": scatter_linear},
    "scatterv": {"linear": scatter_linear},
    "allgather": {"recursive_doubling": allgather_recursive_doubling, "ring": allgather_ring},
    "allgatherv": {"ring": allgather_ring},
    "alltoall": {"pairwise": alltoall_pairwise, "linear": alltoall_linear},
    "alltoallv": {"pairwise": alltoall_pairwise, "linear": alltoall_linear},
    "alltoallw": {"pairwise": alltoall_pairwise, "linear": alltoall_linear},
    "reduce_scatter_block": {"reduce_scatter": reduce_scatter_block_reduce_scatter},
    "reduce_scatter": {"reduce_scatter": reduce_scatter_block_reduce_scatter},
    "scan": {"recursive_doubling": scan_recursive_doubling, "linear": scan_linear},
    "exscan": {"recursive_doubling": exscan_recursive_doubling},
}
"""Every collective's algorithms by name; the first is the standard profile's default."""
