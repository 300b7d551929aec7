"""A trace written to disk as the run goes (``trace="disk"``, ``trace_dir=DIR``), so that the
trace of a long run does not have to fit in memory.

Each stream of trace rows (:class:`~mpisim.engine.trace.Rows`) is then a file mapped into
memory (:class:`Spilled`) instead of a ``bytearray``: rows are appended to it and written
into in place exactly as into the ``bytearray`` (the same offsets, the same ``struct``
packs), and every time the stream has grown by :data:`WINDOW` bytes the pages behind the
last window are handed back to the kernel, which writes them to the file. A row written
into later (a message matched long after it was posted) is read back from the file by the
kernel, so nothing is lost and the process keeps about one window per stream.

A trace directory holds (:class:`TraceStore`):

- ``index.json``: what the directory holds, written last and whole (a temporary file
  renamed over it), so a directory without it holds no trace and one with it a readable
  one: ``{"format": "mpisim-trace", "version": 1, "state": "recorded" | "built", ...}``;
- while recorded (``state: recorded``): ``raw-buffer.npy``, ``raw-entries.npy``,
  ``raw-messages.npy``, ``raw-calls.npy``, the rows as the recorder packs them (text columns
  as codes, their words in the index), each an ``.npy`` file whose header (one page) names
  its dtype and rows; and ``named_buffers.npy``, ``named_entries.npy``, ``rma.npy``,
  ``epochs.npy``, arrays of the Trace already;
- once the arrays are built (``state: built``, when the trace is first read): also
  ``buffer.npy``, ``entries.npy``, ``messages.npy``, ``calls.npy``, and the raw files are
  removed. :meth:`mpisim.engine.trace.Trace.open` reads either state back, the arrays
  mapped from their files (``np.load(..., mmap_mode="r")``), so a trace larger than memory
  still opens.

A directory the user named is kept; one made for ``trace="disk"`` is removed when the last
object holding it (the Result, its Trace) is dropped, or when the process ends.
"""

from __future__ import annotations

import contextlib
import errno
import json
import mmap
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["HEADER", "RAW", "WINDOW", "Spilled", "TraceStore", "TraceStoreError", "forget",
           "store_for"]

WINDOW = 1 << 20
"""Bytes of a stream's latest rows kept in memory; those behind are given back to the
kernel (written to the file) each time the stream grows by this much."""
HEADER = mmap.ALLOCATIONGRANULARITY if mmap.ALLOCATIONGRANULARITY >= 4096 else 4096
"""Bytes of a raw stream file's ``.npy`` header (one page: the rows are mapped after it)."""
RAW = ("buffer", "entries", "messages", "calls")
"""The recorded streams, written as ``raw-<name>.npy``."""
BUILT = ("buffer", "entries", "messages", "calls")
"""The Trace's arrays made from them when it is first read, ``<name>.npy``."""
SIDE = ("named_buffers", "named_entries", "rma", "epochs")
"""The Trace's arrays kept as rows in memory during the run, saved whole when it ends."""
INDEX = "index.json"
FORMAT, VERSION = "mpisim-trace", 1
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)


class TraceStoreError(ValueError):
    """A trace directory that cannot be written or read (its message names it)."""


