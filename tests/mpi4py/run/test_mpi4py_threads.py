"""Simulated threads in mpi4py scripts (MPI 4.1 §11.6): ``threading``, ``queue`` and
``concurrent.futures`` run as simulated threads of their rank, on the simulated clock.

The scripts of tests/data/mpi4py/threads/ print what mpi4py 4.1.2 printed on MPICH 5.0.2
(the .txt beside each); the stand-in must print the same, and its simulated times are
checked against the times worked out by hand in each script's docstring.
"""

from __future__ import annotations

import filecmp
import re
import subprocess
import sys
import textwrap

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms

THREADS = DATA / "mpi4py" / "threads"


def _run(capsys, path, ranks, *args, **kwargs):
    result = ms.run_mpi4py(path, ranks=ranks, args=args, **kwargs)
    return result, capsys.readouterr().out


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_11_6_a_communication_thread_beside_compute_threads(capsys):
    """§11.6 (MPI_THREAD_MULTIPLE): the comm thread's sendrecv waits for the compute
    threads' parts (30 ms), blocking only itself; the ranks exchange 6 and 12."""
    result, out = _run(capsys, THREADS / "comm_compute.py", 2)
    assert result.outcome is ms.Outcome.COMPLETED
    assert sorted(out.splitlines()) == (THREADS / "comm_compute.txt").read_text().splitlines()
    result, out = _run(capsys, THREADS / "comm_compute.py", 2, "times")
    ends = [float(line.split()[-1]) for line in out.splitlines() if "end" in line]
    assert len(ends) == 2 and all(0.030 < end < 0.0301 for end in ends)  # 30 ms + one message


def test_a_producer_and_a_consumer_over_a_bounded_queue(capsys):
    """The consumer takes items at 0, 3, 6, 9, 12 ms; the queue is joined at 15 ms."""
    result, out = _run(capsys, THREADS / "producer_consumer.py", 1, "times")
    assert result.outcome is ms.Outcome.COMPLETED
    lines = out.splitlines()
    assert lines[0] == (THREADS / "producer_consumer.txt").read_text().strip()
    assert lines[1] == "times ms [0, 3, 6, 9, 12] joined ms 15"
    assert result.sim_time == pytest.approx(0.015)


