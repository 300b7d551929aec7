"""One-sided communication (MPI 4.1 §12): windows, their epochs, operations and the
conflicts between them, on the network model.

The ``mpi`` handle's calls (:mod:`mpisim.handle.rma`) check their arguments and call this
package: :mod:`.creation` (windows made and freed), :mod:`.access` and :mod:`.operations`
(an operation from the call to its completion), :mod:`.active` (fence, post/start/
complete/wait) and :mod:`.passive` (locks, flushes), over the window's state
(:mod:`.window`, :mod:`.memory`, :mod:`.epochs`, :mod:`.locks`); :mod:`.progress` decides
when a target serves a request, :mod:`.conflicts` finds concurrent conflicting accesses,
:mod:`.waits` tells the deadlock analysis what a blocked call waits for, :mod:`.record`
keeps the trace, :mod:`.runtime` holds a run's state.
"""

from .accumulate import NO_OP, REPLACE
from .constants import (
    LOCK_EXCLUSIVE,
    LOCK_MODES,
    LOCK_SHARED,
    MODE_NOCHECK,
    MODE_NOPRECEDE,
    MODE_NOPUT,
    MODE_NOSTORE,
    MODE_NOSUCCEED,
    PROGRESS_MODES,
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
)
from .errors import (
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
)
from .runtime import OneSided
from .window import Window

__all__ = ["LOCK_EXCLUSIVE", "LOCK_MODES", "LOCK_SHARED", "MODE_NOCHECK", "MODE_NOPRECEDE",
           "MODE_NOPUT", "MODE_NOSTORE", "MODE_NOSUCCEED", "NO_OP", "PROGRESS_MODES",
           "REPLACE", "WIN_BASE", "WIN_CREATE_FLAVOR", "WIN_DISP_UNIT", "WIN_FLAVOR_ALLOCATE",
           "WIN_FLAVOR_CREATE", "WIN_FLAVOR_DYNAMIC", "WIN_FLAVOR_SHARED", "WIN_MODEL",
           "WIN_SEPARATE", "WIN_SIZE", "WIN_UNIFIED", "ErrAssert", "ErrBase", "ErrDisp",
           "ErrLocktype", "ErrRmaAttach", "ErrRmaFlavor", "ErrRmaRange", "ErrRmaShared",
           "ErrRmaSync", "ErrSize", "ErrWin", "OneSided", "Window"]
