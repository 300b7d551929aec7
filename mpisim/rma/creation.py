"""Making and freeing windows (MPI 4.1 §12.2), and attaching memory to dynamic ones.

The four creation calls are collective over an intracommunicator, matched with the other
collective creations made on it in the order each member calls them (as communicators are,
:meth:`mpisim.mpi.comm.Communicators.agree`): each member waits for the others, then gets
its :class:`~mpisim.rma.window.Window` after an allgather's time (the members exchange their
bases, sizes and displacement units: ``ceil(log2 p)`` latencies, as for a communicator).

- create: the program's own memory (a numpy array; ``size`` bytes of it, all by default);
- allocate: ``size`` bytes MPI allocates, zeroed (made on first use, see :mod:`.memory`);
- allocate_shared: one allocation for all members, each member's part after the previous
  one's (contiguous, §12.2.3), which MPI_Win_shared_query gives to any member; the members
  must share a node (``ranks_per_node``), else MPI_ERR_RMA_SHARED;
- create_dynamic: no memory until the member attaches some (MPI_Win_attach, local).

MPI_Win_free is collective too (a barrier over the window's internal communicator, as
MPICH's): it returns once every member has called it, and the window is unusable after.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
from simpy.events import Event

from ..collectives.algorithms import Args
from ..engine.clock import fire_at, pending
from ..engine.port import RankPort
from ..mpi.comm import Comm
from ..mpi.errors import ErrComm, MPIError
from .active import barrier, synchronizing
from .constants import WIN_FLAVOR_DYNAMIC, WIN_FLAVOR_SHARED
from .errors import ErrRmaShared
from .memory import Regions, Segment
from .window import Window, WindowInfo

__all__ = ["create", "free"]


def create(rt: Any, port: RankPort, call: str, comm: Any, flavor: int, memory: np.ndarray | None,
           size: int, disp_unit: int, hints: Any) -> Event:
    """One member's part of a window's creation (see the module): yields its Window."""
    parent = port.comm(comm)
    if parent.is_inter:
        raise ErrComm(f"{call}: {parent.name} is an intercommunicator; windows are made over "
                      "an intracommunicator (§12.2)")
    env = rt.env
    rt.serving()  # from the first window on, the run tracks who computes
    key = (parent.context, parent.calls)
    parent.calls += 1
    members = tuple(parent.group)
    ev = pending(env)

    def made(result: Any) -> None:
        if isinstance(result, MPIError):
            fire_at(ev, env._now, result, ok=False)
        else:
            fire_at(ev, env._now + rt.comms.rounds_time(len(members)), result)

    waiting = rt.comms.agree(key, call, members, port.rank, (flavor, memory, size, disp_unit,
                                                            hints),
                             made, lambda args: _build(rt, parent, call, flavor, args))
    port.enter(call, obj=waiting)
    return ev


def _build(rt: Any, parent: Comm, call: str, flavor: int,
           args: dict[int, tuple]) -> dict[int, Any]:
    """Every member's Window, once all have called (or the error each gets)."""
    members = tuple(parent.group)
    flavors = {a[0] for a in args.values()}
    if flavors != {flavor}:
        error = ErrComm(f"{call}: the members of {parent.name} called different window "
                        "creations at this point (collective calls must match, §6.1)")
        return {w: error for w in members}
    try:
        segments = _segments(rt, flavor, members, args, call)
    except MPIError as e:
        return {w: e for w in members}
    rt.created += 1
    internal = rt.comms.dup(parent)({w: None for w in members})
    cinfo = internal[members[0]][0]
    info = WindowInfo(rt.created, flavor, members, segments, cinfo, rt.needs_mpi(flavor),
                      rt.lock_progress)
    cinfo.name = info.name
    windows = {w: Window(info, w, Comm(cinfo, cinfo.rank_of(w))) for w in members}
    for w, win in windows.items():
        hints = args[w][4]
        win.hints = hints.dup() if hasattr(hints, "dup") else hints
    info.members = windows
    return windows


def _segments(rt: Any, flavor: int, members: tuple[int, ...], args: dict[int, tuple],
              call: str) -> dict[int, Any]:
    if flavor == WIN_FLAVOR_DYNAMIC:
        return {w: Regions() for w in members}
    if flavor == WIN_FLAVOR_SHARED:
        return _shared(rt, members, args, call)
    return {w: Segment(args[w][1], args[w][2], args[w][3]) for w in members}


def _shared(rt: Any, members: tuple[int, ...], args: dict[int, tuple],
            call: str) -> dict[int, Any]:
    """One allocation, each member's part after the previous member's (§12.2.3)."""
    rpn = rt.net.ranks_per_node
    nodes = {w // rpn for w in members} if rpn else {0}
    if len(nodes) > 1:
        raise ErrRmaShared(f"{call}: ranks {list(members)} are on {len(nodes)} nodes "
                           f"(ranks_per_node {rpn}); only processes of one node can share "
                           "memory")
    sizes = [args[w][2] for w in members]
    whole = np.zeros(sum(sizes), dtype=np.uint8)
    out, start = {}, 0
    for w, size in zip(members, sizes, strict=True):
        out[w] = Segment(whole[start:start + size], size, args[w][3])
        start += size
    return out


def free(rt: Any, port: RankPort, win: Any, call: str) -> Event:
    """MPI_Win_free: collective; the window is unusable once it returns."""
    win.epochs.check_free(call)
    channel = synchronizing(rt, port, win, call, 2 * win.fences + 1)
    return rt.env.process(_freed(rt, win, channel))


def _freed(rt: Any, win: Any, channel: Any) -> Generator[Any, Any, None]:
    yield from barrier(rt)(channel, Args())
    win.freed = True
