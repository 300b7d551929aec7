"""Where each process's part lies in a collective's buffer (MPI 4.1 §6.5 to §6.8, §6.10).

A gather's receive buffer, a scatter's send buffer and both buffers of an all-to-all hold
one block per process. The plain forms have blocks of ``count`` elements one after the
other; the v forms give a count and a displacement (in elements of the datatype) per
process (Gatherv, Scatterv, Allgatherv, Alltoallv: 6.5, 6.6, 6.7, 6.8); Alltoallw gives
displacements in bytes and a datatype per process (6.8). The functions here cut a numpy
buffer into those blocks (an ``MPI_IN_PLACE`` contribution is read from them) and write
received parts back into them, by bytes, as MPI does: an element of a datatype is
``extent`` bytes of the buffer, whatever numpy's view of it.

Counts and displacements are checked as MPI requires: one per process, integers (Python or
numpy), counts not negative (MPI_ERR_COUNT, MPI_ERR_ARG otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..mpi import datatypes as _dt
from ..mpi.errors import ErrArg, ErrBuffer, ErrCount

__all__ = ["as_int", "blocks", "check_counts", "displacements", "extent_of", "place",
           "vblocks"]

_UINT8 = np.dtype(np.uint8)


def as_int(value: Any, what: str, error: type = ErrArg) -> int:
    """``value`` as a Python int, if it is an integer (Python or numpy; not a bool, which
    in a count or a rank is a slip, as the point-to-point calls also say)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise error(f"{what} must be an integer, got {value!r}")
    return int(value)


def check_counts(counts: Any, size: int, what: str) -> list[int]:
    """One non-negative integer count per process (MPI_ERR_COUNT otherwise)."""
    if isinstance(counts, np.ndarray):
        counts = counts.tolist()
    if not isinstance(counts, Sequence) or isinstance(counts, str) or len(counts) != size:
        raise ErrCount(f"{what}: expected {size} counts (one per process), got {counts!r}")
    out = [as_int(c, f"{what}[{k}]", ErrCount) for k, c in enumerate(counts)]
    for k, c in enumerate(out):
        if c < 0:
            raise ErrCount(f"{what}[{k}] must not be negative, got {c}")
    return out


def displacements(displs: Any, counts: list[int], what: str) -> list[int]:
    """The displacements given (one integer per process), else the blocks one after the
    other (the running sum of ``counts``)."""
    if displs is None:
        out, at = [], 0
        for c in counts:
            out.append(at)
            at += c
        return out
    if isinstance(displs, np.ndarray):
        displs = displs.tolist()
    if not isinstance(displs, Sequence) or isinstance(displs, str) \
            or len(displs) != len(counts):
        raise ErrArg(f"{what}: expected {len(counts)} displacements (one per process), got "
                     f"{displs!r}")
    return [as_int(d, f"{what}[{k}]") for k, d in enumerate(displs)]


def extent_of(buf: np.ndarray, datatype: Any) -> int:
    """Bytes one element takes in ``buf``: the datatype's extent, else numpy's item size."""
    if isinstance(datatype, _dt.Datatype):
        return max(datatype.extent, 1)
    return buf.dtype.itemsize


def _raw(buf: np.ndarray, writable: bool = False) -> np.ndarray:
    """``buf``'s bytes, flat (a view; a copy of a non-contiguous send buffer)."""
    if buf.flags.c_contiguous:
        return buf.reshape(-1).view(_UINT8)
    if writable:
        raise ErrBuffer("the receive buffer is not contiguous")
    return np.ascontiguousarray(buf).reshape(-1).view(_UINT8)


def _as_elements(raw: np.ndarray, datatype: Any, like: np.ndarray) -> np.ndarray:
    """Bytes seen as elements: of the datatype's numpy dtype, else of ``like``'s dtype,
    else left as bytes."""
    want = datatype.numpy_dtype if isinstance(datatype, _dt.Datatype) else like.dtype
    if want is None or raw.size % want.itemsize or (want.kind in "SU" and want.names is None):
        return raw
    return raw.view(want)


def vblocks(buf: np.ndarray, counts: list[int], displs: Any, datatype: Any,
            unit: int | None = None) -> list[np.ndarray]:
    """Process k's block of ``buf``: ``counts[k]`` elements of ``datatype`` from
    ``displs[k]`` (in elements; in bytes with ``unit=1``, as Alltoallw's). Views of the
    buffer's bytes, seen as the datatype's elements; MPI_ERR_ARG if one lies outside it."""
    displs = displacements(displs, counts, "displs")
    raw = _raw(buf)
    ext = extent_of(buf, datatype)
    step = ext if unit is None else unit
    out = []
    for k, (c, d) in enumerate(zip(counts, displs, strict=True)):
        start = d * step
        stop = start + c * ext
        if start < 0 or stop > raw.size:
            raise ErrArg(f"the block of process {k} ({c} elements at displacement {d}) lies "
                         f"outside the buffer ({raw.size} bytes)")
        out.append(_as_elements(raw[start:stop], datatype, buf))
    return out


def blocks(buf: np.ndarray, size: int, count: Any, datatype: Any) -> list[np.ndarray]:
    """``size`` blocks of ``buf``: of ``count`` elements each when given, else the buffer
    cut in ``size`` equal parts (its rows if it has ``size`` rows)."""
    if count is None:
        if buf.ndim == 2 and len(buf) == size:
            return list(buf)
        if buf.ndim == 0:
            return [buf] * size
        return np.array_split(buf.reshape(-1), size)
    n = as_int(count, "count", ErrCount)
    return vblocks(buf, [n] * size, None, datatype)


def place(recvbuf: Any, parts: list[Any], counts: list[int] | None = None,
          displs: Any = None, datatype: Any = None, unit: int | None = None) -> None:
    """Write each process's part into a numpy ``recvbuf``: part k at the start of its k-th
    equal block, or with ``counts`` into the blocks :func:`vblocks` gives. A part that is
    not numpy data (None: a size-only call) leaves its block as it is; a part longer than
    its block fills it (the rest is the receiver's MPI_ERR_TRUNCATE, not written)."""
    if not isinstance(recvbuf, np.ndarray) or not parts:
        return
    raw = _raw(recvbuf, writable=True)
    if counts is None:
        block = raw.size // len(parts)
        for k, part in enumerate(parts):
            if isinstance(part, np.ndarray | np.generic):
                data = _raw(np.asarray(part))
                n = min(data.size, block)
                raw[k * block:k * block + n] = data[:n]
        return
    for vblock, part in zip(vblocks(recvbuf, counts, displs, datatype, unit), parts,
                            strict=True):
        if isinstance(part, np.ndarray | np.generic):
            data = _raw(np.asarray(part))
            target = vblock.view(_UINT8) if vblock.dtype != _UINT8 else vblock
            n = min(data.size, target.size)
            target[:n] = data[:n]
