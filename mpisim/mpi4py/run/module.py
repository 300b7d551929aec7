"""The ``mpi4py`` and ``mpi4py.MPI`` module objects of the stand-in.

:func:`modules` builds them once per process: ``MPI`` holds the constants, datatypes, ops,
classes and module-level functions (buffer attach/detach/flush, Wtime, addresses,
Init/Finalize, versions, errors). A name the stand-in does not offer raises
:class:`~.exceptions.Unsupported` (a NotImplementedError naming it and pointing at the table
of supported calls), so a script fails at its first unsupported call with a clear message.
``MPI.BSEND_OVERHEAD`` is the value of the run's profile, read when the script asks.
"""

from __future__ import annotations

import os
import types
from typing import Any

from ..._version import __version__
from ...handle.access import config_of
from ...mpi import addresses as _addr
from ...mpi.attributes import KEYVAL_INVALID, PREDEFINED
from ...mpi.constants import (
    ANY_SOURCE,
    ANY_TAG,
    BOTTOM,
    BUFFER_AUTOMATIC,
    COMM_TYPE_HW_GUIDED,
    COMM_TYPE_HW_UNGUIDED,
    COMM_TYPE_RESOURCE_GUIDED,
    COMM_TYPE_SHARED,
    PROC_NULL,
    UNDEFINED,
)
from ...mpi.datatypes import ORDER_C, ORDER_FORTRAN
from ...mpi.errors import MPIError
from ...mpi.group import CONGRUENT, IDENT, SIMILAR, UNEQUAL
from ...mpi.topology import CART, DIST_GRAPH, GRAPH
from .. import util as _util
from ..bridge import RankContext, current
from ..datatypes.datatype import CONSTANTS as _DATATYPE_CONSTANTS
from ..datatypes.datatype import DATATYPES, Datatype, typealign, typecode
from ..exceptions import CODES, ERR_LASTCODE, Exception, as_exception, error_string, unsupported
from ..MPI import comm as _comm
from ..MPI.buffers import attach, detach, flush, iflush
from ..MPI.collective import IN_PLACE
from ..MPI.dynamic import Close_port, Lookup_name, Open_port, Publish_name, Unpublish_name
from ..MPI.errhandler import (
    ERRHANDLER_NULL,
    ERRORS_ABORT,
    ERRORS_ARE_FATAL,
    ERRORS_RETURN,
    Errhandler,
)
from ..MPI.file import NAMES as _FILE_NAMES
from ..MPI.group import GROUP_EMPTY, GROUP_NULL, Group
from ..MPI.info import INFO_ENV, INFO_NULL, Info
from ..MPI.message import MESSAGE_NO_PROC, MESSAGE_NULL, Message
from ..MPI.op import OPS, Op
from ..MPI.request import REQUEST_NULL, Prequest, Request, Status
from ..MPI.topology import UNWEIGHTED, WEIGHTS_EMPTY, Compute_dims
from ..MPI.win import NAMES as _WIN_NAMES
from ..msgbuffer.membuffer import buffer
from ..msgbuffer.p2p import located
from ..msgbuffer.pickle import Pickle
from ..util import dtlib, pkl5

__all__ = ["MPI_VERSION", "modules", "submodules"]

MPI_VERSION = (4, 1)
"""The MPI standard version the stand-in follows (MPI.Get_version)."""

THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE = 0, 1, 2, 3


# -- environment ---------------------------------------------------------------------------
def Init() -> None:
    """MPI_Init: an error once MPI is initialized (mpi4py initializes it on import, unless
    ``mpi4py.rc.initialize = False``); else the rank is given ``MPI_THREAD_SINGLE``."""
    Init_thread(THREAD_SINGLE)


def Init_thread(required: int = THREAD_MULTIPLE) -> int:
    """MPI_Init_thread (§11.2.1): an error once MPI is initialized; after ``mpi4py.rc.
    initialize = False`` the level asked for, as MPICH 5.0.2 gives it."""
    ctx = current()
    init_level(ctx)
    if ctx.state.get("thread_level") != _DEFERRED:
        raise Exception("MPI_Init_thread: MPI is already initialized (mpi4py initializes it "
                        "on import; MPI_INIT or MPI_INIT_THREAD may be called once)", None,
                        "MPI_ERR_OTHER")
    return _initialize(ctx, required)


