"""mpisim: a discrete-event simulator of MPI buffered communication.

Run a rank program (a generator taking the ``mpi`` handle) with :func:`run`; everything a user
needs is reachable from this one namespace (``import mpisim as ms``). The documentation site
(``docs/``) has the user guide, the API reference and the contract.
"""

import importlib

from ._version import __version__  # defined there once (pyproject.toml reads it)
from .collectives.ops import (
    BAND,
    BOR,
    BXOR,
    LAND,
    LOR,
    LXOR,
    MAX,
    MAXLOC,
    MIN,
    MINLOC,
    PROD,
    SUM,
    Op,
)
from .mpi.comm import Comm, Session
from .mpi.constants import (
    ANY_SOURCE,
    ANY_TAG,
    BOTTOM,
    BUFFER_AUTOMATIC,
    PROC_NULL,
    TAG_UB,
    UNDEFINED,
)
from .mpi.datatypes import (  # every predefined datatype, named as in MPI without MPI_
    AINT,
    BYTE,
    C_BOOL,
    C_COMPLEX,
    C_DOUBLE_COMPLEX,
    C_FLOAT_COMPLEX,
    C_LONG_DOUBLE_COMPLEX,
    CHAR,
    CHARACTER,
    COMPLEX,
    COMPLEX8,
    COMPLEX16,
    COUNT,
    CXX_BOOL,
    CXX_DOUBLE_COMPLEX,
    CXX_FLOAT_COMPLEX,
    DOUBLE,
    DOUBLE_COMPLEX,
    DOUBLE_INT,
    DOUBLE_PRECISION,
    FLOAT,
    FLOAT_INT,
    INT,
    INT8_T,
    INT16_T,
    INT32_T,
    INT64_T,
    INTEGER,
    INTEGER1,
    INTEGER2,
    INTEGER4,
    INTEGER8,
    LOGICAL,
    LONG,
    LONG_DOUBLE,
    LONG_INT,
    LONG_LONG,
    OFFSET,
    ORDER_C,
    ORDER_FORTRAN,
    PACKED,
    REAL,
    REAL2,
    REAL4,
    REAL8,
    SHORT,
    SHORT_INT,
    SIGNED_CHAR,
    TWODOUBLE_PRECISION,
    TWOINT,
    TWOINTEGER,
    TWOREAL,
    UINT8_T,
    UINT16_T,
    UINT32_T,
    UINT64_T,
    UNSIGNED,
    UNSIGNED_CHAR,
    UNSIGNED_LONG,
    UNSIGNED_LONG_LONG,
    UNSIGNED_SHORT,
    WCHAR,
    Datatype,
    datatype_of,
)
from .mpi.errors import (
    ErrArg,
    ErrBuffer,
    ErrComm,
    ErrCount,
    ErrOp,
    ErrOther,
    ErrRank,
    ErrRequest,
    ErrRoot,
    ErrTag,
    ErrTruncate,
    ErrType,
    MPIError,
)
from .p2p.network import Network
from .p2p.requests import Request, Status
from .profiles.library import MPIConfig
from .runs.result import Outcome, Result
from .runs.simulation import Simulation, run

BSEND_OVERHEAD = 96
"""MPI_BSEND_OVERHEAD of the ``standard`` profile; ``mpi.BSEND_OVERHEAD`` in a program is
the value in force for its run (MPICH 96, Open MPI 128)."""

_WHATIF = ("sweep", "min_buffer", "min_buffer_per_rank", "check_safe", "compare_profiles")
_SUBPACKAGES = ("collectives", "plot", "scenario", "whatif", "mpi4py",
                "recorded")  # imported on first use


def __getattr__(name: str):
    """The what-if functions, imported on first use: ``import mpisim`` stays light (no
    scenario loader, no YAML) for the thousands of worker processes of a sweep."""
    if name in _WHATIF:
        from . import whatif

        return getattr(whatif, name)
    if name == "explore":  # ipywidgets (the notebook extra) only when asked for
        from .whatif.explorer import explore

        return explore
    if name == "run_mpi4py":  # the mpi4py stand-in (greenlet) only when asked for
        from .mpi4py import run_mpi4py

        return run_mpi4py
    if name == "replay":  # a recorded real run (mpisim record), replayed
        from .recorded import replay

        return replay
    if name == "load_scenario":
        from .scenario import load

        return load
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'mpisim' has no attribute {name!r}")

__all__ = [
    "AINT",
    "ANY_SOURCE",
    "ANY_TAG",
    "BAND",
    "BOR",
    "BOTTOM",
    "BUFFER_AUTOMATIC",
    "BXOR",
    "BYTE",
    "CHAR",
    "CHARACTER",
    "COMPLEX",
    "COUNT",
    "C_BOOL",
    "C_DOUBLE_COMPLEX",
    "C_FLOAT_COMPLEX",
    "DOUBLE",
    "DOUBLE_COMPLEX",
    "DOUBLE_PRECISION",
    "FLOAT",
    "INT",
    "INT8_T",
    "INT16_T",
    "INT32_T",
    "INT64_T",
    "INTEGER",
    "LAND",
    "LOGICAL",
    "LONG",
    "LONG_DOUBLE",
    "LONG_LONG",
    "LOR",
    "LXOR",
    "MAX",
    "MAXLOC",
    "MIN",
    "MINLOC",
    "OFFSET",
    "PACKED",
    "PROC_NULL",
    "PROD",
    "REAL",
    "SHORT",
    "SUM",
    "TAG_UB",
    "UINT8_T",
    "UINT16_T",
    "UINT32_T",
    "UINT64_T",
    "UNDEFINED",
    "UNSIGNED",
    "UNSIGNED_CHAR",
    "UNSIGNED_LONG",
    "UNSIGNED_SHORT",
    "Comm",
    "Datatype",
    "ErrArg",
    "ErrBuffer",
    "ErrComm",
    "ErrCount",
    "ErrOp",
    "ErrOther",
    "ErrRank",
    "ErrRequest",
    "ErrRoot",
    "ErrTag",
    "ErrTruncate",
    "ErrType",
    "MPIConfig",
    "MPIError",
    "Network",
    "Op",
    "Outcome",
    "Request",
    "Result",
    "Session",
    "Simulation",
    "Status",
    "__version__",
    "datatype_of",
    "run",
    "run_mpi4py",
    "replay",
    "explore",
    "load_scenario",
    "BSEND_OVERHEAD",
    "ORDER_C",
    "ORDER_FORTRAN",
    "SIGNED_CHAR",
    "WCHAR",
    "UNSIGNED_LONG_LONG",
    "C_COMPLEX",
    "C_LONG_DOUBLE_COMPLEX",
    "INTEGER1",
    "INTEGER2",
    "INTEGER4",
    "INTEGER8",
    "REAL2",
    "REAL4",
    "REAL8",
    "COMPLEX8",
    "COMPLEX16",
    "CXX_BOOL",
    "CXX_FLOAT_COMPLEX",
    "CXX_DOUBLE_COMPLEX",
    "FLOAT_INT",
    "DOUBLE_INT",
    "LONG_INT",
    "SHORT_INT",
    "TWOINT",
    "TWOREAL",
    "TWODOUBLE_PRECISION",
    "TWOINTEGER",
    *_WHATIF,
]


def __dir__() -> list[str]:
    """What a user reaches from here: ``__all__`` and the public sub-packages."""
    return sorted(set(__all__) | set(_SUBPACKAGES))
