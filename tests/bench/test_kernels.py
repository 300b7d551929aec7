"""bench.kernels without the Parallel Research Kernels: its command line, the line it skips
with, its errors on bad input, the iterations it picks and the table it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # bench/ is the project's, not an installed package

from bench import kernels  # noqa: E402


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bench.kernels ARGS`` from the project's root, as its docstring runs it."""
    return subprocess.run([sys.executable, "-m", "bench.kernels", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_without_prk_it_skips_with_one_line_and_exit_0():
    done = _bench()
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "bench.kernels: skipped: no Parallel Research Kernels checkout given (--prk DIR, e.g. "
        "a clone of github.com/ParRes/Kernels): nothing measured"]


def test_a_directory_that_is_not_prk_is_named_with_its_missing_file(tmp_path):
    done = _bench("--prk", str(tmp_path), "--kernels", "pic")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"bench.kernels: {tmp_path}/MPI1/PIC-static/pic.c: not "
                                   "found (--prk must be a checkout of the Parallel Research "
                                   "Kernels)")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("--calls", "0"), "--calls must be at least 1, --runs at least 0"),
    (("--runs", "-1"), "--calls must be at least 1, --runs at least 0"),
    (("--json", "no/such/dir/k.json"), "--json no/such/dir/k.json: its directory does not exist"),
])
def test_bad_numbers_and_paths_are_refused_before_any_work(tmp_path, args, message):
    done = _bench("--prk", str(tmp_path), *args)
    assert done.returncode == 1
    assert done.stderr.strip() == f"bench.kernels: {message}"


def test_an_unknown_kernel_is_a_usage_error():
    done = _bench("--kernels", "dgemm")
    assert done.returncode == 2
    assert "invalid choice: 'dgemm'" in done.stderr


def test_check_prk_accepts_a_tree_with_the_kernels_sources(tmp_path):
    for source in kernels.KERNELS["stencil"].sources:
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source).write_text("")
    assert kernels.check_prk(tmp_path, ["stencil"]) == tmp_path
    with pytest.raises(SystemExit, match=r"Transpose/transpose\.c: not found"):
        kernels.check_prk(tmp_path, ["stencil", "transpose"])
    with pytest.raises(kernels.Skip):
        kernels.check_prk(None, ["stencil"])


def test_the_iterations_come_from_a_line_through_two_short_runs():
    # 4 processes: 12 calls each outside the loop, 8 each an iteration (the stencil's)
    counts = (48 + 32 * 20, 48 + 32 * 120)
    assert kernels.fit(48 + 32 * 312_500, (20, 120), counts) == 312_500
    assert kernels.fit(10, (20, 120), counts) == 1  # fewer than the calls outside the loop
    with pytest.raises(SystemExit, match="no calls an iteration"):
        kernels.fit(1000, (20, 120), (500, 500))


def test_the_command_runs_the_kernel_over_4_processes_with_its_arguments():
    command = kernels.KERNELS["pic"].command("mpiexec", Path("/b/pic"), 734)
    assert command == ["mpiexec", "-n", "4", "/b/pic", "734", "100", "1000", "0", "1",
                       "SINUSOIDAL"]


def _row(exit_code: int | None, verdict: str) -> dict:
    return {"kernel": "stencil", "calls": 1_000_000, "iterations": 31_248, "bytes": 3_000_000,
            "plain_median": 10.0, "recorded_median": 10.5, "validates": True,
            "recorded": [10.5], "recorded_run": [10.2],
            "replay": {"exit": exit_code, "verdict": verdict, "cpu": 25.0, "wall": 40.0,
                       "peak": 62_000_000, "stderr_tail": ["mpisim: the last words"]}}


def test_a_row_gives_overhead_bytes_a_call_rate_and_memory():
    text = kernels.line(_row(0, "x: completed; agrees with the recording: both completed"))
    assert text.split() == ["stencil", "1,000,000", "31,248", "10.00", "10.50", "+5.0%", "0.30",
                            "3.00", "agrees", "25.0", "40,000", "4.0x", "62.0", "MB"]


def test_a_replay_that_differs_is_reported_with_its_verdict_and_error_output(capsys):
    differs = _row(6, "x: deadlocked; DIFFERS: rank 1 blocked in MPI_Wait at call 9")
    failed = {**_row(None, "the replay's process failed"), "validates": False}
    failed["replay"].pop("cpu")
    kernels.report([differs, failed])
    out = capsys.readouterr().out
    assert " DIFFERS " in kernels.line(differs)
    assert "stencil at 1,000,000 calls: replay exit 6: x: deadlocked; DIFFERS: rank 1 " \
           "blocked in MPI_Wait at call 9\n    mpisim: the last words" in out
    assert "replay exit None: the replay's process failed" in out
    assert "a run did not print 'Solution validates'" in out


def test_table_prints_an_earlier_json_and_names_one_it_cannot_read(tmp_path):
    saved = tmp_path / "kernels.json"
    saved.write_text(json.dumps([_row(0, "x: completed; agrees with the recording")]))
    done = _bench("--table", str(saved))
    assert done.returncode == 0, done.stderr
    assert kernels.line(_row(0, "agrees")) in done.stdout.splitlines()
    (tmp_path / "cut.json").write_text("[{")
    done = _bench("--table", str(tmp_path / "cut.json"))
    assert done.returncode == 1
    assert done.stderr.startswith(f"bench.kernels: --table {tmp_path / 'cut.json'}: ")
    assert len(done.stderr.splitlines()) == 1


def test_with_runs_0_a_row_has_the_recording_alone_and_no_overhead():
    row = {**_row(0, "agrees"), "plain_median": None, "runs": 0}
    text = kernels.line(row).split()
    assert text[3:6] == ["-", "10.50", "-"]
    assert text[-3:] == ["-", "62.0", "MB"]


def test_markdown_leaves_out_the_iterations_and_the_ratio_to_the_loaded_plain_run(capsys):
    kernels.markdown([_row(0, "agrees")])
    head, rule, row = capsys.readouterr().out.splitlines()
    assert head.count("|") == rule.count("|") == row.count("|") == 12
    assert "iter." not in head and "/plain" not in head
    assert row == ("| stencil | 1,000,000 | 10.00 | 10.50 | +5.0% | 0.30 | 3.00 | agrees | 25.0 "
                   "| 40,000 | 62.0 MB |")
