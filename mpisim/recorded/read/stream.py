"""Reading a compact recording as it is replayed: a process's calls a block at a time.

:func:`read_streamed` reads a compact recording (:mod:`.compact`) once through, keeping of
each process only what does not grow with its calls: the string table (call and result
shapes), the datatypes, call sites and communicators its description lines give, where each
block starts, and a few sums (the calls' count, their times, the longest gap and call, the
calls that failed, how often each shape is used). Its log's calls are a
:class:`StreamedCalls`, which reads a block from the file when a call in it is asked for and
keeps the last two it read: a replay going through a process's calls in order holds one
block of it at a time, whatever the recording's length. A block holds any number of calls;
the writers make all processes' blocks hold about 2^22 calls together
(:func:`~..record.compact.block_calls`: 65,536 calls a block up to 64 processes, 4,096 at
1,024, 2,048 at least), so that the window does not grow with the process count either
(up to 2,048 processes).

The file is read through a memory map whose pages are given back once their block is read,
so that reading a recording of 10^8 calls does not make the process hold its 300 MB.

A log that goes on past a call in progress (:attr:`.records.RankLog.broken`, rare: an error
handler that never returned) is read whole as :mod:`.compact` reads it, as are the text
format's logs (:mod:`.columns`, whole: a text line's numbers are read with its line).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import threading
import zlib
from collections.abc import Iterator
from itertools import chain
from typing import Any, cast

import numpy as np

from .compact import BLOCK, MAGIC, PAYLOAD, WIDTHS, _column, _Stream
from .lines import finish_log
from .records import Call, CallList, RankLog, TraceError, absolute_request

__all__ = ["StreamedCalls", "read_streamed"]

_PAGE = mmap.PAGESIZE
_DONTNEED: int | None = getattr(mmap, "MADV_DONTNEED", None)  # (not on every platform)
_BEHIND = 1 << 18  # bytes before a block given back with it (4 times the fault-around)


class _Whole(Exception):
    """A stream to read whole (:mod:`.compact`'s way): its log is cut at a call in progress."""


class _Source:
    """A recording's file, read at offsets (one descriptor, opened when first read, shared
    by the processes' streams in it; a process made by fork reads through its own)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def read(self, offset: int, size: int) -> bytes:
        with self._lock:
            if self._fd is None or self._pid != os.getpid():
                self._fd, self._pid = os.open(self.path, os.O_RDONLY), os.getpid()
            data = os.pread(self._fd, size, offset)
        if len(data) != size:
            raise TraceError(f"{self.path}: the recording changed while it was replayed "
                             f"(a block at byte {offset} is cut short)")
        return data

    def __del__(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)


class _Block:
    """A block's calls as stored: key indices, the times (ns) and request bases, each column
    in the fewest bytes that hold it (8 to 9 bytes a call for a loop's; as the replay's
    floats and indices, 32); ``first`` its first call (0-based). The replay's columns are
    made a stride at a time (:meth:`shape`...)."""

    __slots__ = ("_base", "_dur", "_gap", "_key", "_unit_result", "_unit_shape", "first", "n")

    def __init__(self, first: int, key: np.ndarray, gap: np.ndarray, duration: np.ndarray,
                 base: np.ndarray, unit_shape: np.ndarray, unit_result: np.ndarray) -> None:
        self.first, self.n = first, len(key)
        self._key, self._gap, self._dur, self._base = key, gap, duration, base
        self._unit_shape, self._unit_result = unit_shape, unit_result

    def shape(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The calls' shape indices (int32)."""
        return self._unit_shape[self._key[lo:hi]]

    def result(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The calls' result shape indices (int32; -1: the call did not return)."""
        return self._unit_result[self._key[lo:hi]]

    def gap(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The time before each call outside MPI (s)."""
        return self._gap[lo:hi] * 1e-9

    def duration(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The time in each call (s; 0 for a call that did not return)."""
        return np.where(self.result(lo, hi) >= 0, self._dur[lo:hi], 0) * 1e-9

    def base(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The calls' request bases (0: none)."""
        return self._base[lo:hi].astype(np.int64)

    def at(self, j: int) -> tuple[int, int, float, float, int]:
        """Call ``j`` of the block: its shape and result indices, gap, duration and base."""
        key = self._key[j]
        result = int(self._unit_result[key])
        return (int(self._unit_shape[key]), result, float(self._gap[j] * 1e-9),
                float(self._dur[j] * 1e-9) if result >= 0 else 0.0, int(self._base[j]))


class StreamedCalls(CallList):
    """A process's calls in a compact recording, read from the file a block at a time (see
    the module). Indexing, iterating and :meth:`strides` read the blocks they need; the
    whole columns (``shape``, ``gap``...) are still there for what needs them, read whole
    when asked for (their memory is then the recording's)."""

    __slots__ = ("_blocks", "_cache", "_counts", "_errors", "_firsts", "_longest", "_n",
                 "_source", "_total", "_unit_result", "_unit_shape")

    def __init__(self, scan: _Scan, source: _Source) -> None:
        self.shapes, self.results, self.sites = scan.shapes, scan.results, scan.sites
        self._source = source
        self._n = scan.calls
        self._blocks = [(scan.start + offset, first, n) for (offset, first), n in
                        zip(scan.blocks, scan.sizes, strict=True)]
        self._firsts = np.array([first for _, first, _ in self._blocks], dtype=np.int64)
        self._unit_shape = np.array(scan.unit_shape, dtype=np.int32)
        self._unit_result = np.array([*scan.unit_result, -1], dtype=np.int32)
        self._counts = scan.key_counts[:len(scan.unit_shape)]
        self._errors = np.array(scan.failed, dtype=np.int64)
        self._total = (scan.gap_s, scan.dur_s)
        self._longest = (scan.longest_gap * 1e-9, scan.longest_dur * 1e-9)
        self._cache: list[_Block] = []

    # -- blocks ----------------------------------------------------------------------------
    def block(self, i: int) -> _Block:
        """The block holding call ``i`` (0-based), read from the file unless kept."""
        if self._cache:  # (the replay's: the block it is in)
            kept = self._cache[0]
            if 0 <= i - kept.first < kept.n:
                return kept
        for kept in self._cache:
            if kept.first <= i < kept.first + kept.n:
                return kept
        at = int(np.searchsorted(self._firsts, i, side="right")) - 1
        offset, first, n = self._blocks[at]
        block = self._decode(offset, first, n)
        self._cache = [block, *self._cache[:1]]
        return block

    def _decode(self, offset: int, first: int, n: int) -> _Block:
        source = self._source
        frame = BLOCK.unpack(source.read(offset, BLOCK.size))
        codec, stored = frame[1], frame[3]
        payload = source.read(offset + BLOCK.size, stored)
        raw = memoryview(zlib.decompress(payload) if codec == 1 else payload)
        *widths, _ntext, _nkeys, _text, _keys = PAYLOAD.unpack_from(raw, 0)
        if any(w not in WIDTHS for w in widths):
            raise TraceError(f"{source.path}: the recording changed while it was replayed")
        at = PAYLOAD.size
        columns = []
        for width in widths:
            column, at = _column(raw, at, n, width, narrow=True)
            columns.append(column)
        key, gap, dur, base = columns
        n = min(n, self._n - first)  # (a log read up to its last whole call)
        return _Block(first, key[:n], gap[:n], dur[:n], base[:n], self._unit_shape,
                      self._unit_result)

    def _blockwise(self) -> Iterator[_Block]:
        for offset, first, n in self._blocks:
            if first < self._n:
                yield self._decode(offset, first, n)

    def strides(self, size: int = 4096) -> Iterator[tuple[int, list[int], list[int],
                                                          list[float]]]:
        for block in self._blockwise():
            self._cache = [block]  # (a call of it asked for is this one: not read twice)
            for lo in range(0, block.n, size):
                hi = lo + size
                yield (block.first + lo, block.shape(lo, hi).tolist(),
                       block.result(lo, hi).tolist(), block.gap(lo, hi).tolist())

    def replayed(self, size: int = 4096) -> Iterator[tuple[int, int, int, float, int]]:
        return chain.from_iterable(self._replayed(size))

    def _replayed(self, size: int) -> Iterator[Iterator[tuple[int, int, int, float, int]]]:
        for block in self._blockwise():
            self._cache = [block]  # (a call of it asked for is this one: not read twice)
            for lo in range(0, block.n, size):
                hi, first = lo + size, block.first + lo
                yield zip(range(first + 1, first + size + 1), block.shape(lo, hi).tolist(),
                          block.result(lo, hi).tolist(), block.gap(lo, hi).tolist(),
                          block.base(lo, hi).tolist(), strict=False)

    # -- a call ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def call(self, i: int) -> Call:
        b = self.block(i)
        s, r, gap, duration, base = b.at(i - b.first)
        shape = self.shapes[s]
        site = self.sites.get(shape.site) if shape.site is not None else None
        call = Call(i + 1, shape.name, gap, dict(shape.args), i + 1, site)
        if r >= 0:
            res = self.results[r]
            call.returned, call.error = True, res.error
            call.duration = duration
            call.out = {k: (list(v) if isinstance(v, list) else v) for k, v in res.out.items()}
        if base:
            if "r" in call.args:
                call.args["r"] = [absolute_request(v, base) for v in call.args["r"]]
            if "r" in call.out:
                call.out["r"] = absolute_request(call.out["r"], base)
        return call

    def name(self, i: int) -> str:
        b = self.block(i)
        return self.shapes[b.at(i - b.first)[0]].name

    def request_id(self, i: int) -> int:
        b = self.block(i)
        _, r, _, _, base = b.at(i - b.first)
        rid = self.results[r].out["r"]
        return rid + base - 1 if base and rid is not None and rid > 0 else rid  # (_absolute)

    def returned(self, i: int) -> bool:
        b = self.block(i)
        return b.at(i - b.first)[1] >= 0

    def errors(self) -> np.ndarray:
        return self._errors

    # -- sums ------------------------------------------------------------------------------
    def used(self) -> tuple[np.ndarray, np.ndarray]:
        counts = self._counts
        shapes = np.bincount(self._unit_shape, weights=counts, minlength=len(self.shapes))
        results = np.bincount(self._unit_result[:-1] + 1, weights=counts,
                              minlength=len(self.results) + 1)
        return shapes.astype(np.int64), results.astype(np.int64)

    def total_time(self) -> float:
        return self._total[0] + self._total[1]

    def longest(self, kind: str) -> float:
        return self._longest[0] if kind == "g" else self._longest[1]

    # -- whole columns (read whole: for what needs them) --------------------------------------
    def _whole(self, name: str) -> np.ndarray:
        parts = [getattr(b, name)() for b in self._blockwise()]
        return np.concatenate(parts) if parts else np.zeros(0)

    @property
    def shape(self) -> np.ndarray:  # type: ignore[override]
        return self._whole("shape")

    @property
    def result(self) -> np.ndarray:  # type: ignore[override]
        return self._whole("result")

    @property
    def gap(self) -> np.ndarray:  # type: ignore[override]
        return self._whole("gap")

    @property
    def duration(self) -> np.ndarray:  # type: ignore[override]
        return self._whole("duration")

    @property
    def base(self) -> np.ndarray | None:  # type: ignore[override]
        return self._whole("base")

    @property
    def line(self) -> np.ndarray:  # type: ignore[override]
        return np.arange(1, self._n + 1, dtype=np.int64)


class _Scan(_Stream):
    """One process's stream read through, keeping its sums instead of its columns."""

    def __init__(self, path: str, data: Any, start: int) -> None:
        super().__init__(path, data, start)
        self.sizes: list[int] = []
        self.key_counts = np.zeros(0, dtype=np.int64)
        self.failed: list[int] = []
        self.first_open: int | None = None
        self.gap_s = self.dur_s = 0.0
        self.longest_gap = self.longest_dur = 0

    def _block(self, pos: int) -> int:
        end = super()._block(pos)
        if isinstance(self.data, mmap.mmap) and _DONTNEED is not None:  # (module)
            # its pages given back, and those behind it: a fault maps the pages around the
            # one it reads (the kernel's fault-around, 64 KiB), so reading this block mapped
            # again the last pages of the block before it (30 KB a block, left mapped, made
            # the scan's memory grow with the recording's length)
            lo = max(0, pos - _BEHIND)
            lo -= lo % _PAGE
            self.data.madvise(_DONTNEED, lo, end - lo)
        return end

    def _keep(self, columns: list[np.ndarray]) -> None:
        key, gap, dur, _base = columns
        n, first = len(key), self.calls
        self.sizes.append(n)
        if not n:
            return
        unit_result = np.array(self.unit_result, dtype=np.int32)
        result = unit_result[key]
        opened = np.flatnonzero(result < 0)
        if len(opened) and self.first_open is None:
            self.first_open = first + int(opened[0])
        keys = len(self.unit_shape)
        if len(self.key_counts) < keys:
            self.key_counts = np.concatenate(
                [self.key_counts, np.zeros(keys - len(self.key_counts), dtype=np.int64)])
        self.key_counts += np.bincount(key, minlength=keys)
        failed = np.array([r.error is not None for r in self.results] + [False], dtype=bool)
        self.failed.extend((first + np.flatnonzero(failed[result])).tolist())
        done = result >= 0
        self.gap_s += float((gap * 1e-9).sum())
        self.dur_s += float((np.where(done, dur, 0) * 1e-9).sum())
        skip = 1 if first == 0 else 0  # (MPI_Init's own times are not the program's)
        self.longest_gap = max(self.longest_gap, int(gap[skip:].max(initial=0)))
        waited = done  # (MPI_Comm_spawn's time starts processes: no wait for another)
        spawning = [k for k, s in enumerate(self.unit_shape)
                    if self.shapes[s].name.startswith("Comm_spawn")]
        if spawning:
            waited = done & ~np.isin(key, spawning)
        self.longest_dur = max(self.longest_dur, int(dur[skip:][waited[skip:]].max(initial=0)))

    def _finish(self) -> RankLog:
        cut = self.first_open is not None and self.first_open < self.calls - 1
        if cut and self.end.broken is None:
            raise _Whole
        calls = StreamedCalls(self, self.source)
        log = finish_log(self.where, 0, self.path, self.end, calls, self.types, self.sites,
                         self.comms)
        log.data = self.data_lines
        return log

    source: _Source


def read_streamed(path: str) -> list[RankLog]:
    """Every process's log in the compact recording ``path``, in its order, each log's calls
    read from the file as they are asked for (:class:`StreamedCalls`)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            raise TraceError(f"{path}:1: not a compact recording (expected "
                             f"{MAGIC.decode()!r})")
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    source = _Source(path)
    try:
        if data[:len(MAGIC)] != MAGIC:
            raise TraceError(f"{path}:1: not a compact recording (expected "
                             f"{MAGIC.decode()!r})")
        logs: list[RankLog] = []
        pos = 0
        while pos < len(data):
            scan = _Scan(path, data, pos)
            scan.source = source
            try:
                log, pos = scan.read()
            except _Whole:
                log, pos = _Stream(path, cast(bytes, data), pos).read()
            logs.append(log)
        return logs
    finally:
        with contextlib.suppress(BufferError):  # a view of it still held: closed with it
            data.close()

