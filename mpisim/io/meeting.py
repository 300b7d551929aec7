"""Collective calls on a file (MPI 4.1 §14.2, §14.4.5, §14.6): the members meet.

Every collective call of MPI-IO (open, close, set_view, set_size, preallocate, set_info,
set_atomicity, sync, seek_shared, and the ``_all``, ``_at_all`` and ``_ordered`` data
accesses with their nonblocking and split forms) is matched with the calls the other
members make on the same file (or, for open, the same communicator) in the order each
makes them, as communicators' creations are (:meth:`mpisim.mpi.comm.Communicators.agree`).
When the last member has called, the call's work is done for all at once (in rank order)
and each member's call completes at the instant the time model gives
(:mod:`.runtime`): a collective data access synchronizes the communicator.

A member that never makes the call leaves the others blocked: :class:`Meeting` tells the
deadlock analysis whom they wait for, and why, in words that name the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simpy.events import Event

from ..engine.clock import at, fire_at, pending
from ..engine.port import RankPort
from ..mpi.causes import Cause
from ..mpi.constants import PROC_NULL
from ..mpi.errors import ErrOther, MPIError
from ..p2p.requests import Request

__all__ = ["Meeting", "meet"]

Make = Callable[[dict[int, Any]], dict[int, Any]]
"""Given each member's argument (by world rank), each member's ``(when, value)`` or the
MPIError it gets."""


class Meeting:
    """A collective file call waiting for the members that have not made it."""

    cause = Cause.COLLECTIVE

    def __init__(self, call: str, what: str, waiting: Any) -> None:
        self.call = call
        self.what = what
        self.waiting = waiting  # the agreement (its waits_for: the members not yet there)

    def waits_for(self) -> list[int]:
        return list(self.waiting.waits_for())

    def reason(self) -> str:
        missing = self.waits_for()
        who = ("rank " if len(missing) == 1 else "ranks ") + ", ".join(map(str, missing))
        return (f"waits in {self.call} on {self.what} for the members that have not called "
                f"it: {who}" if missing else f"waits in {self.call} on {self.what}")


def _matched(call: str, make: Make) -> Make:
    """``make``, once every member made the same call (else each gets MPI_ERR_OTHER)."""
    def run(args: dict[int, Any]) -> dict[int, Any]:
        calls = {a[0] for a in args.values()}
        if calls != {call}:
            error = ErrOther(f"{call}: the members called {', '.join(sorted(calls))} at this "
                             "point; collective calls on a file must match (§14.6.4)")
            return dict.fromkeys(args, error)
        try:
            return make({w: a[1] for w, a in args.items()})
        except MPIError as e:
            return dict.fromkeys(args, e)
    return run


def meet(port: RankPort, key: tuple, call: str, what: str, members: tuple[int, ...], arg: Any,
         make: Make, nbytes: int = 0) -> Event:
    """This member's part of a blocking collective call: yields its value at its time."""
    env = port.env
    ev = pending(env)

    def done(result: Any) -> None:
        if isinstance(result, MPIError):
            fire_at(ev, env._now, result, ok=False)
        else:
            fire_at(ev, max(result[0], env._now), result[1])

    waiting = port.comms.agree(key, call, members, port.rank, (call, arg), done,
                               _matched(call, make))
    port.enter(call, nbytes=nbytes, obj=Meeting(call, what, waiting))
    return ev


def meet_later(port: RankPort, key: tuple, call: str, what: str, members: tuple[int, ...],
               arg: Any, make: Make, nbytes: int = 0) -> tuple[Event, Request]:
    """This member's part of a nonblocking collective call: (the call's event, yielding
    its Request once the call returns, and the Request, complete when the meeting's time
    comes; its status is the value)."""
    env = port.env
    req = Request("io", call, port.rank, PROC_NULL, 0, nbytes)

    def done(result: Any) -> None:
        if isinstance(result, MPIError):
            req.error = result
            req.known(env._now)
        else:
            req.status = result[1]
            req.known(max(result[0], env._now))

    port.enter(call, nbytes=nbytes)
    waiting = port.comms.agree(key, call, members, port.rank, (call, arg), done,
                               _matched(call, make))
    req.channel = Meeting(call, what, waiting)  # what a wait on it waits for
    return at(env, env._now + port.overhead, req), req
