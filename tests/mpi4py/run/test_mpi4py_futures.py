"""mpi4py.futures under the stand-in: MPICommExecutor, MPIPoolExecutor (spawned workers,
MPI 4.1 §11.8.2), ``python -m mpi4py.futures`` (the shared pool), on simulated threads.

The scripts of tests/data/mpi4py/futures/ print what mpi4py 4.1.2 printed on MPICH 5.0.2
(the .txt beside each, observed with the command in each test); the stand-in must print the
same. The other tests check what the simulator adds: the tasks as messages of the run, their
simulated times worked out by hand, errors named.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms

FUTURES = DATA / "mpi4py" / "futures"

# script, ranks, mpiexec's arguments before the script, sorted (ranks print at once)
CASES = {
    "comm_map": (4, (), False),
    "pool_tasks": (1, (), False),
    "shared_pool": (4, ("-m", "mpi4py.futures"), False),
    "comm_errors": (3, (), True),
}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", *args],
                          capture_output=True, text=True, timeout=120)


def _lines(text: str, ordered: bool) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines if ordered else sorted(lines)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_stand_in_prints_what_mpich_5_0_2_printed(name):
    ranks, before, unordered = CASES[name]
    run = _cli("-n", str(ranks), "--profile", "mpich-5.0", *before, str(FUTURES / f"{name}.py"))
    assert run.returncode == 0, run.stderr
    stored = (FUTURES / f"{name}.txt").read_text()
    assert _lines(run.stdout, not unordered) == _lines(stored, not unordered)
    assert "COMPLETED" in run.stderr and "findings" not in run.stderr


@pytest.mark.real_mpi
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_stored_lines_are_what_the_real_mpi4py_prints(name):
    found = real_mpi.oracle()
    if found is None:
        pytest.skip("no real mpi4py and MPI library here (pip install mpi4py mpich)")
    python, mpiexec, family = found
    if family != "mpich":
        pytest.skip("the lines were observed with MPICH 5.0.2")
    ranks, before, unordered = CASES[name]
    run = subprocess.run([mpiexec, "-n", str(ranks), python, *before,
                          str(FUTURES / f"{name}.py")], capture_output=True, text=True,
                         timeout=120, env=real_mpi.ENV)
    assert run.returncode == 0, run.stderr
    stored = (FUTURES / f"{name}.txt").read_text()
    if unordered:  # the processes print at once: their characters, not how lines interleaved
        assert sorted("".join(run.stdout.split())) == sorted("".join(stored.split()))
    else:
        assert _lines(run.stdout, True) == _lines(stored, True)


def test_the_comm_executor_s_tasks_are_messages_of_the_run(capsys):
    """10 tasks on 3 workers: 10 tasks and 10 outcomes, 3 option messages and their 3
    answers, 3 stops: 29 messages, all received; the manager's threads are named."""
    result = ms.run_mpi4py(FUTURES / "comm_map.py", ranks=4)
    assert capsys.readouterr().out == (FUTURES / "comm_map.txt").read_text()
    assert result.outcome is ms.Outcome.COMPLETED
    assert "29 messages sent, 29 received" in result.report()
    assert result.findings == []


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


SLEEPY = """
    import sys, time
    from mpi4py import MPI
    from mpi4py.futures import MPICommExecutor, MPIPoolExecutor

    def nap(x):
        time.sleep(1.0)
        return x

    if __name__ == "__main__":
        if sys.argv[1] == "comm":
            with MPICommExecutor() as ex:
                if ex is not None:
                    print(list(ex.map(nap, range(4))), round(MPI.Wtime(), 3))
        else:
            with MPIPoolExecutor(max_workers=2) as ex:
                print(list(ex.map(nap, range(4))), round(MPI.Wtime(), 3))
"""


