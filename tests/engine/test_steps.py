"""The engine's own processes (mpisim.engine.steps) take the places in the event order that
SimPy's Process takes: a collective's rounds run at the same instants, in the same order
among the other events of those instants, so that no result moves."""

from __future__ import annotations

import pytest
from simpy.events import URGENT

from mpisim.engine.clock import Clock, at
from mpisim.engine.steps import steps


def _world(make):
    """Two processes made by ``make`` (``env.process`` or ``steps``) at the same instants as
    other events: returns the order in which everything happened."""
    env = Clock()
    seen = []

    def note(what):
        return lambda _e: seen.append((what, env.now))

    def body(name, delays):
        seen.append((f"{name} starts", env.now))
        for d in delays:
            got = yield at(env, env.now + d, d)
            seen.append((f"{name} got {got}", env.now))
        yield env.done_none  # (an event already processed: goes on at once)
        return name

    before = env.event()
    before.callbacks.append(note("urgent event made first"))
    before._ok, before._value = True, None
    env.schedule(before, URGENT)
    first = make(env, body("a", [1.0, 0.0, 2.0]))
    ev = env.event()
    ev.callbacks.append(note("normal event at 0"))
    ev.succeed()
    second = make(env, body("b", [1.0, 2.0]))
    urgent = env.event()
    urgent.callbacks.append(note("urgent event at 0"))
    urgent._ok, urgent._value = True, None
    env.schedule(urgent, URGENT)
    for proc in (first, second):
        proc.callbacks.append(lambda p: seen.append((f"{p._value} ended", env.now)))
    env.timeout(3.0).callbacks.append(note("normal event at 3"))
    while env.peek() != float("inf"):
        env.step()
    return seen


def test_a_process_of_steps_keeps_simpys_event_order():
    simpy_order = _world(lambda env, gen: env.process(gen))
    assert _world(steps) == simpy_order
    assert simpy_order[:3] == [("urgent event made first", 0), ("a starts", 0),
                               ("b starts", 0)]  # (a start is urgent, in its place)


def test_an_error_in_the_steps_reaches_whoever_waits_for_them():
    env = Clock()

    def failing():
        yield at(env, 1.0)
        raise ValueError("round 2")

    def waiter(proc, out):
        try:
            yield proc
        except ValueError as e:
            out.append((str(e), env.now))

    out: list = []
    proc = steps(env, failing())
    env.process(waiter(proc, out))
    while env.peek() != float("inf"):
        env.step()
    assert out == [("round 2", 1.0)]
    assert not proc.is_alive and proc.target is None


def test_an_error_nobody_waits_for_stops_the_run():
    env = Clock()

    def failing():
        yield at(env, 1.0)
        raise ValueError("unseen")

    steps(env, failing())
    with pytest.raises(ValueError, match="unseen"):
        while env.peek() != float("inf"):
            env.step()
