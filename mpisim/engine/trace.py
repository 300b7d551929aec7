"""The trace: what happened, as numpy structured arrays.

During a run the engine packs each row into a growable byte buffer (:class:`Rows`: no Python
object kept per message): a buffer entry's when its send is posted, a message's when it is
posted, a call's when it starts, their later times written into the row as they happen.
When the trace is first read, :meth:`Recorder.build` turns them into the arrays of
:class:`Trace`:

- ``buffer``: one row per change of a rank's attached-buffer state (attach, bsend,
  complete, overflow, detach) with capacity, used, live, entries, largest free block and
  the bytes a bsend requested;
- ``entries``: one row per buffer entry with its offset, size and the times it was
  allocated, completed (its send finished) and freed (its space returned);
- ``messages``: one row per message with envelope, mode, protocol and the times it was
  posted, matched, completed at the sender and delivered;
- ``calls``: one row per call interval of a rank (NaN end: still blocked when the run ended);
- ``named_buffers``: the rows of communicator and session buffers (MPI 4.1), as ``buffer``'s
  with the buffer's name; ``buffer`` holds the process buffers only;
- ``rma``: one row per one-sided operation (MPI 4.1 §12.3): its window, origin, target,
  call, bytes, when it left, reached its target and was applied there (NaN: never);
- ``epochs``: one row per epoch of a rank on a window (§12.5): a fence round, an access
  epoch (start, lock, lock_all) or an exposure epoch (post), its target or origin (-1: a
  group), its start and end (NaN: still open when the run ended).

What is recorded is what changed; the rest is derived once, vectorised, when the arrays are
built: 214 bytes are recorded per bsend and its receive (a message row of 54 bytes, an
entry row of 132 and two call rows of 14), against 231 when a bsend's buffer row was a row
of its own and 292 when every column was recorded:

- a message's row has no id: the transport numbers messages from 0 in the order it posts
  them, and each one is recorded while the trace is on (recording stops for good), so the
  id is the row's index; an id that is not (a recorder used otherwise) is kept aside;
- text columns (call names, events, modes, protocols) are 1- or 2-byte codes into their
  vocabulary, the words put in when the arrays are built;
- a buffer row has no capacity: it changes only at attach and detach, whose rows carry it
  in their ``requested`` column (0 there in the arrays), and the other rows of the rank
  take it from the last of those;
- a buffer entry's row is its whole life, and holds the two buffer rows of it: its bsend's
  (the buffer's used and live bytes, entries and largest free block after the entry was
  placed, and the bsend's place in the event order and among the buffer rows), written
  with the row, and its completion's, written into it when it happens (a completion
  changes only the live bytes and the largest free block: used bytes and entries held
  change when space is reclaimed, at the next bsend). Their rows are made when the arrays
  are built (a completion's used bytes and entries, and every row's capacity, from the
  rank's row before it); only attach, overflow and detach rows are recorded as rows;
- the calls of every rank go into one stream (rank, code, start), sorted by rank when built;
  a call ends when the rank's next one starts.

A Result of a run that is over builds its trace when the trace is first read (so a run
whose trace nobody reads never pays for it), one array at a time, releasing each array's
recorded bytes as soon as the array is made; a Result of a run that goes on builds it at
once, the recorded bytes kept for the rest of the run.

On disk (``trace="disk"`` or ``trace_dir=DIR``, a :class:`~mpisim.engine.spill.TraceStore`):
each stream's bytes are a file mapped into memory instead of a ``bytearray``, written the
same way, only its latest rows kept in memory (:mod:`mpisim.engine.spill`); when the run
ends the directory is sealed (:meth:`Recorder.seal`: an index naming what it holds), the
arrays are built into ``.npy`` files when first read and mapped back from them, the same
bytes as in memory. :meth:`Trace.open` reads such a directory back.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .spill import RAW, SIDE, Spilled, TraceStore, TraceStoreError, forget, map_rows

__all__ = ["BUFFER_DTYPE", "CALL_DTYPE", "ENTRY_DTYPE", "EPOCH_DTYPE", "MESSAGE_DTYPE",
           "NAMED_BUFFER_DTYPE", "NAMED_ENTRY_DTYPE", "RMA_DTYPE", "Recorder", "Trace"]

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
BUFFER_EVENTS = ("attach", "bsend", "complete", "overflow", "detach")
"""The words of ``buffer["event"]`` (their codes are fixed when the recorder is made)."""
MESSAGE_MODES = ("standard", "buffered", "synchronous", "ready")
MESSAGE_PROTOCOLS = ("eager", "rendezvous")
NAMED_BUFFER_DTYPE = np.dtype([*BUFFER_DTYPE.descr, ("name", "U64")])
NAMED_ENTRY_DTYPE = np.dtype([*ENTRY_DTYPE.descr, ("name", "U64")])
RMA_DTYPE = np.dtype([("win", "U64"), ("origin", "i4"), ("target", "i4"), ("call", "U20"),
                      ("bytes", "i8"), ("start", "f8"), ("arrive", "f8"), ("applied", "f8")])
EPOCH_DTYPE = np.dtype([("win", "U64"), ("rank", "i4"), ("kind", "U8"), ("peer", "i4"),
                        ("start", "f8"), ("end", "f8")])

# -- the recorded layouts (packed, no padding) ------------------------------------------------
_BUFFER_RECORD = np.dtype([("rank", "i4"), ("time", "f8"), ("event", "u1"), ("used", "i8"),
                           ("live", "i8"), ("entries", "i4"), ("largest_free", "i8"),
                           ("requested", "i8"), ("order", "i8")])
"""A buffer row as recorded: no capacity (attach and detach rows carry it in ``requested``),
``order`` its place in the event order (rows are sorted by time, then order)."""
_ENTRY_RECORD = np.dtype([*(f for f in ENTRY_DTYPE.descr if f[0] != "done"),
                          ("b_order", "i8"), ("b_used", "i8"), ("b_live", "i8"),
                          ("b_entries", "i4"), ("b_largest", "i8"), ("b_seq", "u4"),
                          ("done", "f8"), ("c_order", "i8"), ("c_live", "i8"),
                          ("c_largest", "i8"), ("c_seq", "u4")])
"""An entry's row as recorded, with its bsend's buffer row (``b_``: its place in the event
order, used and live bytes, entries and largest free block after it, its place among the
buffer rows) and its completion's (``c_``: place in the event order, live bytes and largest
free block after it, place among the buffer rows; ``NO_ROW``: not completed yet). Its
completion time ``done`` is just before the completion's buffer row, so that one pack
writes both (:meth:`Recorder.completed`)."""
def names_of(dtype: np.dtype[Any]) -> tuple[str, ...]:
    """The field names of a structured dtype (every dtype of the trace is one)."""
    names = dtype.names
    if names is None:
        raise TypeError(f"{dtype} is not a structured dtype")
    return names


def _offset(dtype: np.dtype[Any], name: str) -> int:
    """The offset in bytes of the field ``name`` of a structured dtype."""
    fields = dtype.fields
    if fields is None:
        raise TypeError(f"{dtype} is not a structured dtype")
    return int(fields[name][1])


_MESSAGE_RECORD = np.dtype([(n, "u1" if MESSAGE_DTYPE[n].kind == "U" else MESSAGE_DTYPE[n])
                            for n in names_of(MESSAGE_DTYPE) if n != "id"])
_MESSAGE_SIZE = _MESSAGE_RECORD.itemsize
_CALL_RECORD = np.dtype([("rank", "i4"), ("call", "u2"), ("start", "f8")])
_BUFFER_SIZE = _BUFFER_RECORD.itemsize  # (a buffer row's bytes: rows recorded = len // it)
_PACKED = {"i4": "i", "i8": "q", "f8": "d", "u1": "B", "u2": "H", "u4": "I"}
NO_ROW = 0xFFFFFFFF

MATCH, SEND_DONE, RECV_DONE = (_offset(_MESSAGE_RECORD, n)
                               for n in ("match", "send_done", "recv_done"))
"""Offsets in bytes of a message's times from its row in :attr:`Recorder.message_rows`."""
ENTRY_DONE, ENTRY_FREED, ENTRY_COMPLETE = (_offset(_ENTRY_RECORD, n)
                                           for n in ("done", "freed", "c_order"))
