"""Buffered mode (3.6, 3.6.1, and MPI 4.1's flush): one object per process owns all of it.

The ``mpi`` handle holds a :class:`BufferedMode`, which owns the attached buffer and the
whole life of each entry:

- **route**: through the buffer, or straight to the transport where the profile's
  implementation does that (:meth:`~mpisim.profiles.library.Profile.bypasses_buffer`);
- **reserve**: steps 1-4 of 3.6.1 (reclaim, size, place) or MPI_ERR_BUFFER;
- **post**: the nonblocking standard-mode send of the entry;
- **complete**: that send finished, so the entry's bytes are no longer live. Its time is
  known when the send is posted (an eager send completes when its bytes have left the
  port), and nothing but this object looks at the entry before the rank's next buffer call,
  so no event is spent on it: the completion waits in ``_due`` and is applied, at its own
  time and in its own place in the event order, when the rank next touches the buffer (or
  when the result is built). Only when someone must be woken at that time (a detach, a
  flush, MPI_Finalize) do the waiting completions become events, in the places in the queue
  they would have had;
- **reclaim**: the allocator returns the entries whose space its reclaim step freed, and
  they are dated here (when the space returns is the allocator's policy: the standard's
  circular model reclaims from the head, at the next bsend, up to the first uncompleted
  entry);
- **drain**: detach, flush and MPI_Finalize wait for the pending entries.

Each entry is a :class:`PendingEntry`. The model implementation's pending message entry
holds the request of the standard send posted for it (3.6.1); here the entry *is* that
send's request as the transport sees it (the transport tells it when the send completes),
and it is also what the entry's row of the trace is made of: the row is written when the
entry is placed, with the bsend's buffer state, and its completion (with the buffer state
after it) and freeing are written into it in place when they happen.

One buffer per process (3.6): attaching while one is attached is MPI_ERR_BUFFER. With none
attached MPI behaves as with a zero-size buffer, so a bsend overflows. Detach blocks until
every entry's send has completed, then returns the address and size given to attach; the
buffer can then be attached again. Nothing real is allocated: the allocator works on
offsets, so attaching 1 TiB costs what 1 KiB costs. Every change of the buffer is recorded
(time, used, live, entries, largest free block); per-process peaks feed the run's summary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from simpy.events import NORMAL, Event

from ..engine.clock import callback_at, callback_in_place, done, failed, fire_at, order_of, pending
from ..engine.trace import ENTRY_DONE, ENTRY_FREED, NAN, Recorder, put_time
from ..mpi.constants import (
    BUFFER_AUTOMATIC,
    COUNT_MAX,
    PROC_NULL,
    BufferAutomatic,
    automatic_or,
)
from ..mpi.errors import ErrArg, ErrBuffer, ErrOther, MPIError, error_for_class
from ..p2p.protocols import BUFFERED
from ..p2p.requests import Request
from ..values.units import UnitError, parse_size
from .allocators import Entry, make_allocator
from .summary import BufferSummary, overflow_error, synthetic_address, unattached_error

__all__ = ["BufferedMode", "PendingEntry", "missing_mpi41"]


class PendingEntry(Entry):
    """One entry of the attached buffer: its space (the allocator's :class:`Entry` it is),
    the send posted for it, its times.

    For the transport it is the send's request (``known``, ``done_at``, ``waiting``); for
    the trace, the entry's row (``rank``, ``msg``, ``offset``, ``size``, ``packed``,
    ``alloc``, ``completed``, ``freed``, ``attach``).
    """

    __slots__ = ("alloc", "attach", "completed", "done_at", "dst", "eid", "freed", "msg",
                 "owner", "rank", "row", "sreq", "waiting", "where")

    call = "MPI_Bsend"

    # Its fields, each set by BufferedMode._reserve when it places the entry (offset, size,
    # packed and done by the allocator): owner, rank, dst, msg (its send's message id),
    # alloc (when placed), completed (when its send completed: the trace's "done"; NaN until
    # then), freed (NaN until then), attach (which attach of the buffer), done_at (when its
    # send completes, once known), waiting (a Cause: why the send cannot go yet, for deadlock
    # reports), sreq (the user's request, when it completes with the send), where (the
    # bsend's place in the program), row (its row in the trace, once recorded), eid (its
    # completion's place in the event order, if due). No __init__ of its own: calling a
    # class whose __init__ is object's is the cheapest way Python makes an object.
    if TYPE_CHECKING:
        def __init__(self) -> None: ...
    else:
        __init__ = object.__init__

    # (the slots' types, for a type checker: annotations make no class attribute)
    owner: BufferedMode
    rank: int
    dst: int
    msg: int
    alloc: float
    completed: float
    freed: float
    attach: int
    done_at: float | None
    waiting: Any
    sreq: Request | None
    where: Any
    row: int
    eid: int

    def known(self, when: float) -> None:
        """The transport learned when the entry's send completes: the entry completes then."""
        self.done_at = when
        if self.sreq is not None:
            self.sreq.known(when)
        owner = self.owner
        env = owner.env
        if when <= env._now:  # already complete: before the program's next call
            owner.complete(self)
        elif owner._drain is None and not owner._flushes and owner.name == "process":
            # (owner.defers, inlined: once per bsend)
            self.eid = next(env._eid)  # the place its event would have taken
            due = owner._due
            if due and due[-1].done_at > when:  # type: ignore[operator]  # due: times known
                owner.due(self)  # rare: completes before an earlier send
            else:
                due.append(self)
        else:
            callback_at(env, when, _complete_at, self)


