"""Reading a recording fast: each distinct line shape once, the numbers that vary in columns.

A recording is mostly the same few call lines over and over, differing in the time outside
MPI before each call (``g=``) and the time the call took (``d=`` of its result line). The file
is read in blocks of :data:`BLOCK` bytes; in each block numpy finds the lines, the ``g=`` of
every call line and the ``d=`` of every result line, reads those numbers (vectorized), and
cuts them out of the text. What is left of each line is its *shape*: the distinct shapes are
read once each by :mod:`.lines`' own functions, and each call keeps the index of its shape
and its numbers (:class:`~.records.CallList`). Memory is the columns (32 bytes a call) and
one block, whatever the file's size; the ``#``, ``T``, ``@`` and ``C`` lines, a few per call
site, are read one by one.

A log that is not as the recorder writes it (a number in another notation, fields out of
order, a bad line, a call before its result, a call site described after its first use) is
read again by :func:`.lines.parse_log`, line by line, which reads what the old reader read and
reports a problem at its first line: this reader is an optimisation, never another grammar.
"""

from __future__ import annotations

import re
from itertools import count, pairwise
from typing import Any, BinaryIO

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .lines import (
    MAGIC,
    LogEnd,
    Where,
    call_shape,
    check_version,
    comm_line,
    finish_log,
    header_line,
    parse_log,
    result_shape,
    site_line,
    type_line,
)
from .records import (
    MAX_DATA,
    CallList,
    CallShape,
    RankLog,
    ResultShape,
    Site,
    TraceError,
    TypeInfo,
)

__all__ = ["BLOCK", "read_logs", "relative_requests"]

BLOCK = 1 << 22
"""Bytes read at a time (4 MiB): the reader's memory beyond the columns is a few times this."""
_MAGIC = MAGIC.encode()
_NL, _SP, _HASH, _EQ = 10, 32, ord("#"), ord("=")
_DESCRIBED = np.array([ord("T"), ord("@"), ord("C"), ord("H")], dtype=np.uint8)
_MAX_DIGITS = 18  # below 2**63: longer numbers go to the line reader
_FRESH = 1 << 40  # a unit's id while a block is read: the count where its key first came


