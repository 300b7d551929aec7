"""sweep(): the cartesian product of varied keys, its table, its files, its executors."""

from __future__ import annotations

import csv
import glob
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from helpers.programs import exchange

import mpisim as ms
from mpisim.whatif import SweepTable, sweep
from mpisim.whatif import executors as executors_module

REAL = 4  # bytes of MPI_REAL


EAGER = {"eager_limit": "4 KiB"}


def burst(mpi, k=2, m=1000):
    """Rank r bsends r + k messages of m bytes to the next rank, then receives its own."""
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    mine, theirs = mpi.rank + k, left + k
    for i in range(mine):
        yield mpi.bsend(count=m, dest=right, tag=i)
    for i in range(theirs):
        yield mpi.recv(count=m, source=left, tag=i)


CALLS: list[int] = []


def counted(mpi, count=1):
    CALLS.append(mpi.rank)
    yield mpi.compute(1e-6)


EXCHANGE_YAML = """\
name: exchange
ranks: 2
params: {count: 1000}
network: {latency: 1us, bandwidth: 10 GB/s, eager_limit: 4 KiB}
programs:
  - ranks: all
    ops:
      - send: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
      - recv: {source: 1 - rank, count: count, datatype: REAL, tag: 0}
"""


def expected_exchange(count: int, eager_limit: int) -> str:
    """3.5 Example 3.10: completes only if the standard sends are buffered (eager)."""
    return "completed" if count * REAL <= eager_limit else "deadlock"


def test_rows_follow_the_product_order_and_outcomes_follow_the_eager_rule():
    """Example 3.10 (3.5): deadlock exactly when the message exceeds the eager limit."""
    counts, limits = [250, 1000, 1500], [1024, 4096]
    table = sweep(exchange, {"count": counts, "network.eager_limit": limits}, ranks=2, jobs=1)
    assert table.keys == ["count", "network.eager_limit"]
    assert table.columns == ["count", "network.eager_limit", "outcome", "sim_time",
                             "error_class", "peak_used", "peak_live"]
    assert [(r["count"], r["network.eager_limit"]) for r in table] == \
        [(c, e) for c in counts for e in limits]
    assert [r["outcome"] for r in table] == [expected_exchange(c, e) for c in counts
                                             for e in limits]
    assert table.array.dtype["count"] == np.dtype("i8")
    assert table.array.dtype["outcome"] == np.dtype("U9")
    assert table.count("deadlock") == 3 and len(table) == 6


def test_table_rows_equal_single_runs():
    table = sweep(burst, {"k": [1, 3], "buffer": ["4 KiB", 16384]}, ranks=3, jobs=1,
                  network={"eager_limit": 0})
    assert table.array.dtype["buffer"].kind == "U"  # values as given: "4 KiB" and 16384
    for row in table:
        buf = {"4 KiB": 4096, "16384": 16384}[row["buffer"]]
        result = ms.run(burst, 3, network={"eager_limit": 0}, params={"k": row["k"]},
                        buffer=buf)
        assert row["outcome"] == result.outcome.value
        assert row["sim_time"] == result.sim_time
        assert row["peak_used"] == max(r.buffer.peak_used for r in result.ranks)
        assert row["peak_live"] == max(r.buffer.peak_live for r in result.ranks)
        assert row["error_class"] == (result.error.error_class if result.error else "")


def test_overflow_rows_carry_the_error_class_and_peaks_are_maxima_over_ranks():
    """3.6.1: an entry is pack_size + MPI_BSEND_OVERHEAD; rank r holds r + k entries."""
    m, k, n = 1000, 1, 3
    entry = m + 96
    table = sweep(burst, {"buffer": [entry * k, entry * (k + n - 1)]}, ranks=n, jobs=1,
                  network={"eager_limit": 0}, params={"k": k, "m": m})
    small, large = table.rows()
    assert (small["outcome"], small["error_class"]) == ("error", "MPI_ERR_BUFFER")
    assert large["outcome"] == "completed"
    assert large["peak_used"] == large["peak_live"] == entry * (k + n - 1)


