"""The engine's own processes: a generator of engine steps run as SimPy runs a ``Process``.

A collective call's algorithm runs as a process whose value is the call's result
(:mod:`mpisim.collectives`): its rounds of messages are yielded events, and the rank that
made the call waits for the process. :func:`steps` makes that process as SimPy's
``env.process`` does, with the same events at the same places of the event order (an
urgent event at the current time starts it; when the generator returns or raises, the
process is scheduled at the current time with its value or error), so a run's event order,
and with it every result, is the same; what it saves is SimPy's per-process cost: an
``Initialize`` and a ``Process`` built through their ``__init__``, a bound method made at
every wait, and the environment's active-process bookkeeping nothing in mpisim reads.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import PENDING, URGENT, Event

from .clock import BuiltEvent

__all__ = ["Steps", "steps"]


class Steps(Event):
    """A running generator of engine steps, an event that happens when it ends (SimPy's
    ``Process``, for the engine's own generators: see the module)."""

    __slots__ = ("_generator", "_resume", "_target")

    def __init__(self, env: Any, generator: Generator[Event, Any, Any]) -> None:
        self.env = env
        self.callbacks = []
        self._value = PENDING
        self._generator = generator
        self._resume: Any = self.resume  # (one bound method for every event it waits for)
        start = BuiltEvent()  # (SimPy's Initialize: urgent, now, its own place)
        start.env, start.callbacks, start._value, start._ok = env, [self._resume], None, True
        env.schedule(start, URGENT)
        self._target: Any = start

    @property
    def target(self) -> Any:
        """The event it waits for (None once it has ended)."""
        return self._target

    @property
    def is_alive(self) -> bool:
        """True until the generator has ended."""
        return self._value is PENDING

    def resume(self, event: Any) -> None:
        """Send the event's value into the generator (or throw its error), until it yields
        an event not processed yet or ends (then the process is scheduled now)."""
        gen = self._generator
        while True:
            try:
                if event._ok:
                    event = gen.send(event._value)
                else:
                    event._defused = True
                    exc = type(event._value)(*event._value.args)  # (its own copy, as SimPy)
                    exc.__cause__ = event._value
                    event = gen.throw(exc)
            except StopIteration as e:
                self._ok = True
                self._value = e.value
                self._ended()
                return
            except BaseException as e:
                self._ok = False
                if e.__traceback__ is not None:
                    e.__traceback__ = e.__traceback__.tb_next
                self._value = e
                self._ended()
                return
            callbacks = event.callbacks
            if callbacks is not None:
                callbacks.append(self._resume)
                self._target = event
                return

    def _ended(self) -> None:
        self._target = None
        self._resume = None  # (the cycle through the bound method, broken)
        self.env.schedule(self)


def steps(env: Any, generator: Generator[Event, Any, Any]) -> Steps:
    """Run ``generator`` as a process of the run (``env.process(generator)``, cheaper)."""
    return Steps(env, generator)
