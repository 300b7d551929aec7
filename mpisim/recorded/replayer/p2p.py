"""Replaying point-to-point communication (MPI 4.1 §3), its completions and persistent
requests, the buffer calls (§3.6) and the collectives (§6): one function per recorded call
(the sends and receives are made by the loop, one op per call shape: :data:`SEND`,
:data:`RECV`). See :mod:`.program` for what a replay keeps of the recording and what it
cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from ...handle.persistent import Persistent
from ...mpi.constants import ANY_SOURCE, ANY_TAG, BUFFER_AUTOMATIC
from ...p2p.requests import joined
from ..calls import (
    COLLECTIVES,
    COMM_BUFFERS,
    COMPLETIONS,
    DATA_ARGS,
    ISENDRECVS,
    PERSISTENT,
    PROBES,
    RECEIVES,
    RECV_ARGS,
    SEND_ARGS,
    SENDRECVS,
    SENDS,
    SPLIT,
    VECTORS,
    Unsupported,
    handle_name,
)
from ..read.records import Call
from .objects import nonblocking_of, op_of
from .state import RankReplay
from .vblocks import check_blocks

__all__ = ["COMPLETING", "P2P", "RECORDED_COLLECTIVES", "RECV", "SEND", "Completion", "complete",
           "forget"]

SEND = object()
"""The sends' entry in :data:`P2P`: the replay's loop makes their calls, one op per call
shape (:meth:`.program.ReplayRank.op`)."""
RECV = object()
"""The receives' entry (Recv, Irecv...): the loop makes them, checking a blocking receive's
status against the recording's."""


