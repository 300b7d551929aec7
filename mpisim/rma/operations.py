"""One-sided operations on the network model (MPI 4.1 §12.3): when their bytes move, when
they act on the target's memory, when the origin learns they are complete.

An operation is a message the target's NIC receives, timed as point-to-point messages are
(:class:`~mpisim.p2p.network.NetworkModel`): its bytes leave the origin's port
(``bytes / bandwidth``, after what the port already carries) and arrive ``latency`` later.

- **put, accumulate** (data to the target): *locally complete* (the origin may reuse its
  buffer; ``MPI_Win_flush_local``, an ``Rput``'s request) once the bytes have left;
  *applied* when they reach the target (or when it next enters MPI, see :mod:`.progress`),
  which writes them into its memory at that instant; *remotely complete* (what
  ``MPI_Win_flush``, ``MPI_Win_unlock``, ``MPI_Win_complete`` wait for) when the target's
  acknowledgement (latency only) is back.
- **get**: a request (latency only) to the target, which reads its memory when the request
  is served (so a get returns what the target held at that instant of the run) and sends
  the bytes back from its own port; complete, locally and remotely, when they arrive.
- **get_accumulate, fetch_and_op, compare_and_swap**: the data go as a put's, the target
  combines and answers with what it held, as a get's answer; complete when that arrives.

The operations of one origin reach one target in the order they were made (the network's
jitter never reorders them), so an origin's accumulates are applied in order (§12.7.2) and
a get made after a put to the same place sees it. Each stage is a
:class:`~mpisim.p2p.requests.Request` whose completion time becomes known when the stage is
scheduled, so the synchronization calls wait on them as waits do on requests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simpy.events import Event

from ..engine.clock import at, callback_at, fire_at, pending
from ..p2p.requests import Request, Status

__all__ = ["DATA", "FETCH", "READ", "Operation", "after", "transfer", "when_all"]

DATA, READ, FETCH = "data", "read", "fetch"
"""What an operation carries: data to the target (put, accumulate), a request for data
(get), data that the target answers (the fetching accumulates)."""


class Operation:
    """One operation from its origin to its target: its three stages (see the module)."""

    __slots__ = ("access", "applied", "call", "epoch", "gate", "local", "nbytes", "origin",
                 "remote", "round", "row", "target", "where", "window")

    def __init__(self, window: str, call: str, origin: int, target: int, nbytes: int,
                 where: Any, epoch: str, fence_round: int) -> None:
        self.window = window          # its window's name
        self.call = call
        self.origin = origin
        self.target = target
        self.nbytes = nbytes
        self.where = where
        self.epoch = epoch            # "fence", "pscw" or "passive"
        self.round = fence_round      # the origin's fence round (a fence epoch's operations)
        self.local = Request("rma", call, origin, target, 0, nbytes)
        self.remote = Request("rma", call, origin, target, 0, nbytes)
        self.applied = Request("rma", call, origin, target, 0, nbytes)
        self.local.where = where
        self.local.status = Status(target, 0, nbytes)
        self.access: Any = None       # its bytes at the target (conflicts)
        self.gate: Request | None = None  # the lock grant it leaves after (lazy epochs)
        self.row = -1                 # its row in the trace

    def __repr__(self) -> str:
        return f"<Operation {self.call} {self.origin}->{self.target} {self.nbytes} B>"


def transfer(rt: Any, op: Operation, kind: str, earliest: float, needs_mpi: bool,
             at_target: Callable[[], Any], reply_bytes: int,
             at_origin: Callable[[Any], None] | None) -> None:
    """Move ``op`` from ``earliest`` on (see the module): ``at_target()`` acts on the
    target's memory when served and returns what goes back (``reply_bytes`` of it), which
    ``at_origin(value)`` takes when it arrives."""
    net, o, t = rt.net, op.origin, op.target
    if kind == READ:
        arrive = earliest + net.control_delay(o, t)
    else:
        end, arrive = net.inject(o, t, op.nbytes, earliest)
        if kind == DATA:
            op.local.known(end)
    arrive = rt.in_order(o, t, arrive)
    rt.record_sent(op, earliest, arrive)

    def served() -> None:
        now = rt.env._now
        value = at_target()
        op.applied.known(now)
        rt.record_applied(op, now)
        if kind == DATA:
            op.remote.known(now + net.control_delay(t, o))
            return
        _, back = net.inject(t, o, reply_bytes, now)
        callback_at(rt.env, back, _returned, (op, value, at_origin))

    rt.service.serve(t, arrive, served, needs_mpi)


def _returned(ev: Any) -> None:
    """A get's or a fetch's answer is back at the origin: into its buffer; complete."""
    op, value, at_origin = ev._value
    if at_origin is not None:
        at_origin(value)
    now = ev.env._now
    op.local.known(now)
    op.remote.known(now)


def _done(req: Request) -> float:
    """The completion time of a request known to have one."""
    when = req.done_at
    assert when is not None, "a completion time not known yet"
    return when


def when_all(env: Any, reqs: list[Request], earliest: float, value: Any = None) -> Event:
    """An event (of ``value``) at the latest completion of ``reqs`` (not before
    ``earliest``), once every one is known. Unlike MPI_Waitall it leaves them as they are: a
    request an ``Rput`` gave the program stays for the program to wait on."""
    unknown = [r for r in reqs if r.done_at is None]
    if not unknown:
        return at(env, max([earliest, *(_done(r) for r in reqs)]), value)
    ev = pending(env)
    left = [len(unknown)]

    def known(_r: Request) -> None:
        left[0] -= 1
        if left[0] == 0:
            fire_at(ev, max([env._now, earliest, *(_done(r) for r in reqs)]), value)

    for r in unknown:
        r.on_known(known)
    return ev


def after(env: Any, gate: Request | None, earliest: float, go: Callable[[float], None]) -> None:
    """``go(t)`` at ``earliest``, or once ``gate`` (a lock's grant) is known and past: an
    operation of a lazily locked epoch leaves when its lock is granted."""
    if gate is None or (gate.done_at is not None and gate.done_at <= earliest):
        go(earliest)
        return

    def known(r: Request) -> None:
        when = max(_done(r), earliest)
        callback_at(env, max(when, env._now), lambda ev: go(ev.env._now), None)

    gate.on_known(known)
