"""Moving the bytes of one-sided operations: out of the origin's buffer, into and out of a
target's window memory, back into the origin's buffer (MPI 4.1 §12.3).

Data travel packed (the bytes of the type map, in order), as a message's do
(:mod:`mpisim.mpi.typemap`): an operation packs its origin data when it is made (the origin
may not touch its buffer until the operation completes, so this copy is what a real MPI
would read), the target unpacks them through the target datatype when they arrive, and a get
packs the target's bytes when its request arrives and unpacks them into the origin buffer
when they are back. The origin's and the target's type signatures must carry the same
number of bytes (§12.3: they must match), else MPI_ERR_TYPE.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mpi import datatypes as dts
from ..mpi.constants import BOTTOM
from ..mpi.errors import ErrArg, ErrCount, ErrType
from ..mpi.typemap import count_arg
from ..p2p.payload import outgoing
from .accumulate import combine, compare_and_swap, element_dtype
from .memory import span

__all__ = ["accumulate_into", "cas_into", "check_sizes", "origin_data", "read",
           "receiving", "store", "write"]

_UINT8 = np.dtype(np.uint8)


def origin_data(buf: Any, count: Any, datatype: Any, space: Any,
                call: str) -> tuple[int, Any, int, np.ndarray | None]:
    """(count, datatype, bytes, packed bytes or None) of an origin buffer: a numpy array
    (its dtype names the datatype when none is given), MPI_BOTTOM with a datatype of
    addresses, or None for an operation of size only (no data moves)."""
    if buf is not None and buf is not BOTTOM and not isinstance(buf, np.ndarray):
        raise ErrArg(f"{call}: the origin buffer must be a numpy array (or None to move no "
                     f"data), got a {type(buf).__name__}")
    if buf is None and datatype is None:
        datatype = dts.BYTE
    count, datatype, nbytes, data = outgoing(buf, count, datatype, space)
    if data is None:
        return count, datatype, nbytes, None
    return count, datatype, nbytes, _bytes(data, nbytes)


def receiving(buf: Any, count: Any, datatype: Any, call: str) -> tuple[int, Any, int]:
    """(count, datatype, bytes) of a buffer that data come back into (a get's origin, a
    fetch's result): a writable numpy array (its dtype names the datatype when none is
    given), MPI_BOTTOM with a datatype of addresses, or None (size only)."""
    if buf is None or buf is BOTTOM:
        if datatype is None:
            datatype = dts.BYTE
        count = 1 if count is None and buf is BOTTOM else 0 if count is None else count
        return count_arg(count), datatype, count_arg(count) * datatype.size
    if not isinstance(buf, np.ndarray):
        raise ErrArg(f"{call}: the buffer data come back into must be a numpy array (or None "
                     f"to move no data), got a {type(buf).__name__}")
    if not buf.flags.writeable:
        raise ErrArg(f"{call}: the buffer data come back into is read-only")
    if datatype is None:
        datatype = dts.datatype_of(buf.dtype)
    if count is None:
        count = buf.nbytes // datatype.size if datatype.numpy_dtype is not None else 1
    count = count_arg(count)
    nbytes = count * datatype.size
    lo, hi = span(count, datatype)
    if hi > buf.nbytes or lo < 0:
        raise ErrCount(f"{call}: {count} x {datatype.name} ({nbytes} B) do not fit in the "
                       f"buffer of {buf.nbytes} B")
    return count, datatype, nbytes


def _bytes(data: np.ndarray, nbytes: int) -> np.ndarray:
    """The first ``nbytes`` bytes of an array, as uint8 (a copy made at the call)."""
    return np.ascontiguousarray(data).reshape(-1).view(_UINT8)[:nbytes]


def check_sizes(call: str, origin_bytes: int, count: int, datatype: Any) -> None:
    """The origin's data and the target's ``count`` x ``datatype`` must carry as many
    bytes (their type signatures match, §12.3); MPI_ERR_TYPE otherwise."""
    target_bytes = count * datatype.size
    if origin_bytes != target_bytes:
        raise ErrType(f"{call}: the origin gives {origin_bytes} bytes, the target "
                      f"{count} x {datatype.name} = {target_bytes} bytes: the type "
                      "signatures do not match (§12.3)")


def read(memory: np.ndarray, offset: int, count: int, datatype: Any) -> np.ndarray:
    """The packed bytes of ``count`` x ``datatype`` at byte ``offset`` of ``memory``."""
    return dts.pack(memory[offset:], count, datatype)


def write(memory: np.ndarray, offset: int, packed: np.ndarray, count: int,
          datatype: Any) -> None:
    """Unpack ``packed`` into ``memory`` from byte ``offset`` through the datatype."""
    dts.unpack(packed, memory[offset:], count, datatype)


def store(buf: Any, count: int, datatype: Any, packed: np.ndarray, space: Any) -> None:
    """Bytes back at the origin (a get's data, a fetch's result) into its buffer."""
    if buf is None or packed is None:
        return
    if buf is BOTTOM:
        space.scatter(packed, count, datatype)
    elif getattr(datatype, "numpy_dtype", None) is None or not buf.flags.c_contiguous:
        dts.unpack(packed, buf, count, datatype)
    else:
        buf.reshape(-1).view(_UINT8)[: packed.size] = packed


def accumulate_into(memory: np.ndarray, offset: int, packed: np.ndarray | None, count: int,
                    datatype: Any, op: Any, call: str) -> np.ndarray:
    """Apply ``op`` of the origin's elements to the target's, in place; the bytes the
    target held before (what a fetching accumulate returns)."""
    old = read(memory, offset, count, datatype)
    if packed is None:  # size only: the target is read, nothing combined
        return old
    dtype = element_dtype(datatype, call)
    if old.size % dtype.itemsize or packed.size != old.size:
        raise ErrType(f"{call}: the origin's {packed.size} bytes and the target's "
                      f"{old.size} bytes of {dtype} do not line up")
    new = combine(op, old.view(dtype), packed.view(dtype), call)
    write(memory, offset, np.ascontiguousarray(new).view(_UINT8), count, datatype)
    return old


def cas_into(memory: np.ndarray, offset: int, origin: np.ndarray | None,
             compare: np.ndarray | None, datatype: Any) -> np.ndarray:
    """MPI_Compare_and_swap on one element at byte ``offset``: the bytes it held."""
    element = memory[offset:offset + datatype.size]
    if origin is None or compare is None:
        return element.copy()
    return compare_and_swap(element, origin, compare)
