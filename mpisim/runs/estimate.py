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
from typing import Any, TextIO

from ..values.readers import SettingError
from ..values.units import SIZE_SCALES, UnitError, format_time, parse_size

__all__ = ["EVERY", "LONG_RUN", "MESSAGE_TRACE_BYTES", "MIN_WATCH", "RANK_BYTES",
           "RANK_BYTES_NO_TRACE", "Forecast", "WallClockLimit", "available_memory",
           "check_memory", "memory_needed", "wall_clock_limit"]

RANK_BYTES = math.ceil(7.2 * 1024)
"""Memory one rank holds over a run with the trace on (measured, rounded up)."""
RANK_BYTES_NO_TRACE = math.ceil(3.8 * 1024)
"""Memory one rank holds with ``trace=False``."""
MESSAGE_TRACE_BYTES = 214
"""Trace memory per message recorded."""
LONG_RUN = 120.0
"""Wall seconds beyond which a run says, at its start, how long it may take."""
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


class Forecast:
    """Says how long a run may take when that is long, then shows its progress (see the
    module). ``update(events, now)`` after each batch of events."""

    def __init__(self, max_events: float, until: float | None, events: int, now: float,
                 out: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 long_run: float | None = None) -> None:
        self.max_events, self.until = max_events, until
        self.start = (clock(), events, now)
        self.out, self.clock = out, clock
        self.long_run = LONG_RUN if long_run is None else long_run
        self.said = False
        self.last = 0.0

    def left(self, events: int, now: float) -> float | None:
        """Wall seconds the run may still take, at the pace so far (None: unknown yet)."""
        wall = self.clock() - self.start[0]
        done_events, done_time = events - self.start[1], now - self.start[2]
        if wall <= 0:
            return None
        by_events = by_time = None
        if self.max_events != float("inf") and done_events > 0:
            by_events = (self.max_events - events) * wall / done_events
        if self.until is not None and done_time > 0:
            by_time = (self.until - now) * wall / done_time
        found = [t for t in (by_events, by_time) if t is not None]
        return max(0.0, min(found)) if found else None

    def update(self, events: int, now: float) -> None:
        """Say so once if the run looks long, then print progress every EVERY seconds."""
        left = self.left(events, now)
        if left is None:
            return
        elapsed = self.clock() - self.start[0]
        if elapsed < MIN_WATCH:
            return
        if not self.said and left + elapsed > self.long_run:
            self.said, self.last = True, elapsed
            rate = (events - self.start[1]) / max(elapsed, 1e-9)
            self._print(f"this run could take up to {_duration(left + elapsed)} of wall time "
                        f"if it goes on to its bound ({self._bound()}, at {rate:,.0f} "
                        f"events/s so far); progress every {EVERY:.0f} s; Ctrl-C stops it; "
                        "max_events or until bound it")
        elif self.said and elapsed - self.last >= EVERY:
            self.last = elapsed
            self._print(f"{events:,} events, t = {format_time(now)}, {_duration(elapsed)} "
                        f"elapsed, at most about {_duration(left)} left")

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
