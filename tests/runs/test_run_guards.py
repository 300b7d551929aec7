"""A run says what it will cost before paying it: a run too large for the memory available is
refused before it is built (with the estimate and the settings to change), a long run says
so at its start and shows its progress, and a wall-clock limit ends a program that never
calls MPI again as that rank's error, naming its line."""

from __future__ import annotations

import io
import sys

import pytest

import mpisim as ms
from mpisim.runs import estimate, simulation
from mpisim.runs.estimate import (
    RANK_BYTES,
    RANK_BYTES_NO_TRACE,
    Forecast,
    WallClockLimit,
    check_memory,
    memory_needed,
    wall_clock_limit,
)
from mpisim.values.readers import SettingError


def test_the_memory_estimate_uses_the_measured_figures():
    assert memory_needed(1000) == 1000 * RANK_BYTES == 1000 * 7373
    assert memory_needed(1000, trace=False) == 1000 * RANK_BYTES_NO_TRACE == 1000 * 3892


def test_a_run_beyond_the_memory_limit_is_refused_naming_ranks_and_what_to_change(
        monkeypatch):
    monkeypatch.setenv("MPISIM_MEMORY", "1 MiB")
    with pytest.raises(SettingError) as info:
        check_memory(1000)
    reason = info.value.reason
    assert info.value.key == "ranks"
    assert "1000 ranks need about 7.03 MiB" in reason and "about 1 MiB is available" in reason
    assert "trace=False (3.8 KiB per rank)" in reason and "MPISIM_MEMORY" in reason
    check_memory(100)  # 720 KiB: fits


def test_the_memory_check_comes_before_the_run_is_built(monkeypatch):
    monkeypatch.setenv("MPISIM_MEMORY", "1 MiB")

    def never(mpi):  # not even called
        raise AssertionError("built")
        yield
    with pytest.raises(SettingError, match="ranks: 200 ranks need"):
        ms.run(never, ranks=200)
    assert ms.run(lambda mpi: (yield mpi.compute(0)), ranks=200, trace=False).outcome \
        is ms.Outcome.COMPLETED


def test_a_bad_memory_setting_is_named(monkeypatch):
    monkeypatch.setenv("MPISIM_MEMORY", "lots")
    with pytest.raises(SettingError, match="MPISIM_MEMORY: cannot read 'lots'"):
        check_memory(1)


class Reading:
    """A value the test sets and the forecast reads by calling it: the wall clock, or the
    units of work a run has done."""

    def __init__(self):
        self.value = 0.0

    def __call__(self):
        return self.value


def test_a_long_run_says_so_once_then_shows_progress():
    clock, out = Reading(), io.StringIO()
    f = Forecast(max_events=10_000_000, until=None, events=0, now=0.0, out=out, clock=clock)
    clock.value = 2.0
    f.update(100_000, 1e-3)  # 50,000 events/s: 200 s in all
    clock.value = 20.0
    f.update(1_000_000, 1e-2)  # within EVERY: nothing more
    clock.value = 40.0
    f.update(2_000_000, 2e-2)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("mpisim: this run could take up to 3 min of wall time if it "
                               "goes on to its bound (up to 10,000,000 events, at 50,000 "
                               "events/s")
    assert "Ctrl-C stops it" in lines[0]
    assert lines[1] == ("mpisim: 2,000,000 events, t = 20 ms, 40 s elapsed, at most about "
                        "3 min left")  # 8,000,000 events to go at 50,000 events/s: 160 s
    assert len(lines) == 2


def test_a_short_run_says_nothing_and_until_bounds_the_estimate():
    clock, out = Reading(), io.StringIO()
    f = Forecast(max_events=float("inf"), until=1.0, events=0, now=0.0, out=out, clock=clock)
    clock.value = 2.0
    f.update(400_000, 0.5)  # half the simulated time in 2 s: 4 s in all
    assert out.getvalue() == ""
    g = Forecast(max_events=float("inf"), until=3600.0, events=0, now=0.0, out=out,
                 clock=clock)
    clock.value = 6.0
    g.update(400_000, 0.5)  # 0.5 s simulated in 4 s of wall time: 8 h to 3600 s
    assert "until t = 3600 s" in out.getvalue() and "up to 8.0 h" in out.getvalue()


def test_a_run_whose_work_is_known_says_how_long_it_will_take_not_its_bound():
    """A replay of 1,000,000 calls bound at 16,000,000 events makes about 4 events a call:
    forecast by its calls it takes 100 s, by its bound it could take 400 s. The first line
    says the former, and the events it will make; the progress lines how far through the
    calls it is."""
    clock, out, calls = Reading(), io.StringIO(), Reading()
    work = estimate.Work(1_000_000, calls, unit="recorded calls", done_as="replayed",
                         run_as="replay")
    f = Forecast(max_events=16_000_000, until=None, events=0, now=0.0, out=out, clock=clock,
                 work=work)
    clock.value, calls.value = 2.0, 20_000
    f.update(80_000, 1e-3)  # 2% of the calls in 2 s: 100 s in all (40,000 events/s)
    clock.value, calls.value = 32.0, 320_000
    f.update(1_280_000, 16e-3)
    lines = out.getvalue().splitlines()
    assert lines[0] == ("mpisim: this replay of 1,000,000 recorded calls may take about 100 s "
                        "of wall time (2.0% replayed in 2 s: about 4,000,000 events in all, "
                        "at 40,000 events/s); progress every 30 s; Ctrl-C stops it")
    assert lines[1] == ("mpisim: 32% of the recorded calls replayed (320,000 of 1,000,000), "
                        "1,280,000 events, t = 16 ms, 32 s elapsed, about 68 s left")
    assert len(lines) == 2


