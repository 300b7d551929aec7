"""The completion calls: wait, waitall, waitany, waitsome, test, testall (3.7.3, 3.7.5).

Each returns the event a program yields. A request that has completed is made inactive by
the call that reports it (MPI_REQUEST_NULL); an inactive request counts as complete with an
empty status. An error carried by a completed request (MPI_ERR_TRUNCATE on a receive) is
raised in the program by the call that completes it.

waitany and waitsome report, among the requests complete at the moment they return, the
lowest index first: MPI leaves the choice to the implementation, and a fixed rule keeps
runs deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simpy.events import NORMAL, PENDING, Event

from ..engine.clock import (
    BuiltEvent,
    Clock,
    at,
    callback_at,
    callbacks_at,
    done,
    failed,
    fire_at,
    pending,
    queue_last,
)
from ..mpi.constants import UNDEFINED
from .requests import EMPTY_STATUS_ARGS, Request, Status

__all__ = ["test", "testall", "wait", "waitall", "waitany", "waitsome"]



def _finish(req: Request) -> Status:
    """Mark a completed request inactive; its status (an empty one if it had none)."""
    req.active = False
    status = req.status
    return status if status is not None else Status(*EMPTY_STATUS_ARGS)


def _complete(req: Request, now: float) -> bool:
    return (not req.active) or (req.done_at is not None and req.done_at <= now)


def _result(env: Clock, reqs: Sequence[Request], value: Any) -> Event:
    for req in reqs:
        if req.error is not None:
            return failed(env, req.error)
    return done(env, value)


def wait(env: Clock, req: Request) -> Event:
    """MPI_Wait: the request's Status once it completes."""
    if not req.active:
        return done(env, Status(*EMPTY_STATUS_ARGS))
    if req.done_at is not None:
        if req.done_at <= env._now or req.error is not None:
            return _result(env, (req,), _finish(req))
        return at(env, req.done_at, _finish(req))  # the waiting rank cannot look before then
    ev = BuiltEvent()  # (pending(env), inlined: once per blocking receive)
    ev.env, ev.callbacks, ev._value = env, [], PENDING
    if req.wake is not None:  # a second wait on it (another thread's: erroneous, §11.6.2,
        req.wake.callbacks.append(lambda first: _as(first, ev))  # a finding): it returns
        return ev  # with the first
    req.wake = ev
    if req.waiters is None:  # (req.on_known(_wake), inlined: its time is not known yet)
        req.waiters = [_wake]  # a module function and the event on the request: no closure
    else:
        req.waiters.append(_wake)
    return ev


def _as(first: Event, ev: Event) -> None:
    """``ev`` happens as ``first`` did, at once."""
    if first._ok:
        ev.succeed(first._value)
    else:
        ev.fail(first._value)


def _wake(req: Request) -> None:
    """The completion time of a request a blocking wait waits on became known: the wait
    returns then (a receive's is now, when the message is delivered)."""
    ev, req.wake = req.wake, None
    env = ev.env
    now = env._now
    if req.done_at > now:  # (known: it is why _wake runs)
        callback_at(env, req.done_at, _wake_later, (ev, req))  # type: ignore[arg-type]
        return
    req.active = False  # (_finish, inlined)
    error = req.error
    if error is None:
        status = req.status
        ev._ok, ev._value = True, status if status is not None else Status(*EMPTY_STATUS_ARGS)
    else:
        ev._ok, ev._value = False, error
    item = (now, NORMAL, next(env._eid), ev)  # now: the receiver's wake-up (Clock.schedule
    if env.then is None:  # at the current time, inlined): right after this event (Clock.then)
        env.then = item
    else:
        queue_last(env, item)


def _wake_later(e: Event) -> None:
    ev, req = e._value
    status = _finish(req)
    if req.error is not None:
        fire_at(ev, ev.env._now, req.error, ok=False)
    else:
        fire_at(ev, ev.env._now, status)


def waitall(env: Clock, reqs: Sequence[Request]) -> Event:
    """MPI_Waitall: the list of Statuses once every request has completed."""
    reqs = list(reqs)
    waiting: _AllKnown | None = None
    for r in reqs:
        if r.active and r.done_at is None:  # (r.on_known(known), inlined: not known yet)
            if waiting is None:
                ev = BuiltEvent()  # (pending(env), inlined: once per waitall)
                ev.env, ev.callbacks, ev._value = env, [], PENDING
                waiting = _AllKnown(ev, reqs, 0)
                known = waiting.known  # one bound method for all its requests
            waiting.left += 1
            if r.waiters is None:
                r.waiters = [known]
            else:
                r.waiters.append(known)
    if waiting is None:
        return _at_latest(env, reqs)
    return waiting.ev


