"""The answers of min-buffer (:class:`MinBuffer`, :class:`MinBufferTable`), their text and
JSON, and what the gap above the lower bound is due to.

The gap between the answer and the unbounded run's peak of live bytes is called a
*fragmentation cost* only when it is one: when the byte below the answer overflowed with
enough bytes free in total but no contiguous block for the entry, or with completed entries
still held behind an uncompleted one (3.6.1 reclaims from the head of the queue only).
Otherwise the gap is described as what it is (an allocator that charges an entry more than
pack_size + MPI_BSEND_OVERHEAD, or a failure that is not an overflow).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..values.units import format_size
from .probe import Probe

__all__ = ["MinBuffer", "MinBufferTable", "explain_gap", "report_lines"]


@dataclass
class MinBuffer:
    """The answer of :func:`min_buffer`; ``to_dict()`` is the CLI's JSON.

    Sizes are bytes. ``report()`` says it in words; a notebook shows it as a table.

    Parameters
    ----------
    min_buffer
        The smallest attach size with which the program completes without overflow, or
        None when no size does (``never`` says why).
    peak_live
        Per rank, the most bytes of uncompleted entries the unbounded run held at once:
        no smaller buffer can pass (the lower bound).
    non_monotonic
        Inclusive ``[first, last]`` ranges of sizes above the answer that overflow again
        (possible with the circular allocator).
    runs
        How many runs the search made.
    rank
        The rank searched, or None (every rank at once).
    lower_bound
        The size the search started from (the largest ``peak_live`` of the ranks
        searched).
    upper
        The passing size the search started from above.
    exhaustive
        Whether every size between the bounds was tried.
    scenario
        The name of what was searched.
    notes
        Remarks on the search, in words (seeds that changed nothing...).
    holds_all
        Bytes of every entry of the run at once (a size that always passes with the
        circular and first-fit allocators), or None for a communicator buffer.
    searched
        What was searched, in words (the attach calls, or the run's ``buffer``).
    sites
        The attach calls whose size was replaced: place, rank and the size written.
    at_answer
        The verdict at ``min_buffer`` (a ``Probe``: ``size``, ``ok``, ``outcome``,
        ``detail``).
    below
        The verdict one byte below the answer.
    never
        Why no size passes, or None.
    never_outcome
        The outcome at every size when none passes (``"deadlock"``...), or None.
    gap
        Why the answer lies above the lower bound (fragmentation, the allocator's cost),
        or None.
    seeds
        The seeds passed with, or None (the run's own).
    wall_time
        Seconds the search took.
    as_written
        The verdict at the size the program attaches as written, or None.
    settings
        The settings in force, as ``Result.settings`` has them.
    workers
        How many sizes a round of the search ran at once (a cost, like ``runs``; the
        answer is the same on any number).
    """

    min_buffer: int | None
    peak_live: list[int]
    non_monotonic: list[list[int]]
    runs: int
    rank: int | None = None
    lower_bound: int = 0
    upper: int = 0
    exhaustive: bool = False
    scenario: str = ""
    notes: list[str] = field(default_factory=list)
    holds_all: int | None = None
    searched: str = ""
    sites: list[dict[str, Any]] = field(default_factory=list)
    at_answer: Probe | None = None
    below: Probe | None = None
    never: str | None = None
    never_outcome: str | None = None
    gap: str | None = None
    seeds: list[int] | None = None
    wall_time: float = 0.0
    as_written: Probe | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    """How many sizes a round of the search ran at once (a cost, like ``runs``; the answer
    is the same on any number)."""

    @property
    def exit_code(self) -> int:
        """0 with an answer; else the CLI code of the outcome at every size (3, 4, 5)."""
        if self.min_buffer is not None:
            return 0
        return {"deadlock": 3, "timeout": 5}.get(self.never_outcome or "", 4)

    def to_dict(self) -> dict[str, Any]:
        return {"min_buffer": self.min_buffer, "peak_live": list(self.peak_live),
                "non_monotonic": [list(r) for r in self.non_monotonic],
                "scenario": self.scenario, "rank": self.rank, "searched": self.searched,
                "attach_sites": list(self.sites),
                "at_answer": None if self.at_answer is None else self.at_answer.to_dict(),
                "below": None if self.below is None else self.below.to_dict(),
                "as_written": None if self.as_written is None else self.as_written.to_dict(),
                "never": self.never, "outcome": self.never_outcome or "completed",
                "bounds": {"lower": self.lower_bound, "upper": self.upper,
                           "holds_all": self.holds_all},
                "fragmentation": self.gap, "seeds": self.seeds, "runs": self.runs,
                "settings": {k: dict(v) for k, v in self.settings.items()},
                "exhaustive": self.exhaustive, "wall_time": round(self.wall_time, 3),
                "workers": self.workers, "notes": list(self.notes)}

    def report(self) -> str:
        """A readable account: the answer verified at it and the byte below, the bounds."""
        return "\n".join(report_lines(self))

    def __repr__(self) -> str:
        who = "every rank" if self.rank is None else f"rank {self.rank}"
        if self.min_buffer is None:
            return f"<MinBuffer {self.scenario}: none ({self.never_outcome}), {who}>"
        again = f", overflows again at {len(self.non_monotonic)} ranges" \
            if self.non_monotonic else ""
        return f"<MinBuffer {self.scenario}: {self.min_buffer} B for {who}{again}>"

    def _repr_html_(self) -> str:
        from ..report.display import min_buffer_html

        return min_buffer_html(self)


@dataclass
class MinBufferTable:
    """:func:`min_buffer_per_rank`: one answer per rank that buffers (others unbounded).

    Parameters
    ----------
    scenario
        The name of what was searched.
    answers
        One :class:`MinBuffer` per rank that attaches or bsends, by rank.
    skipped
        The ranks that neither attach nor bsend (not searched).
    never
        When the program does not complete even with unbounded buffers: that answer (its
        ``never`` says why), and ``answers`` is empty. Else None.
    wall_time
        Seconds the search took.
    """

    scenario: str
    answers: list[MinBuffer]
    skipped: list[int]
    never: MinBuffer | None = None
    wall_time: float = 0.0

    @property
    def exit_code(self) -> int:
        if self.never is not None:
            return self.never.exit_code
        return max((a.exit_code for a in self.answers), default=0)

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario,
                "per_rank": [a.to_dict() for a in self.answers],
                "not_buffering": self.skipped,
                "never": None if self.never is None else self.never.never,
                "runs": sum(a.runs for a in self.answers), "wall_time": round(self.wall_time, 3)}

    def __repr__(self) -> str:
        return (f"<MinBufferTable {self.scenario}: "
                f"{[(a.rank, a.min_buffer) for a in self.answers]}>")

    def _repr_html_(self) -> str:
        from ..report.display import min_buffer_table_html

        return min_buffer_table_html(self)

    def report(self) -> str:
        if self.never is not None:
            return self.never.report()
        lines = [f"{self.scenario}: min buffer per rank (each with the other ranks unbounded)",
                 "  rank  min buffer  peak live  at the byte below"]
        for a in self.answers:
            size = "-" if a.min_buffer is None else str(a.min_buffer)
            below = a.below.outcome if a.below is not None else "-"
            lines.append(f"  {a.rank:>4} {size:>11} {a.lower_bound:>10}  {below}")
            if a.non_monotonic:
                lines.append("        NOT monotonic: also overflows at "
                             + ", ".join(f"{x}..{y}" for x, y in a.non_monotonic) + " B")
        if self.skipped:
            lines.append(f"  ranks with no bsend and no attach: {_ranges(self.skipped)}")
        runs = sum(a.runs for a in self.answers)
        lines.append(f"  {runs} runs in {self.wall_time:.2f} s")
        return "\n".join(lines)




def explain_gap(found: Any) -> str | None:
    """Why the answer lies above the lower bound, or None when it does not."""
    answer, bound = found.min_buffer, found.lower_bound
    if answer is None or not bound or answer <= bound:
        return None
    cost = answer - bound
    below = found.below
    info = below.overflow if below is not None else None
    if not info:
        return f"{cost} B above the lower bound: at {answer - 1} B, {below.detail}" \
            if below is not None else None
    need, free, largest = info.get("requested", 0), info.get("free", 0), \
        info.get("largest_free", 0)
    held = sum(e.get("size", 0) for e in info.get("entries", []) if e.get("state") == "done")
    if free >= need > largest:
        why = (f"at {answer - 1} B an entry of {need} B found {free} B free but at most "
               f"{largest} B contiguous")
    elif held:
        why = (f"at {answer - 1} B completed entries still held {held} B behind an "
               "uncompleted one (3.6.1 reclaims from the head only)")
    else:
        return (f"{cost} B above the lower bound: the allocator in force charges entries "
                f"more than their nominal size (at {answer - 1} B an entry of {need} B "
                f"found {free} B free)")
    return f"fragmentation cost: {cost} B above the lower bound ({cost / bound:.1%}): {why}"


def report_lines(found: Any) -> list[str]:
    who = "every rank" if found.rank is None else f"rank {found.rank}"
    seeds = "" if not found.seeds else f", worst case over {_seed_text(found.seeds)}"
    if found.min_buffer is None:
        return [f"{found.scenario}: {found.never}",
                f"  searched: {found.searched}{seeds}",
                "  no attach size makes it complete: fix the program first "
                "(mpisim run shows the full report)", *_settings_lines(found),
                _cost(found)]
    others = "" if found.rank is None else ", the other ranks unbounded"
    lines = [f"{found.scenario}: min buffer {format_size(found.min_buffer)} (smallest attach "
             f"size with which {who} completes without overflow{others}{seeds})",
             f"  searched: {found.searched}"]
    if found.as_written is not None and (found.sites or not found.as_written.ok):
        lines.append(f"  as written: {_verdict(found.as_written)}")
    if found.at_answer is not None:
        lines.append(f"  at {found.min_buffer} B: {_verdict(found.at_answer)}")
    if found.below is not None:
        lines.append(f"  at {found.below.size} B: {_verdict(found.below)}")
    lines.append(f"  peak live bytes per rank (unbounded run, the lower bound): "
                 f"{_short(found.peak_live)}")
    if found.gap:
        lines.append(f"  {found.gap}")
    if found.non_monotonic:
        shown = ", ".join(f"{a}..{b}" for a, b in found.non_monotonic)
        lines.append(f"  NOT monotonic: these larger sizes overflow again: {shown} B")
    elif found.upper > found.min_buffer:
        how = "every size tried" if found.exhaustive else "sampled, edges exact"
        lines.append(f"  no larger size up to {found.upper} B overflows ({how})")
    if found.holds_all is not None:
        lines.append(f"  from {found.holds_all} B on, every entry of the run fits at once")
    lines += [f"  note: {n}" for n in found.notes]
    lines += _settings_lines(found)
    lines.append(_cost(found))
    return lines


def _cost(found: Any) -> str:
    on = f" on {found.workers} workers" if getattr(found, "workers", 1) > 1 else ""
    return f"  {found.runs} runs in {found.wall_time:.2f} s{on}"


def _settings_lines(found: Any) -> list[str]:
    if not found.settings:
        return []
    from ..report.text import settings_text

    return ["  settings in force: " + settings_text(found.settings)]


def _verdict(probe: Any) -> str:
    """A probe's verdict in one line (the overflow's entry list is left to the JSON)."""
    detail = probe.detail.split("; entries:")[0]
    return detail if probe.ok else f"{probe.outcome} — {detail}"


def _short(values: list[int]) -> str:
    if len(values) <= 16:
        return str(list(values))
    return "[" + ", ".join(map(str, values[:16])) + f", ... ({len(values)} ranks)]"


def _seed_text(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"seeds {seeds[0]}..{seeds[-1]}"
    return "seeds " + ", ".join(map(str, seeds[:8])) + (" ..." if len(seeds) > 8 else "")


def _ranges(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks[:16])) + (f" (+{len(ranks) - 16} more)"
                                               if len(ranks) > 16 else "")
