"""The ``mpisim`` command takes SIGINT and SIGTERM from its first statement: a signal at any
moment after it ends the command with one line and exit 130 or 143, never a traceback, and
nothing half-written. Before that first statement only the interpreter's own start-up runs."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.paths import ROOT

LAUNCHER = ROOT / "bin" / "mpisim"

PROBE = textwrap.dedent("""\
    import _signal, runpy, sys
    heavy = ("mpisim", "numpy", "simpy", "yaml", "matplotlib", "greenlet")
    taken, real = [], _signal.signal
    def record(sig, handler):
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
        taken.append((sig, loaded))
        return real(sig, handler)
    _signal.signal = record
    sys.argv = [sys.argv[1], "--version"]
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit:
        pass
    print(taken[:2], file=sys.stderr)
    """)


def _terminal_sigint() -> None:
    """SIGINT as a terminal gives it (a shell's background job would have it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_command_takes_both_signals_before_importing_anything_heavy():
    """Its first statements: the package (numpy, SimPy) comes after both handlers."""
    proc = subprocess.run([sys.executable, "-c", PROBE, str(LAUNCHER)], capture_output=True,
                          text=True, timeout=120, preexec_fn=_terminal_sigint)
    assert proc.stdout.startswith("mpisim ")  # --version ran to the end
    first_two = eval(proc.stderr.strip().splitlines()[-1])
    assert first_two == [(signal.SIGINT, []), (signal.SIGTERM, [])]


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


def _caught(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (Linux: SigCgt in /proc)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            caught = next(line for line in f if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(int(caught.split()[1], 16) >> (sig - 1) & 1)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_signal_at_a_random_moment_ends_the_command_with_one_line(tmp_path):
    """20 SIGINTs and 20 SIGTERMs, each 0 to 2 s after the command's first statement (while
    it imports, parses, simulates), with a CPU-bound process beside it: every exit 130 or
    143, one line on stderr, no traceback, no output directory and no temporary file."""
    scenario = tmp_path / "long.yaml"
    scenario.write_text(LONG)
    rng = random.Random(37)
    tries = [(sig, rng.uniform(0.0, 2.0)) for sig in (signal.SIGINT, signal.SIGTERM)
             for _ in range(20)]
    rng.shuffle(tries)
    load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    bad = []
    try:
        for i, (sig, delay) in enumerate(tries):
            out = tmp_path / f"out{i}"
            proc = subprocess.Popen(
                [sys.executable, str(LAUNCHER), "run", str(scenario), "--plot", "--out",
                 str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                cwd=tmp_path, preexec_fn=_terminal_sigint)
            deadline = time.monotonic() + 60
            while not _caught(proc.pid, signal.SIGTERM) and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(delay)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=120)
            lines = err.strip().splitlines()
            lines = [line for line in lines if not line.startswith("mpisim: this run could")]
            if (proc.returncode != 128 + sig or len(lines) != 1 or "Traceback" in err
                    or not lines[0].startswith(f"mpisim: interrupted by {sig.name}")
                    or out.exists()):
                bad.append((sig.name, round(delay, 3), proc.returncode, err[-300:]))
    finally:
        load.kill()
        load.wait()
    assert bad == []
    assert sorted(p.name for p in tmp_path.rglob("*") if ".tmp" in p.name) == []
