"""``MPI.BOTTOM`` as the buffer of the w collectives (Alltoallw, Neighbor_alltoallw).

With ``MPI.BOTTOM`` a block's datatype and displacement are absolute addresses (MPI 4.1
§4.1.5, §6.8): block k is ``counts[k]`` elements of ``types[k]`` at address
``displs[k]``. The handle's collectives move numpy buffers, so the stand-in gathers the
send blocks from the rank's address space (the arrays whose addresses the script took with
``MPI.Get_address``) into one packed byte buffer, and scatters the received bytes back
through the receive blocks' type maps once the call has completed. An address outside that
memory is MPI_ERR_ARG, as for a point-to-point transfer from BOTTOM.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...handle.access import address_space
from ...mpi import datatypes as _dt
from ..bridge import current

__all__ = ["Packed", "gathered", "nothing", "receiving"]


class Packed:
    """A w collective's blocks as packed bytes: one uint8 buffer, each block's byte count
    and byte offset in it, and BYTE as every block's datatype."""

    __slots__ = ("buf", "counts", "displs", "types")

    def __init__(self, parts: list[np.ndarray]) -> None:
        self.counts = [int(p.size) for p in parts]
        self.displs = [int(x) for x in np.cumsum([0, *self.counts])[:-1]]
        self.buf = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
        self.types = [_dt.BYTE] * len(parts)

    def parts(self) -> list[np.ndarray]:
        """Each block's bytes, a copy of its own."""
        return [self.buf[at:at + n].copy() for n, at in zip(self.counts, self.displs,
                                                             strict=True)]


def _block(count: int, displ: int, datatype: Any) -> Any:
    """Block k as one datatype of absolute addresses: ``count`` elements at ``displ``."""
    return _dt.Datatype.create_struct([count], [displ], [datatype]).commit()


def gathered(counts: list[int], displs: list[int], types: list[Any]) -> Packed:
    """The send blocks' bytes, read from the rank's address space."""
    space = address_space(current().mpi)
    return Packed([space.gather(1, _block(c, d, t))
                   for c, d, t in zip(counts, displs, types, strict=True)])


def nothing() -> None:
    """The completing step of a call with no MPI.BOTTOM receive blocks."""


def receiving(counts: list[int], displs: list[int], types: list[Any]
              ) -> tuple[Packed, Callable[[], None]]:
    """A packed receive buffer (holding the blocks' present bytes, which an in-place call
    sends) and the step that writes it back through the blocks' type maps."""
    packed = gathered(counts, displs, types)
    space = address_space(current().mpi)

    def finish() -> None:
        for c, d, t, n, at in zip(counts, displs, types, packed.counts, packed.displs,
                                  strict=True):
            space.scatter(packed.buf[at:at + n], 1, _block(c, d, t))
    return packed, finish
