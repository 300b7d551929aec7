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

from ...engine.clock import done, fire_at, pending
from ...handle.access import finalize, port_of
from ...handle.base import ZeroTimeLoop
from ...mpi.errors import MPIError
from ..calls import COMMS, Unsupported
from ..read.records import Call, CallShape, RankLog, Site, Trace, TraceError
from ..read.trace import MADE_AS_SPLIT, read_trace
from .buffers import hashed, report_buffers, report_spawned_buffers, sent_hash
from .comms import REPLAYED
from .files import FILES
from .objects import OBJECTS, caught
from .onesided import ONE_SIDED
from .p2p import P2P
from .shaped import GENERIC, INDEXED, shaped_op
from .spawn import SPAWNED
from .state import RankReplay
from .threads import Item, is_threaded, run_threads

__all__ = ["ReplayProgram", "Stopped", "Unsupported"]

_TRACES: dict[tuple[str, float], Trace] = {}
_STRIDE = 4096  # calls of a rank whose numbers are made Python's at a time, at most
_STRIDES = 1 << 19
"""Calls of all ranks made Python's at a time, at most (about 90 bytes a call as Python's
numbers: 45 MB): a rank of a replay of many processes takes a shorter stride (1,024 ranks:
512 calls), so that the replay's window does not grow with the processes' count (a stride
costs a few microseconds, far below its calls' replay)."""


