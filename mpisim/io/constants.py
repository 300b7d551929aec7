"""The constants of MPI-IO (MPI 4.1 §14.2.1, §14.4.2, §14.3), with MPICH's values, which
mpi4py scripts see (``MPI.MODE_RDONLY`` is 2 in MPICH 5.0.2 and Open MPI 5.0.11 alike).
"""

from __future__ import annotations

__all__ = ["ACCESS_MODES", "AMODES", "DATAREPS", "DISPLACEMENT_CURRENT", "MODE_APPEND",
           "MODE_CREATE", "MODE_DELETE_ON_CLOSE", "MODE_EXCL", "MODE_RDONLY", "MODE_RDWR",
           "MODE_SEQUENTIAL", "MODE_UNIQUE_OPEN", "MODE_WRONLY", "SEEK_CUR", "SEEK_END",
           "SEEK_SET", "WHENCES"]

MODE_CREATE = 1
MODE_RDONLY = 2
MODE_WRONLY = 4
MODE_RDWR = 8
MODE_DELETE_ON_CLOSE = 16
MODE_UNIQUE_OPEN = 32
MODE_EXCL = 64
MODE_APPEND = 128
MODE_SEQUENTIAL = 256

AMODES = {"MODE_RDONLY": MODE_RDONLY, "MODE_WRONLY": MODE_WRONLY, "MODE_RDWR": MODE_RDWR,
          "MODE_CREATE": MODE_CREATE, "MODE_EXCL": MODE_EXCL,
          "MODE_DELETE_ON_CLOSE": MODE_DELETE_ON_CLOSE, "MODE_UNIQUE_OPEN": MODE_UNIQUE_OPEN,
          "MODE_SEQUENTIAL": MODE_SEQUENTIAL, "MODE_APPEND": MODE_APPEND}
"""Every access mode flag by its name (§14.2.1)."""

ACCESS_MODES = MODE_RDONLY | MODE_WRONLY | MODE_RDWR
"""Exactly one of these must be in an amode."""

SEEK_SET = 600
SEEK_CUR = 602
SEEK_END = 604
WHENCES = {SEEK_SET: "MPI_SEEK_SET", SEEK_CUR: "MPI_SEEK_CUR", SEEK_END: "MPI_SEEK_END"}

DISPLACEMENT_CURRENT = -54278278
"""MPI_DISPLACEMENT_CURRENT (§14.3): a view's displacement is the current position of the
shared file pointer (files opened with MPI_MODE_SEQUENTIAL only)."""

DATAREPS = ("native", "internal")
"""The data representations whose bytes the model writes (§14.5): ``native`` (the bytes of
memory as they are) and ``internal``, which mpisim defines to be ``native`` (as MPICH's
ROMIO does). ``external32`` is refused with MPI_ERR_UNSUPPORTED_DATAREP."""
