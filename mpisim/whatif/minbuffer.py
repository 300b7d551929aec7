"""The smallest attached buffer with no overflow, exact to the byte, without assuming
that overflow is monotonic in the buffer size.

A size *passes* when a run with ``buffer=size`` (every rank attaches that many bytes before
its program starts) has no overflow: no counted rank has ``buffer.overflows > 0`` (caught
overflows count too) and no counted rank's attach was refused with MPI_ERR_BUFFER (MPICH
refuses buffers smaller than MPI_BSEND_OVERHEAD). ``rank=R`` counts rank R's overflows
alone, but every rank attaches the same ``buffer``: when another rank's uncaught error ends
the run before R finishes, R's verdict is unknown and the size counts as failing. So the
answer is never too small: it is the smallest size with which R runs to its end without
an overflow.

How the answer is found:

1. **Bounds from one unbounded run.** The same scenario with ``mpi.allocator="unbounded"``
   never overflows. Buffer sizes do not change the timeline of a run without overflow (an
   allocator only decides whether a bsend fits), so every passing run holds at some moment
   the unbounded run's ``peak_live`` bytes of uncompleted entries: no size below it can pass.
   That per-rank peak is reported (``peak_live``): the gap between it and the answer is the
   fragmentation cost of the allocator. Its total bytes of entries per rank is enough for the
   circular allocator (the tail never reaches the end, so it never wraps) and for first-fit
   (each entry fits at or below the sum of the sizes allocated before it); the search checks
   that it passes and doubles it until one does if an allocator charges more than its
   nominal entry size. ``hi`` replaces this upper end; ``lo`` is the floor of the search.
2. **Binary search** between the lower bound (failing) and the upper end (passing) finds a
   size that passes while the byte below it fails.
3. **Verification.** With the circular allocator a larger buffer can overflow where a
   smaller one did not: an entry that fits after the tail in the larger buffer instead of
   wrapping to the start can later leave no contiguous room for a bigger one. So the range
   is *sampled* (``samples`` sizes spread evenly, in parallel on ``executor`` when given) and
   a window of sizes just above the answer is tried one by one. A passing sample below the
   answer restarts the binary search below it (the answer is the smallest passing size
   found); each failing sample above the answer is widened by binary search to the exact
   failing range around it, reported in ``non_monotonic`` as ``[first, last]`` (inclusive
   byte counts). When the range holds few sizes, every size is tried and all is exact.
   A failing range narrower than the sample spacing can be missed; raise ``samples`` to look
   closer.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..units import format_size
from .executors import map_chunks
from .target import Target

__all__ = ["INT_MAX", "MinBuffer", "min_buffer"]

INT_MAX = 2**31 - 1
"""The largest size MPI_Buffer_attach takes (its size argument is a C int)."""

WINDOW = 16
"""Sizes just above the answer tried one by one."""


@dataclass
class MinBuffer:
    """The answer of :func:`min_buffer`; ``to_dict()`` is the CLI's JSON."""

    min_buffer: int
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

    def to_dict(self) -> dict[str, Any]:
        return {"min_buffer": self.min_buffer, "peak_live": list(self.peak_live),
                "non_monotonic": [list(r) for r in self.non_monotonic]}

    def report(self) -> str:
        """A readable account: the answer, the lower bound, the non-monotonic ranges."""
        who = "every rank" if self.rank is None else f"rank {self.rank}"
        lines = [f"{self.scenario}: min buffer {format_size(self.min_buffer)} "
                 f"(smallest `buffer` with no overflow on {who})",
                 f"  peak live bytes per rank (unbounded run, the lower bound): "
                 f"{self.peak_live}"]
        cost = self.min_buffer - self.lower_bound
        if self.lower_bound and cost > 0:
            lines.append(f"  fragmentation cost: {cost} B above the lower bound "
                         f"({cost / self.lower_bound:.1%})")
        if self.non_monotonic:
            shown = ", ".join(f"{a}..{b}" for a, b in self.non_monotonic)
            lines.append(f"  NOT monotonic: these larger sizes overflow again: {shown} B")
        elif self.upper > self.min_buffer:
            how = "every size tried" if self.exhaustive else "sampled, edges exact"
            lines.append(f"  no larger size up to {self.upper} B overflows ({how})")
        if self.holds_all is not None:
            lines.append(f"  from {self.holds_all} B on, every entry of the run fits at once")
        lines += [f"  note: {n}" for n in self.notes]
        lines.append(f"  {self.runs} runs")
        return "\n".join(lines)


