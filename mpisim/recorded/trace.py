"""Reading a recorded run: the log the PMPI shim (``shim/mpisim_record.c``) writes.

**Format** (version 1). One log per process, UTF-8 text, one record a line, fields separated
by single spaces; ``mpisim record`` concatenates the processes' logs in rank order into one
``.trace`` file (a directory holding ``rank.N.log`` files is read the same way).

- ``#mpisim-trace 1`` starts a process's log; the header lines that follow are
  ``#rank R SIZE``, ``#pid``, ``#mpi V.S`` (the header's MPI version), ``#bsend-overhead N``
  (the library's MPI_BSEND_OVERHEAD), ``#exe PATH``, ``#library TEXT``
  (MPI_Get_library_version). ``# signal N`` and ``# exit`` say how the process ended when it
  did not return from MPI_Finalize (a fatal signal; exit() inside a call, e.g. a fatal MPI
  error). Other ``#`` lines are comments.
- ``T ID size=S extent=E lb=L kind=K [name=N]``: a datatype, described the first time a call
  uses it (K: ``named`` for predefined types, else the combiner: ``vector``, ``struct``...).
  Never expanded: the replay needs only its size.
- ``C ID size=S rank=R origin=unlogged``: a communicator made by a call the shim does not log.
- ``@ ID OBJECT OFFSET [SYMBOL+OFF]``: a call site (the caller's return address, its
  object file and offset in it, the symbol dladdr found). Reading looks up its source line
  (:mod:`.sources`).
- A call: ``NAME g=NS [@=SITE] key=value...``, written when the call is entered. ``NAME`` is
  the MPI name without ``MPI_``; ``g`` is the wall time in nanoseconds spent outside MPI since
  the previous call returned. Peers are ranks of the call's communicator, ``A`` for
  MPI_ANY_SOURCE and ``N`` for MPI_PROC_NULL; tags ``A`` for MPI_ANY_TAG; ``comm`` is a
  communicator id (0 world, 1 self, then in creation order); ``n`` a count and ``T`` a
  datatype id; ``pk`` MPI_Pack_size (buffered sends); ``r`` request ids; ``ns`` a count per
  rank of the communicator (the v forms' send or receive counts) and ``Ts`` a datatype id per
  rank (Alltoallw).
- ``= RC d=NS key=value...``: the result of the call on the line before it, written when it
  returns: RC is ``0`` or an MPI error class (``MPI_ERR_BUFFER``); ``d`` the nanoseconds it
  took; ``st=SOURCE:TAG:BYTES`` the status of each completed receive or probe (``-`` for a
  send request, comma-separated for several); ``r`` a new request's id; ``flag``, ``index``,
  ``done``, ``new`` (a new communicator's id, -1 for MPI_COMM_NULL), ``size``.
- A communicator made from a parent by a collective over it (``Cart_create``, ``Cart_sub``,
  ``Graph_create``, ``Dist_graph_create[_adjacent]``, ``Comm_create``,
  ``Comm_create_group``, ``Comm_split_type``): ``comm`` is the parent; its own arguments
  (``dims``/``periods``/``reorder``; ``remain``; ``index``/``edges``; ``ins``/``outs`` and
  weights ``sw``/``dw``; ``srcs``/``degs``/``dsts``/``wts``; ``grp``, the group's members
  as parent ranks, and ``tag``; ``type`` S for MPI_COMM_TYPE_SHARED, U for MPI_UNDEFINED,
  else the number), lists comma-separated, ``-`` for an empty one; the result's ``new
  color=C size=S rank=R`` is the split of the parent that makes the same communicator (C:
  the parent rank of its rank 0, ``U`` for MPI_COMM_NULL; the key is R), so a replay can
  make the communicator either way (older recordings carry only the split).
- ``Intercomm_create comm=LOCAL ll=LEADER [peer=PEER rl=REMOTE tag=T]`` (the leader's
  arguments at the leaders) and ``Intercomm_merge comm=INTER high=0|1``: the result's
  ``new=ID size=S rank=R`` and, for an intercommunicator, ``rsize=`` its remote size. On an
  intercommunicator, peers are ranks of the remote group.
- Neighbourhood collectives (``Neighbor_allgather[v]``, ``Neighbor_alltoall[v|w]`` and the
  ``I`` forms): ``n``/``T`` what the process sends to each neighbour, or ``ns`` (and ``Ts``)
  a count (and type) per out-neighbour.
- Matched probes (``Mprobe``, ``Improbe``; MPI 4.1 §3.8.2): the result's ``m=ID`` names
  the message taken (``N`` for MPI_MESSAGE_NO_PROC); ``Mrecv``/``Imrecv`` give ``m=ID``,
  ``n`` and ``T``.
- ``# signal N g=NS`` / ``# exit g=NS`` (or ``in=NS``): how long the process had been
  outside MPI since its last call returned (or inside the call in progress) when it ended.

A call without a result line was still in progress when the process ended: a blocked call
of a deadlock that was killed, or the call in which the process died. A last line without
its newline (a process killed while writing) is ignored.

Problems are :class:`TraceError` naming the file, line and key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from .sources import locate, object_path

__all__ = ["MADE_AS_SPLIT", "Call", "RankLog", "Site", "Status", "Trace", "TraceError", "TypeInfo",
           "is_trace", "locate_sources", "read_trace"]

MAGIC = "#mpisim-trace"
VERSION = "1"
_SIGNALS = {"1": "SIGHUP", "2": "SIGINT", "3": "SIGQUIT", "6": "SIGABRT", "7": "SIGBUS",
            "11": "SIGSEGV", "15": "SIGTERM"}
_RANK_FILE = re.compile(r"^rank\.(\d+)\.log$")
MADE_AS_SPLIT = ("Cart_create", "Cart_sub", "Graph_create", "Dist_graph_create",
                 "Dist_graph_create_adjacent", "Comm_create", "Comm_create_group",
                 "Comm_split_type")
"""Calls that make a communicator by a collective over a parent, logged with their own
arguments and, in the result, as the split of the parent that makes the same communicator
(a recording made before the arguments were logged is replayed as that split)."""


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

    def where(self) -> str:
        site = f", {self.site.describe()}" if self.site is not None else ""
        return f"call {self.number}{site}"

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


@dataclass
class RankLog:
    """One process's log."""

    rank: int
    size: int
    header: dict[str, str]
    calls: list[Call]
    types: dict[int, TypeInfo]
    sites: dict[int, Site]
    comms: dict[int, dict[str, Any]]
    ended: str          # "finalized", "signal N", "exit", "abort", "cut" (log ends mid-run)
    path: str
    last: tuple[str, float] | None = None
    """Where the process was when it ended and for how long (s): ``("g", s)`` outside MPI
    since its last call returned, ``("in", s)`` inside the call in progress; None when the
    log does not say (a recording made before it was logged, a cut log)."""

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
                after = f"{_seconds(self.last[1])} after " if self.last else ""
                return (f"stopped by {signal} while running outside MPI, {after}call "
                        f"{self.calls[-1].number} (MPI_{self.calls[-1].name}) returned")
            return f"killed by {signal}"
        if self.unfinalized:
            return (f"exited without calling MPI_Finalize after call {self.calls[-1].number} "
                    f"(MPI_{self.calls[-1].name}): it returned from main or called exit()")
        return {"finalized": "returned from MPI_Finalize",
                "exit": "exited inside the call (exit() inside MPI: a fatal MPI error?)",
                "abort": "called MPI_Abort",
                "cut": "its log ends here (killed before it could flush: SIGKILL?)"}.get(
                    self.ended, self.ended)

    def elapsed(self) -> float:
        """Wall time (s) from MPI_Init to where the log ends (its last call's end, or its
        start when it never returned), plus the time there the end line gives."""
        total = sum(c.gap + (c.duration or 0.0) for c in self.calls)
        return total + (self.last[1] if self.last else 0.0)

    @property
    def blocked(self) -> Call | None:
        """The call in progress when the process ended (None if it ended between calls)."""
        last = self.calls[-1] if self.calls else None
        return last if last is not None and not last.returned else None


