"""Collectives over an intercommunicator (MPI 4.1 §6.2.2), from point-to-point messages.

On an intercommunicator a collective joins two groups: MPI_Bcast goes from the root to
every process of the *other* group (the root gives MPI_ROOT, the rest of its group
MPI_PROC_NULL, the other group the root's rank in the remote group); MPI_Allreduce gives
each group the reduction of the other group's values; MPI_Allgather gives each group the
values of the other; MPI_Barrier returns once every process of both groups has entered it.

They are built as MPICH builds them (``src/mpi/coll/*/ *_inter_*``): a phase inside each
group over its local intracommunicator (MPICH's ``local_comm``; here the CommInfo's
``local``), using the intracommunicator algorithms of :mod:`.algorithms`, and an exchange
between the two groups' leaders (rank 0 of each) on the intercommunicator's collective
context. Each phase has its own tag, so no phase's message matches another's receive.
Every collective MPI defines on one is here, blocking and nonblocking: barrier, bcast,
reduce, allreduce, gather(v), allgather(v), scatter(v), alltoall(v, w) and
reduce_scatter(_block). The all-to-alls are a pairwise exchange between the groups (each
process sends item k to remote process k), as MPICH's ``alltoall_inter_pairwise_exchange``;
a reduce-scatter reduces each group's vectors at its leader, the leaders swap them, and
each leader scatters the other group's reduction over its own group by its own counts.
Scan and exscan are not defined on an intercommunicator (§6.2.2): MPI_ERR_COMM.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ..engine.clock import done
from ..engine.port import RankPort
from ..engine.steps import steps
from ..mpi.comm import Comm
from ..mpi.constants import PROC_NULL, ROOT
from ..mpi.errors import ErrComm
from ..p2p.requests import Request, Status
from .algorithms import (
    Args,
    barrier_dissemination,
    bcast_binomial,
    blockwise,
    copy_of,
    gather_binomial,
    reduce_binomial,
    scatter_binomial,
)
from .channel import Channel, Entered

__all__ = ["KINDS", "start"]

Gen = Generator[Any, Any, Any]

_PHASES = 4
"""Tags per call: the local phases and the leaders' exchange never share one."""


class _Remote(Channel):
    """The channel to the other group: its peers are remote ranks (``comm.world`` of an
    intercommunicator names the remote group's processes); who entered the call is kept
    by the local phases' channels."""

    __slots__ = ()

    def __init__(self, env: Any, tp: Any, comm: Comm, call: str, tag: int) -> None:
        self.env, self.tp, self.comm, self.call = env, tp, comm, call
        self.rank, self.size = comm.rank, comm.peers
        self.me = comm.info.group[comm.rank]
        self.ctx = comm.context + 1
        self.tag = tag
        self.entered = Entered()
        self.pending = []


class _Sides:
    """One process's channels of one intercommunicator collective: ``local`` (its own
    group, on the local intracommunicator's collective context) per phase, and
    ``remote``, to the other group's ranks on the intercommunicator's."""

    def __init__(self, env: Any, tp: Any, comm: Comm, call: str, tag: int,
                 entered: Any) -> None:
        self.env, self.tp, self.comm, self.call = env, tp, comm, call
        self.tag, self.entered = tag, entered
        local = comm.info.local
        assert local is not None  # (an intercommunicator's side has its local group's)
        self.local_comm = Comm(local, comm.rank)
        self.remote = _Remote(env, tp, comm, call, tag * _PHASES)

    def local(self, phase: int) -> Channel:
        return Channel(self.env, self.tp, self.local_comm, self.call,
                       self.tag * _PHASES + phase, self.entered)

    @property
    def leader(self) -> bool:
        return self.comm.rank == 0


def _exchange(s: _Sides, value: Any, nbytes: int) -> Gen:
    """The leaders swap ``value`` (the other leader's is returned)."""
    ch = s.remote
    got = yield ch.wait(ch.isend(0, value, nbytes), ch.irecv(0))
    return got[1].data


def barrier(s: _Sides, a: Args) -> Gen:
    yield from barrier_dissemination(s.local(1), a)
    if s.leader:
        yield from _exchange(s, None, 0)
    yield from bcast_binomial(s.local(2), Args(None, 0, 0))
    return None


def bcast(s: _Sides, a: Args) -> Gen:
    if a.root == ROOT:  # the root keeps its buffer; its group gets nothing (None)
        ch = s.remote
        yield ch.wait(ch.isend(0, a.value, a.nbytes))
        return None
    if a.root == PROC_NULL:
        return None
    value = None
    if s.leader:
        ch = s.remote
        value = (yield ch.wait(ch.irecv(a.root)))[0].data
    return (yield from bcast_binomial(s.local(1), Args(value, a.nbytes, 0)))


def allreduce(s: _Sides, a: Args) -> Gen:
    mine = yield from reduce_binomial(s.local(1), Args(a.value, a.nbytes, 0, a.op))
    theirs = (yield from _exchange(s, mine, a.nbytes)) if s.leader else None
    return (yield from bcast_binomial(s.local(2), Args(theirs, a.nbytes, 0)))


def allgather(s: _Sides, a: Args) -> Gen:
    mine = yield from gather_binomial(s.local(1), Args(a.value, a.nbytes, 0))
    theirs = None
    if s.leader:
        theirs = yield from _exchange(s, mine, a.nbytes * s.comm.size)
    return (yield from bcast_binomial(s.local(2), Args(theirs, a.nbytes * s.comm.peers, 0)))


