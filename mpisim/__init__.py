"""mpisim: a discrete-event simulator of MPI buffered communication.

Run a rank program (a generator taking the ``mpi`` handle) with :func:`run`; everything a user
needs is reachable from this one namespace (``import mpisim as ms``). The documentation site
(``docs/``) has the user guide, the API reference and the contract.
"""

import importlib
from typing import TYPE_CHECKING

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
from .engine.trace import Trace
from .mpi.attributes import KEYVAL_INVALID
from .mpi.comm import Comm, Session
from .mpi.constants import (
    ANY_SOURCE,
    ANY_TAG,
    BOTTOM,
    BUFFER_AUTOMATIC,
    COMM_TYPE_HW_GUIDED,
    COMM_TYPE_HW_UNGUIDED,
    COMM_TYPE_RESOURCE_GUIDED,
    COMM_TYPE_SHARED,
    IN_PLACE,
    PROC_NULL,
    ROOT,
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
    ErrDims,
    ErrGroup,
    ErrInfo,
    ErrKeyval,
    ErrOp,
    ErrOther,
    ErrRank,
    ErrRequest,
    ErrRoot,
    ErrTag,
    ErrTopology,
    ErrTruncate,
    ErrType,
    MPIError,
)
from .mpi.group import CONGRUENT, IDENT, SIMILAR, UNEQUAL, Group
from .mpi.info import Info
from .mpi.topology import CART, DIST_GRAPH, GRAPH
from .p2p.network import Network
from .p2p.requests import Request, Status
from .profiles.library import PROFILES as _PROFILES
from .profiles.library import MPIConfig
from .rma import (  # one-sided communication (MPI 4.1 §12)
    LOCK_EXCLUSIVE,
    LOCK_SHARED,
    MODE_NOCHECK,
    MODE_NOPRECEDE,
    MODE_NOPUT,
    MODE_NOSTORE,
    MODE_NOSUCCEED,
    NO_OP,
    REPLACE,
    WIN_BASE,
    WIN_CREATE_FLAVOR,
    WIN_DISP_UNIT,
    WIN_FLAVOR_ALLOCATE,
    WIN_FLAVOR_CREATE,
    WIN_FLAVOR_DYNAMIC,
    WIN_FLAVOR_SHARED,
    WIN_MODEL,
    WIN_SEPARATE,
    WIN_SIZE,
    WIN_UNIFIED,
    ErrAssert,
    ErrBase,
    ErrDisp,
    ErrLocktype,
    ErrRmaAttach,
    ErrRmaFlavor,
    ErrRmaRange,
    ErrRmaShared,
    ErrRmaSync,
    ErrSize,
    ErrWin,
    Window,
)
from .runs.result import Outcome, Result
from .runs.simulation import Simulation, run
from .runs.threads import (  # the threads of a rank: threading's primitives, simulated
    Barrier,
    BoundedSemaphore,
    Condition,
    Event,
    Lock,
    Queue,
    RLock,
    Semaphore,
)

BSEND_OVERHEAD: int = _PROFILES["standard"].bsend_overhead
"""MPI_BSEND_OVERHEAD of the ``standard`` profile; ``mpi.BSEND_OVERHEAD`` in a program is
the value in force for its run (MPICH 96, Open MPI 128)."""

_WHATIF = ("sweep", "min_buffer", "min_buffer_per_rank", "check_safe", "check_races",
           "compare_profiles")
_SUBPACKAGES = ("collectives", "plot", "scenario", "whatif", "mpi4py",
                "recorded")  # imported on first use

if TYPE_CHECKING:  # what __getattr__ gives, as a type checker sees it (``as``: re-exported)
    from . import collectives as collectives
    from . import mpi4py as mpi4py
    from . import plot as plot
    from . import recorded as recorded
    from . import scenario as scenario
    from . import whatif as whatif
    from .mpi4py import run_mpi4py as run_mpi4py
    from .recorded import replay as replay
    from .scenario import load as load_scenario
    from .whatif import check_races as check_races
    from .whatif import check_safe as check_safe
    from .whatif import compare_profiles as compare_profiles
    from .whatif import min_buffer as min_buffer
    from .whatif import min_buffer_per_rank as min_buffer_per_rank
    from .whatif.explorer import explore as explore
    from .whatif.sweep import sweep as sweep


def __getattr__(name: str) -> object:
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

