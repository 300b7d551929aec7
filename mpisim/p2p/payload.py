"""Message data: what a send carries and how a receive takes it.

Sizes come from ``count * datatype.size``; data moves only when the program passes a
``buf``. A numpy ``buf`` is copied when the send starts (the receiver's Status.data gets
that copy) and, on a receive with a numpy ``buf``, copied into it through the receive
datatype, as MPI does. Any other Python object travels as a deep copy with the explicit
``count`` and ``datatype`` giving its size. With a derived datatype the data is packed
through the type map (Status.data is then the packed bytes); with ``BOTTOM`` it is gathered
from the arrays whose addresses the program took.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..mpi import datatypes as dts
from ..mpi.constants import BOTTOM, COUNT_MAX
from ..mpi.errors import ErrCount, ErrTruncate, MPIError
from .requests import Status

_new = object.__new__

__all__ = ["deliver", "message_bytes", "outgoing", "receive_capacity"]

_UINT8 = np.dtype(np.uint8)


def outgoing(buf: Any, count: int | None, datatype: Any, space: Any) -> tuple[int, Any, int, Any]:
    """(count, datatype, bytes, data) for a send of ``buf``."""
    if buf is None:
        if count is None:
            count = 0
        elif type(count) is not int or count < 0:
            _check_count(count)
        return count, datatype, message_bytes(count, datatype), None
    if buf is BOTTOM:
        count = 1 if count is None else count
        _check_count(count)
        return count, datatype, count * datatype.size, space.gather(count, datatype)
    if isinstance(buf, np.ndarray):
        return _from_array(buf, count, datatype)
    if count is None:
        raise ErrCount("count is required when buf is not a numpy array "
                       f"(got a {type(buf).__name__})")
    return count, datatype, dts.pack_size(count, datatype), copy.deepcopy(buf)


def _from_array(buf: np.ndarray, count: int | None, datatype: Any) -> tuple[int, Any, int, Any]:
    if datatype is None:
        datatype = dts.datatype_of(buf.dtype)
    if getattr(datatype, "numpy_dtype", None) is None:  # derived type: pack through its map
        count = 1 if count is None else count
        _check_count(count)
        return count, datatype, count * datatype.size, dts.pack(buf, count, datatype)
    if count is None:
        count = buf.nbytes // datatype.size
    _check_count(count)
    nbytes = count * datatype.size
    if nbytes > buf.nbytes:
        raise ErrCount(f"count {count} of {datatype.name} ({nbytes} B) is more than buf holds "
                       f"({buf.nbytes} B)")
    flat = buf.reshape(-1)
    if datatype.numpy_dtype == buf.dtype:
        return count, datatype, nbytes, flat[:count].copy()
    return count, datatype, nbytes, np.ascontiguousarray(flat).view(_UINT8)[:nbytes].copy()


def message_bytes(count: int, datatype: Any) -> int:
    """``count * datatype.size``: MPI_ERR_COUNT beyond an MPI_Count (no larger size reaches
    the engine or the trace)."""
    nbytes: int = count * datatype.size
    if nbytes > COUNT_MAX:
        raise ErrCount(f"count {count} of {datatype.name} is {nbytes} bytes, more than an "
                       f"MPI_Count holds ({COUNT_MAX})")
    return nbytes


def _check_count(count: Any) -> None:
    if type(count) is int and count >= 0:
        return
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ErrCount(f"count must be a non-negative integer, got {count!r}")


def receive_capacity(buf: Any, count: int | None, datatype: Any) -> tuple[int | None, Any]:
    """(bytes a receive can take, datatype) — None bytes means any size (no count, no buf)."""
    if isinstance(buf, np.ndarray):
        if datatype is None:
            datatype = dts.datatype_of(buf.dtype)
        if count is None:
            count = 1 if getattr(datatype, "numpy_dtype", None) is None else (
                buf.nbytes // datatype.size)
    if datatype is None:
        datatype = dts.BYTE
    if count is None:
        return (None if buf is None else datatype.size), datatype
    if type(count) is not int or count < 0:
        _check_count(count)
    return message_bytes(count, datatype), datatype


def deliver(msg: Any, req: Any) -> None:
    """Complete a receive with a matched message: Status, truncation, data into ``buf``."""
    comm = req.comm
    status = _new(Status)  # (Status(source, tag, count, data), built here: once per message)
    status.source = msg.src if comm is None else comm.rank_of(msg.src)
    status.tag, status.count, status.data = msg.tag, msg.nbytes, msg.data
    status.error, status.cancelled = None, False
    capacity = req.nbytes
    if capacity is not None and msg.nbytes > capacity:
        status.count = capacity
        status.error = ErrTruncate.error_class
        req.error = ErrTruncate(
            f"message of {msg.nbytes} B from rank {msg.src} (tag {msg.tag}) is larger than the "
            f"receive buffer of {capacity} B", {"bytes": msg.nbytes, "capacity": capacity})
    elif req.buf is not None and msg.data is not None:
        try:
            _copy_in(msg, req)
        except MPIError as e:
            status.error = e.error_class
            req.error = e
    req.status = status


def _copy_in(msg: Any, req: Any) -> None:
    data = msg.data
    if not isinstance(data, np.ndarray):
        return
    raw = np.ascontiguousarray(data).reshape(-1).view(_UINT8)[: msg.nbytes]
    buf, datatype = req.buf, req.datatype
    if buf is BOTTOM:
        req.space.scatter(raw, req.count, datatype)
    elif not isinstance(buf, np.ndarray):
        return
    elif getattr(datatype, "numpy_dtype", None) is None or not buf.flags.c_contiguous:
        dts.unpack(raw, buf, req.count, datatype)
    else:
        if datatype.size and msg.nbytes % datatype.size:
            from ..mpi.errors import ErrType
            raise ErrType(f"message of {msg.nbytes} B is not a whole number of "
                          f"{datatype.name} ({datatype.size} B)")
        buf.reshape(-1).view(_UINT8)[: msg.nbytes] = raw