_LEVELS = {"single": THREAD_SINGLE, "funneled": THREAD_FUNNELED,
           "serialized": THREAD_SERIALIZED, "multiple": THREAD_MULTIPLE}
_DEFERRED = "deferred"
"""The thread level of a rank whose script set ``mpi4py.rc.initialize = False``: it calls
MPI.Init or MPI.Init_thread itself."""


def init_level(ctx: RankContext) -> int:
    """MPI_Init_thread as mpi4py calls it when a rank's script first imports
    ``mpi4py.MPI``: the level ``mpi4py.rc.thread_level`` names (``"multiple"`` unless the
    script set another; ``rc.threads = False``: MPI_Init, ``MPI_THREAD_SINGLE``), given as
    the profile's library gives it (MPICH 5.0.2 and Open MPI give the level asked for);
    kept on the rank's handle (``mpi.query_thread()``). Once per rank: later calls answer
    the level kept. With ``rc.initialize = False`` nothing is initialized yet: the script's
    own MPI.Init or MPI.Init_thread does it."""
    provided = ctx.state.get("thread_level")
    if provided is None:
        rc = modules()["mpi4py"].rc
        if not getattr(rc, "initialize", True):
            ctx.state["thread_level"] = _DEFERRED
            return int(ctx.mpi.query_thread())
        asked = str(getattr(rc, "thread_level", "multiple")).lower() \
            if getattr(rc, "threads", True) else "single"
        provided = _initialize(ctx, _LEVELS.get(asked, THREAD_MULTIPLE))
    elif provided == _DEFERRED:
        return int(ctx.mpi.query_thread())
    return int(provided)


def _initialize(ctx: RankContext, level: int) -> int:
    """The rank's MPI_Init_thread(``level``): the level provided, kept."""
    try:
        provided = ctx.mpi.init_thread(level)
    except MPIError as e:
        if not isinstance(level, int) or not THREAD_SINGLE <= level <= THREAD_MULTIPLE:
            raise as_exception(e) from None
        provided = ctx.mpi.query_thread()  # a call came first (a script that imported MPI
        # otherwise, or called MPI before its own MPI_Init)
    ctx.state["thread_level"] = provided
    return int(provided)


def Finalize() -> None:
    ctx = current()
    if ctx.finalized:
        raise Exception("MPI_Finalize called twice", None, "MPI_ERR_OTHER")
    ctx.finalized = True


def Is_initialized() -> bool:
    ctx = current()
    init_level(ctx)
    return ctx.state.get("thread_level") != _DEFERRED


def Is_finalized() -> bool:
    return current().finalized


def Query_thread() -> int:
    """MPI_Query_thread (§11.6.2): the level the rank was given (:func:`init_level`)."""
    return init_level(current())


def Is_thread_main() -> bool:
    """MPI_Is_thread_main (§11.6.2): whether the calling simulated thread is the rank's
    main thread (its script, not a ``threading.Thread`` it started)."""
    ctx = current()
    init_level(ctx)
    return bool(ctx.mpi.is_thread_main())


def Get_version() -> tuple[int, int]:
    return MPI_VERSION


def Get_library_version() -> str:
    mpi = current().mpi
    return (f"mpisim {__version__} (simulated MPI {MPI_VERSION[0]}.{MPI_VERSION[1]}, "
            f"profile {config_of(mpi).profile.name}): mpi4py stand-in")


def get_vendor() -> tuple[str, tuple[int, int, int]]:
    parts = [int(x) for x in __version__.split(".")[:3] if x.isdigit()]
    major, minor, patch = (*parts, 0, 0, 0)[:3]
    return "mpisim", (major, minor, patch)


def Get_processor_name() -> str:
    return f"mpisim-rank-{current().mpi.rank}"


def Wtime() -> float:
    """Simulated time, in seconds."""
    return float(current().mpi.now)


def Wtick() -> float:
    return 1e-9


def Get_error_class(errorcode: int) -> int:
    return errorcode


def Get_error_string(errorcode: int) -> str:
    return error_string(errorcode)


def Alloc_mem(size: int, info: Any = None) -> buffer:
    """MPI_Alloc_mem: an ``MPI.buffer`` of ``size`` bytes (its ``address`` and ``nbytes``
    as mpi4py's; Detach_buffer gives the same object back)."""
    return buffer.allocate(size)


def Free_mem(mem: Any) -> None:
    return None


