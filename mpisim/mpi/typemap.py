"""Flattened type maps: where the bytes of a datatype lie, as numpy arrays.

A datatype's data is a list of *blocks* ``(offsets, lengths)`` in bytes, in type-map order
(the order in which MPI packs them, not sorted by address), with neighbours that touch
merged into one. Everything that moves data works from these arrays, so packing a million
elements is a few numpy operations rather than a million Python steps: the byte indices of
``count`` elements are ``np.add.outer(i * extent, offsets)``, read with fancy indexing.

Index arrays cost eight bytes per index, so data is moved in the largest *unit* (1, 2, 4,
8 or more bytes) that divides every offset, length and the extent: a type map of doubles
is moved eight bytes at a time and costs as much index memory as it moves data.
"""

from __future__ import annotations

from math import gcd
from typing import Any, Protocol

import numpy as np

from .errors import ErrArg, ErrCount, ErrTruncate, ErrType

__all__ = ["Blocks", "basic_blocks", "byte_indices", "check_message_size", "count_arg",
           "datatype_arg", "memory_of", "merge", "pack", "replicate", "unit_indices", "unit_of",
           "unit_view", "unpack"]

Blocks = tuple[np.ndarray, np.ndarray]
"""``(offsets, lengths)``: int64 arrays of the byte blocks of one element, in type-map order."""


class Datatype(Protocol):
    """What moving data needs of a datatype (``mpisim.mpi.datatypes.Datatype`` is one; this
    module sits below it and never imports it)."""

    name: str
    size: int
    extent: int
    true_lb: int
    true_extent: int
    committed: bool
    _members: tuple[Any, ...]

    def typemap(self) -> Blocks: ...


_EMPTY = np.zeros(0, dtype=np.int64)
_UNIT_DTYPES: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16),
                                          4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def basic_blocks(size: int) -> Blocks:
    """The type map of a basic type: one block of ``size`` bytes at offset 0."""
    if size == 0:
        return _EMPTY, _EMPTY
    return np.array([0], dtype=np.int64), np.array([size], dtype=np.int64)


def merge(offsets: np.ndarray, lengths: np.ndarray) -> Blocks:
    """Drop empty blocks and join each block to its predecessor when they touch."""
    keep = lengths > 0
    offsets, lengths = offsets[keep], lengths[keep]
    if offsets.size < 2:
        return offsets, lengths
    starts = np.ones(offsets.size, dtype=bool)
    starts[1:] = offsets[1:] != offsets[:-1] + lengths[:-1]
    first = np.flatnonzero(starts)
    return offsets[first], np.add.reduceat(lengths, first)


def replicate(blocks: Blocks, disps: np.ndarray, counts: np.ndarray, extent: int) -> Blocks:
    """The blocks of ``counts[i]`` consecutive copies (``extent`` apart) of a type at each
    byte displacement ``disps[i]``, in order (unmerged).

    When the type is one dense block as long as its extent, a run of copies is itself one
    block, so ``contiguous(2**20)`` of a dense type costs one block, not a million.
    """
    offsets, lengths = blocks
    keep = counts > 0
    disps, counts = disps[keep], counts[keep]
    if offsets.size == 0 or disps.size == 0:
        return _EMPTY, _EMPTY
    if offsets.size == 1 and lengths[0] == extent:
        return disps + offsets[0], counts * lengths[0]
    run_start = np.repeat(np.cumsum(counts) - counts, counts)
    copies = np.repeat(disps, counts) + (np.arange(run_start.size) - run_start) * extent
    return np.add.outer(copies, offsets).ravel(), np.tile(lengths, copies.size)


def byte_indices(blocks: Blocks, count: int, extent: int) -> np.ndarray:
    """The byte offset of every packed byte of ``count`` elements, in packing order."""
    return unit_indices(blocks, count, extent, 1)


def unit_of(blocks: Blocks, count: int, extent: int) -> int:
    """The largest unit that divides every offset, length and (for count > 1) the extent."""
    offsets, lengths = blocks
    unit = int(np.gcd.reduce(np.concatenate((offsets, lengths)))) if offsets.size else 1
    if count > 1:
        unit = gcd(unit, extent)
    return max(unit, 1)


