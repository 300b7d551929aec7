"""What a run will cost, said before it is paid: memory before the run is built, wall time
as soon as the first events have run.

Memory. A run holds about ``RANK_BYTES`` per rank (``RANK_BYTES_NO_TRACE`` with
``trace=False``) and its trace ``MESSAGE_TRACE_BYTES`` per message recorded (the trace stops
after the first ``TRACE_EVENTS`` events, so that part is bounded). :func:`check_memory` refuses
a run whose ranks alone need more than the memory available (``MemAvailable``, or the
container's limit, or ``MPISIM_MEMORY``), with the estimate and the settings to change, before
anything is allocated: ``ranks=10**9`` is a one-line error, not a MemoryError after minutes.

Wall time. :class:`Forecast` watches a run's first events; when the run's own bound (its
``max_events``, the default event guard, or ``until`` in simulated time) puts its end more
than ``LONG_RUN`` seconds of wall time away, it says so once, on stderr, with the estimate and
how to bound the run, then prints a progress line every ``EVERY`` seconds. Ctrl-C ends such a
run as any other (the caller sees KeyboardInterrupt).

A run whose work is known (:class:`Work`: a replay's recorded calls) is forecast by that work
instead: the units done so far against the total say how long it will take, not how long it
could go on to its bound (which still stops it). Such a forecast is an estimate of the end,
not an upper bound, so it is said once the run looks longer than ``LONG_KNOWN`` seconds, and
the progress lines say how far through the work it is.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from ..values.readers import SettingError
from ..values.units import SIZE_SCALES, UnitError, format_time, parse_size

__all__ = ["EVERY", "LONG_KNOWN", "LONG_RUN", "MESSAGE_TRACE_BYTES", "MIN_WATCH", "RANK_BYTES",
           "RANK_BYTES_NO_TRACE", "Forecast", "WallClockLimit", "Work", "available_memory",
           "check_memory", "memory_needed", "wall_clock_limit"]

RANK_BYTES = math.ceil(7.2 * 1024)
"""Memory one rank holds over a run with the trace on (measured, rounded up)."""
RANK_BYTES_NO_TRACE = math.ceil(3.8 * 1024)
"""Memory one rank holds with ``trace=False``."""
MESSAGE_TRACE_BYTES = 214
"""Trace memory per message recorded."""
LONG_RUN = 120.0
"""Wall seconds beyond which a run says, at its start, how long it may take."""
LONG_KNOWN = 30.0
"""The same for a run whose work is known (:class:`Work`): its forecast is the run's likely
length, not an upper bound, so it is worth saying for a shorter run (one progress line)."""
EVERY = 30.0
"""Wall seconds between the progress lines of a long run."""
MIN_WATCH = 1.0
"""Wall seconds a run is watched before its length is forecast (its pace settles)."""


def memory_needed(ranks: int, trace: bool = True) -> int:
    """Bytes a run of ``ranks`` ranks needs before its first message (an estimate)."""
    return ranks * (RANK_BYTES if trace else RANK_BYTES_NO_TRACE)


def available_memory() -> int | None:
    """Bytes this process may still use: ``MPISIM_MEMORY`` if set, else the smaller of the
    system's available memory and the container's limit; None when unknown."""
    given = os.environ.get("MPISIM_MEMORY")
    if given:
        try:
            return parse_size(given)
        except UnitError as e:
            raise SettingError("MPISIM_MEMORY", str(e)) from None
    found = [n for n in (_meminfo(), _cgroup()) if n is not None]
    return min(found) if found else None


def _meminfo() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
    except (OSError, ValueError):
        return None
    return None if limit == "max" else max(0, int(limit) - used)


def check_memory(ranks: int, trace: bool = True) -> None:
    """SettingError naming ``ranks`` when the run cannot fit in the memory available."""
    need = memory_needed(ranks, trace)
    have = available_memory()
    if have is None or need <= have:
        return
    per = (f"{_size(RANK_BYTES)} per rank, plus {MESSAGE_TRACE_BYTES} B per message traced"
           if trace else f"{_size(RANK_BYTES_NO_TRACE)} per rank without the trace")
    cheaper = "" if not trace else (
        f", or run with trace=False ({_size(RANK_BYTES_NO_TRACE)} per rank)")
    raise SettingError("ranks", f"{ranks} ranks need about {_size(need)} of memory ({per}) "
                       f"but about {_size(have)} is available: lower ranks{cheaper} "
                       "(MPISIM_MEMORY sets the memory mpisim may use)")


@dataclass(frozen=True)
class Work:
    """What a run is known to have to do, for its wall-time forecast (a hint: the engine
    knows nothing of what the units are). With it, the forecast goes by the units done
    against ``total`` rather than by the run's bound.

    Parameters
    ----------
    total
        Units of work in the whole run, e.g. ``1_005_568`` recorded calls.
    done
        Called with no argument, the units done so far (it is called every 200,000 events:
        keep it cheap).
    unit
        The units in words, plural: ``"recorded calls"``. Default ``"steps"``.
    done_as
        Doing one, in words: ``"replayed"``. Default ``"done"``.
    run_as
        The run, in words: ``"replay"``. Default ``"run"``.

    Examples
    --------
    A program of 100,000 steps says how many rank 0 has done; its first line on stderr,
    should it run long, is then "this run of 100,000 steps may take about ...":

    >>> import mpisim as ms
    >>> done = [0]
    >>> def program(mpi):
    ...     for _ in range(100_000):
    ...         yield mpi.barrier()
    ...         done[0] += mpi.rank == 0
    >>> work = Work(100_000, lambda: done[0])
    >>> ms.run(program, ranks=2, work=work, max_events=10**8).outcome  # doctest: +SKIP
    <Outcome.COMPLETED: 'completed'>
    """

    total: int
    done: Callable[[], int]
    unit: str = "steps"
    done_as: str = "done"
    run_as: str = "run"


class Forecast:
    """Says how long a run may take when that is long, then shows its progress (see the
    module). ``update(events, now)`` after each batch of events; ``work``, what the run is
    known to have to do (None: the run's bound alone)."""

    def __init__(self, max_events: float, until: float | None, events: int, now: float,
                 out: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 long_run: float | None = None, work: Work | None = None,
                 long_known: float | None = None) -> None:
        self.max_events, self.until = max_events, until
        self.work = work if work is not None and work.total > 0 else None
        self.start = (clock(), events, now, self.work.done() if self.work else 0)
        self.out, self.clock = out, clock
        self.long_run = LONG_RUN if long_run is None else long_run
        self.long_known = LONG_KNOWN if long_known is None else long_known
        self.said = False
        self.last = 0.0

    def left(self, events: int, now: float) -> float | None:
        """Wall seconds the run may still take, at the pace so far (None: unknown yet)."""
        found = self._left(events, now)
        return None if found is None else found[0]

    def _left(self, events: int, now: float) -> tuple[float, int | None] | None:
        """:meth:`left`, and the units of work done when the work ends the run before its
        bound does (None: the bound ends it first, or no work is known)."""
        wall = self.clock() - self.start[0]
        if wall <= 0:
            return None
        by_work, done = None, None
        if self.work is not None:
            done = self.work.done()
            if done <= self.start[3]:
                return None  # (its pace is not known yet: the bound would mislead)
            by_work = max(0, self.work.total - done) * wall / (done - self.start[3])
        by_bound = self._by_bound(events, now, wall)
        if by_work is not None and (by_bound is None or by_work <= by_bound):
            return by_work, done
        return None if by_bound is None else (max(0.0, by_bound), None)

    def _by_bound(self, events: int, now: float, wall: float) -> float | None:
        done_events, done_time = events - self.start[1], now - self.start[2]
        found = []
        if self.max_events != float("inf") and done_events > 0:
            found.append((self.max_events - events) * wall / done_events)
        if self.until is not None and done_time > 0:
            found.append((self.until - now) * wall / done_time)
        return min(found) if found else None

    def update(self, events: int, now: float) -> None:
        """Say so once if the run looks long, then print progress every EVERY seconds."""
        found = self._left(events, now)
        if found is None:
            return
        left, done = found
        elapsed = self.clock() - self.start[0]
        if elapsed < MIN_WATCH:
            return
        if not self.said and left + elapsed > (self.long_run if done is None
                                               else self.long_known):
            self.said, self.last = True, elapsed
            rate = (events - self.start[1]) / max(elapsed, 1e-9)
            self._print(self._first(left + elapsed, rate, elapsed, events, done))
        elif self.said and elapsed - self.last >= EVERY:
            self.last = elapsed
            where = f"{events:,} events, t = {format_time(now)}, {_duration(elapsed)} elapsed"
            if done is None:
                self._print(f"{where}, at most about {_duration(left)} left")
            else:
                work = self.work
                assert work is not None
                self._print(f"{_percent(done, work.total)} of the {work.unit} {work.done_as} "
                            f"({done:,} of {work.total:,}), {where}, about {_duration(left)} "
                            "left")

    def _first(self, total: float, rate: float, elapsed: float, events: int,
               done: int | None) -> str:
        """The line that says the run is long: by its bound, or by its known work."""
        if done is None or self.work is None:
            return (f"this run could take up to {_duration(total)} of wall time if it goes "
                    f"on to its bound ({self._bound()}, at {rate:,.0f} events/s so far); "
                    f"progress every {EVERY:.0f} s; Ctrl-C stops it; max_events or until "
                    "bound it")
        work, start_done, start_events = self.work, self.start[3], self.start[1]
        expected = start_events + (events - start_events) * (work.total - start_done) \
            / (done - start_done)
        return (f"this {work.run_as} of {work.total:,} {work.unit} may take about "
                f"{_duration(total)} of wall time ({_percent(done, work.total)} "
                f"{work.done_as} in {_duration(elapsed)}: about {_rounded(expected)} events "
                f"in all, at {rate:,.0f} events/s); progress every {EVERY:.0f} s; Ctrl-C "
                "stops it")

    def _bound(self) -> str:
        parts = []
        if self.max_events != float("inf"):
            parts.append(f"up to {self.max_events:,.0f} events")
        if self.until is not None:
            parts.append(f"until t = {format_time(self.until)}")
        return " or ".join(parts)

    def _print(self, line: str) -> None:
        out: Any = self.out or sys.stderr
        print(f"mpisim: {line}", file=out, flush=True)


def _percent(part: int, whole: int) -> str:
    """A share in words: one decimal below 10 % (a first forecast is made early)."""
    share = 100 * part / whole
    return f"{share:.1f}%" if share < 10 else f"{share:.0f}%"


def _rounded(count: float) -> str:
    """A count to two significant digits, with its thousands separated (an estimate)."""
    if count < 100:
        return f"{count:.0f}"
    digits = math.floor(math.log10(count)) - 1
    return f"{round(count, -digits):,.0f}"


def _size(nbytes: int) -> str:
    """A size in words, three digits (an estimate needs no more)."""
    for unit, scale in SIZE_SCALES:
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes} B"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class WallClockLimit(BaseException):
    """The wall-clock limit (``--timeout``) was reached. A BaseException, so that a
    program's ``except Exception`` does not swallow it: raised in the rank's code that runs
    (a loop that never calls MPI again), it ends the run as that rank's error, naming its
    line; raised in the engine, the run ends as TIMEOUT."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the wall-clock limit of {seconds:g} s was reached (--timeout)")
        self.seconds = seconds


@contextlib.contextmanager
def wall_clock_limit(seconds: float | None) -> Iterator[None]:
    """Raise WallClockLimit in the main thread once ``seconds`` of wall time have passed
    (and every second after, should the code that runs catch it); None: no limit. Only in
    the main thread, where signals are delivered (elsewhere: no limit)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(_signum: int, _frame: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        raise WallClockLimit(seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
