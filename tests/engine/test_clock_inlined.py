"""The calendar's inlined pushes against the clock's own rule: :func:`at` and
:func:`callbacks_at` queue their items themselves, copies of :meth:`Clock.schedule` (the
time computed and checked) and :func:`queue_last` (the item appended after every item of
its time). Driven by the same operations, a clock whose events come from the inlined copies
and one whose events go through ``Clock.schedule`` hold the same items, in the same order,
and run the same callbacks (tests/architecture/test_inlined.py ties the copies' names)."""

from __future__ import annotations

import contextlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simpy.core import EmptySchedule
from simpy.events import NORMAL, URGENT, Event

from mpisim.engine.clock import Clock, ClockOverflow, at, callbacks_at

OFFSETS = (0.0, 0.0, 0.5, 1.0, 1e-9, 1 / 3, 2.0)  # few, so that many items share a time

op = st.one_of(
    st.tuples(st.just("at"), st.sampled_from(OFFSETS), st.sampled_from((None, 7))),
    st.tuples(st.just("callbacks"), st.sampled_from(OFFSETS), st.integers(0, 3)),
    st.tuples(st.just("urgent"), st.sampled_from(OFFSETS), st.integers(0, 3)),
    st.tuples(st.just("step"), st.just(0.0), st.just(0)),
)


class _Run:
    """One clock and what its callbacks saw; ``inlined`` picks how events are queued."""

    def __init__(self, inlined: bool) -> None:
        self.env = Clock()
        self.inlined = inlined
        self.log: list[tuple] = []
        self.made: list[Event] = []

    def _record(self, ev: Event) -> None:
        self.log.append((self.env.now, self.env.current[1], self.env.current[2], ev._value))

    def apply(self, kind: str, offset: float, value: object) -> None:
        env = self.env
        when = env.now + offset
        if kind == "step":
            with contextlib.suppress(EmptySchedule):
                env.step()
        elif kind == "urgent":  # the same in both runs: an item that goes in its place
            ev = Event(env)
            ev.callbacks.append(self._record)
            ev._ok, ev._value = True, ("urgent", value)
            env.schedule(ev, URGENT, offset)
        elif self.inlined and kind == "at":
            ev = at(env, when, value)
            if ev.callbacks is not None:
                ev.callbacks.append(self._record)
            self.made.append(ev)
        elif self.inlined:
            callbacks_at(env, when, (self._record,), ("cb", value))
        else:
            self._general(kind, when, value)

    def _general(self, kind: str, when: float, value: object) -> None:
        """The clock's rule: an event scheduled with ``Clock.schedule`` at NORMAL priority
        (what ``at`` is when its time is now: an event already processed, never queued)."""
        env = self.env
        ev = Event(env)
        ev._ok = True
        ev._value = value if kind == "at" else ("cb", value)
        if kind == "at" and when <= env.now:
            ev.callbacks = None
        else:
            ev.callbacks.append(self._record)
            env.schedule(ev, NORMAL, when - env.now)
        if kind == "at":
            self.made.append(ev)

    def queue(self) -> list[tuple]:
        """The calendar, drained: (time, priority, sequence number, value) in order."""
        out = []
        while True:
            try:
                item = self.env.pop()
            except EmptySchedule:
                return out
            out.append((item[0], item[1], item[2], item[3]._value))


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=40))
def test_at_and_callbacks_at_queue_as_clock_schedule_and_queue_last_do(ops: list) -> None:
    """Same operations, same calendar: every item at the same time, priority and sequence
    number, the same callbacks run in the same order, the same events done at once."""
    inlined, general = _Run(inlined=True), _Run(inlined=False)
    for kind, offset, value in ops:
        inlined.apply(kind, offset, value)
        general.apply(kind, offset, value)
    assert inlined.log == general.log
    assert sorted(inlined.env.times) == sorted(general.env.times)
    assert [(e.callbacks is None, e._value) for e in inlined.made] == \
        [(e.callbacks is None, e._value) for e in general.made]
    assert inlined.queue() == general.queue()


@pytest.mark.parametrize("when", [math.inf, math.nan])
def test_the_inlined_pushes_refuse_a_time_the_clock_refuses(when: float) -> None:
    """A time that is not finite is refused by the copies as by ``Clock.schedule``."""
    env = Clock()
    with pytest.raises(ClockOverflow):
        env.schedule(Event(env), NORMAL, when)
    with pytest.raises(ClockOverflow):
        at(env, when, 1)
    with pytest.raises(ClockOverflow):
        callbacks_at(env, when, (), None)
    assert env.times == [] and env.at == {}