@dataclass
class Trace:
    """A recorded run: every rank's log."""

    path: str
    ranks: list[RankLog]

    @property
    def size(self) -> int:
        return len(self.ranks)

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
        ends = {r.ended for r in self.ranks}
        if ends == {"finalized"}:
            return "completed"
        if any(e == "abort" or (e == "exit" and not r.unfinalized)
               for r in self.ranks for e in (r.ended,)):
            return "error"
        if all(r.ended == "finalized" or r.unfinalized for r in self.ranks):
            return "unfinalized"
        return "killed"

    def blocked(self) -> list[tuple[int, Call]]:
        return [(r.rank, r.blocked) for r in self.ranks if r.blocked is not None]


# -- reading -----------------------------------------------------------------------------
def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"


def is_trace(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a recording (a file starting with the magic line, or a directory
    of ``rank.N.log`` files)."""
    p = Path(path)
    if p.is_dir():
        return any(_RANK_FILE.match(f.name) for f in p.iterdir())
    try:
        with open(p, "rb") as f:
            return f.read(len(MAGIC)).decode("ascii", "replace") == MAGIC
    except OSError:
        return False


def read_trace(path: str | os.PathLike[str], sources: bool = True) -> Trace:
    """Read a recording (a ``.trace`` file or a directory of ``rank.N.log``); ``sources``:
    look up the call sites' source lines (:func:`locate_sources`)."""
    p = Path(path)
    try:
        if p.is_dir():
            files = sorted((int(m.group(1)), f) for f in p.iterdir()
                           if (m := _RANK_FILE.match(f.name)))
            if not files:
                raise TraceError(f"{p}: no rank.N.log files (not a recording)")
            logs = [log for _, f in files for log in _read_file(f)]
        else:
            logs = _read_file(p)
    except OSError as e:
        raise TraceError(f"{p}: cannot read the recording: {e.strerror or e}") from None
    trace = _assemble(str(p), logs)
    if sources:
        locate_sources(trace)
    return trace


def locate_sources(trace: Trace) -> None:
    """Give every call site of ``trace`` its source line where one can be found."""
    placed = [(log, site, object_path(site.obj, log.header.get("exe")))
              for log in trace.ranks for site in log.sites.values()]
    found = locate((path, site.offset) for _log, site, path in placed)
    if not found:
        return
    for log, site, path in placed:
        where = found.get((path, site.offset))
        if where is not None:
            log.sites[site.id] = replace(site, source=where[0], function=where[1])
    for log in trace.ranks:
        for call in log.calls:
            if call.site is not None:
                call.site = log.sites.get(call.site.id, call.site)


def _read_file(path: Path) -> list[RankLog]:
    data = path.read_bytes()
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    cut = not text.endswith("\n")
    if cut:
        lines = lines[:-1]  # a last line without its newline: the process died writing it
    elif lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].startswith(MAGIC):
        raise TraceError(f"{path}:1: not a recording (expected a first line {MAGIC!r})")
    logs: list[RankLog] = []
    start = 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or lines[i].startswith(MAGIC):
            logs.append(_parse_log(str(path), lines, start, i))
            start = i
    return logs


