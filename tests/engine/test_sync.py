"""The simulated threading primitives (mpisim.engine.sync) on the run's clock.

Threads here are SimPy processes on a Clock (``current`` is the active process): the
primitives ask nothing more of a thread. Times are simulated seconds, computed by hand.
"""

from __future__ import annotations

import queue
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.engine import sync
from mpisim.engine.clock import Clock


def clock() -> Clock:
    return Clock()


def who(env: Clock):
    return lambda: env.active_process


def run(env: Clock, *programs):
    procs = [env.process(p) for p in programs]
    env.run()
    return procs


# -- Lock ----------------------------------------------------------------------------------
def test_lock_free_acquire_is_already_happened_and_hands_over_fifo():
    env = clock()
    lock = sync.Lock(env, who(env), name="L")
    log = []

    def holder(name, start, hold):
        yield env.timeout(start)
        got = yield lock.acquire()
        log.append((name, "in", env.now, got))
        yield env.timeout(hold)
        lock.release()

    first = lock.acquire()
    assert first.callbacks is None and first.value is True  # free: happened already
    lock.release()
    run(env, holder("a", 0, 2), holder("b", 1, 1), holder("c", 0.5, 1))
    # a holds 0..2; c asked at 0.5, b at 1: c gets it at 2, b at 3
    assert log == [("a", "in", 0, True), ("c", "in", 2, True), ("b", "in", 3, True)]
    assert not lock.locked() and lock.holders() == () and lock.waiters() == ()


def test_lock_waiter_event_names_lock_and_thread_for_the_wait_for_graph():
    env = clock()
    lock = sync.Lock(env, who(env), name="L")
    seen = {}

    def a():
        yield lock.acquire()
        yield env.timeout(1)
        seen["holders"] = lock.holders()
        seen["waiters"] = lock.waiters()
        seen["describe"] = lock.describe()
        lock.release()

    def b():
        ev = lock.acquire()
        seen["ev"] = ev
        yield ev

    pa, pb = run(env, a(), b())
    assert seen["holders"] == (pa,) and seen["waiters"] == (pb,)
    assert seen["ev"].waits_on is lock and seen["ev"].thread is pb
    assert seen["describe"].startswith("Lock 'L' (held by ")


def test_lock_timeout_gives_false_at_the_timeout_and_a_won_wait_leaves_no_timer():
    env = clock()
    lock = sync.Lock(env, who(env))
    out = []

    def a():
        yield lock.acquire()
        yield env.timeout(3)
        lock.release()

    def b():
        out.append(((yield lock.acquire(timeout=1)), env.now))   # gives up at 1
        out.append(((yield lock.acquire(timeout=100)), env.now))  # gets it at 3
        lock.release()

    def c(name):  # two timers due at the same time (101), both taken out
        yield env.timeout(1)
        out.append(((yield lock.acquire(timeout=100)), env.now, name))
        lock.release()

    run(env, a(), b(), c("c"), c("d"))
    assert out == [(False, 1), (True, 3, "c"), (True, 3, "d"), (True, 3)]  # c, d asked first
    assert env.now == 3  # the 100 s timers were taken out: the run ends at 3, not at 101


def test_lock_argument_errors_as_threading():
    env = clock()
    lock = sync.Lock(env)
    with pytest.raises(RuntimeError, match="release unlocked lock"):
        lock.release()
    with pytest.raises(ValueError, match="non-blocking"):
        lock.acquire(False, 1)
    with pytest.raises(ValueError, match="non-negative"):
        lock.acquire(True, -2)
    assert lock.acquire().value is True
    assert lock.acquire(blocking=False).value is False
    assert lock.acquire(timeout=0).value is False


def test_rlock_reenters_and_only_its_owner_releases():
    env = clock()
    rl = sync.RLock(env, who(env))
    out = []

    def a():
        yield rl.acquire()
        yield rl.acquire()
        rl.release()
        yield env.timeout(1)
        rl.release()  # the second release frees it (at 1)

    def b():
        yield env.timeout(0.5)
        with pytest.raises(RuntimeError, match="un-acquired"):
            rl.release()
        out.append(((yield rl.acquire()), env.now))
        rl.release()

    run(env, a(), b())
    assert out == [(True, 1)]


