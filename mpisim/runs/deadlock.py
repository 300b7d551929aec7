"""Why a run stopped with ranks still waiting: the wait-for graph.

When no event is left and some rank has not finished, every unfinished rank is blocked in a
call. Each blocked call waits for other ranks: a send or a receive from a given rank for
that rank (AND); a receive from ANY_SOURCE for any unfinished rank that could still send
(OR); a wait on several requests for the peers of the pending ones (AND for waitall, OR for
waitany/waitsome); a detach, or the end of a program with messages still in its buffer
(MPI_Finalize), for the receivers of those messages; a collective call for the members that
have not entered it, else for the peers of its algorithm's pending messages; a rank whose
program has ended, in MPI_Finalize (collective over all connected processes, MPI 4.1
§11.2.2), for the ranks connected to it that never call it (unless the profile's
``finalize`` is ``local``; :mod:`mpisim.runs.connected` says which are connected: all of
a run's ranks, spawned processes through their communicators not disconnected).
The cycles of that graph are the deadlock's cause; a report lists them (networkx finds
them; at most ``MAX_CYCLES`` are listed, shortest first), and its knots: groups of ranks
whose every wait leads back into the group, which is what a deadlock of OR waits
(ANY_SOURCE) looks like.

A *livelock* is the same stop seen through a polling loop: a rank that polls (iprobe,
test, testall, perhaps with compute between polls) while nothing is in flight to it and
every other rank has finished or is blocked never sees its poll succeed, yet its loop keeps
the event queue busy forever. :class:`PollWatch` notices it: after ``LIVELOCK_POLLS`` failed
polls in a row (across all ranks) with no other call made, it looks at the event queue, and
if nothing is scheduled but the polling ranks' own next steps, nothing can ever change: the
run ends as a deadlock whose polling ranks are named with their polling call. (A program
that polls more than ``LIVELOCK_POLLS`` times for something that can never come, then gives
up by itself, is reported as a livelock too: that is the price of stopping endless ones.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import Any

from ..engine.sites import site_text
from ..engine.threads import MAIN, SimThread
from ..handle.access import (
    call_of,
    calling,
    config_of,
    in_thread,
    is_polling,
    last_poll,
    note_failed_poll,
    port_of,
    threads_of,
    watch_polls,
)
from ..mpi.causes import CallDetail, Cause
from ..mpi.constants import ANY_SOURCE
from ..p2p.protocols import SYNCHRONOUS
from ..p2p.requests import Request

__all__ = ["LIVELOCK_POLLS", "Blocked", "Deadlock", "PollWatch", "analyse"]

MAX_CYCLES = 20
LIVELOCK_POLLS = 10_000
"""Failed polls in a row, with no other call by any rank, before the event queue is checked
for a livelock (and again after each as many more)."""


@dataclass
class Blocked:
    """One rank blocked at the end of a run.

    Parameters
    ----------
    rank
        The blocked rank (in MPI_COMM_WORLD).
    call
        The MPI call it is blocked in (``"MPI_Send"``, ``"MPI_Wait"``...).
    peer
        The rank it sends to or receives from, when the call has one (world rank; for
        ``MPI_ANY_SOURCE``, None).
    tag
        The call's tag, when it has one (-1: ``MPI_ANY_TAG``).
    bytes
        The message's size in bytes, when the call moves one.
    waits_for
        The ranks whose action would let the call go on (the wait-for graph's edges).
    where
        The call's place in the program (``file.py:12 (program)``, a scenario's
        ``file.yaml:8``), when known.
    any_of
        Whether any one of ``waits_for`` would do (a wildcard receive, a waitany), rather
        than all of them.
    reason
        Why it waits, in words (the report's line under the call).
    comm
        The communicator's name, when not MPI_COMM_WORLD.
    cause
        What it waits for, as the report's advice reads it.
    thread
        The name of the thread blocked, for a thread the rank's program spawned
        (``mpi.spawn_thread``, ``threading.Thread``); None for the rank's program itself.
    """

    rank: int
    call: str
    peer: int | None
    tag: int | None
    bytes: int | None
    waits_for: list[int]
    where: str | None
    any_of: bool = False
    reason: str = ""
    comm: str | None = None   # the communicator, when not MPI_COMM_WORLD
    cause: Cause | None = None  # what it waits for (advice is chosen by it)
    thread: str | None = None  # the thread's name, for a thread the rank spawned

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["any_of"], d["reason"], d["cause"]
        for key in ("comm", "thread"):
            if d[key] is None:
                del d[key]
        return d


@dataclass
class Deadlock:
    """The blocked ranks and the cycles of their wait-for graph.

    Parameters
    ----------
    blocked
        Each blocked rank's call and what it waits for, the ranks to look at first first.
    cycles
        Cycles of the wait-for graph, each a list of ranks (``[0, 1]``: 0 waits for 1,
        which waits for 0).
    knots
        Sets of ranks that wait only on one another (no rank outside can free them).
    livelock
        Ranks that poll (test, iprobe) for what can never come, when the run is a
        livelock rather than a deadlock.
    thread_cycles
        Cycles among the threads of ranks that wait for one another's locks (or other
        primitives) or ends, each a list of ``"RANK:THREAD"`` (``["0:a", "0:b"]``: thread
        ``a`` of rank 0 waits for ``b``, which waits for ``a``); empty without threads.
    """

    blocked: list[Blocked]
    cycles: list[list[int]] = field(default_factory=list)
    knots: list[list[int]] = field(default_factory=list)
    livelock: list[int] = field(default_factory=list)
    thread_cycles: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {"blocked": [b.to_dict() for b in self.blocked], "cycles": self.cycles,
             "knots": self.knots, "livelock": self.livelock}
        if self.thread_cycles:
            d["thread_cycles"] = self.thread_cycles
        return d

    def __repr__(self) -> str:
        cycle = (", cycle " + " -> ".join(str(r) for r in [*self.cycles[0], self.cycles[0][0]])
                 if self.cycles else "")
        return f"<Deadlock: {len(self.blocked)} ranks blocked{cycle}>"

    def _repr_html_(self) -> str:
        """Jupyter: the blocked calls and the wait-for graph (imported on first use: a run
        never loads matplotlib)."""
        from ..report.display import deadlock_html

        return deadlock_html(self)


class PollWatch:
    """Counts failed polls (the ``mpi`` handles call it) and finds livelocks (see above)."""

    def __init__(self, env: Any, procs: list[Any], handles: list[Any], finished: list[bool],
                 on_livelock: Callable[[list[int]], None]) -> None:
        self.quiet = 0
        self.env = env
        self.procs = procs
        self.handles = handles
        self.finished = finished
        self.on_livelock = on_livelock
        self.watching = False

    def failed_poll(self, mpi: Any, later: Any) -> None:
        """``mpi`` polled and found nothing; ``later`` is the event its poll returns at.
        From the first failed poll on, every rank's other calls reset the count (before it,
        the count is 0 and nothing need reset it)."""
        if not self.watching:
            self.watching = True
            for h in self.handles:
                watch_polls(h, self)
        note_failed_poll(mpi)
        self.quiet += 1
        if self.quiet % LIVELOCK_POLLS == 0:
            pollers = self.pollers()
            if self.stuck(mpi, later, pollers):
                self.on_livelock([h.rank for h in pollers])

    def pollers(self) -> list[Any]:
        return [h for h in self.handles if not self.finished[h.rank] and is_polling(h)]

    def stuck(self, mpi: Any, later: Any, pollers: list[Any]) -> bool:
        """Nothing is scheduled but the polling ranks' own next steps."""
        allowed = {id(later)} | {id(self.procs[h.rank].target) for h in pollers
                                 if h is not mpi}
        return all(id(item[-1]) in allowed for item in self.env.scheduled())