class _Log:
    """One process's log while its blocks are read."""

    def __init__(self, path: str, offset: int, line: int, text: str) -> None:
        self.where = Where(path)
        self.path, self.offset, self.line = path, offset, line
        self.end = LogEnd()
        self.types: dict[int, TypeInfo] = {}
        self.sites: dict[int, Site] = {}
        self.site_lines: dict[int, int] = {}
        self.comms: dict[int, dict[str, Any]] = {}
        self.data: list[tuple[int, str]] = []  # the data lines (H), by line
        self.units: dict[bytes, int] = {}      # a call's key (and its result's) -> unit
        self.unit_shape: list[int] = []
        self.unit_result: list[int] = []
        self.first: list[int] = []             # the line where each unit is first used
        self.shape_ids: dict[bytes, int] = {}
        self.shapes: list[CallShape] = []
        self.result_ids: dict[bytes, int] = {}
        self.results: list[ResultShape] = []
        self.parts: dict[str, list[np.ndarray]] = {"unit": [], "gap": [], "dur": [],
                                                   "line": [], "base": []}
        self.unpaired: list[int] = []          # calls without a result line after them
        self.odd = False  # not as the recorder writes it: read again line by line
        try:
            check_version(self.where, line, text)
        except TraceError:
            self.odd = True

    def special(self, line: int, text: str) -> None:
        """A ``#``, ``T``, ``@`` or ``C`` line."""
        try:
            if text[0] == "#":
                header_line(self.where, line, text, self.end)
            elif text[0] == "T":
                t = type_line(self.where, line, text)
                self.types[t.id] = t
            elif text[0] == "@":
                s = site_line(self.where, line, text)
                self.sites[s.id] = s
                self.site_lines.setdefault(s.id, line)
            elif text[0] == "H":
                if len(self.data) < MAX_DATA:
                    self.data.append((line, text[2:]))
            else:
                cid, fields = comm_line(self.where, line, text)
                self.comms[cid] = fields
        except TraceError:
            self.odd = True

    def calls(self, keys: list[bytes], gaps: np.ndarray, durations: np.ndarray,
              lines: np.ndarray) -> None:
        """Calls, each its key (the call line and its result line but their numbers)."""
        bases = np.zeros(len(keys), dtype=np.int64)
        if any(b" r=" in key for key in keys):  # request ids made relative (CallList)
            keys = list(keys)
            for i, key in enumerate(keys):
                if b" r=" in key:
                    keys[i], bases[i] = _relative(key)
        self.parts["base"].append(bases)
        table, before = self.units, len(self.units)
        marks = np.fromiter(map(table.setdefault, keys, count(_FRESH)), dtype=np.int64,
                            count=len(keys))  # a key first seen: the count where it was
        fresh = np.flatnonzero(marks >= _FRESH)
        ids = marks.astype(np.int32)
        if len(fresh):
            firsts, order = np.unique(marks[fresh], return_inverse=True)
            ids[fresh] = before + order
            for i, at in enumerate((firsts - _FRESH).tolist()):
                table[keys[at]] = before + i
                self._unit(keys[at], int(lines[at]))
        self.parts["unit"].append(ids)
        self.parts["gap"].append(gaps * 1e-9)  # as the line reader: int(text) * 1e-9
        self.parts["dur"].append(durations * 1e-9)
        self.parts["line"].append(lines)

    def _unit(self, key: bytes, first: int) -> None:
        call, paired, result = key.partition(b"\0")
        shape = self.shape_ids.get(call)
        if shape is None:
            shape = self.shape_ids[call] = len(self.shapes)
            self.shapes.append(self._parse(call_shape, call, b" g=", "?"))
        rid = -1
        if paired:
            rid = self.result_ids.get(result, -1)
            if rid < 0:
                rid = self.result_ids[result] = len(self.results)
                self.results.append(self._parse(result_shape, result, b" d=", None))
        self.unit_shape.append(shape)
        self.unit_result.append(rid)
        self.first.append(first)

    def _parse(self, read: Any, key: bytes, field: bytes, bad: str | None) -> Any:
        """A shape, read by :mod:`.lines` from its key with its number put back as 0 (a
        problem, or a second such field, sends the log to the line reader)."""
        text = key.replace(field, field + b"0", 1).decode("utf-8", "replace")
        try:
            shape, number = read(self.where, 0, text)
        except TraceError:
            self.odd = True
            return CallShape("?", {}, None) if bad else ResultShape(None, {})
        if number != 0:
            self.odd = True
        return shape

    def finish(self, source: BinaryIO, stop: int) -> RankLog:
        """The log, its lines ending at byte ``stop`` of the file."""
        cat = {k: np.concatenate(v) if v else np.zeros(0, dtype=np.int64)
               for k, v in self.parts.items()}
        self.parts.clear()
        lines = cat["line"]
        ordered = not self.unpaired or self.unpaired == [int(lines[-1])]
        placed = all(self.site_lines.get(site, lines[-1] + 1) < first
                     for site, first in ((self.shapes[s].site, f) for s, f in
                                         zip(self.unit_shape, self.first, strict=True))
                     if site is not None)
        if self.odd or not ordered or not placed:
            return self._by_line(source, stop)
        units, base = cat["unit"], cat["base"]
        calls = CallList(self.shapes, self.results,
                         np.array(self.unit_shape, dtype=np.int32)[units],
                         np.array([*self.unit_result, -1], dtype=np.int32)[units],
                         cat["gap"].astype(np.float64), cat["dur"].astype(np.float64),
                         lines.astype(np.int64), self.sites,
                         base if base.any() else None)
        log = finish_log(self.where, self.line + 1, self.path, self.end, calls, self.types,
                         self.sites, self.comms)
        if self.data:  # each after its call: the call on the line before it
            after = np.searchsorted(lines, [line for line, _ in self.data]) - 1
            log.data = {int(i): text for i, (_, text) in zip(after.tolist(), self.data,
                                                             strict=True) if i >= 0}
        return log

    def _by_line(self, source: BinaryIO, stop: int) -> RankLog:
        source.seek(self.offset)
        text = source.read(stop - self.offset).decode("utf-8", "replace")
        lines = text.split("\n")[:-1]
        return parse_log(self.path, lines, 0, len(lines), self.line - 1)


