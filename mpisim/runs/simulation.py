"""Assembling and running one simulation.

``run()`` builds a SimPy environment, the network, one ``mpi`` handle and one process per
rank, runs until nothing is left to happen, and returns a :class:`~mpisim.runs.result.Result`:

- every rank finished: COMPLETED;
- an uncaught MPIError (or any exception) in a program, or an erroneous ready send: ERROR,
  and the run stops there (MPI_ERRORS_ARE_FATAL);
- a program that makes an MPI call without yielding its event, yields something that is
  not an event, or calls a helper generator without ``yield from``: ERROR at once, of
  error class ``NotYielded``, naming the call, its ``file:line`` and the fix (such a run
  would answer for another program: see :mod:`mpisim.engine.yields`);
- no event left but some rank unfinished: DEADLOCK, with the wait-for analysis;
- a rank polling (iprobe, test) for what can never come while every other rank is finished
  or blocked: DEADLOCK, reported as a livelock naming the polling call (see
  :class:`~mpisim.runs.deadlock.PollWatch`);
- ``until`` (simulated seconds) or ``max_events`` reached, or a rank making
  ``SAME_TIME_CALLS`` calls without simulated time advancing (a loop that never waits):
  TIMEOUT. A run never hangs on a finite guard.

Guards against endless programs, by default: a run given neither ``until`` nor
``max_events`` stops after ``DEFAULT_MAX_EVENTS`` events (TIMEOUT; pass a larger
``max_events`` for a longer run), a run bound to last more than a few minutes says so
once it has started and shows its progress (:mod:`mpisim.runs.estimate`), a run too large
for the memory available is refused before it is built, and the trace records the first
``TRACE_EVENTS`` events only (the result says where it stopped recording), so memory
stays bounded however long a run goes; a trace written to disk (``trace_dir=``,
``trace="disk"``: :mod:`mpisim.engine.spill`) records the whole run in bounded memory.
Ctrl-C (KeyboardInterrupt) and SystemExit raised while a program runs end the run at once
and propagate to the caller: they are never reported as an error of the program (a trace
on disk is left readable up to there).

A program that ends with messages still in its attached buffer waits for them, as
MPI_Finalize does, and then detaches. ``buffer=`` attaches that many bytes on every rank
before its program starts.
"""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Callable, Sequence
from heapq import heappop
from types import GeneratorType
from typing import Any

from simpy.core import EmptySchedule
from simpy.events import NORMAL, PENDING

from ..buffered.mode import BufferedMode
from ..collectives import Collectives
from ..engine.clock import Clock, ClockOverflow
from ..engine.collector import collector_paused
from ..engine.process import RankProcess, start_all
from ..engine.sites import PACKAGE, file_line, place
from ..engine.spill import store_for
from ..engine.threads import joined
from ..engine.trace import Recorder, Trace
from ..engine.yields import NotYielded, discarded_generators, method_name, site_in_code, unyielded
from ..handle.access import (
    bind_process,
    buffered_of,
    call_of,
    call_where_of,
    finalize,
    in_thread,
    named_buffers_of,
    stop_call_log,
    threads_of,
    unyielded_call,
)
from ..handle.lifecycle import Lifecycle
from ..handle.rank import Rank, ZeroTimeLoop
from ..handle.run import RunState
from ..mpi.comm import Communicators
from ..mpi.errors import ErrOther, MPIError
from ..mpi.findings import Findings
from ..p2p.network import Network
from ..p2p.protocols import Message, Transport
from ..profiles.library import MPIConfig
from ..rma import OneSided
from ..values.units import format_time
from .connected import connections
from .deadlock import PollWatch, analyse
from .estimate import Forecast, WallClockLimit, Work, check_memory
from .findings import gather
from .result import ErrorInfo, Outcome, RankSummary, Result, settings_in_force, unreceived_entry
from .settings import RUN
from .spawn import Spawns, capacity

__all__ = ["Simulation", "run"]

PROGRESS_EVERY = 200_000
DEFAULT_MAX_EVENTS = 20_000_000
"""Events a run makes when neither ``until`` nor ``max_events`` is given (about a minute)."""
TRACE_EVENTS = 1_000_000
"""Events whose trace is recorded; later ones update the summaries only (bounded memory)."""
UNTIL_REACHED = "simulated time reached until"


class _Abort(Exception):
    """Stops the event loop: a fatal error was recorded."""


