"""What a recording's buffers and data show (MPI 4.1 §3.7.2, §12.7), read from the logs.

The recorder logs the memory each buffer argument spans (``sb=``/``rb=``/``wb=``
``ADDR:BYTES``) and, unless recorded with ``--no-hash``, a hash of the bytes a send gave at
its call and found at its completion, and of those a receive got (the data lines,
:attr:`~mpisim.recorded.read.records.RankLog.data`). A replay has no data, so these rules
are judged on the recording itself, once per run, before the calls are replayed:

- ``buffer-modified`` (§3.7.2): a nonblocking send whose buffer's hash at the wait or test
  that completed it differs from its hash at the call: the program wrote the buffer while
  the send was pending (what the receiver gets depends on timing). A persistent send
  (§3.9) is pending from each ``MPI_Start``/``MPI_Startall`` of it, hashed there, to its
  completion; between a completion and the next start its buffer is the program's. A
  nonblocking collective's send buffer (§6.12) is judged the same way, and a persistent
  collective's (§6.13) from each start.
- ``recv-overlap`` (§3.7.2): a receive (or a collective's receive buffer) posted, or a
  persistent receive started, while a pending nonblocking one spans some of the same
  bytes. Ranges are compared only for datatypes without holes (size = extent): a vector's
  range is its bounding span, and two column types of one matrix overlap as spans, not as
  bytes.
- ``rma-local-overlap`` (§12.7, §3.7.2): an RMA operation's target bytes (the target's
  window base from its ``Win_create``/``Win_allocate``, plus ``tdisp`` times its
  displacement unit, for ``tn`` elements of ``tT``) and a send or receive at the target on
  the same bytes, pending in the same fence epoch, one of them writing. Fence epochs only
  (counted per window, on windows made over MPI_COMM_WORLD): a lock or post/start epoch has
  no order between the target's own calls and the origin's to compare in a log.

What a log cannot show is written in the correctness guide: a receive buffer *read* before
completion, and a local load or store racing an RMA operation in one epoch.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, NamedTuple

from ...handle.access import lifecycle_of
from ...mpi.findings import Call as FindingCall
from ..calls import COLLECTIVES, COMPLETIONS
from ..read.records import Call, RankLog, Trace, data_fields

__all__ = ["buffer_findings", "hashed", "report_buffers", "report_spawned_buffers",
           "sent_hash"]

Found = tuple[str, str, tuple[FindingCall, ...]]  # (rule, message, calls)

_NONBLOCKING_SENDS = ("Isend", "Ibsend", "Issend", "Irsend")
_NONBLOCKING_RECVS = ("Irecv", "Imrecv")
_PERSISTENT_INITS = frozenset(("Send_init", "Bsend_init", "Ssend_init", "Rsend_init",
                               "Recv_init", *(f"{n}_init" for n in COLLECTIVES
                                              if not n.startswith("I"))))
_STARTS = ("Start", "Startall")
_TESTS = ("Test", "Testall", "Testany", "Testsome")
_COMPLETING = (*COMPLETIONS, "Testany", "Testsome")
_I_COLLECTIVES = frozenset(n for n in COLLECTIVES if n.startswith("I"))
_RMA_WRITES = ("Put", "Rput", "Accumulate", "Raccumulate", "Get_accumulate",
               "Rget_accumulate", "Fetch_and_op", "Compare_and_swap")
_RMA_READS = ("Get", "Rget")
_BUFFER_KEYS = ("sb", "rb", "wb")


class Span(NamedTuple):
    """Bytes ``[lo, hi)`` of a process's memory."""

    lo: int
    hi: int

    def meets(self, other: Span) -> bool:
        return self.lo < other.hi and other.lo < self.hi


class Pending(NamedTuple):
    """A nonblocking operation in flight: its call, whether it sends, its buffer, its hash
    at the call (sends); for a persistent request started, the call that made it."""

    call: Call
    sends: bool
    span: Span | None
    hashed: str | None
    made: Call | None = None


class Touch:
    """A send or receive of a process that has windows: its call, its bytes, whether it
    writes them, the indices of its call and of the call that completed it."""

    def __init__(self, call: Call, span: Span, writes: bool, posted: int) -> None:
        self.call, self.span, self.writes = call, span, writes
        self.posted = posted
        self.completed: int | None = posted if "r" not in call.out else None


def span_of(text: Any) -> Span | None:
    """``ADDR:BYTES`` (hex address, decimal bytes) as a :class:`Span`; None if not one."""
    if not isinstance(text, str):
        return None
    addr, _, size = text.partition(":")
    try:
        lo, n = int(addr, 16), int(size)
    except ValueError:
        return None
    return Span(lo, lo + n) if n > 0 else None


