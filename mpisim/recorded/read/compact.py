"""Reading the compact recording format: binary columns, compressed in blocks.

**Format** (version 1). One stream per process, written by the recorder as the program runs
(``mpisim record --format compact``, the default) or converted from a text log
(``mpisim.recorded.record.compact``); a ``.trace`` file holds the processes' streams one
after another, in rank order. Integers are little-endian. A stream is:

- **A header** of text lines: ``#mpisim-compact 1`` (the magic and the format's version),
  then the text format's header lines (``#rank R SIZE``, ``#pid``, ``#mpi``,
  ``#bsend-overhead``, ``#any-source``, ``#proc-null``, ``#exe``, ``#host``, ``#library``:
  see the log format), ``#recorder V`` (the recorder's format version) and ``#args`` (the
  program's arguments), ended by an empty line. Plain text, so that ``head`` shows it.
- **Blocks** of calls. A block is a frame of 32 bytes (``\\xffB``, codec: 0 stored, 1
  zlib; the stored and the decompressed length; the number of its first call, 0-based; its
  calls; the id of its first new key; the CRC-32 of the stored bytes), then its payload:
  the byte widths (0, 1, 2, 4 or 8) of its four columns and the sizes of its three
  sections (``PAYLOAD``), then the columns, each stored a byte plane at a time (all
  first bytes, then all second bytes: they compress better): **key** (the call's key id),
  **gap** (ns outside MPI before the call), **duration** (ns in it; 0 for a call that
  never returned), **base** (the smallest request id the call names; 0: none); then
  the positions (u32: the calls of the block before each) and the text of its
  description lines (``T``, ``@``, ``C``, ``#`` and the data lines ``H``, as in the text
  format, each ended by a newline; a data line belongs to the call before its position),
  then its new keys, each ended by a newline.
- **A key** is what a call's two text lines say but their numbers: the call line without
  its ``g=`` field, then, for a call that returned, a NUL and its result line without its
  ``d=`` field; request ids made relative to ``base`` (``+1`` is the base: see
  ``CallList``), so that a loop's calls share a key. Keys are numbered in
  the order they are first used: a block gives those it uses first. A key is a *string
  table* entry: a call site and datatype are described once (``@``, ``T`` lines) and
  named by id in the keys.
- **An index** (when the process ended normally or by a signal): ``\\xffX``, 2 bytes, the
  number of blocks (u32), then for each the offset of its frame from the stream's start
  and its first call (u64 each), then the CRC-32 of those entries. It lets a reader find
  a call's block without reading those before it.
- **The end line** (``# signal N g=NS``, ``# exit g=NS``: how the process ended), a text
  line after a newline, as the text format's.

A damaged block (cut short, its CRC or lengths wrong, its data not zlib's) ends its process's
log there: everything before it is read, and the log says which process and call the damage
begins at (``RankLog.broken``); the streams after it are read. A header of
another version, an index that does not name the blocks read, or a file that is not a
recording is a ``TraceError`` of one line.

Why zlib: the recorder must build wherever ``mpicc`` does, and zlib is there (zstd and lz4
are not, on most clusters; a recorder built without zlib stores its blocks). Decoding is not
where reading spends its time: on synthetic ping-pong and halo-exchange recordings of 10^6
calls, inflating is 15 to 18 % of the read (about 10^7 calls/s in all), so a codec that
decodes twice as fast would gain under a tenth. Compressing at level 1 costs the recorder
about 80 ns a call and halves the size (5 to 8 bytes a call stored, 2.7 compressed).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np

from .lines import (
    LogEnd,
    Where,
    after_open,
    call_shape,
    comm_line,
    finish_log,
    header_line,
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

__all__ = ["BLOCK", "INDEX", "MAGIC", "PAYLOAD", "VERSION", "Damaged", "is_compact",
           "read_compact"]

MAGIC = b"#mpisim-compact"
VERSION = 1
BLOCK = struct.Struct("<2sBBIIQIII")
"""A block's frame: ``\\xffB``, codec, 0, stored bytes, raw bytes, first call, calls, first
new key, CRC-32 of the stored bytes."""
INDEX = struct.Struct("<2sBBI")
"""The index's frame: ``\\xffX``, 0, 0, the number of entries (then 16 bytes each, a CRC)."""
PAYLOAD = struct.Struct("<4BIIII")
"""A block's payload head: the widths of key, gap, duration, base; the number of text lines,
of new keys; the bytes of the text, of the keys."""
WIDTHS = (0, 1, 2, 4, 8)
CODECS = (0, 1)  # stored, zlib
MAX_CALLS = 1 << 24  # a block's sanity bounds: larger is damage
MAX_RAW = 1 << 30