def _assemble(path: str, logs: list[RankLog]) -> Trace:
    if not logs:
        raise TraceError(f"{path}: no process logs in the recording")
    size = logs[0].size
    by_rank: dict[int, RankLog] = {}
    for log in logs:
        if log.size != size:
            raise TraceError(f"{log.path}: #rank: rank {log.rank} says {log.size} processes, "
                             f"rank {logs[0].rank} says {size}")
        if log.rank in by_rank:
            raise TraceError(f"{log.path}: #rank: two logs of rank {log.rank}")
        by_rank[log.rank] = log
    missing = [r for r in range(size) if r not in by_rank]
    if missing:
        raise TraceError(f"{path}: no log of rank {missing[0]} (of {size}): every process must "
                         "have reached MPI_Init with the recorder loaded")
    return Trace(path, [by_rank[r] for r in range(size)])


class _Lines:
    """Problem reporting for one log."""

    def __init__(self, path: str) -> None:
        self.path = path

    def error(self, line: int, key: str, problem: str) -> TraceError:
        return TraceError(f"{self.path}:{line}: {key}: {problem}")


def _parse_log(path: str, lines: list[str], start: int, stop: int) -> RankLog:
    where = _Lines(path)
    first = lines[start].split()
    if len(first) < 2 or first[1] != VERSION:
        raise where.error(start + 1, "#mpisim-trace", f"version {first[1:] or '?'} is not "
                          f"supported (this mpisim reads version {VERSION})")
    header: dict[str, str] = {}
    calls: list[Call] = []
    types: dict[int, TypeInfo] = {}
    sites: dict[int, Site] = {}
    comms: dict[int, dict[str, Any]] = {}
    signal = exited = None
    last: tuple[str, float] | None = None  # where the process was when it ended, how long
    for index in range(start + 1, stop):
        text = lines[index]
        number = index + 1
        if not text:
            continue
        head = text[0]
        if head == "#":
            key, _, value = text[1:].strip().partition(" ")
            if key in ("signal", "exit"):
                words = value.split()
                if key == "signal" and signal is None:
                    signal = f"signal {words[0] if words else '?'}"
                elif key == "exit":
                    exited = "exit"
                since = _since(where, number, words)
                if since is not None and last is None:
                    last = since
            elif key:
                header.setdefault(key, value.strip())
        elif head == "=":
            _result(where, number, text, calls)
        elif head == "T" and text.startswith("T "):
            t = _type(where, number, text)
            types[t.id] = t
        elif head == "@" and text.startswith("@ "):
            s = _site(where, number, text)
            sites[s.id] = s
        elif head == "C" and text.startswith("C "):
            parts = text.split()
            comms[_int(where, number, "C", parts[1])] = _fields(where, number, parts[2:])
        else:
            call = _call(where, number, text, len(calls) + 1, sites)
            if calls and not calls[-1].returned:
                raise where.error(number, call.name, f"a call starts before call "
                                  f"{calls[-1].number} ({calls[-1].name}) returned")
            calls.append(call)
    finalized = bool(calls) and calls[-1].name == "Finalize" and calls[-1].returned
    aborted = any(c.name == "Abort" for c in calls[-1:])
    ended = signal or ("finalized" if finalized else "abort" if aborted else exited or "cut")
    rank_text = header.get("rank", "").split()
    if len(rank_text) != 2 or not all(t.isdigit() for t in rank_text):
        raise where.error(start + 2, "#rank", "missing or not 'RANK SIZE'")
    rank, size = int(rank_text[0]), int(rank_text[1])
    _any_source(header.get("any-source", ""), calls)
    if not 0 <= rank < size:
        raise where.error(start + 2, "#rank", f"rank {rank} is not in 0..{size - 1}")
    return RankLog(rank, size, header, calls, types, sites, comms, ended, path, last)


