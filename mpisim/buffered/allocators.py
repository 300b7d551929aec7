"""Allocators for the attached buffer: offset arithmetic only, nothing is allocated.

An allocator places *pending message entries* (3.6.1) in a buffer of ``capacity`` bytes and
decides when their space returns; three kinds share one protocol (:class:`Allocator`).

``circular`` -- the standard's model, step by step (3.6.1). Each :meth:`allocate`: (1)
reclaims completed entries from the head up to the first uncompleted one (a completed entry
behind an uncompleted head is *not* reclaimed); (2) n = pack_size + MPI_BSEND_OVERHEAD,
rounded up to ``alignment``; (3) places the entry after the tail, or at the buffer start if
the tail is too close to the end; else overflows (returns ``None``). Boundary choices:

* An entry may end exactly at the end of the buffer (tail == capacity), or exactly at the
  head: free space is the contiguous bytes from the tail up to the head.
* When reclaim empties the queue, head and tail return to the start: an empty circular queue
  has no position, so "between tail and head" is the whole buffer (else an empty buffer
  could refuse a message it can hold, depending on history).
* The start is tried only when the entry does not fit after the tail. Wrapping leaves the
  bytes from the old tail to the end unused (the *wrap gap*): they count as ``used`` until
  the head passes them (every entry placed before the wrap is reclaimed). While wrapped the
  free space is only tail..head; there is no second wrap.
* n > capacity, or n > 0 in a zero-size buffer: overflow (``None``), never an exception. An
  entry of 0 bytes (overhead 0, empty message) takes no space and fits wherever the tail is.

``first-fit`` -- MPICH's and Open MPI's policy: an address-ordered free list whose freed
blocks merge with both neighbours (kept as the gaps between held entries); *every* completed
entry, anywhere, is freed at each allocate. Open MPI frees an entry when its send completes
instead; nothing can use the space before the next bsend, so what fits is the same, only
``used`` between two bsends differs (here it still counts completed entries).

``unbounded`` -- never overflows; ``capacity`` is only what was attached (detach reports
it). Entries go one after another, from the start again whenever all are freed; completed
entries are freed at each allocate. ``peak_needed``: the most entry bytes ever held at once
(plus the sizing's start offset), what a buffer that wastes nothing would have needed.

Sizing, how many bytes an entry takes, is separate from placement: see
:mod:`mpisim.buffered.sizing`; under ``circular`` an entry always takes the sizing's
:meth:`entry_size` bytes.

Costs: :meth:`allocate` is O(entries) at worst, O(1) amortised for ``circular`` (each entry
is reclaimed once; the scan for the first uncompleted entry never goes back).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from .sizing import SIZINGS, EntryRule, StandardSizing, check_sizing, nonneg_int, sizing_for

__all__ = ["KINDS", "SIZINGS", "Allocator", "CircularAllocator", "Entry", "EntryRule",
           "FirstFitAllocator", "UnboundedAllocator", "check_sizing", "make_allocator"]

KINDS = ("circular", "first-fit", "unbounded")


class Entry:
    """One pending message entry (PME) of the attached buffer. A caller that keeps more
    about each entry passes its own, of a subclass, to ``allocate`` (one object per entry)."""

    __slots__ = ("done", "offset", "packed", "size")

    def __init__(self, offset: int, size: int, packed: int) -> None:
        self.offset = offset      # first byte of the entry in the buffer
        self.size = size          # bytes it takes (overhead and padding included)
        self.packed = packed      # packed message bytes it holds
        self.done = False         # its nonblocking standard send has completed

    def __repr__(self) -> str:
        state = "done" if self.done else "pending"
        return f"Entry({self.offset}+{self.size}, packed={self.packed}, {state})"


@runtime_checkable
class Allocator(Protocol):
    """What the attached buffer needs from an allocator.

    ``allocate(packed, entry=None)`` returns ``(entry, freed)``: the new entry (None:
    overflow; ``entry``, placed, when the caller gives one of its own) and the entries
    whose space its reclaim step returned, so that the caller can date them;
    ``held`` counts entries still taking space, completed-but-unreclaimed included.
    """

    name: str
    capacity: int
    pending: int
    live: int
    used: int
    held: int

    def entry_size(self, packed: int) -> int: ...
    def allocate(self, packed: int,
                 entry: Entry | None = None) -> tuple[Entry | None, Sequence[Entry]]: ...
    def complete(self, entry: Entry) -> None: ...
    def entries(self) -> list[Entry]: ...
    def free_total(self) -> int: ...
    def largest_free(self) -> int: ...
    def layout(self) -> dict[str, Any]: ...


def _entry_rows(entries: list[Entry]) -> list[tuple[int, int, str]]:
    return [(e.offset, e.size, "done" if e.done else "pending") for e in entries]


class _Base:
    """Counters and the parts every kind shares."""

    __slots__ = ("_base", "capacity", "held", "live", "pending", "sizing", "used")
    name = ""

    def __init__(self, capacity: int, sizing: StandardSizing) -> None:
        self.capacity = capacity
        self.sizing = sizing
        self._base = min(sizing.start, capacity)
        self.pending = 0
        self.live = 0
        self.used = 0
        self.held = 0

    def entry_size(self, packed: int) -> int:
        """Bytes an entry for ``packed`` message bytes takes (when a block is cut for it)."""
        return self.sizing.entry_size(packed)

    def fit_size(self, packed: int) -> int:
        """The smallest contiguous free space that takes a message of ``packed`` bytes."""
        return self.sizing.fit_size(packed)

    def complete(self, entry: Entry) -> None:
        """Its send completed: no longer live; the space returns at a later allocate."""
        if entry.done:
            raise ValueError(f"{entry!r} is already complete")
        entry.done = True
        self.pending -= 1
        self.live -= entry.size

    def free_total(self) -> int:
        """Bytes not held now (before any reclaim): capacity - used."""
        return self.capacity - self.used

    def _new(self, offset: int, n: int, packed: int, entry: Entry | None) -> Entry:
        """The entry placed at ``offset``: the caller's ``entry``, or a new one."""
        self.pending += 1
        self.live += n
        self.used += n
        self.held += 1
        if entry is None:
            return Entry(offset, n, packed)
        entry.offset, entry.size, entry.packed, entry.done = offset, n, packed, False
        return entry

    def _freed(self, entry: Entry) -> None:
        self.used -= entry.size
        self.held -= 1

    def layout(self) -> dict[str, Any]:
        """The buffer now: kind, capacity, counters and entries (offset, size, state)."""
        return {"kind": self.name, "capacity": self.capacity, "head": None, "tail": None,
                "wrap_gap": 0, "wrap_gap_offset": None, "used": self.used, "live": self.live,
                "free": self.free_total(), "entries": _entry_rows(self.entries())}

    def entries(self) -> list[Entry]:  # pragma: no cover - every kind overrides it
        raise NotImplementedError


