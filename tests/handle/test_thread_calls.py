"""Threads of a rank (MPI 4.1 §11.6): the thread level a process asks for and is given
(§11.2.1), and simulated threads that make MPI calls beside the rank's program, each
blocking only itself (mpisim.engine.threads, mpisim.handle.threads)."""

from __future__ import annotations

import json

import pytest
from helpers.programs import thread_senders

import mpisim as ms
from mpisim.engine.threads import MAIN, SimThread
from mpisim.mpi.constants import THREAD_FUNNELED, THREAD_MULTIPLE, THREAD_SINGLE


def _recv_then_return(mpi, source, tag, value):
    yield mpi.recv(count=1, source=source, tag=tag)
    return value


def test_a_thread_blocked_in_a_receive_blocks_only_itself():
    """§11.6: a blocking call blocks the calling thread only. Rank 0's thread waits in
    MPI_Recv for a message rank 1 sends only after rank 0's program has sent it one and
    computed for 5 µs: both ranks' programs run on meanwhile."""
    times = {}

    def program(mpi):
        if mpi.rank == 0:
            t = mpi.spawn_thread(_recv_then_return, mpi, 1, 7, "got it", name="listener")
            yield mpi.send(count=1, dest=1, tag=3)
            yield mpi.compute(5e-6)
            times["main done"] = mpi.now
            value = yield t  # join
            times["joined"] = mpi.now
            return value
        yield mpi.recv(count=1, source=0, tag=3)
        yield mpi.compute(10e-6)
        yield mpi.send(count=1, dest=0, tag=7)
        return None

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned == ["got it", None]
    assert times["main done"] < times["joined"]  # the main thread went on while it waited
    assert times["joined"] >= 10e-6


def test_a_thread_is_an_event_whose_value_is_its_targets_return_value():
    def double(x):  # a plain function: runs to its end in one step
        return 2 * x

    def program(mpi):
        t = mpi.spawn_thread(double, 21)
        assert isinstance(t, SimThread) and t.name == "Thread-1" and t.ident == 1
        value = yield t
        assert not t.is_alive
        return value

    assert ms.run(program, ranks=1).returned == [42]


def test_threads_are_numbered_within_their_rank_and_see_themselves_as_current():
    seen = []

    def worker(mpi):
        seen.append((mpi.rank, mpi.current_thread().name, mpi.current_thread().ident,
                     mpi.is_thread_main()))
        yield mpi.compute(1e-6)

    def program(mpi):
        a = mpi.spawn_thread(worker, mpi)
        b = mpi.spawn_thread(worker, mpi, name="second")
        seen.append((mpi.rank, mpi.current_thread().name, 0, mpi.is_thread_main()))
        assert mpi.current_thread() is MAIN
        yield a
        yield b

    ms.run(program, ranks=2)
    assert sorted(seen) == [(0, "MainThread", 0, True), (0, "Thread-1", 1, False),
                            (0, "second", 2, False), (1, "MainThread", 0, True),
                            (1, "Thread-1", 1, False), (1, "second", 2, False)]


def test_a_thread_may_spawn_threads():
    def leaf(mpi):
        yield mpi.compute(1e-6)
        return mpi.current_thread().name

    def middle(mpi):
        inner = mpi.spawn_thread(leaf, mpi, name="leaf")
        return (yield inner)

    def program(mpi):
        return (yield mpi.spawn_thread(middle, mpi))

    assert ms.run(program, ranks=1).returned == ["leaf"]


def test_mpi_finalize_waits_for_the_ranks_threads():
    """A rank whose program returns while a thread still works: its MPI_Finalize (§11.2.2)
    comes after the thread's end, as a process's exit joins its threads first."""
    def late_sender(mpi):
        yield mpi.compute(20e-6)
        yield mpi.send(count=1, dest=1, tag=0)

    def program(mpi):
        if mpi.rank == 0:
            mpi.spawn_thread(late_sender, mpi)
            return "returned at once"
        yield mpi.recv(count=1, source=0, tag=0)
        return mpi.now

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[0] == "returned at once"
    assert r.returned[1] >= 20e-6
    assert r.ranks[0].end_time >= 20e-6