def read_logs(path: str, source: BinaryIO) -> list[RankLog]:
    """Every process's log in ``source`` (the file ``path``), in the file's order."""
    logs: list[RankLog] = []
    log: _Log | None = None
    offset = line = 0           # of the block's start in the file
    rest = b""
    while True:
        block = source.read(BLOCK)
        data = bytearray(rest)
        data += block
        cut = _whole(data, bool(block))
        rest = bytes(data[cut:])
        data += bytes(_MAX_DIGITS + 2)  # room for the digits' window past the last line
        if not block and not cut:
            break
        if not cut:
            continue
        if log is None and not data.startswith(_MAGIC):
            break
        position, read_lines = source.tell(), data.count(b"\n", 0, cut)
        log = _block(path, np.frombuffer(data, dtype=np.uint8), cut, offset, line, log, logs,
                     source)
        source.seek(position)
        offset += cut
        line += read_lines
    if log is None:
        raise TraceError(f"{path}:1: not a recording (expected a first line {MAGIC!r})")
    logs.append(log.finish(source, offset))
    return logs


def _whole(data: bytearray, more: bool) -> int:
    """How many bytes of ``data`` to read now: whole lines, and while more is to come, not
    a last call line whose result line may follow in the next block."""
    cut = data.rfind(b"\n") + 1
    if not more or not cut:
        return cut
    start = data.rfind(b"\n", 0, cut - 1) + 1
    head = data[start:start + 2]
    if head[:1] in (b"=", b"#", b"\n") or head in (b"T ", b"@ ", b"C "):
        return cut
    return start  # a call line: read with its result, in the next block


def _block(path: str, padded: np.ndarray, cut: int, offset: int, base: int,
           log: _Log | None, logs: list[RankLog], source: BinaryIO) -> _Log:
    """Read one block of whole lines (``padded[:cut]``; ``base`` lines before it in the
    file, at byte ``offset``) into ``log`` and the logs that start in it; the log open at
    its end."""
    arr = padded[:cut]
    ends = np.flatnonzero(arr == _NL)
    n = len(ends)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    first = arr[starts]
    second = arr[np.minimum(starts + 1, len(arr) - 1)]
    special = (np.isin(first, _DESCRIBED) & (second == _SP)) | (first == _HASH)
    results = first == _EQ
    calls = ~(special | results | (first == _NL))
    paired = np.zeros(n, dtype=bool)
    paired[:-1] = calls[:-1] & results[1:]
    lonely = results.copy()
    lonely[1:] &= ~calls[:-1]
    ci, ri = np.flatnonzero(calls), np.flatnonzero(results)
    around = arr[:-2] == _SP
    around &= arr[2:] == _EQ
    c_ok, c_at, c_end, gaps = _field(arr, padded, around, starts[ci], ends[ci], ord("g"))
    r_ok, r_at, r_end, durs = _field(arr, padded, around, starts[ri], ends[ri], ord("d"))
    del around
    odd = np.zeros(n, dtype=bool)
    odd[ci[~c_ok]] = True
    odd[ri[~r_ok]] = True
    odd |= lonely
    # the key of each call: its line and its result's, their numbers and the other lines cut
    keep = np.ones(len(arr), dtype=bool)
    dropped = special | lonely | (first == _NL)
    for at, end in ((c_at[c_ok], c_end[c_ok]), (r_at[r_ok], r_end[r_ok]),
                    (starts[dropped], ends[dropped] + 1)):
        keep[_spans(at, end)] = False
    arr[ends[paired]] = 0  # a call and its result: one key
    keys = arr[keep].tobytes().split(b"\n")[:-1]
    duration = np.zeros(n, dtype=np.int64)
    duration[ri] = durs
    call_dur = np.where(paired[ci], duration[np.minimum(ci + 1, n - 1)], 0)
    # the logs that start in this block, at their magic lines
    bounds: list[tuple[int, _Log | None]] = [(0, log)]
    for i in np.flatnonzero(special).tolist():
        text = arr[starts[i]:ends[i]].tobytes().decode("utf-8", "replace")
        if text.startswith(MAGIC):
            bounds.append((i, _Log(path, offset + int(starts[i]), base + i + 1, text)))
        elif bounds[-1][1] is not None:
            bounds[-1][1].special(base + i + 1, text)
    bounds.append((n, None))
    if len(keys) != len(ci):  # a key not as expected: every log here read line by line
        for _, owner in bounds:
            if owner is not None:
                owner.odd = True
        keys = [b""] * len(ci)
    for (a, owner), (b, _) in pairwise(bounds):
        if owner is None:
            continue
        lo, hi = np.searchsorted(ci, [a, b])
        owner.odd |= bool(odd[a:b].any())
        lines = base + ci[lo:hi] + 1
        owner.unpaired += lines[~paired[ci[lo:hi]]].tolist()
        owner.calls(keys[lo:hi], gaps[lo:hi], call_dur[lo:hi], lines)
    opened = [owner for _, owner in bounds[1:-1] if owner is not None]
    chain = [log, *opened] if log is not None else opened
    for before, after in pairwise(chain):
        logs.append(before.finish(source, after.offset))
    return chain[-1]


