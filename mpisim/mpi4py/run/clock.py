"""The script's ``time`` module: ``time.sleep(s)`` advances the rank's simulated clock by s.

An mpi4py script passes time between MPI calls by sleeping (a receiver that sleeps, then
receives, is the usual way to tell a blocking send from a local one). Under the stand-in a
rank's sleep is what ``mpi.compute(s)`` is in a native program: the rank is busy outside
MPI for s of simulated time, makes no progress meanwhile (a message that needs it waits for
its next call), and ``MPI.Wtime()`` is exactly s later when it returns. The wall clock does
not move.

In a rank whose script has started threads, ``time.sleep(0)`` gives the thread's turn up:
the rank's other threads runnable at this instant run first, as CPython's ``sleep(0)``
releases the interpreter to them (the usual way to let other threads go on); without
threads it does nothing, as before.

Scope: while a rank's script runs (and only then, :class:`~.bridge.Scope`), ``import time``
and ``from time import sleep`` give this module: the real ``time`` module's contents with
``sleep`` replaced. The real ``time`` module is never patched, so other code in the process
(the engine, threads, the caller of ``run_mpi4py``) sleeps for real; and ``sleep`` itself
sleeps for real when it is called outside a simulated rank (a function the script kept and
calls after the run). The clocks (``time.time``, ``monotonic``, ``perf_counter``) stay the
machine's: they measure the simulator, not the program; ``MPI.Wtime`` is the simulated clock.
"""

from __future__ import annotations

import math
import operator
import time as _time
import types
from typing import Any

from greenlet import getcurrent

__all__ = ["sleep", "time_module"]

_MODULE: list[types.ModuleType] = []


def sleep(seconds: Any) -> None:
    """``time.sleep`` for a script: inside a simulated rank, ``seconds`` of simulated time
    outside MPI; anywhere else, a real sleep. A length the real sleep refuses raises its
    error (the real sleep is called with it: it raises before sleeping)."""
    ctx = getattr(getcurrent(), "ctx", None)
    if ctx is None:
        return _time.sleep(seconds)
    value = _seconds(seconds)
    if value is None or math.isinf(ctx.mpi.now + value):
        _time.sleep(seconds)  # refused: raises TypeError, ValueError or OverflowError
        raise OverflowError(f"time.sleep({seconds!r}): the simulated clock would overflow")
    if value == 0 and ctx.state.get("threading"):  # a rank with threads: a turn given up
        ctx.call(lambda: _turn(ctx))
        return None
    ctx.call(lambda: ctx.mpi.compute(value))
    return None


def _turn(ctx: Any) -> Any:
    """The event of a thread's ``sleep(0)``: the thread computes for no time (so the thread
    rules see it outside MPI) and goes on after the others runnable now."""
    ctx.mpi.compute(0)
    return ctx.port.env.timeout(0)


_REFUSED = 1e10
"""Seconds above which the real sleep surely refuses the length (its clock counts int64
nanoseconds, about 9.2e9 s)."""


def _seconds(seconds: Any) -> float | None:
    """The length as the real ``time.sleep`` reads it (a float, or an integer through
    ``__index__``), or None where the real one refuses it."""
    try:
        value = float(seconds) if isinstance(seconds, float) else float(operator.index(seconds))
    except (TypeError, OverflowError):
        return None
    return value if 0 <= value <= _REFUSED else None


def time_module() -> types.ModuleType:
    """The ``time`` module a script sees (one per process)."""
    if not _MODULE:
        module = types.ModuleType("time", _time.__doc__)
        module.__dict__.update(vars(_time))
        module.sleep = sleep  # type: ignore[attr-defined]
        _MODULE.append(module)
    return _MODULE[0]
