"""The memory of a window: one process's part of it, and where an access lands in it.

A window (MPI 4.1 §12.2) is, on each process, a piece of memory that other processes may
access: a :class:`Segment` (MPI_Win_create: the program's own buffer; MPI_Win_allocate and
MPI_Win_allocate_shared: memory MPI allocates) or, for a dynamic window (§12.2.4), the
:class:`Regions` the process has attached. An access names a target displacement; the
bytes it touches start at ``disp * disp_unit`` (§12.3: the target's own displacement unit),
or, in a dynamic window, at the address ``disp`` itself. Every access is checked against
the memory before a byte moves: one that reaches outside is MPI_ERR_RMA_RANGE, as the
simulator never touches memory outside the object (MPICH does not check, and writes past
the window; Open MPI reports MPI_ERR_RMA_RANGE, see docs/guide/facts-rma.md).

Memory MPI allocates is made on first use: a size-only program (a scenario) that never
moves data allocates nothing, however large its windows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import ErrRmaAttach, ErrRmaRange

__all__ = ["Regions", "Segment", "address_of", "span"]


def _NOTHING() -> np.ndarray:
    return np.zeros(0, dtype=np.uint8)


def address_of(memory: np.ndarray | None) -> int:
    """The address of the first byte of ``memory`` (0, MPI_BOTTOM, for none)."""
    if memory is None or memory.size == 0:
        return 0
    return int(memory.__array_interface__["data"][0])


def span(count: int, datatype: Any) -> tuple[int, int]:
    """The bytes ``count`` elements of ``datatype`` touch, relative to where they start:
    ``(lo, hi)``, hi exclusive; (0, 0) when they touch none."""
    if count == 0 or datatype.size == 0:
        return 0, 0
    last = (count - 1) * datatype.extent
    return (datatype.true_lb + min(0, last),
            datatype.true_lb + datatype.true_extent + max(0, last))


class Segment:
    """One process's part of a window made by create, allocate or allocate_shared: its
    memory (a flat uint8 view), size in bytes and displacement unit."""

    __slots__ = ("_memory", "disp_unit", "size")

    def __init__(self, memory: np.ndarray | None, size: int, disp_unit: int) -> None:
        self._memory = memory
        self.size = size
        self.disp_unit = disp_unit

    @property
    def memory(self) -> np.ndarray:
        """Its bytes; memory MPI allocates is zeroed when first used (see the module)."""
        if self._memory is None:
            self._memory = np.zeros(self.size, dtype=np.uint8)
        return self._memory

    @property
    def base(self) -> int:
        """MPI_WIN_BASE: the address of its first byte (0 for a window of no memory)."""
        return address_of(self.memory) if self.size else 0

    def locate(self, disp: int, count: int, datatype: Any,
               what: str) -> tuple[Callable[[], np.ndarray], int]:
        """(the memory, when it is needed; byte offset) of ``count`` x ``datatype`` at
        displacement ``disp``; MPI_ERR_RMA_RANGE when they reach outside the segment."""
        offset = disp * self.disp_unit
        lo, hi = span(count, datatype)
        if hi > lo and (offset + lo < 0 or offset + hi > self.size):
            raise ErrRmaRange(
                f"{what}: {count} x {datatype.name} at displacement {disp} (x disp_unit "
                f"{self.disp_unit} = byte {offset}) touch bytes {offset + lo}..{offset + hi - 1}"
                f", outside the target's window of {self.size} bytes",
                {"disp": disp, "bytes": [offset + lo, offset + hi], "size": self.size})
        return self._get, offset

    def _get(self) -> np.ndarray:
        return self.memory


class Regions:
    """One process's part of a dynamic window (§12.2.4): the memory it has attached, by
    address. Its displacement unit is 1 and a target displacement is an address (taken with
    MPI_Get_address on the target)."""

    __slots__ = ("regions",)

    disp_unit = 1
    size = 0
    base = 0

    def __init__(self) -> None:
        self.regions: list[tuple[int, int, np.ndarray]] = []  # (start, end, memory)

    def attach(self, memory: np.ndarray) -> None:
        """MPI_Win_attach: ``memory`` (a flat uint8 view) becomes accessible; an overlap
        with memory attached before is MPI_ERR_RMA_ATTACH."""
        start = address_of(memory)
        end = start + memory.size
        for s, e, _ in self.regions:
            if start < e and s < end:
                raise ErrRmaAttach(f"win_attach: bytes {start:#x}..{end - 1:#x} overlap "
                                   f"memory attached before ({s:#x}..{e - 1:#x})")
        self.regions.append((start, end, memory))

    def detach(self, memory: np.ndarray) -> None:
        """MPI_Win_detach: the region that starts where ``memory`` does is no longer
        accessible; none is MPI_ERR_RMA_ATTACH."""
        start = address_of(memory)
        for i, (s, _, _) in enumerate(self.regions):
            if s == start:
                del self.regions[i]
                return
        raise ErrRmaAttach(f"win_detach: no memory attached at {start:#x}")

    def locate(self, disp: int, count: int, datatype: Any,
               what: str) -> tuple[Callable[[], np.ndarray], int]:
        """(the memory, byte offset) of an access at address ``disp``: it must lie within
        one attached region, else MPI_ERR_RMA_RANGE."""
        lo, hi = span(count, datatype)
        if hi == lo:
            return _NOTHING, 0
        for s, e, memory in self.regions:
            if s <= disp + lo and disp + hi <= e:
                return (lambda memory=memory: memory), disp - s
        raise ErrRmaRange(f"{what}: bytes {disp + lo:#x}..{disp + hi - 1:#x} of the dynamic "
                          "window lie in no memory the target has attached",
                          {"disp": disp, "regions": len(self.regions)})
