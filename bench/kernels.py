"""Real kernels recorded at scale: the Parallel Research Kernels on MPICH, recorded, replayed.

Three kernels of the Parallel Research Kernels (PRK; give a checkout with ``--prk DIR``; it is
not part of mpisim), each run over 4 processes with ``mpiexec -n 4``:

- **stencil** (``MPI1/Stencil``, radius 2, star, 64 x 64 grid): a halo exchange with
  ``MPI_Irecv``/``MPI_Isend`` and an ``MPI_Wait`` each, 8 calls a process an iteration;
- **transpose** (``MPI1/Transpose``, order 64): a block transpose in phases of
  ``MPI_Irecv``/``MPI_Isend`` and two ``MPI_Wait``, 12 calls a process an iteration;
- **pic** (``MPI1/PIC-static``, 100 x 100 grid, 1,000 particles, sinusoidal): particles
  sent to the 8 neighbours in a derived type (``MPI_Type_contiguous``) with 16 requests and
  ``MPI_Waitall``, twice a step (counts, then particles), 34 calls a process a step.

Each kernel is built with the MPICH ``mpicc`` beside this Python (compiled directly: ``-O3``
and the defaults of the kernel's Makefile), into a temporary directory. Its iterations are
picked so that the run makes about ``--calls`` calls over its 4 processes: two short
recordings give the calls an iteration and the calls outside the loop. Then, for each
kernel:

- **plain** / **recorded**: the median wall time of the run unrecorded and of ``mpisim record
  --format compact`` of it (the whole command: the run with the recorder preloaded, and the
  merge and summary after it), ``--runs`` of each, interleaved (the order alternating run by
  run) so that the machine's other load falls on both alike; **overhead** = recorded /
  plain - 1 (the issue's target for synthetic programs: within 5 %). ``--runs 0`` makes the
  recording alone (no overhead measured: at 10^7 calls a run can take many minutes). Each
  run must print the kernel's "Solution validates";
- **outside**: ``mpisim record``'s wall time outside the run (the command's start, and its
  work after the run: the issue's "13-14 s per 10^6 calls" of the text format), the whole
  command's time less the run's own, as ``mpisim record`` reports it;
- **B/call**: the recording's size on disk over its calls;
- **replay**: ``mpisim replay REC -q`` in a new interpreter: its exit status and verdict
  (agrees with the recording, exit 0; a ``DIFFERS`` line is exit 6), its CPU time and calls a
  second of CPU time (a shared machine's other load does not inflate it; the JSON has the
  wall time too), and its **peak RSS** (the child's VmHWM, as ``bench.scale`` measures it,
  the replay's imports included; the JSON also has the size before them, ``before``):
  memory that does not grow with the recording's length stays the same at 10^6 and 10^7
  calls.

A replay that disagrees with its recording or fails is printed with its verdict and the end
of its error output, and the benchmark goes on to the next kernel.

    python -m bench.kernels --prk ~/Kernels                        # 10^7 calls each
    python -m bench.kernels --prk ~/Kernels --calls 1e6 --kernels stencil --runs 1
    python -m bench.kernels --prk ~/Kernels --calls 1e6 1e7 --json kernels.json
    python -m bench.kernels --table kernels.json                   # its table again

Without ``--prk`` (or without MPICH beside this Python) it prints why it measured nothing
and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROCESSES = 4
COMMON = ("common/MPI_bail_out.c", "common/wtime.c")
FLAGS = ("-O3", "-DMPI", "-DVERBOSE=0", "-DRESTRICT_KEYWORD=0")
CALIBRATE = (20, 120)
"""The iterations of the two short recordings that give a kernel's calls an iteration."""


@dataclass(frozen=True)
class Kernel:
    """A PRK kernel: its C sources (paths in the PRK checkout), the defines its Makefile
    passes by default, and its arguments after the iteration count."""

    sources: tuple[str, ...]
    defines: tuple[str, ...]
    args: tuple[str, ...]

    def command(self, mpiexec: str, exe: Path, iterations: int) -> list[str]:
        """The run over :data:`PROCESSES` processes."""
        return [mpiexec, "-n", str(PROCESSES), str(exe), str(iterations), *self.args]