def test_one_job_two_jobs_and_any_executor_give_the_same_table(monkeypatch):
    vary = {"count": "250..2000:250", "network.eager_limit": "1KiB..8KiB:x2"}
    one = sweep(exchange, vary, ranks=2, jobs=1)
    monkeypatch.setattr(executors_module, "POOL_STARTUP", 0.0)  # a pool, however short
    two = sweep(exchange, vary, ranks=2, jobs=2)
    with ThreadPoolExecutor(3) as pool:
        threads = sweep(exchange, vary, pool, ranks=2)
    assert len(one) == 32
    assert np.array_equal(one.array, two.array)
    assert np.array_equal(one.array, threads.array)


def test_short_sweeps_skip_the_pool_and_long_ones_use_it(monkeypatch):
    """Starting a pool costs more than a few milliseconds of runs: those run in-process."""
    pools = []

    class Counting(executors_module._Pool):
        def __init__(self, workers):
            pools.append(workers)
            super().__init__(workers)

    monkeypatch.setattr(executors_module, "_Pool", Counting)
    vary = {"count": "100..3000:100"}
    short = sweep(exchange, vary, ranks=2, jobs=2)
    assert pools == []
    monkeypatch.setattr(executors_module, "POOL_STARTUP", 0.0)
    pooled = sweep(exchange, vary, ranks=2, jobs=2)
    assert pools == [2]
    assert np.array_equal(short.array, pooled.array)


def test_a_scenario_file_is_swept_by_param_setting_ranks_and_seed(tmp_path):
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE_YAML)
    table = sweep(path, {"count": [500, 2000], "network.eager_limit": ["1 KiB", "16KiB"],
                         "seed": [0, 1]}, jobs=2)
    assert table.scenario == "exchange"
    assert table.array.dtype["network.eager_limit"].kind == "U"  # kept as given
    for row in table:
        limit = 1024 if row["network.eager_limit"] == "1 KiB" else 16384
        assert row["outcome"] == expected_exchange(row["count"], limit)
    assert sweep(str(path), {"count": "500,2000"}, jobs=1).array["outcome"].tolist() == \
        [expected_exchange(500, 4096), expected_exchange(2000, 4096)]


def test_bad_keys_and_values_fail_once_before_any_run():
    CALLS.clear()
    with pytest.raises(ValueError, match="not a parameter of program counted"):
        sweep(counted, {"count": [1], "size_of_it": [1, 2]}, ranks=1, jobs=1)
    with pytest.raises(ValueError, match=r"network\.latency") as info:
        sweep(counted, {"count": [1, 2], "network.latency": ["1us", "fast"]}, ranks=1, jobs=1)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="vary count: range"):
        sweep(counted, {"count": "5..1:1"}, ranks=1, jobs=1)
    with pytest.raises(ValueError, match="no values"):
        sweep(counted, {"count": []}, ranks=1, jobs=1)
    with pytest.raises(ValueError, match="ranks="):
        sweep(counted, {"count": [1]}, jobs=1)
    with pytest.raises(ValueError, match="outcome column"):
        sweep(counted, {"outcome": [1]}, ranks=1, jobs=1)
    assert CALLS == []


def test_unknown_scenario_key_is_the_scenarios_one_line_error(tmp_path):
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE_YAML)
    with pytest.raises(ValueError, match="cnt") as info:
        sweep(path, {"cnt": [1, 2]}, jobs=1)
    assert "\n" not in str(info.value)


