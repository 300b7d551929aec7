"""The process of one rank: its program as the event loop runs it.

A rank's life has four steps, all driven by events:

1. **start**: at t = 0, in rank order, in one urgent event for all ranks
   (:func:`start_all`), the run's ``buffer`` is attached if it has one and the program is
   called with the rank's ``mpi`` handle;
2. **program**: each event the program yields (an MPI call's) resumes it when it happens;
   one that has already happened (a bsend that fit, a test) resumes it at once, without a
   trip through the event queue. Each resumption clears the process's mark of a call not
   yet yielded (``unyielded``, which each call of its handle sets); a program that returns
   with the mark set, or yields
   something that is not an event, ends the run at once with a ``NotYielded`` error naming
   the call and its place (:mod:`mpisim.engine.yields`);
3. **finalize**: when the program returns, MPI_Finalize waits for what the process still
   has buffered (``mpi._finalize()``);
4. **exit**: the run learns of it (``run.exited``). A normal exit is told at once: nothing
   waits for a rank's process but the run, which records the same (finished, when, what it
   returned) either way, so an event for it would only cost a trip through the queue (a
   third of the events of a run whose ranks each send one message). An exit by an exception is
   scheduled as an event (the process is one), so that the errors of ranks failing at the
   same instant are reported in the event order, as SimPy would.

This is what SimPy's ``Process`` does, for this one use and with ``__slots__``: a rank that
waits costs this object, its program's generator and its ``resume``, the bound method the
events it waits for call. That one is made once, when the process is: a bound method made
per wait costs about 300 instructions a message, and the process itself as the callback
(an object called through its ``__call__``) about 1,100 more, where a kept bound method
costs 64 bytes a rank. It makes a reference cycle (process, method, process), broken when
the process exits or the run releases it. The process is scheduled as SimPy schedules
events (``callbacks``, ``_ok``, ``_value``), so the run's loop cannot tell it from one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import GeneratorType
from typing import Any

from simpy.events import PENDING, URGENT

from .sites import place
from .yields import method_name, not_an_event, site_in_code, unyielded

__all__ = ["RankProcess", "start_all"]

_new = object.__new__


class RankProcess:
    """One rank's program, from its start to its exit (see the module docstring).

    ``run`` is what the process asks at each step (one object for all ranks):
    ``run.attach(rank)``, the event of the run's buffer attach, or None;
    ``run.call(rank)``, the program called (a generator, or a plain function's return
    value); ``run.finalize(rank)``, what MPI_Finalize waits for, or None;
    ``run.exited(process)``, told when it has exited (its ``_ok`` and ``_value`` say how);
    ``run.unyielded_call(rank)``, the call whose event the program never yielded.
    Nothing else waits for a rank's process, so its callback list is made only when it
    exits. ``unyielded`` is the mark of a call made whose event the program has not
    yielded yet: the rank's handle, bound to the process (``handle.access.bind_process``),
    sets it at each call (:mod:`mpisim.engine.yields`), the process clears it each time it
    resumes the program; ``checked`` False: a driver takes the events itself (the mpi4py
    stand-in, the replayer), and the mark is not checked. (The mark is the process's, not
    the handle's: the engine stands below the handle and reads none of its state.)"""

    __slots__ = ("_defused", "_generator", "_ok", "_result", "_target", "_value", "callbacks",
                 "checked", "env", "rank", "resume", "run", "unyielded")

    def __init__(self, env: Any, rank: int, run: Any) -> None:
        self.env = env
        self.rank = rank
        self.run = run
        self.unyielded = False
        self.checked = True
        self.callbacks: list[Callable[[Any], None]] | None = None
        self._value: Any = PENDING
        self._ok = True
        self._generator: Any = None
        self._result: Any = None
        self._target: Any = None  # until it starts (see start_all)
        self.resume: Any = self._resume  # what the events it waits for call (see above)

    @property
    def is_alive(self) -> bool:
        """True until the process has exited."""
        return self._value is PENDING

    @property
    def target(self) -> Any:
        """The event the process waits for (None once it has exited)."""
        return self._target

    # -- 1. start --------------------------------------------------------------------------
    def start(self) -> None:
        """MPI_Init: attach the run's buffer, if any, and call the program (see start_all)."""
        try:
            attaching = self.run.attach(self.rank)
        except BaseException as e:
            self._exit(False, _without_this_frame(e))
            return
        if attaching is None or attaching.callbacks is None:
            self._call_program(attaching)
        else:
            self._wait(attaching, self._call_program)

    def _call_program(self, attached: Any) -> None:
        if attached is not None and not attached._ok:
            attached._defused = True
            self._exit(False, _copy(attached))
            return
        self.unyielded = False  # (the run's attach is not the program's call)
        try:
            body = self.run.call(self.rank)
        except BaseException as e:
            self._exit(False, _without_this_frame(e))
            return
        if isinstance(body, GeneratorType):
            self._generator = body
            self._resume(_STARTED)
        else:
            self._returned(body)

    # -- 2. program ------------------------------------------------------------------------
    def _resume(self, event: Any) -> None:
        """Send the event's value into the program (or throw its error) and wait for the
        event it yields next; at the program's end, finalize. A yield of anything but an
        event, or an end with a call not yielded, ends the rank with NotYielded."""
        gen = self._generator
        while True:
            self.unyielded = False  # (the calls it makes from here on are the program's: a
            try:  # call's steps the engine ran meanwhile, an intercomm_create's, are not)
                if event._ok:
                    event = gen.send(event._value)
                else:
                    event._defused = True
                    event = gen.throw(_copy(event))
            except StopIteration as e:
                if self.unyielded and self.checked:
                    self._ended_unyielded()
                    return
                self._returned(e.value)
                return
            except BaseException as e:
                self._exit(False, _without_this_frame(e))
                return
            try:
                callbacks = event.callbacks
            except AttributeError:
                self._exit(False, not_an_event(event, _yield_site(gen)))
                return
            if callbacks is not None:
                callbacks.append(self.resume)
                self._target = event
                return

    def _ended_unyielded(self) -> None:
        """The program returned with its last call's event never yielded."""
        call = self.run.unyielded_call(self.rank)
        self._exit(False, unyielded(call, site_in_code(self._generator.gi_code,
                                                       method_name(call))))

    # -- 3. finalize -----------------------------------------------------------------------
    def _returned(self, value: Any) -> None:
        """The program returned ``value``: MPI_Finalize, then exit."""
        self._result = value
        try:
            final = self.run.finalize(self.rank)
        except BaseException as e:
            self._exit(False, _without_this_frame(e))
            return
        if final is None:
            self._exit(True, value)
        elif final.callbacks is None:
            self._finalized(final)
        else:
            self._wait(final, self._finalized)

    def _finalized(self, event: Any) -> None:
        if event._ok:
            self._exit(True, self._result)
        else:
            event._defused = True
            self._exit(False, _copy(event))

    # -- 4. exit ---------------------------------------------------------------------------
    def _exit(self, ok: bool, value: Any) -> None:
        self._ok = ok
        self._value = value
        self._target = self._result = self.resume = None  # (the cycle through resume, broken)
        if ok:  # nothing can happen between a normal exit and the run learning of it
            self.callbacks = None
            self.run.exited(self)
            return
        self.callbacks = [self.run.exited]  # an error: raised in the event order
        self.env.schedule(self)

    def _wait(self, event: Any, then: Callable[[Any], None]) -> None:
        self._target = event
        event.callbacks.append(then)


def start_all(env: Any, processes: Sequence[RankProcess]) -> None:
    """Schedule the start of every rank: one urgent event at the current time starts the
    processes in rank order. (SimPy gives each process an urgent event of its own, taken in
    the order they are made, so the order is the same; one event instead of a million for a
    million ranks.)"""
    event = _new(_StartAll)
    event.env, event.callbacks, event._ok, event._value = env, [_start], True, processes
    env.schedule(event, URGENT)


class _StartAll:
    """The event that starts the ranks (SimPy's ``Initialize``, for all of them)."""

    __slots__ = ("_ok", "_value", "callbacks", "env")
    _ok: bool
    _value: Sequence[RankProcess]
    callbacks: list[Callable[[Any], None]]
    env: Any


def _start(event: _StartAll) -> None:
    for process in event._value:
        process.start()


class _Started:
    """What a program's generator is first sent: None."""

    __slots__ = ()
    _ok = True
    _value = None


_STARTED = _Started()


def _yield_site(gen: Any) -> str | None:
    """Where the program's generator stands (at a yield): its innermost generator, through
    ``yield from`` chains."""
    while getattr(gen, "gi_yieldfrom", None) is not None and \
            getattr(gen.gi_yieldfrom, "gi_frame", None) is not None:
        gen = gen.gi_yieldfrom
    frame = getattr(gen, "gi_frame", None)
    if frame is None:
        return None
    return place(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def _copy(event: Any) -> BaseException:
    """A copy of a failed event's exception for this process (as SimPy makes): what one
    process adds to a traceback does not show in another's."""
    exc: BaseException = type(event._value)(*event._value.args)
    exc.__cause__ = event._value
    return exc


def _without_this_frame(e: BaseException) -> BaseException:
    """The exception, its traceback starting at the program's frame."""
    if e.__traceback__ is not None:
        e.__traceback__ = e.__traceback__.tb_next
    return e