def test_a_lock_order_deadlock_between_threads_that_wait_in_mpi():
    """Two threads of rank 0 take two locks in opposite orders around their MPI calls: the
    run ends DEADLOCK, the report naming both threads, their lines and their cycle."""
    result = ms.run_mpi4py(THREADS / "lock_order.py", ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert result.deadlock.thread_cycles == [["0:alpha", "0:beta"]]
    blocked = {b.thread: b for b in result.deadlock.blocked if b.thread}
    assert blocked["alpha"].where == "lock_order.py:20 (alpha)"  # its `with b:`
    assert blocked["beta"].where == "lock_order.py:27 (beta)"  # its `with a:`
    assert "held by thread 'beta'" in blocked["alpha"].reason
    assert "held by thread 'alpha'" in blocked["beta"].reason


def test_the_same_seed_gives_byte_identical_results(tmp_path):
    outs = []
    for run in ("a", "b"):
        out = tmp_path / run
        done = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "2", "--set",
                               "seed=7", "--out", str(out), str(THREADS / "comm_compute.py")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outs.append(out / "result.json")
    assert filecmp.cmp(*outs, shallow=False)


@pytest.mark.real_mpi
@pytest.mark.parametrize(("name", "ranks", "args"), [
    ("comm_compute", 2, []), ("producer_consumer", 1, []), ("matched_race", 2, ["matched"]),
    ("init_deferred", 1, [])])
def test_the_stored_outputs_are_what_mpich_prints(name, ranks, args):
    found = real_mpi.oracle()
    if found is None:
        pytest.skip("no real mpi4py and MPI library here (pip install mpi4py mpich)")
    python, mpiexec, family = found
    if family != "mpich":
        pytest.skip("the outputs were observed with MPICH 5.0.2")
    script = THREADS / ("probe_race.py" if name == "matched_race" else f"{name}.py")
    outcome, out, err = real_mpi.launch([mpiexec, "-n", str(ranks), python, str(script),
                                         *args], 120)
    assert outcome == "completed", err
    assert _records(out) == _records((THREADS / f"{name}.txt").read_text())


def _records(text: str) -> list[str]:
    """A run's printed records in order of text: its lines, a line of one rank cut where
    another rank's record starts (two processes' prints can meet on one line of the pipe)."""
    return sorted(r.strip() for r in re.split(r"\n|(?=rank \d+: )", text) if r.strip())


# -- the stand-in's threading, queue and concurrent.futures, call by call ---------------------
def test_primitives_wait_in_simulated_time(tmp_path, capsys):
    path = _script(tmp_path, """
        import threading, time
        from mpi4py import MPI
        log = []
        def at(what):
            log.append((what, round(MPI.Wtime() * 1000, 3)))

        flag = threading.Event()
        assert flag.wait(0.002) is False; at("event timeout")        # 2 ms
        threading.Timer(0.001, flag.set).start()
        assert flag.wait() is True; at("timer set")                 # 3 ms
        late = threading.Timer(0.5, lambda: at("never")); late.start(); late.cancel()

        cond = threading.Condition()
        box = []
        def fill():
            time.sleep(0.004)
            with cond:
                box.append(1)
                cond.notify()
        threading.Thread(target=fill).start()
        with cond:
            assert cond.wait_for(lambda: box, timeout=1) == [1]
        at("condition")                                             # 7 ms

        barrier = threading.Barrier(3, action=lambda: at("barrier action"))
        got = []
        def party(d):
            time.sleep(d)
            got.append(barrier.wait())
        ts = [threading.Thread(target=party, args=(d,)) for d in (0.001, 0.003, 0.002)]
        for t in ts: t.start()
        for t in ts: t.join()
        at("barrier")                                               # 10 ms
        assert sorted(got) == [0, 1, 2]

        sem = threading.BoundedSemaphore(2)
        def user():
            with sem:
                time.sleep(0.001)
        ts = [threading.Thread(target=user) for _ in range(5)]
        for t in ts: t.start()
        for t in ts: t.join()
        at("semaphore")                                             # 13 ms
        t = threading.Thread(target=time.sleep, args=(0.004,))
        t.start()
        t.join(0.002)
        assert t.is_alive(); at("join timeout")                     # 15 ms

        mine = threading.local()
        mine.x = "main"
        seen = []
        def look():
            seen.append(getattr(mine, "x", None))
            mine.x = "thread"
        t = threading.Thread(target=look); t.start(); t.join()
        assert seen == [None] and mine.x == "main"
        assert threading.current_thread() is threading.main_thread()
        assert threading.get_ident() == 0
        import _thread
        lock = _thread.allocate_lock()
        lock.acquire()
        _thread.start_new_thread(lambda: (time.sleep(0.001), lock.release()), ())
        assert lock.acquire(timeout=1) and round(MPI.Wtime() * 1000, 6) == 16
        lock.release()
        print(log)
    """)
    result, out = _run(capsys, path, 1)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.strip() == str([("event timeout", 2.0), ("timer set", 3.0), ("condition", 7.0),
                               ("barrier action", 10.0), ("barrier", 10.0),
                               ("semaphore", 13.0), ("join timeout", 15.0)])
    # the script's end joins the sleeper (17 ms); the cancelled timer's 0.5 s is not waited
    assert result.sim_time == pytest.approx(0.017)


def test_a_thread_pool_runs_its_work_on_simulated_threads(tmp_path, capsys):
    """Two workers: jobs of 3 and 1 ms start at 0, the job of 2 ms at 1 ms on the freed
    worker; as_completed gives 1 (1 ms), then 9 and 4 (3 ms); map of three 2 ms jobs on two
    workers ends 4 ms later."""
    path = _script(tmp_path, """
        import time
        from concurrent.futures import ThreadPoolExecutor, as_completed, wait, FIRST_COMPLETED
        import concurrent.futures
        import concurrent.futures.thread
        from concurrent.futures.thread import ThreadPoolExecutor as Pool
        from mpi4py import MPI

        def job(ms):
            time.sleep(ms / 1000)
            return ms * ms

        with ThreadPoolExecutor(max_workers=2) as pool:
            fs = [pool.submit(job, ms) for ms in (3, 1, 2)]
            done, not_done = wait(fs, return_when=FIRST_COMPLETED)
            first = (len(done), round(MPI.Wtime() * 1000))
            order = [f.result() for f in as_completed(fs)]
            t0 = MPI.Wtime()
            mapped = list(pool.map(job, [2, 2, 2]))
            took = round((MPI.Wtime() - t0) * 1000)
        print(first, order, round(t0 * 1000), mapped, took,
              concurrent.futures.ThreadPoolExecutor is ThreadPoolExecutor is Pool
              is concurrent.futures.thread.ThreadPoolExecutor)
    """)
    result, out = _run(capsys, path, 1)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.strip() == "(1, 1) [1, 9, 4] 3 [4, 4, 4] 4 True"


def test_threads_call_mpi_and_block_only_themselves(tmp_path, capsys):
    """Rank 1's receiving thread waits for rank 0's message, sent at 5 ms, while its main
    thread goes on (§11.6: a blocking call blocks the calling thread only)."""
    path = _script(tmp_path, """
        import threading, time
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            time.sleep(0.005)
            comm.send("late", dest=1)
        else:
            got = []
            t = threading.Thread(target=lambda: got.append(comm.recv(source=0)))
            t.start()
            time.sleep(0.001)
            main_at = MPI.Wtime()
            t.join()
            print(got, round(main_at * 1000), round(MPI.Wtime() * 1000))
    """)
    result, out = _run(capsys, path, 2)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.strip() == "['late'] 1 5"


def test_11_2_1_the_thread_level_is_mpi4py_rc_s(tmp_path, capsys):
    """§11.2.1: mpi4py initializes MPI with rc.thread_level at import ("multiple" by
    default); MPICH gives the level asked for, and a second MPI_Init_thread fails."""
    path = _script(tmp_path, """
        import mpi4py
        mpi4py.rc.thread_level = "funneled"
        from mpi4py import MPI
        try:
            MPI.Init_thread(MPI.THREAD_MULTIPLE)
        except MPI.Exception:
            again = "refused"
        print(MPI.Query_thread(), MPI.THREAD_FUNNELED, again)
    """)
    result, out = _run(capsys, path, 1)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.strip() == "1 1 refused"


def test_an_exception_in_a_thread_ends_the_run_naming_the_thread(tmp_path, capsys):
    path = _script(tmp_path, """
        import sys, threading
        from mpi4py import MPI
        threading.Thread(target=sys.exit).start()     # ends its thread only
        def bad():
            raise ValueError("boom")
        threading.Thread(target=bad, name="worker").start()
    """)
    result, _ = _run(capsys, path, 1)
    assert result.outcome is ms.Outcome.ERROR
    assert "boom" in result.error.message and "'worker'" in result.error.message


def test_only_the_script_s_own_code_gets_simulated_threading(tmp_path, capsys):
    """A module of the script's directory gets the simulated threading; the standard
    library keeps the real one, and nothing is left behind after the run."""
    import builtins
    import queue
    import threading

    real_import = builtins.__import__
    _script(tmp_path, "import threading\nLOCK = threading.Lock()\n", "helper.py")
    path = _script(tmp_path, """
        import helper, threading, queue, logging
        print(type(helper.LOCK).__module__.startswith("mpisim"),
              type(threading.Lock()).__module__.startswith("mpisim"),
              logging.threading is __import__("sys").modules["threading"],
              type(queue.Queue()).__module__.startswith("mpisim"))
    """)
    result, out = _run(capsys, path, 1)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.strip() == "True True True True"
    assert sys.modules["threading"] is threading and sys.modules["queue"] is queue
    assert builtins.__import__ is real_import


def test_11_2_1_an_mpi_call_from_a_thread_under_funneled_is_a_finding(capsys):
    """§11.2.1: under MPI_THREAD_FUNNELED only the main thread may call MPI; the script's
    thread 'talker' calls MPI_Barrier: a thread-level finding on each rank, at its line."""
    result, out = _run(capsys, THREADS / "funneled.py", 2)
    assert result.outcome is ms.Outcome.COMPLETED
    assert sorted(out.split()) == ["0", "1", "1", "1"]  # Query_thread: FUNNELED
    found = sorted((f.calls[0].rank, f.rule, f.calls[0].call, f.calls[0].where)
                   for f in result.findings)
    assert found == [(r, "thread-level", "MPI_Barrier", "funneled.py:17 (talk)")
                     for r in (0, 1)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_11_6_2_probe_then_recv_from_two_threads_races_where_mprobe_does_not(capsys, seed):
    """§11.6.2, §3.8.2: two threads Probe then Recv two messages of one tag: both probe the
    first, one receives the second into the first's size (MPI_ERR_TRUNCATE, and a
    thread-probe-race finding), in every thread order the seed draws; with Mprobe/Mrecv the
    probe takes its message and both receive in full."""
    result, _ = _run(capsys, THREADS / "probe_race.py", 2, seed=seed)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_TRUNCATE"
    assert [f.rule for f in result.findings] == ["thread-probe-race"]
    result, out = _run(capsys, THREADS / "probe_race.py", 2, "matched", seed=seed)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.splitlines() == (THREADS / "matched_race.txt").read_text().splitlines()
    assert not result.findings


def test_a_daemon_thread_is_not_resumed_after_the_script_s_end(tmp_path, capsys):
    """A daemon heartbeat thread (an endless sleep loop) does not keep the run going, nor
    run into the script's torn-down globals: as CPython at exit, it is not resumed."""
    path = _script(tmp_path, """
        import threading, time
        from mpi4py import MPI
        beats = []
        def beat():
            while True:
                time.sleep(0.01)
                beats.append(MPI.Wtime())
        threading.Thread(target=beat, daemon=True).start()
        time.sleep(0.025)
        MPI.COMM_WORLD.Barrier()
        print(len(beats))
    """)
    result, out = _run(capsys, path, 2)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.split() == ["2", "2"]  # beats at 10 and 20 ms, then the script ends


def test_sleep_0_gives_the_turn_up_and_check_races_finds_the_lock_order_race(capsys):
    """time.sleep(0) in a thread lets the rank's other runnable threads go first (as
    CPython's releases the interpreter): two threads taking two locks in opposite orders
    then deadlock in the simulator's own order and complete in seed 1's; check --races
    tries the threads' orders and says the outcome depends on them."""
    result, _ = _run(capsys, THREADS / "lock_race.py", 1)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert result.deadlock.thread_cycles == [["0:one", "0:two"]]
    assert sorted(b.where for b in result.deadlock.blocked if b.thread) == [
        "lock_race.py:17 (one)", "lock_race.py:24 (two)"]  # each at its second lock
    result, out = _run(capsys, THREADS / "lock_race.py", 1, seed=1)
    assert result.outcome is ms.Outcome.COMPLETED and out.strip() == "done 0"
    done = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", "--check",
                           "--races", "--quiet", str(THREADS / "lock_race.py")],
                          capture_output=True, text=True, timeout=300)
    assert "racy" in done.stdout + done.stderr and done.returncode != 0


def test_11_2_1_the_script_initializes_mpi_itself_after_rc_initialize_false(capsys):
    """§11.2.1: with mpi4py.rc.initialize = False, MPI.Init_thread() is the script's own
    MPI_Init_thread (THREAD_MULTIPLE provided); a second one is MPI_ERR_OTHER."""
    result, out = _run(capsys, THREADS / "init_deferred.py", 1)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.splitlines() == (THREADS / "init_deferred.txt").read_text().splitlines()


def test_11_2_1_serialized_calls_under_a_lock_are_no_finding(capsys):
    """§11.2.1: under MPI_THREAD_SERIALIZED two threads whose calls a lock keeps apart,
    and which give their turn up with time.sleep(0) between calls, break no rule: a
    thread in sleep(0) is outside MPI, not inside its last call."""
    result, out = _run(capsys, THREADS / "serialized.py", 2)
    assert result.outcome is ms.Outcome.COMPLETED, result.error
    assert out.split() == ["ok", "2", "ok", "2"]
    assert not result.findings
