"""Making one operation (MPI 4.1 §12.3): checked at the call, then on its way.

:func:`issue` is what every operation shares: the window and the target rank are checked,
the epoch that covers the target named (:mod:`.epochs`, MPI_ERR_RMA_SYNC when none), the
target location found in the target's memory (:mod:`.memory`, MPI_ERR_RMA_RANGE outside
it), the access recorded for the conflict check (:mod:`.conflicts`), and the operation sent
(:mod:`.operations`), after its lock's grant when the epoch asked for it lazily
(:mod:`.passive`). What it does at the target is the caller's ``act(memory, offset)``; what
comes back, ``at_origin(value)``. Every check is made at the call, so an error is raised
there, as MPI reports it, and nothing moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.port import RankPort
from ..mpi.constants import PROC_NULL
from ..mpi.errors import ErrRank
from .conflicts import Access
from .errors import ErrDisp, ErrWin
from .memory import Regions, span
from .operations import Operation, after, transfer
from .passive import grant_for
from .window import Window

__all__ = ["Target", "check_window", "issue", "target_rank"]


def check_window(win: Any, call: str) -> Any:
    """``win`` if it is a window not yet freed; MPI_ERR_WIN otherwise."""
    if not isinstance(win, Window):
        raise ErrWin(f"{call}: {win!r} is not a window")
    if win.freed:
        raise ErrWin(f"{call}: {win.name} was freed")
    return win


def target_rank(win: Any, rank: Any, call: str) -> int:
    """The world rank of window rank ``rank``; PROC_NULL as it is; MPI_ERR_RANK if it is
    no rank of the window."""
    if rank == PROC_NULL and not isinstance(rank, bool):
        return PROC_NULL
    if isinstance(rank, bool) or not isinstance(rank, int | np.integer) \
            or not 0 <= rank < win.size:
        raise ErrRank(f"{call}: {rank!r} is not a rank of {win.name} (size {win.size})")
    return win.world(int(rank))


class Target:
    """Where an operation lands: target rank, displacement, count and datatype (the
    origin's when the call gives none: :meth:`fill`)."""

    __slots__ = ("count", "datatype", "disp", "rank")

    def __init__(self, rank: int, disp: Any, count: int | None, datatype: Any) -> None:
        self.rank = rank        # a world rank
        self.disp = disp
        self.count = count
        self.datatype = datatype

    def fill(self, count: int, datatype: Any) -> int:
        """The origin's count and datatype, where the call gave none for the target; the
        target's count, now known."""
        filled = self.count = count if self.count is None else self.count
        if self.datatype is None:
            self.datatype = datatype
        return filled


def issue(rt: Any, port: RankPort, win: Any, call: str, where: Any, target: Target, nbytes: int,
          kind: str, act: Callable[[np.ndarray, int], Any], reply_bytes: int,
          at_origin: Callable[[Any], None] | None, reads: bool,
          op_name: str | None) -> Operation:
    """Check and send one operation (see the module); its :class:`Operation`."""
    world = target.rank
    epoch = win.epochs.check_access(call, world)
    disp = target.disp
    if isinstance(disp, bool) or not isinstance(disp, int | np.integer) or (
            disp < 0 and win.info.segments[world].__class__ is not Regions):
        raise ErrDisp(f"{call}: target displacement {disp!r} is not a non-negative integer")
    disp = int(disp)
    segment = win.segment(world)
    memory, offset = segment.locate(disp, target.count, target.datatype, call)
    op = Operation(win.name, call, win.me, world, nbytes, where, epoch,
                   win.epochs.fence_round)
    win.outgoing.setdefault(world, []).append(op)
    if epoch == "fence":
        win.info.members[world].watchers.append(op)
    count = target.count
    assert count is not None  # (filled by the operation's kind: rma/kinds.py)
    lo, hi = span(count, target.datatype)
    place = disp * segment.disp_unit
    op.access = Access(call, win.me, place + lo, place + hi, reads, op_name,
                       _epoch_key(win, epoch, world), where)
    rt.conflicts.record(win, world, op.access)
    earliest = rt.env._now + rt.overhead

    def go(when: float) -> None:
        transfer(rt, op, kind, when, win.info.progress, lambda: act(memory(), offset),
                 reply_bytes, at_origin)

    if epoch == "passive":
        op.gate = grant_for(rt, win, win.epochs.passive(world), world, earliest)
        after(rt.env, op.gate, earliest, go)
    else:
        go(earliest)
    return op


def _epoch_key(win: Any, epoch: str, target: int) -> tuple:
    """Which accesses an access may be concurrent with (see :mod:`.conflicts`)."""
    if epoch == "fence":
        return ("fence", win.epochs.fence_round)
    if epoch == "pscw":
        return ("pscw", target, win.epochs.start[target])
    return ("passive",)