def test_a_daemon_thread_does_not_hold_mpi_finalize():
    def forever(mpi):
        yield mpi.recv(count=1, source=0, tag=99)  # never sent

    def program(mpi):
        mpi.spawn_thread(forever, mpi, daemon=True)
        yield mpi.barrier()

    assert ms.run(program, ranks=2).outcome is ms.Outcome.COMPLETED


def test_a_run_ends_when_its_ranks_do_though_a_daemon_thread_still_sleeps():
    """A process exits without waiting for its daemon threads: a heartbeat that computes
    for ever neither keeps the run going nor moves its end."""
    def heartbeat(mpi):
        while True:
            yield mpi.compute(1e-3)

    def program(mpi):
        mpi.spawn_thread(heartbeat, mpi, daemon=True, name="heartbeat")
        yield mpi.barrier()

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.sim_time == max(x.end_time for x in r.ranks) < 1e-3


def test_a_deadlock_report_names_each_blocked_thread_and_its_line():
    """Both ranks' threads wait for a message the other never sends; each rank's program
    returned and waits in MPI_Finalize for its thread."""
    def listener(mpi):
        yield mpi.recv(count=1, source=1 - mpi.rank, tag=5)

    def program(mpi):
        mpi.spawn_thread(listener, mpi, name="listener")
        yield mpi.barrier()

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.DEADLOCK
    threads = [b for b in r.deadlock.blocked if b.thread is not None]
    assert [(b.rank, b.thread, b.call, b.peer, b.tag) for b in threads] == [
        (0, "listener", "MPI_Recv", 1, 5), (1, "listener", "MPI_Recv", 0, 5)]
    assert all(b.where.startswith("test_thread_calls.py:") and "(listener)" in b.where
               for b in threads)
    mains = [b for b in r.deadlock.blocked if b.thread is None]
    assert [b.call for b in mains] == ["MPI_Finalize", "MPI_Finalize"]
    assert "'listener'" in mains[0].reason
    assert r.deadlock.cycles == [[0, 1]]
    report = r.report()
    assert "2 ranks (2 threads of theirs) blocked forever" in report
    assert "rank 0 (thread 'listener'): MPI_Recv(peer=1, tag=5" in report
    blocked = json.loads(r.to_json())["deadlock"]["blocked"]
    assert [b.get("thread") for b in blocked] == [None, "listener", None, "listener"]


def test_a_deadlock_without_threads_keeps_its_json_unchanged():
    def program(mpi):
        yield mpi.recv(count=1, source=1 - mpi.rank, tag=0)

    blocked = json.loads(ms.run(program, ranks=2).to_json())["deadlock"]["blocked"]
    assert all("thread" not in b for b in blocked)


def test_an_exception_in_a_thread_ends_the_run_naming_the_thread():
    def bad(mpi):
        yield mpi.compute(1e-6)
        raise ValueError("boom")

    def program(mpi):
        mpi.spawn_thread(bad, mpi, name="worker")
        yield mpi.barrier()

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.ERROR
    assert r.error.rank == 0 and r.error.error_class == "ValueError"
    assert "raised by thread 'worker' of rank 0" in r.error.message
    assert r.error.where.startswith("test_thread_calls.py:") and "(bad)" in r.error.where


def test_an_mpi_error_in_a_thread_is_the_threads_call():
    def bad(mpi):
        yield mpi.send(count=1, dest=5, tag=0)  # no rank 5

    def program(mpi):
        yield mpi.spawn_thread(bad, mpi, name="sender")

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.ERROR
    assert r.error.call == "MPI_Send" and r.error.error_class == "MPI_ERR_RANK"
    assert "thread 'sender' of rank 0" in r.error.message


def test_a_call_whose_event_a_thread_never_yields_is_not_yielded():
    def forgetful(mpi):
        mpi.send(count=1, dest=1 - mpi.rank, tag=0)  # no yield
        yield mpi.compute(1e-6)

    def program(mpi):
        yield mpi.spawn_thread(forgetful, mpi)

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "NotYielded"


