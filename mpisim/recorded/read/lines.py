"""The grammar of a recording's lines (the format is :mod:`.trace`'s docstring): one function
per kind of line, and :func:`parse_log`, which reads one process's log a line at a time.

:mod:`.columns` reads logs faster by reading each distinct line shape once with these same
functions; whenever a log is not as the recorder writes it (a bad line, fields out of their
order, a call before its result), it is read here instead, line by line, so that a problem
is always reported at the first line that has it, naming the file, line and key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from .records import (
    MAX_DATA,
    CallList,
    CallShape,
    RankLog,
    ResultShape,
    Site,
    Status,
    TraceError,
    TypeInfo,
)

__all__ = ["MAGIC", "VERSION", "Where", "call_shape", "finish_log", "header_line", "parse_log",
           "result_shape", "site_line", "type_line"]

MAGIC = "#mpisim-trace"
VERSION = "1"


class Where:
    """Problem reporting for one log."""

    def __init__(self, path: str) -> None:
        self.path = path

    def error(self, line: int, key: str, problem: str) -> TraceError:
        return TraceError(f"{self.path}:{line}: {key}: {problem}")


def check_version(where: Where, line: int, text: str) -> None:
    first = text.split()
    if len(first) < 2 or first[1] != VERSION:
        raise where.error(line, "#mpisim-trace", f"version {first[1:] or '?'} is not "
                          f"supported (this mpisim reads version {VERSION})")


class LogEnd:
    """What a log's ``#`` lines say: its header, and how and where the process ended."""

    def __init__(self) -> None:
        self.header: dict[str, str] = {}
        self.signal: str | None = None
        self.exited: str | None = None
        self.last: tuple[str, float] | None = None
        self.broken: str | None = None
        """Why the log is read only up to a call in progress (a call line followed by
        another call's: the process went on, its result line never written)."""


def header_line(where: Where, line: int, text: str, end: LogEnd) -> None:
    """A ``#`` line: a header, ``# signal N``/``# exit`` (how the process ended), a comment."""
    key, _, value = text[1:].strip().partition(" ")
    if key in ("signal", "exit"):
        words = value.split()
        if key == "signal" and end.signal is None:
            end.signal = f"signal {words[0] if words else '?'}"
        elif key == "exit":
            end.exited = "exit"
        since = _since(where, line, words)
        if since is not None and end.last is None:
            end.last = since
    elif key:
        end.header.setdefault(key, value.strip())


def comm_line(where: Where, line: int, text: str) -> tuple[int, dict[str, str]]:
    """``C ID size=S rank=R origin=unlogged``: a communicator made by a call not logged."""
    parts = text.split()
    if len(parts) < 2:
        raise where.error(line, "C", "expected 'C ID size=... rank=...'")
    return _int(where, line, "C", parts[1]), _fields(where, line, parts[2:])


