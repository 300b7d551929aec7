"""Windows (MPI 4.1 §12.2): what the members of a window share, and one member's handle.

MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared and MPI_Win_create_dynamic are
collective over a communicator; once every member has called, they share one
:class:`WindowInfo`: the group (world ranks, in the order of their ranks in the window), each
member's memory (:mod:`.memory`), the lock of each member's part (:mod:`.locks`), the posts
and completions of general active-target synchronization on their way, and an internal
communicator (a duplicate of the creating one, as MPICH makes) whose collective context
carries the fences' and the free's messages. Each member holds a :class:`Window` (MPI_Win):
its rank in the window, its epochs (:mod:`.epochs`), what it has issued and not yet
completed, and its name.

Whether a window's requests wait for the target to be inside MPI (profile settings
``rma_progress`` and ``rma_lock_progress``) is decided per window when it is made: windows
of MPI-allocated memory (allocate, shared) live in shared memory on one node, which the
origin reads and writes itself; windows over the program's own memory (create, dynamic) are
served by the target's MPI library (see :mod:`.progress`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from .constants import FLAVORS
from .epochs import Epochs
from .locks import Lock

__all__ = ["Mailbox", "Window", "WindowInfo"]

_EMPTY = np.zeros(0, dtype=np.uint8)


class Mailbox:
    """Notices from one process to another (a post to an origin, a completion to a target),
    each an arrival time with what it says, taken in the order they were sent."""

    __slots__ = ("boxes", "takers")

    def __init__(self) -> None:
        self.boxes: dict[tuple[int, int], deque[tuple[float, Any]]] = {}
        self.takers: dict[tuple[int, int], deque[Callable[[float, Any], None]]] = {}

    def send(self, key: tuple[int, int], arrival: float, what: Any = None) -> None:
        """A notice for ``key`` arriving at ``arrival``: to its first taker, else kept."""
        takers = self.takers.get(key)
        if takers:
            takers.popleft()(arrival, what)
            return
        self.boxes.setdefault(key, deque()).append((arrival, what))

    def take(self, key: tuple[int, int], taker: Callable[[float, Any], None]) -> None:
        """``taker(arrival, what)`` gets the first notice for ``key`` (now, or when sent)."""
        box = self.boxes.get(key)
        if box:
            taker(*box.popleft())
            return
        self.takers.setdefault(key, deque()).append(taker)

    def ready(self, key: tuple[int, int], now: float) -> bool:
        """Whether a notice for ``key`` has arrived by ``now``."""
        box = self.boxes.get(key)
        return box is not None and bool(box) and box[0][0] <= now

    def has(self, key: tuple[int, int]) -> bool:
        """Whether a notice for ``key`` was sent and not yet taken."""
        return bool(self.boxes.get(key))


class WindowInfo:
    """What every member's handle of one window shares."""

    __slots__ = ("comm", "dones", "flavor", "group", "index", "lock_progress", "locks",
                 "members", "name", "number", "posts", "progress", "segments")

    def __init__(self, number: int, flavor: int, group: tuple[int, ...],
                 segments: dict[int, Any], comm: Any, progress: bool,
                 lock_progress: bool) -> None:
        self.number = number
        self.name = f"win#{number}"
        self.flavor = flavor
        self.group = group
        self.index = {w: r for r, w in enumerate(group)}
        self.segments = segments      # world rank -> Segment or Regions
        self.comm = comm              # the internal communicator's CommInfo
        self.progress = progress      # requests wait for the target to be inside MPI
        self.lock_progress = lock_progress  # lock requests do
        self.locks: dict[int, Lock] = {}
        self.posts = Mailbox()        # MPI_Win_post's notices, (origin, target) -> arrivals
        self.dones = Mailbox()        # MPI_Win_complete's notices
        self.members: dict[int, Window] = {}  # world rank -> its handle

    def lock(self, target: int) -> Lock:
        """The lock of ``target``'s part of the window (made when first asked)."""
        found = self.locks.get(target)
        if found is None:
            found = self.locks[target] = Lock()
        return found

    def describe(self) -> str:
        return f"{self.name} ({FLAVORS[self.flavor]}, {len(self.group)} processes)"


class Window:
    """One member's handle of a window (MPI_Win): see the module.

    ``yield mpi.win_create(...)`` (or ``win_allocate``...) makes one; a program passes it
    as ``win=`` and reads ``memory``, ``size``, ``name``.

    Parameters
    ----------
    info
        What every member's handle of this window shares (its group, memory, epochs).
    me
        The world rank of the process holding the handle.
    comm
        The communicator the window was made over.
    """

    __slots__ = ("comm", "epochs", "fences", "freed", "hints", "info", "label", "me",
                 "outgoing", "rank", "rows", "watchers")

    def __init__(self, info: WindowInfo, me: int, comm: Any) -> None:
        self.info = info
        self.me = me                  # its world rank
        self.rank = info.index[me]    # its rank in the window
        self.comm = comm              # its handle of the internal communicator (a Comm)
        self.epochs = Epochs()
        self.fences = 0               # synchronizing collective calls made (message tags)
        self.freed = False
        self.label: str | None = None  # MPI_Win_set_name's
        self.hints: Any = None        # MPI_Win_set_info's
        self.outgoing: dict[int, list[Any]] = {}  # target -> operations not yet completed
        self.watchers: list[Any] = []  # operations targeting it in the current fence epoch
        self.rows: dict[Any, int] = {}  # its open epochs' rows in the trace

    @property
    def name(self) -> str:
        """What reports call it: the program's name for it, else ``win#k``."""
        return self.label or self.info.name

    @property
    def memory(self) -> Any:
        """This process's part of the window, as a flat numpy uint8 array (memory MPI
        allocates is made now, when first asked; a dynamic window's is empty: its memory is
        what the process attached)."""
        part = self.info.segments[self.me]
        return part.memory if hasattr(part, "memory") else _EMPTY

    @property
    def size(self) -> int:
        """How many processes share it."""
        return len(self.info.group)

    def world(self, rank: int) -> int:
        """The world rank of its rank ``rank``.

        Parameters
        ----------
        rank
            A rank in the window's group.
        """
        return self.info.group[rank]

    def segment(self, world: int) -> Any:
        """The memory of the member of world rank ``world``."""
        return self.info.segments[world]

    def pending(self, target: int | None = None) -> list[Any]:
        """Its operations not yet completed (to ``target``, or to any)."""
        if target is not None:
            return list(self.outgoing.get(target, ()))
        return [op for ops in self.outgoing.values() for op in ops]

    def forget(self, target: int | None = None) -> None:
        """The operations to ``target`` (or to any) are complete: stop tracking them."""
        if target is None:
            self.outgoing.clear()
        else:
            self.outgoing.pop(target, None)

    def __repr__(self) -> str:
        state = " (freed)" if self.freed else ""
        return f"<Window {self.name}: rank {self.rank} of {self.size}{state}>"
