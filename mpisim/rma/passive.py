"""Passive-target synchronization (MPI 4.1 §12.5.3, §12.5.4): lock and unlock, lock_all,
the flushes and sync, on the network model.

A lock request is a control message (latency only) to the target, whose lock
(:mod:`.locks`) grants it at once or queues it; the grant goes back (latency). When the
request is sent is the profile's ``rma_lock``:

- ``eager`` (MPICH 5.0.2, and the standard's profile): MPI_Win_lock sends it and returns
  with the grant: an uncontended lock takes a round trip (two latencies); a lock held by
  another origin waits for its release.
- ``lazy`` (Open MPI 5.0.11): MPI_Win_lock returns at once; the request goes with the
  epoch's first operation, and the operations leave once it is granted; a put or get
  returns at once, an accumulate-family call (atomic) once the lock is held. An epoch that
  makes no operation asks nothing (lock and unlock both return at once, as measured).

MPI_MODE_NOCHECK asks for no lock at all. Whether the target grants only inside MPI is
``rma_lock_progress`` (MPICH: yes, even for an allocated window) or, for windows whose
operations need it, ``rma_progress`` (:mod:`.progress`).

**Unlock** waits until the epoch's operations to the target are complete there
(acknowledged), then releases the lock (a control message: the unlock does not wait for
it; the target grants the next request when it arrives). **Flush** completes the
operations made so far to a target (remotely: acknowledged), **flush_local** locally (the
origin may reuse its buffers); the ``_all`` forms do so for every target. **Sync** has
nothing to do in mpisim's unified memory model (§12.4) and returns.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ..engine.clock import at
from ..engine.port import RankPort
from ..engine.sites import site_text
from ..p2p.requests import Request
from .constants import LOCK_SHARED, MODE_NOCHECK
from .operations import when_all
from .waits import Holders, Operations

__all__ = ["PassiveEpoch", "flush", "grant_for", "lock", "lock_all", "unlock", "unlock_all"]


class PassiveEpoch:
    """One passive-target access epoch: a lock of one target, or lock_all."""

    __slots__ = ("grants", "lock_type", "nocheck", "row", "where")

    def __init__(self, lock_type: int, assertion: int, where: Any) -> None:
        self.lock_type = lock_type
        self.nocheck = bool(assertion & MODE_NOCHECK)
        self.where = where
        self.grants: dict[int, Request] = {}  # target -> its lock's grant (asked for)
        self.row = -1


def request_lock(rt: Any, win: Any, target: int, lock_type: int, where: Any,
                 earliest: float) -> Request:
    """Ask ``target`` for its lock; the Request is known when the grant is back."""
    env, net, me = rt.env, rt.net, win.me
    grant = Request("rma", "MPI_Win_lock", me, target, 0, 0)
    lock = win.info.lock(target)

    def granted() -> None:
        grant.known(env._now + net.control_delay(target, me))

    rt.service.serve(target, earliest + net.control_delay(me, target),
                     lambda: lock.request(me, lock_type, where, granted), _needs(win),
                     (me, "MPI_Win_lock", site_text(where)))
    return grant


def _needs(win: Any) -> bool:
    """Whether the target serves this window's lock requests only inside MPI."""
    return win.info.lock_progress or win.info.progress


def _release(rt: Any, win: Any, target: int) -> None:
    lock = win.info.lock(target)
    me = win.me
    rt.service.serve(target, rt.env._now + rt.net.control_delay(me, target),
                     lambda: lock.release(me), _needs(win))


def grant_for(rt: Any, win: Any, epoch: PassiveEpoch, target: int,
              earliest: float) -> Request | None:
    """The grant an operation to ``target`` must wait for (None: none, MODE_NOCHECK); a
    lazy epoch asks for the lock now, with its first operation."""
    if epoch.nocheck:
        return None
    grant = epoch.grants.get(target)
    if grant is None:
        grant = epoch.grants[target] = request_lock(rt, win, target, epoch.lock_type,
                                                    epoch.where, earliest)
    return grant


def _not_granted(win: Any, epoch: PassiveEpoch, targets: list[int]) -> Any:
    """For the deadlock analysis: the locks of ``targets`` still not granted."""
    def locks() -> dict[int, Any]:
        return {t: win.info.lock(t) for t in targets
                if t in epoch.grants and epoch.grants[t].done_at is None}
    return locks


