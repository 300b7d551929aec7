"""Addresses (MPI 4.1.5): ``get_address``, ``aint_add``, ``aint_diff`` and MPI_BOTTOM.

``get_address`` returns the real byte address of an element of a numpy array, so address
arithmetic behaves as in C or Fortran (the standard's example: in ``REAL A(100,100)``,
A(10,10) lies 909 x 4 bytes after A(1,1)). A datatype built from such addresses, used with
``buf=BOTTOM``, addresses memory absolutely.

A C program may hand MPI any address; a simulator running inside Python must not read
arbitrary memory. So each rank has an :class:`AddressSpace`: the memory of every array
whose address it took (the whole array it is a view of, as MPI allows addresses anywhere
in the same object). A BOTTOM transfer moves only bytes that lie in that memory; any other
address is MPI_ERR_ARG. The space keeps those arrays alive, so an address it handed out
never comes to point at freed memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .datatypes import Datatype, check_committed, pack_size
from .errors import ErrArg
from .typemap import byte_indices, check_message_size, memory_of

__all__ = ["AddressSpace", "aint_add", "aint_diff"]


class AddressSpace:
    """The memory one rank has shown MPI: the arrays whose addresses it took."""

    __slots__ = ("_ends", "_memories", "_starts")

    def __init__(self) -> None:
        self._memories: list[np.ndarray] = []  # flat uint8 views, sorted by start address
        self._starts = np.zeros(0, dtype=np.int64)
        self._ends = np.zeros(0, dtype=np.int64)

    def get_address(self, array: np.ndarray, index: int | tuple[int, ...] | None = None) -> int:
        """The address of ``array[index]`` (its first element when ``index`` is None).

        ``index`` is an int or a tuple of ints (negative counts from the end, as in numpy);
        strides are honoured, so Fortran-ordered arrays give Fortran addresses.
        """
        if not isinstance(array, np.ndarray):
            raise ErrArg(f"get_address takes a numpy array, got {type(array).__name__}")
        offset = _element_offset(array, index)
        self._register(array)
        base: int = array.__array_interface__["data"][0]
        return base + offset

    def gather(self, count: int, datatype: Datatype) -> np.ndarray:
        """The packed bytes of ``count`` elements of a type map of absolute addresses
        (a send from BOTTOM)."""
        pack_size(count, check_committed(datatype))  # refuses a bad count
        addresses = byte_indices(datatype.typemap(), count, datatype.extent)
        out = np.empty(addresses.size, dtype=np.uint8)
        for memory, where, offsets in self._pieces(addresses):
            out[where] = memory[offsets]
        return out

    def scatter(self, packed: np.ndarray, count: int, datatype: Datatype) -> None:
        """Write packed bytes through a type map of absolute addresses (a receive into
        BOTTOM); the message may fill fewer than ``count`` elements."""
        check_committed(datatype)
        data = memory_of(packed, what="packed")
        check_message_size(data.size, count, datatype)
        elements = -(-data.size // datatype.size) if datatype.size else 0
        addresses = byte_indices(datatype.typemap(), elements, datatype.extent)[:data.size]
        pieces = self._pieces(addresses)
        for memory, _, offsets in pieces:  # refuse before writing anything
            if not memory.flags.writeable:
                raise ErrArg(f"address {_hex(memory, offsets)} lies in a read-only array")
        for memory, where, offsets in pieces:
            memory[offsets] = data[where]

    def _register(self, array: np.ndarray) -> None:
        memory = _whole_memory(array)
        start = memory.__array_interface__["data"][0]
        end = start + memory.size
        if np.any((self._starts <= start) & (end <= self._ends)):
            return
        at = int(np.searchsorted(self._starts, start))
        self._memories.insert(at, memory)
        self._starts = np.insert(self._starts, at, start)
        self._ends = np.insert(self._ends, at, end)

    def _pieces(self, addresses: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Split byte addresses by the memory that holds them: ``(memory, positions,
        offsets into memory)`` per memory; MPI_ERR_ARG for an address in none."""
        region = self._region_of(addresses)
        order = np.argsort(region, kind="stable")
        sorted_regions = region[order]
        bounds = np.flatnonzero(np.diff(sorted_regions)) + 1
        pieces = []
        for where in np.split(order, bounds) if order.size else []:
            r = int(region[where[0]])
            pieces.append((self._memories[r], where, addresses[where] - self._starts[r]))
        return pieces

    def _region_of(self, addresses: np.ndarray) -> np.ndarray:
        region = np.searchsorted(self._starts, addresses, side="right") - 1
        found = region >= 0
        found[found] = addresses[found] < self._ends[region[found]]
        missing = np.flatnonzero(~found)
        # A byte of an array that another, later-starting one overlaps is missed above
        # when it lies past the later one's end: look again through every array.
        for r, (start, end) in enumerate(zip(self._starts, self._ends, strict=True)):
            if missing.size == 0:
                break
            inside = (addresses[missing] >= start) & (addresses[missing] < end)
            region[missing[inside]] = r
            missing = missing[~inside]
        if missing.size:
            raise ErrArg(f"address {int(addresses[missing[0]]):#x} lies in no array whose "
                         "address was taken (get_address)")
        return region


def aint_add(base: int, disp: int) -> int:
    """``base + disp`` as MPI_Aint_add computes it (4.1.5)."""
    return _aint(base, "base") + _aint(disp, "disp")


def aint_diff(addr1: int, addr2: int) -> int:
    """The signed distance ``addr1 - addr2`` as MPI_Aint_diff computes it (4.1.5)."""
    return _aint(addr1, "addr1") - _aint(addr2, "addr2")


def _aint(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ErrArg(f"{what} must be an integer address or displacement, got {value!r}")
    return int(value)


def _element_offset(array: np.ndarray, index: Any) -> int:
    """Byte offset of ``array[index]`` from the array's data pointer."""
    if index is None:
        return 0
    index = index if isinstance(index, tuple) else (index,)
    if len(index) > array.ndim:
        raise ErrArg(f"index {index} has more entries than the array has dimensions "
                     f"({array.ndim})")
    offset = 0
    for i, n, stride in zip(index, array.shape, array.strides, strict=False):
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise ErrArg(f"index entries must be integers, got {i!r}")
        j = int(i) + n if i < 0 else int(i)
        if not 0 <= j < n:
            raise ErrArg(f"index {index} is out of range for an array of shape {array.shape}")
        offset += j * stride
    return offset


def _whole_memory(array: np.ndarray) -> np.ndarray:
    """The memory of the object ``array`` lies in: its base array if contiguous, else
    itself (MPI addresses are valid anywhere in the same object)."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    for candidate in (root, array):
        if candidate.flags.c_contiguous or candidate.flags.f_contiguous:
            return memory_of(candidate, what="array")
    raise ErrArg("get_address needs an array in contiguous memory (or a view of one)")


def _hex(memory: np.ndarray, offsets: np.ndarray) -> str:
    return f"{memory.__array_interface__['data'][0] + int(offsets[0]):#x}"
