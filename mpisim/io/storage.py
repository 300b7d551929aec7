"""The real file behind an open MPI file: bytes written and read with the operating
system's positioned calls (``os.pwrite``, ``os.pread``) at the offsets a view gives.

One :class:`Storage` per open file, shared by the processes that opened it (as the one
file of a real run). Every access of the simulation happens at one simulated instant, so
the runs of one access are written as a unit: a scattered write whose runs lie close
together reads the span they cover, fills in its bytes and writes the span back (one read,
one write); runs far apart are written one by one. Either way the file holds exactly the
bytes the runs name, and bytes between runs past the old end of file read as zeros, as
the operating system fills a hole.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import from_os

__all__ = ["Storage", "open_file", "positions"]

_SPAN_SLACK = 1 << 16
"""A scattered access reads its whole span when the span is at most 4 x its bytes plus
this many (else it moves run by run)."""


def positions(offsets: np.ndarray, lengths: np.ndarray, base: int) -> np.ndarray:
    """The byte index (from ``base``) of every byte of the runs, in data order."""
    total = int(lengths.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths,
                                                           lengths)
    return np.repeat(offsets - base, lengths) + within


def open_file(call: str, path: str, create: bool, exclusive: bool, readable: bool,
              writable: bool) -> Storage:
    """Open (or create) ``path``; the MPI error of the operating system's refusal."""
    flags = (os.O_RDWR if readable and writable else os.O_WRONLY if writable
             else os.O_RDONLY)
    flags |= (os.O_CREAT if create else 0) | (os.O_EXCL if exclusive else 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as e:
        raise from_os(call, path, e) from None
    if os.path.isdir(path):
        os.close(fd)
        raise from_os(call, path, IsADirectoryError(21, "Is a directory"))
    return Storage(fd, path, readable)


class Storage:
    """An open file descriptor and what the model does with it (see the module)."""

    __slots__ = ("fd", "path", "readable")

    def __init__(self, fd: int, path: str, readable: bool) -> None:
        self.fd = fd
        self.path = path
        self.readable = readable

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def write(self, call: str, offsets: np.ndarray, lengths: np.ndarray,
              data: np.ndarray) -> None:
        """Write ``data`` (uint8) into the runs, in order."""
        if data.size == 0:
            return
        try:
            if offsets.size == 1:
                self._pwrite(data, int(offsets[0]))
                return
            base = int(offsets.min())
            span = int((offsets + lengths).max()) - base
            if self.readable and span <= 4 * data.size + _SPAN_SLACK:
                whole = np.zeros(span, dtype=np.uint8)
                got = os.pread(self.fd, span, base)
                whole[:len(got)] = np.frombuffer(got, dtype=np.uint8)
                whole[positions(offsets, lengths, base)] = data
                self._pwrite(whole, base)
                return
            at = 0
            for offset, length in zip(offsets.tolist(), lengths.tolist(), strict=True):
                self._pwrite(data[at:at + length], offset)
                at += length
        except OSError as e:
            raise from_os(call, self.path, e) from None

    def _pwrite(self, data: np.ndarray, offset: int) -> None:
        view = memoryview(np.ascontiguousarray(data))  # type: ignore[arg-type]  # numpy's stubs: no __buffer__ before 3.12
        while view.nbytes:
            wrote = os.pwrite(self.fd, view, offset)
            view, offset = view[wrote:], offset + wrote

    def read(self, call: str, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """The bytes of the runs, in order, up to the end of file (a short result when a
        run reaches past it: what a read past the end of file gets, §14.4.3)."""
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(0, dtype=np.uint8)
        try:
            if offsets.size == 1:
                return np.frombuffer(self._pread(total, int(offsets[0])), dtype=np.uint8)
            base = int(offsets.min())
            end = self.size()
            span = min(int((offsets + lengths).max()), max(end, base)) - base
            if span <= 4 * total + _SPAN_SLACK:
                whole = np.zeros(max(span, 0), dtype=np.uint8)
                got = self._pread(span, base) if span > 0 else b""
                whole[:len(got)] = np.frombuffer(got, dtype=np.uint8)
                stops = np.cumsum(lengths)
                before = np.flatnonzero(offsets + lengths > end)
                valid = total if before.size == 0 else int(
                    stops[before[0]] - lengths[before[0]] + max(0, end - offsets[before[0]]))
                index = positions(offsets, lengths, base)[:valid]
                return whole[index]
            parts = []
            for offset, length in zip(offsets.tolist(), lengths.tolist(), strict=True):
                got = self._pread(length, offset)
                parts.append(got)
                if len(got) < length:
                    break
            return np.frombuffer(b"".join(parts), dtype=np.uint8)
        except OSError as e:
            raise from_os(call, self.path, e) from None

    def _pread(self, length: int, offset: int) -> bytes:
        chunks, want = [], length
        while want > 0:
            got = os.pread(self.fd, want, offset)
            if not got:
                break
            chunks.append(got)
            want -= len(got)
            offset += len(got)
        return b"".join(chunks)

    def truncate(self, call: str, size: int) -> None:
        try:
            os.ftruncate(self.fd, size)
        except OSError as e:
            raise from_os(call, self.path, e) from None

    def preallocate(self, call: str, size: int) -> None:
        """At least ``size`` bytes (never shrinks; the new bytes read as zeros)."""
        if size > self.size():
            self.truncate(call, size)

    def sync(self, call: str) -> None:
        try:
            os.fsync(self.fd)
        except OSError as e:
            raise from_os(call, self.path, e) from None

    def close(self) -> None:
        os.close(self.fd)
