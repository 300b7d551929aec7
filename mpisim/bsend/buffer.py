"""The attached buffer of one process: attach, detach, and the life of its entries (3.6).

One buffer per process (3.6): attaching while one is attached is MPI_ERR_BUFFER. With none
attached MPI behaves as with a zero-size buffer, so a bsend overflows. Detach blocks until
every entry's send has completed, then returns the address and size given to attach; the
buffer can then be attached again. Nothing real is allocated: the allocator works on
offsets, so attaching 1 TiB costs what 1 KiB costs.

An entry's space is freed only when the standard-mode send posted for it completes (3.6.1):
eager, once its bytes have left; rendezvous, once the receiver matched it and the data left.
When the space returns is the allocator's policy: the standard's circular model reclaims from
the head, at the next bsend, up to the first uncompleted entry.

Every change is recorded (time, used, live, entries, largest free block); per-process peaks
feed the run's summary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..constants import BUFFER_AUTOMATIC, COUNT_MAX
from ..errors import ErrArg, ErrBuffer, error_for_class
from ..trace import EntryRecord, Recorder
from .allocators import make_allocator

__all__ = ["AttachedBuffer", "BufferSummary"]


class BufferSummary:
    """Per-rank numbers for the result: size, peaks, bsends, overflows."""

    __slots__ = ("bsends", "overflows", "peak_entries", "peak_live", "peak_used", "size")

    def __init__(self) -> None:
        self.size = 0
        self.peak_used = 0
        self.peak_live = 0
        self.peak_entries = 0
        self.bsends = 0
        self.overflows = 0

    def to_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self) -> str:
        return "BufferSummary(" + ", ".join(f"{k}={getattr(self, k)}" for k in self.__slots__) + ")"


class AttachedBuffer:
    """The buffer attached to one rank (or none), its allocator and its recording."""

    def __init__(self, rank: int, config: Any, recorder: Recorder) -> None:
        self.rank = rank
        self.config = config
        self.profile = config.profile
        self.recorder = recorder
        self.allocator: Any = None
        self.address: Any = None
        self.attaches = 0
        self.summary = BufferSummary()
        self._now = 0.0
        self._drain: list[Callable[[], None]] = []
        self._flushes: list[tuple[set[int], Callable[[], None]]] = []

    # -- attach / detach -----------------------------------------------------------------
    @property
    def attached(self) -> bool:
        return self.allocator is not None

    def attach(self, size: Any, address: Any, now: float) -> None:
        """MPI_Buffer_attach: raises ErrArg / ErrBuffer as the profile's implementation does.

        ``BUFFER_AUTOMATIC`` (MPI 4.1) attaches an unbounded buffer: MPI allocates as needed.
        """
        if size is BUFFER_AUTOMATIC:
            self._attach_automatic(now)
            return
        if isinstance(size, bool) or not isinstance(size, int):
            raise ErrArg(f"buffer size must be an integer number of bytes, got {size!r}")
        if size < 0:
            raise ErrArg(f"buffer size must be non-negative, got {size}")
        if size > COUNT_MAX:
            raise ErrArg(f"buffer size {size} does not fit the MPI_Count of "
                         f"MPI_Buffer_attach_c (max {COUNT_MAX})")
        if self.allocator is not None:
            cls = error_for_class(self.profile.attach_twice_error_class)
            what = ("MPI_BUFFER_AUTOMATIC is" if self.address is BUFFER_AUTOMATIC
                    else f"a buffer of {self.allocator.capacity} B is")
            raise cls(f"{what} already attached; detach it first (3.6: only one buffer can be "
                      "attached to a process at a time)")
        if size < self.profile.attach_min:
            raise ErrBuffer(f"a buffer of {size} B is smaller than the {self.profile.attach_min} "
                            f"B that {self.profile.name} accepts")
        cfg = self.config
        self.allocator = make_allocator(cfg.allocator, size, overhead=cfg.bsend_overhead,
                                        alignment=cfg.alignment, sizing=cfg.sizing)
        self.allocator.on_free = self._freed
        self.address = address if address is not None else _synthetic_address(self.rank,
                                                                               self.attaches)
        self.attaches += 1
        self.summary.size = max(self.summary.size, size)
        self._record(now, "attach")

    def _attach_automatic(self, now: float) -> None:
        if self.allocator is not None:
            cls = error_for_class(self.profile.attach_twice_error_class)
            raise cls("a buffer is already attached; detach it first (3.6: only one buffer "
                      "can be attached to a process at a time)")
        cfg = self.config
        self.allocator = make_allocator("unbounded", 0, overhead=cfg.bsend_overhead,
                                        alignment=cfg.alignment)
        self.allocator.on_free = self._freed
        self.address = BUFFER_AUTOMATIC
        self.attaches += 1
        self._record(now, "attach")

    def detach(self, now: float) -> tuple[Any, int]:
        """Complete a detach once nothing is pending: (address, size) given to attach."""
        alloc = self.allocator
        address, size = self.address, alloc.capacity
        for entry in alloc.entries():
            entry.tag.freed = now
        self.allocator = None
        self.address = None
        self._record_detached(now)
        return address, size

    @property
    def pending(self) -> int:
        """Entries whose send has not completed (what detach and finalize wait for)."""
        return 0 if self.allocator is None else self.allocator.pending

    def on_drained(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when the last pending entry completes."""
        self._drain.append(callback)

    def on_sent(self, callback: Callable[[], None]) -> bool:
        """Call ``callback()`` once every entry pending now has completed (MPI 4.1 flush:
        "all messages currently in the buffer"; later bsends do not delay it). False, and
        no call, when none is pending."""
        pending = {id(e) for e in self.allocator.entries() if not e.done} if self.allocator \
            else set()
        if not pending:
            return False
        self._flushes.append((pending, callback))
        return True

    def pending_peers(self) -> list[int]:
        """Receivers of the messages still in the buffer (whom a detach waits for)."""
        if self.allocator is None:
            return []
        return sorted({e.tag.dst for e in self.allocator.entries() if not e.done})

    # -- entries -------------------------------------------------------------------------
    def reserve(self, packed: int, dst: int, tag: int, now: float) -> Any:
        """Steps 1-4 of 3.6.1: reclaim, size, place an entry, or raise MPI_ERR_BUFFER."""
        alloc = self.allocator
        self._now = now  # entries the allocator frees now were freed at this time
        if alloc is None:
            self.summary.overflows += 1
            cfg = self.config
            entry = make_allocator(cfg.allocator, 0, overhead=cfg.bsend_overhead,
                                   alignment=cfg.alignment, sizing=cfg.sizing).entry_size(packed)
            raise ErrBuffer(f"no buffer attached: MPI behaves as with a zero-size buffer (3.6), "
                            f"so a bsend of {packed} B cannot be buffered",
                            {"requested": packed, "entry_bytes": entry, "free": 0,
                             "largest_free": 0, "entries": []})
        entry = alloc.allocate(packed)
        if entry is None:
            self.summary.overflows += 1
            self._record(now, "overflow", alloc.entry_size(packed))
            raise self._overflow(packed)
        rec = EntryRecord(self.rank, dst, entry.offset, entry.size, packed, now,
                          self.attaches - 1)
        entry.tag = rec
        self.recorder.entry(rec)
        self.summary.bsends += 1
        self._record(now, "bsend", entry.size)
        return entry

    @staticmethod
    def link(entry: Any, msg: Any) -> None:
        """Remember which message the entry holds (for the trace)."""
        entry.tag.msg = msg.id

    def complete(self, entry: Any, now: float) -> None:
        """The entry's send completed: its bytes are no longer live."""
        alloc = self.allocator
        alloc.complete(entry)
        entry.tag.done = now
        self._record(now, "complete")
        if self._flushes:
            self._flushed(id(entry))
        if alloc.pending == 0 and self._drain:
            callbacks, self._drain = self._drain, []
            for callback in callbacks:
                callback()

    def _flushed(self, key: int) -> None:
        done = []
        for flush in self._flushes:
            flush[0].discard(key)
            if not flush[0]:
                done.append(flush)
        for flush in done:
            self._flushes.remove(flush)
            flush[1]()

    def _freed(self, entry: Any) -> None:
        entry.tag.freed = self._now

    # -- errors and recording ------------------------------------------------------------
    def _overflow(self, packed: int) -> ErrBuffer:
        alloc = self.allocator
        entry, need = alloc.entry_size(packed), alloc.fit_size(packed)
        layout = alloc.layout()
        entries = [{"offset": o, "size": s, "state": st} for o, s, st in layout["entries"]]
        shown = ", ".join(f"[{o}+{s} {st}]" for o, s, st in layout["entries"][:8])
        more = f" and {len(entries) - 8} more" if len(entries) > 8 else ""
        gap = layout.get("wrap_gap") or 0
        needs = (f"an entry of {entry} B ({self._charging()})" if need == entry else
                 f"{need} B of contiguous free space ({self._charging()}; an entry of "
                 f"{entry} B when more follows)")
        return ErrBuffer(
            f"bsend of {packed} B needs {needs}, but the "
            f"{alloc.capacity} B buffer has "
            f"{alloc.largest_free()} B contiguous free ({alloc.free_total()} B free in total"
            + (f", {gap} B wasted at the end by the wrap" if gap else "")
            + f"); entries: {shown or 'none'}{more}",
            {"requested": packed, "entry_bytes": entry, "free": alloc.free_total(),
             "largest_free": alloc.largest_free(), "capacity": alloc.capacity,
             "entries": entries})

    def _charging(self) -> str:
        """How the allocator in force sizes an entry, for error messages."""
        sizing = self.config.sizing
        if sizing == "mpich":
            return ("MPICH: 88-byte header + the message, rounded up to 16 B when the rest of "
                    "the free block is cut off")
        if sizing == "openmpi":
            return "Open MPI: 8 * floor(bytes / 8) + 16"
        alignment = self.config.alignment
        return (f"pack_size + MPI_BSEND_OVERHEAD {self.config.bsend_overhead}"
                + (f", rounded up to {alignment}" if alignment > 1 else ""))

    def _record(self, now: float, event: str, requested: int = 0) -> None:
        self._now = now
        alloc = self.allocator
        used, live, held = alloc.used, alloc.live, alloc.held
        s = self.summary
        if used > s.peak_used:
            s.peak_used = used
        if live > s.peak_live:
            s.peak_live = live
        if held > s.peak_entries:
            s.peak_entries = held
        if self.recorder.enabled:
            self.recorder.buffer_state(self.rank, now, event, alloc.capacity, used, live, held,
                                       alloc.largest_free(), requested)

    def _record_detached(self, now: float) -> None:
        if self.recorder.enabled:
            self.recorder.buffer_state(self.rank, now, "detach", 0, 0, 0, 0, 0, 0)


def _synthetic_address(rank: int, attach: int) -> int:
    """A stable fake address for a buffer attached by size only (nothing is allocated)."""
    return 0x7F00_0000_0000 + (rank << 32) + (attach << 24)
