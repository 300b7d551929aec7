"""``mpisim replay run.trace --to-yaml``: a recording as a scenario file to edit and share.

Each rank's recorded calls become its ``programs`` entry, in the scenario grammar; ranks
whose programs come out the same share one entry (``ranks: [0, 2]``), and a rank's program
written the same as another's up to ``(rank + k) % size`` in its peers is written once with
that expression. Repetitions become loops where that is simple: a block of up to
``MAX_BLOCK`` ops repeated at least twice in a row, whose integer arguments are the same in
every repetition or grow by the same step (``tag: 3 + i``), is ``loop: {times, var,
ops}``; the compute time of a folded op is the mean of its repetitions. Folding is repeated
over its own result, so nested loops nest (a block of loops and ops repeated is an outer
loop; its loops must be the same in every repetition; variables ``i``, ``j``, ``k``... from
the outside in). Ops that name requests fold only when they name the same request in every
repetition (persistent requests; nonblocking calls' names differ from one to the next).

What the scenario grammar has no op for is written as its equivalent: ``MPI_Sendrecv`` as
``isend`` + ``irecv`` + ``waitall``; a test or iprobe that succeeded in the recording as a
wait or probe (as the replay does); a v or w collective with its counts per rank as a list;
a persistent request (``MPI_Send_init``... ``MPI_Recv_init``) as the nonblocking call each
``MPI_Start`` makes of it (MPI 4.1 §3.9: a started persistent send or receive is as the
nonblocking one), under one request name, its ``MPI_Request_free`` as nothing. A call the
grammar cannot say (a neighbourhood collective, an intercommunicator...) is refused, naming
the call and where it was made. One-sided and MPI-IO calls are written by
:mod:`.toyaml_ops` (windows and files named ``as:``, then ``win:`` / ``fh:``).
A recorded error (MPI_ERRORS_RETURN) cannot be caught by a
scenario: a comment says where the recording went on after one.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ...mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from ..calls import (
    BUFFERS,
    COLLECTIVES,
    COMM_BUFFERS,
    COMMS,
    COMPLETIONS,
    DATA_ARGS,
    HANDLE,
    PERSISTENT,
    PROBES,
    RECEIVES,
    RECV_ARGS,
    SEND_ARGS,
    SENDRECVS,
    SENDS,
    VECTORS,
    handle_args,
    handle_name,
)
from ..library import library_name as _library
from ..read.records import Call, RankLog
from ..read.trace import MADE_AS_SPLIT
from .ops import ONE_SIDED_AND_FILES, refuse, rma_request
from .ops import Op as _Op
from .ops import size_args as _size
from .ops import with_comm as _with_comm

__all__ = ["MAX_BLOCK", "scenario_text", "write_yaml"]

MAX_BLOCK = 8
"""The longest block of ops recognised as a loop body."""


def scenario_text(scenario: Any) -> str:
    """The YAML text of the recording behind ``scenario`` (a ReplayScenario)."""
    trace, scale = scenario.trace, scenario.params.get("compute_scale", 1.0)
    programs = [_fold(_ops(log, scale)) for log in trace.ranks]
    lines = [f"name: {scenario.name}",
             "description: >-",
             f"  Recorded from a real run ({_library(trace.library)}, {trace.outcome()}) and "
             "written by mpisim replay --to-yaml.",
             f"ranks: {trace.size}",
             "programs:"]
    for ranks, ops in _group(programs, trace.size):
        lines.append(f"  - ranks: {_ranks(ranks)}")
        lines.append("    ops:" if ops else "    ops: []")
        lines += _render(ops, 6, trace.size)
    return "\n".join(lines) + "\n"


def write_yaml(scenario: Any, target: str) -> str | None:
    """Write the scenario to ``target`` ("-": stdout; a file whole or not at all)."""
    text = scenario_text(scenario)
    if target == "-":
        print(text, end="")
        return None
    directory = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mpisim-", suffix=".yaml", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except OSError as e:
        raise ValueError(f"--to-yaml {target}: {e.strerror or e}") from None
    return target


# -- calls to ops ----------------------------------------------------------------------------
def _ops(log: RankLog, scale: float) -> list[_Op]:
    ops: list[_Op] = []
    comms = {0: None, 1: "self"}
    for call in log.calls:
        if call.thread:  # (the writer writes a rank's calls as one sequence of ops)
            raise refuse(call, "was made by a second thread of its process: a threaded "
                         "recording is not written as a scenario yet")
        if call.gap * scale > 0 and call.name != "Init":
            if ops and ops[-1].name == "compute":  # a call with no op between: one compute
                ops[-1].args += call.gap * scale
            else:
                ops.append(_Op("compute", call.gap * scale))
        ops += _call_ops(log, call, comms)
        if not call.returned:
            break
    return ops


def _peer(value: int) -> Any:
    return {ANY_SOURCE: "ANY_SOURCE", PROC_NULL: "PROC_NULL"}.get(value, value)


def _tag(value: int) -> Any:
    return "ANY_TAG" if value == ANY_TAG else value


def _call_ops(log: RankLog, call: Call, comms: dict[int, Any]) -> list[_Op]:
    write = _WRITERS.get(call.name)
    if write is None:
        raise refuse(call, "has no op in the scenario grammar")
    note = f"{call.where()}: returned {call.error} in the recording" if call.error else ""
    return write(log, call, comms, note)


def _op_args(log: RankLog, call: Call, comms: dict[int, Any],
             params: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A call's arguments (:func:`.calls.handle_args`) as an op writes them: peers and tags by
    name where they are wildcards, the size as count + datatype or bytes, the request the
    call makes, its communicator by name."""
    given = handle_args(call, params)
    args: dict[str, Any] = {}
    for param, value in given.items():
        if param in ("dest", "source"):
            args[param] = _peer(value)
        elif param == "tag":
            args[param] = _tag(value)
        elif param == "count":
            args.update(_size(log, value, given["datatype"]))
        elif param == "root":
            args[param] = value
    if "request" in HANDLE[call.name].binds:
        args["request"] = f"r{call.out.get('r', 0)}"
    return _with_comm(args, call, comms)


