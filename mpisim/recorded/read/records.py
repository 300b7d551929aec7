"""What a recording holds: each process's log (:class:`RankLog`), its calls, datatypes and call
sites, and the run they make up (:class:`Trace`). Reading them is :mod:`.trace`'s.

A log's calls are kept as columns, not as objects: a call is its *shape* (its name,
arguments and call site: what its line says but the time outside MPI before it), its
result's shape (error class and OUT values, but the time it took), and four numbers (the time
before it, the time it took, its line, whether it returned). A run of a million calls from a
few dozen call sites holds a few dozen shapes and the numbers in numpy arrays (32 bytes a
call, about half the size of its lines); a :class:`Call` is made when one is asked for
(``log.calls[i]``), and the replay (:mod:`.program`) works from the shapes, never making one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, overload

import numpy as np

from ...mpi.constants import UNDEFINED

__all__ = ["MAX_DATA", "Call", "CallList", "CallShape", "RankLog", "ResultShape", "Site",
           "Status", "Trace", "TraceError", "TypeInfo", "data_fields"]

_SIGNALS = {"1": "SIGHUP", "2": "SIGINT", "3": "SIGQUIT", "6": "SIGABRT", "7": "SIGBUS",
            "11": "SIGSEGV", "15": "SIGTERM"}


class TraceError(ValueError):
    """A recording that cannot be read: ``file:line: key: problem``."""


@dataclass(frozen=True)
class TypeInfo:
    """A datatype as the shim described it."""

    id: int
    size: int
    extent: int
    lb: int
    kind: str
    name: str | None = None
    sig: tuple[tuple[str, int], ...] | None = None
    """A derived type's type signature (MPI 4.1 §3.3.1) as runs ``(basic type name,
    copies)``; None for a predefined type, or when the recorder did not give it."""

    def describe(self) -> str:
        return self.name or f"{self.kind} type of {self.size} B (extent {self.extent})"


@dataclass(frozen=True)
class Site:
    """Where a call was made: object file, offset in it, symbol+offset when known; the
    source line and function when the object's debug information gives them
    (:mod:`.sources`)."""

    id: int
    obj: str
    offset: int
    symbol: str | None = None
    source: str | None = None       # "file.c:LINE"
    function: str | None = None

    def describe(self) -> str:
        if self.source is not None:
            return f"{self.source} in {self.function}" if self.function else self.source
        base = os.path.basename(self.obj)
        return (self.symbol and f"{self.symbol} in {base}") or f"{base}+{self.offset:#x}"


@dataclass(frozen=True)
class Status:
    """What a receive or probe matched: source (a rank of its communicator), tag, bytes."""

    source: int
    tag: int
    count: int


@dataclass
class Call:
    """One recorded call: its number on its rank (1 = MPI_Init), MPI name, the wall time
    spent outside MPI before it (s), its arguments and, if it returned, its result."""

    number: int
    name: str
    gap: float
    args: dict[str, Any]
    line: int
    site: Site | None = None
    returned: bool = False
    error: str | None = None          # the MPI error class it returned, None for success
    duration: float | None = None
    out: dict[str, Any] = field(default_factory=dict)

    @property
    def statuses(self) -> list[Status | None]:
        return self.out.get("st", [])

    @property
    def thread(self) -> int:
        """The thread that made it (``t=``, MPI 4.1 §11.6): 0 the one that called MPI_Init,
        then 1, 2... in the order of each thread's first call."""
        return int(self.args.get("t", 0))

    def where(self) -> str:
        site = f", {self.site.describe()}" if self.site is not None else ""
        thread = f" (thread {self.thread})" if self.thread else ""
        return f"call {self.number}{thread}{site}"

    def split(self) -> tuple[int, int]:
        """(color, key) of the MPI_Comm_split that makes the communicator this call made: its
        own for Comm_split; for the calls of MADE_AS_SPLIT, what the recorder logged of the
        result. MPI_UNDEFINED for a process the call left out (MPI_COMM_NULL), and for a call
        that never returned (its process takes part in the split, as it did in the call)."""
        if self.name == "Comm_split":
            color, key = self.args.get("color"), self.args.get("key", 0)
        else:
            color, key = self.out.get("color"), self.out.get("rank", 0)
        return (UNDEFINED if color is None else color), key


@dataclass(frozen=True)
class CallShape:
    """A call line but its time outside MPI: name, arguments (typed), the call site's id."""

    name: str
    args: dict[str, Any]
    site: int | None