def _persistent(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """Send_init... and Recv_init: a send's or a receive's arguments."""
    params = RECV_ARGS if call.name.removesuffix("_init") in RECEIVES else SEND_ARGS
    result = yield getattr(r.mpi, handle_name(call.name))(**r.handle_kwargs(call, params))
    if "r" in call.out:
        r.reqs[call.out["r"]] = result


def _sendrecv(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    status = yield getattr(r.mpi, handle_name(call.name))(
        **r.handle_kwargs(call, SENDRECVS[call.name]))
    r.status_check(call, status)


def _isendrecv(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Isendrecv[_replace], as MPI 4.1 §3.10 defines it: an irecv then an isend, under
    one request that completes when both have (its status the receive's)."""
    kw = r.handle_kwargs(call, SENDRECVS[ISENDRECVS[call.name]])
    comm = kw["comm"]
    recv = yield r.mpi.irecv(count=kw.get("recvcount", kw.get("count")),
                             datatype=kw.get("recvtype", kw.get("datatype")),
                             source=kw["source"], tag=kw["recvtag"], comm=comm)
    send = yield r.mpi.isend(count=kw.get("sendcount", kw.get("count")),
                             datatype=kw.get("sendtype", kw.get("datatype")), dest=kw["dest"],
                             tag=kw["sendtag"], comm=comm)
    if "r" in call.out:
        r.reqs[call.out["r"]] = joined(send, recv, f"MPI_{call.name}")


def _probe(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    kwargs = r.handle_kwargs(call)
    if call.name == "Probe":
        status = yield r.mpi.probe(**kwargs)
        r.status_check(call, status)
        return
    flag, status = yield r.mpi.iprobe(**kwargs)
    if call.out.get("flag") == 1 or not call.returned:
        if not flag:
            r.note(call, "found a message in the recording, finds none in the replay (the "
                         "replay probes until one comes)")
            status = yield r.mpi.probe(**kwargs)
        r.status_check(call, status)


def _matched_probe(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Mprobe/MPI_Improbe (MPI 4.1 §3.8.2): the message taken kept under the
    recording's id; an improbe that succeeded in the recording is an mprobe (the program
    went on to receive it). One that found nothing in the recording finds nothing in the
    replay either, whatever has arrived by then with the replay's timing: it is a poll that
    takes no message (an MPI_Iprobe, so that the message stays for the matched probe the
    recording shows next; taking it would drop it and put every later match one off)."""
    kwargs = {"source": r.source(call, call.args.get("src", ANY_SOURCE)),
              "tag": call.args.get("tag", ANY_TAG), "comm": r.comm(call)}
    if call.name == "Improbe" and call.returned and call.out.get("flag") != 1:
        yield r.mpi.iprobe(**kwargs)
        return
    message, status = yield r.mpi.mprobe(**kwargs)
    r.status_check(call, status)
    r.messages[call.out.get("m", 0)] = message


def _matched_recv(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Mrecv/MPI_Imrecv of the message a probe took (by the recording's id)."""
    mid = call.args.get("m", 0)
    if mid not in r.messages:
        raise Unsupported(f"{call.where()}: MPI_{call.name} of a message no recorded probe "
                          "took")
    kwargs = {"count": call.args.get("n", 0), "datatype": r.datatype(call, call.args.get("T", 0)),
              "message": r.messages.pop(mid)}
    if call.name == "Mrecv":
        r.status_check(call, (yield r.mpi.mrecv(**kwargs)))
        return
    r.reqs[call.out.get("r", -1)] = yield r.mpi.imrecv(**kwargs)


COMPLETING = (*COMPLETIONS, "Testany", "Testsome")
"""The waits and tests a recording logs (:func:`complete` replays them)."""


class Completion:
    """What a wait or test of one shape does (see the module: a success is a wait), worked
    out once from its name, its request count and its recorded result: which requests it
    completes (``pick``: their indices, None for all), whether it only polls (a test that
    found nothing), whether it was blocked for any of them when the process ended."""

    __slots__ = ("blocked", "name", "pick", "polled", "recorded", "single")

    def __init__(self, name: str, count: int, out: dict[str, Any], returned: bool) -> None:
        self.name, self.single = name, count == 1
        self.polled = (name.startswith("Test") and out.get("flag") != 1 and
                       name != "Testsome") or \
            (name == "Testsome" and returned and not out.get("done"))
        self.pick: list[int] | None = None
        if name in ("Waitany", "Testany") and returned:
            index = out.get("index", -1)
            self.pick = [index] if index is not None and 0 <= index < count else []
        elif name in ("Waitsome", "Testsome") and returned and out.get("done"):
            self.pick = [i for i in out["done"] if 0 <= i < count]
        self.blocked = not returned and name in ("Waitany", "Waitsome")
        self.recorded: list[Any] = list(out.get("st", []))


def _complete(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """Wait/Test and their many-request forms, of the Call (:func:`complete`)."""
    ids = call.args.get("r", [])
    if any(rid is None for rid in ids):
        r.request(call, None)  # (refused: a request made by a call the recorder does not log)
    plan = Completion(call.name, len(ids), call.out, call.returned)
    yield from complete(r, plan, ids, lambda _index: call, call.number - 1)


def complete(r: RankReplay, plan: Completion, ids: list[int], call_of: Callable[[int], Call],
             index: int) -> Generator[Any, Any, None]:
    """The wait or test ``plan`` of the requests of recorded ids ``ids`` (the call's, of
    index ``index``; ``call_of(index)`` gives its Call, made only for a status that differs
    from the recording's). Completed requests are forgotten (:func:`forget`)."""
    mpi = r.mpi
    reqs = [r.reqs.get(rid) for rid in ids]
    chosen = reqs if plan.pick is None else [reqs[i] for i in plan.pick]
    active = [q for q in chosen if q is not None]
    if plan.polled:
        live = [q for q in reqs if q is not None]
        if live:
            yield mpi.testall(live) if len(live) > 1 else mpi.test(live[0])
        else:
            yield mpi.compute(0)
        return
    if not active:
        return
    if plan.blocked:  # blocked: for any of them
        yield getattr(mpi, handle_name(plan.name))(active)
        return
    if len(active) == 1 and plan.single:  # MPI_Wait (or a successful test): its own name
        statuses = [(yield mpi.wait(active[0]))]
    else:
        statuses = yield mpi.waitall(active)
    forget(r, ids, reqs)
    recorded = plan.recorded  # (past the recorded statuses: nothing to compare)
    for i, (status, mine) in enumerate(zip(statuses, recorded, strict=False)):
        if mine is not None:
            source = getattr(status, "source", None)
            if source is not None and source != ANY_SOURCE and (  # (as status_check)
                    source != mine.source or status.tag != mine.tag):
                r.status_check(call_of(index), status, i)


def forget(r: RankReplay, ids: Sequence[int | None], reqs: list[Any]) -> None:
    """The requests a wait completed, but persistent ones, forgotten: each is
    MPI_REQUEST_NULL now (MPI 4.1 §3.7.3) and the recorder never gives its id again, so a
    long replay keeps only the requests in flight, not every one it made."""
    kept, pcolls = r.reqs, r.pcolls
    for rid, req in zip(ids, reqs, strict=False):
        if req is not None and not req.active and rid is not None \
                and not isinstance(req, Persistent) and (not pcolls or rid not in pcolls):
            kept.pop(rid, None)


def _start(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Start/MPI_Startall: a persistent point-to-point request started as the handle's,
    a persistent collective as the nonblocking collective of its recorded arguments
    (:class:`.objects.PersistentCollective`)."""
    rids = call.args.get("r", [])
    for rid in rids:
        pcoll = r.pcolls.get(rid)
        if pcoll is not None:
            yield from _collective(r, nonblocking_of(pcoll.call, rid))
            pcoll.current = r.reqs.get(rid)
    reqs = [r.request(call, rid) for rid in rids if rid not in r.pcolls]
    live = [q for q in reqs if q is not None]
    if call.name == "Start" and live:
        yield r.mpi.start(live[0])
    elif live:
        yield r.mpi.startall(live)


def _request_free(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Request_free: the handle's; a persistent collective's request is freed, and the
    collective its last start began, if still active."""
    for rid in call.args.get("r", []):
        pcoll = r.pcolls.pop(rid, None)
        req = r.request(call, rid)
        if pcoll is not None:
            pcoll.freed = True
            r.reqs.pop(rid, None)
            if req is None or not req.active:
                continue
        if req is not None:
            yield r.mpi.request_free(req)


def _buffer(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """Attach, detach, flush or iflush: the process's buffer, or in the communicator form
    (MPI 4.1) that communicator's (MPI_COMM_WORLD's when the recording names none)."""
    mpi = r.mpi
    process_form = COMM_BUFFERS.get(call.name, call.name)  # Buffer_<verb>
    args = []
    if process_form == "Buffer_attach":
        size = call.args.get("size", 0)
        args.append(BUFFER_AUTOMATIC if size == "auto" else size)
    kwargs = {"comm": r.comm(call) or mpi.comm_world} if call.name in COMM_BUFFERS else {}
    result = yield getattr(mpi, handle_name(call.name))(*args, **kwargs)
    if process_form == "Buffer_iflush":
        r.reqs[call.out.get("r", -1)] = result


_NO_DATA = ("Barrier", "Ibarrier")

RECORDED_COLLECTIVES = (*COLLECTIVES, "Barrier")
"""The collectives the recorder logs: every one the scenario language has an op for
(:data:`.calls.COLLECTIVES`, blocking and nonblocking, plain, v and w forms) and
``Barrier``."""


def _collective(r: RankReplay, call: Call) -> Generator[Any, Any, None]:
    """A collective of the recorded sizes (no data): ``n`` elements of ``T`` per rank, or a
    count per rank (``ns``) for the v forms, a datatype per rank (``Ts``) for Alltoallw."""
    mpi, name = r.mpi, handle_name(call.name)
    if call.name in _NO_DATA or name.endswith("alltoallw"):
        kwargs = r.handle_kwargs(call, ("comm",))
        if name.endswith("alltoallw"):  # a count and a datatype per rank
            kwargs["sendcounts"] = list(call.args.get("ns", []))
            kwargs["sendtypes"] = [r.datatype(call, t) for t in call.args.get("Ts", [])]
    else:
        kwargs = r.handle_kwargs(call, DATA_ARGS)  # count, datatype, root (if recorded), comm
        if call.name in SPLIT:
            kwargs["sendbuf"] = [None] * mpi.comm_size(kwargs["comm"])
        elif call.name in VECTORS:
            _per_rank(r, call, name, kwargs)
    if "op" in call.args:  # a reduction's op (recordings made before: the handle's SUM)
        kwargs["op"] = op_of(r, call)
    check_blocks(r, call)  # the v and w forms' own and receive blocks (§6.5 to §6.8)
    result = yield getattr(mpi, name)(**kwargs)
    if "r" in call.out:
        r.reqs[call.out["r"]] = result


def _per_rank(r: RankReplay, call: Call, name: str, kwargs: dict[str, Any]) -> None:
    """A v form's counts as the handle takes them: a scatterv's root and an alltoallv send
    ``sendcounts``, a reduce_scatter receives ``recvcounts``; a scatterv's other ranks
    receive their ``count``."""
    counts = call.args.get("ns")
    if counts is None:
        return  # a scatterv's receiver: its own count and datatype
    del kwargs["count"]
    if name.endswith("reduce_scatter"):
        kwargs["recvcounts"] = list(counts)
    else:
        kwargs["sendcounts"] = list(counts)


P2P: dict[str, Any] = {
    **dict.fromkeys(SENDS, SEND), **dict.fromkeys(PERSISTENT, _persistent),
    **dict.fromkeys(RECEIVES, RECV), **dict.fromkeys(SENDRECVS, _sendrecv),
    **dict.fromkeys(ISENDRECVS, _isendrecv),
    **dict.fromkeys(PROBES, _probe), **dict.fromkeys(COMPLETING, _complete),
    "Mprobe": _matched_probe, "Improbe": _matched_probe, "Mrecv": _matched_recv,
    "Imrecv": _matched_recv,
    "Start": _start, "Startall": _start, "Request_free": _request_free,
    **dict.fromkeys((*COMM_BUFFERS.values(), *COMM_BUFFERS), _buffer),
    **dict.fromkeys(RECORDED_COLLECTIVES, _collective),
}
"""The point-to-point, completion, persistent, buffer and collective calls the replay knows,
by their recorded names."""
