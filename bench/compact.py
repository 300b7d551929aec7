"""The compact recording format against the text one, and the recorder's cost on a real run.

**Formats** (``--sizes``, default 10^6 and 10^7 calls): a synthetic ping-pong (blocking,
2 processes) and 3-D halo exchange (nonblocking, 8 processes) written as text
(``mpisim.recorded.record.synthetic``) and converted to the compact format
(``mpisim.recorded.record.compact.convert``); for each, bytes a call on disk and the read
rate (``read_trace``, calls a second of CPU time).

**Recorder overhead** (``--runs``, default 7, needs MPICH's ``mpicc``/``mpiexec`` beside
this Python): a C ping-pong (``--calls`` per process, default 10^6: 8-byte
MPI_Send/MPI_Recv) and a collective-heavy loop (MPI_Allreduce of one double, MPI_Bcast,
MPI_Barrier) run with ``mpiexec -n 2`` unrecorded, recorded in text and recorded in the
compact format (the recorder preloaded, as ``mpisim record`` runs it, but without its
reading of the logs after the run), interleaved run by run so that the machine's other load
falls on all three alike; the median wall time of each and the overhead over the unrecorded
median. Then ``mpisim record`` itself (the run, the merge and its summary) in each format.

    python -m bench.compact                      # both parts
    python -m bench.compact --sizes 1e6 --runs 3 --skip-real
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PATTERNS = {"pingpong": 2, "halo3d": 8}

PROGRAM = r"""
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[2]);
    double x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(argv[1], "pingpong") == 0) {
        for (int i = 0; i < n / 2; i++) {
            if (rank == 0) {
                MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            }
        }
    } else {
        for (int i = 0; i < n / 3; i++) {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Bcast(&y, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
"""


def _formats(sizes: list[int], tmp: Path) -> list[dict]:
    from mpisim.recorded import read_trace
    from mpisim.recorded.record import synthetic as syn
    from mpisim.recorded.record.compact import convert

    rows = []
    for pattern, ranks in PATTERNS.items():
        for size in sizes:
            text = tmp / f"{pattern}.trace"
            compact = tmp / f"{pattern}.ctrace"
            calls = syn.write(text, pattern, ranks, syn.steps_for(pattern, ranks, size))
            start = time.process_time()
            convert(text, compact)
            row: dict = {"pattern": pattern, "ranks": ranks, "calls": calls,
                         "convert_cpu": time.process_time() - start}
            for name, path in (("text", text), ("compact", compact)):
                start = time.process_time()
                read_trace(path, sources=False)
                row[name] = {"bytes": path.stat().st_size,
                             "read_cpu": time.process_time() - start}
                path.unlink()
            rows.append(row)
            print(f"  measured {pattern} at {calls:,} calls", file=sys.stderr, flush=True)
    return rows


def _report_formats(rows: list[dict]) -> None:
    print(f"{'pattern':>9} {'calls':>12} {'text B/call':>12} {'compact B/call':>15} "
          f"{'text read calls/s':>18} {'compact read calls/s':>21}")
    for r in rows:
        n = r["calls"]
        print(f"{r['pattern']:>9} {n:>12,} {r['text']['bytes'] / n:>12.1f} "
              f"{r['compact']['bytes'] / n:>15.2f} {n / r['text']['read_cpu']:>18,.0f} "
              f"{n / r['compact']['read_cpu']:>21,.0f}")


def _mpich() -> tuple[str, str] | None:
    bindir = Path(sys.executable).parent
    mpicc, mpiexec = bindir / "mpicc", bindir / "mpiexec"
    return (str(mpicc), str(mpiexec)) if mpicc.exists() and mpiexec.exists() else None


def _timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - start


def _real(calls: int, runs: int, tmp: Path) -> list[dict]:
    from mpisim.recorded.record.recorder import build_shim

    found = _mpich()
    if found is None:
        print("bench.compact: no MPICH mpicc/mpiexec beside this Python: the recorder's "
              "overhead is not measured", file=sys.stderr)
        return []
    mpicc, mpiexec = found
    src = tmp / "program.c"
    src.write_text(PROGRAM)
    program = tmp / "program"
    subprocess.run([mpicc, "-O2", "-o", str(program), str(src)], check=True, timeout=300)
    shim = str(build_shim(mpicc))
    rows = []
    for kind in ("pingpong", "collectives"):
        command = [mpiexec, "-n", "2", str(program), kind, str(calls)]
        times: dict[str, list[float]] = {"plain": [], "text": [], "compact": []}
        for _ in range(runs):
            for how in times:
                env = dict(os.environ)
                logs = tmp / f"logs-{how}"
                logs.mkdir(exist_ok=True)
                if how != "plain":
                    env.update(LD_PRELOAD=shim, MPISIM_TRACE_DIR=str(logs),
                               MPISIM_TRACE_FORMAT=how)
                times[how].append(_timed(command, env))
        row: dict = {"program": kind, "calls_per_process": calls, "runs": runs,
                     **{f"{how}_median": statistics.median(t) for how, t in times.items()}}
        for how in ("text", "compact"):
            size = sum(p.stat().st_size for p in (tmp / f"logs-{how}").glob("rank.*.log"))
            row[f"{how}_bytes_per_call"] = size / (2 * calls)
        for how in ("text", "compact"):
            out = tmp / f"recorded-{how}.trace"
            row[f"record_{how}"] = _timed([sys.executable, "-m", "mpisim", "record", "--format",
                                           how, "--out", str(out), "--", *command],
                                          dict(os.environ))
        rows.append(row)
        print(f"  measured the recorder on {kind}", file=sys.stderr, flush=True)
    return rows


def _report_real(rows: list[dict]) -> None:
    for r in rows:
        plain = r["plain_median"]
        print(f"{r['program']} ({r['calls_per_process']:,} calls a process, 2 processes, "
              f"median of {r['runs']} interleaved runs): unrecorded {plain:.3f} s")
        for how in ("text", "compact"):
            t = r[f"{how}_median"]
            print(f"  recorded, {how:>7}: {t:.3f} s ({100 * (t / plain - 1):+.1f} %), "
                  f"{r[f'{how}_bytes_per_call']:.2f} B a call; mpisim record in all "
                  f"{r[f'record_{how}']:.2f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.compact", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7],
                   help="calls of each synthetic recording (default 1e6 1e7)")
    p.add_argument("--calls", type=float, default=1e6,
                   help="calls a process of the real runs (default 1e6)")
    p.add_argument("--runs", type=int, default=7, help="interleaved runs of each (default 7)")
    p.add_argument("--skip-formats", action="store_true", help="only the real runs")
    p.add_argument("--skip-real", action="store_true", help="only the formats")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    args = p.parse_args(argv)
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="mpisim-compact-") as tmp:
        if not args.skip_formats:
            figures["formats"] = _formats([int(s) for s in args.sizes], Path(tmp))
        if not args.skip_real:
            figures["recorder"] = _real(int(args.calls), args.runs, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    if figures.get("formats"):
        _report_formats(figures["formats"])
    if figures.get("recorder"):
        _report_real(figures["recorder"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