def buffer_findings(trace: Trace) -> list[Found]:
    """Every finding of the module's rules in ``trace`` (nothing for a recording made
    before buffers were logged)."""
    found: list[Found] = []
    ranks = [_Rank(log) for log in trace.ranks]
    for rank in ranks:
        if rank.logged:
            found += rank.walk()
    windows = {r.log.rank: r.windows for r in ranks if r.windows}
    for rank in ranks:
        for op in rank.rma:
            found += _rma_against(op, ranks, windows)
    return found


class _Rank:
    """One process's log walked in order: its pending operations, windows and fences;
    ``number``: the process's in the replay's reports (default its rank)."""

    def __init__(self, log: RankLog, number: int | None = None) -> None:
        self.log = log
        self.number = log.rank if number is None else number
        names = {s.name for s in log.calls.shapes}
        self.logged = any(k in s.args for s in log.calls.shapes for k in _BUFFER_KEYS) or \
            any(k in r.out for r in log.calls.results for k in _BUFFER_KEYS)
        self.fenced = "Win_fence" in names
        self.windows: dict[int, tuple[Span, int, int]] = {}  # win id -> base, unit, comm
        self.rma: list[tuple[Call, dict[int, int], int]] = []  # (call, epochs, rank)
        self.touches: list[Touch] = []  # its sends and receives once it has a window
        self.touching: dict[int, Touch] = {}  # by request id, until completed
        self.fences: dict[int, list[int]] = {}  # win id -> the indices of its fences
        self.pending: dict[int, Pending] = {}
        self.persistent: dict[int, tuple[Call, bool, Span | None]] = {}  # by request id

    def walk(self) -> list[Found]:
        found: list[Found] = []
        calls = self.log.calls
        wanted = {i for i, s in enumerate(calls.shapes) if _wanted(s.name, s.args)}
        for lo, shape_ids, _results, _gaps in calls.strides():
            for i, s in enumerate(shape_ids, lo):
                if s in wanted:
                    found += self._call(calls.call(i), i)
        return found

    def _call(self, call: Call, i: int) -> list[Found]:
        name = call.name
        if name in ("Win_create", "Win_allocate"):
            self._window(call)
        elif name == "Win_fence":
            self.fences.setdefault(call.args.get("win", 0), []).append(i)
        elif name in _RMA_WRITES or name in _RMA_READS:
            epochs = {w: len(f) for w, f in self.fences.items()}
            self.rma.append((call, epochs, self.log.rank))
        elif name in _COMPLETING:
            return self._completed(call, i)
        elif name in _STARTS:
            return self._started(call, i)
        else:
            return self._posted(call, i)
        return []

    def _window(self, call: Call) -> None:
        span = span_of(call.args.get("wb", call.out.get("wb")))
        if span is not None and "win" in call.out:
            self.windows[call.out["win"]] = (span, int(call.args.get("du", 1)),
                                             int(call.args.get("comm", 0)))

    def _posted(self, call: Call, i: int) -> list[Found]:
        """A send or receive (blocking or not), a nonblocking collective."""
        name = call.name
        sends = "sb" in call.args and "rb" not in call.args
        span = span_of(call.args.get("rb" if not sends else "sb")) if self.dense(call) \
            else None
        if span is not None and self.windows and self.fenced:
            touch = Touch(call, span, not sends, i)
            self.touches.append(touch)
            if "r" in call.out:
                self.touching[call.out["r"]] = touch
        if not call.returned or call.error is not None:
            return []
        if name in _PERSISTENT_INITS:  # (inactive until started: _started)
            if "r" in call.out:
                self.persistent[call.out["r"]] = (call, sends, span)
            return []
        found: list[Found] = []
        if span is not None and not sends:  # (a blocking receive too writes there)
            found += self._overlaps(call, span)
        if "r" not in call.out:
            return found
        data = data_fields(self.log.data.get(i, ""))
        hashed = (data.get("h") or [None])[0]
        if name in _NONBLOCKING_SENDS or name in _NONBLOCKING_RECVS or \
                name in _I_COLLECTIVES or name == "Isendrecv":
            self.pending[call.out["r"]] = Pending(call, name in _NONBLOCKING_SENDS, span,
                                                  hashed)
        return found

    def dense(self, call: Call, key: str = "T") -> bool:
        """Whether the call's datatype has no holes (size = extent), so that its range is
        its bytes: a vector's range spans bytes it never touches (a matrix's columns
        received at once overlap as ranges, never as bytes), not compared."""
        t = self.log.types.get(call.args.get(key, 0))
        return t is not None and t.size == t.extent

    def epoch_at(self, win: int, index: int) -> int:
        """The fence epoch of ``win`` at call ``index``: the fences on it before."""
        return bisect_left(self.fences.get(win, []), index)

    def _overlaps(self, call: Call, span: Span) -> list[Found]:
        found: list[Found] = []
        for other in self.pending.values():
            if other.sends or other.span is None or not other.span.meets(span):
                continue
            both = span.hi - span.lo, other.span.hi - other.span.lo
            found.append(("recv-overlap", (
                f"MPI_{call.name} (call {call.number}) receives into bytes that the pending "
                f"MPI_{other.call.name} (call {other.call.number}) also receives into "
                f"({both[0]} and {both[1]} bytes, overlapping by "
                f"{min(span.hi, other.span.hi) - max(span.lo, other.span.lo)}): which "
                "message ends there depends on timing"),
                (self._at(other.call), self._at(call))))
        return found

    def _started(self, call: Call, i: int) -> list[Found]:
        """MPI_Start/MPI_Startall (§3.9): each persistent request started is pending, as the
        nonblocking call its init names would be, with its data's hash at the start."""
        if not call.returned or call.error is not None:
            return []
        hashes = data_fields(self.log.data.get(i, "")).get("h", [])
        found: list[Found] = []
        for k, rid in enumerate(_ids(call)):
            made = self.persistent.get(rid) if rid else None
            if made is None:
                continue
            init, sends, span = made
            if span is not None and not sends:
                found += self._overlaps(call, span)
            hashed = hashes[k] if k < len(hashes) else None  # (a send buffer's, "-" else)
            self.pending[rid] = Pending(call, sends, span, hashed, init)
        return found

    def _completed(self, call: Call, i: int) -> list[Found]:
        """A wait or test: the requests it completed, in the order of its statuses."""
        if not call.returned or call.error is not None:
            return []
        done = _completed_ids(call)
        hashes = data_fields(self.log.data.get(i, "")).get("w", [])
        found: list[Found] = []
        for k, rid in enumerate(done):
            touch = self.touching.pop(rid, None) if rid else None
            if touch is not None:
                touch.completed = i
            op = self.pending.pop(rid, None) if rid else None
            if op is None or op.hashed is None:  # (only a send buffer is hashed at its call)
                continue
            now = hashes[k] if k < len(hashes) else None
            if now is not None and now != op.hashed:
                sent = f"MPI_{op.call.name} (call {op.call.number})"
                made = () if op.made is None else (self._at(op.made),)
                if op.made is not None:
                    sent = (f"the persistent request MPI_{op.made.name} (call "
                            f"{op.made.number}) made, started by {sent},")
                found.append(("buffer-modified", (
                    f"the buffer of {sent} changed before MPI_{call.name} (call "
                    f"{call.number}) completed it: its bytes' hash was {op.hashed} at the "
                    f"{'start' if made else 'call'}, {now} at the completion, so what "
                    f"{_receivers(op.made or op.call)} got depends on timing"),
                    (*made, self._at(op.call), self._at(call))))
        if call.name == "Request_free":
            for rid in _ids(call):
                self.pending.pop(rid, None)
                self.persistent.pop(rid, None)
        return found

    def _at(self, call: Call) -> FindingCall:
        return FindingCall(self.number, f"MPI_{call.name}", call.where())


