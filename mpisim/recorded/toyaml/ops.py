"""The ops ``--to-yaml`` (:mod:`.toyaml`) writes, and the writers of one-sided communication
(MPI 4.1 §12) and MPI-IO (§14) calls.

A recording names windows and files by ids (``win=``, ``fh=``); a scenario by the name its
``win_create``/``win_allocate``/``file_open`` gives with ``as:``. Each window is written as
``wID`` and each file as ``fID`` (the recording's id: a rank's names match its log), and
every later call on it names it by ``win:`` or ``fh:``. Sizes, displacements, offsets,
counts and datatypes are the recorded ones.

What the grammar has no op for but says otherwise (as :mod:`.toyaml` writes MPI_Sendrecv):

- ``MPI_Rput``, ``MPI_Rget``, ``MPI_Raccumulate`` as ``put``, ``get``, ``accumulate``, and
  the wait or test that completes their request as nothing (MPI 4.1 §12.3.5: the request's
  completion is only local; the epoch's synchronization completes the operation either way);
- ``MPI_Win_flush_all`` as a ``win_flush`` of each target the rank holds a lock on (every rank
  of the window's group in a ``win_lock_all`` epoch);
- a split collective (``MPI_File_read_all_begin``... ``_end``) as its collective
  (``file_read_all``) at the ``_begin`` (§14.4.5: the pair is that collective, split);
- local queries that change nothing (``MPI_File_get_size``, ``MPI_File_get_position``...),
  ``MPI_Type_commit``/``MPI_Type_free`` (a derived type is written by its size, ``bytes``),
  and an ``MPI_File_delete`` that failed in the recording (it did nothing) as nothing.

A file's name is written as one in the working directory of the run (``/scratch/out.dat`` as
``scratch_out.dat``: ``..`` dropped, folders joined by ``_``, a ROMIO prefix such as ``ufs:``
left out), so that running the scenario never writes over the files the recorded program
used, and needs no folder it cannot make.

Refused, naming the call and its site: what the grammar cannot say (``MPI_Get_accumulate``,
``MPI_Fetch_and_op``, ``MPI_Compare_and_swap``, PSCW, ``MPI_Win_sync``, ``MPI_Win_flush_local``,
``MPI_File_seek`` (a scenario has no individual file pointer to move), a view of a derived
filetype, an access with a different target count or datatype, a file the program did not
create that existed before its open...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...rma.accumulate import ACCUMULATE_OPS
from ...rma.constants import (
    MODE_NOCHECK,
    MODE_NOPRECEDE,
    MODE_NOPUT,
    MODE_NOSTORE,
    MODE_NOSUCCEED,
)
from ..calls import DATATYPES_BY_MPI_NAME, handle_name, local_path
from ..read.records import Call, RankLog

__all__ = ["ONE_SIDED_AND_FILES", "Op", "refuse", "rma_request", "size_args", "with_comm"]

State = dict[Any, Any]
"""One rank's names as its calls are written: communicators by id, and tuples for the
rest (``("win", id)``, ``("file", id)``, ``("rma", request id)``, ``("locks", id)``...)."""


class Op:
    """One scenario op: its name and arguments (ints, names, or seconds for compute)."""

    __slots__ = ("args", "comment", "name")

    def __init__(self, name: str, args: Any, comment: str = "") -> None:
        """``args``: the op's arguments by name, or its one value (a compute's seconds)."""
        self.name, self.args, self.comment = name, args, comment

    def shape(self) -> tuple:
        """What must be equal for two ops to be one op of a loop (ints may vary)."""
        if self.name == "compute":
            return ("compute",)
        if not isinstance(self.args, dict):
            return (self.name, repr(self.args))
        return (self.name, tuple((k, "int" if type(v) is int else repr(v))
                                 for k, v in self.args.items()))


def refuse(call: Call, why: str) -> ValueError:
    """The error of a call the grammar cannot say: the call, its site, and why."""
    return ValueError(f"--to-yaml: {call.where()}: MPI_{call.name} {why} (replay the "
                      "recording instead)")


def size_args(log: RankLog, count: int, tid: int) -> dict[str, Any]:
    """``count`` elements of the recording's datatype ``tid``: the predefined type by name when
    mpisim has it (of the recorded size), else ``bytes``."""
    info = log.types.get(tid)
    if info is not None and info.name:
        known = DATATYPES_BY_MPI_NAME.get(info.name)
        if known is not None and known.size == info.size:
            return {"count": count, "datatype": info.name.removeprefix("MPI_")}
    return {"bytes": count * (info.size if info is not None else 1)}


def with_comm(args: dict[str, Any], call: Call, state: State) -> dict[str, Any]:
    """``args`` with the call's communicator by name (none for MPI_COMM_WORLD)."""
    cid = call.args.get("comm", 0)
    if cid not in state:
        raise ValueError(f"--to-yaml: {call.where()}: MPI_{call.name} uses a communicator "
                         "made by a call the recorder does not log")
    if state[cid] is not None:
        args["comm"] = state[cid]
    return args


