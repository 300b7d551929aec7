"""The trace: what happened, as numpy structured arrays.

During a run the engine packs each row into a growable byte buffer in its array's own
field widths (:class:`Rows`: no Python object kept per message): a buffer entry's when its
send is posted, a message's when it is posted, their later times written into the row as
they happen. At the
end :meth:`Recorder.build` turns them into the arrays of :class:`Trace`:

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

import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["BUFFER_DTYPE", "CALL_DTYPE", "ENTRY_DTYPE", "MESSAGE_DTYPE", "NAMED_BUFFER_DTYPE",
           "NAMED_ENTRY_DTYPE", "Recorder", "Trace"]

BUFFER_DTYPE = np.dtype([("rank", "i4"), ("time", "f8"), ("event", "U9"), ("capacity", "i8"),
                         ("used", "i8"), ("live", "i8"), ("entries", "i4"),
                         ("largest_free", "i8"), ("requested", "i8")])
ENTRY_DTYPE = np.dtype([("rank", "i4"), ("msg", "i8"), ("offset", "i8"), ("size", "i8"),
                        ("packed", "i8"), ("alloc", "f8"), ("done", "f8"), ("freed", "f8"),
                        ("attach", "i4")])
_BUFFER_RECORD = np.dtype([*BUFFER_DTYPE.descr, ("order", "i8")])  # + place in the event order
MESSAGE_DTYPE = np.dtype([("id", "i8"), ("src", "i4"), ("dst", "i4"), ("tag", "i4"),
                          ("bytes", "i8"), ("mode", "U11"), ("protocol", "U10"), ("post", "f8"),
                          ("match", "f8"), ("send_done", "f8"), ("recv_done", "f8")])
CALL_DTYPE = np.dtype([("rank", "i4"), ("call", "U20"), ("start", "f8"), ("end", "f8")])
BUFFER_EVENTS = ("attach", "bsend", "complete", "overflow", "detach")
"""The words of ``buffer["event"]`` (their codes are fixed when the recorder is made)."""
MESSAGE_MODES = ("standard", "buffered", "synchronous", "ready")
MESSAGE_PROTOCOLS = ("eager", "rendezvous")
NAMED_BUFFER_DTYPE = np.dtype([*BUFFER_DTYPE.descr, ("name", "U64")])
NAMED_ENTRY_DTYPE = np.dtype([*ENTRY_DTYPE.descr, ("name", "U64")])
_PACKED = {"i4": "i", "i8": "q", "f8": "d", "u2": "H"}  # numpy type -> struct code


def _recorded(dtype: np.dtype) -> np.dtype:
    """The layout a trace array is recorded in: its fields packed one after another, text
    ones as 2-byte codes into their vocabulary."""
    return np.dtype([(n, "u2" if dtype[n].kind == "U" else dtype[n].str[1:])
                     for n in dtype.names])


_MESSAGE_RECORD = _recorded(MESSAGE_DTYPE)
MATCH, SEND_DONE, RECV_DONE = (_MESSAGE_RECORD.fields[n][1]
                               for n in ("match", "send_done", "recv_done"))
"""Offsets in bytes of a message's times from its row in :attr:`Recorder.message_rows`."""
ENTRY_DONE, ENTRY_FREED = (_recorded(ENTRY_DTYPE).fields[n][1] for n in ("done", "freed"))
"""Offsets in bytes of a buffer entry's later times from its row in ``Recorder.entries.data``."""
NAN = float("nan")
put_time = struct.Struct("=d").pack_into
"""``put_time(rows, offset, t)``: write the time ``t`` at byte ``offset`` of ``rows``."""


@dataclass(frozen=True)
class Trace:
    """The recorded run (see the module docstring for the fields)."""

    buffer: np.ndarray
    entries: np.ndarray
    messages: np.ndarray
    calls: np.ndarray
    named_buffers: np.ndarray = field(default_factory=lambda: np.empty(0, NAMED_BUFFER_DTYPE))
    named_entries: np.ndarray = field(default_factory=lambda: np.empty(0, NAMED_ENTRY_DTYPE))

    def buffer_of(self, rank: int) -> np.ndarray:
        """The buffer rows of one rank, in time order."""
        return self.buffer[self.buffer["rank"] == rank]

    def calls_of(self, rank: int) -> np.ndarray:
        return self.calls[self.calls["rank"] == rank]


class Rows:
    """One trace array while it is recorded: its rows packed one after another into one
    growable ``bytearray``, in the array's own field order and widths (text fields as
    2-byte codes into their vocabulary). A row is one ``struct`` pack and one ``extend``,
    no Python object kept; :meth:`build` reads the bytes through numpy.

    Hot writers extend ``data`` with ``pack(*fields)`` themselves (what :meth:`append`
    does, without the call); a field written later, in place, is at byte
    ``record.fields[name][1]`` of its row."""

    __slots__ = ("data", "dtype", "pack", "record", "vocab")

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.record = _recorded(dtype)
        self.pack = struct.Struct("=" + "".join(_PACKED[self.record[n].str[1:]]
                                                for n in dtype.names)).pack
        self.data = bytearray()
        self.vocab: dict[str, dict[str, int]] = {n: {} for n in dtype.names
                                                  if dtype[n].kind == "U"}

    def append(self, *fields: Any) -> None:
        """Add one row (its fields in the array's order, text ones as codes)."""
        self.data.extend(self.pack(*fields))

    def code(self, column: str, word: str) -> int:
        """The code of ``word`` in a text column (a new one for a new word)."""
        vocab = self.vocab[column]
        c = vocab.get(word)
        if c is None:
            c = vocab[word] = len(vocab)
        return c

    def build(self, order: str | None = None, by: tuple[str, ...] = (),
              dtype: np.dtype | None = None) -> np.ndarray:
        """The structured array, sorted stably by column ``order`` or by the columns ``by``
        (the last one first, as ``np.lexsort``), if given; with the fields of ``dtype``
        only, if given (a subset of the recorded ones). The sort is applied column by
        column, so no second structured array is made."""
        rows = (np.frombuffer(self.data, dtype=self.record) if self.data
                else np.empty(0, self.record))
        n = len(rows)
        keys = (order,) if order is not None else by
        perm = np.lexsort([rows[k] for k in keys]) if keys and n else None
        out = np.empty(n, dtype=self.dtype if dtype is None else dtype)
        for name in out.dtype.names:
            column = rows[name] if perm is None else rows[name][perm]
            if name in self.vocab:
                words = np.array(list(self.vocab[name]) or [""], dtype=self.dtype[name])
                column = words[column]
            out[name] = column
        return out