def _wanted(name: str, args: dict[str, Any]) -> bool:
    """Whether a call's shape matters here (the others are not made into calls)."""
    return (name in _COMPLETING or name == "Request_free" or name == "Win_fence"
            or name in _STARTS
            or name in ("Win_create", "Win_allocate") or name in _RMA_WRITES
            or name in _RMA_READS or "sb" in args or "rb" in args)


def _receivers(call: Call) -> str:
    """Who gets a send's bytes, in words."""
    name = call.name.removesuffix("_init")
    return "the other processes" if name in COLLECTIVES else "the receiver"


def _ids(call: Call) -> list[Any]:
    """The request ids a call names (``r=``), as a list."""
    ids = call.args.get("r", [])
    return list(ids) if isinstance(ids, (list, tuple)) else [ids]


def _completed_ids(call: Call) -> list[int | None]:
    """The ids of the requests ``call`` completed, in the order of its result's statuses."""
    ids = call.args.get("r", [])
    name = call.name
    if name in _TESTS and name not in ("Testany", "Testsome") and call.out.get("flag") != 1:
        return []
    if name in ("Waitany", "Testany"):
        index = call.out.get("index", -1)
        return [ids[index]] if index is not None and 0 <= index < len(ids) else []
    if name in ("Waitsome", "Testsome"):
        return [ids[j] for j in call.out.get("done", []) if 0 <= j < len(ids)]
    return list(ids)


