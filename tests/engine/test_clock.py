"""The run's clock: its calendar queue processes events in SimPy's order.

SimPy processes the events of its queue by time, then priority (URGENT before NORMAL), then
sequence number (the order they were scheduled in). The clock keeps them in a calendar
(a heap of distinct times, each time's items in order) instead of one heap of tuples; these
tests hold it to SimPy's order, whatever the order the items were queued in.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simpy.core import EmptySchedule
from simpy.events import NORMAL, URGENT, Event

from mpisim.engine.clock import (
    Clock,
    at,
    callback_at,
    callback_in_place,
    callbacks_at,
    queue_item,
    queue_last,
)

TIMES = (0.0, 1.0, 1.5, 2.0)  # few, so that many items share a time


def _event(env: Clock, log: list, name: object) -> Event:
    ev = Event(env)
    ev.callbacks.append(lambda _e: log.append(name))
    ev._ok, ev._value = True, None
    return ev


def _drain(env: Clock) -> None:
    while True:
        try:
            env.step()
        except EmptySchedule:
            return


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TIMES), st.sampled_from((URGENT, NORMAL)),
                          st.booleans()), min_size=1, max_size=40))
def test_items_come_out_by_time_priority_and_sequence(pushes: list) -> None:
    """SimPy's order (time, priority, sequence number), whatever the order of queueing:
    urgent items and items put back in an earlier place (callback_in_place) among them."""
    env = Clock()
    log: list = []
    expected = []
    eids = [next(env._eid) for _ in range(len(pushes))]  # places taken in advance
    later = len(eids)  # the sequence number schedule takes next
    for i, (when, priority, early) in enumerate(pushes):
        if early:  # an earlier place, taken before (as a late buffer completion's)
            callback_in_place(env, when, eids[i], lambda _e, i=i: log.append(i), None)
            expected.append((when, NORMAL, eids[i], i))
        else:
            env.schedule(_event(env, log, i), priority, when)
            expected.append((when, priority, later, i))
            later += 1
    assert sorted(item[:3] for item in env.scheduled()) == sorted(e[:3] for e in expected)
    _drain(env)
    assert log == [i for *_, i in sorted(expected)]
    assert env.times == [] and env.at == {}


def test_an_item_queued_at_the_current_time_goes_after_those_already_there() -> None:
    """FIFO at one instant: an event scheduled now, while events of this instant wait, is
    processed after them; an urgent one before them."""
    env = Clock()
    log: list = []
    for name in ("a", "b"):
        callback_at(env, 1.0, lambda _e, n=name: log.append(n), None)

    def first(_e: Event) -> None:
        log.append("first")
        callback_at(env, env.now, lambda _e: log.append("later"), None)
        env.schedule(_event(env, log, "urgent"), URGENT)

    callback_at(env, 0.5, lambda _e: None, None)
    ev = Event(env)
    ev._ok, ev._value = True, None
    ev.callbacks.append(first)
    queue_item(env, (1.0, NORMAL, -1, ev))  # an earlier place: first of its time
    _drain(env)
    assert log == ["first", "urgent", "a", "b", "later"]


def test_the_per_message_helpers_queue_in_sequence_order() -> None:
    """at, callback_at and callbacks_at queue as queue_last does: after every item of
    their time, in the order of their calls."""
    env = Clock()
    log: list = []
    ev = at(env, 2.0, "x")
    ev.callbacks.append(lambda _e: log.append("at"))
    callback_at(env, 2.0, lambda _e: log.append("callback_at"), None)
    callbacks_at(env, 2.0, (lambda _e: log.append("callbacks_at"),), None)
    queue_last(env, (2.0, NORMAL, next(env._eid), _event(env, log, "queue_last")))
    callback_at(env, 1.0, lambda _e: log.append("earlier"), None)
    assert env.peek() == 1.0
    assert env.first()[0] == 1.0
    _drain(env)
    assert log == ["earlier", "at", "callback_at", "callbacks_at", "queue_last"]
    assert env.now == 2.0


def test_an_empty_calendar() -> None:
    env = Clock()
    assert env.peek() == float("inf")
    assert env.first() is None and env.scheduled() == []
    with pytest.raises(EmptySchedule):
        env.step()
