"""The trace: what happened, as numpy structured arrays.

During a run the engine appends plain Python values to lists (cheap on the per-message
path); at the end :meth:`Recorder.build` turns them into the four arrays of :class:`Trace`:

- ``buffer``: one row per change of a rank's attached-buffer state (attach, bsend,
  complete, reclaim, overflow, detach) with capacity, used, live, entries, largest free
  block and the bytes a bsend requested;
- ``entries``: one row per buffer entry with its offset, size and the times it was
  allocated, completed (its send finished) and freed (its space returned);
- ``messages``: one row per message with envelope, mode, protocol and the times it was
  posted, matched, completed at the sender and delivered;
- ``calls``: one row per call interval of a rank (NaN end: still blocked when the run ended);
- ``named_buffers``: the rows of communicator and session buffers (MPI 4.1), as ``buffer``'s
  with the buffer's name; ``buffer`` holds the process buffers only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

__all__ = ["BUFFER_DTYPE", "CALL_DTYPE", "ENTRY_DTYPE", "MESSAGE_DTYPE", "NAMED_BUFFER_DTYPE",
           "Recorder", "Trace"]

BUFFER_DTYPE = np.dtype([("rank", "i4"), ("time", "f8"), ("event", "U9"), ("capacity", "i8"),
                         ("used", "i8"), ("live", "i8"), ("entries", "i4"),
                         ("largest_free", "i8"), ("requested", "i8")])
ENTRY_DTYPE = np.dtype([("rank", "i4"), ("msg", "i8"), ("offset", "i8"), ("size", "i8"),
                        ("packed", "i8"), ("alloc", "f8"), ("done", "f8"), ("freed", "f8"),
                        ("attach", "i4")])
MESSAGE_DTYPE = np.dtype([("id", "i8"), ("src", "i4"), ("dst", "i4"), ("tag", "i4"),
                          ("bytes", "i8"), ("mode", "U11"), ("protocol", "U10"), ("post", "f8"),
                          ("match", "f8"), ("send_done", "f8"), ("recv_done", "f8")])
CALL_DTYPE = np.dtype([("rank", "i4"), ("call", "U20"), ("start", "f8"), ("end", "f8")])
NAMED_BUFFER_DTYPE = np.dtype([*BUFFER_DTYPE.descr, ("name", "U64")])


@dataclass(frozen=True)
class Trace:
    """The recorded run (see the module docstring for the fields)."""

    buffer: np.ndarray
    entries: np.ndarray
    messages: np.ndarray
    calls: np.ndarray
    named_buffers: np.ndarray = field(default_factory=lambda: np.empty(0, NAMED_BUFFER_DTYPE))

    def buffer_of(self, rank: int) -> np.ndarray:
        """The buffer rows of one rank, in time order."""
        return self.buffer[self.buffer["rank"] == rank]

    def calls_of(self, rank: int) -> np.ndarray:
        return self.calls[self.calls["rank"] == rank]


class Recorder:
    """Append-only columns; ``enabled=False`` keeps only what summaries need."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.buffer_rows: list[tuple] = []
        self.entry_records: list[Any] = []  # the entries, with their times as attributes
        self.named_rows: list[tuple] = []

    def buffer_state(self, rank: int, time: float, event: str, capacity: int, used: int,
                     live: int, entries: int, largest_free: int, requested: int = 0) -> None:
        if self.enabled:
            self.buffer_rows.append((rank, time, event, capacity, used, live, entries,
                                     largest_free, requested))

    def named_buffer_state(self, name: str, *row: Any) -> None:
        """A change of a communicator's or session's buffer (row as for ``buffer_state``)."""
        if self.enabled:
            self.named_rows.append((*row, name))

    def entry(self, record: Any) -> None:
        if self.enabled:
            self.entry_records.append(record)

    def build(self, messages: list[Any] | None, calls: list[tuple[int, list, list]],
              end_time: float) -> Trace:
        """The arrays; ``calls`` is (rank, codes, starts, finished_at) per rank."""
        buffer = np.array(self.buffer_rows, dtype=BUFFER_DTYPE)
        entries = _columns(self.entry_records, ENTRY_DTYPE, {})
        msgs = _columns(messages or [], MESSAGE_DTYPE, {"bytes": "nbytes"})
        named = np.array(self.named_rows, dtype=NAMED_BUFFER_DTYPE)
        return Trace(buffer, entries, msgs, _calls_array(calls), named)


def _columns(objects: list[Any], dtype: np.dtype, renamed: dict[str, str]) -> np.ndarray:
    """A structured array from objects' attributes, one column at a time (much faster than
    a list of tuples for the string columns)."""
    out = np.empty(len(objects), dtype=dtype)
    for name in dtype.names:
        out[name] = list(map(attrgetter(renamed.get(name, name)), objects))
    return out


def _calls_array(calls: list[tuple]) -> np.ndarray:
    """A call ends when the next one starts: programs take no simulated time between calls."""
    total = sum(len(c[1]) for c in calls)
    out = np.empty(total, dtype=CALL_DTYPE)
    i = 0
    for rank, codes, starts, finished_at in calls:
        n = len(codes)
        if n == 0:
            continue
        sl = slice(i, i + n)
        out["rank"][sl] = rank
        out["call"][sl] = codes
        st = np.asarray(starts, dtype="f8")
        out["start"][sl] = st
        ends = np.empty(n)
        ends[:-1] = st[1:]
        ends[-1] = np.nan if finished_at is None else finished_at
        out["end"][sl] = ends
        i += n
    return out