# -- addresses (4.1.5) ---------------------------------------------------------------------
def Get_address(location: Any) -> int:
    if location is None or location is BOTTOM:
        return 0  # MPI_BOTTOM
    arr = located(location)
    try:
        return current().plain().get_address(arr)
    except MPIError as e:
        raise as_exception(e) from None


def Aint_add(base: int, disp: int) -> int:
    return _addr.aint_add(base, disp)


def Aint_diff(addr1: int, addr2: int) -> int:
    return _addr.aint_diff(addr1, addr2)


# -- the modules ---------------------------------------------------------------------------
_NAMES: dict[str, Any] = {
    "ANY_SOURCE": ANY_SOURCE, "ANY_TAG": ANY_TAG, "PROC_NULL": PROC_NULL,
    "UNDEFINED": UNDEFINED, "ROOT": -3, "BOTTOM": BOTTOM, "IN_PLACE": IN_PLACE,
    "BUFFER_AUTOMATIC": BUFFER_AUTOMATIC, "ORDER_C": ORDER_C, "ORDER_FORTRAN": ORDER_FORTRAN,
    "ORDER_F": ORDER_FORTRAN, "THREAD_SINGLE": THREAD_SINGLE,
    "THREAD_FUNNELED": THREAD_FUNNELED, "THREAD_SERIALIZED": THREAD_SERIALIZED,
    "THREAD_MULTIPLE": THREAD_MULTIPLE, "VERSION": MPI_VERSION[0],
    "SUBVERSION": MPI_VERSION[1], "SUCCESS": 0, "ERR_LASTCODE": ERR_LASTCODE,
    "COMM_WORLD": _comm.COMM_WORLD, "COMM_SELF": _comm.COMM_SELF,
    "COMM_NULL": _comm.COMM_NULL, "REQUEST_NULL": REQUEST_NULL, "Comm": _comm.Comm,
    "Intracomm": _comm.Intracomm, "Topocomm": _comm.Topocomm, "Cartcomm": _comm.Cartcomm,
    "Graphcomm": _comm.Graphcomm, "Distgraphcomm": _comm.Distgraphcomm,
    "CART": CART, "GRAPH": GRAPH, "DIST_GRAPH": DIST_GRAPH, "UNWEIGHTED": UNWEIGHTED,
    "WEIGHTS_EMPTY": WEIGHTS_EMPTY, "Compute_dims": Compute_dims,
    "Intercomm": _comm.Intercomm, "Group": Group, "GROUP_NULL": GROUP_NULL,
    "GROUP_EMPTY": GROUP_EMPTY, "IDENT": IDENT, "CONGRUENT": CONGRUENT, "SIMILAR": SIMILAR,
    "UNEQUAL": UNEQUAL,
    "Info": Info, "INFO_NULL": INFO_NULL, "INFO_ENV": INFO_ENV,
    "KEYVAL_INVALID": KEYVAL_INVALID, "COMM_TYPE_SHARED": COMM_TYPE_SHARED,
    "COMM_TYPE_HW_GUIDED": COMM_TYPE_HW_GUIDED, "COMM_TYPE_HW_UNGUIDED": COMM_TYPE_HW_UNGUIDED,
    "COMM_TYPE_RESOURCE_GUIDED": COMM_TYPE_RESOURCE_GUIDED,
    **{name: keyval for name, keyval in PREDEFINED.items() if name != "HOST"},
    "Request": Request, "Prequest": Prequest,
    "Status": Status, "Datatype": Datatype, "Op": Op, "Exception": Exception,
    "Message": Message, "MESSAGE_NULL": MESSAGE_NULL, "MESSAGE_NO_PROC": MESSAGE_NO_PROC,
    "Attach_buffer": attach, "Detach_buffer": detach, "Flush_buffer": flush,
    "Iflush_buffer": iflush, "pickle": Pickle(), "Errhandler": Errhandler,
    "ERRORS_RETURN": ERRORS_RETURN, "ERRORS_ARE_FATAL": ERRORS_ARE_FATAL,
    "ERRORS_ABORT": ERRORS_ABORT, "ERRHANDLER_NULL": ERRHANDLER_NULL,
}
_NAMES.update({name[4:]: code for name, code in CODES.items() if name.startswith("MPI_ERR")})
_NAMES.update(DATATYPES)
_NAMES.update(_DATATYPE_CONSTANTS)
_NAMES.update(_typecode=typecode, _typealign=typealign, buffer=buffer, memory=buffer,
              Pickle=Pickle)