def parse_log(path: str, lines: list[str], start: int, stop: int, base: int = 0) -> RankLog:
    """The log in ``lines[start:stop]`` (its first line the magic one), read line by line;
    ``base`` is the file's line number of ``lines[0]`` less one."""
    where = Where(path)
    check_version(where, base + start + 1, lines[start])
    end = LogEnd()
    types: dict[int, TypeInfo] = {}
    sites: dict[int, Site] = {}
    comms: dict[int, dict[str, Any]] = {}
    shapes: list[CallShape] = []
    results: list[ResultShape] = []
    gaps: list[float] = []
    durations: list[float] = []
    numbers: list[int] = []
    returned: list[int] = []
    open_threads: set[int] = set()  # threads whose call in progress the log ends inside
    data: dict[int, str] = {}
    for index in range(start + 1, stop):
        text = lines[index]
        number = base + index + 1
        if not text:
            continue
        head = text[0]
        if head == "#":
            header_line(where, number, text, end)
        elif head == "=":
            if not shapes or returned[-1] >= 0:
                raise where.error(number, "=", "a result line without a call before it")
            result, duration = result_shape(where, number, text)
            returned[-1] = len(results)
            results.append(result)
            durations[-1] = duration
        elif head in "T@CH" and text[1:2] == " ":
            _described(where, number, text, (types, sites, comms, data), len(shapes) - 1)
        else:
            shape, gap = call_shape(where, number, text)
            if shape.site is not None and shape.site not in sites:  # not described yet
                shape = CallShape(shape.name, shape.args, None)
            if _reopened(shape, shapes, returned, open_threads):  # ends inside its call
                end.broken = (f"line {number} starts another call (MPI_{shape.name}) before "
                              f"it returned; the log's {stop - index} lines from there are "
                              "not read")
                break
            shapes.append(shape)
            gaps.append(gap)
            durations.append(0.0)
            numbers.append(number)
            returned.append(-1)
    calls = CallList(shapes, results, np.arange(len(shapes), dtype=np.int32),
                     np.array(returned, dtype=np.int32), np.array(gaps, dtype=np.float64),
                     np.array(durations, dtype=np.float64), np.array(numbers, dtype=np.int64),
                     sites)
    log = finish_log(where, base + start + 2, path, end, calls, types, sites, comms)
    log.data = data
    return log


def _described(where: Where, number: int, text: str, into: tuple[dict, dict, dict, dict],
               last: int) -> None:
    """A ``T``, ``@``, ``C`` or ``H`` line (``H``: the data of the call before it, ``last``)."""
    types, sites, comms, data = into
    head = text[0]
    if head == "T":
        t = type_line(where, number, text)
        types[t.id] = t
    elif head == "@":
        s = site_line(where, number, text)
        sites[s.id] = s
    elif head == "C":
        cid, fields = comm_line(where, number, text)
        comms[cid] = fields
    elif last >= 0 and len(data) < MAX_DATA:
        data[last] = text[2:]


def _reopened(shape: CallShape, shapes: list[CallShape], returned: list[int],
              open_threads: set[int]) -> bool:
    """Whether ``shape``'s thread has a call in progress before it (kept in
    ``open_threads``: a call without its result followed by another call, of another
    thread under MPI_THREAD_MULTIPLE, MPI 4.1 §11.6)."""
    if shapes and returned[-1] < 0:
        open_threads.add(shapes[-1].args.get("t", 0))
    return shape.args.get("t", 0) in open_threads


def after_open(threads: list[int], open_calls: list[bool]) -> int | None:
    """The index of the first call whose thread has a call in progress before it (the log
    then goes on past that call: it is read up to there), None when every call in progress
    is its thread's last (MPI 4.1 §11.6: one per thread at a threaded log's end)."""
    busy: set[int] = set()
    for i, (thread, still_open) in enumerate(zip(threads, open_calls, strict=True)):
        if thread in busy:
            return i
        if still_open:
            busy.add(thread)
    return None


def finish_log(where: Where, rank_line: int, path: str, end: LogEnd, calls: CallList,
               types: dict[int, TypeInfo], sites: dict[int, Site],
               comms: dict[int, dict[str, Any]]) -> RankLog:
    """The log once its lines are read: how the process ended, its rank, its statuses'
    MPI_ANY_SOURCE made mpisim's."""
    n = len(calls)
    last = calls.name(n - 1) if n else None
    finalized = last == "Finalize" and calls.returned(n - 1)
    aborted = last == "Abort"
    ended = "cut" if end.broken else end.signal or (
        "finalized" if finalized else "abort" if aborted else end.exited or "cut")
    rank_text = end.header.get("rank", "").split()
    if len(rank_text) != 2 or not all(t.isdigit() for t in rank_text):
        raise where.error(rank_line, "#rank", "missing or not 'RANK SIZE'")
    rank, size = int(rank_text[0]), int(rank_text[1])
    calls.results[:] = [_any_source(end.header.get("any-source", ""), r) for r in calls.results]
    if not 0 <= rank < size:
        raise where.error(rank_line, "#rank", f"rank {rank} is not in 0..{size - 1}")
    return RankLog(rank, size, end.header, calls, types, sites, comms, ended, path,
                   None if end.broken else end.last, end.broken)