def analyse(handles: list[Any], finished: list[bool], buffers: list[Any],
            eager_limit: int, where_of: Any, stall_cause: Any = None,
            polling: list[int] | None = None, joining: set[int] | None = None,
            waiting: Callable[[int], Any] | None = None,
            connection: Callable[[int], Any] | None = None) -> Deadlock:
    """The deadlock of a run whose event queue is empty (``where_of(rank)``: location;
    ``stall_cause(src, dst)``: why a pair's messages no longer match, if they do not), or
    that a livelock of the ``polling`` ranks stopped. ``joining``: ranks whose program has
    returned and waits for its threads before MPI_Finalize; ``waiting(rank)``: the event
    its program waits for (one on a lock or another primitive is reported as such). Each
    blocked thread a rank spawned is listed after its rank's program, named.
    ``connection(rank)``: a key, equal for connected processes (MPI 4.1 §11.10.4); a
    finished rank waits in MPI_Finalize only for the unfinished ones connected to it
    (None: every process is connected to every other, as in a run that spawned none)."""
    alive = [r for r, f in enumerate(finished) if not f]
    polling = polling or []
    joining = joining or set()
    blocked = []
    edges: list[tuple[str, str]] = []  # thread -> thread (locks, joins)
    for r in alive:
        if r in joining:
            blocked.append(_joining(handles[r]))
            edges += [(f"{r}:MainThread", f"{r}:{t.name}") for t in threads_of(handles[r])
                      if t.is_alive and not t.daemon]
        elif r in polling:
            blocked.append(_polling(handles[r], alive, buffers[r], eager_limit, where_of(r),
                                    stall_cause))
        else:
            b = _blocked(r, *calling(handles[r])[:2], alive, buffers[r], eager_limit,
                         where_of(r), stall_cause)
            target = waiting(r) if waiting is not None else None
            edges += _thread_wait(b, target, MAIN)
            _waits_here(b, handles[r], target)
            blocked.append(b)
        blocked += _threads_blocked(handles[r], alive, buffers[r], eager_limit, where_of,
                                    stall_cause, edges)
    waits = _connected(alive, connection)  # (one list a connected set: a large run has many)
    finalizing = [_finalizing(handles[r], waits[key], where_of, connection is not None)
                  for r, key in _finished(finished, connection)
                  if waits.get(key) and config_of(handles[r]).profile.finalize == "collective"]
    blocked += finalizing  # (after the calls that keep them there)
    return Deadlock(blocked, *_cycles_and_knots(blocked), livelock=list(polling),
                    thread_cycles=_thread_cycles(edges))


