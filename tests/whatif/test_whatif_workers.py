"""What-if questions on several workers: the same answer whatever their number.

min-buffer's search on k workers runs the next levels of its bisection at once (a (k+1)-ary
search when k = 2**d - 1), keeping aside the verdicts the one-size-at-a-time search would not
have asked for, so its answer — the size, the verdicts at it and below, the non-monotonic
ranges — is the binary search's. check's two runs and a profile comparison's runs are
independent and go to the workers as they are. Worker processes get scenario files, mpi4py
scripts and recordings by pickling.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers.paths import ROOT, SCENARIOS
from helpers.programs import wrap
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.whatif import check_safe, compare_profiles, executors, min_buffer
from mpisim.whatif.executors import Workers
from mpisim.whatif.minbuffer import _levels, _Search
from mpisim.whatif.probe import Probe

RENDEZVOUS = {"eager_limit": 0}
RECORDING = ROOT / "tests" / "data" / "replay" / "example-3.10-bsend.trace"
SCRIPT = SCENARIOS / "mpi4py" / "ibsend_reattach.py"
COST = {"runs", "wall_time", "workers"}
"""What may differ with the workers: what the answer cost, not the answer."""


def answer(found) -> dict:
    return {k: v for k, v in found.to_dict().items() if k not in COST}


class Counting(Executor):
    """A ThreadPoolExecutor that counts the tasks and rounds it is given."""

    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(workers)
        self._max_workers = workers
        self.tasks = 0
        self.lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        with self.lock:
            self.tasks += 1
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, **kwargs) -> None:
        self.pool.shutdown(wait)


class Verdicts:
    """A prober of a made-up program: a size passes unless it lies in a failing range."""

    seeds = None

    def __init__(self, failing: list[tuple[int, int]]) -> None:
        self.failing = failing

    def probe(self, size: int) -> Probe:
        ok = not any(a <= size <= b for a, b in self.failing)
        return Probe(size, ok, "completed" if ok else "error", "")


def search_answer(failing, lower, upper, samples, width):
    """What min-buffer's search concludes between lower and upper, on ``width`` workers."""
    with Workers(Counting(width) if width > 1 else None, width) as workers:
        search = _Search(Verdicts(failing), workers)
        search.passes(upper)
        found = search.lowest(lower, upper, samples)
        ranges = search.failing_ranges(found, upper)
        return found, ranges, sorted(search.known), search.runs


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(1, 5000), min_size=1, max_size=8, unique=True),
       width=st.sampled_from([2, 3, 4, 7]), samples=st.integers(2, 16))
def test_the_k_ary_search_concludes_as_the_binary_search(cuts, width, samples):
    """Failing ranges anywhere (overflow need not be monotonic in the size): the search on
    ``width`` workers finds the same size, the same ranges, from the same verdicts."""
    cuts = sorted(cuts)
    failing = [(0, cuts[0])] + [(a, b) for a, b in zip(cuts[1::2], cuts[2::2], strict=False)]
    upper = 6000
    one = search_answer(failing, 0, upper, samples, 1)
    many = search_answer(failing, 0, upper, samples, width)
    assert many[:3] == one[:3]
    assert many[3] >= one[3]  # it may run more sizes, never conclude from them


def test_a_k_ary_bisection_takes_fewer_rounds():
    """Bisecting 2**20 sizes: 20 rounds on one worker, 10 on three (two levels a round),
    7 on seven (three levels a round); on two, the middle and the lower half's middle: two
    levels in a round whenever the answer lies in the lower half, as here 8 times of 20."""
    for width, rounds in ((1, 20), (2, 12), (3, 10), (7, 7)):
        with Workers(Counting(width) if width > 1 else None, width) as workers:
            search = _Search(Verdicts([(0, 123_456)]), workers)
            made, run = [], search._run
            search._run = lambda sizes, run=run, made=made: (made.append(sizes), run(sizes))
            assert search.boundary(0, 2**20) == 123_457
            assert len([s for s in made if s]) == rounds


def test_the_levels_of_a_bisection_split_its_range_evenly():
    assert _levels(0, 16, 1) == [8]
    assert _levels(0, 16, 3) == [8, 4, 12]
    assert _levels(0, 16, 7) == [8, 4, 12, 2, 6, 10, 14]
    assert _levels(0, 2, 7) == [1]


@settings(max_examples=15, deadline=None)
@given(units=st.lists(st.integers(2, 12), min_size=3, max_size=6),
       samples=st.integers(4, 24), width=st.sampled_from([2, 3]))
def test_random_programs_get_the_same_answer_on_any_number_of_workers(units, samples, width):
    """3.6.1's circular queue with random entry sizes (non-monotonic at times)."""
    kwargs = {"ranks": 2, "network": RENDEZVOUS, "params": {"units": tuple(units)},
              "samples": samples}
    one = min_buffer(wrap, jobs=1, **kwargs)
    with ThreadPoolExecutor(width) as pool:
        many = min_buffer(wrap, executor=pool, jobs=width, **kwargs)
    assert answer(many) == answer(one)
    assert many.workers == width


@pytest.mark.parametrize("path", sorted(p.name for p in SCENARIOS.glob("*.yaml")))
def test_every_shipped_scenario_gets_the_same_answer_on_three_workers(path):
    one = min_buffer(SCENARIOS / path, jobs=1)
    with ThreadPoolExecutor(3) as pool:
        many = min_buffer(SCENARIOS / path, executor=pool, jobs=3)
    assert answer(many) == answer(one)


@pytest.fixture
def pool_at_once(monkeypatch):
    """A local pool however short the question (else it runs here)."""
    monkeypatch.setattr(executors, "POOL_STARTUP", 0.0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ["circular-head-of-line.yaml", "mpich-eager-cells-bsend.yaml"])