class _AllKnown:
    """A waitall whose requests' completion times are not all known yet: when the last
    becomes known, the wait is due at the latest of them (an engine step then, which
    finishes the requests and fires the wait's event: two events, in the places a
    callback and the event it fires take)."""

    __slots__ = ("ev", "left", "reqs")

    def __init__(self, ev: Event, reqs: list[Request], left: int) -> None:
        self.ev, self.reqs, self.left = ev, reqs, left

    def known(self, _r: Request) -> None:
        left = self.left - 1
        self.left = left
        if left:
            return
        env: Any = self.ev.env
        when = env._now  # (max(_known(r) for the active ones, default now), unrolled)
        first = True
        for r in self.reqs:
            if r.active:
                t = r.done_at
                assert t is not None, "a completion time not known yet"
                if first or t > when:
                    when, first = t, False
        callbacks_at(env, when, _FIRE_ALL, self)


def _fire_all_known(e: Event) -> None:
    waiting: _AllKnown = e._value
    _fire_all(waiting.ev, waiting.reqs)


_FIRE_ALL = (_fire_all_known,)


def _known(req: Request) -> float:
    """The completion time of a request known to have one."""
    when = req.done_at
    assert when is not None, "a completion time not known yet"
    return when


def _at_latest(env: Clock, reqs: list[Request]) -> Event:
    now = env._now
    when, first, failing = now, True, False  # (max(_known(r) for the active ones, default
    for r in reqs:  # now) and any(r.error is not None), in one pass)
        if r.active:
            t = r.done_at
            assert t is not None, "a completion time not known yet"
            if first or t > when:
                when, first = t, False
        if r.error is not None:
            failing = True
    if when <= now:
        return _result(env, reqs, [_finish(r) for r in reqs])
    if failing:
        ev = pending(env)
        callback_at(env, when, lambda _e: _fire_all(ev, reqs), None)
        return ev
    return at(env, when, [_finish(r) for r in reqs])


def _fire_all(ev: Event, reqs: list[Request]) -> None:
    statuses = []
    error = None
    for r in reqs:  # (_finish of each, and the first error, in one pass)
        r.active = False
        status = r.status
        statuses.append(status if status is not None else Status(*EMPTY_STATUS_ARGS))
        if error is None:
            error = r.error
    if error is not None:
        fire_at(ev, ev.env._now, error, ok=False)
    else:
        fire_at(ev, ev.env._now, statuses)


def _first_done(reqs: Sequence[Request], now: float) -> list[int]:
    return [i for i, r in enumerate(reqs) if r.active and r.done_at is not None
            and r.done_at <= now]


def _when_any(env: Clock, reqs: Sequence[Request],
              report: Callable[[list[int]], tuple[Any, Exception | None]]) -> Event:
    """Shared by waitany/waitsome: wake at the earliest completion, then ``report``."""
    ev = pending(env)

    def check(_e: Any) -> None:
        if ev.triggered:
            return
        indices = _first_done(reqs, env._now)
        if indices:
            value, error = report(indices)
            if error is not None:
                fire_at(ev, env._now, error, ok=False)
            else:
                fire_at(ev, env._now, value)

    def known(r: Request) -> None:
        callback_at(env, max(_known(r), env._now), check, None)

    for r in reqs:
        if r.active:
            r.on_known(known)
    return ev


def waitany(env: Clock, reqs: Sequence[Request]) -> Event:
    """MPI_Waitany: (index, Status) of one completed request; (UNDEFINED, None) if none is
    active."""
    reqs = list(reqs)

    def report(indices: list[int]) -> tuple[Any, Exception | None]:
        i = indices[0]
        return (i, _finish(reqs[i])), reqs[i].error

    if not any(r.active for r in reqs):
        return done(env, (UNDEFINED, Status(*EMPTY_STATUS_ARGS)))
    indices = _first_done(reqs, env._now)
    if indices:
        value, error = report(indices)
        return failed(env, error) if error is not None else done(env, value)
    return _when_any(env, reqs, report)


def waitsome(env: Clock, reqs: Sequence[Request]) -> Event:
    """MPI_Waitsome: (indices, Statuses) of every request complete at that moment;
    (UNDEFINED, []) if none is active."""
    reqs = list(reqs)

    def report(indices: list[int]) -> tuple[Any, Exception | None]:
        statuses = [_finish(reqs[i]) for i in indices]
        error = next((reqs[i].error for i in indices if reqs[i].error is not None), None)
        return (indices, statuses), error

    if not any(r.active for r in reqs):
        return done(env, (UNDEFINED, []))
    indices = _first_done(reqs, env._now)
    if indices:
        value, error = report(indices)
        return failed(env, error) if error is not None else done(env, value)
    return _when_any(env, reqs, report)


def test(env: Clock, req: Request) -> Event:
    """MPI_Test: (True, Status) if complete (the request becomes inactive), else (False, None)."""
    if _complete(req, env._now):
        if not req.active:
            return done(env, (True, Status(*EMPTY_STATUS_ARGS)))
        return _result(env, (req,), (True, _finish(req)))
    return done(env, (False, None))


def testall(env: Clock, reqs: Sequence[Request]) -> Event:
    """MPI_Testall: (True, Statuses) if all are complete, else (False, None) and none changes."""
    reqs = list(reqs)
    now = env._now
    if all(_complete(r, now) for r in reqs):
        return _result(env, reqs, (True, [_finish(r) for r in reqs]))
    return done(env, (False, None))

