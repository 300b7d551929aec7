"""Writing the compact recording format from Python (:mod:`..read.compact` specifies it):
converting a text recording (``mpisim record --convert``; :func:`convert`) and the
synthetic generator's recordings. The recorder writes the same format from C, as the program
runs (``shim/mpisim_record.c``); both make a call's key as :mod:`..read.columns` does (the
text lines but their numbers, request ids relative to the smallest), so a converted text log
reads back as the same calls.
"""

from __future__ import annotations

import io
import os
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..read.columns import relative_requests
from ..read.compact import BLOCK, INDEX, MAGIC, PAYLOAD, VERSION
from ..read.lines import MAGIC as TEXT_MAGIC
from ..read.records import TraceError
from ..read.trace import log_files, read_trace

__all__ = ["BLOCK_BUDGET", "BLOCK_CALLS", "BLOCK_FLOOR", "StreamWriter", "TextToCompact",
           "block_calls", "call_key", "convert", "text_as_compact", "whole"]

BLOCK_CALLS = 1 << 16
"""Calls a block holds at most (the recorder's blocks, C_ROWS, are smaller: its memory is
static); fewer with many processes (:func:`block_calls`)."""
BLOCK_BUDGET = 1 << 22
"""Calls all processes' blocks hold together (:func:`block_calls`; the recorder is built
with it, ``-DMPISIM_BLOCK_BUDGET``)."""
BLOCK_FLOOR = 1 << 11
"""Calls a block holds at least, however many the processes (:func:`block_calls`; the
recorder is built with it, ``-DMPISIM_BLOCK_FLOOR``)."""
LEVEL = 6
"""zlib's level for converted recordings (the recorder uses 1: it runs beside the program)."""
_NO_ROWS = np.zeros((0, 4), dtype=np.uint64)


def block_calls(size: int) -> int:
    """Calls a block of a recording of ``size`` processes holds: :data:`BLOCK_BUDGET` shared
    among the processes, within :data:`BLOCK_FLOOR` and :data:`BLOCK_CALLS`; e.g. 65,536 up
    to 64 processes, 4,096 at 1,024, 2,048 from 2,048 on.

    Why: a replay keeps the decoded block each process is in (two at most,
    :class:`..read.stream.StreamedCalls`), about 9 bytes a call: with blocks of 65,536
    calls, about 0.6 GB at 1,024 processes once full. Shared, the window stays about 2^22
    calls, tens of MB, up to the floor (1,024 processes' calls taken as a replay takes them:
    101 MB at 10^7 calls and 105 MB at 3 x 10^7, against 141 and 281 MB). The floor because
    a block has costs of its own (its frame, zlib's header and tables, the reader's numpy
    calls, about 0.15 ms a block): a 3-D halo's blocks of 2,048 calls take 3.2 bytes a call
    on disk and read at 5.4 x 10^6 calls/s, against 2.6 and 8.6 x 10^6 at 65,536 (3.6 and
    3.4 x 10^6 at 1,024, below the read path's 5 x 10^6 target)."""
    share = BLOCK_BUDGET // max(1, size)
    return min(BLOCK_CALLS, max(BLOCK_FLOOR, share))


def _size(header: Iterable[str]) -> int:
    """The process count a header's ``#rank R SIZE`` line gives (1 without one)."""
    for line in header:
        words = line.split()
        if len(words) == 3 and words[0] == "#rank" and words[2].isdigit():
            return int(words[2])
    return 1


def _planes(values: np.ndarray) -> tuple[int, bytes]:
    """A column's width (0, 1, 2, 4, 8 bytes) and its bytes, a byte plane at a time."""
    top = int(values.max()) if len(values) else 0
    width = 0 if top == 0 else 1 if top < 1 << 8 else 2 if top < 1 << 16 else \
        4 if top < 1 << 32 else 8
    if width == 0:
        return 0, b""
    as_bytes = values.astype(f"<u{width}").view(np.uint8).reshape(len(values), width)
    return width, as_bytes.T.tobytes()


