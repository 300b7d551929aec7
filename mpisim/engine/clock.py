"""Cheap SimPy events for the per-message path: the one module that builds events by hand.

**The already-processed event.** A call that completes at once (a bsend that fits, a send to
PROC_NULL, a test) returns an event that is *already processed*: ``callbacks`` is None,
``_ok`` and ``_value`` are set, and it was never in the queue (:func:`done`,
:func:`failed`). When a program yields it, SimPy's ``Process._resume`` sees that the event
has no callback list left and sends its value (or throws its exception) into the generator
at once, in the same step, without a trip through the event queue: a call that completes
at once costs no scheduling and takes no place in the event order. SimPy offers no public
way to make such an event (``Event.succeed`` schedules it), so it is built here from
SimPy 4's event attributes (``env``, ``callbacks``, ``_value``, ``_ok``), which is why
``simpy`` is pinned ``>=4.1,<5``. Nothing else in mpisim builds an event from those
attributes; the calls read ``_ok`` and ``_value`` of an event they have just made (did it
fail at once?), and :class:`~mpisim.runs.simulation.Simulation` inlines :meth:`Clock.step`.

**Scheduled events.** A call that completes at a known later time returns an event
scheduled for it (:func:`at`): what SimPy's ``Timeout`` is, built in the caller's frame.
``Timeout(env, delay, value)`` itself was measured (cachegrind, ``python -m
bench.instructions``): 2,900 more instructions per message of the send ring (+2.8 %; its
Python ``__init__`` is one more frame per event), so the per-message path keeps the built
event and uses SimPy's public API (``Event``, ``Environment.schedule``, ``Process``) for the
rest, but for the pushes on the queue of the per-message path: :func:`at` and
:func:`callback_at` (and the receiver's wake in :mod:`mpisim.p2p.completion`, at the current
time) queue ``(time, NORMAL, next sequence number, event)`` themselves, the time computed
as ``Clock.schedule`` computes it and checked as it checks it (a call fewer per event, about
1,000 instructions per message). An engine step to run at a known time
(:func:`callback_at`) is an event built with its callback already in place; one that must
take a place in the event order taken earlier (:func:`callback_in_place`, for the buffer
entries completed late) is pushed at that place.
A call that completes at a time not yet known returns a pending ``Event`` that
:func:`fire_at` schedules later (SimPy's ``succeed`` schedules at the current time only).

:class:`Clock` is the environment of a run: it remembers the queue item (time, priority,
sequence number, event) it is processing, so that work done later than its place in the
event order (a buffer entry completed when its rank next looks, see
:mod:`mpisim.buffered.mode`) can still be ordered, and recorded, where an event would have been;
and it refuses a time that is not finite (:class:`ClockOverflow`).

**The queue: a calendar.** The queue items are SimPy's, ``(time, priority, sequence
number, event)``, processed in the order SimPy processes them (by time, then priority, then
sequence number), but they are not kept in one heap of tuples: :attr:`Clock.at` maps each
time that has events to its items, in order (the item itself while it is alone, a deque
once there are two), and :attr:`Clock.times` is a heap of those times, each once. Many
events share a time (every rank of a symmetric program sends at the same instants), and a
heap of tuples compares them element by element down to the sequence number at every level
of the heap: about 7,000 instructions per message of the send ring went to that. An item
queued with the next sequence number at NORMAL priority (nearly all of them) goes after
every item of its time, so it is appended without a comparison (:func:`queue_last`); an
urgent one, or one put back in an earlier place (:func:`callback_in_place`), is put in its
place among the items of its time (:func:`queue_item`).

**The next event.** A blocking wait whose request completes now (a receive whose message
has just arrived and matched) wakes its rank with an event at the current time. That event
does not go through the queue: it is put in :attr:`Clock.then`, which the run's loop (and
:meth:`Clock.step`) processes right after the event being processed, before any other
event at this instant (a queue push and pop fewer per message). So the receiver runs
in the arrival's place, where SimPy would run it after the events already queued for that
instant. Its queue item is made as SimPy's would be, with the next sequence number, and is
the run's ``current`` item while it is processed: the work it does takes the place in the
event order its event would have been given. Only one event waits there: a second one made
by the same event (a collective meeting waking several ranks) is queued as before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

from simpy.core import EmptySchedule, Environment
from simpy.events import NORMAL, PENDING, Event

__all__ = ["BuiltEvent", "Clock", "ClockOverflow", "at", "callback_at", "callback_in_place",
           "callbacks_at", "done", "failed", "fire_at", "order_of", "pending", "queue_item",
           "queue_last"]

Item = tuple[float, int, int, Event]
"""A queue item, as SimPy's: (time, priority, sequence number, event)."""

BEFORE_ALL: Item = (0.0, -1, -1, None)  # type: ignore[assignment]  # no event: before all
"""``Clock.current`` before the first event is processed."""


_INF = float("inf")