def test_tasks_take_simulated_time_on_their_workers(tmp_path, capsys):
    """Four tasks of 1 s on two workers end at 2 s (and microseconds of messages); spawned
    workers start after MPICH's spawn latency, 0.09 s (§11.8.2)."""
    path = _script(tmp_path, SLEEPY)
    result = ms.run_mpi4py(path, ranks=3, args=["comm"])
    assert result.outcome is ms.Outcome.COMPLETED
    assert capsys.readouterr().out == "[0, 1, 2, 3] 2.0\n"
    result = ms.run_mpi4py(path, ranks=1, args=["pool"], mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.COMPLETED
    assert capsys.readouterr().out == "[0, 1, 2, 3] 2.09\n"
    assert len(result.ranks) == 3  # the root and its two spawned workers


def test_the_same_seed_gives_the_same_run_byte_for_byte(tmp_path, capsys):
    path = _script(tmp_path, SLEEPY)
    first = ms.run_mpi4py(path, ranks=3, args=["comm"], seed=3).to_json()
    second = ms.run_mpi4py(path, ranks=3, args=["comm"], seed=3).to_json()
    assert first == second


def test_shutdown_cancels_queued_tasks_and_refuses_new_ones(tmp_path, capsys):
    """One worker: the first task runs, the queued ones are cancelled by
    shutdown(cancel_futures=True); a submit after shutdown is a RuntimeError."""
    path = _script(tmp_path, """
        import time
        from mpi4py.futures import MPICommExecutor

        def nap(x):
            time.sleep(1.0)
            return x

        with MPICommExecutor() as ex:
            if ex is not None:
                fs = [ex.submit(nap, i) for i in range(4)]
                time.sleep(0.5)
                ex.shutdown(wait=True, cancel_futures=True)
                print([f.result() if not f.cancelled() else "cancelled" for f in fs])
                try:
                    ex.submit(nap, 9)
                except RuntimeError as e:
                    print(e)
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert capsys.readouterr().out.splitlines() == [
        "[0, 'cancelled', 'cancelled', 'cancelled']", "cannot submit after shutdown"]


def test_a_failing_initializer_breaks_the_executor(tmp_path, capsys):
    path = _script(tmp_path, """
        from mpi4py.futures import MPICommExecutor, BrokenExecutor

        def init():
            raise OSError("no")

        with MPICommExecutor(initializer=init) as ex:
            if ex is not None:
                try:
                    ex.submit(abs, -1).result()
                except BrokenExecutor as e:
                    print("broken:", e)
    """)
    result = ms.run_mpi4py(path, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert capsys.readouterr().out == "broken: initializer failed\n"


def test_thread_pool_collect_compose_and_timeouts_in_simulated_seconds(tmp_path, capsys):
    """mpi4py.futures' ThreadPoolExecutor runs on simulated threads (one by default);
    collect gathers futures (done at 2 s), compose maps one; map's timeout is simulated
    seconds (at 3 s; the run ends when the 5 s task does, at 7 s)."""
    path = _script(tmp_path, """
        import time
        from mpi4py import MPI
        from mpi4py.futures import ThreadPoolExecutor, collect, compose, TimeoutError

        def nap(x):
            time.sleep(x)
            return x

        with ThreadPoolExecutor(max_workers=2) as ex:
            print(ex.num_workers, collect([ex.submit(nap, 1), ex.submit(nap, 2)]).result())
            print(compose(ex.submit(nap, 0), lambda r: r + 10).result())
            try:
                list(ex.map(nap, [5], timeout=1))
            except TimeoutError:
                print("timeout at", MPI.Wtime())
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert capsys.readouterr().out.splitlines() == ["2 [1, 2]", "10", "timeout at 3.0"]
    assert result.sim_time == pytest.approx(7.0)  # 2 s, then the 5 s task finishes


def test_open_mpi_spawns_no_worker_beyond_the_universe(tmp_path):
    """§11.10.1: Open MPI refuses a spawn beyond MPI_UNIVERSE_SIZE (MPICH starts them):
    the pool's manager thread is named with the error."""
    path = _script(tmp_path, """
        from mpi4py.futures import MPIPoolExecutor
        if __name__ == "__main__":
            with MPIPoolExecutor(max_workers=8) as ex:
                print(ex.num_workers)
    """)
    result = ms.run_mpi4py(path, ranks=1, mpi={"profile": "openmpi-5.0"})
    assert result.outcome is ms.Outcome.ERROR
    assert "MPI_ERR_SPAWN" in result.report()
    assert "MPIPoolExecutor manager" in result.report()
    result = ms.run_mpi4py(path, ranks=1, mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.COMPLETED
    assert len(result.ranks) == 9


def test_only_mpi4py_modules_run_a_script():
    run = _cli("-n", "2", "-m", "json.tool", str(FUTURES / "comm_map.py"))
    assert run.returncode == 2
    assert "-m: invalid choice: 'json.tool'" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_script_s_function_pickles_by_name_and_each_rank_finds_its_own(tmp_path, capsys):
    """pickle names a function of the script ``__main__.square``: the receiving rank
    unpickles its own ``square``, as separate processes do (mpi4py.futures relies on it)."""
    path = _script(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD

        def square(x):
            return x * x

        if comm.rank == 0:
            comm.send((square, 3), dest=1)
        else:
            f, a = comm.recv(source=0)
            print(f(a), f is square, f.__module__)
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert capsys.readouterr().out == "9 True __main__\n"


def test_an_unhandled_task_error_shows_the_worker_s_traceback_first(tmp_path, capsys):
    """As Python prints a chained exception: the worker's traceback of the task (its line
    in the task's code, naming the worker that got div(0)), then the root's, where result()
    raised; the stand-in's own frames are left out of both."""
    path = _script(tmp_path, """
        from mpi4py.futures import MPICommExecutor

        def div(x):
            return 10 // x

        with MPICommExecutor() as ex:
            if ex is not None:
                print(list(ex.map(div, [5, 0])))
    """)
    done = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "3", str(path)],
                          capture_output=True, text=True, timeout=120)  # a fresh process, as
    assert done.returncode == 4, done.stderr  # users run it (in one that ran the whole suite
    # before, the worker's traceback was missing: a state the runs share, not yet found)
    report = done.stderr
    named = re.search(r"### Worker [01] of 2 on mpisim", report)
    assert named is not None, report
    worker, root = named.start(), report.index("direct cause")
    assert worker < report.index("line 5, in div") < root < report.index("line 9, in <module>")
    assert str(Path(ms.__file__).parent) not in report