class StreamWriter:
    """One process's compact stream, written block by block to ``out``.

    Parameters
    ----------
    out
        A binary file open for writing, at the stream's start.
    header
        The header's ``#`` lines (``#rank R SIZE``...; no newlines).
    level
        zlib's compression level (1 to 9; default :data:`LEVEL`).
    calls
        Calls a block holds (default: :func:`block_calls` of the header's ``#rank R SIZE``
        process count; 65,536 without one).
    """

    def __init__(self, out: BinaryIO, header: Iterable[str], level: int = LEVEL,
                 calls: int | None = None) -> None:
        header = list(header)
        self.out, self.level = out, level
        self.block = calls if calls is not None else block_calls(_size(header))
        if self.block < 1:
            raise ValueError(f"calls: {self.block} is not a positive number of calls")
        head = "".join(f"{line}\n" for line in
                       [f"{MAGIC.decode()} {VERSION}", *header]) + "\n"
        out.write(head.encode())
        self.offset = len(head.encode())
        self.keys: dict[bytes, int] = {}
        self.new: list[bytes] = []
        self.rows: list[tuple[int, int, int, int]] = []
        self.bulk = _NO_ROWS  # rows given as columns, before self.rows
        self.texts: list[tuple[int, str]] = []
        self.calls = 0
        self.index: list[tuple[int, int]] = []

    def describe(self, text: str) -> None:
        """A description line (``T``, ``@``, ``C``, ``#``) before the next call."""
        self.texts.append((len(self.bulk) + len(self.rows), text))

    def call(self, key: bytes, gap: int, duration: int, base: int) -> None:
        """A call: its key (see the format), the ns outside MPI before it and inside it, its
        request base (0: none)."""
        self.rows.append((self._intern(key), gap, duration, base))
        if len(self.bulk) + len(self.rows) >= self.block:
            self.flush()

    def columns(self, keys: list[bytes], key: np.ndarray, gap: np.ndarray,
                duration: np.ndarray, base: np.ndarray) -> None:
        """Many calls at once, as columns: ``key`` indexes ``keys``; ``gap``, ``duration``
        and ``base`` as :meth:`call`'s (the synthetic generator's bulk path: the same block
        and the same key ids as a call at a time)."""
        ids = np.array([self._intern(k) for k in keys], dtype=np.uint64)
        rows = np.column_stack([ids[key], gap, duration, base]).astype(np.uint64)
        if self.rows:
            rows = np.concatenate([np.array(self.rows, dtype=np.uint64).reshape(-1, 4), rows])
            self.rows = []
        while len(rows):
            room = self.block - len(self.bulk)
            self.bulk = rows[:room] if not len(self.bulk) else np.concatenate(
                [self.bulk, rows[:room]])
            rows = rows[room:]
            if len(self.bulk) >= self.block:
                self.flush()

    def _intern(self, key: bytes) -> int:
        kid = self.keys.get(key)
        if kid is None:
            kid = self.keys[key] = len(self.keys)
            self.new.append(key)
        return kid

    def flush(self) -> None:
        """Write the calls so far as a block (none: nothing)."""
        if not self.rows and not self.texts and not len(self.bulk):
            return
        table = np.array(self.rows, dtype=np.uint64).reshape(len(self.rows), 4)
        if len(self.bulk):
            table = np.concatenate([self.bulk, table])
        n = len(table)
        cols = table.T
        planes = [_planes(c) for c in cols]
        texts = "".join(f"{t}\n" for _, t in self.texts).encode()
        keys = b"".join(k + b"\n" for k in self.new)
        raw = b"".join([PAYLOAD.pack(*(w for w, _ in planes), len(self.texts), len(self.new),
                                     len(texts), len(keys)),
                        *(b for _, b in planes),
                        np.array([p for p, _ in self.texts], dtype="<u4").tobytes(),
                        texts, keys])
        stored = zlib.compress(raw, self.level)
        first_key = len(self.keys) - len(self.new)
        frame = BLOCK.pack(b"\xffB", 1, 0, len(stored), len(raw), self.calls, n, first_key,
                           zlib.crc32(stored))
        self.index.append((self.offset, self.calls))
        self.out.write(frame)
        self.out.write(stored)
        self.offset += len(frame) + len(stored)
        self.calls += n
        self.rows, self.texts, self.new = [], [], []
        self.bulk = _NO_ROWS

    def close(self, end: Iterable[str] = ()) -> None:
        """The last block, the index and the end lines (``# signal N g=NS``...)."""
        self.flush()
        entries = np.array(self.index, dtype="<u8").reshape(len(self.index), 2).tobytes()
        self.out.write(INDEX.pack(b"\xffX", 0, 0, len(self.index)) + entries
                       + zlib.crc32(entries).to_bytes(4, "little"))
        for line in end:
            self.out.write(f"\n{line}\n".encode())


def _without(text: str, field: str) -> tuple[str, int]:
    """A line without its first `` field=N`` (after the first word), and N (0 if none)."""
    at = text.find(f" {field}=")
    if at < 0:
        return text, 0
    end = text.find(" ", at + 1)
    end = len(text) if end < 0 else end
    return text[:at] + text[end:], int(text[at + len(field) + 2:end], 0)