# -- the standard's circular queue ------------------------------------------------------------
class CircularAllocator(_Base):
    """The standard's model (3.6.1): a circular queue of entries, reclaimed from its head."""

    __slots__ = ("_gap", "_h", "_lap", "_q", "_scan", "head", "tail")
    name = "circular"

    def __init__(self, capacity: int, sizing: StandardSizing) -> None:
        super().__init__(capacity, sizing)
        self._q: list[Entry] = []  # queue order; the live queue is _q[_h:]
        self._h = 0                # index of the head entry
        self._scan = 0             # _q[_h:_scan] are all done (the scan never goes back)
        self._lap = 0              # while wrapped: _q[:_lap] were placed before the wrap
        self._gap: int | None = None  # while wrapped: where the wasted end starts
        self.head = self.tail = self._base

    def entries(self) -> list[Entry]:
        """Entries still held, in queue order (head to tail)."""
        return self._q[self._h:]

    def _reclaim(self) -> Sequence[Entry]:
        """Step 1 of 3.6.1: drop completed entries from the head up to the first pending one;
        returns them."""
        q, h = self._q, self._h
        i = self._scan  # the first pending entry (the scan never goes back)
        while i < len(q) and q[i].done:
            i += 1
        stop = self._scan = i
        if stop == h:
            return ()
        freed = q[h:stop]
        size = 0
        for e in freed:  # (_Base._freed, for all of them at once)
            size += e.size
        self.used -= size
        self.held -= stop - h
        self._h = stop
        if self._gap is not None and stop >= self._lap:  # the head passed the wrap gap
            self.used -= self.capacity - self._gap
            self._gap = None
        if stop == len(q):  # empty: head and tail return to the start
            q.clear()
            self._h = self._scan = self._lap = 0
            self.head = self.tail = self._base
        else:
            self.head = q[stop].offset
            if stop > 32 and 2 * stop > len(q):  # drop the reclaimed prefix, amortised O(1)
                del q[:stop]
                self._h, self._scan, self._lap = 0, self._scan - stop, max(self._lap - stop, 0)
        return freed

    def _place(self, n: int) -> int | None:
        """Step 3 of 3.6.1: the offset of n contiguous free bytes, or None."""
        tail = self.tail
        if self._gap is not None:  # wrapped: only the bytes from the tail up to the head
            return tail if n <= self.head - tail else None
        if n <= self.capacity - tail:
            return tail
        if self.held and n <= self.head - self._base:  # tail too close to the end: wrap
            self._gap = tail
            self._lap = len(self._q)
            self.used += self.capacity - tail
            return self._base
        return None

    def allocate(self, packed: int,
                 entry: Entry | None = None) -> tuple[Entry | None, Sequence[Entry]]:
        """Reclaim from the head, then place after the tail or at the start; (entry or None
        for an overflow, the entries reclaimed)."""
        if packed < 0:
            raise ValueError(f"packed size must be non-negative, got {packed}")
        freed = self._reclaim()
        n = self.sizing.entry_size(packed)
        offset = self.tail
        if self._gap is not None or n > self.capacity - offset:  # (_place's first case,
            placed = self._place(n)                             # after the tail, inlined)
            if placed is None:
                return None, freed
            offset = placed
        self.pending += 1  # (_new, inlined: once per bsend)
        self.live += n
        self.used += n
        self.held += 1
        if entry is None:
            entry = Entry(offset, n, packed)
        else:
            entry.offset, entry.size, entry.packed, entry.done = offset, n, packed, False
        q = self._q
        if not q:
            self.head = offset
        q.append(entry)
        self.tail = offset + n
        return entry, freed

    def largest_free(self) -> int:
        """The largest entry allocate() could place now, *after* its reclaim step."""
        q, i = self._q, self._scan  # the first pending entry (as _reclaim finds it)
        n = len(q)
        while i < n and q[i].done:
            i += 1
        self._scan = i
        if i == n:
            return self.capacity - self._base
        head = q[i].offset
        if self._gap is not None and i < self._lap:
            return head - self.tail
        after, before = self.capacity - self.tail, head - self._base
        return after if after >= before else before  # (max(), without its call: per bsend)

    def layout(self) -> dict[str, Any]:
        out = super().layout()
        if self.held:
            out["head"], out["tail"] = self.head, self.tail
        if self._gap is not None:
            out["wrap_gap"], out["wrap_gap_offset"] = self.capacity - self._gap, self._gap
        return out


