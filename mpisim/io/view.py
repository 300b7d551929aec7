"""File views (MPI 4.1 §14.3): where the data of a process's accesses lie in the file.

A view is a displacement (bytes from the start of the file), an elementary type (the
unit of positioning: offsets and file pointers count etypes) and a filetype, tiled from
the displacement on, one copy every filetype extent; the bytes of the filetype's type map
are the process's, its holes are not. A data stream of ``n`` bytes starting at the
``k``-th etype of the view lands in the file where the bytes ``k * etype.size`` to
``k * etype.size + n - 1`` of the tiled filetype's data lie. :meth:`View.runs` gives them
as file offsets and lengths (numpy arrays, neighbours merged), computed with the type map
arrays of :mod:`mpisim.mpi.typemap`, never byte by byte.

The standard's rules on a view are checked when it is set (:func:`check`): the etype and
the filetype are committed, the filetype's data is a whole number of etypes, its type map
has non-negative, monotonically nondecreasing displacements (so the tiles never overlap),
and the displacement is not negative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mpi.errors import ErrArg, ErrType
from ..mpi.typemap import merge
from .constants import DATAREPS
from .errors import ErrUnsupportedDatarep

__all__ = ["View", "check"]


class View:
    """A process's view of a file: ``disp``, ``etype``, ``filetype``, ``datarep``."""

    __slots__ = ("_lengths", "_offsets", "_starts", "datarep", "disp", "etype", "filetype")

    def __init__(self, disp: int, etype: Any, filetype: Any, datarep: str = "native") -> None:
        self.disp = disp
        self.etype = etype
        self.filetype = filetype
        self.datarep = datarep
        self._offsets, self._lengths = filetype.typemap()
        self._starts = np.cumsum(self._lengths) - self._lengths  # data before each block

    @property
    def dense(self) -> bool:
        """Whether the tiled filetype has no holes (one run from the first byte)."""
        return self._offsets.size == 1 and int(self._lengths[0]) == self.filetype.extent

    def runs(self, position: int, nbytes: int) -> tuple[np.ndarray, np.ndarray]:
        """(file offsets, lengths) of ``nbytes`` of data from the view's etype
        ``position`` on, in data order."""
        if nbytes <= 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        start = position * self.etype.size
        if self.dense:
            first = self.disp + int(self._offsets[0]) + start
            return np.array([first], dtype=np.int64), np.array([nbytes], dtype=np.int64)
        size, extent = self.filetype.size, self.filetype.extent
        end = start + nbytes
        tiles = np.arange(start // size, (end - 1) // size + 1, dtype=np.int64)
        offsets = (self.disp + np.add.outer(tiles * extent, self._offsets)).ravel()
        lengths = np.tile(self._lengths, tiles.size)
        data = np.add.outer(tiles * size, self._starts).ravel()  # stream position of each
        lo = np.maximum(data, start)
        hi = np.minimum(data + lengths, end)
        keep = hi > lo
        return merge(offsets[keep] + (lo - data)[keep], (hi - lo)[keep])

    def byte_offset(self, position: int) -> int:
        """MPI_File_get_byte_offset: the file byte of the view's etype ``position``."""
        return int(self.runs(position, 1)[0][0])

    def data_before(self, limit: int) -> int:
        """Bytes of the view's data that lie before file byte ``limit``."""
        reach = limit - self.disp
        if reach <= 0:
            return 0
        if self.dense:
            return max(0, reach - int(self._offsets[0]))
        size, extent = self.filetype.size, self.filetype.extent
        last = int((self._offsets + self._lengths).max())
        full = max(0, (reach - last) // extent + 1)   # tiles wholly before the limit
        first = int(self._offsets.min())
        tiles = np.arange(full, max(full, (reach - first) // extent + 1) + 1, dtype=np.int64)
        offsets = np.add.outer(tiles * extent, self._offsets).ravel()
        inside = np.clip(reach - offsets, 0, np.tile(self._lengths, tiles.size))
        return full * size + int(inside.sum())

    def end_position(self, file_size: int) -> int:
        """The view's etype offset of the end of a file of ``file_size`` bytes: the first
        etype at or after it (what MPI_SEEK_END counts from, as ROMIO computes it)."""
        esize = self.etype.size
        return -(-self.data_before(file_size) // esize)

    def __repr__(self) -> str:
        return (f"<View disp={self.disp} etype={self.etype.name} "
                f"filetype={self.filetype.name} {self.datarep}>")


def check(call: str, disp: Any, etype: Any, filetype: Any, datarep: Any) -> View:
    """The view a call sets, or the error of the rule it breaks (§14.3, §14.5)."""
    if isinstance(disp, bool) or not isinstance(disp, int | np.integer) or disp < 0:
        raise ErrArg(f"{call}: disp must be a non-negative integer, got {disp!r}")
    for what, t in (("etype", etype), ("filetype", filetype)):
        if not hasattr(t, "typemap"):
            raise ErrType(f"{call}: {what} {t!r} is not a datatype")
        if not t.committed:
            raise ErrType(f"{call}: {what} {t.name} is not committed")
    if etype.size <= 0:
        raise ErrType(f"{call}: etype {etype.name} has no data")
    if filetype.size <= 0 or filetype.size % etype.size:
        raise ErrType(f"{call}: filetype {filetype.name} ({filetype.size} bytes of data) is "
                      f"not made of whole etypes {etype.name} ({etype.size} bytes) (§14.3)")
    offsets, lengths = filetype.typemap()
    ends = offsets + lengths
    if offsets[0] < 0 or np.any(offsets[1:] < ends[:-1]) or (
            int(ends.max()) - int(offsets.min()) > filetype.extent):
        raise ErrType(f"{call}: filetype {filetype.name}'s displacements must be "
                      "non-negative and monotonically nondecreasing (§14.3)")
    if not isinstance(datarep, str):
        raise ErrArg(f"{call}: datarep must be a name, got {datarep!r}")
    if datarep.lower() not in DATAREPS:
        raise ErrUnsupportedDatarep(f"{call}: data representation {datarep!r}: mpisim "
                                    f"writes {' and '.join(DATAREPS)} only")
    return View(int(disp), etype, filetype, datarep.lower())