class ClockOverflow(BaseException):
    """An event was to be scheduled at a time that is not a finite float (a transfer of
    many bytes over a very slow link, a sum of huge times): the run cannot go on, and no
    infinite or NaN time may reach the queue, the trace or the JSON. Raised where the event
    is scheduled, so inside the call that scheduled it or the callback processing an
    event; the run reports it as that call's error. A BaseException, as the transport's
    state is no longer sound: a program's ``except Exception`` must not go on."""


class Clock(Environment):
    """A SimPy environment that keeps ``current``: the queue item being processed, and
    refuses to schedule an event at an infinite or NaN time (:class:`ClockOverflow`). Its
    queue is a calendar (see the module): :attr:`times` and :attr:`at`, not SimPy's heap."""

    def __init__(self) -> None:
        super().__init__()
        self._queue = None  # type: ignore[assignment]  # SimPy's heap: the calendar holds the items
        self.times: list[float] = []  # a heap of the times that have items, each once
        # time -> its item, or a deque of its items in order (Any: told apart by
        # ``got.__class__ is tuple``, the cheapest test, which a type checker cannot narrow)
        self.at: dict[float, Any] = {}
        self.current: Item = BEFORE_ALL
        self.then: Item | None = None  # the queue item processed next (see the module)
        self.done_none = done(self, None)  # what a call that returns None at once yields

    def schedule(self, event: Event, priority: int = NORMAL, delay: float = 0) -> None:
        """SimPy's schedule, with the time checked (one comparison)."""
        when = self._now + delay
        if not when < _INF:  # inf, or NaN (inf - inf)
            raise _overflow(self._now, delay)
        item = (when, priority, next(self._eid), event)
        if priority == NORMAL:
            queue_last(self, item)
        else:
            queue_item(self, item)

    def peek(self) -> float:
        """The time of the next event (:attr:`then` first); infinity when there is none."""
        if self.then is not None:
            return self._now
        return self.times[0] if self.times else _INF

    def scheduled(self) -> list[Item]:
        """The queue items still to be processed: :attr:`then` and the calendar's (in no
        particular order)."""
        items = [] if self.then is None else [self.then]
        for got in self.at.values():
            if got.__class__ is tuple:
                items.append(got)
            else:
                items.extend(got)
        return items

    def first(self) -> Item | None:
        """The queue item processed next (:attr:`then` first), or None."""
        if self.then is not None:
            return self.then
        if not self.times:
            return None
        got = self.at[self.times[0]]
        return got if got.__class__ is tuple else got[0]

    def mend(self, held: Any = None, when: float | None = None) -> None:
        """Make the calendar whole after an interruption between two of its updates (a
        signal such as the wall-clock limit, raised at any line of the run's loop): put
        back ``held``, the deque of time ``when`` that the loop had taken out, drop deques
        left empty, and make :attr:`times` the calendar's times again."""
        cal = self.at
        if held.__class__ is deque and held and when is not None and cal.get(when) is not held:
            cal[when] = held
        for t in [t for t, got in cal.items() if got.__class__ is deque and not got]:
            del cal[t]
        self.times[:] = sorted(cal)  # (a sorted list is a heap)

    def pop(self) -> Item:
        """Take the next queue item of the calendar (:attr:`then` aside); EmptySchedule
        when there is none."""
        times = self.times
        if not times:
            raise EmptySchedule
        when = times[0]
        cal = self.at
        got = cal[when]
        if got.__class__ is tuple:
            del cal[when]
            heappop(times)
            return got
        item: Item = got.popleft()
        if not got:
            del cal[when]
            heappop(times)
        return item

    def order(self) -> int:
        """The event being processed, in the event order (:func:`order_of`)."""
        current = self.current
        return (current[1] << 62) + current[2]  # order_of(priority, eid), one call fewer

    def step(self) -> None:
        """Process the next event (as SimPy does, :attr:`then` first), remembering its queue
        item."""
        item = self.then
        if item is not None:
            self.then = None
        else:
            item = self.pop()
            self._now = item[0]
        self.current = item
        event = item[3]
        callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]  # processed
        for callback in callbacks:
            callback(event)
        if not event._ok and not hasattr(event, "_defused"):
            exc = type(event._value)(*event._value.args)
            exc.__cause__ = event._value
            raise exc


def queue_last(env: Clock, item: Item) -> None:
    """Queue ``item``, which goes after every item of its time: it has the next sequence
    number and NORMAL priority (what :func:`at` and :func:`callback_at` inline)."""
    when = item[0]
    got = env.at.setdefault(when, item)
    if got is item:
        heappush(env.times, when)
    elif got.__class__ is tuple:
        env.at[when] = deque((got, item))
    else:
        got.append(item)


def queue_item(env: Clock, item: Item) -> None:
    """Queue ``item`` in its place among the items of its time, by (priority, sequence
    number): an urgent item, or one given an earlier sequence number."""
    when = item[0]
    cal = env.at
    got = cal.get(when)
    if got is None:
        cal[when] = item
        heappush(env.times, when)
        return
    if got.__class__ is tuple:
        got = cal[when] = deque((got,))
    key = (item[1], item[2])
    i = len(got)
    while i and (got[i - 1][1], got[i - 1][2]) > key:
        i -= 1
    got.insert(i, item)