class Simulation:
    """One simulated MPI job; ``run()`` for the whole of it, ``step()`` to go event by event.

    :func:`run` is ``Simulation(...).run()``. Build a Simulation to run in stages (up to a
    simulated time, look at the result, go on) or one event at a time. Times are simulated
    seconds and sizes bytes; strings with units are taken too (``"1us"``, ``"2 KiB"``).

    Parameters
    ----------
    program
        The rank program: a generator function ``program(mpi, **params)`` whose first
        argument is the rank's handle; or a list of ``ranks`` of them, rank r running the
        r-th.
    ranks
        How many MPI processes run it (MPI_COMM_WORLD's size), at least 1.
    network
        The network's settings, as a :class:`Network` or a dict of its fields. Default:
        None, every value the profile's (``latency`` 1 us, ``bandwidth`` 10 GB/s).
    mpi
        The MPI library modelled, as an :class:`MPIConfig` or a dict of its fields
        (``{"profile": "mpich-4.0"}``). Default: None, the ``standard`` profile.
    params
        Keyword arguments passed to every rank's program. Default: none.
    seed
        Seed of the network's ``jitter`` and of every random choice, a whole number >= 0
        (default 0): the same seed gives the same run.
    until
        Simulated time, in seconds (``1e-3``, ``"1ms"``), at which :meth:`Simulation.run` stops when
        it is given no ``until`` of its own; the run then ends as ``Outcome.TIMEOUT``.
        Default: None, no time limit.
    max_events
        Events processed before the run stops as ``Outcome.TIMEOUT``. Default: None,
        which is 20,000,000 when ``until`` is not given and no limit when it is.
    buffer
        Bytes every rank attaches before its program starts (``4096``, ``"64 KiB"``,
        ``"AUTOMATIC"``), or ``{"comm": NAME, "size": SIZE}`` for the communicator the
        program names NAME. Default: None, nothing attached.
    name
        The run's name in reports. Default: the program's function name.
    trace
        Whether to record the trace that plots and ``Result.trace`` read (default True);
        False keeps the summaries only, in much less memory; ``"disk"`` writes it to a
        temporary directory as the run goes (see ``trace_dir``), removed with the Result.
    trace_dir
        A directory to write the trace to as the run goes, instead of keeping it in
        memory (``"trace/"``; created if missing, a trace there before replaced, kept
        after the run: ``mpisim.Trace.open(trace_dir)`` reads it back). On disk the whole
        run is recorded (in memory, its first 1,000,000 events). Default: None.
    work
        What the run is known to have to do, for the wall-time forecast of a long run: a
        :class:`~mpisim.runs.estimate.Work` (``Work(total=10**6, done=counter,
        unit="recorded calls")``), by which the forecast says how long the run will take
        and how far through it is, rather than how long it could go on to its bound (the
        bound still stops it). A replay gives its recorded calls. Default: None.

    Raises
    ------
    ValueError
        A setting that is not valid (a ``SettingError``: its message names the key).

    Examples
    --------
    Run to a simulated time, look, then go on to the end:

    >>> import mpisim as ms
    >>> def program(mpi):
    ...     if mpi.rank == 0:
    ...         yield mpi.send(count=10, datatype=ms.INT, dest=1, tag=0)
    ...     else:
    ...         yield mpi.recv(count=10, datatype=ms.INT, source=0, tag=0)
    >>> sim = ms.Simulation(program, ranks=2)
    >>> sim.run(until="0.5us").outcome  # not over yet
    <Outcome.TIMEOUT: 'timeout'>
    >>> result = sim.run()  # goes on from 0.5 us
    >>> result.outcome, result.sim_time  # 1 us latency + 40 B at 10 GB/s
    (<Outcome.COMPLETED: 'completed'>, 1.004e-06)
    >>> sim.step()  # nothing left to do
    False
    """

    @collector_paused()
    def __init__(self, program: Callable[..., Any] | Sequence[Callable[..., Any]], ranks: int,
                 network: Network | dict[str, Any] | None = None,
                 mpi: MPIConfig | dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, seed: int = 0,
                 until: float | str | None = None, max_events: int | None = None,
                 buffer: int | str | None = None, name: str | None = None,
                 trace: bool | str = True,
                 trace_dir: str | os.PathLike[str] | None = None,
                 work: Work | None = None) -> None:
        ranks = RUN["ranks"](ranks)
        store = store_for(trace, trace_dir)  # (a directory that cannot be written: refused)
        trace = trace is not False
        check_memory(ranks, trace)  # refused before anything is built
        seed = RUN["seed"](seed)
        self.size = ranks
        self.programs = _programs(program, ranks)
        self._refused = _discarded_generator(program, self.programs)  # (raised at its start)
        self.params = dict(params or {})
        self.name = RUN["name"](name) or getattr(self.programs[0], "__name__", "program")
        self.until = RUN["until"](until)
        self.max_events = RUN["max_events"](max_events)
        self.work = work  # (a hint for the forecast of a long run: estimate.Work)
        self.buffer, comm_buffer = _buffer(RUN["buffer"](buffer))
        given_mpi = _mpi_config(mpi)
        given_net = Network.coerce(network)
        self.config = given_mpi.resolve()
        self.net = given_net.resolve(ranks=ranks, seed=seed, defaults=self.config.profile)
        self.settings = settings_in_force(given_mpi, self.config, given_net, self.net)
        self.env = Clock()
        self.recorder = Recorder(trace, store)
        self.findings = Findings()  # the run's correctness findings (runs.findings)
        self.transport = Transport(self.env, self.net, ranks, self._ready_error, self.recorder,
                                   findings=self.findings, locate=self._where,
                                   capacity=capacity(ranks, self.config.universe))
        self.collectives = Collectives(self.env, self.transport,
                                       self.config.profile.collectives_family,
                                       self.config.collectives, self.config.profile,
                                       synchronizing=self.config.sync_collectives)
        self.comms = Communicators(ranks, self.net.latency)
        # one-sided communication (MPI 4.1 §12): every handle reaches it through the run state
        self.rma = OneSided(self.env, self.transport, self.comms, self.collectives, self.config)
        self.run_state = RunState(self.transport, self.rma, self.findings)
        self.run_state.dynamic = self.spawns = Spawns(self)  # processes it starts (§11.8)
        self.run_state.thread_failed = self._thread_failed
        self.run_state.waiting = self._waiting
        self.run_state.thread_seed = seed  # (the order of threads runnable at one instant)
        self.handles = [Rank(r, ranks, self.env, self.transport,
                             BufferedMode(r, self.env, self.transport, self.config,
                                          self.recorder),
                             self.collectives,
                             self.config, self.net.overhead, trace, self.comms,
                             run=self.run_state, life=Lifecycle(r, self.findings),
                             # attached when the program names the communicator
                             named_sizes=None if comm_buffer is None else dict([comm_buffer]))
                        for r in range(ranks)]
        self.finished = [False] * ranks
        self.end_times: list[float | None] = [None] * ranks
        self.returned: list[Any] = [None] * ranks
        self.error: ErrorInfo | None = None
        self.events = 0
        self._timeout: str | None = None
        self._done = False
        self._aborted = False  # stopped inside an event (an error, a livelock)
        self._final: Result | None = None  # the Result of a run that is over
        self._livelock: list[int] = []
        self._joining: set[int] = set()  # ranks whose program returned, joining threads
        self.trace_stopped: float | None = None
        self._procs = [RankProcess(self.env, r, self) for r in range(ranks)]
        for handle, proc in zip(self.handles, self._procs, strict=True):
            bind_process(handle, proc)
        if self.transport.progress is not None:
            self.transport.progress.blocked = self._blocked
        start_all(self.env, list(self._procs))  # (a copy: spawned processes start later)
        self.run_state.poll_watch = PollWatch(self.env, self._procs, self.handles,
                                              self.finished, self._livelocked)

    @property
    def now(self) -> float:
        """The simulated time the run has reached, in seconds."""
        return self.env.now

    # -- the rank processes --------------------------------------------------------------
    def _blocked(self, r: int) -> bool:
        """Whether rank ``r`` waits inside a call for something not yet known (its process
        is alive and the event it waits for has no outcome yet)."""
        proc = self._procs[r]
        target = proc._target
        return proc._value is PENDING and target is not None and target._value is PENDING

    def unyielded_call(self, r: int) -> str | None:
        """The call rank ``r``'s program made last (whose event it never yielded)."""
        return call_of(self.handles[r])

    def _waiting(self, r: int) -> Any:
        """The event rank ``r``'s program waits for (None: none)."""
        return self._procs[r].target

    def attach(self, r: int) -> Any:
        """A rank's start: the run's buffer attached, if it has one (the event, or None)."""
        return None if self.buffer is None else self.handles[r].buffer_attach(self.buffer)

    def call(self, r: int) -> Any:
        """A rank's program called with its handle and the run's parameters. A program that
        calls a helper generator without ``yield from``, or is a plain function that made
        a call (its event never yielded), raises NotYielded."""
        program = self.programs[r]
        if self._refused is not None and self._refused[0] is program:
            raise self._refused[1]
        mpi = self.handles[r]
        body = program(mpi, **self.params)
        call = unyielded_call(mpi)
        if call is not None and not isinstance(body, GeneratorType):
            code = getattr(program, "__code__", None)
            raise unyielded(call, site_in_code(code, method_name(call)),
                            plain=getattr(program, "__name__", "program"))
        return body

    def finalize(self, r: int) -> Any:
        """A rank's program returned: MPI_Finalize (the event it waits for, or None), once
        its threads have ended (:func:`~mpisim.engine.threads.joined`)."""
        threads = threads_of(self.handles[r])
        if not threads:
            return self._finalize(r)
        self._joining.add(r)
        return joined(self.env, threads, lambda: self._finalize(r))

    def _finalize(self, r: int) -> Any:
        self._joining.discard(r)
        self.rma.finalized(r)  # one-sided requests to it are never served from here on
        progress = self.transport.progress
        if progress is not None and progress.waits_held(r):
            self.transport.enter_mpi(r, everything=True)  # MPI_Finalize takes all held
        return finalize(self.handles[r])

    def exited(self, proc: Any) -> None:
        """A rank's process ended (RankProcess tells the run)."""
        r = proc.rank
        if proc._ok:
            self.finished[r] = True
            self.end_times[r] = self.env._now
            self.returned[r] = proc._value
            if self.run_state.daemons and all(self.finished):
                raise _Abort  # (daemon threads may still wait or sleep: they end with it)
            return
        proc._defused = True
        self._failed(r, proc._value)

    def _failed(self, r: int, exc: BaseException) -> None:
        """Rank ``r``'s program (or one of its threads) raised ``exc``: the run ends."""
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise exc  # the user stopped the run; not the program's error
        if isinstance(exc, ZeroTimeLoop):
            self._timeout = str(exc)
            raise _Abort
        if isinstance(exc, WallClockLimit):  # --timeout, in the rank's own code
            self._timeout = self._wall_clock(exc, r)
            raise _Abort
        if isinstance(exc, NotYielded):
            self.error = ErrorInfo(r, exc.call, "NotYielded", self.env._now, exc.message, {},
                                   exc.where)
            raise _Abort
        self._fatal(r, exc)

    def _thread_failed(self, thread: Any) -> None:
        """An exception escaped one of rank ``thread.rank``'s threads: the run ends with
        it, as an error of the rank, in the thread's call, naming the thread."""
        thread._defused = True
        with in_thread(self.handles[thread.rank], thread):
            try:
                self._failed(thread.rank, thread._value)
            finally:
                if self.error is not None:
                    program = f"the program of rank {thread.rank}"
                    by = f"thread {thread.name!r} of rank {thread.rank}"
                    message = self.error.message
                    self.error.message = (message.replace(program, by) if program in message
                                          else f"{message} (in {by})")

    def _fatal(self, r: int, exc: BaseException) -> None:
        mpi = self.handles[r]
        raised = None if isinstance(exc, MPIError | ClockOverflow) else _program_line(exc)
        where = raised or call_where_of(mpi) or _program_line(exc) or self._where(r)
        if isinstance(exc, MPIError):
            self.error = ErrorInfo(r, call_of(mpi), exc.error_class, self.env._now, exc.message,
                                   dict(exc.info), where)
        elif isinstance(exc, ClockOverflow):  # raised inside the call that scheduled it
            self.error = ErrorInfo(r, call_of(mpi), "MPI_ERR_OTHER", self.env._now,
                                   f"{call_of(mpi)}: {exc}", {}, where)
        else:
            self.error = ErrorInfo(r, call_of(mpi), type(exc).__name__, self.env._now,
                                   f"{exc} (raised by the program of rank {r})",
                                   {}, where, _program_traceback(exc))
        raise _Abort

    def _wall_clock(self, exc: WallClockLimit, running: int | None = None) -> str:
        """Why a run stopped at the wall-clock limit (``--timeout``), and where each
        unfinished rank was: ``running``, the rank whose own code ran then, at its line;
        the others in their MPI call (ranks at one place named together)."""
        places: dict[str, list[int]] = {}
        first = [] if running is None else [running]  # (the rank that ran: named first)
        for r in first + [r for r in range(len(self.finished)) if r != running]:
            if self.finished[r]:
                continue
            h = self.handles[r]
            if r == running:
                at = f"running its own code at {_program_line(exc) or self._where(r)}"
            else:
                where = call_where_of(h) or self._where(r)
                at = (f"in {call_of(h)}" if call_of(h) else "before its first MPI call") + \
                    (f" at {where}" if where else "")
            places.setdefault(at, []).append(r)
        shown = [f"{'rank' if len(rs) == 1 else 'ranks'} {', '.join(map(str, rs[:8]))}"
                 f"{'...' if len(rs) > 8 else ''} {at}" for at, rs in list(places.items())[:8]]
        more = f"; and {len(places) - 8} more places" if len(places) > 8 else ""
        return f"{exc}: " + "; ".join(shown) + more

    def _overflowed(self, exc: ClockOverflow) -> None:
        """An event processed outside any rank's program (a transfer's next step, a
        collective's next round) would happen at no finite time: the run ends with an error
        of the call that event belongs to (a message's send, a request's call), else of the
        call the first unfinished rank is in."""
        value = getattr(self.env.current[3], "_value", None)
        owner = getattr(value, "sreq", None) or value
        rank, call = getattr(owner, "rank", None), getattr(owner, "call", None)
        if not isinstance(rank, int) or not isinstance(call, str):
            rank = next((r for r, f in enumerate(self.finished) if not f), 0)
            call = call_of(self.handles[rank])
        self.error = ErrorInfo(rank, call, "MPI_ERR_OTHER", self.env._now,
                               f"{call}: {exc}", {},
                               call_where_of(self.handles[rank]) or self._where(rank))
        self._done = self._aborted = True

    def _ready_error(self, msg: Message) -> None:
        """3.4: a ready send whose receive is not posted when it arrives is erroneous."""
        exc = ErrOther(
            f"ready send to rank {msg.dst} (tag {msg.tag}, {msg.nbytes} B) arrived at "
            f"t = {format_time(self.env._now)} before a matching receive was posted; "
            "MPI_Rsend requires the receive to be posted first (3.4)")
        mpi = self.handles[msg.src]
        self.error = ErrorInfo(msg.src, msg.call, exc.error_class, self.env._now,
                               exc.message, {}, call_where_of(mpi))
        raise _Abort

    def _livelocked(self, ranks: list[int]) -> None:
        """The poll watch found a livelock of ``ranks``: stop the run now."""
        self._livelock = ranks
        stop = self.env.event()
        stop.callbacks.append(_abort)
        stop.succeed()

    def _where(self, r: int) -> str | None:
        """The program line a rank is at (for programs written in Python): the innermost
        generator it is running, through ``yield from`` chains."""
        inner = self._procs[r]._generator
        while getattr(inner, "gi_yieldfrom", None) is not None and \
                getattr(inner.gi_yieldfrom, "gi_frame", None) is not None:
            inner = inner.gi_yieldfrom
        frame = getattr(inner, "gi_frame", None)
        if frame is None:
            return None
        code = frame.f_code
        return place(code.co_filename, frame.f_lineno, code.co_name)

    # -- running -------------------------------------------------------------------------
    def step(self) -> bool:
        """Process one event; False once the run has ended."""
        if self._done:
            return False
        before = self.events
        self._loop(None, before + 1)
        return self.events > before

    def run(self, until: float | str | None = None,
            progress: Callable[[int, float], None] | None = None) -> Result:
        """Run to the end (or to simulated time ``until``) and return the Result.

        A run stopped at ``until`` can be continued: ``run(until=t1)``, look at the result
        (outcome TIMEOUT: not over yet), then ``run(until=t2)`` or ``run()`` goes on.

        Parameters
        ----------
        until
            Simulated time to stop at, in seconds (``2e-6``, ``"2us"``). Default: None,
            the ``until`` the Simulation was built with (none: to the end).
        progress
            Called as ``progress(events, now)`` every 200,000 events, with the events
            processed so far and the simulated time reached (for a progress bar).
            Default: None.

        Returns
        -------
        Result
            The result as of where the run stopped (``Outcome.TIMEOUT`` while not over).
        """
        limit = self.until if until is None else RUN["until"](until)
        if self._timeout is not None and self._timeout.startswith(UNTIL_REACHED):
            self._timeout = None  # an earlier stop at a time limit: go on from there
        cap, why = self._cap(limit)
        forecast = Forecast(cap, limit, self.events, self.env._now, work=self.work)
        bounded = self.recorder.store is None  # (a trace on disk records the whole run)
        try:
            while not self._done and self._timeout is None:
                stop = min(cap, self.events + PROGRESS_EVERY)
                if bounded and self.trace_stopped is None and self.events < TRACE_EVENTS:
                    stop = min(stop, TRACE_EVENTS)
                try:
                    more = self._loop(limit, stop)
                except WallClockLimit as e:  # in the engine, not in a rank's code
                    self._timeout, self._done, more = self._wall_clock(e), True, False
                if progress is not None:
                    progress(self.events, self.env._now)
                if more:
                    forecast.update(self.events, self.env._now)
                if bounded and self.trace_stopped is None and self.events >= TRACE_EVENTS \
                        and more:
                    self._stop_trace()
                if more and self.events >= cap:
                    self._timeout = why
        except BaseException:  # Ctrl-C: a trace on disk is left readable, up to here
            self.recorder.seal(list(self.end_times), final=False)
            raise
        result = self.result()
        if self._done:
            self._final = result  # kept: the programs are released below
            self._release()
        return result

    def _release(self) -> None:
        """Close the programs a finished run left suspended (blocked in a deadlock, or
        stopped by another rank's error): their ``finally`` blocks run now rather than at
        some later garbage collection, and what they hold (an mpi4py rank's greenlet) is
        freed with the run."""
        for proc in self._procs:
            if proc._generator is not None and proc.is_alive:
                proc._generator.close()
            proc.resume = None  # (the cycle through its bound method, broken: see engine.process)
        for h in self.handles:
            for thread in threads_of(h):
                thread.close()

    def _cap(self, limit: float | None) -> tuple[float, str]:
        """The event budget and the words for reaching it."""
        if self.max_events is not None:
            return self.max_events, f"{self.max_events} events processed (max_events)"
        if limit is not None:
            return math.inf, ""
        return DEFAULT_MAX_EVENTS, (f"{DEFAULT_MAX_EVENTS} events processed (the guard for "
                                    "runs given neither until nor max_events)")

    def _settle(self) -> None:
        """Apply the buffer entries' completions that the run has passed (they are applied
        when a rank next looks at its buffer; see mpisim.buffered.mode)."""
        env, now = self.env, self.env._now
        before: tuple[Any, ...]  # (a local annotation: no code)
        if self._aborted:
            before = env.current  # stopped inside an event: those before it
        else:  # between events: every completion before the next event, up to now
            first = env.first()
            before = first if first is not None and first[0] <= now else (now, NORMAL + 1, 0)
        for h in self.handles:
            buffered_of(h).settle(before)

    def _stop_trace(self) -> None:
        """Stop recording (bounded memory); summaries and outcome go on being exact."""
        self._settle()
        self.trace_stopped = self.env._now
        self.recorder.enabled = False
        for h in self.handles:
            stop_call_log(h)

    @collector_paused()
    def _loop(self, limit: float | None, stop: float) -> bool:  # noqa: C901, PLR0915 -- hot: 99,719 / 68,345 instructions a bsend / send (bench.instructions)
        """Step the environment until event number ``stop``, time ``limit`` or the end; True
        if events remain after ``stop``.

        Python's cyclic garbage collector is paused meanwhile (see mpisim.engine.collector): the
        per-message path makes no reference cycles, and full collections scanning a growing
        trace would otherwise cost more than the simulation itself."""
        env, times, cal = self.env, self.env.times, self.env.at
        budget = stop - self.events
        n = 0
        bucket: Any = ()  # the items of the current time, while more than one are left
        when = env._now
        try:
            while True:  # (Clock.step, inlined: the loop runs once per event)
                if n >= budget:  # (tested here, not in the while: a test before a long
                    break  # jump back is never specialised)
                item = env.then  # (an event due right after the last one, at its time)
                if item is not None:
                    env.then = None
                elif bucket:  # more items of this time (nothing can come before them)
                    item = bucket.popleft()
                    if not bucket:
                        del cal[when]
                        heappop(times)
                else:
                    if not times:
                        raise EmptySchedule
                    when = times[0]
                    if limit is not None and when > limit:
                        self._timeout = f"{UNTIL_REACHED} = {format_time(limit)}"
                        env._now = limit
                        return True
                    got = cal.pop(when)  # (Clock.pop, inlined)
                    if got.__class__ is tuple:  # the time's one item
                        item = got
                        heappop(times)
                    else:
                        item = got.popleft()
                        if got:
                            cal[when] = bucket = got
                        else:
                            heappop(times)
                    env._now = when
                env.current = item
                event = item[3]
                callbacks, event.callbacks = event.callbacks, None
                for callback in callbacks:
                    callback(event)
                if not event._ok and not hasattr(event, "_defused"):
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    raise exc
                n += 1
            return bool(times) or env.then is not None
        except EmptySchedule:
            self._done = True
            return False
        except _Abort:
            self._done = self._aborted = True
            return False
        except ClockOverflow as e:
            self._overflowed(e)
            return False
        except WallClockLimit:  # a signal, between any two lines above: the calendar mended
            env.mend(locals().get("got"), when)
            raise
        finally:
            self.events += n

    @collector_paused()
    def result(self) -> Result:
        """The Result as of now (the run need not be over)."""
        if self._final is not None:
            return self._final
        self._settle()
        outcome, deadlock = self._outcome()
        trace = self._trace()
        warnings = [] if self.trace_stopped is None else [
            f"the trace holds the first {TRACE_EVENTS} events only (to t = "
            f"{format_time(self.trace_stopped)}); summaries and outcome cover the whole run"]
        warnings += self.collectives.meetings.warnings()  # mismatched collective calls
        warnings += self.rma.warnings()  # conflicting RMA accesses (MPI 4.1 §12.7)
        ranks = [RankSummary(r, self.finished[r], self.end_times[r], buffered_of(h).summary,
                             {b.name: b.summary for b in named_buffers_of(h)},
                             self.spawns.spawned.get(r))
                 for r, h in enumerate(self.handles)]
        tp = self.transport
        unreceived = [unreceived_entry(m) for m in tp.unreceived()] \
            if outcome is Outcome.COMPLETED else []
        if unreceived:
            warnings.insert(0, f"{len(unreceived)} message(s) sent but never received: the "
                               "program is erroneous (MPI 4.1 §11.2.2: before MPI_Finalize "
                               "a process must complete the communications other processes "
                               "started with it)")
        findings = gather(self.findings, self.handles, self.finished,
                          self.collectives.meetings, self.rma.conflicts, self.error)
        return Result(self.name, outcome, self.env._now, self.params, ranks, list(self.returned),
                      {"sent": tp.sent, "received": tp.received, "bytes": tp.bytes}, trace,
                      self.error, deadlock, self._timeout, warnings, unreceived,
                      {k: dict(v) for k, v in self.settings.items()}, findings)

    def _trace(self) -> Trace:
        """The trace as of now. A run that is over builds it when it is first read (and
        frees the recorded rows then); one that goes on builds it at once."""
        recorder, end_times = self.recorder, list(self.end_times)
        if not self._done:
            recorder.seal(end_times, final=False)  # (on disk: readable as of now)
            return recorder.build(end_times)
        recorder.close()  # (nothing a program's finally block might do is recorded)
        sizes = recorder.sizes()
        recorder.seal(end_times)
        return Trace.later(lambda: recorder.build(end_times, release=True, sizes=sizes),
                           recorder.store)

    def _outcome(self) -> tuple[Outcome, Any]:
        if self.error is not None:
            return Outcome.ERROR, None
        if self._timeout is not None:
            return Outcome.TIMEOUT, None
        if all(self.finished):
            return Outcome.COMPLETED, None
        if not self._done:
            return Outcome.TIMEOUT, None
        handles = self.handles
        dl = analyse(handles, self.finished, [buffered_of(h) for h in handles],
                     self.net.eager_limit, lambda r: call_where_of(handles[r]) or self._where(r),
                     self.transport.stall_cause, self._livelock, self._joining,
                     lambda r: self._procs[r].target,
                     connections(self.comms) if self.comms.world_of else None)
        return Outcome.DEADLOCK, dl


