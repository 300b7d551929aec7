"""What a blocked RMA synchronization call waits for, as the deadlock analysis reads it.

A rank blocked in a call keeps what the call works on (:mod:`mpisim.handle.base`); for the
synchronization calls of MPI 4.1 §12.5 that is one of the objects below. Each answers the
analysis's two questions (:mod:`mpisim.runs.deadlock`): ``waits_for()``, the world ranks it
waits for (edges of the wait-for graph), and ``reason()``, in words; its ``cause`` is
:attr:`~mpisim.mpi.causes.Cause.ONE_SIDED`. So a fence that a member never makes names that
member, a start names the targets that never posted, a wait the origins that never
completed, and a lock the holder of the lock with the place it locked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.sites import site_text
from ..mpi.causes import Cause
from .constants import LOCK_EXCLUSIVE

__all__ = ["Collective", "Holders", "Missing", "Operations"]


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


class Collective:
    """A fence or a free: a barrier over the window's members (its internal channel)."""

    cause = Cause.ONE_SIDED

    def __init__(self, channel: Any, window: Any) -> None:
        self.channel = channel
        self.window = window

    def waits_for(self) -> list[int]:
        return self.channel.waits_for()

    def reason(self) -> str:
        missing = self.channel.entered.missing(self.channel.ctx, self.channel.tag,
                                               self.channel.comm.group)
        call = self.channel.call
        if missing:
            return (f"waits in {call} on {self.window.name} for the members that have not "
                    f"called it: {_ranks(missing)}")
        return f"waits in {call} on {self.window.name} for the other members"


class Missing:
    """A start waiting for posts, or a wait for completes: the ranks whose call has not
    come (``missing()`` gives them)."""

    cause = Cause.ONE_SIDED

    def __init__(self, call: str, awaited: str, window: Any,
                 missing: Callable[[], list[int]]) -> None:
        self.call = call
        self.awaited = awaited
        self.window = window
        self.missing = missing

    def waits_for(self) -> list[int]:
        return self.missing()

    def reason(self) -> str:
        return (f"waits in {self.call} on {self.window.name} for {self.awaited} of "
                f"{_ranks(self.missing())}, which never came")


class Holders:
    """A lock request that is not granted: the holders of the target's lock."""

    cause = Cause.ONE_SIDED

    def __init__(self, call: str, window: Any, targets: Callable[[], dict[int, Any]]) -> None:
        self.call = call
        self.window = window
        self.targets = targets  # target -> its Lock, for the targets still not granted

    def _held(self) -> list[tuple[int, int, int, Any]]:
        me = self.window.me
        return [(target, holder, lock_type, where)
                for target, lock in self.targets().items()
                for holder, (lock_type, where) in lock.blocking(me).items()]

    def _unserved(self) -> list[int]:
        """Targets no holder blocks: the lock request itself waits at the target, which
        serves it only inside MPI (and never in MPI_Finalize: mpisim.rma.progress)."""
        held = {target for target, _, _, _ in self._held()}
        return sorted(t for t in self.targets() if t not in held)

    def waits_for(self) -> list[int]:
        return sorted({holder for _, holder, _, _ in self._held()} | set(self._unserved()))

    def reason(self) -> str:
        held = self._held()
        unserved = self._unserved()
        if not held:
            if unserved:
                return (f"waits in {self.call} on {self.window.name} for {_ranks(unserved)} "
                        "to grant its lock: the profile serves lock requests only inside MPI, "
                        "and none in MPI_Finalize")
            return f"waits in {self.call} on {self.window.name} for a lock"
        parts = []
        for target, holder, lock_type, where in held:
            kind = "exclusive" if lock_type == LOCK_EXCLUSIVE else "shared"
            at = site_text(where)
            parts.append(f"rank {holder} holds rank {target}'s lock ({kind}"
                         + (f", locked at {at}" if at else "") + ") and never unlocks")
        return f"waits in {self.call} on {self.window.name} for a lock: " + "; ".join(parts)


class Operations:
    """A call completing operations (flush, unlock, complete): what keeps them waiting is
    a lock not yet granted (a lazy lock), else their targets."""

    cause = Cause.ONE_SIDED

    def __init__(self, call: str, window: Any, ops: list[Any],
                 locks: Callable[[], dict[int, Any]]) -> None:
        self.call = call
        self.window = window
        self.ops = ops
        self.holders = Holders(call, window, locks)

    def waits_for(self) -> list[int]:
        held = self.holders.waits_for()
        if held:
            return held
        return sorted({op.target for op in self.ops if op.remote.done_at is None})

    def reason(self) -> str:
        if self.holders.waits_for():
            return self.holders.reason()
        return (f"waits in {self.call} on {self.window.name} for its operations to "
                "complete at their targets")