"""Offsets in bytes of a buffer entry's later fields from its row in ``Recorder.entries.data``."""
NAN = float("nan")
put_time = struct.Struct("=d").pack_into
"""``put_time(rows, offset, t)``: write the time ``t`` at byte ``offset`` of ``rows``."""
assert SEND_DONE == MATCH + 8 and RECV_DONE == MATCH + 16
put_match_and_delivery = struct.Struct("=ddd").pack_into
"""``put_match_and_delivery(rows, row + MATCH, match, send_done, delivered)``: a message's
match and delivery times at once, with its send's completion as the row has it (between
them in the row)."""
assert ENTRY_COMPLETE == ENTRY_DONE + 8
_put_completion = struct.Struct("=dqqqI").pack_into
"""``_put_completion(rows, row + ENTRY_DONE, done, order, live, largest_free, seq)``."""
_TRACE_FIELDS = ("buffer", "entries", "messages", "calls", "named_buffers", "named_entries",
                 "rma", "epochs")


@dataclass(frozen=True)
class Trace:
    """The recorded run: numpy structured arrays, one row per event (``Result.trace``).

    Times are simulated seconds (NaN: never happened), sizes bytes, ranks world ranks.
    mpisim builds it; you read its arrays (``trace.messages["bytes"]``) or hand them to
    pandas (``pd.DataFrame(trace.messages)``). A run with ``trace=False`` has empty ones.

    Parameters
    ----------
    buffer
        One row per change of a rank's attached process buffer: ``rank``, ``time``,
        ``event`` (attach, bsend, complete, overflow, detach), ``capacity``, ``used``,
        ``live``, ``entries``, ``largest_free``, ``requested`` (the bytes a bsend asked
        for).
    entries
        One row per buffer entry: ``rank``, ``msg`` (its message's id), ``offset``,
        ``size``, ``packed`` (the message's packed bytes), ``alloc``, ``done`` (its send
        finished), ``freed`` (its space returned), ``attach`` (which attach it was in).
    messages
        One row per message: ``id``, ``src``, ``dst``, ``tag``, ``bytes``, ``mode``
        (standard, buffered, synchronous, ready), ``protocol`` (eager, rendezvous),
        ``post``, ``match``, ``send_done``, ``recv_done``.
    calls
        One row per MPI call of a rank: ``rank``, ``call``, ``start``, ``end`` (NaN: still
        blocked when the run ended).
    named_buffers
        The rows of communicator and session buffers (MPI 4.1), as ``buffer``'s plus the
        buffer's ``name``.
    named_entries
        The entries of those buffers, as ``entries``' plus ``name``.
    rma
        One row per one-sided operation (MPI 4.1 §12.3): ``win``, ``origin``, ``target``,
        ``call``, ``bytes``, ``start``, ``arrive`` (at its target), ``applied``.
    epochs
        One row per epoch of a rank on a window (§12.5): ``win``, ``rank``, ``kind``
        (fence, start, lock, lock_all, post), ``peer`` (-1: a group), ``start``, ``end``.
    """

    buffer: np.ndarray
    entries: np.ndarray
    messages: np.ndarray
    calls: np.ndarray
    named_buffers: np.ndarray = field(default_factory=lambda: np.empty(0, NAMED_BUFFER_DTYPE))
    named_entries: np.ndarray = field(default_factory=lambda: np.empty(0, NAMED_ENTRY_DTYPE))
    rma: np.ndarray = field(default_factory=lambda: np.empty(0, RMA_DTYPE))
    epochs: np.ndarray = field(default_factory=lambda: np.empty(0, EPOCH_DTYPE))

    @classmethod
    def later(cls, build: Callable[[], Trace], store: TraceStore | None = None) -> Trace:
        """A Trace whose arrays ``build()`` makes when one of them is first read (written
        into ``store``'s directory, which it keeps while it lives, when given)."""
        trace = object.__new__(cls)
        object.__setattr__(trace, "_build", build)
        object.__setattr__(trace, "_store", store)
        return trace

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Trace:
        """The trace a run wrote to the directory ``path`` (``trace_dir=``; ``mpisim run
        --trace-dir``), its arrays mapped read-only from their files: a trace larger than
        memory opens, its pages read as they are used.

        Parameters
        ----------
        path
            The directory (``"trace/"``). A trace not built yet (its run's trace never
            read) is built first: into that directory when it is writable and its run is
            over, else in memory (a run interrupted, or still going).

        Returns
        -------
        Trace
            The same arrays, byte for byte, as the run's ``Result.trace``.

        Raises
        ------
        ValueError
            The directory holds no trace (a ``TraceStoreError`` naming it: missing, no
            ``index.json``, or another version's).

        Examples
        --------
        >>> import mpisim as ms
        >>> trace = ms.Trace.open("trace")  # doctest: +SKIP
        >>> trace.messages["bytes"].sum()  # doctest: +SKIP
        """
        store = TraceStore.existing(path)
        index = store.read_index()
        if index.get("state") == "built":
            trace = cls(*(store.load(name) for name in _TRACE_FIELDS))
            object.__setattr__(trace, "_store", store)
            return trace
        return Recorder.reopened(store, index).build(_end_times(index), release=True)

    @property
    def directory(self) -> Path | None:
        """The directory the trace is written in (``trace="disk"``, ``trace_dir=``), or None
        for a trace in memory. A temporary one lives as long as this Trace."""
        store = self.__dict__.get("_store")
        return None if store is None else store.path

    def __getattr__(self, name: str) -> Any:
        """Only called for an attribute not set: a field of a Trace not built yet."""
        build = self.__dict__.pop("_build", None) if name in _TRACE_FIELDS else None
        if build is None:
            raise AttributeError(name)
        built = build()
        for f in _TRACE_FIELDS:
            object.__setattr__(self, f, getattr(built, f))
        return getattr(self, name)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied with its arrays (built first if they are not yet)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def buffer_of(self, rank: int) -> np.ndarray:
        """The buffer rows of one rank, in time order.

        Parameters
        ----------
        rank
            The rank (in MPI_COMM_WORLD).
        """
        rows: np.ndarray = self.buffer[self.buffer["rank"] == rank]
        return rows

    def calls_of(self, rank: int) -> np.ndarray:
        """The calls of one rank, in the order it made them.

        Parameters
        ----------
        rank
            The rank (in MPI_COMM_WORLD).
        """
        rows: np.ndarray = self.calls[self.calls["rank"] == rank]
        return rows


