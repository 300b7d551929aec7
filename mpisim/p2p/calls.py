"""Argument checks of the point-to-point calls, with the MPI error class each raises.

Fast paths first: a plain ``int`` in range passes with two comparisons, since these run on
every call. numpy integers are accepted as their value; ``bool`` is refused (True is not a
rank).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB
from ..mpi.datatypes import Datatype
from ..mpi.errors import ErrRank, ErrTag, ErrType

__all__ = ["check_datatype", "check_dest", "check_source", "check_tag"]


def check_dest(dest: object, size: int) -> int:
    """A send's destination: a rank of the communicator or PROC_NULL (MPI_ERR_RANK)."""
    if type(dest) is int and 0 <= dest < size:
        return dest
    if isinstance(dest, bool) or not isinstance(dest, int | np.integer):
        raise ErrRank(f"dest must be a rank number, got {dest!r}")
    dest = int(dest)
    if not 0 <= dest < size and dest != PROC_NULL:
        raise ErrRank(f"dest {dest} is not a rank of the communicator (size {size})")
    return dest


def check_source(source: object, size: int) -> int:
    """A receive's source: a rank, ANY_SOURCE or PROC_NULL (MPI_ERR_RANK)."""
    if type(source) is int and 0 <= source < size:
        return source
    if isinstance(source, bool) or not isinstance(source, int | np.integer):
        raise ErrRank(f"source must be a rank number or ANY_SOURCE, got {source!r}")
    source = int(source)
    if not 0 <= source < size and source not in (ANY_SOURCE, PROC_NULL):
        raise ErrRank(f"source {source} is not a rank of the communicator (size {size})")
    return source


def check_tag(tag: object, wildcard: bool) -> int:
    """A tag in 0..TAG_UB; ANY_TAG only where ``wildcard`` (receives, probes): MPI_ERR_TAG."""
    if type(tag) is int and 0 <= tag <= TAG_UB:
        return tag
    if isinstance(tag, bool) or not isinstance(tag, int | np.integer):
        raise ErrTag(f"tag must be an integer, got {tag!r}")
    tag = int(tag)
    if (tag < 0 and not (wildcard and tag == ANY_TAG)) or tag > TAG_UB:
        raise ErrTag(f"tag {tag} is outside 0..{TAG_UB}"
                     + (" (ANY_TAG is only for receives)" if tag == ANY_TAG else ""))
    return tag


def check_datatype(datatype: Any) -> Any:
    """None (to be inferred), or a committed Datatype (MPI_ERR_TYPE)."""
    if datatype is None:
        return None
    if not isinstance(datatype, Datatype):
        raise ErrType(f"datatype must be an mpisim Datatype (e.g. ms.DOUBLE), got {datatype!r}")
    if not datatype.committed:
        raise ErrType(f"datatype {datatype.name} is not committed: call .commit() before "
                      "using it in communication")
    return datatype