def test_yielding_something_that_is_not_an_event_fails_the_thread():
    def wrong(mpi):
        yield 3

    def program(mpi):
        yield mpi.spawn_thread(wrong, mpi, name="w")

    r = ms.run(program, ranks=1)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "NotYielded"
    assert "yielded 3 (an int), which is not an MPI call's event" in r.error.message
    assert "(in thread 'w' of rank 0)" in r.error.message and "(wrong)" in r.error.where


def test_the_same_threaded_program_gives_the_same_result_byte_for_byte():
    def worker(mpi, k):
        for _ in range(3):
            yield mpi.send(count=k + 1, dest=(mpi.rank + 1) % mpi.size, tag=k)
            yield mpi.recv(count=k + 1, source=(mpi.rank - 1) % mpi.size, tag=k)

    def program(mpi):
        threads = [mpi.spawn_thread(worker, mpi, k) for k in range(3)]
        yield from threads  # each joined in turn

    first, second = (ms.run(program, ranks=3).to_json() for _ in range(2))
    assert json.loads(first)["outcome"] == "completed"
    assert first == second


def test_init_thread_gives_the_level_asked_for_as_mpich_and_open_mpi_do():
    """§11.2.1: MPI_Init_thread's ``provided``. MPICH 5.0.2 and Open MPI 4.1.4 give each
    level asked for (measured); MPI_Init gives MPI_THREAD_SINGLE."""
    def program(mpi):
        before = mpi.query_thread()
        provided = mpi.init_thread(mpi.rank)
        return before, provided, mpi.query_thread()
        yield  # a generator

    returned = ms.run(program, ranks=4).returned
    assert returned == [(THREAD_SINGLE, level, level) for level in range(4)]

    def by_name(mpi):
        return mpi.init_thread("funneled")
        yield

    assert ms.run(by_name, ranks=1).returned == [THREAD_FUNNELED]


def test_init_thread_is_refused_after_the_first_call_and_for_no_level():
    def late(mpi):
        yield mpi.barrier()
        mpi.init_thread(THREAD_MULTIPLE)

    r = ms.run(late, ranks=1)
    assert r.outcome is ms.Outcome.ERROR and "initialized already" in r.error.message

    def wrong(mpi):
        mpi.init_thread("many")
        yield mpi.barrier()

    r = ms.run(wrong, ranks=1)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "MPI_ERR_ARG"
    assert "'many' is no thread level" in r.error.message


def test_spawn_thread_refuses_a_target_that_is_not_callable():
    def program(mpi):
        mpi.spawn_thread(42)
        yield mpi.barrier()

    r = ms.run(program, ranks=1)
    assert r.outcome is ms.Outcome.ERROR and "not callable" in r.error.message


@pytest.mark.parametrize("ranks", [1, 4])
def test_is_thread_main_is_true_in_the_program_and_false_in_a_thread(ranks):
    def worker(mpi):
        return mpi.is_thread_main()

    def program(mpi):
        return mpi.is_thread_main(), (yield mpi.spawn_thread(worker, mpi))

    assert ms.run(program, ranks=ranks).returned == [(True, False)] * ranks


def test_a_lock_order_deadlock_between_two_threads_that_also_wait_in_mpi():
    """Thread ``a`` takes L1 then, after a message exchange with the other rank, L2; thread
    ``b`` takes L2 then L1 after its own exchange: each ends up waiting for the lock the
    other holds. The report names both threads, the lock each waits on and who holds it,
    and the thread cycle; the rank's program waits to join ``a``."""
    from mpisim.engine.sync import Lock
    from mpisim.handle.access import port_of

    def take(mpi, first, second, tag):
        yield first.acquire()
        peer = 1 - mpi.rank
        yield mpi.sendrecv(sendcount=1, dest=peer, sendtag=tag, recvcount=1, source=peer,
                           recvtag=tag)
        yield second.acquire()

    def program(mpi):
        env = port_of(mpi).env
        l1, l2 = (Lock(env, mpi.current_thread, name=n) for n in ("L1", "L2"))
        a = mpi.spawn_thread(take, mpi, l1, l2, 1, name="a")
        mpi.spawn_thread(take, mpi, l2, l1, 2, name="b")
        yield a

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.DEADLOCK
    rows = [(b.rank, b.thread, b.call, b.reason) for b in r.deadlock.blocked]
    assert rows[:3] == [
        (0, None, "join 'a'", "waits for thread 'a' to end"),
        (0, "a", "Lock 'L2'", "waits on Lock 'L2', held by thread 'b'"),
        (0, "b", "Lock 'L1'", "waits on Lock 'L1', held by thread 'a'")]
    assert r.deadlock.thread_cycles == [["0:a", "0:b"], ["1:a", "1:b"]]
    assert "thread cycle: rank 0 thread 'a' -> rank 0 thread 'b' -> rank 0 thread 'a'" \
        in r.report()
    assert json.loads(r.to_json())["deadlock"]["thread_cycles"][0] == ["0:a", "0:b"]


