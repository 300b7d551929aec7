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
    143, one line on stderr, no traceback, no output directory and no temporary file. Two
    commands run at a time (one process, no threads: each is started and signalled from
    one polling loop), so that the 40 take half as long."""
    scenario = tmp_path / "long.yaml"
    scenario.write_text(LONG)
    rng = random.Random(37)
    tries = [(sig, rng.uniform(0.0, 2.0)) for sig in (signal.SIGINT, signal.SIGTERM)
             for _ in range(20)]
    rng.shuffle(tries)
    load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    bad: list[tuple] = []
    try:
        _signal_two_at_a_time(tmp_path, scenario, list(enumerate(tries)), bad)
    finally:
        load.kill()
        load.wait()
    assert bad == []
    assert sorted(p.name for p in tmp_path.rglob("*") if ".tmp" in p.name) == []


class _Try:
    """One command of the test above: started, then signalled ``delay`` seconds after its
    handlers are in place (or after 60 s without them), then judged once it has exited."""

    def __init__(self, tmp_path: Path, scenario: Path, i: int, sig: int, delay: float):
        self.sig, self.delay, self.out = signal.Signals(sig), delay, tmp_path / f"out{i}"
        self.err = tmp_path / f"err{i}.txt"
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(LAUNCHER), "run", str(scenario), "--plot", "--out",
                 str(self.out)], stdout=subprocess.DEVNULL, stderr=err, text=True,
                cwd=tmp_path, preexec_fn=_terminal_sigint)
        self.deadline = time.monotonic() + 60  # for the handlers, then for the exit (120 s)
        self.fire_at: float | None = None
        self.sent = False

    def step(self, now: float) -> bool:
        """Advance by what is due now; True once the command has exited."""
        if self.fire_at is None:
            if _caught(self.proc.pid, signal.SIGTERM) or now > self.deadline:
                self.fire_at = now + self.delay
        elif not self.sent and now >= self.fire_at:
            self.proc.send_signal(self.sig)
            self.sent, self.deadline = True, now + 120
        elif self.sent and self.proc.poll() is None and now > self.deadline:
            self.proc.kill()  # it ignored the signal: judged as it ends below
        return self.sent and self.proc.poll() is not None

    def verdict(self) -> tuple | None:
        err = self.err.read_text()
        lines = [line for line in err.strip().splitlines()
                 if not line.startswith("mpisim: this run could")]
        if (self.proc.returncode != 128 + self.sig or len(lines) != 1 or "Traceback" in err
                or not lines[0].startswith(f"mpisim: interrupted by {self.sig.name}")
                or self.out.exists()):
            return (self.sig.name, round(self.delay, 3), self.proc.returncode, err[-300:])
        return None


def _signal_two_at_a_time(tmp_path: Path, scenario: Path, tries: list, bad: list) -> None:
    running: list[_Try] = []
    try:
        while tries or running:
            while tries and len(running) < 2:
                i, (sig, delay) = tries.pop(0)
                running.append(_Try(tmp_path, scenario, i, sig, delay))
            now = time.monotonic()
            for done in [t for t in running if t.step(now)]:
                running.remove(done)
                if (why := done.verdict()) is not None:
                    bad.append(why)
            time.sleep(0.001)
    finally:
        for t in running:
            t.proc.kill()
            t.proc.wait()
