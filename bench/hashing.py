"""The recorder's data hashing (MPI 4.1 §3.7.2): its cost in time and bytes, with and without.

A C ping-pong (``--calls`` MPI_Send/MPI_Recv per process, 2 processes, messages of each
``--bytes`` size) is run unrecorded, recorded by the recorder as it was before buffers were
logged (``--before``, a git revision of the shim: the addresses and data lines are new),
recorded with ``MPISIM_NO_HASH=1`` (the addresses only) and recorded with hashing (the
default), all in the compact format, interleaved run by run so that the machine's other load
falls on all alike. For each: the median wall time, its ratio to the unrecorded run and, for
the recorded ones, the bytes a call on disk; then the ratio of hashing to not hashing in the
same run, the figure ``mpisim record --no-hash`` saves.

The wall times need an idle machine (both processes poll); ``--speed`` measures what does
not depend on the load: the hash alone, the recorder's own function compiled as the recorder
is (``-O2``), over buffers of each ``--bytes`` size, in GB/s and ns a hash.

    python -m bench.hashing                          # 2e5 calls, 8 B and 64 KiB, 5 runs
    python -m bench.hashing --calls 1e5 --bytes 8 --runs 3 --json hashing.json
    python -m bench.hashing --speed                  # the hash's own rate
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

BEFORE = "b60ae75"
"""The shim's last revision before buffers and data were logged."""

PROGRAM = r"""
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]), size = atoi(argv[2]);
    char *x = calloc((size_t)size, 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n / 2; i++) {
        x[0] = (char)i;  /* the data change every call: a hash per call, never the same */
        if (rank == 0) {
            MPI_Send(x, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(x, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(x, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(x, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    free(x);
    return 0;
}
"""

HOWS = ("plain", "before", "no-hash", "hash")

SPEED = r"""
#include "mpisim_record.c"
int main(int argc, char **argv) {
    long long size = atoll(argv[1]), rounds = atoll(argv[2]);
    unsigned char *buf = calloc((size_t)size, 1);
    uint64_t sink = 0, t0 = now_ns();
    for (long long r = 0; r < rounds; r++) {
        buf[0] = (unsigned char)r;
        sink ^= data_hash(buf, size);
    }
    uint64_t t1 = now_ns();
    printf("%.3f %llu\n", (double)(t1 - t0) / (double)rounds, (unsigned long long)(sink & 1));
    free(buf);
    return 0;
}
"""