# -- first fit over an address-ordered free list ----------------------------------------------
class FirstFitAllocator(_Base):
    """MPICH / Open MPI: first fit in address order; every completed entry is freed."""

    __slots__ = ("_held",)
    name = "first-fit"

    def __init__(self, capacity: int, sizing: StandardSizing) -> None:
        super().__init__(capacity, sizing)
        self._held: list[Entry] = []  # address order; free blocks are the gaps between

    def entries(self) -> list[Entry]:
        """Entries still held, in address order."""
        return list(self._held)

    def _reclaim(self) -> Sequence[Entry]:
        """Free every completed entry; returns them."""
        if self.held == self.pending:
            return ()
        keep, freed = [], []
        for e in self._held:
            if e.done:
                self._freed(e)
                freed.append(e)
            else:
                keep.append(e)
        self._held = keep
        return freed

    def allocate(self, packed: int,
                 entry: Entry | None = None) -> tuple[Entry | None, Sequence[Entry]]:
        """Free every completed entry, then take the first free block that fits; (entry or
        None for an overflow, the entries freed)."""
        if packed < 0:
            raise ValueError(f"packed size must be non-negative, got {packed}")
        freed = self._reclaim()
        take, held = self.sizing.take, self._held
        prev = self._base
        for i, e in enumerate(held):
            n = take(e.offset - prev, packed)
            if n is not None:
                entry = self._new(prev, n, packed, entry)
                held.insert(i, entry)
                return entry, freed
            prev = e.offset + e.size
        n = take(self.capacity - prev, packed)
        if n is None:
            return None, freed
        entry = self._new(prev, n, packed, entry)
        held.append(entry)
        return entry, freed

    def largest_free(self) -> int:
        """The largest free block after allocate()'s reclaim step (completed entries freed)."""
        prev, best = self._base, 0
        for e in self._held:
            if not e.done:
                best = max(best, e.offset - prev)
                prev = e.offset + e.size
        return max(best, self.capacity - prev)