KERNELS = {
    "stencil": Kernel(("MPI1/Stencil/stencil.c", *COMMON),
                      ("-DRADIUS=2", "-DSTAR=1", "-DDOUBLE=1", "-DLOOPGEN=0"), ("64",)),
    "transpose": Kernel(("MPI1/Transpose/transpose.c", *COMMON), ("-DSYNCHRONOUS=0",),
                        ("64",)),
    "pic": Kernel(("MPI1/PIC-static/pic.c", *COMMON, "common/random_draw.c"), (),
                  ("100", "1000", "0", "1", "SINUSOIDAL")),
}
"""The kernels measured, by name (``--kernels``)."""


class Skip(Exception):
    """Nothing can be measured here (no PRK checkout, no MPICH): the line says why."""


def check_prk(prk: Path | None, kernels: list[str]) -> Path:
    """The PRK checkout, checked to hold each kernel's sources; :class:`Skip` when none
    was given, ``SystemExit`` naming the first missing file when it lacks one."""
    if prk is None:
        raise Skip("no Parallel Research Kernels checkout given (--prk DIR, e.g. a clone of "
                   "github.com/ParRes/Kernels): nothing measured")
    for name in kernels:
        for source in KERNELS[name].sources:
            if not (prk / source).is_file():
                raise SystemExit(f"bench.kernels: {prk / source}: not found (--prk must be "
                                 f"a checkout of the Parallel Research Kernels)")
    return prk


def find_mpich() -> tuple[str, str]:
    """MPICH's mpicc and mpiexec beside this Python, or :class:`Skip`."""
    from bench.compact import _mpich

    found = _mpich()
    if found is None:
        raise Skip(f"no MPICH mpicc/mpiexec beside {sys.executable}: nothing measured")
    return found