_REQUESTS = re.compile(rb" r=([^ \0]*)")


def relative_requests(key: bytes) -> tuple[bytes, int]:
    """A call's key with its request ids relative to the smallest, and that id (0: none):
    how every writer of a key makes it (the compact format's, :mod:`.compact`)."""
    return _relative(key)


def _relative(key: bytes) -> tuple[bytes, int]:
    """A key's request ids (``r=`` of its call and its result) relative to the smallest
    (see :class:`~.records.CallList`): ``+1`` for it, ``+N`` for it + N - 1; 0 (null), ``?``
    and anything else as written. Returns the key and the base (0: no id to rebase)."""
    fields = _REQUESTS.findall(key)
    ids = [int(item) for field in fields for item in field.split(b",")
           if item.isdigit() and item[:1] != b"0" and len(item) <= _MAX_DIGITS]
    if not ids:
        return key, 0
    base = min(ids)

    def rebase(match: re.Match[bytes]) -> bytes:
        items = match.group(1).split(b",")
        for j, item in enumerate(items):
            if item.isdigit() and item[:1] != b"0" and len(item) <= _MAX_DIGITS:
                items[j] = b"+%d" % (int(item) - base + 1)
        return b" r=" + b",".join(items)
    return _REQUESTS.sub(rebase, key), base


def _spans(at: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Every position in the spans ``[at, end)`` (spans that do not overlap)."""
    length = end - at
    total = int(length.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(at - np.cumsum(length) + length, length) + np.arange(total)


def _hits(arr: np.ndarray, around: np.ndarray, letter: int) -> np.ndarray:
    """Where `` X=`` (X: ``letter``) starts in the block (``around``: where a space is
    two bytes before an ``=``)."""
    found = arr[1:-1] == letter
    found &= around
    return np.flatnonzero(found)


def _field(arr: np.ndarray, padded: np.ndarray, around: np.ndarray, starts: np.ndarray,
           ends: np.ndarray, letter: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The number of each line's first `` LETTER=`` field: (readable, its digits' start,
    their end, values). Readable: 1 to 18 digits, no leading zero (as ``int(text, 0)``
    reads them), followed by a space or the line's end. ``padded``: the block and room
    for a window of digits past its end."""
    n = len(starts)
    hits = _hits(arr, around, letter)
    values = np.zeros(n, dtype=np.int64)
    if n == 0 or len(hits) == 0:
        return np.zeros(n, dtype=bool), values, values.copy(), values.copy()
    k = np.searchsorted(hits, starts)
    ok = k < len(hits)
    at = hits[np.minimum(k, len(hits) - 1)] + 3
    ok &= at < ends
    length = np.zeros(n, dtype=np.int64)
    rows = np.flatnonzero(ok)
    for width in (10, _MAX_DIGITS + 1):  # most numbers are short: a narrow look first
        if not len(rows):
            break
        digits = sliding_window_view(padded, width)[at[rows]]
        isdigit = (digits >= 48) & (digits <= 57)
        run = np.where(isdigit.all(axis=1), width, np.argmin(isdigit, axis=1))
        longer = run == width
        done, more = rows[~longer], rows[longer]
        length[done] = run[~longer]
        stop = digits[~longer, run[~longer]]
        ok[done] &= ((stop == _SP) | (stop == _NL)) & (run[~longer] > 0)
        ok[done] &= ~((run[~longer] > 1) & (digits[~longer, 0] == 48))  # "012": refused
        value = np.zeros(len(done), dtype=np.int64)
        short, digit = run[~longer], digits[~longer].astype(np.int64) - 48
        for c in range(int(short.max(initial=0))):  # Horner's rule, a column at a time
            value = np.where(c < short, value * 10 + digit[:, c], value)
        values[done] = value
        rows = more
    ok[rows] = False  # more than 18 digits
    return ok, at, at + length, values