def rma_request(state: State, rid: int) -> bool:
    """Whether request ``rid`` is a request-based RMA operation's (its completion is written
    as nothing: see the module)."""
    return ("rma", rid) in state


def _none(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    return []


# -- one-sided communication (§12) ---------------------------------------------------------
_MODES = {"nocheck": MODE_NOCHECK, "nostore": MODE_NOSTORE, "noput": MODE_NOPUT,
          "noprecede": MODE_NOPRECEDE, "nosucceed": MODE_NOSUCCEED}
"""The recording's assertion names (the libraries' bits differ) as the grammar's integer."""


def _window(call: Call, state: State) -> str:
    label = state.get(("win", call.args.get("win", 0)))
    if label is None:
        raise refuse(call, "uses a window made by a call the recorder does not log")
    return label


def _assertion(call: Call) -> int:
    bits = 0
    for name in str(call.args.get("assert", "0")).split(","):
        if name not in ("", "0") and name not in _MODES:
            raise refuse(call, f"has the assertion {name!r}, which mpisim does not know")
        bits |= _MODES.get(name, 0)
    return bits


def _group_size(log: RankLog, call: Call) -> int | None:
    cid = call.args.get("comm", 0)
    return {0: log.size, 1: 1}.get(cid, log.comms.get(cid, {}).get("size"))


def _make_window(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """MPI_Win_create, MPI_Win_allocate: ``as: wID`` (its group's size kept for flush_all)."""
    wid = call.out.get("win")
    if wid is None:
        raise refuse(call, "did not return a window in the recording")
    args: dict[str, Any] = {"size": int(call.args.get("size", 0)),
                            "disp_unit": int(call.args.get("du", 1))}
    with_comm(args, call, state)
    args["as"] = state[("win", wid)] = f"w{wid}"
    state[("size", wid)] = _group_size(log, call)
    return [Op(handle_name(call.name), args, note)]


def _operation(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """Put, Get, Accumulate and their request forms (see the module) of the recorded sizes."""
    a = call.args
    base = call.name.removeprefix("R").capitalize()  # Raccumulate -> Accumulate
    same_target = a.get("tn", a.get("n", 0)) == a.get("n", 0) and \
        log.types.get(a.get("tT", a.get("T", 0))) == log.types.get(a.get("T", 0))
    if not same_target:
        raise refuse(call, "has a target count or datatype of its own (the grammar's "
                           "operations give one count and datatype for both sides)")
    args = {"target": a.get("tgt", 0), "target_disp": a.get("tdisp", 0),
            **size_args(log, a.get("n", 0), a.get("T", 0)), "win": _window(call, state)}
    if base == "Accumulate":
        op = str(a.get("op", "SUM"))
        if f"MPI_{op}" not in ACCUMULATE_OPS:
            raise refuse(call, f"has the operation {op}, which the grammar has not")
        args["op"] = op
    if base != call.name:
        state[("rma", call.out.get("r", 0))] = True
        note = note or f"{call.where()}: MPI_{call.name}, its wait written as nothing"
    return [Op(handle_name(base), args, note)]


def _lock(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """Win_lock, Win_unlock, Win_flush: ``{target, win}`` (a lock its type and assertion);
    the targets locked kept for flush_all."""
    win, target = _window(call, state), call.args.get("tgt", 0)
    locked = state.setdefault(("locks", call.args.get("win", 0)), set())
    args: dict[str, Any] = {"target": target}
    if call.name == "Win_lock":
        locked.add(target)
        args["lock_type"] = "shared" if call.args.get("lt") == "S" else "exclusive"
        args["assertion"] = _assertion(call)
    elif call.name == "Win_unlock":
        locked.discard(target)
    args["win"] = win
    return [Op(handle_name(call.name), args, note)]


def _lock_all(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """Win_fence, Win_lock_all: ``{win, assertion}``; Win_unlock_all, Win_free: the window."""
    win, wid = _window(call, state), call.args.get("win", 0)
    if call.name == "Win_lock_all":
        state[("all", wid)] = True
    elif call.name == "Win_unlock_all":
        state.pop(("all", wid), None)
    if call.name in ("Win_fence", "Win_lock_all"):
        return [Op(handle_name(call.name), {"win": win, "assertion": _assertion(call)}, note)]
    if call.name == "Win_free":
        for key in ("win", "size", "locks", "all"):
            state.pop((key, wid), None)
    return [Op(handle_name(call.name), win, note)]


def _flush_all(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """Win_flush_all as a win_flush of each target locked (see the module)."""
    win, wid = _window(call, state), call.args.get("win", 0)
    if state.get(("all", wid)):
        size = state.get(("size", wid))
        if size is None:
            raise refuse(call, "is on a window whose group's size the recording does not give")
        targets = list(range(size))
    else:
        targets = sorted(state.get(("locks", wid), set()))
    comment = note or f"{call.where()}: MPI_Win_flush_all, a flush of each target locked"
    return [Op("win_flush", {"target": t, "win": win}, comment if i == 0 else "")
            for i, t in enumerate(targets)]


# -- MPI-IO (§14) ----------------------------------------------------------------------------
def _file(call: Call, state: State) -> str:
    label = state.get(("file", call.args.get("fh", 0)))
    if label is None:
        raise refuse(call, "uses a file not opened by a recorded MPI_File_open")
    return label


def _filename(call: Call) -> str:
    """The recorded name in the run's working directory, its folders joined by ``_`` into
    the name (a scenario has no op to make a folder): see the module."""
    return "_".join(local_path(Path(), str(call.args.get("name", ""))).parts)


def _open(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """MPI_File_open: ``{filename, amode, comm, as: fID}``."""
    fid, amode = call.out.get("fh"), str(call.args.get("amode", "RDONLY")).split(",")
    if fid is None:
        raise refuse(call, "did not open its file in the recording")
    name, was = _filename(call), int(call.args.get("was", -1))
    if (was > 0 or (was == 0 and "CREATE" not in amode)) and ("made", name) not in state:
        raise refuse(call, "opens a file that existed before the run (a scenario cannot "
                           "make its contents)")
    if any(not word.isalpha() for word in amode):
        raise refuse(call, f"has an access mode MPI does not name ({','.join(amode)})")
    if "CREATE" in amode:
        state[("made", name)] = True  # a later open of it in the run is of a file it made
    args: dict[str, Any] = {"filename": name, "amode": amode}
    with_comm(args, call, state)
    args["as"] = state[("file", fid)] = f"f{fid}"
    return [Op("file_open", args, note)]


def _delete(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """MPI_File_delete (one that failed in the recording did nothing: nothing)."""
    if call.error:
        return []
    state.pop(("made", _filename(call)), None)
    return [Op("file_delete", {"filename": _filename(call)}, note)]


def _on_file(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """Close, sync (the file's name); set_size, preallocate (``size``); seek_shared."""
    fh = _file(call, state)
    if call.name == "File_close":
        state.pop(("file", call.args.get("fh", 0)), None)
    if call.name in ("File_close", "File_sync"):
        return [Op(handle_name(call.name), fh, note)]
    if call.name == "File_seek_shared":
        args = {"fh": fh, "offset": int(call.args.get("off", 0)),
                "whence": str(call.args.get("whence", "SET"))}
        return [Op("file_seek_shared", args, note)]
    return [Op(handle_name(call.name), {"fh": fh, "size": int(call.args.get("size", 0))}, note)]


def _set_view(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """MPI_File_set_view of a predefined etype and filetype, native representation."""
    fh, a = _file(call, state), call.args
    etype, filetype = size_args(log, 1, a.get("eT", 0)), size_args(log, 1, a.get("fT", 0))
    if "datatype" not in filetype or "datatype" not in etype:
        raise refuse(call, "has a derived etype or filetype (the grammar's views take "
                           "predefined datatypes)")
    if str(a.get("rep", "native")) != "native":
        raise refuse(call, f"has the data representation {a.get('rep')!r} (the grammar's "
                           "views are native)")
    args = {"fh": fh, "disp": int(a.get("disp", 0)), "etype": etype["datatype"],
            "filetype": filetype["datatype"]}
    return [Op("file_set_view", args, note)]


def _access(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    """A read or write of the recorded count and datatype (``offset``, ``request``); a split
    collective's ``_begin`` as its collective."""
    a, name = call.args, call.name.removesuffix("_begin")
    args: dict[str, Any] = {"fh": _file(call, state)}
    if "off" in a:
        args["offset"] = int(a["off"])
    args.update(size_args(log, a.get("n", 0), a.get("T", 0)))
    if "r" in call.out:
        args["request"] = f"r{call.out['r']}"
    if name != call.name:
        note = note or f"{call.where()}: MPI_{call.name}, as its collective (its _end: nothing)"
    return [Op(handle_name(name), args, note)]


def _seek(log: RankLog, call: Call, state: State, note: str) -> list[Op]:
    raise refuse(call, "moves the individual file pointer, which the grammar has no op for")


_ACCESSES = tuple(f"File_{i}{verb}{form}" for i in ("", "i") for verb in ("read", "write")
                  for form in ("", "_at", "_all", "_at_all", "_shared"))
_SPLIT = tuple(f"File_{verb}{form}" for verb in ("read", "write")
               for form in ("_all", "_at_all", "_ordered"))

ONE_SIDED_AND_FILES: dict[str, Any] = {
    "Win_create": _make_window, "Win_allocate": _make_window,
    **dict.fromkeys(("Put", "Get", "Accumulate", "Rput", "Rget", "Raccumulate"), _operation),
    **dict.fromkeys(("Win_lock", "Win_unlock", "Win_flush"), _lock),
    **dict.fromkeys(("Win_fence", "Win_lock_all", "Win_unlock_all", "Win_free"), _lock_all),
    "Win_flush_all": _flush_all,
    "File_open": _open, "File_delete": _delete, "File_set_view": _set_view,
    **dict.fromkeys(("File_close", "File_sync", "File_set_size", "File_preallocate",
                     "File_seek_shared"), _on_file),
    **dict.fromkeys((*_ACCESSES, "File_read_ordered", "File_write_ordered",
                     *(f"{s}_begin" for s in _SPLIT)), _access),
    **dict.fromkeys((*(f"{s}_end" for s in _SPLIT), "File_get_size", "File_get_position",
                     "File_get_position_shared", "Type_commit", "Type_free"), _none),
    "File_seek": _seek,
}
"""The writers of the one-sided and MPI-IO calls the grammar can say (see the module); the
other calls of §12 and §14 are refused by :mod:`.toyaml` as having no op."""