def min_buffer(scenario: Any, *, rank: int | None = None, lo: int = 0, hi: int | None = None,
               executor: Executor | None = None, samples: int = 64,
               **run_kwargs: Any) -> MinBuffer:
    """The smallest ``buffer`` (bytes every rank attaches) with no overflow.

    ``scenario``: a path, a loaded Scenario, or a program function with ``ranks=`` in
    ``run_kwargs``. ``rank``: count only this rank's overflows. ``lo``/``hi``: search in
    ``[lo, hi]`` (default: from the lower bound up to a size shown to pass). ``executor``:
    runs the samples in parallel. See the module docstring for the method.
    """
    _check_args(lo, hi, samples)
    run_kwargs.pop("trace", None)
    target = Target.of(scenario, run_kwargs)
    search = _Search(target, rank, executor)
    peak_live, totals = search.unbounded()
    if rank is not None and not 0 <= rank < len(peak_live):
        raise ValueError(f"rank {rank}: the scenario has ranks 0..{len(peak_live) - 1}")
    counted = range(len(peak_live)) if rank is None else [rank]
    bound = max(peak_live[r] for r in counted)
    upper = search.upper(max(lo, bound), hi, max(totals[r] for r in counted))
    lower = max(lo, min(bound, upper))
    notes: list[str] = []
    if lower > lo and search.passes(lower - 1):
        notes.append(f"a size below the unbounded run's peak ({bound} B) passed; searched "
                     f"from {lo} B instead")
        lower = lo
    exhaustive = upper - lower < 4 * samples
    if exhaustive:
        search.batch(range(lower, upper + 1))
        answer = search.smallest_pass(lower)
    else:
        answer = search.lowest(lower, upper, samples)
        search.batch(_spread(answer + 1, upper, samples) + list(range(answer + 1,
                                                                      answer + 1 + WINDOW)))
    ranges = search.failing_ranges(answer, upper)
    holds_all = max(totals[r] for r in counted)
    return MinBuffer(answer, peak_live, ranges, search.runs, rank, bound, upper, exhaustive,
                     target.name, notes, holds_all)


def _check_args(lo: int, hi: int | None, samples: int) -> None:
    for name, v in (("lo", lo), ("hi", hi), ("samples", samples)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | np.integer)):
            raise ValueError(f"{name}: expected a whole number of bytes, got {v!r}")
    if lo < 0:
        raise ValueError(f"lo: must be at least 0, got {lo}")
    if hi is not None and not lo <= hi <= INT_MAX:
        raise ValueError(f"hi: must lie in lo..{INT_MAX} (lo = {lo}), got {hi}")
    if samples < 1:
        raise ValueError(f"samples: must be at least 1, got {samples}")