# -- Condition -----------------------------------------------------------------------------
def test_condition_wait_releases_lock_and_takes_it_back_after_notify():
    env = clock()
    cond = sync.Condition(env, who(env))
    items, out = [], []

    def consumer():
        yield cond.acquire()
        while not items:
            yield cond.wait()
        out.append((items.pop(), env.now, cond.lock.holders() == (env.active_process,)))
        cond.release()

    def producer():
        yield env.timeout(2)
        yield cond.acquire()  # free: the consumer released it in wait()
        items.append("x")
        cond.notify()
        yield env.timeout(1)  # the consumer is woken but waits for the lock until 3
        cond.release()

    run(env, consumer(), producer())
    assert out == [("x", 3, True)]


def test_condition_wait_timeout_is_false_and_wait_without_lock_is_an_error():
    env = clock()
    cond = sync.Condition(env, who(env))
    out = []

    def a():
        with pytest.raises(RuntimeError, match="un-acquired"):
            cond.wait()
        yield cond.acquire()
        out.append(((yield cond.wait(timeout=2.5)), env.now))
        out.append(((yield cond.wait(timeout=0)), env.now))
        cond.release()

    run(env, a())
    assert out == [(False, 2.5), (False, 2.5)]


def test_condition_notify_all_wakes_every_waiter_once_in_order():
    env = clock()
    cond = sync.Condition(env, who(env), lock=sync.Lock(env, who(env)))
    order = []

    def waiter(i):
        yield env.timeout(i * 0.1)
        yield cond.acquire()
        yield cond.wait()
        order.append(i)
        cond.release()

    def notifier():
        yield env.timeout(1)
        yield cond.acquire()
        cond.notify_all()
        cond.release()

    run(env, *(waiter(i) for i in range(4)), notifier())
    assert order == [0, 1, 2, 3]


# -- Semaphore, Event, Barrier ------------------------------------------------------------
def test_semaphore_permits_and_bounded_over_release():
    env = clock()
    sem = sync.Semaphore(env, who(env), value=2)
    starts = []

    def user(i):
        yield sem.acquire()
        starts.append((i, env.now))
        yield env.timeout(1)
        sem.release()

    run(env, *(user(i) for i in range(5)))
    assert starts == [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2)]
    bounded = sync.BoundedSemaphore(env, value=1)
    with pytest.raises(ValueError, match="too many"):
        bounded.release()
    assert bounded.acquire().value is True
    bounded.release()
    with pytest.raises(ValueError, match="initial value"):
        sync.Semaphore(env, value=-1)


def test_event_set_wakes_all_waiters_at_that_time():
    env = clock()
    flag = sync.Event(env, who(env))
    out = []

    def waiter(timeout):
        out.append(((yield flag.wait(timeout)), env.now))

    def setter():
        yield env.timeout(2)
        flag.set()

    run(env, waiter(None), waiter(1), waiter(5), setter())
    assert sorted(out) == [(False, 1), (True, 2), (True, 2)]
    assert flag.wait().value is True and flag.is_set()
    flag.clear()
    assert flag.wait(0).value is False


def test_barrier_indices_action_and_timeout_breaks_it():
    env = clock()
    ran = []
    bar = sync.Barrier(env, who(env), parties=3, action=lambda: ran.append(env.now))
    out = []

    def party(delay):
        yield env.timeout(delay)
        out.append(((yield bar.wait()), env.now))

    run(env, party(1), party(3), party(2))
    assert sorted(out) == [(0, 3), (1, 3), (2, 3)] and ran == [3]

    env = clock()
    bar = sync.Barrier(env, who(env), parties=2)
    errors = []

    def late(timeout):
        try:
            yield bar.wait(timeout)
        except threading.BrokenBarrierError:
            errors.append(env.now)

    run(env, late(1.5))
    assert errors == [1.5] and bar.broken
    broken = bar.wait()  # a broken barrier fails at once
    assert broken.callbacks is None and not broken.ok
    assert isinstance(broken.value, threading.BrokenBarrierError)
    broken.defused = True
    bar.reset()
    assert not bar.broken and bar.n_waiting == 0


# -- Queue -------------------------------------------------------------------------------
def test_queue_fifo_bounded_put_blocks_and_get_hands_over():
    env = clock()
    q = sync.Queue(env, who(env), maxsize=1)
    got, put_at = [], []

    def producer():
        for i in range(3):
            yield q.put(i)
            put_at.append(env.now)

    def consumer():
        for _ in range(3):
            yield env.timeout(1)
            got.append(((yield q.get()), env.now))

    run(env, producer(), consumer())
    assert got == [(0, 1), (1, 2), (2, 3)]
    assert put_at == [0, 1, 2]  # the second put waits for the first get


