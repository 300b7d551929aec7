"""The calls on an open file (MPI 4.1 §14.3 to §14.6): data accesses, their positioning,
and the collective calls that change the file or its views.

Independent accesses (``_at``, individual pointer, ``_shared``) move their data at the
call and complete after the time model's ``io_latency + bytes / io_bandwidth``; their
``I`` forms return a Request at once, complete then. Collective accesses (``_all``,
``_at_all``, ``_ordered``) meet (:mod:`.meeting`); their ``I`` forms and split forms
(``_begin`` / ``_end``, §14.4.5: one active per file handle) complete at the meeting's
time. See :mod:`.access` for where the data goes and :mod:`.runtime` for the times.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..engine.clock import at
from ..engine.port import RankPort
from ..mpi.constants import PROC_NULL
from ..mpi.errors import ErrArg, ErrOther
from ..p2p import completion
from ..p2p.requests import Request
from .access import ORDERED, Access, place
from .constants import SEEK_CUR, SEEK_END, SEEK_SET
from .errors import ErrNotSame
from .file import File
from .meeting import meet, meet_later

__all__ = ["collective", "housekeeping", "independent", "position_after", "split_begin",
           "split_end"]


def independent(rt: Any, port: RankPort, fh: File, call: str, acc: Access, request: bool) -> Event:
    """An independent access: data moved now; the call (or its Request) completes after
    the access's time."""
    port.enter(call, nbytes=acc.nbytes)
    _, status = place(fh, call, acc)
    env = port.env
    start = env._now + port.overhead
    end = start + rt.cost(status.count)
    if not request:
        return at(env, end, status)
    req = Request("io", call, port.rank, PROC_NULL, 0, acc.nbytes)
    req.status = status
    req.known(end)
    return at(env, start, req)


def _accesses(rt: Any, fh: File, call: str) -> Any:
    """The meeting's work for a collective access: every member's access, in rank order
    (``_ordered``: each after the lower ranks'), all ending together."""
    info = fh.info

    def make(args: dict[int, Any]) -> dict[int, Any]:
        start = info.shared
        statuses, slowest = {}, 0.0
        for w in info.group:
            acc, etypes = args[w]
            member = info.members[w]
            _, statuses[w] = place(member, call, acc, start)
            if acc.how == ORDERED:
                start += etypes
            slowest = max(slowest, rt.cost(statuses[w].count))
        if any(args[w][0].how == ORDERED for w in info.group):
            info.shared = start
        end = rt.env._now + rt.sync_time(len(info.group)) + slowest
        return {w: (end, statuses[w]) for w in info.group}
    return make


def collective(rt: Any, port: RankPort, fh: File, call: str, acc: Access, etypes: int,
               request: bool) -> Event:
    """A collective access (blocking: yields its Status; ``request``: yields a
    Request)."""
    info = fh.info
    if request:
        ev, _ = meet_later(port, fh.next_key(), call, info.describe(), info.group, (acc, etypes),
                           _accesses(rt, fh, call), acc.nbytes)
        return ev
    return meet(port, fh.next_key(), call, info.describe(), info.group, (acc, etypes),
                _accesses(rt, fh, call), acc.nbytes)


def split_begin(rt: Any, port: RankPort, fh: File, call: str, acc: Access, etypes: int) -> Event:
    """``..._begin`` of a split collective (§14.4.5): the access starts; its end call
    completes it."""
    if fh.split is not None:
        raise ErrOther(f"{call}: {fh.split[0]} is still active on {fh.info.describe()}; one "
                       "split collective at a time per file handle (§14.4.5)")
    ev, req = meet_later(port, fh.next_key(), call, fh.info.describe(), fh.info.group,
                         (acc, etypes), _accesses(rt, fh, call), acc.nbytes)
    fh.split = (call, req)
    return ev


def split_end(port: RankPort, fh: File, call: str) -> Event:
    """``..._end`` of a split collective: yields the Status once the access is
    complete."""
    begun = call.removesuffix("_end") + "_begin"
    if fh.split is None or fh.split[0] != begun:
        raise ErrOther(f"{call}: no {begun} is active on {fh.info.describe()} (§14.4.5)")
    req = fh.split[1]
    fh.split = None
    port.enter(call, nbytes=req.nbytes, obj=[req])
    return completion.wait(port.env, req)


def position_after(fh: File, call: str, offset: int, whence: int, current: int) -> int:
    """The pointer position MPI_File_seek(_shared) sets (§14.4.3): ``offset`` from the
    start, from ``current`` or from the end of file; MPI_ERR_ARG if negative."""
    if whence == SEEK_SET:
        new = offset
    elif whence == SEEK_CUR:
        new = current + offset
    elif whence == SEEK_END:
        new = fh.view.end_position(fh.info.storage.size()) + offset
    else:
        raise ErrArg(f"{call}: whence {whence!r} is not MPI_SEEK_SET, MPI_SEEK_CUR or "
                     "MPI_SEEK_END")
    if new < 0:
        raise ErrArg(f"{call}: the position would be {new}, before the start of the view")
    return new


def housekeeping(rt: Any, port: RankPort, fh: File, call: str, arg: Any, same: bool,
                 work: Any, io: bool) -> Event:
    """A collective call that is no data access (set_view, set_size, preallocate, sync,
    set_atomicity, set_info, seek_shared): once every member has called, ``work(fh, arg)``
    for each member in rank order (``same``: every member must give the same ``arg``,
    else MPI_ERR_NOT_SAME); they return together, after the file system's latency when
    ``io``."""
    info = fh.info

    def make(args: dict[int, Any]) -> dict[int, Any]:
        if same and len({repr(a) for a in args.values()}) > 1:
            raise ErrNotSame(f"{call}: the members of {info.describe()} gave different "
                             f"arguments: {', '.join(repr(args[w]) for w in info.group)}")
        for w in info.group:
            work(info.members[w], args[w])
        end = rt.env._now + rt.sync_time(len(info.group)) + (rt.latency if io else 0.0)
        return dict.fromkeys(args, (end, None))

    return meet(port, fh.next_key(), call, info.describe(), info.group, arg, make)