__all__ = [  # grouped as the imports above, in their order; then what is imported on first use
    # ._version
    "__version__",
    # .collectives.ops
    "BAND", "BOR", "BXOR", "LAND", "LOR", "LXOR", "MAX", "MAXLOC", "MIN", "MINLOC", "PROD", "SUM",
    "Op",
    # .engine.trace
    "Trace",
    # .mpi.attributes
    "KEYVAL_INVALID",
    # .mpi.comm
    "Comm", "Session",
    # .mpi.constants
    "ANY_SOURCE", "ANY_TAG", "BOTTOM", "BUFFER_AUTOMATIC", "COMM_TYPE_HW_GUIDED",
    "COMM_TYPE_HW_UNGUIDED", "COMM_TYPE_RESOURCE_GUIDED", "COMM_TYPE_SHARED", "IN_PLACE",
    "PROC_NULL", "ROOT", "TAG_UB", "UNDEFINED",
    # .mpi.datatypes
    "AINT", "BYTE", "C_BOOL", "C_COMPLEX", "C_DOUBLE_COMPLEX", "C_FLOAT_COMPLEX",
    "C_LONG_DOUBLE_COMPLEX", "CHAR", "CHARACTER", "COMPLEX", "COMPLEX8", "COMPLEX16", "COUNT",
    "CXX_BOOL", "CXX_DOUBLE_COMPLEX", "CXX_FLOAT_COMPLEX", "DOUBLE", "DOUBLE_COMPLEX",
    "DOUBLE_INT", "DOUBLE_PRECISION", "FLOAT", "FLOAT_INT", "INT", "INT8_T", "INT16_T", "INT32_T",
    "INT64_T", "INTEGER", "INTEGER1", "INTEGER2", "INTEGER4", "INTEGER8", "LOGICAL", "LONG",
    "LONG_DOUBLE", "LONG_INT", "LONG_LONG", "OFFSET", "ORDER_C", "ORDER_FORTRAN", "PACKED", "REAL",
    "REAL2", "REAL4", "REAL8", "SHORT", "SHORT_INT", "SIGNED_CHAR", "TWODOUBLE_PRECISION",
    "TWOINT", "TWOINTEGER", "TWOREAL", "UINT8_T", "UINT16_T", "UINT32_T", "UINT64_T", "UNSIGNED",
    "UNSIGNED_CHAR", "UNSIGNED_LONG", "UNSIGNED_LONG_LONG", "UNSIGNED_SHORT", "WCHAR", "Datatype",
    "datatype_of",
    # .mpi.errors
    "ErrArg", "ErrBuffer", "ErrComm", "ErrCount", "ErrDims", "ErrGroup", "ErrInfo", "ErrKeyval",
    "ErrOp", "ErrOther", "ErrRank", "ErrRequest", "ErrRoot", "ErrTag", "ErrTopology",
    "ErrTruncate", "ErrType", "MPIError",
    # .mpi.group
    "CONGRUENT", "IDENT", "SIMILAR", "UNEQUAL", "Group",
    # .mpi.info
    "Info",
    # .mpi.topology
    "CART", "DIST_GRAPH", "GRAPH",
    # .p2p.network
    "Network",
    # .p2p.requests
    "Request", "Status",
    # .profiles.library
    "MPIConfig",
    # .rma
    "LOCK_EXCLUSIVE", "LOCK_SHARED", "MODE_NOCHECK", "MODE_NOPRECEDE", "MODE_NOPUT",
    "MODE_NOSTORE", "MODE_NOSUCCEED", "NO_OP", "REPLACE", "WIN_BASE", "WIN_CREATE_FLAVOR",
    "WIN_DISP_UNIT", "WIN_FLAVOR_ALLOCATE", "WIN_FLAVOR_CREATE", "WIN_FLAVOR_DYNAMIC",
    "WIN_FLAVOR_SHARED", "WIN_MODEL", "WIN_SEPARATE", "WIN_SIZE", "WIN_UNIFIED", "ErrAssert",
    "ErrBase", "ErrDisp", "ErrLocktype", "ErrRmaAttach", "ErrRmaFlavor", "ErrRmaRange",
    "ErrRmaShared", "ErrRmaSync", "ErrSize", "ErrWin", "Window",
    # .runs.result
    "Outcome", "Result",
    # .runs.simulation
    "Simulation", "run",
    # .runs.threads
    "Barrier", "BoundedSemaphore", "Condition", "Event", "Lock", "Queue", "RLock", "Semaphore",
    # defined here
    "BSEND_OVERHEAD",
    # imported on first use (__getattr__ above)
    *_WHATIF, "explore", "run_mpi4py", "replay", "load_scenario",
]


def __dir__() -> list[str]:
    """What a user reaches from here: ``__all__`` and the public sub-packages."""
    return sorted(set(__all__) | set(_SUBPACKAGES))
