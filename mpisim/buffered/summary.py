"""What the attached buffer of one process reports: its summary and its overflow errors.

The buffer's life (attach, the entries, detach) is :class:`mpisim.buffered.mode.BufferedMode`;
this module says what a run reports about it: per-process peaks and counts
(:class:`BufferSummary`) and the MPI_ERR_BUFFER of a bsend that does not fit, explained from
the allocator's layout and the entry charging in force (3.6, 3.6.1).
"""

from __future__ import annotations

from typing import Any

from ..mpi.errors import ErrBuffer
from .allocators import EntryRule, make_allocator

__all__ = ["BufferSummary", "overflow_error", "synthetic_address", "unattached_error"]

class BufferSummary:
    """Per-rank numbers for the result: size, peaks, bsends, overflows.

    Its fields (bytes, but for the counts): ``size``, the largest buffer the rank attached;
    ``peak_used``, the most bytes its entries held at once, completed ones not yet
    reclaimed and a wrap gap included (what the allocator could not give to a new entry);
    ``peak_live``, the most bytes of entries whose send had not yet completed, held at once
    (no smaller buffer can work); ``peak_entries``, the most entries held at once;
    ``bsends``, the buffered sends that found room; ``overflows``, those refused with
    MPI_ERR_BUFFER. Peaks are taken at each bsend.
    """

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


def unattached_error(config: Any, packed: int) -> ErrBuffer:
    """MPI_ERR_BUFFER for a bsend with no buffer attached (3.6: as with a zero-size one)."""
    entry = make_allocator(config.allocator, 0, overhead=config.bsend_overhead,
                           alignment=config.alignment, sizing=config.sizing).entry_size(packed)
    return ErrBuffer(f"no buffer attached: MPI behaves as with a zero-size buffer (3.6), "
                     f"so a bsend of {packed} B cannot be buffered",
                     {"requested": packed, "entry_bytes": entry, "free": 0,
                      "largest_free": 0, "entries": []})


def overflow_error(alloc: Any, config: Any, packed: int) -> ErrBuffer:
    """MPI_ERR_BUFFER for a bsend of ``packed`` bytes that ``alloc`` cannot place: what it
    needs, what is free, and the entries in the way."""
    entry, need = alloc.entry_size(packed), alloc.fit_size(packed)
    layout = alloc.layout()
    entries = [{"offset": o, "size": s, "state": st} for o, s, st in layout["entries"]]
    shown = ", ".join(f"[{o}+{s} {st}]" for o, s, st in layout["entries"][:8])
    more = f" and {len(entries) - 8} more" if len(entries) > 8 else ""
    gap = layout.get("wrap_gap") or 0
    needs = (f"an entry of {entry} B ({_charging(config)})" if need == entry else
             f"{need} B of contiguous free space ({_charging(config)}; an entry of "
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


def _charging(config: Any) -> str:
    """How the allocator in force sizes an entry, for error messages."""
    sizing = config.sizing
    if sizing == "mpich":
        return ("MPICH: 88-byte header + the message, rounded up to 16 B when the rest of "
                "the free block is cut off")
    if sizing == "openmpi":
        return "Open MPI: 8 * floor(bytes / 8) + 16"
    if sizing.startswith(EntryRule.PREFIX):
        return EntryRule.parse(sizing).describe()
    alignment = config.alignment
    return (f"pack_size + MPI_BSEND_OVERHEAD {config.bsend_overhead}"
            + (f", rounded up to {alignment}" if alignment > 1 else ""))


def synthetic_address(rank: int, attach: int) -> int:
    """A stable fake address for a buffer attached by size only (nothing is allocated)."""
    return 0x7F00_0000_0000 + (rank << 32) + (attach << 24)
