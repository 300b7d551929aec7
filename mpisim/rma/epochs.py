"""Which epochs one process has open on one window, and the calls that may come next
(MPI 4.1 §12.5): every RMA call asks here first, and a call out of place is
MPI_ERR_RMA_SYNC, as MPICH 5.0.2 and Open MPI 5.0.11 report it (docs/guide/facts-rma.md).

- **Fence** (§12.5.1): after a fence without MPI_MODE_NOSUCCEED the window is *ready*; an
  operation makes the fence epoch *active* until the next fence. A lock, start or post on a
  ready window ends the fence epoch (both libraries accept Lock after a fence that no
  operation followed, and then refuse a Put until the next fence); on an active one it is
  MPI_ERR_RMA_SYNC.
- **Start/Complete, Post/Wait** (§12.5.2): an access epoch to a group of targets, an
  exposure epoch to a group of origins.
- **Lock/Unlock, Lock_all/Unlock_all** (§12.5.3): a passive-target access epoch per target,
  or to all; locking a target twice, or inside Lock_all, is MPI_ERR_RMA_SYNC (MPICH; Open
  MPI hangs).

An operation names the epoch it falls in (:meth:`Epochs.check_access`): passive (the target
is locked), PSCW (the target is in the start group) or fence; the conflict check and the
completion calls read which.
"""

from __future__ import annotations

from typing import Any

from .errors import ErrRmaSync

__all__ = ["ACTIVE", "NONE", "READY", "Epochs"]

NONE, READY, ACTIVE = 0, 1, 2
"""The fence states: no fence epoch, a fence passed (an operation would open one), open."""


class Epochs:
    """One process's epochs on one window."""

    __slots__ = ("fence", "fence_round", "lock_all", "locks", "post", "posts", "start")

    def __init__(self) -> None:
        self.fence = NONE
        self.fence_round = 0       # fences this process has made on the window
        self.start: dict[int, int] | None = None   # access group: target -> its post number
        self.post: tuple[int, ...] | None = None   # exposure group (world ranks)
        self.posts = 0             # posts this process has made (its exposure epochs)
        self.locks: dict[int, Any] = {}  # target -> its passive epoch (see passive.py)
        self.lock_all: Any = None        # the Lock_all epoch, if one is open

    # -- what is open ------------------------------------------------------------------------
    def passive(self, target: int) -> Any:
        """The passive-target epoch that covers ``target``, or None."""
        return self.locks.get(target) or self.lock_all

    def check_access(self, call: str, target: int) -> str:
        """The kind of access epoch an operation on ``target`` falls in ("passive", "pscw",
        "fence"); MPI_ERR_RMA_SYNC when none covers it."""
        if self.passive(target) is not None:
            return "passive"
        if self.start is not None:
            if target in self.start:
                return "pscw"
            raise ErrRmaSync(f"{call}: rank {target} is not in the group of the access epoch "
                             "MPI_Win_start opened (§12.5.2)")
        if self.fence != NONE:
            self.fence = ACTIVE
            return "fence"
        raise ErrRmaSync(f"{call} outside an access epoch: no fence, MPI_Win_start or lock "
                         f"covers rank {target} (§12.5)")

    def _leave_fence(self, call: str) -> None:
        """A lock, start or post: it ends a ready fence epoch, and may not open inside an
        active one."""
        if self.fence == ACTIVE:
            raise ErrRmaSync(f"{call} inside a fence epoch in which operations were made: "
                             "close it with MPI_Win_fence first (§12.5)")
        self.fence = NONE

    # -- fence -------------------------------------------------------------------------------
    def check_fence(self, call: str) -> None:
        if self.start is not None or self.post is not None:
            raise ErrRmaSync(f"{call} inside a start/complete or post/wait epoch (§12.5)")
        if self.locks or self.lock_all is not None:
            raise ErrRmaSync(f"{call} inside a passive-target (lock) epoch (§12.5)")

    def fenced(self, opens: bool) -> None:
        """A fence returned; ``opens``: it did not say MPI_MODE_NOSUCCEED."""
        self.fence_round += 1
        self.fence = READY if opens else NONE

    # -- start, complete, post, wait ---------------------------------------------------------
    def check_start(self, call: str) -> None:
        if self.start is not None:
            raise ErrRmaSync(f"{call} inside the access epoch of an earlier MPI_Win_start")
        if self.locks or self.lock_all is not None:
            raise ErrRmaSync(f"{call} inside a passive-target (lock) epoch (§12.5)")
        self._leave_fence(call)

    def check_complete(self, call: str) -> dict[int, int]:
        if self.start is None:
            raise ErrRmaSync(f"{call} without MPI_Win_start: no access epoch to complete")
        return self.start

    def check_post(self, call: str) -> None:
        if self.post is not None:
            raise ErrRmaSync(f"{call} inside the exposure epoch of an earlier MPI_Win_post")
        self._leave_fence(call)

    def check_wait(self, call: str) -> tuple[int, ...]:
        if self.post is None:
            raise ErrRmaSync(f"{call} without MPI_Win_post: no exposure epoch to end")
        return self.post

    # -- passive target ----------------------------------------------------------------------
    def check_lock(self, call: str, target: int) -> None:
        if self.lock_all is not None:
            raise ErrRmaSync(f"{call} of rank {target} inside MPI_Win_lock_all's epoch")
        if target in self.locks:
            raise ErrRmaSync(f"{call}: rank {target} is already locked by this process")
        if self.start is not None:
            raise ErrRmaSync(f"{call} inside the access epoch of MPI_Win_start (§12.5)")
        self._leave_fence(call)

    def check_lock_all(self, call: str) -> None:
        if self.lock_all is not None or self.locks:
            raise ErrRmaSync(f"{call} inside a passive-target (lock) epoch")
        if self.start is not None:
            raise ErrRmaSync(f"{call} inside the access epoch of MPI_Win_start (§12.5)")
        self._leave_fence(call)

    def check_unlock(self, call: str, target: int) -> Any:
        epoch = self.locks.get(target)
        if epoch is None:
            raise ErrRmaSync(f"{call}: rank {target} is not locked by this process")
        return epoch

    def check_unlock_all(self, call: str) -> Any:
        if self.lock_all is None:
            raise ErrRmaSync(f"{call} without MPI_Win_lock_all")
        return self.lock_all

    def check_flush(self, call: str, target: int | None) -> None:
        """Flushes complete passive-target operations: a passive epoch must cover the
        target (any target, for the _all forms)."""
        covered = (self.locks or self.lock_all is not None) if target is None \
            else self.passive(target) is not None
        if not covered:
            raise ErrRmaSync(f"{call} outside a passive-target (lock) epoch"
                             + ("" if target is None else f" of rank {target}"))

    def check_free(self, call: str) -> None:
        if self.start is not None or self.post is not None or self.locks \
                or self.lock_all is not None:
            raise ErrRmaSync(f"{call} with an epoch still open (§12.2.5: a process frees a "
                             "window after its RMA calls on it are complete)")
        if self.fence == ACTIVE:
            raise ErrRmaSync(f"{call} inside a fence epoch in which operations were made: "
                             "close it with MPI_Win_fence first")
