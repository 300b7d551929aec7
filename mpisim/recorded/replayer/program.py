"""A recorded rank's calls as a rank program: what ``mpisim replay`` runs.

Each rank runs its recorded calls in order on mpisim's engine. Between two calls it computes
for the wall time the process spent outside MPI there (``compute_scale`` times it; 0 drops
it). Sizes are the recorded ones: ``count`` elements of a datatype of the recorded size (the
predefined type of that name when mpisim has it, else a contiguous type of that many bytes:
a derived type's pack size in mpisim is its size). The attach sizes are the recorded byte
counts. Every call sets the rank's ``port.where`` to "call N, SITE" (N counts the rank's calls from
MPI_Init = 1), which reports, errors and min-buffer show where a scenario shows file:line.

What cannot change in a replay, and what it does instead (decisions, as an MPI user expects):

- Wildcards stay wildcards (``ANY_SOURCE``, ``ANY_TAG``), so another network or library can
  match differently; ``as_matched`` pins each wildcard receive and probe to the source it
  matched in the recording.
- Control flow that depended on data or timing is the recorded one. A test or iprobe that
  found nothing in the recording is replayed as a test or iprobe (a poll, whatever it finds);
  one that succeeded is replayed as a wait (the program went on because it succeeded), so
  the replay cannot run past a completion the recording needed. ``Waitany``/``Testany`` wait
  for the request the recording completed; ``Waitsome``/``Testsome`` for the ones it did.
- Divergences are recorded, never hidden (``divergences``, the report's warnings): a receive
  or probe that matched another source or tag than in the recording, a successful iprobe
  that now finds nothing (the replay then probes until the message comes, as the program
  went on to receive it), a call that failed in the recording but not in the replay. A call
  that fails in the replay raises its MPIError as in any program: caught where the recording
  shows the program went on after an error of that call, else it ends the run.
- A call the recording shows in progress when the process ended (a blocked call of a
  killed run, the call in which the process died) is replayed as well; the replay stops
  there. A process stopped inside MPI_Finalize had ended its program: its replay ends
  there too, and waits in MPI_Finalize for the others (collective, MPI 4.1 §11.2.2, unless
  the profile's ``finalize`` is local), so that a deadlock stopped by ``--timeout`` (one
  process finalized, another waiting for a message with the wrong tag) replays as a
  DEADLOCK naming both. A log that goes on past a call in progress (its result line never
  written) is read up to that call (:attr:`.records.RankLog.broken`) and replayed so.
- A process stopped by a signal outside MPI was running (computing) when it was stopped: its
  program had not ended. The replay keeps it computing after its last call (for the time
  the log says it had been computing, then for as long as anything else happens) and never
  lets it reach MPI_Finalize; when nothing but such computing is left, the run ends there
  (TIMEOUT, "stopped where the recording was"), so a process that was still working is
  never replayed as if its program had ended.
- Library quirks are named as quirks, not divergences: MPICH reports MPI_SOURCE =
  MPI_ANY_SOURCE for a persistent receive from MPI_PROC_NULL, where MPI 4.1 §3.10 gives
  MPI_PROC_NULL (mpisim does).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable
from typing import Any

import numpy as np

from ...engine.clock import done, fire_at, pending
from ...handle.access import driven, finalize, port_of
from ...handle.base import ZeroTimeLoop
from ...handle.persistent import Persistent
from ...mpi.constants import ANY_SOURCE, ANY_TAG, BUFFER_AUTOMATIC, PROC_NULL
from ...mpi.errors import MPIError
from ...p2p.requests import joined
from ..calls import (
    COLLECTIVES,
    COMM_BUFFERS,
    COMMS,
    COMPLETIONS,
    DATA_ARGS,
    HANDLE,
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
    handle_args,
    handle_name,
)
from ..read.records import Call, CallShape, RankLog, Status, Trace, TraceError
from ..read.trace import MADE_AS_SPLIT, read_trace
from .comms import REPLAYED
from .files import FILES
from .objects import (
    NULL_COMM,
    NULL_TYPE,
    OBJECTS,
    caught,
    make_type,
    nonblocking_of,
    null_comm,
    null_type,
    op_of,
)
from .onesided import ONE_SIDED

__all__ = ["ReplayProgram", "Stopped", "Unsupported"]

REPLAYED_MAKERS = ", ".join(f"MPI_{name}" for name in ("Comm_dup", "Comm_idup", "Comm_split",
                                                        *MADE_AS_SPLIT, "Intercomm_create",
                                                        "Intercomm_merge",
                                                        "Comm_create_from_group"))

_TRACES: dict[tuple[str, float], Trace] = {}
_STRIDE = 4096  # calls whose numbers are made Python's at a time
_GENERIC = object()  # an op given the Call: its function of _CALLS does the rest



class Stopped(ZeroTimeLoop):
    """Ends a replay where the recording was stopped: every process the recording shows
    running (stopped outside MPI) is computing and nothing else can happen. The run's
    outcome is TIMEOUT with this as its reason (a stop, not an error of the program)."""


def load(path: str) -> Trace:
    """The recording at ``path``, read once per process (keyed by path and mtime)."""
    try:
        key = (path, os.stat(path).st_mtime)
    except OSError as e:  # a recording that is not there: one line, no traceback
        raise TraceError(f"{path}: {e.strerror or e}") from None
    trace = _TRACES.get(key)
    if trace is None:
        trace = read_trace(path)
        _TRACES[key] = trace
    return trace


class ReplayProgram:
    """The rank program replaying a recording (pickles as the recording's path).

    Called as ``program(mpi, compute_scale=1.0, as_matched=False)`` by a run, as any rank
    program is; ``divergences`` then holds, per rank, where the replay departed from the
    recording.

    Parameters
    ----------
    path
        The recording: a ``.trace`` file or a directory of ``rank.N.log`` files (read and
        checked at once).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.__name__ = os.path.splitext(os.path.basename(self.path))[0]
        self.divergences: dict[int, list[str]] = {}
        self.quirks: dict[int, list[str]] = {}
        self.reached: dict[int, tuple[str, int]] = {}
        """Where each rank's replay is: ``("in", N)`` inside its call N, ``("after", N)``
        past it, ``("running", N)`` computing after its last call N (a process the
        recording shows stopped while running), ``("done", N)`` its program over."""
        self._parked: set[Any] = set()
        load(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "__name__": self.__name__, "divergences": {}, "quirks": {},
                "reached": {}, "_parked": set()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"<replay of {os.path.basename(self.path)}>"

    def __call__(self, mpi: Any, compute_scale: float = 1.0, as_matched: bool = False
                 ) -> Generator[Any, Any, None]:
        trace = load(self.path)
        if mpi.size != trace.size:
            raise ValueError(f"{self.__name__}: recorded with {trace.size} processes, cannot "
                             f"replay on {mpi.size} ranks")
        notes: list[str] = []
        self.divergences[mpi.rank] = notes
        self.quirks[mpi.rank] = []
        replay = _Replay(mpi, trace.ranks[mpi.rank], float(compute_scale), bool(as_matched),
                         notes)
        replay.program = self
        return replay.run()


class _Replay:
    """One rank's replay: the recorded handles (communicators, requests, types) mapped to
    mpisim's."""

    def __init__(self, mpi: Any, log: RankLog, scale: float, as_matched: bool,
                 notes: list[str]) -> None:
        self.mpi, self.log, self.scale, self.as_matched = mpi, log, scale, as_matched
        driven(mpi)  # the replay takes some calls' events itself (a persistent
        # request's init): not a program's yield to check (mpisim.engine.yields)
        self.notes = notes
        self.comms: dict[int, Any] = {0: None, 1: mpi.comm_self}
        self.reqs: dict[int, Any] = {}
        self.types: dict[int, Any] = {}
        self.messages: dict[int, Any] = {}
        self.wins: dict[int, Any] = {}
        self.files: dict[int, Any] = {}
        """The open files (MPI-IO, :mod:`.files`) by the recording's ``fh``."""
        self.groups: dict[int, Any] = {}
        self.sessions: dict[int, Any] = {}
        self.pcolls: dict[int, Any] = {}
        """The persistent collectives (MPI 4.1 §6.13) by request id (:mod:`.objects`)."""
        self.type_objects: dict[int, Any] = {}
        """The derived datatypes the program committed and has not freed, by id."""
        self.user_ops: dict[str, Any] = {}
        """The user ops of MPI_Op_create by the recording's name (``u1``...)."""
        self.idups: dict[int, Any] = {}
        """The requests of MPI_Comm_idup by the new communicator's id: it is usable once
        its request completed (MPI 4.1 §7.4.2), and is taken from it then."""
        self.ops: dict[tuple[int, int], tuple[Any, Any]] = {}
        """Each (call shape, result shape)'s op (:meth:`op`); cleared when a communicator
        is freed (the recording's ids stay unique, the replay's communicator goes)."""

    # -- the loop ------------------------------------------------------------------------
    program: ReplayProgram

    def run(self) -> Generator[Any, Any, None]:
        """Each recorded call in order: the time outside MPI before it, then the call (its
        op made once per call shape and result shape, :meth:`op`)."""
        mpi, log = self.mpi, self.log
        port = port_of(mpi)  # where each call is made (reports name the recorded call)
        rank, reached, calls = mpi.rank, self.program.reached, log.calls
        shapes, results, scale = calls.shapes, calls.results, self.scale
        described: dict[int | None, str] = {i: f", {site.describe()}"
                                            for i, site in log.sites.items()}
        suffix = [described.get(s.site, "") for s in shapes]  # each call site described once
        self.again = (_repeated(calls.shape, len(shapes)),  # ops kept only for those
                      _repeated(calls.result + 1, len(results) + 1))  # seen again
        for lo in range(0, len(calls), _STRIDE):
            hi = lo + _STRIDE
            for number, s, res, gap in zip(range(lo + 1, hi + 1), calls.shape[lo:hi].tolist(),
                                           calls.result[lo:hi].tolist(),
                                           calls.gap[lo:hi].tolist(), strict=False):
                reached[rank] = ("in", number)
                shape = shapes[s]
                op = self.ops.get((s, res))
                gap *= scale
                where = f"call {number}{suffix[s]}"
                if gap > 0 and shape.name != "Init":
                    port.where = where
                    yield mpi.compute(gap)
                port.where = where
                failed = results[res].error if res >= 0 else None
                try:
                    if op is None:  # (MPI errors of its arguments are the call's)
                        op = self.kept_op(s, res, shape, number - 1)
                    make, after = op
                    if after is _GENERIC:
                        yield from make(self, calls.call(number - 1))
                    else:
                        value = yield make()
                        if after is not None:
                            after(value, number - 1)
                except MPIError as e:
                    if failed is not None and not isinstance(e, Unsupported):
                        caught(self, calls.call(number - 1), e)  # still a finding
                        continue  # the recorded program went on after this call's error
                    raise
                else:
                    if failed is not None:
                        self.note(calls.call(number - 1), f"failed with {failed} in the "
                                  "recording, succeeded in the replay")
                reached[rank] = ("after", number)
                if res < 0:
                    self.ended_in(calls.call(number - 1))
                    break
            else:
                continue
            break
        yield from self.end()

    def end(self) -> Generator[Any, Any, None]:
        """Past the last recorded call: a process the recording shows stopped outside MPI,
        or in a call other than MPI_Finalize, had not ended its program: it keeps running
        (:meth:`keep_running`); any other ends here (the run's MPI_Finalize follows)."""
        log, reached, rank = self.log, self.program.reached, self.mpi.rank
        if log.stopped and not _in_finalize(log):
            yield from self.keep_running()
        reached[rank] = ("done", reached.get(rank, ("in", 0))[1])

    def ended_in(self, call: Call) -> None:
        """The replay completed the call the recorded process was in when it ended: said,
        unless it is MPI_Finalize (its program was over; the run's end of it follows) or
        the log ends there abruptly (the recording's paragraph says so)."""
        if call.name != "Finalize" and not self.log.broken:
            self.note(call, f"the recorded process was in this call when it ended "
                            f"({self.log.end_text()}); the replay completed it and has no "
                            "recorded calls after it")

    def kept_op(self, s: int, res: int, shape: CallShape, index: int) -> tuple[Any, Any]:
        """:meth:`op`, kept for the calls after it of the same shapes, if any."""
        op = self.op(shape, res, index)
        if self.again[0][s] and self.again[1][res + 1]:
            self.ops[(s, res)] = op
        return op

    def op(self, shape: CallShape, res: int, index: int) -> tuple[Any, Any]:
        """What a call of this shape and result does: ``(make, after)``, the handle's call
        (``make()`` gives the event to yield) and what to do with its value, for the sends
        and receives, whose arguments are the same for every call of the shape; else the
        call's function of ``_CALLS`` (``after`` is ``_GENERIC``), given each call."""
        handler = _CALLS.get(shape.name)
        if handler is None:
            raise Unsupported(f"{self.log.calls[index].where()}: MPI_{shape.name} is not "
                              "modelled by mpisim")
        if handler is not _SEND and handler is not _RECV:
            return handler, _GENERIC
        call = self.log.calls.call(index)
        kwargs = self.handle_kwargs(call)
        method = getattr(self.mpi, handle_name(shape.name))
        out = call.out

        def make() -> Any:
            return method(**kwargs)
        if handler is _RECV and "request" not in HANDLE[shape.name].binds:
            recorded = call.statuses[0] if call.statuses else None
            return make, (None if recorded is None else self.checker(recorded))
        if "r" in out:  # (the request's id is each call's: the ids of a shape are relative)
            reqs, request_id = self.reqs, self.log.calls.request_id

            def keep(request: Any, index: int) -> None:
                reqs[request_id(index)] = request
            return make, keep
        return make, None

    def checker(self, recorded: Status) -> Any:
        """After a receive: the status it matched checked against the recording's (the
        call made, and :meth:`status_check` asked, only when they differ)."""
        calls = self.log.calls

        def check(status: Any, index: int) -> None:
            source = getattr(status, "source", None)
            if source is None or source == ANY_SOURCE:
                return
            if source != recorded.source or status.tag != recorded.tag:
                self.status_check(calls.call(index), status)
        return check

    def keep_running(self) -> Generator[Any, Any, None]:
        """A process stopped by a signal, past its last call (one it was stopped in that
        the replay completed, or one it had returned from): computing, for as long as its
        log says it had been outside MPI, then for as long as anything else happens; then
        the run stops here."""
        mpi, log = self.mpi, self.log
        last = log.calls[-1].number
        self.program.reached[mpi.rank] = ("running", last)
        port_of(mpi).where = f"after call {last} (the recording stopped it there, running)"
        if log.last is not None and log.last[0] == "g" and log.last[1] * self.scale > 0:
            yield mpi.compute(log.last[1] * self.scale)
        parked = self.program._parked
        while True:
            env = port_of(mpi).env
            later = [item[0] for item in env.scheduled() if item[3] not in parked]
            if not later:
                raise Stopped(self.stopped_text())
            delay = max(later) - env._now
            if delay > 0:
                wake = mpi.compute(delay)
            else:  # after the events due now (a compute of 0 would not wait for them)
                wake = pending(env)
                fire_at(wake, env._now)
            parked.add(wake)
            try:
                yield wake
            finally:
                parked.discard(wake)

    def stopped_text(self) -> str:
        """Why the replay ends here: the ranks computing after their last recorded call
        (and those whose log ends abruptly inside it, past which nothing is known)."""
        logs = load(self.program.path).ranks
        running = sorted(r for r, (state, _) in self.program.reached.items()
                         if state == "running")
        cut = [r for r in running if logs[r].broken]
        going = [r for r in running if not logs[r].broken]
        parts = []
        if going:
            parts.append(f"rank{'s' if len(going) > 1 else ''} {', '.join(map(str, going))} "
                         "computing after its last recorded call")
        if cut:
            parts.append(f"rank{'s' if len(cut) > 1 else ''} {', '.join(map(str, cut))} "
                         "past the call in which its log ends abruptly")
        return (f"stopped where the recording was: {'; '.join(parts)}, nothing else left to "
                "happen")

    def note(self, call: Call, text: str) -> None:
        self.notes.append(f"rank {self.mpi.rank} {call.where()} MPI_{call.name}: {text}")

    # -- handles -------------------------------------------------------------------------
    def handle_kwargs(self, call: Call, params: Iterable[str] | None = None) -> dict[str, Any]:
        """The handle's keyword arguments of ``call`` (:func:`.calls.handle_args`), with the
        recording's datatypes and communicator made this replay's and a wildcard source
        pinned when ``as_matched``."""
        kwargs = handle_args(call, params)
        for param in ("datatype", "sendtype", "recvtype"):
            if param in kwargs:
                kwargs[param] = self.datatype(call, kwargs[param])
        if "source" in kwargs:
            kwargs["source"] = self.source(call, kwargs["source"])
        if "comm" in kwargs:
            kwargs["comm"] = self.comm(call, kwargs["comm"])
        return kwargs

    def comm(self, call: Call, cid: int | None = None) -> Any:
        """This replay's communicator of the recording's ``cid`` (default: the call's)."""
        cid = call.args.get("comm", 0) if cid is None else cid
        if cid == NULL_COMM:
            raise null_comm(self, call)
        made = getattr(self.idups.get(cid), "result", None)
        if cid not in self.comms and made is not None:
            self.mpi.comm_set_name(made, f"comm{cid}")
            self.comms[cid] = made
            del self.idups[cid]
        if cid not in self.comms:
            raise Unsupported(f"{call.where()}: communicator {cid} was made by a call the "
                              f"recorder does not log (it logs {REPLAYED_MAKERS})")
        return self.comms[cid]

    def datatype(self, call: Call, tid: int) -> Any:
        """This replay's datatype of the recording's ``tid`` (:func:`.objects.make_type`: of
        the recorded size and, where the recording gives it, type signature)."""
        found = self.types.get(tid)
        if found is None:
            if tid == NULL_TYPE:
                raise null_type(self, call)
            info = self.log.types.get(tid)
            if info is None:
                raise Unsupported(f"{call.where()}: datatype {tid} is not described in the log")
            found = self.types[tid] = make_type(info)
        return found

    def request(self, call: Call, rid: int | None) -> Any:
        if rid is None:
            raise Unsupported(f"{call.where()}: a request made by a call the recorder does not "
                              "log")
        return self.reqs.get(rid)

    def status_check(self, call: Call, got: Any, index: int = 0) -> None:
        recorded = call.statuses[index] if index < len(call.statuses) else None
        source = getattr(got, "source", None)
        if recorded is None or source is None or source == ANY_SOURCE:
            return  # a send's status, or an empty one (completed earlier by a poll)
        if source == PROC_NULL and recorded.source == ANY_SOURCE and recorded.count == 0 \
                and recorded.tag == ANY_TAG:
            self.program.quirks[self.mpi.rank].append(
                f"rank {self.mpi.rank} {call.where()} MPI_{call.name}: the library gave "
                "MPI_SOURCE = MPI_ANY_SOURCE for a receive from MPI_PROC_NULL (MPICH does so "
                "for a persistent receive); MPI 4.1 §3.10 gives MPI_PROC_NULL, as the replay "
                "does")
            return
        if got.source != recorded.source or got.tag != recorded.tag:
            self.note(call, f"matched source {got.source} tag {got.tag}; the recording "
                            f"matched source {recorded.source} tag {recorded.tag}")

    def source(self, call: Call, source: int) -> int:
        """A receive's or probe's ``source``; with ``as_matched``, a wildcard is the source it
        matched in the recording."""
        if self.as_matched and source == ANY_SOURCE and call.statuses:
            matched = call.statuses[0]
            if matched is not None and matched.source != PROC_NULL:
                return matched.source
        return source


# -- one function per call -------------------------------------------------------------------
def _none(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    return
    yield


_SEND = object()
"""The sends' entry in ``_CALLS``: :meth:`_Replay.op` makes their calls (one op per shape)."""
_RECV = object()
"""The receives' entry (Recv, Irecv...): :meth:`_Replay.op` makes them, checking a blocking
receive's status against the recording's."""


def _persistent(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    """Send_init... and Recv_init: a send's or a receive's arguments."""
    params = RECV_ARGS if call.name.removesuffix("_init") in RECEIVES else SEND_ARGS
    result = yield getattr(r.mpi, handle_name(call.name))(**r.handle_kwargs(call, params))
    if "r" in call.out:
        r.reqs[call.out["r"]] = result


def _sendrecv(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    status = yield getattr(r.mpi, handle_name(call.name))(
        **r.handle_kwargs(call, SENDRECVS[call.name]))
    r.status_check(call, status)


def _isendrecv(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _probe(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _matched_probe(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _matched_recv(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _complete(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    """Wait/Test and their many-request forms (see the module: a success is a wait)."""
    ids = call.args.get("r", [])
    reqs = [r.request(call, rid) for rid in ids]
    mpi = r.mpi
    name = call.name
    polled = name.startswith("Test") and call.out.get("flag") != 1 and name != "Testsome"
    if name == "Testsome" and call.returned and not call.out.get("done"):
        polled = True
    if name in ("Waitany", "Testany") and call.returned:
        index = call.out.get("index", -1)
        chosen = [reqs[index]] if index is not None and 0 <= index < len(reqs) else []
    elif name in ("Waitsome", "Testsome") and call.returned and call.out.get("done"):
        chosen = [reqs[i] for i in call.out["done"] if 0 <= i < len(reqs)]
    else:
        chosen = reqs
    active = [q for q in chosen if q is not None]
    if polled:
        live = [q for q in reqs if q is not None]
        if live:
            yield mpi.testall(live) if len(live) > 1 else mpi.test(live[0])
        else:
            yield mpi.compute(0)
        return
    if not active:
        return
    if not call.returned and name in ("Waitany", "Waitsome"):  # blocked: for any of them
        yield getattr(mpi, handle_name(name))(active)
        return
    if len(active) == 1 and len(reqs) == 1:  # MPI_Wait (or a successful test): its own name
        status = yield mpi.wait(active[0])
        _forget(r, ids, reqs)
        r.status_check(call, status)
        return
    statuses = yield mpi.waitall(active)
    _forget(r, ids, reqs)
    for i, status in enumerate(statuses):
        r.status_check(call, status, i)


def _forget(r: _Replay, ids: list[int | None], reqs: list[Any]) -> None:
    """The requests a wait completed, but persistent ones, forgotten: each is
    MPI_REQUEST_NULL now (MPI 4.1 §3.7.3) and the recorder never gives its id again, so a
    long replay keeps only the requests in flight, not every one it made."""
    for rid, req in zip(ids, reqs, strict=False):
        if rid is not None and req is not None and not req.active \
                and not isinstance(req, Persistent) and rid not in r.pcolls:
            r.reqs.pop(rid, None)


def _repeated(column: Any, n: int) -> Any:
    """Whether each of ``n`` values occurs more than once in ``column`` (a numpy array of
    indices; a byte each): a call whose shape or result is its own (a new request id in
    each) gets its op made for it, not kept for calls that never come."""
    return np.bincount(column, minlength=n) > 1


def _start(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _request_free(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _buffer(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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


def _comm(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    mpi = r.mpi
    parent = r.comm(call)
    if call.name == "Comm_free":
        yield mpi.comm_free(parent if parent is not None else mpi.comm_world)
        if (freed := call.args.get("comm")) is not None:
            r.comms.pop(freed, None)
        r.ops.clear()
        return
    if call.name == "Comm_dup":
        made = yield mpi.comm_dup(comm=parent)
    else:
        color, key = call.split()
        made = yield mpi.comm_split(color, key, comm=parent)
        if made is not None and call.out.get("size") not in (None, made.size):
            r.note(call, f"made a communicator of {made.size} ranks; the recording's had "
                         f"{call.out['size']}")
    new = call.out.get("new")
    if new is not None and new >= 0 and made is not None:
        mpi.comm_set_name(made, f"comm{new}")
        r.comms[new] = made


def _finalize(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    """MPI_Finalize: its own part here (the buffered messages); the wait for the other
    processes (collective, MPI 4.1 §11.2.2, unless the profile's ``finalize`` is local) is
    the run's, when the program ends right after. Entered, so that a deadlock names it at
    its recorded call."""
    waiting = finalize(r.mpi)
    if waiting is None:
        port = port_of(r.mpi)
        port.enter("MPI_Finalize")
        waiting = done(port.env)
    yield waiting


def _in_finalize(log: RankLog) -> bool:
    """Whether the recorded process ended inside MPI_Finalize: its program was over."""
    blocked = log.blocked
    return blocked is not None and blocked.name == "Finalize"


def _abort(r: _Replay, call: Call) -> Generator[Any, Any, None]:
    raise MPIError(f"MPI_Abort(code {call.args.get('code', 0)}) was called here in the "
                   "recording")
    yield


_NO_DATA = ("Barrier", "Ibarrier")

RECORDED_COLLECTIVES = (*COLLECTIVES, "Barrier")
"""The collectives the recorder logs: every one the scenario language has an op for
(:data:`.calls.COLLECTIVES`, blocking and nonblocking, plain, v and w forms) and
``Barrier``."""


def _collective(r: _Replay, call: Call) -> Generator[Any, Any, None]:
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
    result = yield getattr(mpi, name)(**kwargs)
    if "r" in call.out:
        r.reqs[call.out["r"]] = result


def _per_rank(r: _Replay, call: Call, name: str, kwargs: dict[str, Any]) -> None:
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


_CALLS: dict[str, Any] = {
    # the recorder's own: calls the handle has none for
    "Init": _none, "Comm_set_errhandler": _none, "Finalize": _finalize, "Abort": _abort,
    "Testany": _complete, "Testsome": _complete, **dict.fromkeys(MADE_AS_SPLIT, _comm),
    "Mprobe": _matched_probe, "Improbe": _matched_probe, "Mrecv": _matched_recv,
    "Imrecv": _matched_recv,
    # the handle's calls, by family (mpisim.recorded.calls)
    **dict.fromkeys(SENDS, _SEND), **dict.fromkeys(PERSISTENT, _persistent),
    **dict.fromkeys(RECEIVES, _RECV), **dict.fromkeys(SENDRECVS, _sendrecv),
    **dict.fromkeys(ISENDRECVS, _isendrecv),
    **dict.fromkeys(PROBES, _probe), **dict.fromkeys(COMPLETIONS, _complete),
    "Start": _start, "Startall": _start, "Request_free": _request_free,
    **dict.fromkeys((*COMM_BUFFERS.values(), *COMM_BUFFERS), _buffer),
    **dict.fromkeys(COMMS, _comm), **dict.fromkeys(RECORDED_COLLECTIVES, _collective),
    # communicator makers, intercommunicators, neighbourhood collectives (mpisim.recorded.comms)
    **REPLAYED,
    # one-sided communication (mpisim.recorded.onesided)
    **ONE_SIDED,
    # MPI-IO (mpisim.recorded.files)
    **FILES,
    # datatypes, ops, persistent collectives, cancel (mpisim.recorded.objects)
    **OBJECTS,
}
"""Every call the replay knows, by its recorded name."""
