"""The calls a replay makes from their shapes alone, one op per (call shape, result shape).

A recording repeats a few call shapes millions of times (a halo exchange's six receives,
six sends, its MPI_Waitall and its MPI_Allreduce a step). The replay's loop
(:meth:`.program.ReplayRank.play`) makes each shape's op the first time the shape comes and
keeps it for every later call of the same shapes; an op then makes its call from the call's
index alone, with no :class:`~..read.records.Call` built and no argument re-read:

- sends and receives (:data:`.p2p.SEND`, :data:`.p2p.RECV`): the handle's call of the
  recorded arguments; a nonblocking one's request kept under the call's request id, a
  blocking receive's status checked against the recorded one;
- the waits and tests (:func:`.p2p.complete`: a test that succeeded in the recording is a
  wait, see :mod:`.program`): the requests found by id (a shape's ids are relative to the
  call's first, :class:`~..read.records.CallList`), completed, forgotten, their statuses
  checked;
- a collective of fixed arguments (not a v or w form, a predefined op or none).

Anything else, and any call whose check finds a difference from the recording, goes
through its function of :data:`.program._CALLS` with the whole Call, as before: the two
paths make the same calls of the handle in the same order (a replay's result is the same).

An op is ``(make, after)``: ``after`` None, ``yield make()``; ``after`` :data:`INDEXED`,
``yield from make(index, base)``; ``after`` :data:`GENERIC`, ``yield from make(replay,
call)``; else ``after((yield make()), index, base)``. ``index`` is the call's (0-based),
``base`` the request id its shape's ids are relative to (0: none).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ...collectives.ops import OPS
from ...mpi.constants import ANY_SOURCE
from ..calls import DATA_ARGS, HANDLE, SPLIT, VECTORS, handle_name
from ..read.records import CallShape, Status, absolute_request
from .p2p import COMPLETING, P2P, RECORDED_COLLECTIVES, RECV, SEND, Completion, complete
from .state import RankReplay

__all__ = ["GENERIC", "INDEXED", "shaped_op"]

GENERIC = object()
"""The ``after`` of an op given the whole Call: its function of :data:`.program._CALLS`."""
INDEXED = object()
"""The ``after`` of an op given the call's index: a generator of the call's events."""

Op = tuple[Any, Any]


def shaped_op(r: RankReplay, handler: Any, shape: CallShape, res: int, index: int
              ) -> Op | None:
    """The op of the calls of ``shape`` and result shape ``res`` (``index``: the first such
    call), or None when each call needs its own Call (:data:`GENERIC`)."""
    if handler is SEND or handler is RECV:
        return _p2p(r, handler, shape, res, index)
    name = shape.name
    if handler is not P2P.get(name):  # (a family that replays it its own way)
        return None
    if name in COMPLETING:
        return _completion(r, shape, res)
    if name in RECORDED_COLLECTIVES:
        return _collective(r, shape, res, index)
    return None


def _p2p(r: RankReplay, handler: Any, shape: CallShape, res: int, index: int) -> Op:
    """A send's or a receive's: its arguments are the same for every call of the shape."""
    calls = r.log.calls
    call = calls.call(index)
    kwargs = r.handle_kwargs(call)
    method = getattr(r.mpi, handle_name(shape.name))

    def make() -> Any:
        return method(**kwargs)
    if handler is RECV and "request" not in HANDLE[shape.name].binds:
        recorded = call.statuses[0] if call.statuses else None
        return make, (None if recorded is None else _checker(r, recorded))
    if "r" in call.out:  # (the request's id is each call's: the ids of a shape are relative)
        return make, _keeper(r, res)
    return make, None


def _keeper(r: RankReplay, res: int) -> Callable[[Any, int, int], None]:
    """Keeps the request a call made under the call's recorded request id (its result
    shape's, relative to the call's first id, :class:`~..read.records.CallList`)."""
    reqs, calls = r.reqs, r.log.calls
    rid = calls.results[res].out["r"]
    if not isinstance(rid, int) or rid <= 0:  # (MPI_REQUEST_NULL, "?"): as recorded
        request_id = calls.request_id

        def keep_as_recorded(request: Any, index: int, base: int) -> None:
            reqs[request_id(index)] = request
        return keep_as_recorded

    def keep(request: Any, index: int, base: int) -> None:
        reqs[rid + base - 1 if base else rid] = request
    return keep


def _checker(r: RankReplay, recorded: Status) -> Callable[[Any, int, int], None]:
    """After a blocking receive: the status it matched checked against the recording's (the
    Call made, and :meth:`.state.RankReplay.status_check` asked, only when they differ)."""
    calls = r.log.calls

    def check(status: Any, index: int, base: int) -> None:
        source = getattr(status, "source", None)
        if source is None or source == ANY_SOURCE:
            return
        if source != recorded.source or status.tag != recorded.tag:
            r.status_check(calls.call(index), status)
    return check


def _completion(r: RankReplay, shape: CallShape, res: int) -> Op | None:
    """A wait or test of the requests the shape names (:func:`.p2p.complete`), from the
    call's request ids alone (its shape's, relative to the call's first)."""
    rel = list(shape.args.get("r", []))
    if any(v is None for v in rel):
        return None  # a request the recorder does not log: refused at the call
    calls = r.log.calls
    out = calls.results[res].out if res >= 0 else {}
    plan, call_of = Completion(shape.name, len(rel), out, res >= 0), calls.call

    def completion(index: int, base: int) -> Generator[Any, Any, None]:
        ids = [absolute_request(v, base) for v in rel] if base else rel
        return complete(r, plan, ids, call_of, index)
    return completion, INDEXED


def _collective(r: RankReplay, shape: CallShape, res: int, index: int) -> Op | None:
    """A collective whose arguments are the same for every call of the shape: not a v or w
    form (their blocks are checked at each call), its op a predefined one or none."""
    a, name = shape.args, shape.name
    if name in VECTORS or "rns" in a or "rn" in a or a.get("op", "SUM") not in OPS:
        return None
    call = r.log.calls.call(index)
    if name in ("Barrier", "Ibarrier"):
        kwargs = r.handle_kwargs(call, ("comm",))
    else:
        kwargs = r.handle_kwargs(call, DATA_ARGS)  # count, datatype, root (if recorded), comm
    if "op" in a:
        kwargs["op"] = OPS[a["op"]]
    method = getattr(r.mpi, handle_name(name))
    if name in SPLIT:  # one item per rank: a list of its own each call
        size = r.mpi.comm_size(kwargs["comm"])

        def make() -> Any:
            return method(**kwargs, sendbuf=[None] * size)
    else:
        def make() -> Any:
            return method(**kwargs)
    return make, (_keeper(r, res) if "r" in call.out else None)