def unit_indices(blocks: Blocks, count: int, extent: int, unit: int) -> np.ndarray:
    """Offsets, in units of ``unit`` bytes, of the data of ``count`` elements, in order."""
    offsets, lengths = blocks
    offsets, lengths = offsets // unit, lengths // unit
    within_start = np.repeat(np.cumsum(lengths) - lengths, lengths)
    element: np.ndarray = np.repeat(offsets, lengths) + np.arange(within_start.size) \
        - within_start
    if count == 1:
        return element
    starts = np.arange(count, dtype=np.int64) * (extent // unit)
    indices: np.ndarray = np.add.outer(starts, element).ravel()
    return indices


def unit_view(memory: np.ndarray, unit: int) -> np.ndarray:
    """``memory`` (uint8) seen as items of ``unit`` bytes (its tail shorter than a unit cut)."""
    usable = memory[: memory.size - memory.size % unit]
    items: np.ndarray = usable.view(_UNIT_DTYPES.get(unit, np.dtype(f"V{unit}")))
    return items


def memory_of(buf: object, *, writable: bool = False, what: str = "buf") -> np.ndarray:
    """The memory of numpy array ``buf`` as a flat uint8 view (never a copy).

    MPI addresses a buffer by its start and the type map, so the array must be one
    contiguous piece of memory (C or Fortran order); object arrays hold pointers, not data.
    """
    if not isinstance(buf, np.ndarray):
        raise ErrArg(f"{what} must be a numpy array, got {type(buf).__name__}")
    if buf.dtype.hasobject:
        raise ErrArg(f"{what} has dtype {buf.dtype}, which holds Python objects, not data")
    if buf.flags.c_contiguous:
        flat = buf.reshape(-1)
    elif buf.flags.f_contiguous:
        flat = buf.reshape(-1, order="F")
    else:
        raise ErrArg(f"{what} must be a contiguous numpy array (C or Fortran order); "
                     "pass the whole array and describe the layout with a datatype")
    if writable and not buf.flags.writeable:
        raise ErrArg(f"{what} is read-only and cannot receive data")
    return flat.view(np.uint8)


# -- moving data through a datatype (validated here, re-exported by datatypes) -------------

def count_arg(count: Any) -> int:
    """``count`` as an int, or MPI_ERR_COUNT."""
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ErrCount(f"count must be a non-negative integer, got {count!r}")
    return int(count)


def datatype_arg(datatype: Any) -> Datatype:
    """``datatype`` if it is one, else MPI_ERR_TYPE."""
    if not hasattr(datatype, "typemap"):
        raise ErrType(f"{datatype!r} is not a datatype")
    checked: Datatype = datatype  # (anything with a type map: duck-typed, as MPI's handles)
    return checked


def check_message_size(nbytes: int, count: int, datatype: Datatype) -> None:
    """Refuse a message of ``nbytes`` for a receive of ``count`` x ``datatype``.

    More bytes than the receive holds is MPI_ERR_TRUNCATE (3.2.4); a message that ends
    inside a basic element of the receive's type map is MPI_ERR_TYPE (3.3.1). Fewer whole
    basic elements than the receive names is fine.
    """
    capacity = count_arg(count) * datatype_arg(datatype).size
    if nbytes > capacity:
        raise ErrTruncate(f"message of {nbytes} bytes is larger than the receive buffer "
                          f"({count} x {datatype.name} = {capacity} bytes)")
    if capacity and not _ends_between_elements(datatype, nbytes % datatype.size):
        raise ErrType(f"message of {nbytes} bytes ends inside a basic element of "
                      f"{datatype.name} (size {datatype.size}): the datatypes do not match")


def _ends_between_elements(datatype: Datatype, nbytes: int) -> bool:
    """Whether the first ``nbytes`` packed bytes of one element end on a basic element."""
    while nbytes:
        if not datatype._members:
            return False
        for old, _, counts in datatype._members:
            part = old.size * int(counts.sum())
            if nbytes < part:
                datatype, nbytes = old, nbytes % old.size
                break
            nbytes -= part
    return True


def pack(buf: np.ndarray, count: int, datatype: Datatype) -> np.ndarray:
    """The packed bytes (uint8) of ``count`` elements of ``datatype`` read from ``buf``.

    Element ``i`` is read at byte ``i * extent`` + its type map's displacements, counted
    from the start of ``buf``; a type map reaching outside ``buf`` is MPI_ERR_ARG.
    """
    n, memory = count_arg(count), memory_of(buf)
    _check_span(memory.size, n, datatype_arg(datatype))
    nbytes = n * datatype.size
    start = _contiguous_start(n, datatype)
    if start is not None:
        return memory[start:start + nbytes].copy()
    unit, index = _unit_plan(n, datatype, nbytes)
    packed: np.ndarray = unit_view(memory, unit)[index].view(np.uint8)
    return packed


def unpack(packed: np.ndarray, buf: np.ndarray, count: int, datatype: Datatype) -> None:
    """Scatter packed bytes into ``buf`` through ``datatype`` (up to ``count`` elements);
    see ``check_message_size`` for what a receive refuses."""
    data = memory_of(packed, what="packed")
    check_message_size(data.size, count, datatype)
    memory = memory_of(buf, writable=True)
    _check_span(memory.size, count, datatype)
    start = _contiguous_start(count, datatype)
    if start is not None:
        memory[start:start + data.size] = data
        return
    unit, index = _unit_plan(count, datatype, data.size)
    unit_view(memory, unit)[index] = unit_view(data, unit)


def _contiguous_start(count: int, datatype: Datatype) -> int | None:
    """Where ``count`` elements begin if their data is one contiguous run, else None."""
    offsets, lengths = datatype.typemap()
    if offsets.size == 0:
        return 0
    if offsets.size == 1 and (count <= 1 or lengths[0] == datatype.extent):
        return int(offsets[0])
    return None


def _unit_plan(count: int, datatype: Datatype, nbytes: int) -> tuple[int, np.ndarray]:
    """The unit and unit indices that move the first ``nbytes`` of ``count`` elements."""
    blocks = datatype.typemap()
    unit = gcd(unit_of(blocks, count, datatype.extent), nbytes)
    elements = -(-nbytes // datatype.size)
    return unit, unit_indices(blocks, elements, datatype.extent, unit)[: nbytes // unit]


def _check_span(available: int, count: int, datatype: Datatype) -> None:
    if count == 0 or datatype.size == 0:
        return
    last = (count - 1) * datatype.extent
    lo = datatype.true_lb + min(0, last)
    hi = datatype.true_lb + datatype.true_extent + max(0, last)
    if lo < 0 or hi > available:
        raise ErrArg(f"buffer of {available} bytes is too small: {count} x {datatype.name} "
                     f"touches bytes {lo}..{hi - 1}")
