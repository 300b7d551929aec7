"""The lock of one process's part of a window (MPI 4.1 §12.5.3).

MPI_Win_lock gives an origin shared or exclusive access to one target's window: any number
of shared holders, or one exclusive holder. :class:`Lock` is that lock as the target keeps
it: it grants a request at once when it is compatible with the holders and nobody waits
before it, and otherwise queues it; a release grants the queue from its head, first come
first served (a shared request behind a waiting exclusive one waits too, so an exclusive
request is never starved). A request the lock cannot grant while its holder never unlocks
is what the deadlock analysis reports: the waiting origin, and the holder with the place it
locked.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from .constants import LOCK_EXCLUSIVE

__all__ = ["Lock"]


class Lock:
    """One target's lock of one window: its holders and the requests waiting."""

    __slots__ = ("holders", "queue")

    def __init__(self) -> None:
        self.holders: dict[int, tuple[int, Any]] = {}  # origin -> (lock type, where)
        self.queue: deque[tuple[int, int, Any, Callable[[], None]]] = deque()

    def _fits(self, lock_type: int) -> bool:
        if not self.holders:
            return True
        if lock_type == LOCK_EXCLUSIVE:
            return False
        return all(t != LOCK_EXCLUSIVE for t, _ in self.holders.values())

    def request(self, origin: int, lock_type: int, where: Any,
                granted: Callable[[], None]) -> None:
        """``origin`` asks for the lock; ``granted()`` is called when it holds it (now, or
        at the release that lets it in)."""
        if not self.queue and self._fits(lock_type):
            self.holders[origin] = (lock_type, where)
            granted()
        else:
            self.queue.append((origin, lock_type, where, granted))

    def release(self, origin: int) -> None:
        """``origin`` unlocks: the waiting requests that now fit are granted, in order."""
        self.holders.pop(origin, None)
        while self.queue and self._fits(self.queue[0][1]):
            waiting, lock_type, where, granted = self.queue.popleft()
            self.holders[waiting] = (lock_type, where)
            granted()

    def blocking(self, origin: int) -> dict[int, tuple[int, Any]]:
        """The holders that keep ``origin``'s queued request waiting (or, if it waits
        behind another request, that request's holders too): whom it waits for."""
        return {o: held for o, held in self.holders.items() if o != origin}
