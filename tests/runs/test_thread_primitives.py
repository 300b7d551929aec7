"""The threads of a rank synchronize through ``ms.Lock``, ``ms.Queue``... (mpisim.runs.threads):
each takes the rank's handle and gives the simulated primitive of that rank, whose holders
and waiters are the rank's threads (MPI 4.1 §11.6: the threads of a process share it)."""

from __future__ import annotations

import doctest

import pytest

import mpisim as ms
from mpisim.engine import sync
from mpisim.runs import threads

FACTORIES = {"Lock": sync.Lock, "RLock": sync.RLock, "Condition": sync.Condition,
             "Semaphore": sync.Semaphore, "BoundedSemaphore": sync.BoundedSemaphore,
             "Event": sync.Event, "Barrier": sync.Barrier, "Queue": sync.Queue}


def test_each_factory_is_in_the_one_namespace_and_makes_its_primitive_named():
    made = {}

    def program(mpi):
        for name in FACTORIES:
            extra = (1,) if name == "Barrier" else ()
            made[name] = getattr(ms, name)(mpi, *extra, name=f"my {name}")
        yield mpi.barrier()

    ms.run(program, ranks=1)
    for name, kind in FACTORIES.items():
        assert name in ms.__all__
        assert type(made[name]) is kind, name
        assert made[name].name == f"my {name}"


def test_a_lock_knows_the_thread_holding_it():
    """The primitive reads the rank's running thread: a lock taken by thread ``t`` names
    ``t`` as its holder (what a deadlock report shows)."""
    seen = []

    def hold(mpi, lock):
        yield lock.acquire()
        seen.append(lock.holders())
        lock.release()

    def program(mpi):
        lock = ms.Lock(mpi, name="L")
        t = mpi.spawn_thread(hold, mpi, lock, name="t")
        yield t
        return lock.locked()

    assert ms.run(program, ranks=1).returned == [False]
    assert [[h.name for h in held] for held in seen] == [["t"]]


def test_a_lock_order_deadlock_through_ms_lock_names_both_threads_and_the_cycle():
    """§11.6: threads of one rank blocked on each other's lock, each after an MPI call: the
    run ends DEADLOCK, each thread named with the lock it waits on and its holder."""
    def take(mpi, first, second, tag):
        yield first.acquire()
        peer = 1 - mpi.rank
        yield mpi.sendrecv(sendcount=1, dest=peer, sendtag=tag, recvcount=1, source=peer,
                           recvtag=tag)
        yield second.acquire()

    def program(mpi):
        l1, l2 = ms.Lock(mpi, name="L1"), ms.Lock(mpi, name="L2")
        a = mpi.spawn_thread(take, mpi, l1, l2, 1, name="a")
        mpi.spawn_thread(take, mpi, l2, l1, 2, name="b")
        yield a

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.DEADLOCK
    rows = [(b.rank, b.thread, b.reason) for b in r.deadlock.blocked if b.rank == 0]
    assert rows[1:] == [(0, "a", "waits on Lock 'L2', held by thread 'b'"),
                        (0, "b", "waits on Lock 'L1', held by thread 'a'")]
    assert r.deadlock.thread_cycles == [["0:a", "0:b"], ["1:a", "1:b"]]


def test_a_queue_hands_work_to_a_communication_thread_in_simulated_time():
    """A producer puts three sizes; the thread sends each as it gets it, so the last send
    starts after the producer's 3 µs of computing per item."""
    def sender(mpi, q):
        while (count := (yield q.get())) is not None:
            yield mpi.send(count=count, dest=1, tag=0)

    def program(mpi):
        if mpi.rank == 1:
            got = []
            for _ in range(3):
                status = yield mpi.recv(count=64, source=0, tag=0)
                got.append(status.count)
            return got
        q = ms.Queue(mpi, maxsize=1)
        t = mpi.spawn_thread(sender, mpi, q, name="comm")
        for count in (8, 16, 32):
            yield mpi.compute(3e-6)
            yield q.put(count)
        yield q.put(None)
        yield t
        return mpi.now

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[1] == [8, 16, 32]
    assert r.returned[0] >= 9e-6


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_the_examples_of_each_factory_run(name):
    """Each factory's docstring example, as a user copies it."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    found = doctest.DocTestFinder(recurse=False).find(getattr(threads, name),
                                                       f"mpisim.{name}")
    assert found and found[0].examples
    for test in found:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