def test_csv_is_the_table_and_is_written_whole(tmp_path):
    table = sweep(exchange, {"count": [250, 2000], "network.latency": "1us,2us"}, ranks=2,
                  jobs=1)
    path = table.to_csv(tmp_path / "sweep.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == table.columns
    assert len(rows) == 1 + len(table)
    for line, row in zip(rows[1:], table, strict=True):
        assert int(line[0]) == row["count"]
        assert float(line[1]) == row["network.latency"]
        assert line[2] == row["outcome"]
        assert float(line[3]) == row["sim_time"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.csv"]


def test_an_interrupted_csv_write_leaves_no_file(tmp_path, monkeypatch):
    table = sweep(exchange, {"count": [250]}, ranks=2, jobs=1)

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(SweepTable, "csv_text", interrupted)
    with pytest.raises(KeyboardInterrupt):
        table.to_csv(tmp_path / "sweep.csv")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_cancels_pending_runs_and_stops_the_pool(monkeypatch):
    calls = []

    def interrupted_wait(futures, return_when):
        calls.append(len(futures))
        raise KeyboardInterrupt

    monkeypatch.setattr(executors_module, "wait", interrupted_wait)
    monkeypatch.setattr(executors_module, "POOL_STARTUP", 0.0)  # a pool even for 30 runs
    with pytest.raises(KeyboardInterrupt):
        sweep(exchange, {"count": "100..3000:100"}, ranks=2, jobs=2)
    assert calls and calls[0] > 1
    assert multiprocessing.active_children() == []


def test_a_pool_worker_terminated_by_its_parent_dies_of_sigterm_without_a_traceback(capfd):
    """The CLI turns SIGTERM into an exception (mpisim.cli.interrupts) and forked workers inherit
    its handler; a worker the parent terminates must die of the signal, not raise from the
    pool's queue and print a traceback."""
    from mpisim.cli.interrupts import catching_sigterm

    def start_and_terminate() -> int:
        with executors_module._Pool(1) as pool:
            assert pool.submit(abs, -1).result(timeout=30) == 1  # the worker is running
            (worker,) = pool._processes.values()
            worker.terminate()
            deadline = time.monotonic() + 30  # (the pool's own thread may reap it first)
            while worker.exitcode is None and time.monotonic() < deadline:
                time.sleep(0.01)
            return worker.exitcode

    assert catching_sigterm(start_and_terminate, lambda e: 1) == -signal.SIGTERM
    assert "Traceback" not in capfd.readouterr().err


def test_ctrl_c_cancels_what_it_submitted_to_a_given_executor(monkeypatch):
    submitted = []

    class Recording(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            future = super().submit(fn, *args, **kwargs)
            submitted.append(future)
            return future

    def interrupted_wait(futures, return_when):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors_module, "wait", interrupted_wait)
    with Recording(1) as pool, pytest.raises(KeyboardInterrupt):
        sweep(exchange, {"count": "100..3000:100"}, pool, ranks=2, jobs=8)
    assert len(submitted) > 1
    assert all(f.cancelled() or f.done() for f in submitted)
    assert any(f.cancelled() for f in submitted)


def test_text_table_and_dict_for_json():
    table = sweep(exchange, {"count": [250, 2000]}, ranks=2, jobs=1, network=EAGER)
    text = str(table)
    assert text.splitlines()[0].split() == ["count", "outcome", "sim_time"]  # (no bsend:
    # peak_used, peak_live and error_class are all zero or empty, left out of the text)
    assert "2 runs: 1 completed, 1 deadlock" in text
    assert repr(table).startswith("<SweepTable exchange: 2 runs over count>")
    d = table.to_dict()
    assert d["vary"] == {"count": [250, 2000]}
    assert [r["outcome"] for r in d["rows"]] == ["completed", "deadlock"]


def test_text_shows_values_in_units_and_leaves_out_columns_all_zero():
    """Sizes, times and bandwidths as a user writes them; the outcome columns that say
    nothing (no error class, no buffer used, all at t = 0) are left out of the text only."""
    table = sweep(exchange, {"network.eager_limit": "1KiB,64KiB", "network.latency": "1us,2.5us",
                             "network.bandwidth": "10GB/s"}, ranks=2, jobs=1,
                  params={"count": 250})
    lines = str(table).splitlines()
    assert lines[0].split() == ["network.eager_limit", "network.latency", "network.bandwidth",
                                "outcome", "sim_time"]
    assert lines[1].split()[:6] == ["1", "KiB", "1", "µs", "10", "GB/s"]
    assert lines[4].split()[:4] == ["64", "KiB", "2.5", "µs"]
    assert "error_class" in table.columns and "peak_used" in table.csv_text()
    html = table._repr_html_()  # (a notebook's table: the same cells)
    assert ">1 KiB<" in html and ">2.5 µs<" in html and "error_class" not in html


def test_to_pandas_is_the_table_or_a_clear_import_error(monkeypatch):
    table = sweep(exchange, {"count": [250, 2000]}, ranks=2, jobs=1, network=EAGER)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"pip install .mpisim\[pandas\]."):
            table.to_pandas()
    else:
        frame = table.to_pandas()
        assert list(frame.columns) == table.columns
        assert frame["outcome"].tolist() == ["completed", "deadlock"]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install .mpisim\[pandas\]."):
        table.to_pandas()


def test_progress_bar_goes_to_stderr_when_asked(capsys):
    sweep(exchange, {"count": [250, 500, 750]}, ranks=2, jobs=1, progress=True)
    assert "runs" in capsys.readouterr().err
    sweep(exchange, {"count": [250, 500, 750]}, ranks=2, jobs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_workers_never_import_matplotlib():
    """Per-run start-up stays cheap: the what-if path imports no plotting library."""
    script = textwrap.dedent("""
        import sys
        from concurrent.futures import ProcessPoolExecutor
        import mpisim as ms
        from mpisim.whatif import sweep

        def exchange(mpi, count=1):
            yield mpi.send(count=count, dest=1 - mpi.rank)
            yield mpi.recv(count=count, source=1 - mpi.rank)

        def loaded():
            return sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib")

        if __name__ == "__main__":
            with ProcessPoolExecutor(2) as pool:
                table = sweep(exchange, {"count": [1, 2, 3, 4]}, pool, ranks=2)
                assert table.count("completed") == 4
                print(pool.submit(loaded).result(), loaded())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.split() == ["[]", "[]"]


def test_ctrl_c_on_the_command_line_stops_workers_and_writes_nothing(tmp_path):
    """An interrupted `mpisim sweep --out DIR` exits with one line and no worker left; DIR
    holds only the runs that finished, in sweep.partial.csv."""
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE_YAML)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpisim", "sweep", str(path), "--vary", "count=1..100000",
         "--vary", "seed=0,1", "--jobs", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # (as a terminal
    # gives it: a shell starts a background job with SIGINT ignored, which mpisim keeps)
    try:
        deadline = time.monotonic() + 30
        while len(_group(proc.pid)) < 3 and time.monotonic() < deadline:  # pool started
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir()] == ["sweep.partial.csv"]
    deadline = time.monotonic() + 5
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _group(proc.pid) == []  # the workers ended with it


def _group(pgid: int) -> list[int]:
    """Live processes of a process group (from /proc; zombies are not alive)."""
    pids = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(stat.split("/")[2]))
    return pids


def test_run_keywords_given_with_a_scenario_rebuild_it(tmp_path):
    """ranks=, params=, network= beside a scenario mean what --set means on the command line."""
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE_YAML)
    table = sweep(path, {"count": [2000]}, jobs=1, network={"eager_limit": "64 KiB"})
    assert table.array["outcome"].tolist() == [expected_exchange(2000, 65536)]
    table = sweep(path, {"seed": [0]}, jobs=1, params={"count": 2000})
    assert table.array["outcome"].tolist() == [expected_exchange(2000, 4096)]


def test_a_sweep_reports_its_wall_time():
    """What a sweep cost in seconds, in the table's text and JSON (not a speed check)."""
    def ping(mpi, count):
        if mpi.rank == 0:
            yield mpi.send(count=count, dest=1)
        else:
            yield mpi.recv(count=count, source=0)

    table = sweep(ping, {"count": [1, 2, 3]}, jobs=1, progress=False, ranks=2)
    assert table.wall_time is not None and table.wall_time > 0
    assert table.to_dict()["wall_time"] == round(table.wall_time, 3)
    assert str(table).splitlines()[-1].startswith("3 runs: 3 completed in ")
    assert str(table).endswith("s of wall time")