def _rules(result):
    return [(f.rule, f.section) for f in result.findings]


def _send_from_thread(level):
    def worker(mpi):
        yield mpi.send(count=1, dest=1, tag=0)

    def program(mpi):
        if level is not None:
            mpi.init_thread(level)
        if mpi.rank == 0:
            yield mpi.spawn_thread(worker, mpi, name="sender")
        else:
            yield mpi.recv(count=1, source=0, tag=0)

    return ms.run(program, ranks=2)


def test_11_2_1_a_second_threads_call_under_thread_single_is_a_finding():
    """§11.2.1: under MPI_THREAD_SINGLE (what MPI_Init gives) only one thread executes."""
    r = _send_from_thread(None)
    assert r.outcome is ms.Outcome.COMPLETED
    assert _rules(r) == [("thread-level", "11.2.1, 11.6")]
    f = r.findings[0]
    assert "thread 'sender' of rank 0 called MPI_Send under MPI_THREAD_SINGLE" in f.message
    assert f.calls[0].rank == 0 and f.calls[0].call == "MPI_Send"
    assert "(worker)" in f.calls[0].where


def test_11_2_1_a_call_from_a_thread_other_than_main_under_funneled_is_a_finding():
    """§11.2.1: under MPI_THREAD_FUNNELED only the main thread makes MPI calls."""
    r = _send_from_thread("funneled")
    assert _rules(r) == [("thread-level", "11.2.1, 11.6")]
    assert "under MPI_THREAD_FUNNELED: only the main thread may call MPI" in \
        r.findings[0].message


@pytest.mark.parametrize("level", ["serialized", "multiple"])
def test_11_2_1_one_thread_calling_at_a_time_is_no_finding(level):
    assert _rules(_send_from_thread(level)) == []


