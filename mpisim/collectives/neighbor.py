"""Neighborhood collectives (MPI 4.1 §8.6) from point-to-point messages.

On a communicator with a process topology, MPI_Neighbor_allgather sends a process's value to
each of its out-neighbours and receives one from each in-neighbour; MPI_Neighbor_alltoall
sends item j to out-neighbour j. Each process's part is one round, as MPICH and Open MPI
schedule it: every receive and every send posted at once, then all awaited, on the
communicator's collective context (a :class:`~.channel.Channel`, so the messages never
match a user's receive and carry the call's sequence number as their tag). An MPI_PROC_NULL
neighbour (off the edge of a non-periodic grid) moves nothing: its slot of the result is
None and a receive buffer keeps its bytes there (§8.6).

Several messages between the same two processes match in the order they are posted, so the
order of the sends matters when a process is a neighbour twice (a periodic dimension of 1
or 2 processes). §8.6 defines the Cartesian exchange per dimension: what a process sends to
its +1 neighbour arrives in that neighbour's slot of its -1 neighbour, and the other way
round. Receives are posted in slot order (-1 then +1 per dimension), so the sends of each
dimension are posted +1 first: the data lands where MPICH 5.0.2 and Open MPI 5.0.11 put it
(observed with mpi4py on 1, 2 and 3 processes, periodic, ``neighbor_alltoall``). Graphs and
distributed graphs are sent and received in the order of their neighbour lists.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.clock import done, failed
from ..engine.port import RankPort
from ..engine.steps import steps
from ..mpi.constants import PROC_NULL
from ..mpi.errors import ErrTopology, MPIError
from ..mpi.topology import CART
from ..p2p.requests import Request, Status
from .algorithms import copy_of
from .channel import Channel

__all__ = ["Exchange", "exchange", "placed", "start"]


@dataclass
class Exchange:
    """One process's part of a neighbourhood collective: its neighbours (ranks of the
    communicator, MPI_PROC_NULL allowed) and what it sends to each out-neighbour."""

    sources: list[int]
    destinations: list[int]
    items: list[Any]          # one per destination (the same value for allgather)
    sizes: list[int]          # bytes on the wire of each item
    cartesian: bool = False   # send in §8.6's Cartesian order (see the module)

    @property
    def nbytes(self) -> int:
        return sum(self.sizes)


def _send_order(n: int, cartesian: bool) -> list[int]:
    """The order the sends are posted in: per dimension +1 then -1 for a Cartesian
    topology (so duplicate neighbours match §8.6's slots), else the list's."""
    if not cartesian:
        return list(range(n))
    return [j ^ 1 for j in range(n)]



def exchange(ch: Channel, a: Exchange) -> Generator[Any, Any, list[Any]]:
    """Post every receive and every send, wait for all; the received values by slot."""
    recvs = {j: ch.irecv(s) for j, s in enumerate(a.sources) if s != PROC_NULL}
    sends = [ch.isend(a.destinations[j], a.items[j], a.sizes[j])
             for j in _send_order(len(a.destinations), a.cartesian)
             if a.destinations[j] != PROC_NULL]
    got: list[Any] = [None] * len(a.sources)
    if recvs or sends:
        statuses = yield ch.wait(*recvs.values(), *sends)
        for j, status in zip(recvs, statuses, strict=False):
            got[j] = copy_of(status.data)
    return got


def start(port: RankPort, colls: Any, call: str, comm: Any, blocking: bool, make: Any,
          deliver: Any = None) -> Any:
    """One process's part of neighbourhood collective ``call`` on ``comm``: an event with
    the list of received values (blocking) or a Request whose ``result`` holds it.
    ``make(comm, sources, destinations)`` gives the call's :class:`Exchange`; ``deliver``
    is given the list when it has arrived, before the call completes (a receive buffer's
    :func:`placed`)."""
    env = port.env
    try:
        comm = port.comm(comm)
        topo = comm.topo
        if topo is None:
            raise ErrTopology(f"{call}: {comm.name} has no process topology (MPI 4.1 §8.6)")
        sources, destinations = topo.neighbors(comm.rank)
        args = make(comm, sources, destinations)
        args.cartesian = topo.kind == CART
    except MPIError as e:
        port.enter(call)
        return failed(env, e)
    tag = comm.colls
    comm.colls += 1
    ch = Channel(env, colls.tp, comm, call, tag, colls.entered)
    port.enter(call, nbytes=args.nbytes, obj=ch)
    proc = steps(env, _delivered(exchange(ch, args), deliver) if deliver else
                 exchange(ch, args))
    if blocking:
        return proc
    req = Request("coll", call, ch.me, -1, -1, args.nbytes)
    proc.callbacks.append(lambda p: _complete(req, p, env))
    return done(env, req)


def _delivered(gen: Any, deliver: Any) -> Generator[Any, Any, list[Any]]:
    got = yield from gen
    deliver(got)
    return got


def placed(recvbuf: np.ndarray, counts: list[int] | None = None,
           displs: list[int] | None = None) -> Any:
    """A ``deliver`` that writes the received blocks into a numpy ``recvbuf`` (seen flat,
    in its elements): block j at ``displs[j]`` (default: after the blocks before it),
    ``counts[j]`` elements (default: equal blocks filling it); an MPI_PROC_NULL slot is
    left as it is (§8.6)."""
    def deliver(got: list[Any]) -> None:
        flat = recvbuf.reshape(-1)
        sizes = counts or [flat.size // len(got) if got else 0] * len(got)
        offset = 0
        for j, block in enumerate(got):
            data = _elements(block, flat.dtype)
            n = sizes[j]
            at = offset if displs is None else displs[j]
            if block is not None:
                flat[at:at + n] = data[:n]
            offset = at + n
    return deliver


def _elements(block: Any, dtype: np.dtype) -> np.ndarray:
    """A received block as elements of the receive buffer's dtype (its bytes, when the
    dtypes differ)."""
    if block is None:
        return np.empty(0, dtype)
    arr = np.ascontiguousarray(block).reshape(-1)
    return arr if arr.dtype == dtype else arr.view(np.uint8).view(dtype)


def _complete(req: Request, proc: Any, env: Any) -> None:
    """A nonblocking call's request completes with its process (its value or error)."""
    if proc._ok:
        req.result = proc._value
    else:
        proc._defused = True
        req.error = proc._value
    req.status = Status(-1, -1, 0)
    req.known(env._now)