def speed(sizes: list[int], tmp: Path) -> list[dict]:
    """The hash's time per call and rate over buffers of each size (no MPI run)."""
    from mpisim.recorded.record.recorder import shim_source

    found = _mpich()
    if found is None:
        print("bench.hashing: no MPICH mpicc beside this Python", file=sys.stderr)
        return []
    src = tmp / "speed.c"
    src.write_text(SPEED)
    exe = tmp / "speed"
    subprocess.run([found[0], "-O2", "-I", str(shim_source().parent), "-o", str(exe), str(src),
                    "-ldl", "-lz"], check=True, timeout=300)
    rows = []
    for size in sizes:
        rounds = max(100, int(2e9 // max(size, 64) // 8))
        out = subprocess.run([str(exe), str(size), str(rounds)], capture_output=True,
                             text=True, check=True, timeout=600).stdout.split()
        ns = float(out[0])
        rows.append({"bytes": size, "ns_per_hash": ns, "gb_per_s": size / ns})
    return rows


def _mpich() -> tuple[str, str] | None:
    bindir = Path(sys.executable).parent
    mpicc, mpiexec = bindir / "mpicc", bindir / "mpiexec"
    return (str(mpicc), str(mpiexec)) if mpicc.exists() and mpiexec.exists() else None


def _shims(mpicc: str, before: str, tmp: Path) -> dict[str, Path]:
    """The recorder now (as ``mpisim record`` builds it) and at revision ``before``."""
    from mpisim.recorded.record.recorder import _compile, build_shim, shim_source

    old_src = tmp / "before.c"
    shown = subprocess.run(["git", "show", f"{before}:mpisim/recorded/shim/mpisim_record.c"],
                           capture_output=True, cwd=shim_source().parent, check=True)
    old_src.write_bytes(shown.stdout)
    old = tmp / "libbefore.so"
    _compile(mpicc, old_src, old)
    return {"before": old, "now": build_shim(mpicc)}


def _env(how: str, shims: dict[str, Path], logs: Path) -> dict[str, str]:
    env = dict(os.environ)
    if how == "plain":
        return env
    env.update(LD_PRELOAD=str(shims["before" if how == "before" else "now"]),
               MPISIM_TRACE_DIR=str(logs), MPISIM_TRACE_FORMAT="compact")
    if how == "no-hash":
        env["MPISIM_NO_HASH"] = "1"
    return env


def _timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, timeout=900)
    return time.perf_counter() - start


def measure(calls: int, sizes: list[int], runs: int, before: str, tmp: Path) -> list[dict]:
    """One row per message size: the medians, ratios and bytes a call of each way."""
    found = _mpich()
    if found is None:
        print("bench.hashing: no MPICH mpicc/mpiexec beside this Python", file=sys.stderr)
        return []
    mpicc, mpiexec = found
    src = tmp / "pingpong.c"
    src.write_text(PROGRAM)
    program = tmp / "pingpong"
    subprocess.run([mpicc, "-O2", "-o", str(program), str(src)], check=True, timeout=300)
    shims = _shims(mpicc, before, tmp)
    rows = []
    for size in sizes:
        command = [mpiexec, "-n", "2", str(program), str(calls), str(size)]
        times: dict[str, list[float]] = {how: [] for how in HOWS}
        logs: dict[str, Path] = {}
        for run in range(runs):
            for how in HOWS:  # (a fresh directory a run: a recorder finds no earlier logs)
                logs[how] = tmp / f"logs-{size}-{how}-{run}"
                logs[how].mkdir()
                times[how].append(_timed(command, _env(how, shims, logs[how])))
        row: dict = {"bytes_per_message": size, "calls_per_process": calls, "runs": runs,
                     **{f"{how}_median_s": statistics.median(t) for how, t in times.items()}}
        for how in HOWS[1:]:
            disk = sum(p.stat().st_size for p in logs[how].glob("rank.*.log"))
            row[f"{how}_bytes_per_call"] = disk / (2 * calls)
        row["hash_over_no_hash"] = row["hash_median_s"] / row["no-hash_median_s"]
        rows.append(row)
        print(f"  measured {size}-byte messages", file=sys.stderr, flush=True)
    return rows


def report(rows: list[dict], before: str) -> None:
    for r in rows:
        plain = r["plain_median_s"]
        print(f"ping-pong of {r['bytes_per_message']:,}-byte messages ({r['calls_per_process']:,}"
              f" calls a process, median of {r['runs']} interleaved runs): unrecorded "
              f"{plain:.3f} s")
        for how, words in (("before", f"recorded as at {before}"),
                           ("no-hash", "recorded, --no-hash"), ("hash", "recorded, hashed")):
            t = r[f"{how}_median_s"]
            print(f"  {words:>26}: {t:.3f} s ({100 * (t / plain - 1):+.1f} %), "
                  f"{r[f'{how}_bytes_per_call']:.2f} B a call")
        print(f"  hashing / not hashing, same run: {r['hash_over_no_hash']:.3f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.hashing", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=float, default=2e5, help="calls a process (default 2e5)")
    p.add_argument("--bytes", type=int, nargs="+", default=[8, 65536],
                   help="message sizes in bytes (default 8 65536)")
    p.add_argument("--runs", type=int, default=5, help="interleaved runs of each (default 5)")
    p.add_argument("--before", default=BEFORE,
                   help=f"the git revision of the recorder to compare with (default {BEFORE})")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--speed", action="store_true",
                   help="measure the hash alone (GB/s), no MPI run")
    args = p.parse_args(argv)
    if args.speed:
        with tempfile.TemporaryDirectory(prefix="mpisim-hashing-") as tmp:
            rates = speed(args.bytes, Path(tmp))
        for r in rates:
            print(f"hash of {r['bytes']:,} bytes: {r['ns_per_hash']:.1f} ns, "
                  f"{r['gb_per_s']:.2f} GB/s")
        if args.json:
            args.json.write_text(json.dumps(rates, indent=1) + "\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="mpisim-hashing-") as tmp:
        rows = measure(int(args.calls), args.bytes, args.runs, args.before, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    report(rows, args.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
