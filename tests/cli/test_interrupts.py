"""Interrupts: Ctrl-C (SIGINT) and SIGTERM end a command with one line and 128 + the signal,
write nothing (a sweep keeps its finished runs in a file named partial), and leave no
temporary file at any moment; output directories are replaced whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.paths import ROOT, SCENARIOS

import mpisim as ms
from mpisim.cli.main import main
from mpisim.report.export import write_files

LAUNCHER = ROOT / "bin" / "mpisim"  # the command as installed (a script: see mpisim.__main__)

LONG = textwrap.dedent("""\
    name: long
    ranks: 2
    params: {n: 100000000}
    programs:
      - ranks: 0
        ops:
          - loop: {times: n, ops: [{send: {dest: 1, count: 8}}, {recv: {source: 1, count: 8}}]}
      - ranks: 1
        ops:
          - loop: {times: n, ops: [{recv: {source: 0, count: 8}}, {send: {dest: 0, count: 8}}]}
    """)


def _start(tmp_path: Path, *args: str) -> subprocess.Popen:
    path = tmp_path / "long.yaml"
    path.write_text(LONG)
    return subprocess.Popen([sys.executable, str(LAUNCHER), *args[:1], str(path), *args[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, preexec_fn=_default_sigint)


def _default_sigint() -> None:
    """In the child: SIGINT as a terminal gives it. A shell starts a background job with
    SIGINT ignored, and Python then leaves it ignored; a test run from one would otherwise
    find that mpisim ignores Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.rglob("*") if ".tmp" in p.name)


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_a_run_exits_128_plus_it_and_writes_nothing(tmp_path, sig, code):
    out = tmp_path / "out"
    proc = _start(tmp_path, "run", "--out", str(out), "--plot")
    _wait_for_handlers(proc)
    time.sleep(1.0)  # simulating
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    *before, last = err.strip().splitlines()
    assert last == f"mpisim: interrupted by {sig.name}; nothing written"
    # (a run this long may have said so first, once it had simulated a second: the signal
    # can come after that on a fast machine)
    assert all(line.startswith("mpisim: this run could take up to") for line in before)
    assert len(before) <= 1
    assert not out.exists() and _leftovers(tmp_path) == []


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (Linux: SigCgt in /proc)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            caught = next(line for line in f if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(int(caught.split()[1], 16) >> (sig - 1) & 1)


def _wait_for_handlers(proc: subprocess.Popen) -> None:
    """Until the entry point has taken the signals (no guess at how long start-up takes on a
    loaded machine; without /proc, a generous pause)."""
    if not Path("/proc/self/status").exists():
        time.sleep(5.0)
        return
    deadline = time.monotonic() + 60
    while not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.002)


def _wait_for_cpu(proc: subprocess.Popen, seconds: float) -> None:
    """Until the process has run ``seconds`` of CPU time (Linux: /proc/PID/stat), not of
    wall time, which a loaded machine stretches; without /proc, a wall-clock pause."""
    stat = Path(f"/proc/{proc.pid}/stat")
    if not stat.exists():
        time.sleep(seconds)
        return
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:  # utime and stime: fields 14 and 15, counted after the command's name
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            return
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("delay", [0.0, 0.05])
def test_ctrl_c_during_start_up_prints_no_traceback(tmp_path, delay):
    """As soon as the entry point runs (it catches SIGTERM, which Python does not), while
    mpisim is still being imported: one line, exit 130, no traceback."""
    proc = _start(tmp_path, "run")
    _wait_for_handlers(proc)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert err.strip() == "mpisim: interrupted by SIGINT; nothing written"


@pytest.mark.slow
def test_an_interrupted_sweep_keeps_its_finished_runs_in_a_partial_file(tmp_path):
    out = tmp_path / "sweep"
    proc = _start(tmp_path, "sweep", "--vary", "n=200..100000:200", "--jobs", "1",
                  "--out", str(out))
    _wait_for_handlers(proc)
    _wait_for_cpu(proc, 3.0)  # a few runs finish, however loaded the machine
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert "runs finished, kept in" in err and "sweep.partial.csv" in err
    assert sorted(p.name for p in out.iterdir()) == ["sweep.partial.csv"]
    rows = (out / "sweep.partial.csv").read_text().splitlines()
    assert rows[0].startswith("n,outcome")  # and as many rows as runs finished (load-bound)
    assert all(",completed," in row for row in rows[1:])
    assert _leftovers(tmp_path) == []


STOPS_AT_5 = textwrap.dedent("""\
    SCENARIO = {"name": "stops-at-5", "ranks": 1, "params": {"n": 1}}


    def main(mpi, n=1):
        yield mpi.compute(n * 1e-6)
        if n == 5:
            raise KeyboardInterrupt
    """)


def test_the_partial_file_holds_exactly_the_runs_that_finished(tmp_path, capsys):
    """Ctrl-C arriving during the fifth run (here raised by it, which is the same to the
    sweep): the four finished runs are kept, in order, in a file named partial."""
    path = tmp_path / "stops.py"
    path.write_text(STOPS_AT_5)
    out = tmp_path / "sweep"
    code = main(["sweep", str(path), "--vary", "n=1..8", "--jobs", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and "4 of 8 runs finished, kept in" in err
    rows = (out / "sweep.partial.csv").read_text().splitlines()
    assert [row.split(",")[:2] for row in rows] == [["n", "outcome"]] + [
        [str(n), "completed"] for n in range(1, 5)]


def test_an_output_directory_is_replaced_whole(tmp_path, capsys):
    """The files of an earlier run that this one does not write are removed (the directory
    never mixes two runs); files mpisim does not write are left alone."""
    scenario = SCENARIOS / "example-3.10-bsend.yaml"
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--trace", "chrome"]) == 0
    (out / "notes.txt").write_text("mine")
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["buffer.csv", "messages.csv",
                                                      "notes.txt", "result.json"]
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("exc", [KeyboardInterrupt, OSError])
def test_a_write_stopped_midway_leaves_the_old_directory_and_no_temporary(tmp_path, exc):
    out = tmp_path / "out"
    write_files(out, [("result.json", lambda f: f.write("old"), False)])

    def broken(f):
        f.write("half")
        raise exc("stopped")

    with pytest.raises(exc):
        write_files(out, [("result.json", lambda f: f.write("new"), False),
                          ("buffer.csv", broken, False)])
    assert [p.name for p in out.iterdir()] == ["result.json"]
    assert (out / "result.json").read_text() == "old" and _leftovers(tmp_path) == []


def interrupted(mpi):
    yield mpi.compute(1e-6)
    raise KeyboardInterrupt


def test_ctrl_c_inside_a_program_is_not_the_programs_error():
    """A KeyboardInterrupt raised while a program runs stops the run and reaches the caller;
    it is never reported as an ERROR of the program."""
    with pytest.raises(KeyboardInterrupt):
        ms.run(interrupted, ranks=2)