def test_queue_timeouts_raise_empty_and_full_at_the_timeout():
    env = clock()
    q = sync.Queue(env, who(env), maxsize=1)
    out = []

    def a():
        try:
            yield q.get(timeout=2)
        except queue.Empty:
            out.append(("empty", env.now))
        yield q.put(1)
        try:
            yield q.put(2, timeout=0.5)
        except queue.Full:
            out.append(("full", env.now))

    run(env, a())
    assert out == [("empty", 2), ("full", 2.5)]
    with pytest.raises(queue.Full):
        q.put_nowait(3)
    assert q.get_nowait() == 1
    with pytest.raises(queue.Empty):
        q.get_nowait()
    with pytest.raises(ValueError, match="non-negative"):
        q.get(timeout=-1)


def test_queue_join_waits_for_task_done():
    env = clock()
    q = sync.Queue(env, who(env))
    done_at = []

    def worker():
        while True:
            item = yield q.get()
            if item is None:
                q.task_done()
                return
            yield env.timeout(item)
            q.task_done()

    def main():
        for item in (1, 2, None):
            q.put_nowait(item)
        yield q.join()
        done_at.append(env.now)

    run(env, worker(), main())
    assert done_at == [3]
    with pytest.raises(ValueError, match="too many"):
        q.task_done()


def test_lifo_and_priority_queues_order():
    env = clock()
    lifo, prio = sync.LifoQueue(env), sync.PriorityQueue(env)
    for x in (3, 1, 2):
        lifo.put_nowait(x)
        prio.put_nowait(x)
    assert [lifo.get_nowait() for _ in range(3)] == [2, 1, 3]
    assert [prio.get_nowait() for _ in range(3)] == [1, 2, 3]
    simple = sync.SimpleQueue(env)
    simple.put_nowait("a")
    assert simple.qsize() == 1 and not simple.full()


# -- invariants ---------------------------------------------------------------------------
plans = st.lists(st.tuples(st.integers(0, 5), st.integers(1, 3),
                           st.one_of(st.none(), st.integers(0, 4))), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(plans)
def test_lock_has_at_most_one_holder_and_every_waiter_is_woken_once(plan):
    """Threads (start, hold, timeout) on one lock: never two holders; each acquire ends
    exactly once, granted in request order; nothing is left waiting or held."""
    env = clock()
    lock = sync.Lock(env, who(env))
    inside, ends, granted = [0], [], []

    def thread(i, start, hold, timeout):
        yield env.timeout(start)
        ev = lock.acquire(timeout=-1 if timeout is None else timeout)
        ends.append(i)  # (counted again below: an acquire ends once)
        got = yield ev
        ends.append(i)
        if got:
            granted.append((env.now, i))
            inside[0] += 1
            assert inside[0] == 1 and lock.holders() == (env.active_process,)
            yield env.timeout(hold)
            inside[0] -= 1
            lock.release()

    run(env, *(thread(i, *p) for i, p in enumerate(plan)))
    assert sorted(ends) == sorted(list(range(len(plan))) * 2)
    assert not lock.locked() and lock.waiters() == ()
    untimed = [i for i, p in enumerate(plan) if p[2] is None]
    assert set(untimed) <= {i for _, i in granted}  # who waits for ever gets it
    order = [i for _, i in granted]
    assert order == sorted(order, key=lambda i: (plan[i][0], i))  # first come, first served


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=10), st.integers(0, 3),
       st.integers(1, 3))
def test_queue_delivers_each_item_once_in_order(delays, maxsize, consumers):
    """A producer's items through a (bounded) FIFO to several consumers: each item got
    exactly once, and the items leave in the order they were put."""
    env = clock()
    q = sync.Queue(env, who(env), maxsize=maxsize)
    got = []

    def producer():
        for i, d in enumerate(delays):
            yield env.timeout(d)
            yield q.put(i)
        for _ in range(consumers):
            yield q.put(None)

    def consumer(c):
        while True:
            item = yield q.get()
            if item is None:
                return
            got.append(item)
            yield env.timeout(c + 1)

    run(env, producer(), *(consumer(c) for c in range(consumers)))
    assert sorted(got) == list(range(len(delays)))
    assert q.empty() and q.waiters() == ()