class Spilled(mmap.mmap):
    """A stream's recorded bytes, in a file mapped from byte :data:`HEADER` on: a
    ``bytearray`` to its writers (``extend`` appends, ``len`` is the bytes appended,
    ``struct.pack_into`` writes in place, ``np.frombuffer`` reads), whose pages behind the
    latest :data:`WINDOW` bytes are handed back to the kernel as it grows."""

    __slots__ = ("fd", "limit", "mapped", "n", "path")

    n: int       # bytes appended
    limit: int   # where extend next grows the mapping or gives pages back
    mapped: int  # bytes mapped (the file holds HEADER more)
    fd: int
    path: Path

    @classmethod
    def create(cls, path: Path) -> Spilled:
        """A new, empty stream in ``path`` (its header written by :meth:`seal`)."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _reserve(fd, path, 0, HEADER + WINDOW)
            self = cls(fd, WINDOW, offset=HEADER)
        except BaseException:
            os.close(fd)
            raise
        self.fd, self.path, self.n, self.limit, self.mapped = fd, path, 0, WINDOW, WINDOW
        return self

    def __len__(self) -> int:
        return self.n

    def extend(self, row: bytes) -> None:
        """Append ``row`` (as ``bytearray.extend``)."""
        n = self.n
        end = n + len(row)
        if end > self.limit:
            self._grow(end)
        self[n:end] = row
        self.n = end

    def _grow(self, end: int) -> None:
        """Give back the pages behind the last window; map more of the file if ``end`` is
        past the mapping (its disk space reserved first: a full disk is an OSError here,
        never a SIGBUS at a later write)."""
        size = self.mapped
        if end > size:
            new = max(end, size + size // 2)
            new += -new % WINDOW
            _reserve(self.fd, self.path, HEADER + size, new - size)
            self.resize(new)
            self.mapped = size = new
        keep = max(0, self.n - WINDOW)
        keep -= keep % mmap.PAGESIZE
        if keep and _DONTNEED is not None:
            self.madvise(_DONTNEED, 0, keep)  # dirty pages go to the file, not lost
        self.limit = min(size, self.n + WINDOW)

    def seal(self, record: np.dtype, rows: int, final: bool) -> None:
        """Write the header naming ``record`` and ``rows``; ``final``: the run is over, so
        the file is cut to its rows (the space reserved beyond them given back)."""
        write_header(self.fd, record, rows)
        if final:
            size = rows * record.itemsize
            if size:
                self.resize(size)  # (the file cut with it)
                self.mapped = self.limit = size
            else:
                os.ftruncate(self.fd, HEADER)  # (nothing mapped is read or written again)

    def discard(self) -> None:
        """Close it (the recorded rows are no longer needed)."""
        if not self.closed:
            self.close()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _reserve(fd: int, path: Path, offset: int, length: int) -> None:
    """Make the file ``fd`` hold ``length`` more bytes from ``offset``, their disk space
    reserved where the file system can (else the file only extended)."""
    try:
        os.posix_fallocate(fd, offset, length)
    except AttributeError:  # (no posix_fallocate on this system)
        os.ftruncate(fd, offset + length)
    except OSError as e:
        if e.errno in (errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):  # (not on this one)
            os.ftruncate(fd, offset + length)
            return
        raise OSError(e.errno, f"cannot write the trace to {path.parent}: "
                               f"{e.strerror or e}") from None


def write_header(fd: int, record: np.dtype, rows: int) -> None:
    """An ``.npy`` (version 1.0) header of ``rows`` rows of ``record``, :data:`HEADER`
    bytes long, at the start of the file ``fd``."""
    text = repr({"descr": np.lib.format.dtype_to_descr(record), "fortran_order": False,
                 "shape": (rows,)})
    body = text.encode("latin1")
    pad = HEADER - 10 - len(body) - 1
    if pad < 0:
        raise ValueError(f"the header of {record} does not fit in {HEADER} bytes")
    header = b"\x93NUMPY\x01\x00" + (HEADER - 10).to_bytes(2, "little") + body \
        + b" " * pad + b"\n"
    os.pwrite(fd, header, 0)


def forget(data: Any) -> None:
    """Hand the pages of a mapped stream (a :class:`Spilled`, or one read back) back to the
    kernel: read again, they come from the file. Nothing for a ``bytearray``."""
    if isinstance(data, mmap.mmap) and not data.closed and _DONTNEED is not None:
        data.madvise(_DONTNEED)


def map_rows(path: Path, record: np.dtype, rows: int) -> Any:
    """The rows of a sealed raw stream file, mapped read-only (an empty ``bytearray`` for
    none)."""
    if not rows:
        return bytearray()
    with open(path, "rb") as f:
        return mmap.mmap(f.fileno(), rows * record.itemsize, access=mmap.ACCESS_READ,
                         offset=HEADER)


class TraceStore:
    """A trace directory (see the module): where the streams are written, the index, the
    built arrays. ``path=None`` makes a temporary one, removed with this object (or at
    exit); a named one is created if missing and kept."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.temporary = path is None
        try:
            if path is None:
                self.path = Path(tempfile.mkdtemp(prefix="mpisim-trace-"))
            else:
                self.path = Path(path)
                self.path.mkdir(parents=True, exist_ok=True)
                self._clear()
            probe = self.path / ".mpisim-write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise TraceStoreError(f"trace directory {path or tempfile.gettempdir()}: cannot "
                                  f"write there ({e.strerror or e})") from None
        if self.temporary:
            self._finalizer = weakref.finalize(self, shutil.rmtree, str(self.path), True)

    @classmethod
    def existing(cls, path: str | os.PathLike[str]) -> TraceStore:
        """The store of a trace directory written before (read by ``Trace.open``)."""
        store = object.__new__(cls)
        store.temporary, store.path = False, Path(path)
        return store

    def _clear(self) -> None:
        """Remove a trace written here before (its index first: never a stale index over
        new files)."""
        with contextlib.suppress(FileNotFoundError):
            (self.path / INDEX).unlink()
        for name in (*(f"raw-{s}" for s in RAW), *BUILT, *SIDE):
            with contextlib.suppress(FileNotFoundError):
                (self.path / f"{name}.npy").unlink()

    def stream(self, name: str) -> Spilled:
        """The file of the recorded stream ``name`` (one of :data:`RAW`), new."""
        try:
            return Spilled.create(self.raw(name))
        except OSError as e:
            raise TraceStoreError(f"trace directory {self.path}: cannot write there "
                                  f"({e.strerror or e})") from None

    def raw(self, name: str) -> Path:
        """The file of the recorded stream ``name``."""
        return self.path / f"raw-{name}.npy"

    def array_path(self, name: str) -> Path:
        """The file of the Trace's array ``name``."""
        return self.path / f"{name}.npy"

    def save(self, name: str, array: np.ndarray) -> None:
        """An array of the Trace saved whole (the side arrays)."""
        np.save(self.array_path(name), array)

    def new_array(self, name: str, n: int, dtype: np.dtype) -> np.ndarray:
        """An array of ``n`` rows of ``dtype`` to build into, backed by its file."""
        return np.lib.format.open_memmap(self.array_path(name), mode="w+", dtype=dtype,
                                         shape=(n,))

    def write(self, name: str, dtype: np.dtype, n: int, blocks: Iterable[np.ndarray]
              ) -> np.ndarray:
        """The array ``name`` of ``n`` rows of ``dtype``, written to its file a block at a
        time (through the page cache: none of it kept in this process's memory), then
        mapped back read-only."""
        with open(self.array_path(name), "wb") as f:
            np.lib.format.write_array_header_1_0(f, {
                "descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                "shape": (n,)})
            written = 0
            for block in blocks:
                f.write(block.data)
                written += len(block)
        if written != n:
            raise RuntimeError(f"{name}: {written} rows written for {n}")
        return self.load(name)

    def load(self, name: str) -> np.ndarray:
        """A built array, mapped read-only from its file."""
        return np.asarray(np.load(self.array_path(name), mmap_mode="r"))

    def write_index(self, index: dict[str, Any]) -> None:
        """Write ``index.json`` whole (a temporary file, renamed over the old one)."""
        text = json.dumps({"format": FORMAT, "version": VERSION, **index}, indent=1)
        tmp = self.path / f".{INDEX}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path / INDEX)

    def read_index(self) -> dict[str, Any]:
        """The index; TraceStoreError naming the directory when there is none or it is not
        one this version reads."""
        where = self.path / INDEX
        try:
            index = json.loads(where.read_text(encoding="utf-8"))
        except FileNotFoundError:
            why = "no such directory" if not self.path.is_dir() else (
                f"no {INDEX}: no trace was written there, or its run was killed before "
                "it ended")
            raise TraceStoreError(f"trace directory {self.path}: {why}") from None
        except (OSError, ValueError) as e:
            raise TraceStoreError(f"{where}: cannot read it ({e})") from None
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise TraceStoreError(f"{where}: not an mpisim trace index")
        if index.get("version") != VERSION:
            raise TraceStoreError(f"{where}: version {index.get('version')!r} of the trace "
                                  f"format; this mpisim reads version {VERSION}")
        return index

    def remove_raw(self) -> None:
        """The raw streams, no longer needed once the arrays are built."""
        for name in RAW:
            with contextlib.suppress(FileNotFoundError):
                self.raw(name).unlink()


def store_for(trace: bool | str, trace_dir: str | os.PathLike[str] | None
              ) -> TraceStore | None:
    """Where a run's trace goes: None (in memory, or no trace), a temporary directory
    (``trace="disk"``) or the one named (``trace_dir``). ValueError for a value that is
    none of those, or a directory that cannot be written (naming it)."""
    if not (trace is True or trace is False or trace == "disk"):
        raise TraceStoreError(f"trace: expected True, False or 'disk', got {trace!r}")
    if trace_dir is not None:
        if trace is False:
            raise TraceStoreError(f"trace_dir {os.fspath(trace_dir)}: given with trace=False "
                                  "(no trace to write)")
        if not isinstance(trace_dir, str | os.PathLike) or not os.fspath(trace_dir):
            raise TraceStoreError(f"trace_dir: expected a directory path, got {trace_dir!r}")
        return TraceStore(trace_dir)
    return TraceStore() if trace == "disk" else None