def _any_source(value: str, calls: list[Call]) -> None:
    """Statuses whose source is the library's MPI_ANY_SOURCE written as a number (the
    recorder writes ``A`` since; Open MPI's is -1, mpisim's -2) made mpisim's."""
    if not value.lstrip("-").isdigit() or int(value) == ANY_SOURCE:
        return
    theirs = int(value)
    for call in calls:
        st = call.out.get("st")
        if st and any(s is not None and s.source == theirs for s in st):
            call.out["st"] = [Status(ANY_SOURCE, s.tag, s.count)
                              if s is not None and s.source == theirs else s for s in st]


def _since(where: _Lines, line: int, words: list[str]) -> tuple[str, float] | None:
    """``g=NS`` (outside MPI for so long) or ``in=NS`` (inside the call in progress) of a
    ``# signal``/``# exit`` line; None in recordings made before they were logged."""
    for word in words[1:] if words and "=" not in words[0] else words:
        key, _, value = word.partition("=")
        if key in ("g", "in"):
            return key, _int(where, line, key, value) * 1e-9
    return None


def _fields(where: _Lines, line: int, parts: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise where.error(line, part, "expected key=value")
        out[key] = value
    return out


def _int(where: _Lines, line: int, key: str, text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise where.error(line, key, f"expected an integer, got {text!r}") from None


def _type(where: _Lines, line: int, text: str) -> TypeInfo:
    parts = text.split()
    if len(parts) < 2:
        raise where.error(line, "T", "expected 'T ID size=... extent=... kind=...'")
    f = _fields(where, line, parts[2:])
    for key in ("size", "extent", "kind"):
        if key not in f:
            raise where.error(line, key, "missing in a datatype description")
    return TypeInfo(_int(where, line, "T", parts[1]), _int(where, line, "size", f["size"]),
                    _int(where, line, "extent", f["extent"]),
                    _int(where, line, "lb", f.get("lb", "0")), f["kind"], f.get("name"))


def _site(where: _Lines, line: int, text: str) -> Site:
    parts = text.split()
    if len(parts) < 4:
        raise where.error(line, "@", "expected '@ ID OBJECT OFFSET [SYMBOL]'")
    return Site(_int(where, line, "@", parts[1]), parts[2], _int(where, line, "@", parts[3]),
                parts[4] if len(parts) > 4 else None)


# Argument kinds: peer (rank, A, N), tag (int, A), int, ints (comma list), reqs (ids, 0, ?)
_KINDS = {"dest": "peer", "src": "peer", "tag": "tag", "rtag": "tag", "comm": "int",
          "n": "int", "T": "int", "rn": "int", "rT": "int", "pk": "int", "root": "int",
          "r": "reqs", "ns": "ints", "Ts": "ints", "key": "int", "code": "int",
          "thread": "int",
          # communicator makers (MPI 4.1 §7, §8): topologies, groups, intercommunicators
          "dims": "ints", "periods": "ints", "reorder": "int", "remain": "ints",
          "index": "ints", "edges": "ints", "ins": "ints", "outs": "ints", "sw": "ints",
          "dw": "ints", "srcs": "ints", "degs": "ints", "dsts": "ints", "wts": "ints",
          "grp": "ints", "ll": "int", "peer": "int", "rl": "int", "high": "int",
          # matched probes (MPI 4.1 §3.8.2): the message a probe took, received by id
          "m": "message"}


def _call(where: _Lines, line: int, text: str, number: int, sites: dict[int, Site]) -> Call:
    parts = text.split(" ")
    name = parts[0]
    if not name.replace("_", "").isalnum() or not name[:1].isupper():
        raise where.error(line, name or "?", "not a call, a result or a description line")
    raw = _fields(where, line, [p for p in parts[1:] if p])
    if "g" not in raw:
        raise where.error(line, name, "missing g= (time outside MPI before the call)")
    gap = _int(where, line, "g", raw.pop("g")) * 1e-9
    site_id = raw.pop("@", None)
    site = sites.get(_int(where, line, "@", site_id)) if site_id is not None else None
    args: dict[str, Any] = {}
    for key, value in raw.items():
        args[key] = _typed(where, line, key, value)
    return Call(number, name, gap, args, line, site)


def _typed(where: _Lines, line: int, key: str, value: str) -> Any:
    kind = _KINDS.get(key)
    if kind == "peer":
        return ANY_SOURCE if value == "A" else PROC_NULL if value == "N" else \
            _int(where, line, key, value)
    if kind == "tag":
        return ANY_TAG if value == "A" else _int(where, line, key, value)
    if kind == "int":
        return _int(where, line, key, value)
    if kind == "ints":
        return [_int(where, line, key, v) for v in value.split(",") if v and v != "-"]
    if kind == "message":  # 0: MPI_MESSAGE_NULL, N: MPI_MESSAGE_NO_PROC
        return -1 if value == "N" else _int(where, line, key, value)
    if kind == "reqs":
        return [None if v == "?" else _int(where, line, key, v) for v in value.split(",") if v]
    if key == "color":
        return None if value == "U" else _int(where, line, key, value)
    if key == "size":
        return "auto" if value == "auto" else _int(where, line, key, value)
    return value


def _result(where: _Lines, line: int, text: str, calls: list[Call]) -> None:
    if not calls or calls[-1].returned:
        raise where.error(line, "=", "a result line without a call before it")
    call = calls[-1]
    parts = [p for p in text.split(" ")[1:] if p]
    if not parts:
        raise where.error(line, "=", "expected '= RC d=NS ...'")
    rc = parts[0]
    call.error = None if rc == "0" else rc
    out = _fields(where, line, parts[1:])
    call.duration = _int(where, line, "d", out.pop("d", "0")) * 1e-9
    for key, value in out.items():
        if key == "st":
            call.out["st"] = [None if v == "-" else _status(where, line, v)
                              for v in value.split(",")]
        elif key == "done":
            call.out["done"] = [] if value == "-" else [_int(where, line, key, v)
                                                       for v in value.split(",")]
        elif key == "m":
            call.out[key] = _typed(where, line, key, value)
        elif key in ("flag", "index", "new", "r", "rank", "size", "rsize"):
            call.out[key] = _int(where, line, key, value)
        elif key == "color":
            call.out[key] = _typed(where, line, key, value)
        else:
            call.out[key] = value
    call.returned = True


def _status(where: _Lines, line: int, text: str) -> Status:
    parts = text.split(":")
    if len(parts) != 3:
        raise where.error(line, "st", f"expected SOURCE:TAG:BYTES, got {text!r}")
    source = PROC_NULL if parts[0] == "N" else ANY_SOURCE if parts[0] == "A" else \
        _int(where, line, "st", parts[0])
    tag = ANY_TAG if parts[1] == "A" else _int(where, line, "st", parts[1])
    return Status(source, tag, _int(where, line, "st", parts[2]))