def is_compact(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a compact recording."""
    return head.startswith(MAGIC)


class Damaged(Exception):
    """A block that cannot be read: why."""


class CompactWhere(Where):
    """Problems in a compact stream: ``file: rank R, call N: key: problem``."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.rank: str | None = None

    def error(self, line: int, key: str, problem: str) -> TraceError:
        at = f"call {line}" if line > 0 else "header"
        rank = f"rank {self.rank}, " if self.rank is not None else ""
        return TraceError(f"{self.path}: {rank}{at}: {key}: {problem}")


def _column(raw: memoryview, at: int, n: int, width: int, *, narrow: bool = False
            ) -> tuple[np.ndarray, int]:
    """A column of ``n`` unsigned values of ``width`` bytes stored as byte planes, as int64;
    ``narrow``: as stored (``<u{width}``, uint8 for width 0), for a streamed replay's window
    of a block, a byte or two a value where int64 would take eight. Either is a copy: it
    holds none of ``raw``."""
    if width == 0:
        return np.zeros(n, dtype=np.uint8 if narrow else np.int64), at
    size = n * width
    if at + size > len(raw):
        raise Damaged("its columns run past its end")
    planes = np.frombuffer(raw, dtype=np.uint8, count=size, offset=at)
    if width == 1:
        return (planes.copy() if narrow else planes.astype(np.int64)), at + size
    values = planes.reshape(width, n).T.copy().view(f"<u{width}").ravel()
    return (values if narrow else values.astype(np.int64)), at + size


class _Stream:
    """One process's stream while it is read."""

    def __init__(self, path: str, data: bytes, start: int) -> None:
        self.path, self.data, self.start = path, data, start
        self.where = CompactWhere(path)
        self.end = LogEnd()
        self.types: dict[int, TypeInfo] = {}
        self.sites: dict[int, Site] = {}
        self.site_at: dict[int, int] = {}
        self.comms: dict[int, dict[str, Any]] = {}
        self.data_lines: dict[int, str] = {}  # the data lines (H), by the call before each
        self.shape_ids: dict[tuple[bytes, bool], int] = {}
        self.shapes: list[CallShape] = []
        self.result_ids: dict[bytes, int] = {}
        self.results: list[ResultShape] = []
        self.unit_shape: list[int] = []
        self.unit_result: list[int] = []
        self.parts: dict[str, list[np.ndarray]] = {"key": [], "gap": [], "dur": [], "base": []}
        self.calls = 0
        self.blocks: list[tuple[int, int]] = []  # (offset in the stream, first call)

    def read(self) -> tuple[RankLog, int]:
        """The log, and where the next stream may start."""
        pos = self._header()
        data = self.data
        while pos < len(data):
            tag = bytes(data[pos:pos + 2])
            if tag == b"\xffB":
                try:
                    pos = self._block(pos)
                except Damaged as e:
                    self._damaged(str(e))
                    return self._finish(), _next(data, pos + 1)
            elif tag == b"\xffX":
                pos = self._index(pos)
            elif tag[:1] in (b"\n", b"#") and bytes(data[pos:pos + len(MAGIC)]) != MAGIC:
                pos = self._end_line(pos)
            elif bytes(data[pos:pos + len(MAGIC)]) == MAGIC:
                break
            else:
                self._damaged(f"byte {pos - self.start} of its stream is not a block")
                return self._finish(), _next(data, pos + 1)
        return self._finish(), pos

    # -- the header, the end lines -------------------------------------------------------
    def _header(self) -> int:
        data, start = self.data, self.start
        stop = bytes(data[start:start + (1 << 20)]).find(b"\n\n")
        if stop < 0:
            raise TraceError(f"{self.path}: a compact stream's header is cut short (no empty "
                             "line ends it): not a whole recording")
        lines = bytes(data[start:start + stop]).decode("utf-8", "replace").split("\n")
        words = lines[0].split()
        if len(words) < 2 or words[1] != str(VERSION):
            raise TraceError(f"{self.path}: {MAGIC.decode()}: version {words[1:] or '?'} is "
                             f"not supported (this mpisim reads version {VERSION})")
        for text in lines[1:]:
            if text.startswith("#"):
                header_line(self.where, 0, text, self.end)
        rank = self.end.header.get("rank", "").split()
        self.where.rank = rank[0] if rank else None
        return start + stop + 2

    def _end_line(self, pos: int) -> int:
        stop = bytes(self.data[pos:pos + 4096]).find(b"\n")
        if stop < 0:  # a last line without its newline: cut by a kill, ignored
            return len(self.data)
        text = bytes(self.data[pos:pos + stop]).decode("utf-8", "replace")
        if text:
            header_line(self.where, self.calls, text, self.end)
        return pos + stop + 1

    def _damaged(self, why: str) -> None:
        self.end.broken = (f"the recording is damaged from call {self.calls + 1} of rank "
                           f"{self.where.rank} ({why}); the calls before it are read")

    # -- blocks -----------------------------------------------------------------------------
    def _block(self, pos: int) -> int:
        data = self.data
        if pos + BLOCK.size > len(data):
            raise Damaged("its block is cut short")
        _, codec, _, stored, raw_len, first, n, first_key, crc = BLOCK.unpack_from(data, pos)
        body = pos + BLOCK.size
        if codec not in CODECS or n > MAX_CALLS or not PAYLOAD.size <= raw_len <= MAX_RAW:
            raise Damaged("its block's frame is not one this mpisim writes")
        if body + stored > len(data):
            raise Damaged("its block is cut short")
        if first != self.calls or first_key != len(self.unit_shape):
            raise Damaged(f"its block says it starts at call {first + 1}, key {first_key}")
        payload = memoryview(data)[body:body + stored]
        if zlib.crc32(payload) != crc:
            raise Damaged("its block's checksum does not match")
        raw = memoryview(_inflate(payload, raw_len) if codec == 1 else payload)
        if len(raw) != raw_len or raw_len < PAYLOAD.size:
            raise Damaged("its block's length is not the one its frame gives")
        self._payload(raw, n)
        self.blocks.append((pos - self.start, first))
        return body + stored

    def _payload(self, raw: memoryview, n: int) -> None:
        *widths, ntext, nkeys, text_bytes, key_bytes = PAYLOAD.unpack_from(raw, 0)
        if any(w not in WIDTHS for w in widths):
            raise Damaged("its block's column widths are not 0, 1, 2, 4 or 8")
        at = PAYLOAD.size
        columns = []
        for width in widths:
            column, at = _column(raw, at, n, width)
            columns.append(column)
        if at + 4 * ntext + text_bytes + key_bytes != len(raw):
            raise Damaged("its block's sections do not add up to its length")
        positions = np.frombuffer(raw, dtype="<u4", count=ntext, offset=at)
        at += 4 * ntext
        texts = bytes(raw[at:at + text_bytes]).split(b"\n")[:-1]
        keys = bytes(raw[at + text_bytes:]).split(b"\n")[:-1]
        if len(texts) != ntext or len(keys) != nkeys or (ntext and positions.max() > n):
            raise Damaged("its block's text or keys are not as its head says")
        key = columns[0]
        if n and (key.max() >= len(self.unit_shape) + nkeys):
            raise Damaged("a call names a key not given yet")
        firsts = self._first_uses(key, len(self.unit_shape))
        for place, text in zip(positions.tolist(), texts, strict=True):
            self._text(self.calls + place, text.decode("utf-8", "replace"))
        for i, k in enumerate(keys):
            self._key(k, self.calls + firsts.get(i, n) + 1)
        self._keep(columns)
        self.calls += n

    def _keep(self, columns: list[np.ndarray]) -> None:
        """A block's columns (key, gap, duration, base), kept for the log (a streamed read,
        :mod:`.stream`, keeps what it needs of them instead)."""
        for name, column in zip(("key", "gap", "dur", "base"), columns, strict=True):
            self.parts[name].append(column)

    @staticmethod
    def _first_uses(key: np.ndarray, known: int) -> dict[int, int]:
        """Each new key's first call in the block (key - known -> index)."""
        fresh = np.flatnonzero(key >= known)
        if not len(fresh):
            return {}
        ids, first = np.unique(key[fresh], return_index=True)
        return dict(zip((ids - known).tolist(), fresh[first].tolist(), strict=True))

    def _text(self, before: int, text: str) -> None:
        """A description line (``T``, ``@``, ``C``, ``#``) written before call ``before``."""
        number = before + 1
        if text.startswith("#"):
            header_line(self.where, number, text, self.end)
        elif text.startswith("T "):
            t = type_line(self.where, number, text)
            self.types[t.id] = t
        elif text.startswith("@ "):
            s = site_line(self.where, number, text)
            self.sites[s.id] = s
            self.site_at.setdefault(s.id, before)
        elif text.startswith("C "):
            cid, fields = comm_line(self.where, number, text)
            self.comms[cid] = fields
        elif text.startswith("H "):
            if before > 0 and len(self.data_lines) < MAX_DATA:
                self.data_lines[before - 1] = text[2:]
        elif text:
            raise self.where.error(number, text.split(" ")[0], "not a description line")

    def _key(self, key: bytes, number: int) -> None:
        """A new key, first used by call ``number`` (1-based)."""
        call, paired, result = key.partition(b"\0")
        shape, _ = call_shape(self.where, number, call.decode("utf-8", "replace") + " g=0")
        placed = shape.site is None or self.site_at.get(shape.site, number) < number
        sid = self.shape_ids.get((call, placed))
        if sid is None:
            sid = self.shape_ids[(call, placed)] = len(self.shapes)
            self.shapes.append(shape if placed else CallShape(shape.name, shape.args, None))
        rid = -1
        if paired:
            rid = self.result_ids.get(result, -1)
            if rid < 0:
                rid = self.result_ids[result] = len(self.results)
                text = result.decode("utf-8", "replace")
                self.results.append(result_shape(self.where, number, text)[0])
        self.unit_shape.append(sid)
        self.unit_result.append(rid)

    def _index(self, pos: int) -> int:
        data = self.data
        bad = TraceError(f"{self.path}: rank {self.where.rank}: its index does not name the "
                         "blocks of its stream (a damaged recording)")
        if pos + INDEX.size > len(data):
            raise bad
        n = INDEX.unpack_from(data, pos)[3]
        body = pos + INDEX.size
        if n > MAX_CALLS or body + 16 * n + 4 > len(data):
            raise bad
        entries = memoryview(data)[body:body + 16 * n]
        pairs = np.frombuffer(entries, dtype="<u8").reshape(n, 2)
        if (struct.unpack_from("<I", data, body + 16 * n)[0] != zlib.crc32(entries)
                or [tuple(p) for p in pairs.tolist()] != self.blocks):
            raise bad
        return body + 16 * n + 4

    # -- the log ---------------------------------------------------------------------------
    def _finish(self) -> RankLog:
        cat = {k: np.concatenate(v) if v else np.zeros(0, dtype=np.int64)
               for k, v in self.parts.items()}
        keys = cat["key"]
        unit_result = np.array([*self.unit_result, -1], dtype=np.int32)
        result = unit_result[keys] if len(keys) else np.zeros(0, dtype=np.int32)
        open_calls = np.flatnonzero(result < 0)
        cut_at = None
        if len(open_calls) and open_calls[0] < len(keys) - 1:
            first = int(open_calls[0])  # (a threaded log ends with one open call per thread)
            threads = [self.shapes[self.unit_shape[k]].args.get("t", 0)
                       for k in keys[first:].tolist()]
            cut_at = after_open(threads, (result[first:] < 0).tolist())
        if cut_at is not None and self.end.broken is None:
            cut = first + cut_at
            name = self.shapes[self.unit_shape[keys[cut]]].name
            self.end.broken = (f"call {cut + 1} starts another call (MPI_{name}) before call "
                               f"{cut} returned; the log's {len(keys) - cut} calls from there "
                               "are not read")
            keys, result = keys[:cut], result[:cut]
            cat = {k: v[:cut] for k, v in cat.items()}
        base = cat["base"]
        calls = CallList(self.shapes, self.results,
                         np.array(self.unit_shape, dtype=np.int32)[keys], result,
                         cat["gap"] * 1e-9, np.where(result >= 0, cat["dur"], 0) * 1e-9,
                         np.arange(1, len(keys) + 1, dtype=np.int64), self.sites,
                         base if base.any() else None)
        log = finish_log(self.where, 0, self.path, self.end, calls, self.types, self.sites,
                         self.comms)
        log.data = {i: t for i, t in self.data_lines.items() if i < len(keys)}
        return log


def _inflate(payload: memoryview, size: int) -> bytes:
    """A zlib block's bytes, never more than the ``size`` its frame gives."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(payload, size)
    except zlib.error as e:
        raise Damaged(f"its block does not decompress: {e}") from None
    if not inflater.eof or inflater.unconsumed_tail:
        raise Damaged("its block's length is not the one its frame gives")
    return raw


def _next(data: bytes, pos: int) -> int:
    """Where the next stream starts at or after ``pos`` (the data's end if none does)."""
    found = data.find(MAGIC, pos)
    return found if found >= 0 else len(data)


def read_compact(path: str, data: bytes) -> list[RankLog]:
    """Every process's log in ``data`` (the compact recording ``path``), in its order."""
    if not bytes(data[:len(MAGIC)]) == MAGIC:
        raise TraceError(f"{path}:1: not a compact recording (expected {MAGIC.decode()!r})")
    logs: list[RankLog] = []
    pos = 0
    while pos < len(data):
        log, pos = _Stream(path, data, pos).read()
        logs.append(log)
    return logs