class TextToCompact:
    """Text lines of a recording (one or more process logs) to compact streams on ``out``,
    a line at a time (the converter's and the synthetic generator's writer)."""

    def __init__(self, out: BinaryIO, level: int = LEVEL) -> None:
        self.out, self.level = out, level
        self.stream: StreamWriter | None = None
        self.header: list[str] | None = None
        self.pending: tuple[str, int] | None = None  # a call line waiting for its result

    def line(self, text: str) -> None:
        """The next line (without its newline)."""
        if text.startswith(TEXT_MAGIC):
            self.close()
            self.header = []
        elif self.header is not None and text.startswith("#"):
            self.header.append(text)
        elif not text:
            return
        else:
            stream = self.open_stream()
            if text[0] == "=":
                self._result(stream, text)
            elif text[0] == "#" or text[:2] in ("T ", "@ ", "C ", "H "):
                stream.describe(text)  # (an H line follows its call's result: after it)
            else:
                self._unreturned(stream)
                self.pending = _without(text, "g")

    def open_stream(self) -> StreamWriter:
        """The process's stream being written (begun now, after its header, if need be)."""
        if self.stream is None:
            if self.header is None:
                raise TraceError(f"a text recording starts with {TEXT_MAGIC!r}")
            self.stream = StreamWriter(self.out, self.header, self.level)
            self.header = None
        return self.stream

    def _result(self, stream: StreamWriter, text: str) -> None:
        if self.pending is None:
            raise TraceError("a result line without a call before it")
        call, gap = self.pending
        result, duration = _without(text, "d")
        key, base = _key(f"{call}\0{result}")
        stream.call(key, gap, duration, base)
        self.pending = None

    def _unreturned(self, stream: StreamWriter) -> None:
        if self.pending is not None:
            call, gap = self.pending
            key, base = relative_requests(call.encode())
            stream.call(key, gap, 0, base)
            self.pending = None

    def close(self) -> None:
        """End the process's stream being written (its end lines are its ``#`` lines)."""
        if self.stream is None and self.header is not None:
            self.open_stream()
        if self.stream is not None:
            self._unreturned(self.stream)
            self.stream.close()
        self.stream, self.header = None, None


def _key(text: str) -> tuple[bytes, int]:
    key = text.encode()
    return relative_requests(key) if b" r=" in key else (key, 0)


def call_key(call: str, result: str) -> tuple[bytes, int, int, int]:
    """A returned call's key, gap, duration and request base, from its text lines (its
    call line and result line, without their newlines), as a compact stream stores it."""
    line, gap = _without(call, "g")
    result, duration = _without(result, "d")
    key, base = _key(f"{line}\0{result}")
    return key, gap, duration, base


def text_as_compact(data: bytes) -> bytes:
    """A text log's bytes as a compact stream (a last line without its newline dropped)."""
    out = io.BytesIO()
    writer = TextToCompact(out)
    for line in data.decode("utf-8", "replace").split("\n")[:-1]:
        writer.line(line)
    writer.close()
    return out.getvalue()


def whole(data: bytes) -> int:
    """How many bytes of a process's compact stream are whole: its header, its whole frames
    and end lines (a stream its process was killed while writing is cut there; 0 when its
    header is not whole)."""
    at = data.find(b"\n\n")
    if at < 0:
        return 0
    pos = at + 2
    while pos < len(data):
        tag = data[pos:pos + 2]
        if tag == b"\xffB" and pos + BLOCK.size <= len(data):
            size = BLOCK.size + BLOCK.unpack_from(data, pos)[3]
        elif tag == b"\xffX" and pos + INDEX.size <= len(data):
            size = INDEX.size + 16 * INDEX.unpack_from(data, pos)[3] + 4
        elif tag[:1] in (b"\n", b"#") and b"\n" in data[pos:pos + 4096]:
            size = data.index(b"\n", pos) + 1 - pos
        else:
            break
        if pos + size > len(data):
            break
        pos += size
    return pos


def _text_lines(path: Path) -> Iterator[str]:
    files = log_files(path) if path.is_dir() else [path]
    for f in files:
        with open(f, encoding="utf-8", errors="replace", newline="\n") as lines:
            for line in lines:
                if line.endswith("\n"):  # a last line cut by a kill is not read
                    yield line[:-1]


def convert(source: str | os.PathLike[str], out: str | os.PathLike[str],
            level: int = LEVEL) -> int:
    """Write the text recording ``source`` (a ``.trace`` file or a directory of
    ``rank.N.log``) as a compact one at ``out`` (whole or not at all).

    Parameters
    ----------
    source
        A text recording (as ``mpisim record --format text`` writes it).
    out
        The compact recording to write (replaced if it exists).
    level
        zlib's compression level, 1 (fastest) to 9 (smallest); default 6.

    Returns
    -------
    int
        The number of calls written.

    Raises
    ------
    ValueError
        A ``TraceError`` naming the file, line and key when ``source`` cannot be read.
    """
    src = Path(source)
    trace = read_trace(src, sources=False)
    if any(log.path and Path(log.path).read_bytes()[:len(MAGIC)] == MAGIC
           for log in trace.ranks[:1]):
        raise TraceError(f"{src}: already a compact recording")
    target = Path(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            writer = TextToCompact(f, level)
            for line in _text_lines(src):
                writer.line(line)
            writer.close()
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    return sum(len(log.calls) for log in trace.processes)