def run(program: Callable[..., Any] | Sequence[Callable[..., Any]], ranks: int,
        network: Network | dict[str, Any] | None = None,
        mpi: MPIConfig | dict[str, Any] | None = None, params: dict[str, Any] | None = None,
        seed: int = 0, until: float | str | None = None, max_events: int | None = None,
        buffer: int | str | None = None, name: str | None = None, trace: bool | str = True,
        trace_dir: str | os.PathLike[str] | None = None, work: Work | None = None) -> Result:
    """Run ``program(mpi, **params)`` on ``ranks`` ranks and return the Result.

    Each rank runs its own copy of the program, a generator function whose first argument
    is the rank's handle ``mpi``; every MPI call is made through it and yielded
    (``yield mpi.send(...)``). The run goes on until every rank has returned, a deadlock,
    an error or a limit (``until``, ``max_events``). Times are simulated seconds, sizes
    bytes; where a number is taken, a string with its unit is too (``"1us"``, ``"2 KiB"``,
    ``"10 GB/s"``). :class:`Simulation` takes the same arguments and runs step by step.

    Parameters
    ----------
    program
        The rank program: a generator function ``program(mpi, **params)``; or a list of
        ``ranks`` of them, rank r running the r-th.
    ranks
        How many MPI processes run it (MPI_COMM_WORLD's size), at least 1.
    network
        The network's settings (latency, bandwidth, eager limit...), as a :class:`Network`
        or a dict of its fields (``{"eager_limit": "4 KiB"}``). Default: None, every value
        the profile's (``latency`` 1 us, ``bandwidth`` 10 GB/s).
    mpi
        The MPI library modelled: profile, allocator, ``bsend_overhead``... as an
        :class:`MPIConfig` or a dict of its fields (``{"profile": "mpich-4.0"}``).
        Default: None, the ``standard`` profile (the MPI standard's own model).
    params
        Keyword arguments passed to every rank's program (``{"count": 1000}``).
        Default: none.
    seed
        Seed of the network's ``jitter`` and of every random choice, a whole number >= 0
        (default 0): the same seed gives the same run, byte for byte.
    until
        Simulated time at which the run stops, in seconds (``1e-3`` or ``"1ms"``); a run
        still going then ends as ``Outcome.TIMEOUT``. Default: None, no time limit.
    max_events
        Events processed before the run stops as ``Outcome.TIMEOUT`` (a guard against a
        program that never ends). Default: None, which is 20,000,000 when ``until`` is
        not given and no limit when it is.
    buffer
        Bytes every rank attaches (MPI_Buffer_attach) before its program starts:
        ``4096``, ``"64 KiB"``, or ``"AUTOMATIC"`` / ``mpisim.BUFFER_AUTOMATIC``
        (MPI 4.1's automatic buffer); ``{"comm": NAME, "size": SIZE}`` attaches SIZE to
        the communicator the program names NAME. Default: None, nothing attached (the
        program attaches its own).
    name
        The run's name in reports and in the JSON's ``scenario``. Default: the program's
        function name.
    trace
        Whether to record the trace of calls, messages and buffer events that plots and
        ``Result.trace`` read (default True). False keeps only the summaries (outcome,
        buffer peaks, counts), in much less memory, for very large runs. ``"disk"``
        writes the trace to a temporary directory as the run goes, only its latest rows in
        memory, and maps its arrays back from their files when read (removed when the
        Result is dropped, or at exit).
    trace_dir
        The directory to write the trace to as the run goes (``"trace/"``: created if
        missing, a trace written there before replaced, kept after the run; read it back
        with ``mpisim.Trace.open("trace/")``). Default: None (``trace`` decides). A
        directory that cannot be written is a ValueError naming it. On disk the whole run
        is recorded (in memory only its first 1,000,000 events).
    work
        What the run is known to have to do, for the wall-time forecast a long run prints
        on stderr: a :class:`mpisim.runs.estimate.Work` (``Work(total=10**6,
        done=counter, unit="recorded calls")``, ``counter()`` the units done so far). The
        forecast then says how long the run will take and how far through it is, rather
        than how long it could go on to its bound (the bound still stops it); a replay
        gives its recorded calls. Default: None, the forecast goes by the bound.

    Returns
    -------
    Result
        How the run ended (``outcome``: completed, deadlock, error or timeout), when
        (``sim_time``, simulated seconds), each rank's buffer summary, the findings, the
        trace; ``report()`` explains it in words.

    Raises
    ------
    ValueError
        A setting that is not valid (a ``SettingError``: its message names the key and
        the values accepted), or ``program`` is neither a function nor a list of
        ``ranks`` functions.

    Examples
    --------
    Two ranks exchange 1000 integers with buffered sends, each attaching just enough:

    >>> import mpisim as ms
    >>> def program(mpi, count=10):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.buffer_attach(size=count * 4 + ms.BSEND_OVERHEAD)
    ...     yield mpi.bsend(count=count, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=0)
    >>> result = ms.run(program, ranks=2, params={"count": 1000}, network={"latency": "2us"})
    >>> result.outcome
    <Outcome.COMPLETED: 'completed'>
    >>> result.ranks[0].buffer.peak_used  # 4000 bytes of data + MPI_BSEND_OVERHEAD
    4096
    >>> ms.run(program, ranks=2, until="1us").outcome  # stopped before the end
    <Outcome.TIMEOUT: 'timeout'>
    """
    return Simulation(program, ranks, network=network, mpi=mpi, params=params, seed=seed,
                      until=until, max_events=max_events, buffer=buffer, name=name,
                      trace=trace, trace_dir=trace_dir, work=work).run()


