"""Communicator attributes (MPI 4.1 §7.7) and the predefined ones (§9.1.2).

A keyval names an attribute; a communicator's attribute is a value a process attaches to
its handle under a keyval. :class:`Keyval` holds what happens when a communicator is
duplicated (``copy``: None or False, not copied; True, copied as is; a callable
``copy(comm, keyval, value)``, copied as what it returns unless NotImplemented) and when
an attribute is deleted or its communicator freed (``delete(comm, keyval, value)``).

The predefined attributes are environmental inquiries; their values are the library's, as
observed with MPI_Comm_get_attr (C) and mpi4py's ``Get_attr`` on 2 and 4 processes:

=================  =====================  ==========================  ====================
attribute          MPICH 5.0.2            Open MPI 5.0.11             standard profile
=================  =====================  ==========================  ====================
TAG_UB             536870911 (2**29 - 1)  2147483647                  2147483647
HOST               MPI_PROC_NULL          (no MPI_HOST: removed)      MPI_PROC_NULL
IO                 MPI_ANY_SOURCE         MPI_ANY_SOURCE              MPI_ANY_SOURCE
WTIME_IS_GLOBAL    0                      0                           0
APPNUM             0                      0                           0
UNIVERSE_SIZE      not set (hydra)        the slots (2 on 2 cores)    the run's size
LASTUSEDCODE       1073741823             92                          1073741823
on                 every communicator     MPI_COMM_WORLD and its      MPI_COMM_WORLD and
                                          duplicates (not SELF)       its duplicates
=================  =====================  ==========================  ====================

(MPI_IO's value is "every process can do I/O", MPI_ANY_SOURCE, -2 in MPICH and -1 in Open
MPI; here the simulator's MPI_ANY_SOURCE.) Open MPI's universe size is its slot count; the
simulator gives the run's size, the slots a machine sized for the job would have. mpisim
accepts tags up to 2**31 - 1 whatever the profile: MPI_TAG_UB is what the library would
tell the program, not a bound mpisim enforces.

Keyval numbers: the predefined ones are MPICH's handle values; user keyvals are numbered
from ``FIRST_USER_KEYVAL``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .constants import ANY_SOURCE, PROC_NULL

__all__ = ["APPNUM", "FIRST_USER_KEYVAL", "HOST", "IO", "KEYVAL_INVALID", "LASTUSEDCODE",
           "PREDEFINED", "TAG_UB", "UNIVERSE_SIZE", "WTIME_IS_GLOBAL", "Keyval",
           "predefined_value"]

TAG_UB, HOST, IO, WTIME_IS_GLOBAL = 0x64400001, 0x64400003, 0x64400005, 0x64400007
UNIVERSE_SIZE, LASTUSEDCODE, APPNUM = 0x64400009, 0x6440000B, 0x6440000D
KEYVAL_INVALID = 0x24000000
"""MPI_KEYVAL_INVALID (MPICH's value)."""
FIRST_USER_KEYVAL = 0x24400000

PREDEFINED = {"TAG_UB": TAG_UB, "HOST": HOST, "IO": IO, "WTIME_IS_GLOBAL": WTIME_IS_GLOBAL,
              "UNIVERSE_SIZE": UNIVERSE_SIZE, "LASTUSEDCODE": LASTUSEDCODE, "APPNUM": APPNUM}
"""The predefined keyvals by name (MPI_TAG_UB...)."""

_VALUES: dict[str, dict[int, Any]] = {
    "mpich": {TAG_UB: 2**29 - 1, HOST: PROC_NULL, IO: ANY_SOURCE, WTIME_IS_GLOBAL: 0,
              APPNUM: 0, LASTUSEDCODE: 0x3FFFFFFF},
    "openmpi": {TAG_UB: 2**31 - 1, IO: ANY_SOURCE, WTIME_IS_GLOBAL: 0, APPNUM: 0,
                UNIVERSE_SIZE: "size", LASTUSEDCODE: 92},
    "standard": {TAG_UB: 2**31 - 1, HOST: PROC_NULL, IO: ANY_SOURCE, WTIME_IS_GLOBAL: 0,
                 APPNUM: 0, UNIVERSE_SIZE: "size", LASTUSEDCODE: 0x3FFFFFFF},
}
_EVERYWHERE = {"mpich"}
"""Families whose predefined attributes are on every communicator (else on MPI_COMM_WORLD
and what is duplicated from it)."""


def predefined_value(family: str, keyval: int, size: int, on_world: bool) -> tuple[bool, Any]:
    """(found, value) of a predefined attribute for a library ``family`` in a run of
    ``size`` processes, on a communicator that is (or was duplicated from) MPI_COMM_WORLD
    or not.

    Parameters
    ----------
    family
        The profile's library family (``"standard"``, ``"mpich"``, ``"openmpi"``).
    keyval
        The predefined key (``ms.TAG_UB``, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL...).
    size
        The number of processes of the run.
    on_world
        Whether the communicator is MPI_COMM_WORLD or was duplicated from it.

    Returns
    -------
    tuple
        ``(found, value)``: whether the attribute is set there (MPI's flag) and its value.
    """
    values = _VALUES.get(family, _VALUES["standard"])
    if keyval not in values or not (on_world or family in _EVERYWHERE):
        return False, None
    value = values[keyval]
    return True, size if value == "size" else value


@dataclass(frozen=True)
class Keyval:
    """A user keyval (MPI_Comm_create_keyval): what a duplicate and a deletion do.

    Parameters
    ----------
    number
        The keyval, as ``comm_create_keyval`` returns it.
    copy
        What ``comm_dup`` does with the attribute: None or False, not copied; True, copied
        as is; a function ``copy(comm, keyval, value)``, its result is the copy.
    delete
        Called as ``delete(comm, keyval, value)`` when the attribute is deleted, or None.
    """

    number: int
    copy: Any = None
    delete: Any = None