class Recorder:
    """The run's trace while it is recorded: a message's or buffer entry's row is packed
    into its typed columns when it is posted and its later times are written into it in
    place, so that nothing of a finished message stays alive. ``enabled=False`` records
    nothing new."""

    def __init__(self, enabled: bool = True, clock: Any = None) -> None:
        self.enabled = enabled
        self.clock = clock  # a p2p.events.Clock: its current event orders the buffer rows
        self.buffer = Rows(_BUFFER_RECORD)
        self.entries = Rows(ENTRY_DTYPE)
        self.messages = Rows(MESSAGE_DTYPE)
        self.named_rows: list[tuple] = []
        self.named_entry_records: list[Any] = []  # communicators' and sessions' entries
        self._events = self.buffer.vocab["event"]
        self.event_codes = {event: self.buffer.code("event", event) for event in BUFFER_EVENTS}
        self._modes = {mode: self.messages.code("mode", mode) for mode in MESSAGE_MODES}
        self._protocols = {p: self.messages.code("protocol", p) for p in MESSAGE_PROTOCOLS}

    def order(self) -> int:
        """The place of the event being processed in the event order (see
        :func:`~mpisim.p2p.events.order_of`): buffer rows are sorted by (time, order), since
        a buffer entry's completion can be recorded after later rows (mpisim.buffered)."""
        if self.clock is None:
            return 0
        current = self.clock.current
        return (current[1] << 62) + current[2]

    def buffer_state(self, rank: int, time: float, event: str, capacity: int, used: int,
                     live: int, entries: int, largest_free: int, requested: int = 0,
                     order: int | None = None) -> None:
        if self.enabled:
            code = self._events.get(event)
            if code is None:
                code = self.buffer.code("event", event)
            self.buffer.append(rank, time, code, capacity, used, live, entries, largest_free,
                               requested, self.order() if order is None else order)

    def named_buffer_state(self, name: str, *row: Any) -> None:
        """A change of a communicator's or session's buffer (row as for ``buffer_state``)."""
        if self.enabled:
            self.named_rows.append((*row, name))

    def named_entry(self, record: Any) -> None:
        """An entry of a communicator's or session's buffer (``record.owner.name``)."""
        if self.enabled:
            self.named_entry_records.append(record)

    # -- entries: a row from posting on, its later times written into it ----------------
    def entry(self, record: Any) -> int:
        """Record a buffer entry whose send was just posted (its attributes are
        ENTRY_DTYPE's fields, as they are now); returns where its row is in
        :attr:`entries`' ``data`` (its completion and its freeing: :func:`put_time` at ``row +
        ENTRY_DONE``, ``row + ENTRY_FREED``, NaN until they happen); -1 when the recorder
        is off. Entries are recorded in allocation order, which is the rows' order."""
        if not self.enabled:
            return -1
        rows = self.entries
        row = len(rows.data)
        rows.data.extend(rows.pack(record.rank, record.msg, record.offset, record.size,
                                   record.packed, record.alloc, record.done, record.freed,
                                   record.attach))
        return row
    # -- messages: a row from posting on, its times written into it as they happen -------
    def message(self, msg: Any, now: float) -> int:
        """Record a message posted ``now``; returns where its times are in
        :attr:`message_times` (its match, send completion and delivery: ``row + MATCH``,
        ``row + SEND_DONE``, ``row + RECV_DONE``), NaN until they happen; -1 when the
        recorder is off. Nothing of the message is kept but its row."""
        if not self.enabled:
            return -1
        rows = self.messages
        row = len(rows.data)
        rows.data.extend(rows.pack(msg.id, msg.src, msg.dst, msg.tag, msg.nbytes,
                                   self._modes[msg.mode], self._protocols[msg.protocol], now,
                                   NAN, NAN, NAN))
        return row

    @property
    def message_rows(self) -> bytearray:
        """The messages' rows (a message's times: :func:`put_time` at its row + MATCH,
        SEND_DONE or RECV_DONE)."""
        return self.messages.data

    def build(self, calls: list[tuple[int, list, list]], end_time: float) -> Trace:
        """The arrays; ``calls`` is (rank, codes, starts, finished_at) per rank. Entries and
        messages still alive are shown as they are now (and recorded on as the run goes
        on, if it does)."""
        entry_rows = self.entries.build()
        named = np.array(self.named_rows, dtype=NAMED_BUFFER_DTYPE)
        named_entries = np.array([(*(getattr(e, f) for f in ENTRY_DTYPE.names), e.owner.name)
                                  for e in self.named_entry_records], dtype=NAMED_ENTRY_DTYPE)
        # by (time, order); stable: the rows of one event as they were made
        buffer_rows = self.buffer.build(by=("order", "time"), dtype=BUFFER_DTYPE)
        return Trace(buffer_rows, entry_rows, self.messages.build(order="id"),
                     _calls_array(calls), named, named_entries)


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
