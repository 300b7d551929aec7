"""One min-buffer probe: run a program at one attach size and judge the run.

A size *passes* when the run completes and no counted rank overflowed (a caught overflow
counts: the program relied on more buffer than it had). Everything else fails, with the
outcome and one line saying why, which the min-buffer report shows for the answer and the
byte below it. With several seeds (jitter makes overflow depend on timing) a size passes
only when it passes with every seed; the first failing seed is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..values.units import format_time
from .attach import ProbeOverflow, SizedAttach
from .target import Target

__all__ = ["INT_MAX", "Probe", "Prober", "describe_failure"]

INT_MAX = 2**31 - 1
"""The largest size MPI_Buffer_attach takes (its size argument is a C int)."""


@dataclass(frozen=True)
class Probe:
    """The verdict at one size: passed or not, the outcome, and why (one line).

    Parameters
    ----------
    size
        The attach size tried, in bytes.
    ok
        Whether it passed: the run completed and no searched rank overflowed.
    outcome
        The run's outcome: ``"completed"``, ``"deadlock"``, ``"error"`` or ``"timeout"``.
    detail
        Why, in one line (the overflow: rank, call, place, bytes asked and free).
    overflow
        An overflow's figures in bytes (``requested``, ``free``, ``largest_free``...), or
        None.
    """

    size: int
    ok: bool
    outcome: str
    detail: str
    overflow: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        head = {"size": self.size} if self.size >= 0 else {}
        return head | {"outcome": self.outcome, "passed": self.ok, "detail": self.detail}


@dataclass
class Prober:
    """What every probe of one search shares (picklable: it goes to worker processes)."""

    target: Target
    program: Any
    ranks: int
    rank: int | None
    implicit: bool
    seeds: tuple[int, ...] | None = None
    stop_on_overflow: bool = True
    buffer: str | None = None   # "comm NAME": search that communicator's buffer
    def sizes(self, size: int) -> list[int | None]:
        """Every rank at ``size``; with a counted rank, the others unbounded (INT_MAX)."""
        if self.rank is None:
            return [size] * self.ranks
        out: list[int | None] = [INT_MAX] * self.ranks
        out[self.rank] = size
        return out

    def run(self, sizes: Sequence[int | None], *, seed: int | None = None,
            record: bool = False, **extra: Any) -> tuple[Any, SizedAttach]:
        """One run with the attach sizes replaced; returns (result, the wrapper)."""
        wrapper = SizedAttach(self.program, sizes, self.implicit,
                              stop_on_overflow=self.stop_on_overflow and not record,
                              record=record, buffer=self.buffer)
        point = {} if seed is None else {"seed": seed}
        if self.implicit and self.buffer is not None:  # the run's buffer names the comm
            counted = [s for s in sizes if s is not None]
            extra["buffer"] = {"comm": self.buffer.removeprefix("comm "),
                               "size": max(counted) if counted else INT_MAX}
        elif self.implicit:
            extra["buffer"] = None
        return self.target.run(point, program=wrapper, **extra), wrapper

    def probe(self, size: int) -> Probe:
        """The verdict at ``size`` (every seed, stopping at the first failing one)."""
        runs = [None] if self.seeds is None else list(self.seeds)
        last = None
        for seed in runs:
            result, wrapper = self.run(self.sizes(size), seed=seed, trace=False)
            verdict = judge(result, self.rank, size, wrapper.overflow)
            if not verdict.ok:
                if seed is not None and len(runs) > 1:
                    return Probe(size, False, verdict.outcome, f"seed {seed}: {verdict.detail}",
                                 verdict.overflow)
                return verdict
            last = verdict
        assert last is not None
        if len(runs) > 1:
            return Probe(size, True, last.outcome, f"completed with each of {len(runs)} seeds")
        return last


def probe_chunk(prober: Prober, sizes: Sequence[int]) -> list[Probe]:
    return [prober.probe(s) for s in sizes]


def judge(result: Any, rank: int | None, size: int,
          overflow: tuple[int, Any] | None = None) -> Probe:
    """Passed (completed, no overflow on a counted rank) or why not. ``overflow``: (rank,
    MPIError) of the overflow that stopped a probe early, if one did."""
    counted = result.ranks if rank is None else [result.ranks[rank]]
    err = result.error
    outcome = "error" if overflow is not None else result.outcome.value
    if err is not None and err.error_class in ("MPI_ERR_BUFFER", ProbeOverflow.__name__) and \
            (rank is None or err.rank == rank):
        info = dict(overflow[1].info) if overflow is not None else dict(err.info)
        return Probe(size, False, outcome, "overflow: " + _error_text(err), info)
    for r in counted:
        if r.buffer.overflows:
            return Probe(size, False, outcome,
                         f"rank {r.rank} overflowed {r.buffer.overflows} time(s) (caught by "
                         "the program)")
    if outcome != "completed":
        return Probe(size, False, outcome, describe_failure(result))
    return Probe(size, True, outcome, f"completed at t = {format_time(result.sim_time)}")


def describe_failure(result: Any) -> str:
    """One line: why a run did not complete."""
    err = result.error
    if err is not None:
        return _error_text(err)
    dl = result.deadlock
    if dl is not None:
        shown = "; ".join(f"rank {b.rank} in {b.call}" + (f" at {b.where}" if b.where else "")
                          for b in dl.blocked[:3])
        more = f" (+{len(dl.blocked) - 3} more)" if len(dl.blocked) > 3 else ""
        cycle = (" (cycle " + " -> ".join(map(str, [*dl.cycles[0], dl.cycles[0][0]])) + ")") \
            if dl.cycles else ""
        return f"{shown}{more}{cycle}"
    return str(result.timeout_reason or result.outcome.value)


def _error_text(err: Any) -> str:
    where = f" at {err.where}" if err.where else ""
    cls = "MPI_ERR_BUFFER" if err.error_class == ProbeOverflow.__name__ else err.error_class
    message = err.message.split(" (raised by the program of rank")[0]
    return f"{cls} in {err.call} on rank {err.rank}{where}: {message}"