def _complete_at(ev: Any) -> None:
    entry = ev._value
    entry.owner.complete(entry)


class BufferedMode:
    """The buffered mode of one process: its attached buffer (or none) and its entries."""

    __slots__ = (
        "_drain",
        "_due",
        "_flushes",
        "_may_bypass",
        "address",
        "allocator",
        "attaches",
        "config",
        "copy_bw",
        "env",
        "name",
        "profile",
        "rank",
        "recorder",
        "summary",
        "tp",
    )

    def __init__(self, rank: int, env: Any, transport: Any, config: Any,
                 recorder: Recorder, name: str = "process") -> None:
        self.rank = rank
        self.name = name  # "process", or "comm NAME" / "session NAME" (MPI 4.1 §3.6)
        self.env = env
        self.tp = transport
        self.config = config
        self.profile = config.profile
        p = self.profile  # can a bsend ever bypass the buffer (asked once per bsend)?
        self._may_bypass = p.bsend_direct_limit is not None or p.zero_bsend_unattached_ok
        self.copy_bw = config.copy_bandwidth
        self.recorder = recorder
        self.allocator: Any = None
        self.address: Any = None
        self.attaches = 0
        self.summary = BufferSummary()
        self._drain: list[Callable[[], None]] | None = None  # made when first needed
        self._due: list[PendingEntry] = []  # completions not applied yet, in event order
        self._flushes: list[tuple[set[int], Callable[[], None]]] | None = None

    @property
    def attached(self) -> bool:
        return self.allocator is not None

    @property
    def pending(self) -> int:
        """Entries whose send has not completed (what detach and finalize wait for)."""
        if self._due:
            self.settle()
        return 0 if self.allocator is None else self.allocator.pending

    def pending_peers(self) -> list[int]:
        """Receivers of the messages still in the buffer (whom a detach waits for)."""
        if self._due:
            self.settle()
        if self.allocator is None:
            return []
        return sorted({e.dst for e in self.allocator.entries() if not e.done})

    # -- the calls -----------------------------------------------------------------------
    def attach(self, size: int | str | BufferAutomatic, address: Any) -> Event:
        """MPI_Buffer_attach: fails with ErrArg / ErrBuffer as the profile's implementation
        does. ``BUFFER_AUTOMATIC`` (MPI 4.1) attaches an unbounded buffer."""
        try:
            if isinstance(size, str):
                try:
                    size = automatic_or(lambda v: parse_size(v, allow_negative=True), size)
                except UnitError as e:
                    raise ErrArg(f"buffer size: {e}") from None
            self._attach(size, address)
        except MPIError as e:
            return failed(self.env, e)
        return done(self.env, None)

    def detach(self) -> Event:
        """MPI_Buffer_detach: waits until every buffered message is sent; yields
        (address, size)."""
        env = self.env
        if self.allocator is None:
            if self.profile.detach_unattached_error:
                return failed(env, ErrBuffer(f"no buffer is attached ({self.profile.name} "
                                             "refuses a detach without one)"))
            return done(env, (None, 0))
        return self._drained(self._detach_now)

    def flush(self) -> Event:
        """MPI_Buffer_flush (MPI 4.1): waits until the messages in the attached buffer at the
        call have been transmitted; the buffer stays attached."""
        env = self.env
        ev = pending(env)
        if not self._on_sent(lambda: fire_at(ev, env._now, None)):
            return done(env, None)
        return ev

    def iflush(self) -> Event:
        """MPI_Buffer_iflush (MPI 4.1): yields a Request that completes when the messages in
        the buffer at the call have been transmitted."""
        req = Request("send", "MPI_Buffer_iflush", self.rank, PROC_NULL, 0, 0)
        env = self.env
        if not self._on_sent(lambda: req.known(env._now)):
            req.known(env._now)
        return done(env, req)

    def finalize(self) -> Event | None:
        """What MPI_Finalize waits for: the pending entries, then it detaches. None if
        nothing is left to wait for."""
        if self.pending == 0:
            self._detach_now()
            return None
        ev = pending(self.env)

        def detach() -> None:
            self._detach_now()
            fire_at(ev, self.env._now, None)

        self._when_drained(detach)
        return ev

    # -- an entry's life -----------------------------------------------------------------
    def bsend(self, sreq: Request | None, where: Any, dest: int, tag: int, nbytes: int,
              data: Any, earliest: float, ctx: int = 0, dtype: Any = None) -> float:
        """3.6.1: place an entry and post a standard send for it; returns when the call
        returns. ``sreq``: the request of an ibsend (or of a persistent bsend), told when it
        completes; None for a blocking bsend, which nothing waits on. ``dtype``: the
        datatype the program named. Raises ErrBuffer when the message does not fit."""
        if self._may_bypass and self.profile.bypasses_buffer(nbytes, self.allocator is not None):
            user = sreq  # an ibsend's request: complete at once if the library says so
            if sreq is None or self.profile.ibsend_completes_at_once:
                sreq = Request("send", "MPI_Bsend", self.rank, dest, tag, nbytes)
                sreq.where = where
            self.tp.post_send(self.rank, dest, tag, nbytes, data, BUFFERED, sreq, earliest,
                              local=True, ctx=ctx, dtype=dtype)  # into transport memory
            if user is not None and user is not sreq:
                user.known(earliest)
            return earliest
        entry = self._reserve(nbytes, dest, where)
        if self.copy_bw:
            earliest += nbytes / self.copy_bw
        at_once = self.profile.ibsend_completes_at_once
        if not at_once:
            entry.sreq = sreq
        self.tp.post_send(self.rank, dest, tag, nbytes, data, BUFFERED, entry, earliest,
                          False, ctx, dtype, "MPI_Bsend", where)  # (message id entry.msg,
        # taken in _reserve)
        if at_once and sreq is not None:
            sreq.known(earliest)
        return earliest

    def _reserve(self, packed: int, dst: int, where: Any) -> PendingEntry:
        """Steps 1-4 of 3.6.1: reclaim, size, place an entry, or raise MPI_ERR_BUFFER."""
        if self._due:
            self.settle()
        alloc, now = self.allocator, self.env._now
        if alloc is None:
            self.summary.overflows += 1
            raise unattached_error(self.config, packed)
        entry = PendingEntry()  # (its fields, set here: see PendingEntry)
        entry.owner, entry.rank, entry.dst, entry.msg = self, self.rank, dst, -1
        entry.alloc, entry.completed, entry.freed, entry.attach = now, NAN, NAN, self.attaches - 1
        entry.done_at = entry.waiting = entry.sreq = None
        entry.where, entry.row, entry.eid = where, -1, -1
        placed, freed = alloc.allocate(packed, entry)  # (entry itself, placed; or None)
        if freed:
            rows = self.recorder.entries.data
            for e in freed:  # (_freed, inlined: a bsend reclaims one entry or so)
                e.freed = now
                if e.row >= 0:
                    put_time(rows, e.row + ENTRY_FREED, now)
        if placed is None:
            self.summary.overflows += 1
            self._record(now, "overflow", alloc.entry_size(packed))
            raise overflow_error(alloc, self.config, packed)
        entry.msg = self.tp.sent  # the id of its send's message, posted next (see bsend)
        used, live, held = alloc.used, alloc.live, alloc.held
        s = self.summary  # (only a bsend raises a peak)
        s.bsends += 1
        if used > s.peak_used:
            s.peak_used = used
        if live > s.peak_live:
            s.peak_live = live
        if held > s.peak_entries:
            s.peak_entries = held
        recorder = self.recorder
        if self.name != "process":
            recorder.named_entry(entry)
            self._record(now, "bsend", entry.size)
        elif recorder.enabled:  # its row, which holds the bsend's buffer row (see trace)
            current = self.env.current  # (Clock.order, inlined)
            entry.row = recorder.entry(entry, (current[1] << 62) + current[2], used, live,
                                       held, alloc.largest_free())
        return entry

    def complete(self, entry: PendingEntry) -> None:
        """The entry's send completed now: its bytes are no longer live."""
        self._complete(entry, self.env._now, None)

    def _complete(self, entry: PendingEntry, now: float, order: int | None) -> None:
        alloc = self.allocator
        alloc.complete(entry)
        entry.completed = now
        recorder = self.recorder
        if entry.row < 0:
            self._record(now, "complete", 0, order)
        elif recorder.enabled:  # its time and buffer row, into the entry's row (see trace)
            if order is None:
                order = self.env.order()
            recorder.completed(entry.row, now, order, alloc.live, alloc.largest_free())
        else:
            put_time(recorder.entries.data, entry.row + ENTRY_DONE, now)
        if self._flushes:
            self._flushed(id(entry))
        if alloc.pending == 0 and self._drain:
            callbacks, self._drain = self._drain, None
            for callback in callbacks:
                callback()

    # -- completions applied when looked at ----------------------------------------------
    @property
    def defers(self) -> bool:
        """A completion can wait to be applied: nobody waits to be woken by it, and the
        buffer's rows are the process's (ordered when the trace is built)."""
        return self._drain is None and not self._flushes and self.name == "process"

    def due(self, entry: PendingEntry) -> None:
        """The entry completes at ``entry.done_at``, in place ``entry.eid`` of the event
        order: applied when the buffer is next looked at (:meth:`settle`)."""
        self._due.append(entry)
        self._due.sort(key=_due_key)

    def settle(self, before: tuple[Any, ...] | None = None) -> None:
        """Apply the due completions that come before ``before`` in the event order, (time,
        priority, sequence number); by default the event being processed."""
        due = self._due
        if not due:
            return
        if before is None:
            before = self.env.current
        now, priority, eid = before[0], before[1], before[2]
        i = 0
        for entry in due:
            t = entry.done_at
            if t > now or (t == now and (priority < NORMAL or
                                         (priority == NORMAL and entry.eid > eid))):
                break
            self._complete(entry, t, _IN_ORDER + entry.eid)  # type: ignore[arg-type]  # due
            i += 1
        del due[:i]

    def _wake_on_completions(self) -> None:
        """Someone now waits for the due completions: each becomes an event, in its place."""
        self.settle()
        env = self.env
        for entry in self._due:
            callback_in_place(env, entry.done_at, entry.eid, _complete_at,  # type: ignore[arg-type]
                              entry)  # (an entry in _due: its time is known)
        self._due.clear()

    # -- attach, detach, drain -----------------------------------------------------------
    def _attach(self, size: Any, address: Any) -> None:
        if self._due:
            self.settle()
        if size is not BUFFER_AUTOMATIC:
            if isinstance(size, bool) or not isinstance(size, int):
                raise ErrArg(f"buffer size must be an integer number of bytes, got {size!r}")
            if size < 0:
                raise ErrArg(f"buffer size must be non-negative, got {size}")
            if size > COUNT_MAX:
                raise ErrArg(f"buffer size {size} does not fit the MPI_Count of "
                             f"MPI_Buffer_attach_c (max {COUNT_MAX})")
        if self.allocator is not None:
            cls = error_for_class(self.profile.attach_twice_error_class)
            if size is BUFFER_AUTOMATIC:
                raise cls("a buffer is already attached; detach it first (3.6: only one "
                          "buffer can be attached to a process at a time)")
            what = ("MPI_BUFFER_AUTOMATIC is" if self.address is BUFFER_AUTOMATIC
                    else f"a buffer of {self.allocator.capacity} B is")
            raise cls(f"{what} already attached; detach it first (3.6: only one buffer can be "
                      "attached to a process at a time)")
        cfg, refused = self.config, ""
        if size is BUFFER_AUTOMATIC:
            self.allocator = make_allocator("unbounded", 0, overhead=cfg.bsend_overhead,
                                            alignment=cfg.alignment)
            self.address = BUFFER_AUTOMATIC
        else:
            profile = self.profile
            refused = (f"a buffer of {size} B is smaller than the {profile.attach_min} B that "
                       f"{profile.name} accepts") if size < profile.attach_min else ""
            if refused and not profile.refused_attach_stays:
                raise ErrBuffer(refused)
            self.allocator = make_allocator(cfg.allocator, 0 if refused else size,
                                            overhead=cfg.bsend_overhead,
                                            alignment=cfg.alignment, sizing=cfg.sizing)
            self.address = (address if address is not None
                            else synthetic_address(self.rank, self.attaches))
            self.summary.size = max(self.summary.size, self.allocator.capacity)
        self.attaches += 1
        self._record(self.env._now, "attach")
        if refused:  # and yet attached (refused_attach_stays)
            raise ErrBuffer(f"{refused}; under it the refused buffer stays attached with 0 B "
                            "usable, as in the library it models: detach it before attaching "
                            "another")

    def _detach_now(self) -> tuple[Any, int]:
        """Complete a detach once nothing is pending: (address, size) given to attach."""
        now, alloc = self.env._now, self.allocator
        address, size = self.address, alloc.capacity
        for entry in alloc.entries():
            self._freed(entry, now)
        self._record(now, "detach")
        self.allocator = None
        self.address = None
        return address, size

    def _freed(self, entry: Any, now: float) -> None:
        """The allocator returned the entry's space: its trace row is final."""
        entry.freed = now
        if entry.row >= 0:
            put_time(self.recorder.entries.data, entry.row + ENTRY_FREED, now)

    def _when_drained(self, callback: Callable[[], None]) -> None:
        self._wake_on_completions()
        if self._drain is None:
            self._drain = []
        self._drain.append(callback)

    def _drained(self, value: Callable[[], Any]) -> Event:
        """An event that happens when no entry of the attached buffer is pending."""
        env = self.env
        if self.pending == 0:
            return done(env, value())
        ev = pending(env)
        self._when_drained(lambda: fire_at(ev, env._now, value()))
        return ev

    def _on_sent(self, callback: Callable[[], None]) -> bool:
        """Call ``callback()`` once every entry pending now has completed (MPI 4.1 flush:
        "all messages currently in the buffer"; later bsends do not delay it). False, and
        no call, when none is pending."""
        self.settle()
        alloc = self.allocator
        waiting = {id(e) for e in alloc.entries() if not e.done} if alloc else set()
        if not waiting:
            return False
        self._wake_on_completions()
        if self._flushes is None:
            self._flushes = []
        self._flushes.append((waiting, callback))
        return True

    def _flushed(self, key: int) -> None:
        flushes = self._flushes
        assert flushes is not None  # called only while flushes wait
        finished = []
        for flush in flushes:
            flush[0].discard(key)
            if not flush[0]:
                finished.append(flush)
        for flush in finished:
            flushes.remove(flush)
            flush[1]()

    def _record(self, now: float, event: str, requested: int = 0,
                order: int | None = None) -> None:
        """The buffer changed: write its row, if the trace is on. For a process buffer: an
        attach, overflow or detach (its bsends and completions go into their entries' rows,
        see _reserve); for a named buffer, every change. A detach's row is all zeros
        (nothing is attached after it); an attach's carries the capacity in ``requested``
        (see mpisim.engine.trace)."""
        recorder = self.recorder
        if not recorder.enabled:
            return
        alloc = self.allocator
        if event == "detach":
            capacity = used = live = held = largest = 0
        else:
            capacity, used, live, held = alloc.capacity, alloc.used, alloc.live, alloc.held
            largest = alloc.largest_free()
        if self.name != "process":
            recorder.named_buffer_state(self.name, self.rank, now, event, capacity, used, live,
                                        held, largest, requested)
            return
        if order is None:
            order = self.env.order()
        if event == "attach":
            requested = capacity  # (the rows after it take it from here)
        rows = recorder.buffer
        rows.data.extend(rows.pack(self.rank, now, recorder.event_codes[event], used, live,
                                   held, largest, requested, order))


_IN_ORDER = order_of(NORMAL, 0)  # + eid: the order of an event of normal priority


def _due_key(entry: PendingEntry) -> tuple[float, int]:
    return entry.done_at, entry.eid  # type: ignore[return-value]  # in _due: time known


def missing_mpi41(call: str, profile: Any) -> MPIError:
    """An MPI 4.1 buffer call that the profile's library does not have."""
    return ErrOther(f"{call} is an MPI 4.1 call that {profile.name} does not have (Open MPI "
                    "5.0.11: mpi4py raises NotImplementedError, the symbol is missing); set "
                    "the profile's mpi41_buffers to explore it anyway")
