"""One process's part in one collective call: its internal point-to-point messages.

A collective is simulated, not assumed: its algorithm (see :mod:`.algorithms`) sends and
receives ordinary messages through the transport, so their timing, protocol (eager or
rendezvous), port contention and deadlocks are the engine's. They travel on the
communicator's collective context (``context + 1``), so they never match a user's receive,
tagged with the call's sequence number on the communicator (MPI requires every member to
call collectives on a communicator in the same order, 6.12), so that two outstanding
nonblocking collectives do not mix.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..p2p import completion
from ..p2p.protocols import STANDARD
from ..p2p.requests import Request

__all__ = ["Channel", "Entered"]


class Entered:
    """Which members have entered each collective call (for deadlock reports, and for
    synchronizing collectives: :meth:`all_in`)."""

    def __init__(self) -> None:
        self._calls: dict[tuple[int, int], set[int]] = {}
        self._all_in: dict[tuple[int, int], Event] = {}  # waited for by synchronizing calls
        self.mismatches: dict[tuple[int, int], Any] = {}  # Meetings' (meeting.py)

    def enter(self, ctx: int, tag: int, world: int, members: int) -> None:
        key = (ctx, tag)
        got = self._calls.get(key)
        if got is None:
            got = self._calls[key] = set()
        got.add(world)
        if len(got) == members:
            del self._calls[key]
            waited = self._all_in.pop(key, None)
            if waited is not None:
                waited.succeed()

    def all_in(self, env: Any, ctx: int, tag: int) -> Event | None:
        """An event that happens when every member has entered the call (None: all have
        already)."""
        key = (ctx, tag)
        if key not in self._calls:
            return None
        event = self._all_in.get(key)
        if event is None:
            event = self._all_in[key] = env.event()
        return event

    def missing(self, ctx: int, tag: int, group: Any) -> list[int]:
        got = self._calls.get((ctx, tag))
        return [] if got is None else [w for w in group if w not in got]


class Channel:
    """The messages of one collective call on one process, in ranks of its communicator."""

    __slots__ = ("call", "comm", "ctx", "entered", "env", "me", "pending", "rank", "size",
                 "tag", "tp")

    def __init__(self, env: Any, tp: Any, comm: Any, call: str, tag: int,
                 entered: Entered) -> None:
        self.env = env
        self.tp = tp
        self.comm = comm
        self.call = call
        self.rank = comm.rank
        self.size = comm.size
        self.me = comm.world(comm.rank)
        self.ctx = comm.context + 1
        self.tag = tag
        self.entered = entered
        self.pending: list[Request] = []
        entered.enter(self.ctx, tag, self.me, self.size)

    def isend(self, to: int, value: Any, nbytes: int) -> Request:
        """Send ``value`` (``nbytes`` on the wire) to rank ``to`` of the communicator."""
        dst = self.comm.world(to)
        req = Request("send", self.call, self.me, dst, self.tag, nbytes)
        req.ctx = self.ctx
        self.tp.post_send(self.me, dst, self.tag, nbytes, value, STANDARD, req, self.env._now,
                          ctx=self.ctx)
        self.pending.append(req)
        return req

    def irecv(self, frm: int) -> Request:
        """Receive from rank ``frm``; the value is the wait's Status ``data``."""
        src = self.comm.world(frm)
        req = Request("recv", self.call, self.me, src, self.tag, None)
        req.ctx = self.ctx
        self.tp.post_recv(req)
        self.pending.append(req)
        return req

    def wait(self, *reqs: Request) -> Event:
        """An event with the Statuses of ``reqs`` once all are complete."""
        return completion.waitall(self.env, list(reqs))

    # -- deadlock reports ----------------------------------------------------------------
    def waits_for(self) -> list[int]:
        """Members that have not entered this call, else the peers of its pending messages,
        else (a call that does not match the others') the members of its meeting."""
        missing = self.entered.missing(self.ctx, self.tag, self.comm.group)
        if missing:
            return missing
        now = self.env._now
        peers = sorted({r.peer for r in self.pending
                        if r.active and (r.done_at is None or r.done_at > now)})
        mismatch = self.entered.mismatches.get((self.ctx, self.tag))
        if peers or mismatch is None:
            return peers
        return sorted(s.world for s in mismatch.calls.values() if s.world != self.me)

    def reason(self) -> str:
        missing = self.entered.missing(self.ctx, self.tag, self.comm.group)
        where = "" if self.comm.context == 0 else f" on {self.comm.name}"
        if missing:
            return (f"waits in {self.call}{where} for the members that have not called it: "
                    f"{_ranks(missing)}")
        mismatch = self.entered.mismatches.get((self.ctx, self.tag))
        if mismatch is not None:
            return f"waits in {self.call}{where}, which the other members' calls do not " \
                   f"match: {mismatch.body()}"
        return f"waits in {self.call}{where} for the messages of its algorithm"


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))