def _threads_blocked(mpi: Any, alive: list[int], buffer: Any, eager_limit: int,
                     where_of: Any, stall_cause: Any, edges: list[tuple[str, str]]
                     ) -> list[Blocked]:
    """The rank's spawned threads that have not ended, each in its own call (or on a
    lock, a queue, another thread's end); ``edges`` gets their waits on other threads."""
    found = []
    for thread in threads_of(mpi):
        if not thread.is_alive:
            continue
        with in_thread(mpi, thread):
            call, detail, where = calling(mpi)
            b = _blocked(mpi.rank, call, detail, alive, buffer, eager_limit,
                         site_text(where) if where is not None else thread.where,
                         stall_cause)
        if b.where is None or not isinstance(where, str):
            b.where = thread.where or b.where
        edges += _thread_wait(b, thread.target_event, thread)
        with in_thread(mpi, thread):
            _waits_here(b, mpi, thread.target_event)
        b.thread = thread.name
        found.append(b)
    return found


def _thread_wait(b: Blocked, target: Any, thread: Any) -> list[tuple[str, str]]:
    """A thread (or a rank's program) that waits on a lock, a queue... (``waits_on``, see
    :mod:`mpisim.engine.sync`) or on another thread's end: ``b`` says so, and the wait-for
    edges to the threads that hold it (or to the thread) are returned."""
    rank = b.rank
    me = f"{rank}:{thread.name}"
    if isinstance(target, SimThread):  # a join
        b.call, b.peer, b.tag, b.bytes = f"join {target.name!r}", None, None, None
        b.reason, b.waits_for, b.cause = (f"waits for thread {target.name!r} to end", [],
                                          Cause.THREAD)
        return [(me, f"{target.rank}:{target.name}")]
    primitive = getattr(target, "waits_on", None)
    if primitive is None:
        return []
    holders = [h for h in primitive.holders() if h is not thread]
    name = getattr(primitive, "name", None)
    kind = type(primitive).__name__ + ("" if name is None else f" {name!r}")
    b.call, b.peer, b.tag, b.bytes = kind, None, None, None
    b.reason = f"waits on {kind}" + (
        ", held by " + ", ".join(f"thread {getattr(h, 'name', h)!r}" for h in holders)
        if holders else "")
    b.waits_for, b.cause = [], Cause.THREAD
    return [(me, f"{rank}:{getattr(h, 'name', h)}") for h in holders]