def test_11_2_1_a_call_while_another_thread_is_in_one_under_serialized_is_a_finding():
    """§11.2.1: under MPI_THREAD_SERIALIZED no two threads call MPI at once. Rank 0's
    thread waits in MPI_Recv while its main thread sends: the two calls overlap."""
    def listener(mpi):
        yield mpi.recv(count=1, source=1, tag=9)

    def program(mpi):
        mpi.init_thread("serialized")
        if mpi.rank == 0:
            t = mpi.spawn_thread(listener, mpi, name="listener")
            yield mpi.compute(1e-6)  # the listener is in its receive by now
            yield mpi.send(count=1, dest=1, tag=1)
            yield t
        else:
            yield mpi.recv(count=1, source=0, tag=1)
            yield mpi.send(count=1, dest=0, tag=9)

    r = ms.run(program, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED
    assert _rules(r) == [("thread-level", "11.2.1, 11.6")]
    assert ("thread 'MainThread' of rank 0 called MPI_Send while thread 'listener' was in "
            "MPI_Recv, under MPI_THREAD_SERIALIZED") in r.findings[0].message
    assert [c.call for c in r.findings[0].calls] == ["MPI_Recv", "MPI_Send"]


def test_11_6_2_two_threads_waiting_on_one_request_is_a_finding():
    """§11.6.2: "A program in which two threads block, waiting on the same request, is
    erroneous." Both of rank 0's threads wait on its irecv's request."""
    def waiter(mpi, req):
        yield mpi.wait(req)

    def program(mpi):
        mpi.init_thread("multiple")
        if mpi.rank == 0:
            req = yield mpi.irecv(count=1, source=1, tag=0)
            a = mpi.spawn_thread(waiter, mpi, req, name="a")
            b = mpi.spawn_thread(waiter, mpi, req, name="b")
            yield a
            yield b
        else:
            yield mpi.compute(5e-6)
            yield mpi.send(count=1, dest=0, tag=0)

    r = ms.run(program, ranks=2)
    assert ("thread-same-request", "11.6.2") in _rules(r)
    f = next(f for f in r.findings if f.rule == "thread-same-request")
    assert "threads 'a' and 'b' of rank 0 both wait on one request" in f.message


def test_11_6_2_two_threads_in_collectives_on_one_communicator_is_a_finding():
    """§11.6.2: collective calls on one communicator match in the order issued; two
    threads of a process inside collectives on it at once have no defined order."""
    def member(mpi):
        yield mpi.barrier()

    def program(mpi):
        mpi.init_thread("multiple")
        a = mpi.spawn_thread(member, mpi, name="a")
        b = mpi.spawn_thread(member, mpi, name="b")
        yield a
        yield b

    r = ms.run(program, ranks=2)
    assert ("thread-concurrent-collective", "11.6.2") in _rules(r)
    f = next(f for f in r.findings if f.rule == "thread-concurrent-collective")
    assert "threads 'a' and 'b' of rank 0 are in collective calls on one communicator" \
        in f.message


def _probe_then_receive(mpi):
    """MPI_Probe for the size, then MPI_Recv of that many bytes by source and tag."""
    status = yield mpi.probe(source=1, tag=0)
    yield mpi.recv(count=status.count, source=1, tag=0)
    return status.count


def _mprobe_then_mrecv(mpi):
    """MPI_Mprobe takes the message; MPI_Mrecv receives exactly it."""
    message, status = yield mpi.mprobe(source=1, tag=0)
    yield mpi.mrecv(count=status.count, message=message)
    return status.count


@pytest.mark.parametrize("receive", [_probe_then_receive, _mprobe_then_mrecv])
def test_11_6_2_two_threads_probing_one_message_race_where_matched_probes_do_not(receive):
    """§11.6.2 and §3.8.2, the reason matched probes exist. Rank 1 sends 40 B then 80 B
    with one tag; two threads of rank 0 each probe for the size and receive. With
    MPI_Probe both probe the 40-byte message; one receives it, the other's receive (40 B)
    takes the 80-byte one: MPI_ERR_TRUNCATE, and the probe race is a finding. With
    MPI_Mprobe each takes its own message: both complete."""
    def program(mpi):
        mpi.init_thread("multiple")
        if mpi.rank == 1:
            yield mpi.send(count=40, dest=0, tag=0)
            yield mpi.send(count=80, dest=0, tag=0)
            return None
        a = mpi.spawn_thread(receive, mpi, name="a")
        b = mpi.spawn_thread(receive, mpi, name="b")
        return (yield a), (yield b)

    r = ms.run(program, ranks=2)
    if receive is _mprobe_then_mrecv:
        assert r.outcome is ms.Outcome.COMPLETED and r.findings == []
        assert r.returned[0] == (40, 80)
        return
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "MPI_ERR_TRUNCATE"
    assert "thread 'b' of rank 0" in r.error.message
    race = next(f for f in r.findings if f.rule == "thread-probe-race")
    assert race.section == "11.6.2, 3.8.2"
    assert "threads 'a' and 'b' of rank 0 both probed the message from rank 1 (tag 0)" \
        in race.message
    assert [c.call for c in race.calls] == ["MPI_Probe", "MPI_Probe"]
    assert all("(_probe_then_receive)" in c.where for c in race.calls)


def test_threads_runnable_at_one_instant_run_in_spawn_order_with_seed_0():
    assert ms.run(thread_senders, ranks=2).returned[1] == 1


def test_a_seed_names_one_interleaving_of_threads_and_others_give_others():
    """The order of threads runnable at one instant is drawn from the run's seed: the same
    seed gives the same run byte for byte; among seeds, both orders of a and b occur."""
    firsts = {seed: ms.run(thread_senders, ranks=2, seed=seed).returned[1]
              for seed in range(1, 17)}
    assert set(firsts.values()) == {1, 2}
    for seed in (3, 11):
        assert ms.run(thread_senders, ranks=2, seed=seed).to_json() == \
            ms.run(thread_senders, ranks=2, seed=seed).to_json()
