"""Data access (MPI 4.1 §14.4): one call from its arguments to the bytes in the file.

Three ways to position (§14.4.1): an explicit offset (``_at``), the process's individual
file pointer (no suffix), the shared file pointer (``_shared``, and the collective
``_ordered``); each in etypes of the view in force. An access of ``count`` x ``datatype``
moves ``count * datatype.size`` bytes (a whole number of etypes, §14.4.1, else
MPI_ERR_IO as in MPICH 5.0.2), packed from the
memory buffer through the datatype's type map and written where the view puts them
(:meth:`mpisim.io.view.View.runs`), or read from there and unpacked into the buffer. A
read that reaches the end of file moves the whole etypes before it; the Status's count says
how many bytes (MPI_Get_count, §14.4.3). A pointer the access uses moves past the etypes
it accessed.

A ``buf`` is a numpy array (its dtype names the datatype when none is given, its size the
count), or None: an access of size only, which writes zero bytes of that size and reads
into nothing (a scenario's ops move no data of their own).

The bytes move when the call is made (for a collective, when the last member has made
it), so the file holds them for any later call of any process; the call completes when the
time model says (:mod:`.runtime`). Collective accesses are done member by member in rank
order; ``_ordered`` places each member's data after the data of the members of lower rank
(§14.4.4), from the shared pointer on, which moves past them all.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..mpi.datatypes import BYTE, datatype_of
from ..mpi.errors import ErrArg
from ..mpi.typemap import count_arg, pack, unpack
from ..p2p.calls import check_datatype
from ..p2p.requests import EMPTY_STATUS_ARGS, Status
from .errors import ErrIO

__all__ = ["AT", "INDIVIDUAL", "ORDERED", "SHARED", "Access", "access", "move", "place"]

AT, INDIVIDUAL, SHARED, ORDERED = "at", "individual", "shared", "ordered"


class Access(NamedTuple):
    """One process's access: its buffer, count, datatype and bytes, and how it positions."""

    write: bool
    buf: Any
    count: int  # type: ignore[assignment]  # MPI's word; it shadows tuple.count
    datatype: Any
    nbytes: int
    how: str
    offset: int | None = None


def access(fh: Any, call: str, write: bool, how: str, buf: Any, count: Any, datatype: Any,
           offset: int | None = None) -> tuple[Access, int]:
    """The checked access and its size in etypes of ``fh``'s view (MPI errors: a file not
    open for it, a bad buffer, a size that is not whole etypes)."""
    if write:
        fh.writable(call)
    else:
        fh.readable(call)
    if how in (AT, INDIVIDUAL):
        fh.not_sequential(call)
    datatype = check_datatype(datatype)
    if buf is None:
        datatype = BYTE if datatype is None else datatype
        count = count_arg(0 if count is None else count)
    elif isinstance(buf, np.ndarray):
        if datatype is None:
            datatype = datatype_of(buf.dtype)
        if count is None:
            extent = max(datatype.extent, 1)
            count = buf.nbytes // extent if datatype.size else 0
        count = count_arg(count)
    else:
        raise ErrArg(f"{call}: buf must be a numpy array or None, got {type(buf).__name__}")
    nbytes = count * datatype.size
    esize = fh.view.etype.size
    if nbytes % esize:
        raise ErrIO(f"{call}: {count} x {datatype.name} ({nbytes} bytes) is not a whole "
                    f"number of etypes {fh.view.etype.name} ({esize} bytes) (§14.4.1; "
                    "MPI_ERR_IO as MPICH)")
    return Access(write, buf, count, datatype, nbytes, how, offset), nbytes // esize


def move(fh: Any, call: str, acc: Access, position: int) -> Status:
    """Move the data of ``acc`` at the view's etype ``position``; its Status."""
    offsets, lengths = fh.view.runs(position, acc.nbytes)
    storage = fh.info.storage
    if acc.write:
        if acc.buf is None:
            data = np.zeros(acc.nbytes, dtype=np.uint8)
        else:
            data = pack(acc.buf, acc.count, acc.datatype)
        storage.write(call, offsets, lengths, data)
        done = acc.nbytes
    else:
        got = storage.read(call, offsets, lengths)
        done = got.size - got.size % fh.view.etype.size
        if acc.buf is not None and done:
            unpack(got[:done], acc.buf, acc.count, acc.datatype)
    return Status(EMPTY_STATUS_ARGS[0], EMPTY_STATUS_ARGS[1], done)


def place(fh: Any, call: str, acc: Access, start: int | None = None) -> tuple[int, Status]:
    """Do ``acc`` where it positions (``start``: an ordered access's place, which the
    caller computed), moving the pointer it uses; (etypes moved, its Status)."""
    info = fh.info
    if acc.how == AT:
        position = acc.offset or 0
    elif acc.how == INDIVIDUAL:
        position = fh.pointer
    elif acc.how == SHARED:
        position = info.shared
    else:
        position = start or 0
    status = move(fh, call, acc, position)
    moved = status.count // fh.view.etype.size
    if acc.how == INDIVIDUAL:
        fh.pointer = position + moved
    elif acc.how == SHARED:
        info.shared = position + moved
    return moved, status