# -- in a run: the threads of a rank (mpi.spawn_thread) ----------------------------------------
def test_a_rank_s_threads_share_a_queue_and_a_lock_in_a_run():
    """A native program: two producer threads put (rank, i) into a queue every 1 ms, the
    main thread takes six items and sends their sum to the other rank; each thread's
    holders are its own (mpi.current_thread)."""
    import mpisim as ms
    from mpisim.handle.access import port_of

    def producer(mpi, q, lock, held, k):
        for i in range(3):
            yield mpi.compute(0.001)
            yield lock.acquire()
            held.append(lock.holders()[0].name)
            lock.release()
            yield q.put((k, i))

    def program(mpi):
        env = port_of(mpi).env
        q, lock = sync.Queue(env, mpi.current_thread), sync.Lock(env, mpi.current_thread)
        held = []
        for k in range(2):
            mpi.spawn_thread(producer, mpi, q, lock, held, k, name=f"p{k}")
        total = 0
        for _ in range(6):
            k, i = yield q.get()
            total += 10 * k + i
        peer = 1 - mpi.rank
        yield mpi.send(count=8, dest=peer, tag=0)
        yield mpi.recv(count=8, source=peer, tag=0)
        return total, mpi.now, held

    result = ms.run(program, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    for total, when, held in result.returned:
        assert total == 0 + 1 + 2 + 10 + 11 + 12
        assert 0.003 <= when < 0.0031
        assert held == ["p0", "p1"] * 3


def test_a_lock_order_deadlock_of_two_threads_in_a_run_names_both():
    """Thread a holds L1 and waits for a message, then for L2; thread b holds L2 and
    waits for L1: the run ends DEADLOCK with the cycle a -> b -> a."""
    import mpisim as ms
    from mpisim.handle.access import port_of

    def a(mpi, l1, l2):
        yield l1.acquire()
        yield mpi.recv(count=8, source=1, tag=1)
        yield l2.acquire()

    def b(mpi, l1, l2):
        yield l2.acquire()
        yield mpi.send(count=8, dest=1, tag=2)
        yield l1.acquire()

    def program(mpi):
        if mpi.rank == 1:
            yield mpi.recv(count=8, source=0, tag=2)
            yield mpi.send(count=8, dest=0, tag=1)
            return
        env = port_of(mpi).env
        l1 = sync.Lock(env, mpi.current_thread, name="L1")
        l2 = sync.Lock(env, mpi.current_thread, name="L2")
        ta = mpi.spawn_thread(a, mpi, l1, l2, name="a")
        tb = mpi.spawn_thread(b, mpi, l1, l2, name="b")
        yield ta
        yield tb

    result = ms.run(program, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert result.deadlock.thread_cycles == [["0:a", "0:b"]]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3), st.lists(st.tuples(st.integers(0, 4), st.integers(1, 3)),
                                   min_size=1, max_size=8))
def test_a_semaphore_never_lends_more_permits_than_it_has(value, plan):
    """Threads (start, hold) on a Semaphore(value): at most ``value`` hold a permit at
    once, each acquire is granted once, and every permit is back at the end."""
    env = clock()
    sem = sync.BoundedSemaphore(env, who(env), value=value)
    inside, granted = [0], []

    def thread(i, start, hold):
        yield env.timeout(start)
        assert (yield sem.acquire()) is True
        granted.append(i)
        inside[0] += 1
        assert inside[0] <= len(sem.holders()) <= value  # (a handed permit: held at once)
        yield env.timeout(hold)
        inside[0] -= 1
        sem.release()

    run(env, *(thread(i, *p) for i, p in enumerate(plan)))
    assert sorted(granted) == list(range(len(plan)))
    assert sem.holders() == () and sem.waiters() == ()
    with pytest.raises(ValueError):
        sem.release()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6),
       st.lists(st.integers(1, 3), min_size=1, max_size=6))
def test_a_condition_wakes_each_waiter_once_and_in_order(starts, notifies):
    """Waiters (arriving at ``starts``) and notify(n) calls a millisecond apart, then a
    notify_all: each waiter is woken exactly once, the earliest waiters first, and each
    holds the lock when it wakes."""
    env = clock()
    cond = sync.Condition(env, who(env))
    woken = []
    order = sorted(range(len(starts)), key=lambda i: (starts[i], i))

    def waiter(i):
        yield env.timeout(starts[i])
        yield cond.acquire()
        assert (yield cond.wait()) is True
        assert cond.lock.holders() == (env.active_process,)
        woken.append(i)
        cond.release()

    def notifier():
        yield env.timeout(10)
        for n in notifies:
            yield cond.acquire()
            cond.notify(n)
            cond.release()
            yield env.timeout(1)
        yield cond.acquire()
        cond.notify_all()
        cond.release()

    run(env, *(waiter(i) for i in range(len(starts))), notifier())
    assert woken == order