def build(name: str, prk: Path, mpicc: str, out: Path) -> Path:
    """Compile kernel ``name`` with ``mpicc`` into ``out``; its executable."""
    kernel = KERNELS[name]
    exe = out / name
    command = [mpicc, *FLAGS, *kernel.defines, f"-I{prk / 'include'}", "-o", str(exe),
               *(str(prk / s) for s in kernel.sources), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise SystemExit(f"bench.kernels: building {name} failed: {last}")
    return exe


def _env() -> dict[str, str]:
    """The environment of the runs: this mpisim first on the path of ``python -m mpisim``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent),
                                                      env.get("PYTHONPATH")]))
    return env


def run_plain(command: list[str]) -> tuple[float, bool]:
    """The unrecorded run's wall time (s), and whether the kernel validated its solution."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    took = time.perf_counter() - start
    return took, done.returncode == 0 and "Solution validates" in done.stdout


def run_recorded(command: list[str], out: Path) -> tuple[float, bool, float | None]:
    """``mpisim record --format compact`` of ``command`` into ``out``: its wall time (s),
    whether it wrote a complete recording of a run that validated, and the run's own wall
    time as ``mpisim record`` reports it (the rest is its start and its work after the run)."""
    record = [sys.executable, "-m", "mpisim", "record", "--format", "compact", "--out",
              str(out), "--", *command]
    start = time.perf_counter()
    done = subprocess.run(record, capture_output=True, text=True, timeout=3600, env=_env(),
                          cwd=HERE.parent)
    took = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise SystemExit(f"bench.kernels: mpisim record of {Path(command[3]).name} failed "
                         f"(exit {done.returncode}): {last}")
    inside = re.search(r"; ([0-9.]+) s of wall time\)", done.stderr)
    return took, "Solution validates" in done.stdout and "incomplete" not in done.stderr, \
        float(inside.group(1)) if inside else None


def count_calls(path: Path) -> int:
    """The calls of every process of the recording at ``path``."""
    from mpisim.recorded import read_trace

    return sum(len(rank.calls) for rank in read_trace(path, sources=False).ranks)


def iterations_for(name: str, exe: Path, mpiexec: str, calls: int, tmp: Path) -> int:
    """The iterations that make about ``calls`` calls over the processes: the calls of two
    short recordings (:data:`CALIBRATE`) give the calls an iteration and the rest."""
    kernel, counts = KERNELS[name], []
    for iterations in CALIBRATE:
        out = tmp / f"{name}-{iterations}.trace"
        run_recorded(kernel.command(mpiexec, exe, iterations), out)[:2]
        counts.append(count_calls(out))
        out.unlink()
    return fit(calls, CALIBRATE, (counts[0], counts[1]))


def fit(calls: int, iterations: tuple[int, int], counts: tuple[int, int]) -> int:
    """The iterations that make about ``calls`` calls, from the ``counts`` of calls of two
    runs of ``iterations``: a line through them (the calls an iteration, and the calls
    before and after the loop); at least 1."""
    per = (counts[1] - counts[0]) / (iterations[1] - iterations[0])
    if per <= 0:
        raise SystemExit(f"bench.kernels: {counts[0]:,} calls at {iterations[0]} iterations "
                         f"and {counts[1]:,} at {iterations[1]}: no calls an iteration")
    rest = counts[0] - per * iterations[0]
    return max(1, round((calls - rest) / per))


def replay(path: Path) -> dict:
    """``mpisim replay PATH -q`` in a new interpreter (:func:`_child`): its figures."""
    done = subprocess.run([sys.executable, "-m", "bench.kernels", "--child", str(path)],
                          capture_output=True, text=True, cwd=HERE.parent, env=_env())
    try:
        figures = json.loads(done.stdout.splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        figures = {"exit": None, "verdict": "the replay's process failed"}
    figures["stderr_tail"] = done.stderr.strip().splitlines()[-5:]
    return figures


def _child(path: str) -> None:
    """In a new interpreter: ``mpisim replay PATH -q``; print its exit status, verdict, CPU
    and wall time and peak resident size as JSON (its own output kept out of the way)."""
    from bench.scale import _peak
    from mpisim.__main__ import main as mpisim

    before = _peak()
    said = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(said):
        code = mpisim(["replay", path, "-q"])
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    lines = said.getvalue().strip().splitlines()
    print(json.dumps({"exit": code, "verdict": lines[-1] if lines else "", "cpu": cpu,
                      "wall": wall, "peak": _peak(), "before": before}))


def measure(name: str, exe: Path, mpiexec: str, calls: int, runs: int, tmp: Path) -> dict:
    """Kernel ``name`` at about ``calls`` calls: its runs, recording and replay (a row)."""
    kernel = KERNELS[name]
    iterations = iterations_for(name, exe, mpiexec, calls, tmp)
    command = kernel.command(mpiexec, exe, iterations)
    out = tmp / f"{name}.trace"
    times: dict[str, list[float]] = {"plain": [], "recorded": []}
    inside: list[float | None] = []
    valid = True
    order = [("plain", "recorded") if i % 2 == 0 else ("recorded", "plain")
             for i in range(runs)] or [("recorded",)]  # --runs 0: the recording alone
    for hows in order:
        for how in hows:
            if how == "plain":
                took, ok = run_plain(command)
            else:
                took, ok, run = run_recorded(command, out)
                inside.append(run)
            times[how].append(took)
            valid = valid and ok
    written = count_calls(out)
    row: dict = {"kernel": name, "processes": PROCESSES, "iterations": iterations,
                 "calls": written, "bytes": out.stat().st_size, "runs": runs,
                 "validates": valid, "plain": times["plain"], "recorded": times["recorded"],
                 "recorded_run": inside,
                 "plain_median": statistics.median(times["plain"]) if runs else None,
                 "recorded_median": statistics.median(times["recorded"])}
    row["replay"] = replay(out)
    out.unlink()
    return row


COLUMNS = (("kernel", 9), ("calls", 11), ("iter.", 8), ("plain s", 8), ("recorded s", 10),
           ("overhead", 8), ("outside s", 9), ("B/call", 7), ("replay", 8),
           ("replay s CPU", 12), ("calls/s CPU", 11), ("/plain", 7), ("peak RSS", 9))
"""The table's columns and their widths."""
HEAD = " ".join(f"{name:>{width}}" for name, width in COLUMNS)


def cells(row: dict) -> list[str]:
    """A row's figures, one a column of :data:`COLUMNS` ("-" where not measured)."""
    r, n = row["replay"], row["calls"]
    plain, recorded, cpu = row["plain_median"], row["recorded_median"], r.get("cpu")
    agrees = r.get("exit") == 0 and "agrees" in r.get("verdict", "")
    outside = [whole - run for whole, run in zip(row["recorded"], row.get("recorded_run", []),
                                                 strict=False) if run is not None]
    return [row["kernel"], f"{n:,}", f"{row['iterations']:,}",
            f"{plain:.2f}" if plain else "-", f"{recorded:.2f}",
            f"{100 * (recorded / plain - 1):+.1f}%" if plain else "-",
            f"{statistics.median(outside):.2f}" if outside else "-",
            f"{row['bytes'] / n:.2f}", "agrees" if agrees else "DIFFERS",
            f"{cpu:.1f}" if cpu else "-", f"{n / cpu:,.0f}" if cpu else "-",
            f"{r['wall'] / plain:.1f}x" if cpu and plain else "-",
            f"{r['peak'] / 1e6:.1f} MB" if cpu else "-"]


def line(row: dict) -> str:
    """A row of the table (:data:`HEAD`)."""
    return " ".join(f"{cell:>{width}}" for cell, (_, width) in zip(cells(row), COLUMNS,
                                                                   strict=True))


def markdown(rows: list[dict]) -> None:
    """The table in Markdown (for docs/contributing/performance.md), without the iterations
    and /plain (the plain run is slowed by a shared machine's load as much as it measures)."""
    keep = [i for i, (name, _) in enumerate(COLUMNS) if name not in ("iter.", "/plain")]
    print("| " + " | ".join(COLUMNS[i][0] for i in keep) + " |")
    print("|" + "---|" * len(keep))
    for row in rows:
        figures = cells(row)
        print("| " + " | ".join(figures[i] for i in keep) + " |")


def report(rows: list[dict]) -> None:
    """The table, then each replay that did not agree, with its verdict and error output."""
    print(f"PRK kernels over {PROCESSES} processes (median of the interleaved runs; outside = "
          "mpisim record's time outside the run it reports: its start and its work after the "
          "run; replay rates in CPU time; /plain = the replay's wall time over the plain "
          "run's)")
    print(HEAD)
    for row in rows:
        print(line(row))
    for row in rows:
        r = row["replay"]
        if not (r.get("exit") == 0 and "agrees" in r.get("verdict", "")):
            print(f"{row['kernel']} at {row['calls']:,} calls: replay exit {r.get('exit')}: "
                  f"{r.get('verdict')}")
            for text in r.get("stderr_tail", []):
                print(f"    {text}")
        if not row["validates"]:
            print(f"{row['kernel']}: a run did not print 'Solution validates'")


def _rows(path: Path) -> list[dict]:
    """The rows of an earlier ``--json`` file (one line naming it when it cannot be read)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or e
        raise SystemExit(f"bench.kernels: --table {path}: {why}") from None


def parser() -> argparse.ArgumentParser:
    """The command line (``--help``)."""
    p = argparse.ArgumentParser(prog="python -m bench.kernels", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prk", type=Path, help="a checkout of the Parallel Research Kernels "
                   "(github.com/ParRes/Kernels); without it nothing is measured")
    p.add_argument("--calls", nargs="+", type=float, default=[1e7],
                   help="calls of each run over its 4 processes, about (default 1e7; e.g. "
                   "1e6 1e7: each kernel at each)")
    p.add_argument("--kernels", nargs="+", choices=list(KERNELS), default=list(KERNELS),
                   help="default: all three")
    p.add_argument("--runs", type=int, default=3,
                   help="interleaved runs of the plain and the recorded program (default 3; "
                   "0: only the recording the replay needs, no overhead measured)")
    p.add_argument("--dir", type=Path, help="where to build and record (default: a "
                   "temporary directory, removed at the end)")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--table", nargs="+", type=Path, metavar="JSON",
                   help="print the table of earlier --json files instead of measuring")
    p.add_argument("--markdown", action="store_true", help="with --table: as Markdown")
    p.add_argument("--child", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build, run, record and replay each kernel at each size; print the table."""
    args = parser().parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    if args.table:
        (markdown if args.markdown else report)([r for path in args.table for r in _rows(path)])
        return 0
    if args.runs < 0 or any(c < 1 for c in args.calls):
        raise SystemExit("bench.kernels: --calls must be at least 1, --runs at least 0")
    if args.json and not args.json.resolve().parent.is_dir():
        raise SystemExit(f"bench.kernels: --json {args.json}: its directory does not exist")
    try:
        prk = check_prk(args.prk, args.kernels)
        mpicc, mpiexec = find_mpich()
    except Skip as e:
        print(f"bench.kernels: skipped: {e}", file=sys.stderr)
        return 0
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="mpisim-kernels-", dir=args.dir) as tmp:
        for name in args.kernels:
            exe = build(name, prk.resolve(), mpicc, Path(tmp))
            for calls in sorted(args.calls):
                rows.append(measure(name, exe, mpiexec, int(calls), args.runs, Path(tmp)))
                print(f"  measured {name} at {rows[-1]['calls']:,} calls", file=sys.stderr,
                      flush=True)
                if args.json:
                    args.json.write_text(json.dumps(rows, indent=1) + "\n")
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