def reduce(s: _Sides, a: Args) -> Gen:
    """The root (MPI_ROOT) gets the reduction of the other group's values."""
    if a.root == ROOT:
        ch = s.remote
        return (yield ch.wait(ch.irecv(0)))[0].data
    if a.root == PROC_NULL:
        return None
    mine = yield from reduce_binomial(s.local(1), Args(a.value, a.nbytes, 0, a.op))
    if s.leader:
        ch = s.remote
        yield ch.wait(ch.isend(a.root, mine, a.nbytes))
    return None


def gather(s: _Sides, a: Args) -> Gen:
    """The root (MPI_ROOT) gets the list of the other group's values."""
    if a.root == ROOT:
        ch = s.remote
        return (yield ch.wait(ch.irecv(0)))[0].data
    if a.root == PROC_NULL:
        return None
    mine = yield from gather_binomial(s.local(1), Args(a.value, a.nbytes, 0))
    if s.leader:
        ch = s.remote
        yield ch.wait(ch.isend(a.root, mine, a.nbytes * s.comm.size))
    return None


def scatter(s: _Sides, a: Args) -> Gen:
    """The root (MPI_ROOT) sends the other group's items to its leader, which scatters
    them over its group (MPICH's ``scatter_inter_remote_send_local_scatter``)."""
    if a.root == ROOT:
        ch = s.remote
        yield ch.wait(ch.isend(0, (a.items, a.sizes), sum(a.sizes or [])))
        return None
    if a.root == PROC_NULL:
        return None
    items = sizes = None
    if s.leader:
        ch = s.remote
        items, sizes = (yield ch.wait(ch.irecv(a.root)))[0].data
    return (yield from scatter_binomial(s.local(1), Args(items=items, sizes=sizes)))


def alltoall(s: _Sides, a: Args) -> Gen:
    """Item k to remote process k, and one item from each remote process, all posted at
    once: a list of the other group's items, in their rank order."""
    ch, p = s.remote, s.comm.peers
    recvs = [ch.irecv(k) for k in range(p)]
    sends = [ch.isend(k, a.items[k], a.sizes[k]) for k in range(p)]  # type: ignore[index]
    statuses = yield ch.wait(*recvs, *sends)
    return [copy_of(st.data) for st in statuses[:p]]


def reduce_scatter(s: _Sides, a: Args) -> Gen:
    """Each group's leader gets its group's reduction, the leaders swap theirs, and each
    scatters the other group's over its own group, cut by its own counts (6.10.1)."""
    total = sum(a.sizes or [])
    mine = yield from reduce_binomial(s.local(1), Args(list(a.items or []), total, 0,
                                                       blockwise(a.op)))
    items = None
    if s.leader:
        theirs = yield from _exchange(s, mine, total)
        items = _recut(theirs, a.items or [])
    return (yield from scatter_binomial(s.local(2), Args(items=items, sizes=a.sizes)))


def _recut(blocks: list[Any], like: list[Any]) -> list[Any]:
    """The other group's reduced blocks, joined and cut again as this group's ``like``."""
    if not blocks or not all(isinstance(b, np.ndarray) for b in blocks) \
            or not all(isinstance(b, np.ndarray) for b in like):
        return [None] * len(like)
    whole = np.concatenate([b.ravel() for b in blocks])
    cuts = np.cumsum([b.size for b in like])[:-1]
    return [part.reshape(b.shape) for part, b in zip(np.split(whole, cuts), like,
                                                     strict=True)]



KINDS = {"barrier": barrier, "bcast": bcast, "allreduce": allreduce, "allgather": allgather,
         "reduce": reduce, "gather": gather, "gatherv": gather, "allgatherv": allgather,
         "scatter": scatter, "scatterv": scatter, "alltoall": alltoall,
         "alltoallv": alltoall, "alltoallw": alltoall, "reduce_scatter": reduce_scatter,
         "reduce_scatter_block": reduce_scatter}
"""The collectives of an intercommunicator (MPI 4.1 §6.2.2), by kind."""


def start(colls: Any, port: RankPort, call: str, kind: str, comm: Comm, blocking: bool,
          args: Args, deliver: Any = None) -> Any:
    """One process's part of ``call`` over the intercommunicator ``comm`` (its Args made):
    an event with its value (blocking) or a Request whose ``result`` holds it."""
    env = colls.env
    algorithm = KINDS.get(kind)
    if algorithm is None:
        raise ErrComm(f"{call} is not defined on an intercommunicator (MPI 4.1 §6.2.2)")
    tag = comm.colls
    comm.colls += 1
    sides = _Sides(env, colls.tp, comm, call, tag, colls.entered)
    port.enter(call, nbytes=args.nbytes, obj=sides.local(0))
    gen = algorithm(sides, args)
    proc = steps(env, gen if deliver is None else _delivered(gen, deliver))
    if blocking:
        return proc
    req = Request("coll", call, sides.remote.me, -1, -1, args.nbytes)
    proc.callbacks.append(lambda p: _complete(req, p, env))
    return done(env, req)


def _delivered(gen: Gen, deliver: Any) -> Gen:
    return deliver((yield from gen))


def _complete(req: Request, proc: Any, env: Any) -> None:
    if proc._ok:
        req.result = proc._value
    else:
        proc._defused = True
        req.error = proc._value
    req.status = Status(-1, -1, 0)
    req.known(env._now)
