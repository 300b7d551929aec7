"""Cheap SimPy events for the per-message path.

A call that completes at once returns an event that is *already processed*: SimPy's process
loop then resumes the program immediately, without a trip through the event queue. Calls
that complete later return an event scheduled for the known time, or a pending one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simpy.core import Environment
from simpy.events import NORMAL, Event

__all__ = ["at", "callback_at", "done", "failed", "fire_at", "pending"]

_new = object.__new__


def done(env: Environment, value: Any = None) -> Event:
    """An event that has already happened with ``value``: yielding it costs no scheduling."""
    ev = _new(Event)
    ev.env = env
    ev.callbacks = None
    ev._value = value
    ev._ok = True
    return ev


def failed(env: Environment, exc: BaseException) -> Event:
    """An already-processed failed event: yielding it raises ``exc`` in the program."""
    ev = _new(Event)
    ev.env = env
    ev.callbacks = None
    ev._value = exc
    ev._ok = False
    return ev


def pending(env: Environment) -> Event:
    """An event that happens when someone fires it (``fire_at``)."""
    return Event(env)


def fire_at(ev: Event, when: float, value: Any = None, ok: bool = True) -> None:
    """Schedule a pending event to happen at simulated time ``when`` (>= now)."""
    env = ev.env
    ev._ok = ok
    ev._value = value
    env.schedule(ev, NORMAL, when - env._now)


def at(env: Environment, when: float, value: Any = None) -> Event:
    """An event that happens at time ``when``: done at once when that is now."""
    if when <= env._now:
        return done(env, value)
    ev = _new(Event)
    ev.env = env
    ev.callbacks = []
    ev._value = value
    ev._ok = True
    env.schedule(ev, NORMAL, when - env._now)
    return ev


def callback_at(env: Environment, when: float, fn: Callable[[Event], None], value: Any) -> None:
    """Run ``fn(event)`` at time ``when``; ``event._value`` is ``value``."""
    ev = _new(Event)
    ev.env = env
    ev.callbacks = [fn]
    ev._value = value
    ev._ok = True
    env.schedule(ev, NORMAL, when - env._now)