def _none(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    return []


def _p2p(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """A send or a receive: its op, of the same name."""
    return [_Op(handle_name(call.name), _op_args(log, call, comms), note)]


def _sendrecv(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """MPI_Sendrecv[_replace]: isend + irecv + waitall (the same two request names every
    time: they are complete before the next)."""
    a = handle_args(call, SENDRECVS[call.name])
    replace = _size(log, a["count"], a["datatype"]) if "count" in a else None  # one buffer
    send = {"dest": _peer(a["dest"]), "tag": a["sendtag"],
            **(replace or _size(log, a["sendcount"], a["sendtype"])), "request": "sendrecv_s"}
    recv = {"source": _peer(a["source"]), "tag": _tag(a["recvtag"]),
            **(replace or _size(log, a["recvcount"], a["recvtype"])), "request": "sendrecv_r"}
    return [_Op("isend", _with_comm(send, call, comms), f"{call.where()}: MPI_{call.name}"),
            _Op("irecv", _with_comm(recv, call, comms)),
            _Op("waitall", {"requests": ["sendrecv_s", "sendrecv_r"]})]


def _probe(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """A probe; an iprobe that found a message (or never returned) as a probe."""
    op = "probe" if call.name == "Probe" or call.out.get("flag") == 1 or not call.returned \
        else "iprobe"
    return [_Op(op, _op_args(log, call, comms), note)]


def _buffer(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """Attach, detach or flush of the process's buffer, or with ``comm:`` a communicator's."""
    args: dict[str, Any] = {}
    process_form = COMM_BUFFERS.get(call.name, call.name)
    if process_form == "Buffer_attach":
        size = call.args.get("size", 0)
        args["size"] = "BUFFER_AUTOMATIC" if size == "auto" else size
    if call.name in COMM_BUFFERS:
        _with_comm(args, call, comms)
    return [_Op(handle_name(process_form), args, note)]


def _comm(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """Comm_dup, Comm_split, and the makers of MADE_AS_SPLIT as the split that makes their
    communicator; Comm_free."""
    name, a, out = call.name, call.args, call.out
    if name == "Comm_free":
        label = comms.get(a.get("comm", 0))
        comms.pop(a.get("comm", 0), None)
        return [_Op("comm_free", label or "world", note)]
    new = out.get("new", -1)
    label = f"c{new}" if new >= 0 else "comm_null"  # left out: MPI_COMM_NULL
    args: dict[str, Any] = {"as": label}
    if name != "Comm_dup":
        color, key = call.split()
        args = {"color": "UNDEFINED" if color == UNDEFINED else color, "key": key, **args}
    _with_comm(args, call, comms)
    if new >= 0:
        comms[new] = label
    if name in MADE_AS_SPLIT:
        note = note or f"{call.where()}: MPI_{name}, as the split that makes its communicator"
    return [_Op("comm_dup" if name == "Comm_dup" else "comm_split", args, note)]


def _collective(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """A collective's op; a v or w form's counts per rank as a list (``sendcounts``,
    ``recvcounts``: a derived datatype's in bytes), Alltoallw's types as ``sendtypes``."""
    name = handle_name(call.name)
    if call.name in ("Barrier", "Ibarrier") or name.endswith("alltoallw"):
        args = _op_args(log, call, comms, ("comm",))
    else:
        args = _op_args(log, call, comms, DATA_ARGS)
    counts = call.args.get("ns")
    if call.name in VECTORS and counts is not None:
        key = "recvcounts" if name.endswith("reduce_scatter") else "sendcounts"
        tids = call.args.get("Ts") or [call.args.get("T", 0)] * len(counts)
        sized = [_size(log, n, t) for n, t in zip(counts, tids, strict=False)]
        named = all("datatype" in x for x in sized)
        for gone in ("count", "bytes", "datatype"):
            args.pop(gone, None)
        args[key] = [x["count"] if named else x["bytes"] for x in sized]
        types = [x["datatype"] if named else "BYTE" for x in sized]
        if name.endswith("alltoallw"):
            args["sendtypes"] = types if len(set(types)) > 1 else types[0] if types else "BYTE"
        else:
            args["datatype"] = types[0] if types else "BYTE"
        if "request" in args:  # written last, as the other ops write it
            args["request"] = args.pop("request")
    return [_Op(name, args, note)]


def _completion(log: RankLog, call: Call, comms: dict[int, Any], note: str) -> list[_Op]:
    """A wait, or a test that found nothing (a success is a wait, as the replay does)."""
    ids = [f"r{rid}" if rid and not rma_request(comms, rid) else "" for rid in
           call.args.get("r", [])]
    name, out = call.name, call.out
    succeeded = name.startswith("Wait") or out.get("flag") == 1 or bool(out.get("done"))
    if name in ("Waitany", "Testany") and call.returned:
        index = out.get("index", -1)
        ids = [ids[index]] if 0 <= index < len(ids) else []
    elif name in ("Waitsome", "Testsome") and out.get("done"):
        ids = [ids[i] for i in out["done"] if 0 <= i < len(ids)]
    ids = [rid for rid in ids if rid]  # null requests, and RMA ones (see .toyaml_ops)
    if not ids:
        return []
    if succeeded or not call.returned:
        return [_Op("wait", ids[0])] if len(ids) == 1 else [_Op("waitall", {"requests": ids})]
    return [_Op("test", ids[0])] if len(ids) == 1 else [_Op("testall", {"requests": ids})]


def _persistent(log: RankLog, call: Call, comms: dict[Any, Any], note: str) -> list[_Op]:
    """MPI_Send_init... MPI_Recv_init: nothing yet; each MPI_Start makes its nonblocking
    call (kept under the request's id)."""
    base = call.name.removesuffix("_init")
    params = RECV_ARGS if base in RECEIVES else SEND_ARGS
    args = _op_args(log, call, comms, params)
    rid = call.out.get("r")
    args["request"] = f"r{rid}"
    comms[("persistent", rid)] = _Op(f"i{handle_name(base)}", args,
                                     f"{call.where()}: MPI_{call.name}, started")
    return []


def _start(log: RankLog, call: Call, comms: dict[Any, Any], note: str) -> list[_Op]:
    """MPI_Start/MPI_Startall of persistent requests: their nonblocking calls."""
    ops: list[_Op] = []
    for rid in call.args.get("r", []):
        made = comms.get(("persistent", rid))
        if made is None:
            raise ValueError(f"--to-yaml: {call.where()}: MPI_{call.name} starts a request "
                             "made by a call the recorder does not log")
        ops.append(_Op(made.name, dict(made.args), made.comment if not ops else ""))
    return ops


def _request_free(call: Call, comms: dict[Any, Any]) -> list[_Op]:
    """MPI_Request_free: of a persistent request, nothing (its starts are written as
    nonblocking calls); of a nonblocking one, ``request_free``."""
    return [_Op("request_free", f"r{rid}") for rid in call.args.get("r", [])
            if ("persistent", rid) not in comms]


_WRITERS: dict[str, Any] = {
    **dict.fromkeys(("Init", "Finalize", "Comm_set_errhandler"), _none),
    # groups are local (MPI 4.1 §7.3): a communicator made of one is written as its split
    **dict.fromkeys(("Comm_group", "Group_incl", "Group_excl", "Group_free"), _none),
    **dict.fromkeys((*SENDS, *RECEIVES), _p2p), **dict.fromkeys(SENDRECVS, _sendrecv),
    **dict.fromkeys(PROBES, _probe),
    **dict.fromkeys((*COMPLETIONS, "Testany", "Testsome"), _completion),
    **dict.fromkeys((*BUFFERS, *(c for c, p in COMM_BUFFERS.items() if p in BUFFERS)), _buffer),
    **dict.fromkeys((*COMMS, *MADE_AS_SPLIT), _comm),
    **dict.fromkeys(("Barrier", *COLLECTIVES), _collective),
    **dict.fromkeys(PERSISTENT, _persistent), "Start": _start, "Startall": _start,
    "Request_free": lambda log, call, comms, note: _request_free(call, comms),
    **ONE_SIDED_AND_FILES,
}
"""The ops of each recorded call the scenario grammar can say (the others are refused)."""


# -- loops -------------------------------------------------------------------------------------
class _Loop:
    __slots__ = ("body", "times")

    def __init__(self, times: int, body: list[Any]) -> None:
        self.times, self.body = times, body


class _Step:
    """An integer argument of a loop's body that grows with the loop's variable:
    ``first + step * VAR``, VAR named when written (by the loop's depth)."""

    __slots__ = ("first", "step")

    def __init__(self, first: int, step: int) -> None:
        self.first, self.step = first, step

    def __repr__(self) -> str:
        return f"_Step({self.first}, {self.step})"

    def text(self, var: str) -> str:
        """``first + step * var`` written simply: ``i``, ``3 + i``, ``2 * i``, ``8 - i``."""
        term = var if abs(self.step) == 1 else f"{abs(self.step)} * {var}"
        if self.first == 0:
            return term if self.step > 0 else f"-{term}"
        return f"{self.first} {'+' if self.step > 0 else '-'} {term}"


VARS = "ijklmn"
"""Loop variables from the outermost loop in (deeper loops reuse the last)."""


def _fold(ops: list[Any]) -> list[Any]:
    """Loops of repeated blocks, folded again over the result until nothing changes (so
    nested repetitions become nested loops)."""
    while True:
        folded = _fold_once(ops)
        if len(folded) == len(ops):
            return folded
        ops = folded


def _fold_once(ops: list[Any]) -> list[Any]:
    out: list[Any] = []
    i = 0
    while i < len(ops):
        best = (1, 1)
        for length in range(1, MAX_BLOCK + 1):
            times = _repeats(ops, i, length)
            if times >= 2 and times * length > best[0] * best[1]:
                best = (times, length)
        times, length = best
        if times >= 2:
            out.append(_loop(ops[i:i + times * length], times, length))
            i += times * length
        else:
            out.append(ops[i])
            i += 1
    return out


def _key(item: Any) -> tuple:
    """What must be equal for two items to be one item of a loop: an op's shape (its ints
    may vary), a loop's count and its body exactly (compute times aside)."""
    if isinstance(item, _Loop):
        return ("loop", item.times, tuple(_exact(x) for x in item.body))
    return item.shape()


def _exact(item: Any) -> Any:
    if isinstance(item, _Loop):
        return _key(item)
    if item.name == "compute":
        return ("compute",)
    return (item.name, repr(item.args))


def _repeats(ops: list[Any], start: int, length: int) -> int:
    first = ops[start:start + length]
    if len(first) < length or all(isinstance(o, _Op) and o.name == "compute" for o in first):
        return 0
    shapes = [_key(o) for o in first]
    times = 1
    steps: list[dict[str, int]] | None = None
    while True:
        block = ops[start + times * length:start + (times + 1) * length]
        if len(block) < length or [_key(o) for o in block] != shapes:
            return times
        if steps is None:
            steps = [_diff(b, f) for b, f in zip(block, first, strict=True)]
        elif any(_diff(b, f) != {k: v * times for k, v in s.items()}
                 for b, f, s in zip(block, first, steps, strict=True)):
            return times
        times += 1


def _diff(op: Any, first: Any) -> dict[str, int]:
    if isinstance(op, _Loop) or op.name == "compute" or not isinstance(op.args, dict):
        return {}
    return {k: v - first.args[k] for k, v in op.args.items() if type(v) is int}


def _loop(ops: list[Any], times: int, length: int) -> _Loop:
    body: list[Any] = []
    for j in range(length):
        first = ops[j]
        if isinstance(first, _Loop):
            body.append(_Loop(first.times, _mean_computes(
                [ops[j + t * length].body for t in range(times)])))
            continue
        if first.name == "compute":
            mean = sum(ops[j + t * length].args for t in range(times)) / times
            body.append(_Op("compute", mean))
            continue
        if not isinstance(first.args, dict):
            body.append(first)
            continue
        step = _diff(ops[j + length], first)
        args = {k: (_Step(v, step[k]) if step.get(k) else v) for k, v in first.args.items()}
        notes = [ops[j + t * length].comment for t in range(times)]
        body.append(_Op(first.name, args, "; ".join(dict.fromkeys(n for n in notes if n))))
    return _Loop(times, body)


# -- ranks -----------------------------------------------------------------------------------
def _group(programs: list[list[Any]], size: int) -> list[tuple[list[int], list[Any]]]:
    """Ranks whose programs are written the same (peers on MPI_COMM_WORLD as
    ``(rank + k) % size``; compute times ignored, their mean kept), in order of their first
    rank. A rank alone keeps its literal peers and times."""
    groups: dict[str, list[tuple[int, list[Any]]]] = {}
    for rank, ops in enumerate(programs):
        relative = _relative(ops, rank, size)
        groups.setdefault(_skeleton(relative), []).append((rank, relative))
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(([members[0][0]], programs[members[0][0]]))
        else:
            out.append(([r for r, _ in members], _mean_computes([ops for _, ops in members])))
    return out


_PEERS = ("dest", "source", "root")


def _relative(ops: list[Any], rank: int, size: int) -> list[Any]:
    out: list[Any] = []
    for op in ops:
        if isinstance(op, _Loop):
            out.append(_Loop(op.times, _relative(op.body, rank, size)))
        elif isinstance(op.args, dict) and "comm" not in op.args:
            args = dict(op.args)
            for key in ("dest", "source"):
                if type(args.get(key)) is int:
                    k = (args[key] - rank) % size
                    args[key] = "rank" if k == 0 else f"(rank + {k}) % size"
            out.append(_Op(op.name, args, ""))
        else:
            out.append(_Op(op.name, op.args, ""))
    return out


def _skeleton(ops: list[Any]) -> str:
    parts = []
    for op in ops:
        if isinstance(op, _Loop):
            parts.append(f"loop {op.times} [{_skeleton(op.body)}]")
        elif op.name == "compute":
            parts.append("compute")
        else:
            parts.append(f"{op.name} {_value(op)}")
    return "; ".join(parts)


def _mean_computes(programs: list[list[Any]]) -> list[Any]:
    first = programs[0]
    out: list[Any] = []
    for j, op in enumerate(first):
        if isinstance(op, _Loop):
            out.append(_Loop(op.times, _mean_computes([p[j].body for p in programs])))
        elif op.name == "compute":
            out.append(_Op("compute", sum(p[j].args for p in programs) / len(programs)))
        else:
            out.append(op)
    return out


def _ranks(ranks: list[int]) -> str:
    if len(ranks) == 1:
        return str(ranks[0])
    if ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f'"{ranks[0]}..{ranks[-1]}"'
    return "[" + ", ".join(map(str, ranks)) + "]"


# -- text --------------------------------------------------------------------------------------
def _render(ops: list[Any], indent: int, size: int, depth: int = 0) -> list[str]:
    """The ops as YAML lines; a loop at ``depth`` names its variable ``VARS[depth]``."""
    pad = " " * indent
    var = VARS[min(depth, len(VARS) - 1)]
    lines: list[str] = []
    for op in ops:
        if isinstance(op, _Loop):
            lines += [f"{pad}- loop:", f"{pad}    times: {op.times}", f"{pad}    var: {var}",
                      f"{pad}    ops:"]
            lines += _render(op.body, indent + 6, size, depth + 1)
            continue
        comment = f"  # {op.comment}" if op.comment else ""
        lines.append(f"{pad}- {op.name}: {_value(op, VARS[max(min(depth, len(VARS)) - 1, 0)])}"
                     f"{comment}")
    return lines


def _value(op: _Op, var: str = "i") -> str:
    if op.name == "compute":
        return _seconds(op.args)
    if not isinstance(op.args, dict):
        return str(op.args)
    parts = []
    for key, value in op.args.items():
        if isinstance(value, _Step):
            value = value.text(var)
        if isinstance(value, list):
            value = "[" + ", ".join(map(str, value)) + "]"
        elif isinstance(value, str) and (" " in value or value[:1] in "(-"):
            value = f'"{value}"'
        parts.append(f"{key}: {value}")
    return "{" + ", ".join(parts) + "}"


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.6g}s"
    if value >= 1e-3:
        return f"{value * 1e3:.6g}ms"
    if value >= 1e-6:
        return f"{value * 1e6:.6g}us"
    return f"{value * 1e9:.6g}ns"