def test_worker_processes_get_the_same_min_buffer(path, pool_at_once):
    one = min_buffer(SCENARIOS / path, jobs=1)
    two = min_buffer(SCENARIOS / path, jobs=2)
    assert answer(two) == answer(one)
    assert two.workers == 2


@pytest.mark.timeout(120)
def test_recordings_and_scripts_go_to_worker_processes_by_path(pool_at_once):
    from mpisim.mpi4py.run.scenario import script_scenario
    from mpisim.recorded import replay_scenario

    for load in (lambda: replay_scenario(RECORDING),
                 lambda: script_scenario(str(SCRIPT), [], 2, output="discard")):
        one, two = min_buffer(load(), jobs=1), min_buffer(load(), jobs=2)
        assert answer(two) == answer(one) and one.min_buffer is not None
        assert check_safe(load(), jobs=2).to_dict() == check_safe(load(), jobs=1).to_dict()


@pytest.mark.timeout(120)
def test_check_and_profiles_run_on_workers_with_the_same_answer():
    path = SCENARIOS / "circular-head-of-line.yaml"
    for buffered in (False, True):
        one = check_safe(path, buffered=buffered, jobs=1)
        two = check_safe(path, buffered=buffered, jobs=2)
        assert two.to_dict() == one.to_dict() and two.reason == one.reason
    one = compare_profiles(path, jobs=1)
    two = compare_profiles(path, jobs=2)
    assert two.to_dict() == one.to_dict() and two.table() == one.table()
    assert [p for p, _ in two.results] == ["standard", "mpich", "openmpi"]


def test_a_short_question_starts_no_pool():
    """Milliseconds of runs: all in this process, whatever the jobs asked for."""
    found = min_buffer(SCENARIOS / "example-3.10-bsend.yaml", jobs=4)
    assert found.min_buffer == 8096 and found.workers == 1


def test_a_long_question_moves_to_the_pool():
    """Once the runs made here took longer than starting a pool, rounds go to it."""
    with Workers(jobs=2) as workers:
        workers.spent = executors.POOL_STARTUP + 1
        assert workers.width == 2
        assert workers.map(_square, None, [1, 2, 3]) == [1, 4, 9]
        assert workers._pool is not None
    assert workers._pool is None


def _square(_target, items):
    return [i * i for i in items]


def test_jobs_must_be_a_positive_integer():
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="jobs"):
            Workers(jobs=bad)


def test_the_min_buffer_report_says_the_workers():
    with ThreadPoolExecutor(2) as pool:
        found = min_buffer(wrap, ranks=2, network=RENDEZVOUS, executor=pool, jobs=2)
    assert found.report().splitlines()[-1].endswith("on 2 workers")
    assert found.to_dict()["workers"] == 2


# -- the command line: --jobs and --dask on every command that asks a what-if question ------
def cli_json(capsys, *args):
    from mpisim.cli.main import main

    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err, out.err
    return code, json.loads(out.out)


def _cost_free(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in COST}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("args", [
    ["min-buffer", SCENARIOS / "circular-head-of-line.yaml"],
    ["check", SCENARIOS / "circular-head-of-line.yaml"],
    ["run", SCENARIOS / "circular-head-of-line.yaml", "--profiles", "standard,mpich"],
    ["mpi4py", "-n", "2", "--min-buffer", SCRIPT],
    ["mpi4py", "-n", "2", "--check", SCRIPT],
    ["replay", RECORDING, "--min-buffer"],
    ["replay", RECORDING, "--check"],
    ["replay", RECORDING, "--profiles", "standard,openmpi"],
], ids=lambda a: " ".join(str(x) for x in a if not isinstance(x, Path)))
def test_every_what_if_command_takes_jobs_with_the_same_answer(args, capsys, pool_at_once):
    json_at = args.index(SCRIPT) if SCRIPT in args else len(args)
    one = cli_json(capsys, *args[:json_at], "--json", "--jobs", "1", *args[json_at:])
    two = cli_json(capsys, *args[:json_at], "--json", "--jobs", "2", *args[json_at:])
    assert two[0] == one[0]
    assert _cost_free(two[1]) == _cost_free(one[1])


@pytest.mark.parametrize("command", [
    ["min-buffer", SCENARIOS / "example-3.10-bsend.yaml"],
    ["check", SCENARIOS / "example-3.10-bsend.yaml"],
    ["sweep", SCENARIOS / "example-3.10-bsend.yaml", "--vary", "count=1,2"],
    ["run", SCENARIOS / "example-3.10-bsend.yaml", "--profiles", "standard"],
    ["replay", RECORDING, "--check"],
])
def test_jobs_below_one_is_a_usage_error(command, capsys):
    from mpisim.cli.main import main

    assert main([str(a) for a in command] + ["--jobs", "0"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_a_program_defined_inside_a_function_runs_here():
    """It does not pickle, so no worker process can run it: the runs stay in this process."""
    def local(mpi):
        yield mpi.buffer_attach(100 + mpi.BSEND_OVERHEAD)
        yield mpi.bsend(count=100, dest=1 - mpi.rank)
        yield mpi.recv(count=100, source=1 - mpi.rank)

    assert check_safe(local, ranks=2, jobs=2).synchronous.outcome.value == "deadlock"
    assert compare_profiles(local, ranks=2, jobs=2).exit_code == 0
    with Workers(jobs=2) as workers:
        workers.spent = executors.POOL_STARTUP + 1
        assert workers.map(_square, local, [1, 2]) == [1, 4]
        assert workers._pool is None and workers.width == 1
