"""The constants of one-sided communication (MPI 4.1 §12), spelled as in MPI without the
``MPI_`` prefix; the values are MPICH's (programs compare against the names).

- window flavors (§12.2.6, the MPI_WIN_CREATE_FLAVOR attribute): how its memory came to be;
- memory models (§12.4): every window of mpisim is MPI_WIN_UNIFIED, its public and private
  copies one memory (the simulator keeps one copy of each byte);
- assertions (§12.5.5): hints a synchronization call may give; mpisim accepts every
  combination and takes only MODE_NOCHECK (a lock that asks nothing of the target) and
  MODE_NOSUCCEED (a fence that opens no epoch) into account;
- lock types (§12.5.3);
- the predefined attribute keys of a window (§12.2.6).
"""

from __future__ import annotations

__all__ = ["ATTRIBUTES", "FLAVORS", "LOCK_EXCLUSIVE", "LOCK_MODES", "LOCK_SHARED", "MODES",
           "MODE_NOCHECK", "MODE_NOPRECEDE", "MODE_NOPUT", "MODE_NOSTORE", "MODE_NOSUCCEED",
           "PROGRESS_MODES", "WIN_BASE", "WIN_CREATE_FLAVOR", "WIN_DISP_UNIT",
           "WIN_FLAVOR_ALLOCATE", "WIN_FLAVOR_CREATE", "WIN_FLAVOR_DYNAMIC", "WIN_FLAVOR_SHARED",
           "WIN_MODEL", "WIN_SEPARATE", "WIN_SIZE", "WIN_UNIFIED"]

WIN_FLAVOR_CREATE, WIN_FLAVOR_ALLOCATE, WIN_FLAVOR_DYNAMIC, WIN_FLAVOR_SHARED = 1, 2, 3, 4
"""MPI_WIN_FLAVOR_*: made by MPI_Win_create, MPI_Win_allocate, MPI_Win_create_dynamic,
MPI_Win_allocate_shared."""

FLAVORS = {WIN_FLAVOR_CREATE: "create", WIN_FLAVOR_ALLOCATE: "allocate",
           WIN_FLAVOR_DYNAMIC: "dynamic", WIN_FLAVOR_SHARED: "shared"}
"""Each flavor's short name, as reports print it."""

WIN_SEPARATE, WIN_UNIFIED = 1, 2
"""MPI_WIN_SEPARATE, MPI_WIN_UNIFIED (§12.4)."""

MODE_NOCHECK = 1024
MODE_NOSTORE = 2048
MODE_NOPUT = 4096
MODE_NOPRECEDE = 8192
MODE_NOSUCCEED = 16384
MODES = MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED
"""Every assertion bit (§12.5.5); an assertion with any other bit is MPI_ERR_ASSERT."""

LOCK_EXCLUSIVE, LOCK_SHARED = 234, 235
"""MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED (§12.5.3)."""

WIN_BASE, WIN_SIZE, WIN_DISP_UNIT, WIN_CREATE_FLAVOR, WIN_MODEL = (
    0x66000001, 0x66000003, 0x66000005, 0x66000007, 0x66000009)
"""The predefined attribute keys of a window (§12.2.6; MPICH's values)."""

ATTRIBUTES = {"WIN_BASE": WIN_BASE, "WIN_SIZE": WIN_SIZE, "WIN_DISP_UNIT": WIN_DISP_UNIT,
              "WIN_CREATE_FLAVOR": WIN_CREATE_FLAVOR, "WIN_MODEL": WIN_MODEL}

LOCK_MODES = ("eager", "lazy")
"""The profile setting ``rma_lock``: when MPI_Win_lock asks the target for its lock: at the
call, which returns with the grant (MPICH), or with the epoch's first operation, the call
returning at once (Open MPI)."""

PROGRESS_MODES = ("none", "created", "all")
"""The profile setting ``rma_progress``: the windows whose requests a target serves only
inside MPI: none (an ideal network, or RDMA hardware), those over the program's own memory
(MPI_Win_create, MPI_Win_create_dynamic: allocated windows are shared memory on one node,
which the origin reads and writes itself), or all."""