def _abort(_event: Any) -> None:
    raise _Abort


_PACKAGE = PACKAGE.rstrip(os.sep)


def _program_line(exc: BaseException) -> str | None:
    """Where a program written in Python raised (or received, at a yield) ``exc``: its
    innermost frame outside mpisim and SimPy, as ``file.py:line (function)``."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        name = os.path.abspath(frame.filename)
        if name.startswith(_PACKAGE + os.sep) or f"{os.sep}simpy{os.sep}" in name:
            continue
        found = place(frame.filename, frame.lineno, frame.name)
    return found


def _program_traceback(exc: BaseException) -> str | None:
    """The traceback of an exception raised by a program, without the engine's frames;
    None when no frame is the user's (a scenario file's error names its op instead)."""
    if _program_line(exc) is None:
        return None
    frames = [_in_cell(f) for f in traceback.extract_tb(exc.__traceback__)  # the user's
              if not os.path.abspath(f.filename).startswith(_PACKAGE + os.sep)  # frames only
              and not f.filename.endswith("simpy/events.py")]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames),
             *traceback.format_exception_only(type(exc), exc)]
    cause = exc.__cause__
    if cause is not None and cause.__traceback__ is None:  # a cause made, not raised (the
        # worker's traceback of an mpi4py.futures task): shown first, as Python does
        lines[:0] = [*traceback.format_exception_only(type(cause), cause), "\nThe above "
                     "exception was the direct cause of the following exception:\n\n"]
    return "".join(lines)


def _in_cell(frame: traceback.FrameSummary) -> traceback.FrameSummary:
    """A traceback frame, its file named ``cell 5`` when it is a notebook cell's."""
    text = file_line(frame.filename, frame.lineno)
    if not text.startswith("cell "):
        return frame
    return traceback.FrameSummary(text.split(",", 1)[0], frame.lineno, frame.name,
                                  line=frame.line)