class Rows:
    """One stream of trace rows while it is recorded: packed one after another into one
    growable ``bytearray`` in the layout ``record`` (text columns as codes into their
    vocabulary). A row is one ``struct`` pack and one ``extend``, no Python object kept.

    Writers extend ``data`` with ``pack(*fields)`` themselves (its fields in the record's
    order, text ones as codes: :meth:`code`); a field written later, in place, is at byte
    ``record.fields[name][1]`` of its row."""

    __slots__ = ("codes", "data", "pack", "record", "vocab")

    def __init__(self, record: np.dtype, text: Sequence[str] = (),
                 data: bytearray | Spilled | None = None) -> None:
        self.record = record
        self.pack = struct.Struct("=" + "".join(_PACKED[record[n].str[1:]]
                                                for n in names_of(record))).pack
        self.data: bytearray | Spilled = bytearray() if data is None else data  # (a file:
        # on disk, see mpisim.engine.spill; a trace read back: its file mapped read-only)
        self.vocab: dict[str, dict[str, int]] = {n: {} for n in text}
        self.codes = self.vocab[text[0]] if text else {}  # its first text column's

    def __len__(self) -> int:
        return len(self.data) // self.record.itemsize

    def code(self, column: str, word: str) -> int:
        """The code of ``word`` in a text column (a new one for a new word)."""
        vocab = self.vocab[column]
        c = vocab.get(word)
        if c is None:
            c = vocab[word] = len(vocab)
            if c >= 1 << (8 * self.record[column].itemsize):
                raise ValueError(f"more than {c} different words in the trace's {column} column")
        return c

    def rows(self, n: int | None = None) -> np.ndarray:
        """The first ``n`` rows (all by default) as a structured array over ``data`` (a view:
        drop it before ``data`` grows again)."""
        n = len(self) if n is None else n
        return np.frombuffer(self.data, dtype=self.record, count=n) if n \
            else np.empty(0, self.record)

    def words(self, column: str, dtype: np.dtype) -> np.ndarray:
        """The vocabulary of a text column, in code order, as an array of ``dtype``."""
        return np.array(list(self.vocab[column]) or [""], dtype=dtype)

    def release(self) -> None:
        """Free the recorded bytes (the arrays are built)."""
        data = self.data
        if isinstance(data, bytearray):
            data.clear()
            return
        self.data = bytearray()
        try:
            if isinstance(data, Spilled):
                data.discard()
            else:
                data.close()
        except BufferError:  # (an array still reads it: closed when that one goes)
            pass