def _rma_against(op: tuple[Call, dict[int, int], int], ranks: list[_Rank],
                 windows: dict[int, dict[int, tuple[Span, int, int]]]) -> list[Found]:
    """An RMA operation against the sends and receives at its target on the same window
    bytes in the same fence epoch (one of the two writing)."""
    call, epochs, origin = op
    win, target = call.args.get("win", 0), call.args.get("tgt")
    if not isinstance(target, int) or not 0 <= target < len(ranks):
        return []
    theirs = windows.get(target, {}).get(win)
    mine = ranks[origin].windows.get(win)
    if theirs is None or mine is None or theirs[2] != 0 or win not in epochs:
        return []  # (a window over another communicator: its group's ranks are not known)
    base, unit, _ = theirs
    types = ranks[origin].log.types
    t = types.get(call.args.get("tT", 0))
    if t is None or not ranks[origin].dense(call, "tT"):
        return []
    lo = base.lo + int(call.args.get("tdisp", 0)) * unit
    n = int(call.args.get("tn", 0))
    if n <= 0:
        return []
    span = Span(lo, lo + (n - 1) * t.extent + max(t.size, 1))
    writes = call.name in _RMA_WRITES
    epoch = epochs[win]
    found: list[Found] = []
    rank = ranks[target]
    for touch in rank.touches:
        if not (writes or touch.writes) or not touch.span.meets(span):
            continue
        first = rank.epoch_at(win, touch.posted)
        last = rank.epoch_at(win, touch.completed) if touch.completed is not None else None
        if first <= epoch and (last is None or epoch <= last):
            p2p = touch.call
            found.append(("rma-local-overlap", (
                f"MPI_{call.name} (rank {origin}, call {call.number}) "
                f"{'writes' if writes else 'reads'} bytes of rank {target}'s window that its "
                f"MPI_{p2p.name} (call {p2p.number}) "
                f"{'receives into' if touch.writes else 'sends'} in the same fence epoch: "
                "their order is not defined"),
                (FindingCall(origin, f"MPI_{call.name}", call.where()),
                 FindingCall(target, f"MPI_{p2p.name}", p2p.where()))))
    return found


def report_buffers(mpi: Any, trace: Trace) -> None:
    """Add the module's findings of ``trace`` to the run's (once per run: called by rank
    0's replay; judged once per recording)."""
    life = lifecycle_of(mpi)
    if life is None:
        return
    found = getattr(trace, "_buffer_findings", None)
    if found is None:
        found = buffer_findings(trace)
        trace._buffer_findings = found  # type: ignore[attr-defined]
    _add(life, found)


def report_spawned_buffers(mpi: Any, log: RankLog) -> None:
    """Add a spawned process's findings (MPI 4.1 §11.8.2) to the run's, named by its number
    in the replay (known once it starts): its own sends and receives, as a rank's
    (``rma-local-overlap`` compares the recording's ranks' windows only)."""
    life = lifecycle_of(mpi)
    rank = _Rank(log, mpi.rank)
    if life is not None and rank.logged:
        _add(life, rank.walk())


def _add(life: Any, found: list[Found]) -> None:
    for rule, message, calls in found:
        life.findings.add(rule, message, calls)


_CALL_NUMBER = re.compile(r"call (\d+)")


def sent_hash(trace: Trace, rank: int, where: Any) -> str | None:
    """The hash of the bytes the send of ``rank`` at ``where`` (a replayed call's place,
    ``call N, SITE``) gave at its call; None when not recorded (``--no-hash``, a datatype
    not hashed, a recording made before data were)."""
    found = _CALL_NUMBER.match(where) if isinstance(where, str) else None
    if found is None or not 0 <= rank < len(trace.ranks):
        return None
    text = trace.ranks[rank].data.get(int(found.group(1)) - 1)
    sent = data_fields(text).get("h", []) if text else []
    return sent[0] if len(sent) == 1 else None  # (an MPI_Startall's: which is not known)


def hashed(trace: Trace) -> bool:
    """Whether the recording holds data hashes at all."""
    return any(log.data for log in trace.ranks)