def _any_source(value: str, result: ResultShape) -> ResultShape:
    """Statuses whose source is the library's MPI_ANY_SOURCE written as a number (the
    recorder writes ``A`` since; Open MPI's is -1, mpisim's -2) made mpisim's."""
    if not value.lstrip("-").isdigit() or int(value) == ANY_SOURCE:
        return result
    theirs = int(value)
    st = result.out.get("st")
    if not st or not any(s is not None and s.source == theirs for s in st):
        return result
    fixed = [Status(ANY_SOURCE, s.tag, s.count) if s is not None and s.source == theirs else s
             for s in st]
    return ResultShape(result.error, {**result.out, "st": fixed})


def _since(where: Where, line: int, words: list[str]) -> tuple[str, float] | None:
    """``g=NS`` (outside MPI for so long) or ``in=NS`` (inside the call in progress) of a
    ``# signal``/``# exit`` line; None in recordings made before they were logged."""
    for word in words[1:] if words and "=" not in words[0] else words:
        key, _, value = word.partition("=")
        if key in ("g", "in"):
            return key, _int(where, line, key, value) * 1e-9
    return None


def _fields(where: Where, line: int, parts: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise where.error(line, part, "expected key=value")
        out[key] = value
    return out


def _int(where: Where, line: int, key: str, text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise where.error(line, key, f"expected an integer, got {text!r}") from None


def type_line(where: Where, line: int, text: str) -> TypeInfo:
    parts = text.split()
    if len(parts) < 2:
        raise where.error(line, "T", "expected 'T ID size=... extent=... kind=...'")
    f = _fields(where, line, parts[2:])
    for key in ("size", "extent", "kind"):
        if key not in f:
            raise where.error(line, key, "missing in a datatype description")
    return TypeInfo(_int(where, line, "T", parts[1]), _int(where, line, "size", f["size"]),
                    _int(where, line, "extent", f["extent"]),
                    _int(where, line, "lb", f.get("lb", "0")), f["kind"], f.get("name"),
                    _signature(where, line, f["sig"]) if "sig" in f else None)


def _signature(where: Where, line: int, text: str) -> tuple[tuple[str, int], ...]:
    """``sig=MPI_INT*4,MPI_DOUBLE*1``: a derived type's basic types, run by run."""
    runs = []
    for part in text.split(","):
        name, star, copies = part.rpartition("*")
        if not star or not name:
            raise where.error(line, "sig", f"expected NAME*COPIES, got {part!r}")
        runs.append((name, _int(where, line, "sig", copies)))
    return tuple(runs)


def site_line(where: Where, line: int, text: str) -> Site:
    parts = text.split()
    if len(parts) < 4:
        raise where.error(line, "@", "expected '@ ID OBJECT OFFSET [SYMBOL]'")
    return Site(_int(where, line, "@", parts[1]), parts[2], _int(where, line, "@", parts[3]),
                parts[4] if len(parts) > 4 else None)


# Argument kinds: peer (rank, A, N), tag (int, A), int, ints (comma list), reqs (ids, 0, ?)
_KINDS = {"dest": "peer", "src": "peer", "tag": "tag", "rtag": "tag", "comm": "int",
          "n": "int", "T": "int", "rn": "int", "rT": "int", "pk": "int", "root": "int",
          "r": "reqs", "ns": "ints", "Ts": "ints", "key": "int", "code": "int",
          # the v and w collectives' blocks (§6.5 to §6.8): send displacements, a receiving
          # rank's counts, displacements and types per rank, its own part MPI_IN_PLACE
          "ds": "ints", "rns": "ints", "rds": "ints", "rTs": "ints", "ip": "int",
          "thread": "int", "t": "int",
          # communicator makers (MPI 4.1 §7, §8): topologies, groups, intercommunicators
          "dims": "ints", "periods": "ints", "reorder": "int", "remain": "ints",
          "index": "ints", "edges": "ints", "ins": "ints", "outs": "ints", "sw": "ints",
          "dw": "ints", "srcs": "ints", "degs": "ints", "dsts": "ints", "wts": "ints",
          "grp": "ints", "ll": "int", "peer": "int", "rl": "int", "high": "int",
          # dynamic processes (§11.8): the root's maxprocs, one per command
          "np": "ints",
          # matched probes (MPI 4.1 §3.8.2): the message a probe took, received by id
          "m": "message",
          # groups, sessions (§7.3, §11.3); windows and their operations (§12)
          "gid": "int", "sid": "int", "ranks": "ints", "win": "int", "du": "int",
          "tgt": "peer", "tdisp": "int", "tn": "int", "tT": "int",
          # user-defined reduction operations (§6.9.5)
          "commute": "int",
          # MPI-IO (§14): files, offsets, views (etype, filetype), the size before an open
          "fh": "int", "off": "int", "disp": "int", "eT": "int", "fT": "int", "was": "int"}


def call_shape(where: Where, line: int, text: str) -> tuple[CallShape, float]:
    """A call line: its shape and the time outside MPI before it (s)."""
    parts = text.split(" ")
    name = parts[0]
    if not name.replace("_", "").isalnum() or not name[:1].isupper():
        raise where.error(line, name or "?", "not a call, a result or a description line")
    raw = _fields(where, line, [p for p in parts[1:] if p])
    if "g" not in raw:
        raise where.error(line, name, "missing g= (time outside MPI before the call)")
    gap = _int(where, line, "g", raw.pop("g")) * 1e-9
    site_id = raw.pop("@", None)
    site = _int(where, line, "@", site_id) if site_id is not None else None
    args = {key: _typed(where, line, key, value) for key, value in raw.items()}
    return CallShape(name, args, site), gap


def _typed(where: Where, line: int, key: str, value: str) -> Any:
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


def result_shape(where: Where, line: int, text: str) -> tuple[ResultShape, float]:
    """A result line: its shape and the call's duration (s)."""
    parts = [p for p in text.split(" ")[1:] if p]
    if not parts:
        raise where.error(line, "=", "expected '= RC d=NS ...'")
    rc = parts[0]
    raw = _fields(where, line, parts[1:])
    duration = _int(where, line, "d", raw.pop("d", "0")) * 1e-9
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "st":
            out["st"] = [None if v == "-" else _status(where, line, v) for v in value.split(",")]
        elif key == "done":
            out["done"] = [] if value == "-" else [_int(where, line, key, v)
                                                   for v in value.split(",")]
        elif key in ("m", "color"):
            out[key] = _typed(where, line, key, value)
        elif key in ("flag", "index", "new", "r", "rank", "size", "rsize", "win", "gid",
                     "sid", "fh", "nb", "pos"):
            out[key] = _int(where, line, key, value)
        elif key == "wr":  # a new group's members as world ranks
            out[key] = _typed(where, line, "grp", value)
        else:
            out[key] = value
    return ResultShape(None if rc == "0" else rc, out), duration


def _status(where: Where, line: int, text: str) -> Status:
    parts = text.split(":")
    if len(parts) != 3:
        raise where.error(line, "st", f"expected SOURCE:TAG:BYTES, got {text!r}")
    source = PROC_NULL if parts[0] == "N" else ANY_SOURCE if parts[0] == "A" else \
        _int(where, line, "st", parts[0])
    tag = ANY_TAG if parts[1] == "A" else _int(where, line, "st", parts[1])
    return Status(source, tag, _int(where, line, "st", parts[2]))