class Recorder:
    """The run's trace while it is recorded: a message's or buffer entry's row is packed
    into its typed columns when it is posted and its later times are written into it in
    place, so that nothing of a finished message stays alive. ``enabled=False`` records
    nothing new. ``store``: the directory the rows are written to as the run goes (see
    :mod:`mpisim.engine.spill`); None keeps them in memory."""

    def __init__(self, enabled: bool = True, store: TraceStore | None = None) -> None:
        self.enabled = enabled
        self.store = store
        self._sealed = False  # (a final seal done: the run is over)
        self._side: dict[str, np.ndarray] = {}  # rma, epochs of a trace read back

        def stream(name: str) -> Any:
            return None if store is None else store.stream(name)
        self.buffer = Rows(_BUFFER_RECORD, ("event",), stream("buffer"))
        self.entries = Rows(_ENTRY_RECORD, (), stream("entries"))
        self.messages = Rows(_MESSAGE_RECORD, ("mode", "protocol"), stream("messages"))
        self.calls = Rows(_CALL_RECORD, ("call",), stream("calls"))
        self.named_rows: list[tuple[Any, ...]] = []
        self.named_entry_records: list[Any] = []  # communicators' and sessions' entries
        self.rma_rows: list[list[Any]] = []    # one-sided operations (RMA_DTYPE's fields)
        self.epoch_rows: list[list[Any]] = []  # their epochs (EPOCH_DTYPE's; mpisim.rma.record)
        self.in_entries = 0  # buffer rows kept in entries' rows (bsends, completions)
        self._ids: dict[int, int] = {}  # row -> message id, where they differ (see message)
        self._built: Trace | None = None
        self._named: tuple[np.ndarray, np.ndarray] | None = None  # (see close)
        self.event_codes = {event: self.buffer.code("event", event) for event in BUFFER_EVENTS}
        self._modes = {mode: self.messages.code("mode", mode) for mode in MESSAGE_MODES}
        self._protocols = {p: self.messages.code("protocol", p) for p in MESSAGE_PROTOCOLS}

    # -- calls: the ranks write their rows into ``calls`` themselves (Rank._enter) -------
    # -- buffers: their rows are written by mpisim.buffered.mode (BufferedMode._record), a
    # buffer entry's bsend and completion into the entry's row (entry, completed) ---------
    def completed(self, row: int, now: float, order: int, live: int, largest_free: int) -> None:
        """The entry whose row is at ``row`` completed ``now``: its time and its buffer row
        (the state after it: live bytes, largest free block; its place in the event order),
        written into the entry's row."""
        _put_completion(self.entries.data, row + ENTRY_DONE, now, order, live, largest_free,
                        len(self.buffer.data) // _BUFFER_SIZE + self.in_entries)
        self.in_entries += 1

    def named_buffer_state(self, name: str, *row: Any) -> None:
        """A change of a communicator's or session's buffer: (rank, time, event, capacity,
        used, live, entries, largest free block, requested), as NAMED_BUFFER_DTYPE's row."""
        if self.enabled:
            self.named_rows.append((*row, name))

    def named_entry(self, record: Any) -> None:
        """An entry of a communicator's or session's buffer (``record.owner.name``)."""
        if self.enabled:
            self.named_entry_records.append(record)

    # -- entries: a row from posting on, its later times written into it ----------------
    def entry(self, record: Any, order: int, used: int, live: int, entries: int,
              largest_free: int) -> int:
        """Record a buffer entry just placed by a bsend (its attributes are ENTRY_DTYPE's
        fields as they are now), with the bsend's buffer row: its place ``order`` in the
        event order and the buffer's state after it. Returns where its row is in
        :attr:`entries`' ``data`` (its completion and its freeing: :func:`put_time` at ``row +
        ENTRY_DONE``, ``row + ENTRY_FREED``, NaN until they happen; its completion's buffer
        row: :meth:`completed`); -1 when the recorder is off. Entries are recorded in
        allocation order, which is the rows' order."""
        if not self.enabled:
            return -1
        rows, rows_of_buffer = self.entries, self.buffer.data
        row = len(rows.data)
        pack = rows.pack  # (read as a slot: called as a method it is never specialised)
        rows.data.extend(pack(record.rank, record.msg, record.offset, record.size,
                              record.packed, record.alloc, record.freed, record.attach, order,
                              used, live, entries, largest_free,
                              len(rows_of_buffer) // _BUFFER_SIZE + self.in_entries,
                              record.completed, 0, 0, 0, NO_ROW))
        self.in_entries += 1
        return row

    # -- messages: a row from posting on, its times written into it as they happen -------
    def message(self, msg: Any, now: float, send_done: float = NAN) -> int:
        """Record a message posted ``now`` (its send's completion ``send_done`` when it is
        known already); returns where its times are in :attr:`message_rows` (its match,
        send completion and delivery: ``row + MATCH``, ``row + SEND_DONE``, ``row +
        RECV_DONE``), NaN until they happen; -1 when the recorder is off. Nothing of the
        message is kept but its row; its id is the row's index (kept aside if it is not)."""
        if not self.enabled:
            return -1
        rows = self.messages
        row = len(rows.data)
        if msg.id * _MESSAGE_SIZE != row:
            self._ids[row // _MESSAGE_SIZE] = msg.id
        pack = rows.pack  # (as in entry)
        rows.data.extend(pack(msg.src, msg.dst, msg.tag, msg.nbytes, self._modes[msg.mode],
                              self._protocols[msg.protocol], now, NAN, send_done, NAN))
        return row

    @property
    def message_rows(self) -> bytearray | Spilled:
        """The messages' rows (a message's times: :func:`put_time` at its row + MATCH,
        SEND_DONE or RECV_DONE)."""
        return self.messages.data

    # -- the arrays ------------------------------------------------------------------------
    def sizes(self) -> tuple[int, int, int, int]:
        """How many rows each stream holds now (buffer, entries, messages, calls)."""
        return len(self.buffer), len(self.entries), len(self.messages), len(self.calls)

    def build(self, end_times: Sequence[float | None], release: bool = False,
              sizes: tuple[int, int, int, int] | None = None) -> Trace:
        """The arrays; ``end_times[r]``: when rank r's program finished (None: it did not).
        Entries and messages still alive are shown as they are now. ``release``: the run is
        over, so each stream's bytes are freed as soon as its array is made (and later
        builds give the same Trace). ``sizes``: the rows to show (see :meth:`sizes`; all by
        default)."""
        if self._built is not None:
            return self._built
        n_buffer, n_entries, n_messages, n_calls = sizes or self.sizes()
        named, named_entries = self._named or self._named_arrays()
        store = self.store if release else None  # (a run that goes on: built in memory)
        # one array at a time, the largest temporaries first, each stream freed once used
        # (on disk: written to its file a block of rows at a time, through the page cache,
        # and mapped back read-only; the buffer's rows built in their file, mapped)
        if store is None:
            buffer = self._buffer(n_buffer, n_entries, _in_memory)
        else:
            buffer = _mapped_back(self._buffer(n_buffer, n_entries, store.new_array), store)
        if release:
            self.buffer.release()
        messages = self._messages(n_messages) if store is None else store.write(
            "messages", MESSAGE_DTYPE, n_messages, self._message_blocks(n_messages))
        if release:
            self.messages.release()
        entries = _fields_of(self.entries.rows(n_entries), np.empty(n_entries, ENTRY_DTYPE)) \
            if store is None else store.write("entries", ENTRY_DTYPE, n_entries,
                                              self._entry_blocks(n_entries))
        if release:
            self.entries.release()
        calls = self._calls_array(n_calls, end_times) if store is None else store.write(
            "calls", CALL_DTYPE, n_calls, self._call_blocks(n_calls, end_times))
        rma, epochs = self._one_sided()
        trace = Trace(buffer, entries, messages, calls, named, named_entries, rma, epochs)
        if release:
            self.calls.release()
            self.named_rows, self.named_entry_records = [], []
            self.rma_rows, self.epoch_rows = [], []
            if store is not None:
                trace = self._stored(trace, store)
            self._built = trace
        return trace

    def _one_sided(self) -> tuple[np.ndarray, np.ndarray]:
        if self._side:
            return self._side["rma"], self._side["epochs"]
        return (np.array([tuple(row) for row in self.rma_rows], dtype=RMA_DTYPE),
                np.array([tuple(row) for row in self.epoch_rows], dtype=EPOCH_DTYPE))

    @staticmethod
    def _stored(built: Trace, store: TraceStore) -> Trace:
        """The Trace whose four large arrays were just built into ``store``'s files, with
        its others saved beside them and mapped back too; the index then says it is built,
        and the raw streams go."""
        for name in SIDE:
            store.save(name, getattr(built, name))
        del built
        arrays = {name: store.load(name) for name in _TRACE_FIELDS}
        store.write_index({"state": "built"})
        store.remove_raw()
        trace = Trace(**arrays)
        object.__setattr__(trace, "_store", store)
        return trace

    # -- on disk: the directory made readable, and read back -------------------------------
    def seal(self, end_times: Sequence[float | None], final: bool = True) -> None:
        """Make the trace directory (if the rows go to one) a readable trace of what was
        recorded so far: each stream's header (its dtype and rows), the arrays kept in
        memory, then the index, written last and whole. ``final``: the run is over (the
        streams' files cut to their rows); otherwise it may go on, and seal again."""
        store = self.store
        if store is None or self._sealed:
            return
        self._sealed = final
        sizes = self.sizes()
        streams = {}
        for name, n in zip(RAW, sizes, strict=True):
            rows: Rows = getattr(self, name)
            if isinstance(rows.data, Spilled):
                rows.data.seal(rows.record, n, final)
            streams[name] = {"rows": n, "vocab": {c: list(v) for c, v in rows.vocab.items()}}
        named = self._named or self._named_arrays()
        for name, array in zip(SIDE, (*named, *self._one_sided()), strict=True):
            store.save(name, array)
        store.write_index({
            "state": "recorded", "complete": final,
            "end_times": [None if t is None else float(t) for t in end_times],
            "in_entries": self.in_entries, "ids": sorted(self._ids.items()),
            "streams": streams})

    @classmethod
    def reopened(cls, store: TraceStore, index: dict[str, Any]) -> Recorder:
        """The recorder of a sealed trace directory (``state: recorded``), its streams
        mapped read-only from their files, to build the arrays from (into the directory if
        its run is over and it is writable, else in memory)."""
        over = bool(index.get("complete")) and os.access(store.path, os.W_OK)
        recorder = cls(False)
        recorder.store = store if over else None  # (built into it only when nothing else
        # writes there: the run is over)
        try:
            for name in RAW:
                rows: Rows = getattr(recorder, name)
                stream = index["streams"][name]
                n = int(stream["rows"])
                rows.data = map_rows(store.raw(name), rows.record, n)
                if len(rows.data) < n * rows.record.itemsize:
                    raise ValueError(f"{store.raw(name)} holds fewer than {n} rows")
                rows.vocab = {c: {w: i for i, w in enumerate(words)}
                              for c, words in stream["vocab"].items()}
            recorder.in_entries = int(index["in_entries"])
            recorder._ids = {int(r): int(i) for r, i in index["ids"]}
            side = {name: np.load(store.array_path(name)) for name in SIDE}
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise TraceStoreError(f"trace directory {store.path}: cannot read it back "
                                  f"({e})") from None
        recorder._named = (side["named_buffers"], side["named_entries"])
        recorder._side = {"rma": side["rma"], "epochs": side["epochs"]}
        recorder.event_codes = {e: recorder.buffer.vocab["event"][e] for e in BUFFER_EVENTS}
        return recorder

    def close(self) -> None:
        """The run is over: record nothing more, and keep nothing of the run but the rows
        (the communicators' and sessions' entries, which hold their buffers, turned into
        rows now), so that a Result whose trace is not read yet holds no more."""
        self.enabled = False
        if self._named is None:
            self._named = self._named_arrays()
            self.named_rows, self.named_entry_records = [], []

    def _named_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        named = np.array(self.named_rows, dtype=NAMED_BUFFER_DTYPE)
        named_entries = np.array([(e.rank, e.msg, e.offset, e.size, e.packed, e.alloc,
                                   e.completed, e.freed, e.attach, e.owner.name)
                                  for e in self.named_entry_records], dtype=NAMED_ENTRY_DTYPE)
        return named, named_entries

    def _message_ids(self, n: int) -> tuple[np.ndarray, np.ndarray | None]:
        """The messages' ids in row order, and the order that sorts them (None: they are
        the rows' indices, in order)."""
        ids = np.arange(n, dtype="i8")
        for row, mid in self._ids.items():
            if row < n:
                ids[row] = mid
        return ids, np.argsort(ids, kind="stable") if self._ids else None

    def _messages(self, n: int) -> np.ndarray:
        rows = self.messages
        raw = rows.rows(n)
        out = np.empty(n, MESSAGE_DTYPE)
        ids, perm = self._message_ids(n)
        out["id"] = ids if perm is None else ids[perm]
        for name in names_of(_MESSAGE_RECORD):
            column = raw[name] if perm is None else raw[name][perm]
            if name in rows.vocab:
                _gather(out[name], rows.words(name, MESSAGE_DTYPE[name]), column)
            else:
                out[name] = column
        return out

    def _calls_array(self, n: int, end_times: Sequence[float | None]) -> np.ndarray:
        """Each rank's calls in order, rank by rank. A call ends when the rank's next one
        starts (programs take no simulated time between calls); the last one when the
        program finished (NaN: it did not)."""
        raw = self.calls.rows(n)
        out = np.empty(n, dtype=CALL_DTYPE)
        if not n:
            return out
        perm = np.argsort(raw["rank"], kind="stable")
        rank, start, end = out["rank"], out["start"], out["end"]
        _gather(rank, raw["rank"], perm)
        _gather(out["call"], self.calls.words("call", CALL_DTYPE["call"]), raw["call"][perm])
        _gather(start, raw["start"], perm)
        del raw, perm
        end[:-1] = start[1:]
        last = np.flatnonzero(np.append(rank[1:] != rank[:-1], True))
        finished = np.array([np.nan if t is None else t for t in end_times], dtype="f8")
        end[last] = finished[rank[last]]
        return out

    # -- on disk, the same arrays a block of rows at a time (written to their files) -------
    def _message_blocks(self, n: int) -> Iterator[np.ndarray]:
        """:meth:`_messages`' rows, :data:`_CHUNK` at a time."""
        rows = self.messages
        raw = rows.rows(n)
        ids, perm = self._message_ids(n)
        words = {name: rows.words(name, MESSAGE_DTYPE[name]) for name in rows.vocab}
        for i in range(0, n, _CHUNK):
            j = min(n, i + _CHUNK)
            at = slice(i, j) if perm is None else perm[i:j]
            block = np.empty(j - i, MESSAGE_DTYPE)
            block["id"] = ids[at]
            for name in names_of(_MESSAGE_RECORD):
                column = raw[name][at]
                block[name] = words[name][column] if name in words else column
            forget(rows.data)  # (the rows read: their pages not kept)
            yield block

    def _call_blocks(self, n: int, end_times: Sequence[float | None]) -> Iterator[np.ndarray]:
        """:meth:`_calls_array`'s rows, :data:`_CHUNK` at a time."""
        raw = self.calls.rows(n)
        words = self.calls.words("call", CALL_DTYPE["call"])
        finished = np.array([np.nan if t is None else t for t in end_times], dtype="f8")
        perm = np.argsort(raw["rank"], kind="stable") if n else np.empty(0, np.intp)
        for i in range(0, n, _CHUNK):
            j = min(n, i + _CHUNK)
            at = perm[i:j]
            block = np.empty(j - i, CALL_DTYPE)
            rank, start = raw["rank"][at], raw["start"][at]
            block["rank"], block["call"], block["start"] = rank, words[raw["call"][at]], start
            end = np.empty(j - i, dtype="f8")
            end[:-1] = start[1:]
            last = np.append(rank[1:] != rank[:-1],
                             j == n or raw["rank"][perm[j]] != rank[-1])
            if j < n:
                end[-1] = raw["start"][perm[j]]
            end[last] = finished[rank[last]]
            block["end"] = end
            forget(self.calls.data)
            yield block

    def _entry_blocks(self, n: int) -> Iterator[np.ndarray]:
        """The entries' rows, :data:`_CHUNK` at a time."""
        raw = self.entries.rows(n)
        for i in range(0, n, _CHUNK):
            block = _fields_of(raw[i:i + _CHUNK], np.empty(min(n, i + _CHUNK) - i, ENTRY_DTYPE))
            forget(self.entries.data)
            yield block

    def _buffer(self, n_state: int, n_entries: int, new: _New) -> np.ndarray:
        """The process buffers' rows: the recorded ones (attach, overflow, detach) and the
        bsends and completions kept in their entries' rows, in the order they were
        recorded, then sorted by (time, order) (stable: the rows of one event as they were
        made). Capacity, and a completion's used bytes and entries, come from the rank's row
        before it. Made column by column (one temporary column at a time)."""
        state = self.buffer.rows(n_state)
        entries = self.entries.rows(n_entries)
        done = np.flatnonzero(entries["c_seq"] != NO_ROW)
        n = n_state + n_entries + len(done)
        at_b = entries["b_seq"].astype(np.intp)
        at_c = entries["c_seq"][done].astype(np.intp)
        is_c = np.zeros(n, bool)
        is_c[at_c] = True
        is_s = ~is_c
        is_s[at_b] = False
        at_s = np.flatnonzero(is_s)
        del is_s
        if len(at_s) != n_state:
            raise RuntimeError("the buffer rows and the entries' rows recorded do not interleave")

        def merged(s_col: str, b_col: str | None, c_col: str | None) -> np.ndarray:
            """A column in the order the rows were recorded: the recorded rows' ``s_col``,
            the entries' ``b_col`` at their bsends, the completed entries' ``c_col`` at their
            completions (0 where None)."""
            col = np.zeros(n, dtype=state.dtype[s_col])
            col[at_s] = state[s_col]
            if b_col is not None:
                col[at_b] = entries[b_col]
            if c_col is not None:
                col[at_c] = entries[c_col][done]
            return col

        codes = self.event_codes
        time = merged("time", "alloc", "done")
        perm = np.lexsort((merged("order", "b_order", "c_order"), time))
        out = new("buffer", n, BUFFER_DTYPE)
        out["time"] = time[perm]
        del time
        out["rank"] = merged("rank", "rank", "rank")[perm]
        event = merged("event", None, None)
        event[at_b], event[at_c] = codes["bsend"], codes["complete"]
        event = event[perm]
        _gather(out["event"], self.buffer.words("event", BUFFER_DTYPE["event"]), event)
        out["live"] = merged("live", "b_live", "c_live")[perm]
        out["largest_free"] = merged("largest_free", "b_largest", "c_largest")[perm]
        carries = (event == codes["attach"]) | (event == codes["detach"])
        del event
        requested = merged("requested", "size", None)[perm]
        out["capacity"] = requested
        requested[carries] = 0
        out["requested"] = requested
        del requested
        out["used"] = merged("used", "b_used", None)[perm]
        out["entries"] = merged("entries", "b_entries", None)[perm]
        is_c = is_c[perm]
        del perm
        # forward fill along each rank's rows, in time order (a rank's first row is its
        # attach; were it not, it would keep its own values)
        by_rank = np.argsort(out["rank"], kind="stable")
        ranks = out["rank"][by_rank]
        first = np.ones(n, bool)
        first[1:] = ranks[1:] != ranks[:-1]
        del ranks
        for names, source in ((("capacity",), carries), (("used", "entries"), ~is_c)):
            last = by_rank[np.maximum.accumulate(
                np.where(source[by_rank] | first, np.arange(n), 0))]
            for name in names:
                out[name][by_rank] = out[name][last]
        return out


_CHUNK = 1 << 16


def _gather(dest: np.ndarray, source: np.ndarray, index: np.ndarray) -> None:
    """``dest[:] = source[index]`` a chunk at a time: a field of a structured array is not
    contiguous, and numpy would otherwise make the whole column once more beside it."""
    for i in range(0, len(index), _CHUNK):
        dest[i:i + _CHUNK] = source[index[i:i + _CHUNK]]


def _fields_of(rows: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The fields of ``out``'s dtype of ``rows`` (a subset of its fields), into ``out``."""
    for name in names_of(out.dtype):
        out[name] = rows[name]
    return out


_New = Callable[[str, int, np.dtype], np.ndarray]
"""``new(name, n, dtype)``: the array of the Trace named ``name`` to build into."""


def _in_memory(_name: str, n: int, dtype: np.dtype) -> np.ndarray:
    return np.empty(n, dtype)


def _mapped_back(array: np.ndarray, store: TraceStore | None) -> np.ndarray:
    """An array just built into its file (``store.new_array``), written out and mapped
    back read-only (the writable mapping goes with the caller's reference: its pages are
    not kept in memory while the next array is built)."""
    assert store is not None and isinstance(array, np.memmap) and array.filename
    array.flush()
    return store.load(Path(array.filename).stem)


def _end_times(index: dict[str, Any]) -> list[float | None]:
    return [None if t is None else float(t) for t in index.get("end_times", [])]