def _waits_here(b: Blocked, mpi: Any, target: Any) -> None:
    """A join, or a wait on a lock or a queue, is no MPI call: it is where the program
    stands now, when an interpreter says (a scenario's ``join`` op, the mpi4py stand-in's
    ``threading`` and ``queue``), not at the program's last MPI call."""
    place = port_of(mpi).where
    if place is not None and (isinstance(target, SimThread) or
                              getattr(target, "waits_on", None) is not None):
        b.where = site_text(place)


def _thread_cycles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The cycles of the threads' wait-for graph (locks held, threads joined)."""
    if not edges:
        return []
    import networkx as nx  # imported only when a deadlock is analysed

    found = {tuple(_rotate(c)) for c in islice(nx.simple_cycles(nx.DiGraph(edges)),
                                                MAX_CYCLES)}
    return [list(c) for c in sorted(found, key=lambda c: (len(c), c))]


def _joining(mpi: Any) -> Blocked:
    """A rank whose program returned while its threads run: it waits for them before
    MPI_Finalize (as a process's exit joins its non-daemon threads)."""
    names = [t.name for t in threads_of(mpi) if t.is_alive and not t.daemon]
    return Blocked(mpi.rank, "MPI_Finalize", None, None, None, [], None,
                   reason=("its program returned; MPI_Finalize waits for its thread"
                           f"{'s' if len(names) > 1 else ''} "
                           f"{', '.join(repr(n) for n in names)} to end"),
                   cause=Cause.THREAD)


def _connected(alive: list[int], connection: Callable[[int], Any] | None
               ) -> dict[Any, list[int]]:
    """The unfinished processes of each connected set (MPI 4.1 §11.10.4), by its key."""
    if connection is None:
        return {None: alive}
    waits: dict[Any, list[int]] = {}
    for r in alive:
        waits.setdefault(connection(r), []).append(r)
    return waits


def _finished(finished: list[bool], connection: Callable[[int], Any] | None
              ) -> list[tuple[int, Any]]:
    """Each process whose program ended, with its connected set's key."""
    return [(r, None if connection is None else connection(r))
            for r, f in enumerate(finished) if f]


def _finalizing(mpi: Any, alive: list[int], where_of: Any, spawned: bool = False) -> Blocked:
    """A rank whose program ended, in MPI_Finalize: collective over all connected
    processes (MPI 4.1 §11.2.2), it waits for the unfinished ones connected to it, which
    never call it (the profile's ``finalize``). ``spawned``: the run started processes."""
    where = where_of(mpi.rank) if call_of(mpi) == "MPI_Finalize" else None
    ranks = ", ".join(map(str, alive[:16])) + (f" (+{len(alive) - 16} more)"
                                                if len(alive) > 16 else "")
    over = ("all processes connected to it (MPI 4.1 §11.2.2, §11.10.4)" if spawned else
            "all processes (MPI 4.1 §11.2.2)")
    return Blocked(mpi.rank, "MPI_Finalize", None, None, None, alive, where,
                   reason=(f"MPI_Finalize is collective over {over}: "
                           f"waits for rank{'s' if len(alive) > 1 else ''} {ranks}, blocked "
                           f"before completing {'their' if len(alive) > 1 else 'its'} own"),
                   cause=Cause.COLLECTIVE)