@dataclass(frozen=True)
class ResultShape:
    """A result line but the call's duration: the error class (None: success), OUT values."""

    error: str | None
    out: dict[str, Any]

    @property
    def statuses(self) -> list[Status | None]:
        return self.out.get("st", [])


class CallList(Sequence[Call]):
    """A log's calls as columns (see the module): ``shape[i]`` indexes ``shapes``,
    ``result[i]`` indexes ``results`` (-1: the call never returned), ``gap`` and
    ``duration`` in seconds, ``line`` the call's line in the file. ``base``, when not None,
    the first request id each call names (0: none): a shape's request ids are then relative
    to it (``+1`` the base, ``0`` MPI_REQUEST_NULL), so that the calls of a loop that makes a
    new request each time share their shapes. Indexing makes a :class:`Call` (a new one each
    time: change it freely), its request ids the recorded ones."""

    __slots__ = ("base", "duration", "gap", "line", "result", "results", "shape", "shapes",
                 "sites")

    def __init__(self, shapes: list[CallShape], results: list[ResultShape],
                 shape: np.ndarray, result: np.ndarray, gap: np.ndarray,
                 duration: np.ndarray, line: np.ndarray, sites: dict[int, Site],
                 base: np.ndarray | None = None) -> None:
        self.shapes, self.results, self.sites = shapes, results, sites
        self.shape, self.result, self.gap, self.duration, self.line = (
            shape, result, gap, duration, line)
        self.base = base

    def __len__(self) -> int:
        return len(self.shape)

    @overload
    def __getitem__(self, index: int) -> Call: ...

    @overload
    def __getitem__(self, index: slice) -> list[Call]: ...

    def __getitem__(self, index: int | slice) -> Call | list[Call]:
        if isinstance(index, slice):
            return [self.call(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("call index out of range")
        return self.call(int(i))

    def __iter__(self) -> Iterator[Call]:
        for i in range(len(self)):
            yield self.call(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CallList | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def call(self, i: int) -> Call:
        """The ``i``-th call (0-based) as a :class:`Call`."""
        shape = self.shapes[self.shape[i]]
        site = self.sites.get(shape.site) if shape.site is not None else None
        call = Call(i + 1, shape.name, float(self.gap[i]), dict(shape.args), int(self.line[i]),
                    site)
        r = int(self.result[i])
        if r >= 0:
            res = self.results[r]
            call.returned, call.error = True, res.error
            call.duration = float(self.duration[i])
            call.out = {k: (list(v) if isinstance(v, list) else v) for k, v in res.out.items()}
        base = int(self.base[i]) if self.base is not None else 0
        if base:
            if "r" in call.args:
                call.args["r"] = [absolute_request(v, base) for v in call.args["r"]]
            if "r" in call.out:
                call.out["r"] = absolute_request(call.out["r"], base)
        return call

    def request_id(self, i: int) -> int:
        """The id of the request the ``i``-th call's result names (its ``r=``)."""
        rid = self.results[self.result[i]].out["r"]
        return absolute_request(rid, int(self.base[i])) if self.base is not None else rid

    def returned(self, i: int) -> bool:
        return bool(self.result[i] >= 0)

    def errors(self) -> np.ndarray:
        """Indices of the calls that returned an error."""
        failed = np.array([r.error is not None for r in self.results] + [False], dtype=bool)
        return np.flatnonzero(failed[self.result])

    def name(self, i: int) -> str:
        """The MPI name (without ``MPI_``) of the ``i``-th call."""
        return self.shapes[self.shape[i]].name

    def strides(self, size: int = 4096) -> Iterator[tuple[int, list[int], list[int],
                                                          list[float]]]:
        """The calls in order, ``size`` at a time: (the first's index, their shape and
        result indices, their gaps in s) as Python's numbers."""
        for lo in range(0, len(self), size):
            hi = lo + size
            yield (lo, self.shape[lo:hi].tolist(), self.result[lo:hi].tolist(),
                   self.gap[lo:hi].tolist())

    def replayed(self, size: int = 4096) -> Iterator[tuple[int, int, int, float, int]]:
        """Each call as the replay takes it, its columns read ``size`` calls at a time:
        (its number, 1 = MPI_Init; its shape id; its result id, -1: it never returned; its
        gap in s; the request id its shape's ids are relative to, 0: none)."""
        n = len(self)
        return chain.from_iterable(
            zip(range(lo + 1, lo + size + 1), self.shape[lo:lo + size].tolist(),
                self.result[lo:lo + size].tolist(), self.gap[lo:lo + size].tolist(),
                self.base[lo:lo + size].tolist() if self.base is not None else
                repeat(0), strict=False)
            for lo in range(0, n, size))

    def used(self) -> tuple[np.ndarray, np.ndarray]:
        """How many calls use each shape, and each result shape (index ``r + 1``; 0: the
        calls that never returned)."""
        return (np.bincount(self.shape, minlength=len(self.shapes)),
                np.bincount(self.result + 1, minlength=len(self.results) + 1))

    def total_time(self) -> float:
        """The calls' time outside MPI and in their calls that returned (s)."""
        return float(self.gap.sum() + self.duration[self.result >= 0].sum())

    def longest(self, kind: str) -> float:
        """The longest time (s) outside MPI before a call (``kind`` ``"g"``), or in a call
        that returned (``"in"``), MPI_Init's own left out, and MPI_Comm_spawn's (starting
        processes is no wait for another process)."""
        if kind == "g":
            return float(self.gap[1:].max(initial=0.0))
        waits = self.result[1:] >= 0
        spawns = [i for i, shape in enumerate(self.shapes) if shape.name.startswith("Comm_spawn")]
        if spawns:
            waits &= ~np.isin(self.shape[1:], spawns)
        return float(self.duration[1:][waits].max(initial=0.0))


MAX_DATA = 1 << 16
"""Data lines a process's log keeps at most, about 9 MB (a longer recording's later ones
are not checked: a streamed replay's memory would grow with the calls, 135 bytes a line).
The recorder is built with the same number (``-DMPISIM_MAX_DATA``): its hashes cover the
first 65,536 data lines of each process, and it hashes no more after them."""


def data_fields(text: str) -> dict[str, list[str | None]]:
    """A data line's fields: ``h`` (the send buffer's hash at the call), ``w`` (one hash a
    completed request, None where none was taken), each as hex text."""
    out: dict[str, list[str | None]] = {}
    for part in text.split():
        key, _, value = part.partition("=")
        out[key] = [None if v in ("", "-") else v for v in value.split(",")]
    return out


@dataclass
class RankLog:
    """One process's log."""

    rank: int
    size: int
    header: dict[str, str]
    calls: CallList
    types: dict[int, TypeInfo]
    sites: dict[int, Site]
    comms: dict[int, dict[str, Any]]
    ended: str          # "finalized", "signal N", "exit", "abort", "cut" (log ends mid-run)
    path: str
    last: tuple[str, float] | None = None
    """Where the process was when it ended and for how long (s): ``("g", s)`` outside MPI
    since its last call returned, ``("in", s)`` inside the call in progress; None when the
    log does not say (a recording made before it was logged, a cut log)."""
    broken: str | None = None
    """Why a log is read only up to its call in progress, when it goes on past it (a call
    logged before the one in progress returned: an error handler that never returned, a
    result line lost); its process is then treated as stopped inside that call ("cut")."""
    data: dict[int, str] = field(default_factory=dict)
    """The data lines (``H h=HEX w=HEX,...``: hashes of the bytes a call sent and of those
    its completions found, MPI 4.1 §3.7.2) by the index of the call they follow, as
    written but their ``H``; at most :data:`MAX_DATA` a process (:func:`data_fields`)."""

    @property
    def spawn(self) -> str | None:
        """The spawn that started the process (its ID, MPI 4.1 §11.8.2); None for one
        mpiexec started."""
        return self.header.get("spawn")

    @property
    def stopped(self) -> bool:
        """Stopped from outside (a signal, or its log cut by SIGKILL): its program had not
        ended, and never reached MPI_Finalize."""
        return (self.ended.startswith("signal ") or self.ended == "cut") and bool(self.calls)

    @property
    def running(self) -> bool:
        """Stopped outside MPI: the process was computing when it was stopped."""
        return self.stopped and self.blocked is None

    @property
    def unfinalized(self) -> bool:
        """Exited between calls without calling MPI_Finalize (returned from main, or exit())."""
        return self.ended == "exit" and self.blocked is None

    def end_text(self) -> str:
        """How the process ended, in words."""
        if self.ended.startswith("signal "):
            number = self.ended.split()[1]
            name = _SIGNALS.get(number)
            signal = f"signal {number}" + (f" ({name})" if name else "")
            if self.running:
                after = f"{seconds_text(self.last[1])} after " if self.last else ""
                return (f"stopped by {signal} while running outside MPI, {after}call "
                        f"{self.calls[-1].number} (MPI_{self.calls[-1].name}) returned")
            return f"killed by {signal}"
        if self.unfinalized:
            return (f"exited without calling MPI_Finalize after call {self.calls[-1].number} "
                    f"(MPI_{self.calls[-1].name}): it returned from main or called exit()")
        return {"finalized": "returned from MPI_Finalize",
                "exit": "exited inside the call (exit() inside MPI: a fatal MPI error?)",
                "abort": "called MPI_Abort",
                "cut": f"its log ends inside this call: {self.broken}" if self.broken else
                "its log ends here (killed before it could flush: SIGKILL?)"}.get(
                    self.ended, self.ended)

    def elapsed(self) -> float:
        """Wall time (s) from MPI_Init to where the log ends (its last call's end, or its
        start when it never returned), plus the time there the end line gives."""
        return self.calls.total_time() + (self.last[1] if self.last else 0.0)

    @property
    def blocked(self) -> Call | None:
        """The call in progress when the process ended (None if it ended between calls);
        of a threaded process, its last thread's (:attr:`in_progress` has them all)."""
        calls = self.calls
        return calls[-1] if len(calls) and not calls.returned(len(calls) - 1) else None

    @property
    def in_progress(self) -> list[Call]:
        """Every call in progress when the process ended, one per thread at most (MPI 4.1
        §11.6): the calls without a result at the log's end, in the log's order."""
        calls, found = self.calls, []
        for i in range(len(calls) - 1, -1, -1):
            if calls.returned(i):
                break
            found.append(calls[i])
        return found[::-1]

    @property
    def threads(self) -> list[int]:
        """The threads that made calls (``[0]`` for a single-threaded process)."""
        seen = {0}
        for shape in self.calls.shapes:
            seen.add(int(shape.args.get("t", 0)))
        return sorted(seen)


@dataclass
class Trace:
    """A recorded run: every rank's log.

    :func:`read_trace` builds it.

    Parameters
    ----------
    path
        The recording it was read from.
    ranks
        Each process's log (its header and calls), by rank.
    spawns
        The logs of the processes MPI_Comm_spawn started (MPI 4.1 §11.8.2), by spawn ID
        (the parents' call gives it as ``spawn=``; e.g. ``"0.1"``), each spawn's by rank in
        its own MPI_COMM_WORLD; empty (the default) for a run without spawns.
    """

    path: str
    ranks: list[RankLog]
    spawns: dict[str, list[RankLog]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """The processes mpiexec started (those a replay starts with)."""
        return len(self.ranks)

    @property
    def processes(self) -> list[RankLog]:
        """Every process's log: mpiexec's, then each spawn's."""
        return [*self.ranks, *(log for logs in self.spawns.values() for log in logs)]

    @property
    def library(self) -> str:
        return self.ranks[0].header.get("library", "unknown MPI library") if self.ranks else ""

    @property
    def bsend_overhead(self) -> int | None:
        value = self.ranks[0].header.get("bsend-overhead") if self.ranks else None
        return int(value) if value is not None and value.isdigit() else None

    def outcome(self) -> str:
        """How the recorded run ended: "completed"; "killed" (stopped by a signal, or its
        logs cut: a deadlock, an endless or a slow run that was stopped); "error" (a process
        exited or aborted in a call); "unfinalized" (every process ended its program, some
        without MPI_Finalize: erroneous, MPI 4.1 §11.2.2)."""
        processes = self.processes
        ends = {r.ended for r in processes}
        if ends == {"finalized"}:
            return "completed"
        if any(e == "abort" or (e == "exit" and not r.unfinalized)
               for r in processes for e in (r.ended,)):
            return "error"
        if all(r.ended == "finalized" or r.unfinalized for r in processes):
            return "unfinalized"
        return "killed"

    def blocked(self) -> list[tuple[int, Call]]:
        """Each process's calls in progress when it ended (a threaded one's, every thread's)."""
        return [(r.rank, b) for r in self.processes for b in r.in_progress]


@overload
def absolute_request(rid: int, base: int) -> int: ...


@overload
def absolute_request(rid: None, base: int) -> None: ...


def absolute_request(rid: int | None, base: int) -> int | None:
    """A request id relative to ``base`` (see :class:`CallList`) as recorded."""
    return rid + base - 1 if base and rid is not None and rid > 0 else rid


def seconds_text(value: float) -> str:
    """A duration as reports write it: ``1.5 ms``, ``20 ns``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"