def _discarded_generator(program: Any, programs: list[Any]) -> tuple[Any, NotYielded] | None:
    """(the program, its error) for the first distinct program that calls a helper
    generator without ``yield from`` (see :func:`~mpisim.engine.yields.discarded_generators`),
    or None."""
    distinct = [program] if callable(program) else list({id(p): p for p in programs}.values())
    for p in distinct:
        error = discarded_generators(p)
        if error is not None:
            return p, error
    return None


def _programs(program: Any, ranks: int) -> list[Callable[..., Any]]:
    if callable(program):
        return [program] * ranks
    programs = list(program)
    if len(programs) != ranks or not all(callable(p) for p in programs):
        raise ValueError(f"program: expected a function or a list of {ranks} functions")
    return programs


def _mpi_config(mpi: Any) -> Any:
    if mpi is None:
        mpi = MPIConfig()
    elif isinstance(mpi, dict):
        mpi = MPIConfig.from_dict(mpi)
    elif not isinstance(mpi, MPIConfig):
        raise ValueError(f"mpi: expected an MPIConfig or a dict, got {type(mpi).__name__}")
    return mpi


def _buffer(value: Any) -> tuple[Any, tuple[str, Any] | None]:
    """(the process buffer, (communicator name, size) or None) of the run's ``buffer``."""
    if isinstance(value, dict):
        return None, (value["comm"], value["size"])
    return value, None
