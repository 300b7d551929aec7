"""The smallest attached buffer with which a program completes without overflow, exact to
the byte, verified, and without assuming that overflow is monotonic in the buffer size.

**What is searched.** The size the program's own ``buffer_attach`` calls ask for (the YAML op
and the Python call alike; every such call of a searched rank gets the probed size), or, for
a program that never attaches, the scenario key ``buffer`` (the attach every rank makes
before its program starts). The answer names the attach calls it replaced. ``rank=R``
searches rank R's size while every other rank attaches INT_MAX bytes (unbounded for any
real program), so no other rank's overflow can cut R's verdict short;
:func:`min_buffer_per_rank` does that for every rank that buffers, as a table.

**What passes.** A size passes when the run *completes* and no searched rank overflowed
(:mod:`mpisim.whatif.probe`); with ``seeds`` it must pass with each seed (network jitter is
seeded, so overflow can depend on timing: the answer is the worst case over the seeds).

**How.**

1. *One unbounded run* (allocator ``unbounded``, every attach INT_MAX bytes; one per seed)
   gives the reference: a program that does not complete there (a deadlock, a truncation,
   an erroneous ready send) does not complete at any size, and the answer says so instead of
   giving a number (``min_buffer`` is None, ``never`` says why). It also gives the lower
   bound: buffer sizes do not change the timeline of a run without overflow, so a passing
   run holds the unbounded run's ``peak_live`` bytes of uncompleted entries at some moment.
   Its total bytes of entries per rank is enough for the circular and first-fit allocators
   (nothing wraps), doubled until a size passes for allocators that charge more.
2. *Binary search* between the lower bound and that passing size.
3. *Verification.* With the circular allocator a larger buffer can overflow where a smaller
   one did not (an entry placed after the tail instead of wrapping can later leave no
   contiguous room), so the range is *sampled* (``samples`` sizes, in parallel on
   the workers) and a window above the answer is tried byte by byte. A passing sample below
   the answer restarts the search below it; each failing sample above is widened to its
   exact failing range, reported in ``non_monotonic`` as inclusive ``[first, last]``. Few
   sizes: every one is tried. The answer and the byte below it are always run, and both
   verdicts are reported (``at_answer``, ``below``).

**On k workers** (``jobs``, ``executor``: :class:`~mpisim.whatif.executors.Workers`) the
search asks in rounds of k sizes: the next levels of its bisection (a (k+1)-ary search when
k is 2**d - 1), its first sizes together (the upper size, the byte below the lower bound, the
lower bound), its samples and window as one batch. Verdicts of sizes run ahead that the
one-at-a-time search would not have asked for are set aside, never used, so the answer is
the binary search's whatever the number of workers (:class:`_Search`).

Probes reuse what they can: verdicts are memoised by size, the lower bound comes from the
one unbounded run, and a probe stops at its first overflow on a searched rank even when the
program catches it (the verdict is known). ``wall_time`` is the seconds the search took.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .attach import KEEP
from .executors import Workers
from .minreport import MinBuffer, MinBufferTable, explain_gap
from .probe import INT_MAX, Probe, Prober, describe_failure, judge, probe_chunk
from .target import Target

__all__ = ["INT_MAX", "MinBuffer", "MinBufferTable", "min_buffer", "min_buffer_per_rank"]

WINDOW = 16
"""Sizes just above the answer tried one by one."""

_VERBS = {"deadlock": "deadlocks", "error": "ends in an error", "timeout": "does not end"}


def min_buffer(scenario: Any, *, rank: int | None = None, lo: int = 0, hi: int | None = None,
               executor: Executor | None = None, jobs: int | None = None, samples: int = 64,
               seeds: Iterable[int] | None = None, buffer: str | None = None,
               **run_kwargs: Any) -> MinBuffer:
    """The smallest attach size with which the program completes without overflow.

    What is searched is the size the program's own ``buffer_attach`` calls ask for (every
    such call gets the size tried), or, for a program that never attaches, the run's
    ``buffer``. The answer is exact to the byte and verified: the run at the answer
    completes, the run one byte below does not (both are in the answer). A program that
    does not complete even with unbounded buffers gets no number but the reason
    (``never``). The docstring of ``mpisim.whatif.minbuffer`` describes the method.

    Parameters
    ----------
    scenario
        What to run: a scenario file's path, a loaded ``mpisim.scenario.Scenario``, or a
        rank program function (then ``run_kwargs`` carry ``ranks=``).
    rank
        Search only this rank's size, every other rank attaching INT_MAX bytes (so no
        other rank's overflow cuts its verdict short). Default: None, one size for every
        rank.
    lo
        Smallest size tried, in bytes (default 0).
    hi
        Largest size tried, in bytes. Default: None, found by the search (the bytes of
        every entry of the run, doubled until a size passes).
    executor
        Runs several sizes at once on any ``concurrent.futures.Executor`` (a Dask
        cluster's included); the answer is the same. Default: None, a local pool of
        ``jobs`` workers.
    jobs
        Workers of the local pool. Default: None, the machine's cores; ``1`` runs every
        size in this process.
    samples
        Sizes sampled above the answer to verify it, since with the circular allocator a
        larger buffer can overflow where a smaller one did not (default 64).
    seeds
        Seeds to pass with: the answer is the worst case over them (network ``jitter``
        makes overflow depend on timing). Default: None, the run's own seed.
    buffer
        ``"comm:NAME"`` searches the size of the communicator buffer the program attaches
        to NAME (its scenario name, ``as:``, or MPI's name for it) instead of the process
        buffer (MPI 4.1 §3.6). Default: None, the process buffer.
    **run_kwargs
        The arguments of each run, as :func:`mpisim.run` takes them (``ranks``,
        ``network``, ``mpi``, ``params``, ``until``...); with a scenario, they override its
        settings.

    Returns
    -------
    MinBuffer
        ``min_buffer`` (bytes, or None with the reason in ``never``), the verdicts at the
        answer and one byte below, the attach calls searched, ``report()`` in words.

    Raises
    ------
    ValueError
        ``lo``, ``hi``, ``samples``, ``rank`` or ``buffer`` not valid (the message says
        which).

    Examples
    --------
    Three buffered sends of 400 bytes before their receives need three entries of
    400 + MPI_BSEND_OVERHEAD (96) bytes:

    >>> import mpisim as ms
    >>> def program(mpi, count=100):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.buffer_attach(size=1)  # the size is what is searched
    ...     for tag in range(3):
    ...         yield mpi.bsend(count=count, datatype=ms.INT, dest=peer, tag=tag)
    ...     for tag in range(3):
    ...         yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=tag)
    >>> answer = ms.min_buffer(program, ranks=2, jobs=1)
    >>> answer.min_buffer
    1488
    >>> answer.at_answer.outcome, answer.below.outcome
    ('completed', 'error')
    """
    start = time.perf_counter()
    _check_args(lo, hi, samples)
    with Workers(executor, jobs) as workers:
        plan = _Plan.make(scenario, run_kwargs, seeds, _buffer_name(buffer), workers)
        if rank is not None and not 0 <= rank < plan.ranks:
            raise ValueError(f"rank {rank}: the scenario has ranks 0..{plan.ranks - 1}")
        found = plan.answer(rank, lo, hi, samples, workers)
    found.wall_time = time.perf_counter() - start
    return found


def min_buffer_per_rank(scenario: Any, *, executor: Executor | None = None,
                        jobs: int | None = None, samples: int = 64,
                        seeds: Iterable[int] | None = None, buffer: str | None = None,
                        **run_kwargs: Any) -> MinBufferTable:
    """:func:`min_buffer` for each rank that attaches or bsends, the others unbounded.

    Parameters
    ----------
    scenario
        What to run: a scenario file's path, a loaded ``mpisim.scenario.Scenario``, or a
        rank program function (then ``run_kwargs`` carry ``ranks=``).
    executor
        Runs several sizes at once on any ``concurrent.futures.Executor``. Default: None,
        a local pool of ``jobs`` workers.
    jobs
        Workers of the local pool. Default: None, the machine's cores; ``1`` runs in this
        process.
    samples
        Sizes sampled above each answer to verify it (default 64).
    seeds
        Seeds to pass with (the worst case over them). Default: None, the run's own seed.
    buffer
        ``"comm:NAME"``: search the communicator buffer the program attaches to NAME
        instead of the process buffer. Default: None, the process buffer.
    **run_kwargs
        The arguments of each run, as :func:`mpisim.run` takes them; with a scenario,
        they override its settings.

    Returns
    -------
    MinBufferTable
        One :class:`mpisim.whatif.MinBuffer` per rank that buffers (``answers``), the ranks skipped,
        ``report()`` as a table.
    """
    start = time.perf_counter()
    _check_args(0, None, samples)
    with Workers(executor, jobs) as workers:
        plan = _Plan.make(scenario, run_kwargs, seeds, _buffer_name(buffer), workers)
        if plan.never is not None:
            never = plan.answer(None, 0, None, samples, workers)
            return MinBufferTable(plan.name, [], [], never, time.perf_counter() - start)
        buffering = plan.buffering()
        answers = [plan.answer(r, 0, None, samples, workers) for r in buffering]
    skipped = [r for r in range(plan.ranks) if r not in buffering]
    return MinBufferTable(plan.name, answers, skipped, None, time.perf_counter() - start)


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


@dataclass
class _Plan:
    """What the unbounded run(s) told: the attach sites, the bounds, the reference outcome."""

    name: str
    target: Target
    program: Any
    ranks: int
    implicit: bool
    seeds: tuple[int, ...] | None
    sites: list[dict[str, Any]]
    peak_live: list[int]
    totals: list[int]
    never: str | None
    never_outcome: str | None
    runs: int
    as_written: Probe
    settings: dict[str, Any]
    same_runs: bool = False
    buffer: str | None = None   # "comm NAME" (a communicator's buffer), None: the process's

    @classmethod
    def make(cls, scenario: Any, run_kwargs: dict[str, Any], seeds: Iterable[int] | None,
             buffer: str | None = None, workers: Workers | None = None) -> _Plan:
        start = time.perf_counter()
        run_kwargs = dict(run_kwargs)
        run_kwargs.pop("trace", None)
        target = Target.of(scenario, run_kwargs)
        kwargs = target.run_kwargs({})
        program, ranks = kwargs["program"], kwargs["ranks"]
        seed_list = None if seeds is None else tuple(_seeds(seeds))
        prober = Prober(target, program, ranks, None, implicit=False, buffer=buffer)
        written, wrapper = prober.run([KEEP] * ranks, record=True, trace=False)
        sites = [{"rank": s.rank, "where": s.where, "requested": s.requested}
                 for s in wrapper.sites]
        as_written = judge(written, None, -1)
        settings = dict(getattr(written, "settings", {}))
        runs, results = 1, []
        implicit = not sites
        prober.implicit = implicit
        for seed in seed_list or (None,):
            results.append(prober.run([INT_MAX] * ranks, seed=seed, trace=True,
                                      mpi=_unbounded(kwargs.get("mpi")))[0])
            runs += 1
        if buffer is not None and not any(buffer in res.ranks[r].buffers for res in results
                                          for r in range(ranks)):
            raise ValueError(f"--buffer comm:{buffer.removeprefix('comm ')}: the program "
                             "neither attaches a buffer to that communicator nor names one "
                             "so (comm_set_name, or as: in a scenario)")
        peak = [max(_peak_live(res.ranks[r], buffer) for res in results) for r in range(ranks)]
        totals = [max(t) for t in zip(*(_entry_totals(res, ranks) for res in results),
                                      strict=True)] if buffer is None else [0] * ranks
        never, outcome = None, None
        for seed, res in zip(seed_list or (None,), results, strict=True):
            if res.outcome.value != "completed":
                with_seed = f" (seed {seed})" if seed is not None and len(results) > 1 else ""
                never = f"{_VERBS[res.outcome.value]} whatever the buffer{with_seed}: " \
                        f"{describe_failure(res)}"
                outcome = res.outcome.value
                break
        same = len(results) > 1 and len({(r.sim_time, r.messages["sent"]) for r in results}) == 1
        if workers is not None:  # runs made here: they tell whether workers are worth it
            workers.spent += time.perf_counter() - start
        return cls(target.name, target, program, ranks, implicit, seed_list, sites, peak,
                   totals, never, outcome, runs, as_written, settings, same, buffer)

    def buffering(self) -> list[int]:
        """Ranks worth a per-rank answer: they attach (their own attach) or hold entries."""
        if not self.implicit:
            return sorted({s["rank"] for s in self.sites})
        return [r for r in range(self.ranks) if self.totals[r] > 0]

    def searched(self, rank: int | None) -> str:
        who = "every rank" if rank is None else f"rank {rank}"
        if self.implicit and self.buffer is not None:
            name = self.buffer.removeprefix("comm ")
            return (f"`buffer: {{comm: {name}, size}}` (attached to communicator {name} when "
                    f"the program names it, on {who})")
        if self.implicit:
            return f"`buffer` (the attach {who} makes before its program starts)"
        sites = [s for s in self.sites if rank is None or s["rank"] == rank]
        places: dict[str, list[Any]] = {}
        for s in sites:
            places.setdefault(s["where"], []).append(s["requested"])
        call = "buffer_attach" if self.buffer is None else \
            f"comm_attach_buffer to {self.buffer.removeprefix('comm ')}"
        shown = "; ".join(f"{call} at {w} (asks for {_asked(v)})"
                          for w, v in list(places.items())[:4])
        more = f"; +{len(places) - 4} more" if len(places) > 4 else ""
        if not sites:
            return f"{who}'s buffer_attach (it makes none)"
        return f"the size of {shown}{more}, on {who}"

    def answer(self, rank: int | None, lo: int, hi: int | None, samples: int,
               workers: Workers) -> MinBuffer:
        base = MinBuffer(None, self.peak_live, [], self.runs, rank, scenario=self.name,
                         searched=self.searched(rank), sites=self.sites,
                         seeds=None if self.seeds is None else list(self.seeds),
                         as_written=self.as_written, settings=self.settings)
        if self.never is not None:
            base.never, base.never_outcome = self.never, self.never_outcome
            return base
        if rank is not None and self.implicit and self.buffer is not None:
            raise ValueError("--rank: the size of `buffer: {comm: ...}` is the same on every "
                             "rank; search all ranks, or attach per rank in the program")
        prober = Prober(self.target, self.program, self.ranks, rank, self.implicit, self.seeds,
                        buffer=self.buffer)
        search = _Search(prober, workers)
        counted = range(self.ranks) if rank is None else [rank]
        bound = max(self.peak_live[r] for r in counted)
        holds_all = max(self.totals[r] for r in counted)
        search.prefetch(_opening(lo, hi, bound, holds_all, samples, workers.width), whole=True)
        upper = search.upper(max(lo, bound), hi, holds_all)
        if upper is None:
            why = search.known[max(search.known)]
            base.never = f"overflows whatever the buffer, up to {INT_MAX} B: {why.detail}"
            base.never_outcome, base.runs = why.outcome, self.runs + search.runs
            return base
        lower = max(lo, min(bound, upper))
        notes: list[str] = []
        if self.same_runs:
            notes.append("every seed gave the same unbounded run: without network jitter "
                         "(--set network.jitter=...) the seeds change nothing")
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
            search.batch(_spread(answer + 1, upper, samples)
                         + list(range(answer + 1, answer + 1 + WINDOW)), ahead=[answer - 1])
        ranges = search.failing_ranges(answer, upper)
        below = search.verdict(answer - 1) if answer > 0 else None
        found = MinBuffer(answer, self.peak_live, ranges, self.runs + search.runs, rank, bound,
                          upper, exhaustive, self.name, notes,
                          holds_all if self.buffer is None else None, base.searched,
                          self.sites, search.verdict(answer), below, seeds=base.seeds)
        found.gap, found.as_written = explain_gap(found), self.as_written
        found.workers = workers.width
        found.settings = self.settings
        return found


class _Search:
    """Memoised verdicts by buffer size, and the searches over them.

    ``known`` holds the verdicts the answer rests on: exactly those a search trying one size
    at a time asks for, whatever the workers, so the answer is the same on 1 or 100 of them.
    With several workers a round also runs the sizes the search will probably ask next (the
    next levels of a bisection: a (k+1)-ary search on k workers; the first sizes of a
    search); their verdicts wait in ``ahead`` and join ``known`` only when asked for.
    """

    def __init__(self, prober: Prober, workers: Workers) -> None:
        self.prober = prober
        self.workers = workers
        self.known: dict[int, Probe] = {}
        self.ahead: dict[int, Probe] = {}
        self.runs = 0

    def verdict(self, size: int) -> Probe:
        if size not in self.known:
            if size not in self.ahead:
                self._run([size])
            self.known[size] = self.ahead.pop(size)
        return self.known[size]

    def passes(self, size: int) -> bool:
        return self.verdict(size).ok

    def batch(self, sizes: Sequence[int] | range, ahead: Sequence[int] = ()) -> None:
        """Try many sizes at once (on the workers), with ``ahead``: sizes probably asked for
        next, run in the same round."""
        todo = [s for s in dict.fromkeys(int(s) for s in sizes)
                if 0 <= s <= INT_MAX and s not in self.known]
        fresh = [s for s in todo if s not in self.ahead]
        self._run(fresh + [s for s in self._new(ahead) if s not in fresh])
        for size in todo:
            self.known[size] = self.ahead.pop(size)

    def prefetch(self, sizes: Sequence[int], whole: bool = False) -> None:
        """Run the first of ``sizes`` not yet run, as many as there are workers (``whole``:
        all of them), when there are several workers; a search asks for them later."""
        width = self.workers.width
        if width > 1:
            todo = self._new(sizes)
            self._run(todo if whole else todo[:width])

    def _new(self, sizes: Iterable[int]) -> list[int]:
        """Sizes in range never run, in the order given, once each."""
        return [s for s in dict.fromkeys(int(s) for s in sizes)
                if 0 <= s <= INT_MAX and s not in self.known and s not in self.ahead]

    def _run(self, sizes: Sequence[int]) -> None:
        if not sizes:
            return
        for probe in self.workers.map(probe_chunk, self.prober, sizes):
            self.ahead[probe.size] = probe
        self.runs += len(sizes) * len(self.prober.seeds or (None,))

    def upper(self, start: int, hi: int | None, total: int) -> int | None:
        """A size that passes: ``hi``, or the total entry bytes grown until one passes."""
        if hi is not None:
            if not self.passes(hi):
                raise ValueError(f"hi = {hi} B still overflows ({self.known[hi].detail}); "
                                 "no size in lo..hi works")
            return hi
        size = max(start, total)
        while not self.passes(size):
            if size >= INT_MAX:
                return None
            size = min(INT_MAX, max(2 * size, size + 1))
        return size

    def boundary(self, fail: int, ok: int) -> int:
        """A size that passes with the one below it failing, in (fail, ok]."""
        return self.bisect(fail, ok, True)

    def bisect(self, a: int, b: int, verdict: bool) -> int:
        """Binary search in (a, b] for a size whose verdict is ``verdict`` (b's) with the
        size below it the other way (a's). With k workers each round runs the next levels of
        the bisection at once (k+1 equal parts when k is 2**d - 1): the same steps, fewer
        rounds."""
        while b - a > 1:
            mid = (a + b) // 2
            if mid not in self.known and mid not in self.ahead:
                self.prefetch(_levels(a, b, self.workers.width))
            if self.passes(mid) == verdict:
                b = mid
            else:
                a = mid
        return b

    def lowest(self, lower: int, upper: int, samples: int) -> int:
        """The smallest passing size found: binary search, then samples below it."""
        if self.passes(lower):
            return lower
        answer = self.boundary(lower, upper)
        while True:
            self.batch(_spread(lower + 1, answer - 1, samples))
            below = [s for s, p in self.known.items() if lower < s < answer and p.ok]
            if not below:
                return answer
            first = min(below)
            fail = max(s for s, p in self.known.items() if s < first and not p.ok)
            answer = self.boundary(fail, first)

    def smallest_pass(self, lower: int) -> int:
        return min(s for s, p in self.known.items() if p.ok and s >= lower)

    def failing_ranges(self, answer: int, upper: int) -> list[list[int]]:
        """Exact [first, last] failing ranges above the answer around each failing size."""
        ranges: list[list[int]] = []
        points = sorted(s for s in self.known if answer <= s <= upper)
        i = 0
        while i < len(points):
            if self.known[points[i]].ok:
                i += 1
                continue
            j = i
            while j + 1 < len(points) and not self.known[points[j + 1]].ok:
                j += 1
            first = self.boundary_fail(points[i - 1], points[i])
            last = self.boundary(points[j], points[j + 1]) - 1
            ranges.append([first, last])
            points = sorted(s for s in self.known if answer <= s <= upper)
            i = points.index(last + 1)
        return ranges

    def boundary_fail(self, ok: int, fail: int) -> int:
        """In (ok, fail]: a failing size whose lower neighbour passes."""
        return self.bisect(ok, fail, False)


def _opening(lo: int, hi: int | None, bound: int, total: int, samples: int,
             width: int) -> list[int]:
    """The sizes a search asks for first when the first upper size it tries passes (the
    usual case): that size, the byte below the lower bound, then every size between them
    when there are few, else the lower bound and the first levels of the bisection."""
    upper = hi if hi is not None else max(lo, bound, total)
    lower = max(lo, min(bound, upper))
    sizes = [upper, *([lower - 1] if lower > lo else [])]
    if upper - lower < 4 * samples:
        return sizes + list(range(lower, upper + 1))
    return sizes + [lower, *_levels(lower, upper, width)][:max(0, width - len(sizes))]


def _levels(a: int, b: int, count: int) -> list[int]:
    """The first ``count`` sizes a bisection of (a, b) may try, level by level (its middle,
    then the middles of both halves...)."""
    out: list[int] = []
    todo = deque([(a, b)])
    while todo and len(out) < count:
        x, y = todo.popleft()
        if y - x > 1:
            mid = (x + y) // 2
            out.append(mid)
            todo += [(x, mid), (mid, y)]
    return out


def _unbounded(mpi: Any) -> dict[str, Any]:
    from .target import _settings

    return _settings(mpi) | {"allocator": "unbounded"}


def _buffer_name(buffer: str | None) -> str | None:
    """"comm:NAME" as the buffer's name in summaries ("comm NAME"); None: the process's."""
    if buffer is None or buffer == "process":
        return None
    kind, _, name = str(buffer).partition(":")
    if kind != "comm" or not name:
        raise ValueError(f"buffer: expected process or comm:NAME, got {buffer!r}")
    return f"comm {name}"


def _peak_live(rank: Any, buffer: str | None) -> int:
    if buffer is None:
        return int(rank.buffer.peak_live)
    found = rank.buffers.get(buffer)
    return 0 if found is None else int(found.peak_live)


def _entry_totals(result: Any, ranks: int) -> list[int]:
    entries = result.trace.entries
    if not len(entries):
        return [0] * ranks
    totals = np.bincount(entries["rank"], weights=entries["size"], minlength=ranks)
    return [int(t) for t in totals[:ranks]]


def _seeds(seeds: Iterable[int]) -> list[int]:
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int | np.integer):
            raise ValueError(f"seeds: expected whole numbers, got {s!r}")
        out.append(int(s))
    if not out:
        raise ValueError("seeds: give at least one seed")
    return out


def _asked(values: list[Any]) -> str:
    distinct = list(dict.fromkeys(values))
    shown = ", ".join(f"{v} B" if isinstance(v, int) else repr(v) for v in distinct[:3])
    return shown + (" ..." if len(distinct) > 3 else "")


def _spread(first: int, last: int, count: int) -> list[int]:
    """About ``count`` sizes spread evenly over [first, last], both ends included."""
    if last < first:
        return []
    if last - first + 1 <= count:
        return list(range(first, last + 1))
    return sorted({round(float(x)) for x in np.linspace(first, last, count)})