# -- unbounded --------------------------------------------------------------------------------
class UnboundedAllocator(_Base):
    """Never overflows; records the most bytes ever held at once (``peak_needed``)."""

    __slots__ = ("_held", "_next", "peak_needed")
    name = "unbounded"

    def __init__(self, capacity: int, sizing: StandardSizing) -> None:
        super().__init__(capacity, sizing)
        self._base = sizing.start  # the attached size does not bound anything here
        self._held: dict[Entry, None] = {}  # placement order == address order
        self._next = self._base
        self.peak_needed = 0

    def entries(self) -> list[Entry]:
        """Entries still held, in address order."""
        return list(self._held)

    def allocate(self, packed: int, entry: Entry | None = None) -> tuple[Entry, Sequence[Entry]]:
        """Free every completed entry, then place after the last one; (entry, the entries
        freed): never an overflow."""
        if packed < 0:
            raise ValueError(f"packed size must be non-negative, got {packed}")
        freed: Sequence[Entry] = ()
        if self.held != self.pending:
            freed = [e for e in self._held if e.done]
            for e in freed:
                del self._held[e]
                self._freed(e)
        if not self._held:
            self._next = self._base
        entry = self._new(self._next, self.sizing.entry_size(packed), packed, entry)
        self._held[entry] = None
        self._next += entry.size
        self.peak_needed = max(self.peak_needed, self.sizing.start + self.used)
        return entry, freed

    def free_total(self) -> int:
        """What the attached size would have left now (never negative; allocate never fails)."""
        return max(self.capacity - self.used, 0)

    def largest_free(self) -> int:
        """Informative only (allocate never fails): free_total() after freeing completed
        entries, measured against the attached size."""
        return max(self.capacity - self.live, 0)


_KINDS: dict[str, Callable[[int, StandardSizing], Allocator]] = {"circular": CircularAllocator,
                                  "first-fit": FirstFitAllocator,
                                  "unbounded": UnboundedAllocator}
def make_allocator(kind: str, capacity: int, *, overhead: int, alignment: int = 1,
                   sizing: str = "standard") -> Allocator:
    """An allocator of ``kind`` for a buffer of ``capacity`` bytes, charging entries by
    ``sizing``; raises ValueError naming the bad argument."""
    if kind not in _KINDS:
        raise ValueError(f"allocator: {kind!r} is not one of {', '.join(KINDS)}")
    nonneg_int("capacity", capacity)
    return _KINDS[kind](capacity, sizing_for(sizing, overhead, alignment))
