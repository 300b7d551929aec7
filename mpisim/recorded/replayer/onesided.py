"""Replaying one-sided communication (MPI 4.1 §12): one function per recorded call, as
:mod:`.program`'s.

A recording names windows by ids (``win=``, given when ``MPI_Win_create`` or
``MPI_Win_allocate`` returns), targets by their rank in the window's group, assertions and
lock types by name (``assert=nocheck,noprecede``, ``lt=X`` exclusive or ``S`` shared: the
libraries' values differ), an accumulate's operation by name (``op=SUM``), and the group of
``MPI_Win_post``/``MPI_Win_start`` by its members' ranks in the window's group (``grp=``).
The replay makes the same calls on mpisim's one-sided model, sizes only: a window of the
recorded size (a created one over zeroed bytes of its own, as a scenario's), operations of
the recorded counts and datatypes moving no data (mpisim times them, checks their epochs
and finds their conflicts). A ``MPI_Win_test`` that succeeded in the recording is a
``MPI_Win_wait`` (the program went on because it succeeded); one that failed, a poll.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ...collectives.ops import OPS
from ...rma.accumulate import NO_OP, REPLACE
from ...rma.constants import (
    LOCK_EXCLUSIVE,
    LOCK_SHARED,
    MODE_NOCHECK,
    MODE_NOPRECEDE,
    MODE_NOPUT,
    MODE_NOSTORE,
    MODE_NOSUCCEED,
)
from ..calls import Unsupported
from ..read.records import Call

__all__ = ["ONE_SIDED"]

Gen = Generator[Any, Any, None]

_MODES = {"nocheck": MODE_NOCHECK, "nostore": MODE_NOSTORE, "noput": MODE_NOPUT,
          "noprecede": MODE_NOPRECEDE, "nosucceed": MODE_NOSUCCEED}
_OPS = {**OPS, "REPLACE": REPLACE, "NO_OP": NO_OP}


def _assertion(r: Any, call: Call) -> int:
    """The recorded assertion (§12.5.5) as mpisim's bits."""
    bits = 0
    for name in str(call.args.get("assert", "0")).split(","):
        if name not in ("", "0") and name not in _MODES:
            raise _unsupported(call, f"assertion {name!r} is not one of {', '.join(_MODES)}")
        bits |= _MODES.get(name, 0)
    return bits


def _unsupported(call: Call, text: str) -> Exception:
    return Unsupported(f"{call.where()}: MPI_{call.name}: {text}")


def _window(r: Any, call: Call) -> Any:
    wid = call.args.get("win", 0)
    if wid not in r.wins:
        raise _unsupported(call, f"window {wid} was made by a call the recorder does not log "
                                 "(it logs MPI_Win_create and MPI_Win_allocate)")
    return r.wins[wid]


def _op(call: Call) -> Any:
    name = call.args.get("op", "SUM")
    if name not in _OPS:
        raise _unsupported(call, f"operation {name} (a user-defined one) is not replayed")
    return _OPS[name]


def make(r: Any, call: Call) -> Gen:
    """MPI_Win_create, MPI_Win_allocate: a window of the recorded size and unit."""
    a, mpi = call.args, r.mpi
    size, unit = int(a.get("size", 0)), int(a.get("du", 1))
    comm = r.comm(call)
    if call.name == "Win_create":
        made = yield mpi.win_create(np.zeros(size, dtype=np.uint8), size, unit, comm=comm)
    else:
        made = yield mpi.win_allocate(size, unit, comm=comm)
    if "win" in call.out:
        r.wins[call.out["win"]] = made


def free(r: Any, call: Call) -> Gen:
    yield r.mpi.win_free(_window(r, call))
    r.wins.pop(call.args.get("win", 0), None)


def operation(r: Any, call: Call) -> Gen:
    """MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
    MPI_Compare_and_swap of the recorded sizes (no data); the request-based forms
    (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate, §12.3.5) as their plain
    forms are, their request kept under the recording's id for the wait that completes it."""
    a, mpi = call.args, r.mpi
    win, datatype = _window(r, call), r.datatype(call, a.get("T", 0))
    where = {"target": a.get("tgt", 0), "target_disp": a.get("tdisp", 0), "win": win}
    name = call.name
    if name == "Fetch_and_op":
        yield mpi.fetch_and_op(datatype=datatype, op=_op(call), **where)
        return
    if name == "Compare_and_swap":
        yield mpi.compare_and_swap(datatype=datatype, **where)
        return
    kwargs = {"count": a.get("n", 0), "datatype": datatype, "target_count": a.get("tn"),
              "target_datatype": r.datatype(call, a["tT"]) if "tT" in a else None, **where}
    method = getattr(mpi, name.lower())
    if name in ("Get_accumulate", "Rget_accumulate"):
        kwargs.update(result_count=a.get("rn"), op=_op(call),
                      result_datatype=r.datatype(call, a.get("rT", 0)))
    elif name in ("Accumulate", "Raccumulate"):
        kwargs["op"] = _op(call)
    made = yield method(**kwargs)
    if name in _REQUESTS and "r" in call.out:
        r.reqs[call.out["r"]] = made


def synchronize(r: Any, call: Call) -> Gen:
    """Fence, lock and unlock (one target or all), flush, sync, post/start/complete/wait,
    test: the recorded call on the recorded window."""
    a, mpi, name = call.args, r.mpi, call.name
    win = _window(r, call)
    method = getattr(mpi, name.lower())
    if name in ("Win_post", "Win_start"):
        everyone = mpi.win_get_group(win)
        group = mpi.group_incl(everyone, a.get("grp", []))
        mpi.group_free(everyone)
        yield method(group, _assertion(r, call), win=win)
        mpi.group_free(group)  # MPI 4.1 §12.5.2: the window keeps what it needs
    elif name == "Win_test":
        yield (mpi.win_wait(win) if call.out.get("flag") == 1 or not call.returned
               else mpi.win_test(win))
    elif name == "Win_lock":
        yield mpi.win_lock(a.get("tgt", 0), LOCK_SHARED if a.get("lt") == "S"
                           else LOCK_EXCLUSIVE, _assertion(r, call), win=win)
    elif name in ("Win_unlock", "Win_flush", "Win_flush_local"):
        yield method(a.get("tgt", 0), win=win)
    elif name in ("Win_fence", "Win_lock_all"):
        yield method(_assertion(r, call), win=win)
    else:
        yield method(win=win)


_REQUESTS = ("Rput", "Rget", "Raccumulate", "Rget_accumulate")
"""The request-based operations (§12.3.5)."""
_SYNCS = ("Win_fence", "Win_lock", "Win_unlock", "Win_lock_all", "Win_unlock_all", "Win_flush",
          "Win_flush_all", "Win_flush_local", "Win_flush_local_all", "Win_sync", "Win_post",
          "Win_start", "Win_complete", "Win_wait", "Win_test")
ONE_SIDED: dict[str, Any] = {
    "Win_create": make, "Win_allocate": make, "Win_free": free,
    **dict.fromkeys(("Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op",
                     "Compare_and_swap", *_REQUESTS), operation),
    **dict.fromkeys(_SYNCS, synchronize),
}
"""The recorded calls this module replays, by name."""