def lock(rt: Any, port: RankPort, win: Any, target: int, lock_type: int, assertion: int,
         where: Any, call: str) -> Event:
    """MPI_Win_lock (see the module)."""
    win.epochs.check_lock(call, target)
    epoch = PassiveEpoch(lock_type, assertion, where)
    win.epochs.locks[target] = epoch
    epoch.row = rt.record.opened(win.name, win.me, "lock", target, rt.env._now)
    return _open(rt, port, win, epoch, [target], call)


def lock_all(rt: Any, port: RankPort, win: Any, assertion: int, where: Any, call: str) -> Event:
    """MPI_Win_lock_all: a shared lock of every member."""
    win.epochs.check_lock_all(call)
    epoch = PassiveEpoch(LOCK_SHARED, assertion, where)
    win.epochs.lock_all = epoch
    epoch.row = rt.record.opened(win.name, win.me, "lock_all", -1, rt.env._now)
    return _open(rt, port, win, epoch, list(win.info.group), call)


def _open(rt: Any, port: RankPort, win: Any, epoch: PassiveEpoch, targets: list[int],
          call: str) -> Event:
    earliest = rt.env._now + rt.overhead
    if epoch.nocheck or rt.lock_mode == "lazy":
        port.enter(call)
        return at(rt.env, earliest)
    port.enter(call, obj=Holders(call, win, _not_granted(win, epoch, targets)))
    grants = [grant_for(rt, win, epoch, t, earliest) for t in targets]
    return when_all(rt.env, [g for g in grants if g is not None], earliest)


def unlock(rt: Any, port: RankPort, win: Any, target: int, call: str) -> Event:
    """MPI_Win_unlock (see the module)."""
    epoch = win.epochs.check_unlock(call, target)
    return _close(rt, port, win, epoch, [target], call,
                  lambda: win.epochs.locks.pop(target, None))


def unlock_all(rt: Any, port: RankPort, win: Any, call: str) -> Event:
    """MPI_Win_unlock_all."""
    epoch = win.epochs.check_unlock_all(call)
    return _close(rt, port, win, epoch, list(win.info.group), call,
                  lambda: setattr(win.epochs, "lock_all", None))


def _close(rt: Any, port: RankPort, win: Any, epoch: PassiveEpoch, targets: list[int], call: str,
           ended: Any) -> Event:
    ops = [op for t in targets for op in win.pending(t)]
    port.enter(call, obj=Operations(call, win, ops, _not_granted(win, epoch, targets)))
    return rt.env.process(_unlocked(rt, win, epoch, targets, ops, ended))


def _unlocked(rt: Any, win: Any, epoch: PassiveEpoch, targets: list[int], ops: list[Any],
              ended: Any) -> Generator[Any, Any, None]:
    env = rt.env
    waits = [op.remote for op in ops] + [epoch.grants[t] for t in targets if t in epoch.grants]
    yield when_all(env, waits, env._now + rt.overhead)
    for t in targets:
        if t in epoch.grants:
            _release(rt, win, t)
        win.forget(t)
    for op in ops:
        op.access.open = False
    ended()
    rt.record.closed(epoch.row, env._now)


def flush(rt: Any, port: RankPort, win: Any, target: int | None, local: bool, call: str) -> Event:
    """MPI_Win_flush (``target``), flush_all (None), and their local forms: the operations
    made so far complete, remotely (acknowledged) or locally (buffers reusable)."""
    win.epochs.check_flush(call, target)
    ops = win.pending(target)
    epoch = win.epochs.passive(target) if target is not None else None
    locks = _not_granted(win, epoch, [target]) \
        if epoch is not None and target is not None else dict  # (an epoch: a target's)
    port.enter(call, target, obj=Operations(call, win, ops, locks))
    return rt.env.process(_flushed(rt, win, target, ops, local))


def _flushed(rt: Any, win: Any, target: int | None, ops: list[Any],
             local: bool) -> Generator[Any, Any, None]:
    env = rt.env
    yield when_all(env, [op.local if local else op.remote for op in ops],
                   env._now + rt.overhead)
    if not local:
        for op in ops:
            op.access.open = False
        if target is None:
            win.forget()
        else:
            win.forget(target)