def _polling(mpi: Any, alive: list[int], buffer: Any, eager_limit: int,
             where: str | None, stall_cause: Any = None) -> Blocked:
    """A polling rank, described by its last poll (it may be computing between polls)."""
    call, detail, poll_where = last_poll(mpi) or (*calling(mpi)[:2], None)
    b = _blocked(mpi.rank, call, detail, alive, buffer, eager_limit, poll_where or where,
                 stall_cause)
    b.waits_for = [w for w in b.waits_for if w in alive]
    b.cause = Cause.POLLING
    b.reason = (f"livelock: polls with {call} in a loop that never ends; nothing is in "
                "flight to it and every other rank has finished or is blocked, so the poll "
                "can never succeed")
    return b


def _blocked(rank: int, call: str | None, detail: CallDetail, alive: list[int], buffer: Any,
             eager_limit: int, where: str | None, stall_cause: Any = None) -> Blocked:
    """Rank ``rank``, blocked in ``call`` on what ``detail`` (a CallDetail) says."""
    call = call or "(not started)"
    peer, tag, nbytes, obj = detail.peer, detail.tag, detail.nbytes, detail.obj
    others = [r for r in alive if r != rank]
    any_of = False
    ending = _ENDING.get(call) or (Cause.DETACH if call.endswith("_detach_buffer") else
                                   Cause.FLUSH if call.endswith("_flush_buffer") else None)
    if ending is not None:
        if hasattr(obj, "pending_peers"):  # a communicator's or session's buffer
            buffer = obj
        waits, cause = buffer.pending_peers(), ending
        reason = (f"waits until the {buffer.pending} message(s) in its attached buffer are "
                  "sent; their receivers have not received them")
    elif hasattr(obj, "waits_for"):  # a collective call: the members it still waits for
        waits, reason = obj.waits_for(), obj.reason()  # (or an RMA synchronization's wait)
        cause = getattr(obj, "cause", None) or (
            Cause.BARRIER if call in ("MPI_Barrier", "MPI_Ibarrier") else Cause.COLLECTIVE)
        peer = waits[0] if len(waits) == 1 else None
    elif isinstance(obj, list):
        waits, any_of = _request_peers(obj, others), call in ("MPI_Waitany", "MPI_Waitsome")
        reason, cause = _requests_reason(obj), Cause.REQUESTS
        peer = waits[0] if len(waits) == 1 else None
    elif isinstance(obj, Request) and obj.kind == "send":
        waits = [peer]
        cause = send_cause(obj)
        reason = _send_reason(cause, nbytes, eager_limit, peer)
    else:  # receive or probe
        if peer == ANY_SOURCE:
            waits, any_of, peer = others, True, None
            reason, cause = "waits for a message from any rank; none is coming", Cause.ANY_SOURCE
        else:
            waits = [peer] if peer is not None else []
            ctx = obj.ctx if isinstance(obj, Request) else 0
            stalled = (stall_cause(peer, rank, ctx) if stall_cause and peer is not None
                       else None)
            cause = Cause.STALLED if stalled else Cause.RECEIVE
            reason = stalled or (f"waits for a message from rank {peer} (tag {_tag(tag)}) "
                                 "that is never sent")
    waits = sorted({w for w in waits if w is not None and w != rank})
    comm = obj.comm.name if isinstance(obj, Request) and obj.comm is not None else None
    return Blocked(rank, call, peer, tag, nbytes, waits, where, any_of, reason, comm,
                   cause)


_ENDING = {"MPI_Buffer_detach": Cause.DETACH, "MPI_Buffer_flush": Cause.FLUSH,
           "MPI_Finalize": Cause.FINALIZE, "MPI_Comm_free": Cause.DETACH}
"""Calls that wait for the messages in a buffer (a freed communicator detaches its own)."""


def _tag(tag: Any) -> str:
    return "ANY_TAG" if tag == -1 else str(tag)


def send_cause(req: Request) -> Cause:
    """Why a send request has not completed, from what the transport recorded on it: its
    effective mode and protocol, and whether the receiver's progress holds it."""
    if req.waiting is not None:
        return req.waiting
    if req.forced:
        return Cause.FORCED_SYNCHRONOUS
    if req.mode == SYNCHRONOUS:
        return Cause.SYNCHRONOUS
    return Cause.RENDEZVOUS