_NAMES.update(OPS)
_NAMES.update(_WIN_NAMES)  # MPI.Win, its constants, MPI.REPLACE and MPI.NO_OP (§12)
_NAMES.update(_FILE_NAMES)  # MPI.File, MPI.FILE_NULL, MPI.MODE_*, MPI.SEEK_* (§14)
_FUNCTIONS = (Open_port, Close_port, Publish_name, Unpublish_name, Lookup_name,
              Init, Init_thread, Finalize, Is_initialized, Is_finalized, Query_thread,
              Is_thread_main, Get_version, Get_library_version, get_vendor,
              Get_processor_name, Wtime, Wtick, Get_error_class, Get_error_string, Alloc_mem,
              Free_mem, Get_address, Aint_add, Aint_diff)
_NAMES.update({f.__name__: f for f in _FUNCTIONS})


def _mpi_getattr(name: str) -> Any:
    if name == "BSEND_OVERHEAD":
        return current().mpi.BSEND_OVERHEAD
    if name.startswith("__"):
        raise AttributeError(name)
    raise unsupported("MPI", name)


class Rc:
    """``mpi4py.rc``, as mpi4py's (``import mpi4py.rc`` too): its options, an unknown one
    a TypeError. The stand-in reads ``threads`` and ``thread_level`` when the script
    imports ``mpi4py.MPI`` (:func:`init_level`); the others are kept and not read."""

    initialize = True
    threads = True
    thread_level = "multiple"
    finalize = None
    fast_reduce = True
    recv_mprobe = True
    irecv_bufsz = 32768
    errors = "exception"

    def __init__(self, **kwargs: Any) -> None:
        self(**kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        if not hasattr(self, name):
            raise TypeError(f"object has no attribute {name!r}")
        super().__setattr__(name, value)

    def __call__(self, **kwargs: Any) -> None:
        for key in kwargs:
            if not hasattr(self, key):
                raise TypeError(f"unexpected argument {key!r}")
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return "<mpi4py.rc>"


_MODULES: dict[str, Any] = {}


def modules() -> dict[str, types.ModuleType]:
    """``{"mpi4py": ..., "mpi4py.MPI": ...}``: the stand-in modules (one pair per process)."""
    if not _MODULES:
        mpi = types.ModuleType("mpi4py.MPI", "mpisim's stand-in for mpi4py.MPI (simulated).")
        mpi.__dict__.update(_NAMES)
        mpi.__dict__["__getattr__"] = _mpi_getattr
        pkg = types.ModuleType("mpi4py", "mpisim's stand-in for mpi4py (simulated MPI).")
        pkg.__path__ = []  # a package: `import mpi4py.MPI` works, other submodules do not
        # (a directory that does not exist, as mpi4py's tests read ``mpi4py.__path__[0]``;
        # nothing is ever found there)
        pkg.__path__.append(os.path.join(os.path.dirname(__file__), "mpi4py-stand-in"))
        pkg.__dict__["__version__"] = "4.1.2"
        pkg.MPI = mpi  # type: ignore[attr-defined]
        pkg.util = _util_package()  # type: ignore[attr-defined]
        pkg.rc = Rc()  # type: ignore[attr-defined]
        _MODULES.update({"mpi4py": pkg, "mpi4py.MPI": mpi, "mpi4py.rc": pkg.rc})
    return _MODULES


def submodules() -> dict[str, types.ModuleType]:
    """The stand-in's submodules of ``mpi4py.MPI``'s level a script imports on demand:
    ``mpi4py.util`` and its ``pkl5`` and ``dtlib`` (``mpi4py.futures``, which stands on
    them, adds its own: :func:`.futures.modules`)."""
    return {"mpi4py.util": _util_package(), "mpi4py.util.pkl5": pkl5,
            "mpi4py.util.dtlib": dtlib}


_UTIL: list[types.ModuleType] = []


def _util_package() -> types.ModuleType:
    """``mpi4py.util`` as a script sees it: a package named so, holding pkl5 and dtlib,
    so that ``from mpi4py.util import pool`` asks the stand-in's finder (which refuses it
    by name)."""
    if not _UTIL:
        package = types.ModuleType("mpi4py.util", _util.__doc__)
        package.__path__ = []
        package.pkl5, package.dtlib = pkl5, dtlib  # type: ignore[attr-defined]
        _UTIL.append(package)
    return _UTIL[0]