def test_known_work_is_said_past_long_known_and_a_nearer_bound_still_wins():
    """A forecast by known work is an estimate, not an upper bound: said for a run of more
    than LONG_KNOWN seconds (here 40 s: less than LONG_RUN), not for one of 20 s; a bound
    that ends the run before its work does is what the forecast goes by."""
    def first_line(max_events, share):
        clock, out, calls = Reading(), io.StringIO(), Reading()
        f = Forecast(max_events=max_events, until=None, events=0, now=0.0, out=out,
                     clock=clock, work=estimate.Work(1000, calls))
        clock.value, calls.value = 2.0, share
        f.update(1000, 1e-3)
        return out.getvalue()
    assert estimate.LONG_KNOWN < 40 < estimate.LONG_RUN
    assert first_line(10**9, 50).startswith(  # 5% in 2 s
        "mpisim: this run of 1,000 steps may take about 40 s of wall time (5.0% done in 2 s")
    assert first_line(10**9, 100) == ""  # 10% in 2 s: 20 s
    assert first_line(80_000, 10).startswith(  # 1% in 2 s: 200 s; 80,000 events: 160 s
        "mpisim: this run could take up to 3 min of wall time if it goes on to its bound (up "
        "to 80,000 events")
    assert first_line(10**9, 0) == ""  # no unit done yet: its pace is not known


def test_a_program_that_says_its_work_is_forecast_by_it(monkeypatch, capsys):
    """The hint is the engine's, not the replay's: any run may give it (Work's example)."""
    monkeypatch.setattr(estimate, "LONG_KNOWN", 0.0)
    monkeypatch.setattr(estimate, "MIN_WATCH", 0.0)
    monkeypatch.setattr(simulation, "PROGRESS_EVERY", 1000)
    done = [0]

    def program(mpi):
        for _ in range(2000):
            yield mpi.barrier()
            done[0] += mpi.rank == 0
    result = ms.run(program, ranks=2, work=estimate.Work(2000, lambda: done[0]),
                    trace=False)
    assert result.outcome is ms.Outcome.COMPLETED and done[0] == 2000
    assert capsys.readouterr().err.startswith("mpisim: this run of 2,000 steps may take about")


def test_a_long_run_is_announced_from_a_real_run(monkeypatch, capsys):
    monkeypatch.setattr(estimate, "LONG_RUN", 0.0)
    monkeypatch.setattr(estimate, "MIN_WATCH", 0.0)

    def spin(mpi):
        while True:
            yield mpi.compute(1e-6)
    result = ms.run(spin, ranks=1, max_events=450_000)
    assert result.outcome is ms.Outcome.TIMEOUT
    assert "mpisim: this run could take up to" in capsys.readouterr().err


def python_loop(mpi):
    yield mpi.compute(1e-6)
    while True:  # never calls MPI again
        pass


def test_a_program_stuck_in_python_ends_as_a_timeout_naming_each_ranks_line():
    """The wall-clock limit is a timeout, not the program's error: the report names the line
    the rank's own code was running, and the call each other rank waits in."""
    def waiting(mpi):
        yield mpi.barrier()
    with wall_clock_limit(0.5):
        result = ms.run([python_loop, waiting], ranks=2)
    assert result.outcome is ms.Outcome.TIMEOUT and result.error is None
    line = python_loop.__code__.co_firstlineno + 2
    assert result.timeout_reason == (
        "the wall-clock limit of 0.5 s was reached (--timeout): rank 0 running its own code "
        f"at test_run_guards.py:{line} (python_loop); rank 1 in MPI_Barrier at "
        f"test_run_guards.py:{waiting.__code__.co_firstlineno + 1} (waiting)")
    assert "Traceback" not in result.report() and "WallClockLimit" not in result.report()
    assert result.exit_code == 5


def test_a_busy_run_ends_at_the_wall_clock_limit_wherever_it_is():
    """In the engine or in a rank's own code between its calls: TIMEOUT."""
    def endless(mpi):
        while True:
            yield mpi.compute(1e-9)
    with wall_clock_limit(0.5):
        result = ms.run(endless, ranks=2, until=1e9)
    assert result.outcome is ms.Outcome.TIMEOUT
    assert result.timeout_reason.startswith("the wall-clock limit of 0.5 s was reached")
    assert "endless)" in result.timeout_reason  # (where the ranks were)


def _interrupted_at(line_event: int):
    """A run of two ranks computing in step (two events at each time: the calendar holds
    deques) in which WallClockLimit is raised at the ``line_event``-th line the engine's
    loop executes, as the limit's signal can arrive between any two lines."""
    from mpisim.runs.simulation import Simulation

    def endless(mpi):
        while True:
            yield mpi.compute(1e-9)
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count == line_event:
                raise WallClockLimit(0.5)
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is Simulation._loop.__wrapped__.__code__ else None
    sys.settrace(tracer)
    try:
        return ms.run(endless, ranks=2, until=1e-6)
    finally:
        sys.settrace(None)


@pytest.mark.parametrize("line_event", range(1, 120, 1))
def test_the_limit_leaves_the_event_calendar_whole_at_whichever_line_it_strikes(line_event):
    """Between taking an item out of a time's deque and removing the emptied deque, or
    between taking a time's deque out and putting it back: TIMEOUT all the same, never an
    error of the engine's own."""
    result = _interrupted_at(line_event)
    assert result.outcome is ms.Outcome.TIMEOUT
    assert result.timeout_reason.startswith("the wall-clock limit of 0.5 s was reached")


def test_the_limit_is_lifted_afterwards():
    with wall_clock_limit(0.2):
        pass
    import time
    time.sleep(0.4)  # no WallClockLimit now
    assert issubclass(WallClockLimit, BaseException) and not issubclass(WallClockLimit,
                                                                        Exception)