def _overflow(now: float, delay: float) -> ClockOverflow:
    return ClockOverflow(f"the simulated clock would overflow: an event {delay:.6g} s after "
                         f"t = {now:.9g} s (a transfer too long for its link's bandwidth, or a "
                         "sum of huge times)")


def order_of(priority: int, eid: int) -> int:
    """One integer that sorts as (priority, sequence number) do in SimPy's queue."""
    return (priority << 62) + eid

class BuiltEvent(Event):
    """SimPy's Event, made by this module's helpers (which set its ``env``, ``callbacks``,
    ``_value`` and ``_ok`` themselves) without running ``Event.__init__``: calling a class
    whose ``__init__`` is object's costs about 300 instructions less than
    ``object.__new__(Event)``, and events are made several times per message."""

    __slots__ = ()
    # SimPy types ``callbacks`` as a list; it is None once the event is processed, and a
    # tuple shared by the events of one kind (callbacks_at)
    callbacks: Sequence[Callable[[Event], None]] | None  # type: ignore[assignment]
    if TYPE_CHECKING:
        def __init__(self) -> None: ...
    else:
        __init__ = object.__init__



def done(env: Environment, value: Any = None) -> Event:
    """An event that has already happened with ``value``: yielding it costs no scheduling."""
    ev = BuiltEvent()
    ev.env = env
    ev.callbacks = None
    ev._value = value
    ev._ok = True
    return ev


def failed(env: Environment, exc: BaseException) -> Event:
    """An already-processed failed event: yielding it raises ``exc`` in the program."""
    ev = BuiltEvent()
    ev.env = env
    ev.callbacks = None
    ev._value = exc
    ev._ok = False
    return ev


def pending(env: Environment) -> Event:
    """An event that happens when someone fires it (``fire_at``): SimPy's ``Event(env)``,
    built in this frame."""
    ev = BuiltEvent()
    ev.env = env
    ev.callbacks = []
    ev._value = PENDING
    return ev


def fire_at(ev: Event, when: float, value: Any = None, ok: bool = True) -> None:
    """Schedule a pending event to happen at simulated time ``when`` (>= now)."""
    env = ev.env
    ev._ok = ok
    ev._value = value
    env.schedule(ev, NORMAL, when - env._now)


def at(env: Clock, when: float, value: Any = None) -> Event:
    """An event that happens at time ``when`` (what a Timeout is, built in this frame): done
    at once when that is now (the run's one :attr:`Clock.done_none` for a None value: a
    processed event is never changed, so every call that returns None at once can share it)."""
    now = env._now
    if when <= now and value is None:
        return env.done_none
    ev = BuiltEvent()
    ev.env = env
    ev._value = value
    ev._ok = True
    if when <= now:
        ev.callbacks = None  # (done(), inlined)
        return ev
    ev.callbacks = []
    when = now + (when - now)  # the time Clock.schedule computes (the same float)
    if not when < _INF:
        raise _overflow(now, when - now)
    item = (when, NORMAL, next(env._eid), ev)  # (queue_last, inlined: once per event)
    got = env.at.setdefault(when, item)
    if got is item:
        heappush(env.times, when)
    elif got.__class__ is tuple:
        env.at[when] = deque((got, item))
    else:
        got.append(item)
    return ev


def callback_at(env: Clock, when: float, fn: Callable[[Event], None], value: Any) -> None:
    """Run ``fn(event)`` at time ``when``; ``event._value`` is ``value``."""
    callbacks_at(env, when, [fn], value)


def callbacks_at(env: Clock, when: float, callbacks: Sequence[Callable[[Event], None]],
                 value: Any) -> None:
    """:func:`callback_at` with a tuple of callbacks the caller made once and passes to
    every event of its kind (an event's ``callbacks`` are only read once it is processed,
    and nobody appends to an engine step's): no list and no bound method made per event."""
    ev = BuiltEvent()
    ev.env = env
    ev.callbacks = callbacks
    ev._value = value
    ev._ok = True
    now = env._now
    when = now + (when - now)  # the time Clock.schedule computes (the same float)
    if not when < _INF:
        raise _overflow(now, when - now)
    item = (when, NORMAL, next(env._eid), ev)  # (queue_last, inlined: once per event)
    got = env.at.setdefault(when, item)
    if got is item:
        heappush(env.times, when)
    elif got.__class__ is tuple:
        env.at[when] = deque((got, item))
    else:
        got.append(item)


def callback_in_place(env: Clock, when: float, eid: int, fn: Callable[[Event], None],
                      value: Any) -> None:
    """Run ``fn(event)`` at time ``when`` in the place of sequence number ``eid`` (taken
    earlier from ``env._eid``): the event is processed where it would have been had it been
    scheduled when ``eid`` was taken."""
    ev = BuiltEvent()
    ev.env = env
    ev.callbacks = [fn]
    ev._value = value
    ev._ok = True
    queue_item(env, (when, NORMAL, eid, ev))