class _Search:
    """Memoised pass/fail answers for buffer sizes, and the searches over them."""

    def __init__(self, target: Target, rank: int | None, executor: Executor | None) -> None:
        self.target = target
        self.rank = rank
        self.executor = executor
        self.known: dict[int, bool] = {}
        self.why: dict[int, str] = {}
        self.runs = 0

    # -- running -------------------------------------------------------------------------
    def unbounded(self) -> tuple[list[int], list[int]]:
        """Peak live bytes and total bytes of entries per rank, from an unbounded run."""
        result = self.target.run({"mpi.allocator": "unbounded", "buffer": INT_MAX}, trace=True)
        self.runs += 1
        _refuse_own_attach(result)
        n = len(result.ranks)
        entries = result.trace.entries
        totals = np.bincount(entries["rank"], weights=entries["size"], minlength=n) \
            if len(entries) else np.zeros(n)
        return [int(r.buffer.peak_live) for r in result.ranks], [int(t) for t in totals[:n]]

    def passes(self, size: int) -> bool:
        if size not in self.known:
            ok, why = _probe(self.target, self.rank, size)
            self._learn(size, ok, why)
        return self.known[size]

    def batch(self, sizes: Sequence[int] | range) -> None:
        """Try many sizes at once (in parallel on the executor when there is one)."""
        todo = sorted({int(s) for s in sizes if s not in self.known and 0 <= s <= INT_MAX})
        if not todo:
            return
        answers = map_chunks(_probe_chunk, (self.target, self.rank), todo,
                             executor=self.executor, jobs=None if self.executor else 1,
                             progress=False)
        for size, (ok, why) in zip(todo, answers, strict=True):
            self._learn(size, ok, why)

    def _learn(self, size: int, ok: bool, why: str) -> None:
        self.known[size] = ok
        if not ok:
            self.why[size] = why
        self.runs += 1

    # -- searching -----------------------------------------------------------------------
    def upper(self, start: int, hi: int | None, total: int) -> int:
        """A size that passes: ``hi``, or the total entry bytes grown until one passes."""
        if hi is not None:
            if not self.passes(hi):
                raise ValueError(f"hi = {hi} B still overflows ({self.why[hi]}); "
                                 "no size in lo..hi works")
            return hi
        size = max(start, total)
        while not self.passes(size):
            if size >= INT_MAX:
                raise ValueError(f"no buffer size up to {INT_MAX} B (the most "
                                 f"MPI_Buffer_attach takes) avoids overflow: {self.why[size]}")
            size = min(INT_MAX, max(2 * size, size + 1))
        return size

    def boundary(self, fail: int, ok: int) -> int:
        """Binary search: a size that passes with the one below it failing, in (fail, ok]."""
        while ok - fail > 1:
            mid = (fail + ok) // 2
            if self.passes(mid):
                ok = mid
            else:
                fail = mid
        return ok

    def lowest(self, lower: int, upper: int, samples: int) -> int:
        """The smallest passing size found: binary search, then samples below it."""
        if self.passes(lower):
            return lower
        answer = self.boundary(lower, upper)
        while True:
            self.batch(_spread(lower + 1, answer - 1, samples))
            below = [s for s in self.known if lower < s < answer and self.known[s]]
            if not below:
                return answer
            first = min(below)
            fail = max(s for s in self.known if s < first and not self.known[s])
            answer = self.boundary(fail, first)

    def smallest_pass(self, lower: int) -> int:
        return min(s for s, ok in self.known.items() if ok and s >= lower)

    def failing_ranges(self, answer: int, upper: int) -> list[list[int]]:
        """Exact [first, last] failing ranges above the answer around each failing size."""
        ranges: list[list[int]] = []
        points = sorted(s for s in self.known if answer <= s <= upper)
        i = 0
        while i < len(points):
            if self.known[points[i]]:
                i += 1
                continue
            j = i
            while j + 1 < len(points) and not self.known[points[j + 1]]:
                j += 1
            first = self.boundary_fail(points[i - 1], points[i])
            last = self.boundary_pass(points[j], points[j + 1]) - 1
            ranges.append([first, last])
            points = sorted(s for s in self.known if answer <= s <= upper)
            i = points.index(last + 1)
        return ranges

    def boundary_fail(self, ok: int, fail: int) -> int:
        """In (ok, fail]: a failing size whose lower neighbour passes."""
        while fail - ok > 1:
            mid = (ok + fail) // 2
            if self.passes(mid):
                ok = mid
            else:
                fail = mid
        return fail

    def boundary_pass(self, fail: int, ok: int) -> int:
        return self.boundary(fail, ok)


def _refuse_own_attach(result: Any) -> None:
    """A program that attaches its own buffer cannot have ``buffer`` varied (3.6: one buffer
    per process; a second attach is MPI_ERR_BUFFER): say so instead of answering nonsense."""
    err = result.error
    if err is None or err.error_class != "MPI_ERR_BUFFER" or err.call != "MPI_Buffer_attach":
        return
    where = f" at {err.where}" if getattr(err, "where", None) else ""
    raise ValueError(f"rank {err.rank} attaches a buffer of its own{where}, so the attach "
                     "size `buffer` that min-buffer varies cannot be used (one buffer per "
                     "process, 3.6); set `buffer:` instead of the program's buffer_attach, or "
                     "sweep the param that sizes it")


def _probe(target: Target, rank: int | None, size: int) -> tuple[bool, str]:
    """Run at ``buffer=size``: (no overflow on the counted ranks, why not)."""
    result = target.run({"buffer": size}, trace=False)
    ranks = result.ranks if rank is None else [result.ranks[rank]]
    for r in ranks:
        if r.buffer.overflows:
            return False, f"rank {r.rank}: {r.buffer.overflows} overflow(s)"
    err = result.error
    if err is not None and err.error_class == "MPI_ERR_BUFFER" and \
            (rank is None or err.rank == rank):
        return False, f"rank {err.rank}, {err.call}: {err.message}"
    if rank is not None and err is not None and err.rank != rank and \
            not result.ranks[rank].finished:
        return False, (f"rank {err.rank}'s {err.error_class} in {err.call} ended the run "
                       f"before rank {rank} finished")
    return True, ""


def _probe_chunk(job: tuple[Target, int | None], sizes: Sequence[int]
                 ) -> list[tuple[bool, str]]:
    target, rank = job
    return [_probe(target, rank, s) for s in sizes]


def _spread(first: int, last: int, count: int) -> list[int]:
    """About ``count`` sizes spread evenly over [first, last], both ends included."""
    if last < first:
        return []
    if last - first + 1 <= count:
        return list(range(first, last + 1))
    return sorted({round(float(x)) for x in np.linspace(first, last, count)})