def stride(ranks: int) -> int:
    """The calls a rank of a replay of ``ranks`` processes makes Python's at a time."""
    return min(_STRIDE, max(256, _STRIDES // max(ranks, 1)))


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
        self.spawned: dict[int, tuple[str, int]] = {}
        """Each spawned process's (spawn ID, rank in its own world) by its number in the
        replay (MPI 4.1 §11.8.2: numbered as they start, after the recording's ranks)."""
        load(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "__name__": self.__name__, "divergences": {}, "quirks": {},
                "reached": {}, "_parked": set(), "spawned": {}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"<replay of {os.path.basename(self.path)}>"

    def sent_data(self, rank: int, where: Any) -> str | None:
        """The hash of the bytes a replayed send (``rank``, its place ``where``) gave in the
        recording, None when not recorded: what a race exploration compares (§3.5)."""
        return sent_hash(load(self.path), rank, where)

    def holds_data(self) -> bool:
        """Whether the recording holds the data's hashes (not made with ``--no-hash``)."""
        return hashed(load(self.path))

    def __call__(self, mpi: Any, compute_scale: float = 1.0, as_matched: bool = False
                 ) -> Generator[Any, Any, None]:
        trace = load(self.path)
        if mpi.size != trace.size:
            raise ValueError(f"{self.__name__}: recorded with {trace.size} processes, cannot "
                             f"replay on {mpi.size} ranks")
        if mpi.rank == 0:  # (what the recording shows of buffers and data, §3.7.2, §12.7)
            report_buffers(mpi, trace)
        return self._replay(mpi, trace.ranks[mpi.rank], float(compute_scale),
                            bool(as_matched))

    def _replay(self, mpi: Any, log: RankLog, scale: float, as_matched: bool
                ) -> Generator[Any, Any, Any]:
        notes: list[str] = []
        self.divergences[mpi.rank] = notes
        self.quirks[mpi.rank] = []
        replay = ReplayRank(mpi, log, scale, as_matched, notes, self.quirks[mpi.rank])
        replay.program = self
        if is_threaded(replay):  # each recorded thread a simulated one (MPI 4.1 §11.6)
            return run_threads(replay, stride(mpi.size))
        return replay.run()

    def spawned_logs(self, spawn: str | None) -> list[RankLog] | None:
        """The logs of the processes the recorded spawn ``spawn`` started, None if none."""
        return load(self.path).spawns.get(spawn) if spawn is not None else None

    def child(self, mpi: Any, spawn: str | None, scale: float, as_matched: bool
              ) -> Generator[Any, Any, None]:
        """A spawned process's replay (MPI 4.1 §11.8.2): the log of its rank in its own
        MPI_COMM_WORLD of the spawn that started it."""
        logs = self.spawned_logs(spawn) or []
        rank = mpi.comm_rank()
        if rank >= len(logs):
            raise Unsupported(f"spawn {spawn}: the recording holds {len(logs)} log(s) of its "
                              f"processes; the replay started more (rank {rank})")
        self.spawned[mpi.rank] = (str(spawn), rank)
        report_spawned_buffers(mpi, logs[rank])  # (§3.7.2: its buffers, as a rank's)
        return self._replay(mpi, logs[rank], scale, as_matched)

    def log_of(self, process: int) -> RankLog:
        """The log a process of the replay replays: a rank's, or a spawned process's."""
        trace = load(self.path)
        if process in self.spawned:
            spawn, rank = self.spawned[process]
            return trace.spawns[spawn][rank]
        return trace.ranks[process]


class ReplayRank(RankReplay):
    """One rank's replay run: its recorded calls in order (:meth:`run`), each call's op made
    once per call shape and result shape (:mod:`.shaped`)."""

    program: ReplayProgram
    again: tuple[Any, Any]
    """Whether each call shape, and each result shape (index ``res + 1``), comes again."""
    suffix: list[str]
    """Each call shape's place after its call's number (``", file.c:12 in main"``)."""
    failures: list[str | None]
    """Each result shape's error class (None: success), and None last (a call that never
    returned, result id -1)."""
    scales: list[float]
    """What the time outside MPI before a call of each shape is multiplied by: the compute
    scale, 0 before MPI_Init (its gap is the process's start)."""

    def prepare(self) -> None:
        """What every call of the rank's loop looks up: which shapes come again (their ops
        are kept), each shape's place in words, each result shape's error."""
        calls, sites = self.log.calls, self.log.sites
        used_shapes, used_results = calls.used()  # ops kept only for those seen again
        self.again = (used_shapes > 1, used_results > 1)
        self.suffix = [_where(shape, sites) for shape in calls.shapes]
        self.failures = [*(result.error for result in calls.results), None]  # ([-1]: none)
        self.scales = [0.0 if shape.name == "Init" else self.scale for shape in calls.shapes]

    def run(self) -> Generator[Any, Any, bool]:
        """Each recorded call in order (:meth:`play`), read a block at a time, then the
        rank's end (:meth:`end`). (The loop itself, not a generator around it: each event
        the engine sends the rank goes straight to it.)"""
        self.prepare()
        return self.play(self.log.calls.replayed(stride(self.mpi.size)), end=True)

    def play(self, items: Iterable[Item], end: bool = False) -> Generator[Any, Any, bool]:
        """These calls in order (:data:`.threads.Item`: the rank's, or one of its threads'),
        each after its recorded gap (times the compute scale), then, with ``end``, the
        rank's end (:meth:`end`); True when it stopped in a call the recording shows in
        progress at the process's end. The one loop of a replay: keep it lean, it runs once
        per call."""
        mpi, calls = self.mpi, self.log.calls
        port = port_of(mpi)  # where each call is made (reports name the recorded call)
        rank, reached, ops = mpi.rank, self.program.reached, self.ops
        shapes, suffix, failures, scales = calls.shapes, self.suffix, self.failures, \
            self.scales
        stopped = False
        for number, s, res, gap, base in items:
            reached[rank] = ("in", number)
            op = ops.get((s, res))
            where = port.where = f"call {number}{suffix[s]}"
            gap *= scales[s]
            if gap > 0:
                yield mpi.compute(gap)
                port.where = where  # (another thread of the rank may have set its own)
            failed = failures[res]
            try:
                if op is None:  # (MPI errors of its arguments are the call's)
                    op = self.kept_op(s, res, shapes[s], number - 1)
                make, after = op
                if after is None:
                    yield make()
                elif after is INDEXED:
                    yield from make(number - 1, base)
                elif after is GENERIC:
                    yield from make(self, calls.call(number - 1))
                else:
                    after((yield make()), number - 1, base)
            except MPIError as e:
                if self.went_on(e, failed, number - 1):
                    continue  # the recorded program went on after this call's error
                raise
            if failed is not None:
                self.note(calls.call(number - 1), f"failed with {failed} in the recording, "
                          "succeeded in the replay")
            reached[rank] = ("after", number)
            if res < 0:
                self.ended_in(calls.call(number - 1))
                stopped = True
                break
        if end:
            yield from self.end()
        return stopped

    def went_on(self, error: MPIError, failed: str | None, index: int) -> bool:
        """Whether the recorded program went on after this call's error (it failed in the
        recording too, MPI_ERRORS_RETURN): the error is still a finding (:func:`caught`)."""
        if failed is None or isinstance(error, Unsupported):
            return False
        caught(self, self.log.calls.call(index), error)
        return True

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
        """What a call of this shape and result does: ``(make, after)``, made from the
        shapes alone where it can be (:func:`.shaped.shaped_op`), else the call's function
        of ``_CALLS`` given each call (``after`` is :data:`.shaped.GENERIC`)."""
        handler = _CALLS.get(shape.name)
        if handler is None:
            raise Unsupported(f"{self.log.calls[index].where()}: MPI_{shape.name} is not "
                              "modelled by mpisim")
        return shaped_op(self, handler, shape, res, index) or (handler, GENERIC)

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
        log_of = self.program.log_of
        running = sorted(r for r, (state, _) in self.program.reached.items()
                         if state == "running")
        cut = [r for r in running if log_of(r).broken]
        going = [r for r in running if not log_of(r).broken]
        parts = []
        if going:
            parts.append(f"rank{'s' if len(going) > 1 else ''} {', '.join(map(str, going))} "
                         "computing after its last recorded call")
        if cut:
            parts.append(f"rank{'s' if len(cut) > 1 else ''} {', '.join(map(str, cut))} "
                         "past the call in which its log ends abruptly")
        return (f"stopped where the recording was: {'; '.join(parts)}, nothing else left to "
                "happen")


# -- the calls of the rank's own -------------------------------------------------------------
def _none(r: ReplayRank, call: Call) -> Generator[Any, Any, None]:
    return
    yield


def _comm(r: ReplayRank, call: Call) -> Generator[Any, Any, None]:
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


def _init(r: ReplayRank, call: Call) -> Generator[Any, Any, None]:
    """MPI_Init[_thread]: the thread level the recorded library provided (MPI 4.1
    §11.2.1), so that the thread-level rules apply; plain MPI_Init's (SINGLE) is the
    replay's already."""
    level = call.args.get("thread", 0)
    if isinstance(level, int) and level > 0:
        r.mpi.init_thread(level)
    return
    yield


def _finalize(r: ReplayRank, call: Call) -> Generator[Any, Any, None]:
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


def _where(shape: CallShape, sites: dict[int, Site]) -> str:
    """A call's place after its number, as :meth:`.records.Call.where` writes it: its thread
    (when not the one of MPI_Init) and its call site."""
    thread = shape.args.get("t", 0)
    site = sites.get(shape.site) if shape.site is not None else None
    return (f" (thread {thread})" if thread else "") + \
        (f", {site.describe()}" if site is not None else "")


def _abort(r: ReplayRank, call: Call) -> Generator[Any, Any, None]:
    raise MPIError(f"MPI_Abort(code {call.args.get('code', 0)}) was called here in the "
                   "recording")
    yield


_CALLS: dict[str, Any] = {
    # the recorder's own: calls the handle has none for
    "Init": _init, "Comm_set_errhandler": _none, "Finalize": _finalize, "Abort": _abort,
    **dict.fromkeys(MADE_AS_SPLIT, _comm), **dict.fromkeys(COMMS, _comm),
    # point-to-point, completion, persistent, buffers, collectives (mpisim.recorded.replayer.p2p)
    **P2P,
    # communicator makers, intercommunicators, neighbourhood collectives (.comms)
    **REPLAYED,
    # one-sided communication (.onesided)
    **ONE_SIDED,
    # MPI-IO (.files)
    **FILES,
    # dynamic processes (.spawn)
    **SPAWNED,
    # datatypes, ops, persistent collectives, cancel (.objects)
    **OBJECTS,
}
"""Every call the replay knows, by its recorded name."""