def _send_reason(cause: Cause, nbytes: Any, eager_limit: int, peer: Any) -> str:
    if cause is Cause.EAGER_CELLS:
        return (f"completes only when rank {peer} takes the message (enters MPI): no room "
                "left for it towards that rank")
    if cause is Cause.FORCED_SYNCHRONOUS:
        return (f"sent synchronous (every send is, mpi.force_ssend): completes only when "
                f"rank {peer} starts a matching receive")
    if cause is Cause.SYNCHRONOUS:
        return f"synchronous send: completes only when rank {peer} starts a matching receive"
    return (f"the message ({nbytes} B) went rendezvous (eager limit {eager_limit} B): "
            f"the send completes only when rank {peer} posts a matching receive")


def _requests_reason(reqs: list[Request]) -> str:
    """Why a wait on ``reqs`` cannot complete; a nonblocking collective's says what it
    waits for (the members that have not called it...)."""
    for req in reqs:
        channel = getattr(req, "channel", None)
        if channel is not None and req.active and req.done_at is None:
            return ("waits for requests that cannot complete ("
                    + channel.reason().removeprefix("waits in ") + ")")
    return "waits for requests that cannot complete"


def _request_peers(reqs: list[Request], others: list[int]) -> list[int]:
    peers: list[int] = []
    for req in reqs:
        if not req.active or req.done_at is not None:
            continue
        channel = getattr(req, "channel", None)  # a nonblocking collective's
        if channel is not None:
            peers.extend(channel.waits_for())
        elif req.kind == "recv" and req.peer == ANY_SOURCE:
            peers.extend(others)
        else:
            peers.append(req.peer)
    return peers


def _cycles_and_knots(blocked: list[Blocked]) -> tuple[list[list[int]], list[list[int]]]:
    """Cycles (the AND model's deadlocks) and knots: groups of ranks from which every
    wait-for path stays inside the group (the OR model's, e.g. ANY_SOURCE receives)."""
    finalizing = {b.rank for b in blocked
                  if b.call == "MPI_Finalize" and b.cause is Cause.COLLECTIVE}
    edges = [(b.rank, w) for b in blocked if b.rank not in finalizing for w in b.waits_for]
    if not edges and not finalizing:
        return [], []
    import networkx as nx  # imported only when a deadlock is analysed

    # a rank in MPI_Finalize waits for every unfinished one: the cycles through it are
    # those of the ranks waiting for it (the shortest: it and each of them); the others
    # are found without it, and knots through one node standing for all unfinished ranks
    waits = {b.rank: b.waits_for for b in blocked if b.rank in finalizing}
    unique = {tuple(_rotate([f, r])) for r, f in edges if f in finalizing and r in waits[f]}
    unique |= {tuple(_rotate(c)) for c in islice(nx.simple_cycles(nx.DiGraph(edges)),
                                                  MAX_CYCLES * 10)}
    cycles = [list(c) for c in sorted(unique, key=lambda c: (len(c), c))[:MAX_CYCLES]]
    every: dict[int, int] = {}  # a connected set's unfinished processes -> its node
    for r in sorted(finalizing):
        key = id(waits[r])  # (one list per connected set: see analyse)
        if key not in every:
            every[key] = _EVERY - len(every)
            edges += [(every[key], w) for w in waits[r]]
        edges.append((r, every[key]))
    dag = nx.condensation(nx.DiGraph(edges))
    groups = ([r for r in dag.nodes[n]["members"] if r > _EVERY] for n in dag
              if dag.out_degree(n) == 0)
    knots = sorted(sorted(g) for g in groups if len(g) > 1)
    return cycles, knots


_EVERY = -1
"""The wait-for graph's node standing for "every unfinished rank" of a connected set (the
next sets': -2, -3...): the ranks waiting in MPI_Finalize (collective) each wait for all
of those of their set (AND), one edge each through it."""


def _rotate(cycle: list[Any]) -> list[Any]:
    i = cycle.index(min(cycle))
    return cycle[i:] + cycle[:i]
