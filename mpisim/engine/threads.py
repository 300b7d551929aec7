"""The threads of a rank: programs that run beside the rank's own, on its handle.

MPI 4.1 §11.6 lets a process make MPI calls from several threads (at
``MPI_THREAD_MULTIPLE``). A simulated thread is a second program of the same rank: a
generator yielding the events of its calls, run by the event loop exactly as the rank's
program is (:mod:`mpisim.engine.process`), so a thread blocked in a call blocks only
itself, and the rank's other threads go on in simulated time.

A thread's life:

1. **spawn**: ``mpi.spawn_thread(target, ...)`` makes a :class:`SimThread` and schedules
   its start at the current simulated time, after the step of the thread that spawned it
   (one thread runs at a time: the simulation is deterministic). Threads runnable at the
   same instant run in the order they became runnable, or, with a run's ``seed`` other
   than 0, in an order drawn from it (each resumption may yield to the others first:
   ``ThreadHost.defer``), so a seed names one interleaving and ``check --races`` tries
   several;
2. **steps**: each event the thread yields resumes it when it happens. For the length of
   one step, the handle holds the thread's own call state (the call it is in and the
   program's place): :meth:`SimThread._resume` swaps it in and out, so the handle at rest
   always holds the main thread's, and each thread's blocked call is reported as its own;
3. **end**: the target returns (its value is the thread's) or raises; the thread is an
   event, so ``yield thread`` in another thread or the rank's program joins it. An
   exception escaping a thread ends the run (``run.thread_failed``) as an error of the rank
   naming the thread: a simulator that let a thread die silently would hide the bug.

The rank's program ending does not end its threads: its MPI_Finalize waits for its
non-daemon threads first (:func:`joined`), as CPython joins them before mpi4py's exit
handler calls MPI_Finalize.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import GeneratorType
from typing import Any, Protocol

from simpy.events import PENDING

from .sites import place
from .yields import method_name, not_an_event, site_in_code, unyielded

__all__ = ["MAIN", "MainThread", "SimThread", "ThreadHost", "joined"]


class ThreadHost(Protocol):
    """What a thread asks of its rank (the handle's answer is
    :class:`mpisim.handle.threads.Host`): the rank's call state made the thread's for one
    step and given back, and the forgotten-yield mark (:mod:`mpisim.engine.yields`)."""

    rank: int

    def enter(self, thread: SimThread) -> Any:
        """The thread's call state on the handle (and the mark cleared); returns what
        to give back to :meth:`leave`."""

    def leave(self, thread: SimThread, saved: Any) -> None:
        """The thread's call state kept on it, the rank's put back."""

    def show(self, thread: SimThread) -> Any:
        """As :meth:`enter`, for a report of what the thread does (no step, no checks)."""

    def hide(self, thread: SimThread, saved: Any) -> None:
        """As :meth:`leave`, after :meth:`show`."""

    def resumed(self) -> None:
        """The thread resumes its program: calls it makes from here on are its own."""

    def unyielded_call(self) -> str | None:
        """The call the thread made whose event it never yielded, if any."""

    def defer(self) -> bool:
        """Whether the thread, runnable now, lets the others runnable at this instant go
        first (the run's thread order, drawn from its seed; never with seed 0)."""


class MainThread:
    """The rank's own program, as a thread (ident 0): what ``mpi.current_thread()`` gives
    while the rank's program runs."""

    __slots__ = ()
    name = "MainThread"
    ident = 0
    daemon = False

    def __repr__(self) -> str:
        return "<MainThread>"


MAIN = MainThread()


class SimThread:
    """One simulated thread of rank ``rank`` (see the module docstring).

    ``target(*args, **kwargs)`` is its program: a generator function, as a rank program is,
    or a plain function (which runs to its end in one step). ``host``: its rank, which makes
    the thread's call state (``state``, the host's own record) the handle's for each of its
    steps. ``run`` is told of a failure: ``run.thread_failed(thread)``. The thread is an
    event: ``callbacks``, ``_ok`` and ``_value`` are SimPy's; its value is the target's
    return value.
    """

    __slots__ = ("_defused", "_generator", "_ok", "_target", "_value", "args", "callbacks",
                 "daemon", "env", "host", "ident", "kwargs", "name", "rank", "resume", "run",
                 "state", "target")

    def __init__(self, env: Any, host: ThreadHost, run: Any, target: Callable[..., Any],
                 args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None, *,
                 name: str, ident: int, daemon: bool = False) -> None:
        self.env = env
        self.host = host
        self.run = run
        self.rank: int = host.rank
        self.target = target
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.name = name
        self.ident = ident
        self.daemon = daemon
        self.callbacks: list[Callable[[Any], None]] | None = []
        self._value: Any = PENDING
        self._ok = True
        self._defused = False
        self._generator: Any = None
        self._target: Any = None
        self.state: Any = None  # its call state, as its host keeps it (None: no call yet)
        self.resume: Any = self._resume

    def __repr__(self) -> str:
        state = "alive" if self.is_alive else "ended"
        return f"<SimThread {self.name!r} of rank {self.rank} ({state})>"

    @property
    def is_alive(self) -> bool:
        """True from its spawn until its target has returned or raised."""
        return self._value is PENDING

    @property
    def triggered(self) -> bool:
        """SimPy's name for an event that has happened (here: the thread has ended)."""
        return self._value is not PENDING

    @property
    def target_event(self) -> Any:
        """The event the thread waits for (None before its start and after its end)."""
        return self._target

    @property
    def where(self) -> str | None:
        """Where the thread's program stands (``file.py:12 (worker)``): its innermost
        generator, through ``yield from`` chains; None for a thread not started or ended."""
        inner = self._generator
        while getattr(inner, "gi_yieldfrom", None) is not None and \
                getattr(inner.gi_yieldfrom, "gi_frame", None) is not None:
            inner = inner.gi_yieldfrom
        frame = getattr(inner, "gi_frame", None)
        if frame is None:
            return None
        return place(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)

    # -- 1. spawn --------------------------------------------------------------------------
    def start(self) -> None:
        """Call the target, in a step of the thread's own."""
        def begin(_event: Any) -> None:
            if self.host.defer():
                self._later(begin)
                return
            self._step(self._call_target, None)
        self._later(begin)

    def _later(self, then: Callable[[Any], None], value: Any = None) -> None:
        """``then`` at the current time, after the events already scheduled for it."""
        event = self.env.event()
        event.callbacks.append(then)
        event.succeed(value)

    def _call_target(self, _: Any) -> None:
        body = self.target(*self.args, **self.kwargs)
        if isinstance(body, GeneratorType):
            self._generator = body
            self._advance(True, None)
        else:
            self._end(True, body)

    # -- 2. steps --------------------------------------------------------------------------
    def _resume(self, event: Any) -> None:
        """The event it waited for has happened: one step of the thread (or, when the run's
        thread order says so, after the others runnable at this instant)."""
        if self.host.defer():
            if not event._ok:  # its error is this thread's, raised when it runs (not the
                event._defused = True  # loop's, at the end of this step)
            self._later(lambda _: self._resume(event))
            return
        if event._ok:
            self._step(self._advance_ok, event._value)
        else:
            event._defused = True
            self._step(self._advance_error, event._value)

    def _advance_ok(self, value: Any) -> None:
        self._advance(True, value)

    def _advance_error(self, error: BaseException) -> None:
        copy: BaseException = type(error)(*error.args)
        copy.__cause__ = error
        self._advance(False, copy)

    def _step(self, body: Callable[[Any], None], value: Any) -> None:
        """Run ``body(value)`` with the thread's call state on the handle, then put the
        main thread's back (see the module docstring)."""
        host = self.host
        saved = host.enter(self)
        try:
            body(value)
        except BaseException as e:  # the target itself (a plain function) raised
            self._end(False, e)
        finally:
            host.leave(self, saved)

    def _advance(self, ok: bool, value: Any) -> None:
        """Send ``value`` into the target (or throw it), until it yields an event that has
        not happened yet, returns, or raises."""
        gen = self._generator
        host = self.host
        while True:
            host.resumed()
            try:
                event = gen.send(value) if ok else gen.throw(value)
            except StopIteration as e:
                call = host.unyielded_call()
                if call is not None:  # its last call's event never yielded
                    self._end(False, unyielded(call, site_in_code(gen.gi_code,
                                                                  method_name(call))))
                    return
                self._end(True, e.value)
                return
            except BaseException as e:
                self._end(False, e)
                return
            callbacks: Any = getattr(event, "callbacks", _NOT_AN_EVENT)
            if callbacks is _NOT_AN_EVENT:
                self._end(False, not_an_event(event, self.where))
                return
            if callbacks is not None:
                callbacks.append(self.resume)
                self._target = event
                return
            ok = event._ok
            if ok:
                value = event._value
            else:
                event._defused = True
                error = event._value
                value = type(error)(*error.args)
                value.__cause__ = error

    # -- 3. end ----------------------------------------------------------------------------
    def _end(self, ok: bool, value: Any) -> None:
        """The target returned ``value`` (or raised it): the thread's end is an event the
        loop processes next, so each thread joining it resumes in a step of its own, and a
        failure reaches the run (``run.thread_failed``) before any of them."""
        self._ok = ok
        self._value = value
        self._target = None
        self.resume = None  # (the cycle through the bound method, broken)
        if not ok:
            self._defused = True
            self.callbacks = [self.run.thread_failed, *(self.callbacks or ())]
        self.env.schedule(self)

    def close(self) -> None:
        """The run is over: close the target's generator (its ``finally`` blocks run)."""
        if self._generator is not None and self.is_alive:
            self._generator.close()
        self.resume = None


_NOT_AN_EVENT = object()


def joined(env: Any, threads: Sequence[SimThread], then: Callable[[], Any]) -> Any:
    """The event of ``then()`` (an event, or None) called once every thread in ``threads``
    has ended: MPI_Finalize of a rank whose program returned with threads still running.
    With none alive, ``then()`` at once."""
    alive = [t for t in threads if t.is_alive and not t.daemon]
    if not alive:
        return then()
    done = env.event()
    done.joins = alive  # (what it waits for: the threads' ends, not an MPI call)

    def one_ended(_thread: Any) -> None:
        if any(t.is_alive and not t.daemon for t in threads):
            return
        try:
            final = then()
        except BaseException as e:
            done.fail(e)
            return
        if final is None:
            done.succeed()
        elif final.callbacks is None:
            _pass_on(final, done)
        else:
            final.callbacks.append(lambda ev: _pass_on(ev, done))

    for t in alive:
        t.callbacks.append(one_ended)  # type: ignore[union-attr]
    return done


def _pass_on(event: Any, done: Any) -> None:
    if event._ok:
        done.succeed(event._value)
    else:
        event._defused = True
        done.fail(event._value)
