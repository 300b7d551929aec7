"""The recorder's cost per MPI call, in instructions, by part, against the call's own and a floor.

Wall-time overhead (``python -m bench.compact``) needs an idle machine: a ping-pong's two
processes poll, and on a shared machine the other load decides their times. Instructions do
not depend on the load. This benchmark builds the recorder as ``mpisim record`` builds it
(the shipped source, ``-O2``, zlib), a C ping-pong of 8-byte MPI_Send/MPI_Recv, and runs it
with ``mpiexec -n 2`` under ``valgrind --tool=callgrind`` at two lengths (``--calls`` and
twice as many per process). What grows with the calls, over the calls added, is a call's
cost, without MPI_Init's and MPI_Finalize's fixed work. Each thread is counted apart
(``--separate-threads=yes``): the figures are the calling thread's, the program's, and
**writer** is what the recorder's writer thread adds a call (compressing and writing full
blocks off the calling thread; ``MPISIM_NO_WRITER=1`` does it on the calling thread):

- **recorder**: instructions in the recorder's own functions and in zlib (the compact
  format's codec), by part: *text key* (formatting the call's key: ``putf``, ``put`` and the
  argument writers), *key table* (``c_row``: request ids made relative, the key interned;
  the memo: the call's binary arguments looked up), *compression* (zlib, ``c_flush``, the
  block's columns and checksum), *the rest* (the wrappers, ``enter``/``done``, handle
  tables, call sites, the data hashes);
- **with libc**: the same and what it calls outside its own code (the C library's
  ``memcpy``, ``strncpy``, ``clock_gettime``...): the wrappers' inclusive instructions but
  the MPI library's (``MPI_Send``, ``MPI_Recv`` and ``MPI_Finalize`` of the recorder, less
  their ``PMPI_`` calls), and the exit's last block; the floor counts its clock reads
  too, so this is the figure to set beside it;
- **MPI_Send**: MPICH's own instructions for an 8-byte ``MPI_Send`` (``PMPI_Send``,
  inclusive; a receive's count depends on how long it polls, so it is not a yardstick);
- **floor**: a C loop doing per call only what a recorder must (two clock reads, the call's
  binary arguments hashed into a table of keys seen, four column values stored), counted
  the same way: what a recorder that writes binary arguments could cost at best, before
  compression.

The recorders: hashed (the default) and ``MPISIM_NO_HASH=1``, each with the memo and the
writer thread (the default: a loop's keys looked up by their binary arguments, their text
made once), with ``MPISIM_NO_MEMO=1`` (every key made as text) and with
``MPISIM_NO_WRITER=1``; and the default recorder past the first
data lines of its process: a process hashes its calls' data (the ``H`` lines) only until it
has written ``MAX_DATA`` (65,536) of them, what a replay keeps, so a long run's later calls
cost less. A ping-pong call writes one data line, and 65,536 calls a process under
callgrind would take long, so that recorder ("hashed, past the cap") is built with the cap
lowered (``-DMPISIM_MAX_DATA``, ``--max-data``, default a tenth of ``--calls``) and both
lengths measured are past it; the other recorders keep the default cap, and their lengths
should stay within it (``--calls`` at most 32,768: the output says when they do not). A
block holds 32,768 calls, or 8,191 calls with their data lines, and the writer takes only
full blocks (the last goes at MPI_Finalize): without hashes, measure with ``--calls 40000``
so that both lengths fill blocks.

Targets (issue 41): the recorded program within 5 % of the plain run's wall time. The
figures say how far instructions put that: the recorder's per call over MPI_Send's.

    python -m bench.recorder                  # needs MPICH's mpicc/mpiexec beside this
                                              # Python, and valgrind; about 3 minutes
    python -m bench.recorder --calls 20000 --json recorder.json
    python -m bench.recorder --only hashed    # the default recorder alone
    python -m bench.recorder --only "hashed, past the cap" --max-data 500
    python -m bench.recorder --calls 40000 --only "no hash" --only "no hash, no writer"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.compact import PROGRAM as PINGPONG  # its "pingpong N" mode
from mpisim.recorded.read.records import MAX_DATA
from mpisim.recorded.record.recorder import build_flags, shim_source

FLOOR = r"""
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
/* Per call: the clock read at entry and at exit, the call's binary arguments (call, peer,
 * tag, communicator, count, datatype, site) hashed into an open-addressing table of the keys
 * seen (a loop's calls hit), and four column values stored (key id, time outside MPI, time
 * inside, request base). */
#define ROWS 32768
#define TABLE 4096
static uint64_t keys[TABLE][7]; static uint32_t ids[TABLE]; static uint32_t n_keys;
static uint32_t c_key[ROWS]; static uint64_t c_gap[ROWS], c_dur[ROWS], c_base[ROWS];
static uint32_t rows; static uint64_t last; volatile uint64_t sink;
static uint64_t now(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static __attribute__((noinline)) void call(const uint64_t a[7]) {
    uint64_t in = now(), h = 1469598103934665603u;
    for (int i = 0; i < 7; i++) h = (h ^ a[i]) * 1099511628211u;
    uint32_t s = (uint32_t)h & (TABLE - 1);
    for (;;) {
        if (!ids[s]) { for (int i = 0; i < 7; i++) keys[s][i] = a[i]; ids[s] = ++n_keys; break; }
        int same = 1;
        for (int i = 0; i < 7; i++) same &= keys[s][i] == a[i];
        if (same) break;
        s = (s + 1) & (TABLE - 1);
    }
    uint64_t out = now();
    c_key[rows] = ids[s]; c_gap[rows] = in - last; c_dur[rows] = out - in; c_base[rows] = 0;
    rows = (rows + 1) & (ROWS - 1);
    last = out;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    uint64_t send[7] = {1, 1, 0, 0, 1, 2, 1}, recv[7] = {2, 1, 0, 0, 1, 2, 2};
    for (long i = 0; i < n / 2; i++) { call(send); call(recv); }
    sink = c_key[0] + c_gap[1];  /* the columns are used */
    return 0;
}
"""

PARTS = {
    "text key": ("putf", "put", "puts_", "fmt_unsigned", "line_end", "send_args",
                 "recv_args", "put_status_body", "put_status", "result", "put_op",
                 "put_signature", "c_put_text", "put_req_id", "put_req_ids", "enter_text",
                 "put_buf", "sized", "rooted", "put_peer", "put_tag"),
    "key table": ("c_row", "c_relative", "c_intern", "c_id", "c_room", "c_row_id",
                  "memo_enter", "memo_find", "memo_result", "memo_hash", "memo_same",
                  "memo_comm", "memo_type", "memo_add", "memo_entry_made",
                  "memo_result_made", "status_words", "enter_memo", "enter_reqs",
                  "req_id_at"),
    "compression": ("c_flush", "c_column", "c_crc32", "c_write", "c_put32", "c_put64",
                    "c_finish"),
}
LINE = re.compile(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:\S*?):?([\w.@]+) \[([^\]]+)\]")


def _self_costs(out_file: Path) -> dict[tuple[str, str], int]:
    """(object, function) -> instructions spent in it (self), from a callgrind file."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", str(out_file)],
                          capture_output=True, text=True, check=True).stdout
    costs: dict[tuple[str, str], int] = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            key = (Path(m.group(3)).name, m.group(2))
            costs[key] = costs.get(key, 0) + int(m.group(1).replace(",", ""))
    return costs


def _inclusive(out_file: Path, function: str, obj: str = "") -> int:
    """A function's inclusive instructions (the first of that name in an object whose name
    starts with ``obj``)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                           str(out_file)], capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m.group(2) == function and Path(m.group(3)).name.startswith(obj):
            return int(m.group(1).replace(",", ""))
    return 0


def _with_libc(out_file: Path, costs: dict[tuple[str, str], int]) -> int:
    """The recorder's instructions with what it calls: its wrappers inclusive but MPI's own
    (MPI_Finalize's writes the calls of the block not full yet), and outside them the exit's
    last block."""
    calls = ("Send", "Recv", "Finalize")
    wrappers = sum(_inclusive(out_file, f"MPI_{c}", "librec") for c in calls)
    mpi = sum(_inclusive(out_file, f"PMPI_{c}") for c in calls)
    finish = _inclusive(out_file, "c_finish", "librec")
    return wrappers - mpi + finish


def _parts(costs: dict[tuple[str, str], int]) -> dict[str, int]:
    """The recorder's self costs grouped by part (zlib counts as compression)."""
    parts = dict.fromkeys([*PARTS, "the rest"], 0)
    for (obj, fn), n in costs.items():
        if obj.startswith("libz"):
            parts["compression"] += n
        elif obj.startswith("librec"):
            part = next((p for p, fns in PARTS.items() if fn.split(".")[0] in fns),
                        "the rest")
            parts[part] += n
    return parts


VARIANTS = {"hashed": {}, "hashed, past the cap": {},
            "hashed, no memo": {"MPISIM_NO_MEMO": "1"},
            "hashed, no writer": {"MPISIM_NO_WRITER": "1"},
            "no hash": {"MPISIM_NO_HASH": "1"},
            "no hash, no memo": {"MPISIM_NO_HASH": "1", "MPISIM_NO_MEMO": "1"},
            "no hash, no writer": {"MPISIM_NO_HASH": "1", "MPISIM_NO_WRITER": "1"}}
"""The recorders measured: their environment (hashed, with the memo and the writer thread:
the default)."""
OWN = ("MPISIM_NO_HASH", "MPISIM_NO_MEMO", "MPISIM_MEMO_CHECK", "MPISIM_NO_WRITER")
"""The recorder's switches: a variant's environment sets its own, none inherited."""
PAST_CAP = "hashed, past the cap"
"""The recorder built with the data lines' cap lowered (``--max-data``), measured past it."""


def _run(tmp: Path, launcher: str, calls: int,
         variant: str) -> list[tuple[Path, list[Path]]]:
    """The ping-pong under callgrind, both processes, recorded; each process's output files:
    its calling thread's, its other threads' (the recorder's writer)."""
    name = f"{calls}.{list(VARIANTS).index(variant)}"
    out = tmp / f"cg.{name}"
    out.mkdir()
    logs = tmp / f"logs.{name}"
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in OWN}
    env.update(MPISIM_TRACE_DIR=str(logs), MPISIM_TRACE_FORMAT="compact", **VARIANTS[variant])
    lib = "librec_cap.so" if variant == PAST_CAP else "librec.so"
    cmd = [launcher, "-n", "2", "-genv", "LD_PRELOAD", str(tmp / lib)]
    cmd += ["valgrind", "--tool=callgrind", "--separate-threads=yes",
            f"--callgrind-out-file={out}/cg.%p", str(tmp / "pingpong"), "pingpong", str(calls)]
    subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=3600)
    files = sorted(out.iterdir())  # cg.PID-01 (the main thread), cg.PID-02...
    mains = [f for f in files if f.name.endswith("-01")]
    return [(m, [f for f in files if f.name.startswith(m.name[:-2]) and f != m])
            for m in mains]


def _total(out_file: Path) -> int:
    """All the instructions of a callgrind file (its thread's)."""
    for line in out_file.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    return 0


def measure(mpicc: str, launcher: str, calls: int, variants: list[str] | None = None,
            max_data: int | None = None) -> dict[str, object]:
    """The figures at ``calls`` and ``2 * calls`` calls a process, for each recorder of
    ``variants`` (default: all of :data:`VARIANTS`; see the module); ``max_data``: the data
    lines' cap of :data:`PAST_CAP`'s recorder (default ``calls // 10``)."""
    cap = calls // 10 if max_data is None else max_data
    with tempfile.TemporaryDirectory(prefix="bench-recorder.") as name:
        tmp = Path(name)
        (tmp / "pingpong.c").write_text(PINGPONG)
        (tmp / "floor.c").write_text(FLOOR)
        for lib, flags in (("librec.so", build_flags()), ("librec_cap.so", build_flags(cap))):
            subprocess.run([mpicc, "-shared", "-fPIC", "-O2", *flags, "-o", str(tmp / lib),
                            str(shim_source()), "-ldl", "-lz"], check=True,
                           capture_output=True)
        subprocess.run([mpicc, "-O2", "-o", str(tmp / "pingpong"), str(tmp / "pingpong.c")],
                       check=True, capture_output=True)
        subprocess.run(["cc", "-O2", "-o", str(tmp / "floor"), str(tmp / "floor.c")],
                       check=True, capture_output=True)
        figures: dict[str, object] = {"calls_per_process": [calls, 2 * calls],
                                      "max_data": MAX_DATA, "max_data_past_the_cap": cap}
        sends = []
        for variant in variants or list(VARIANTS):
            per_call, libc, send_each, others = _variant(tmp, launcher, calls, variant)
            sends.append(send_each)
            recorder = sum(per_call.values())
            figures[variant] = {"recorder_per_call": round(recorder, 1),
                                "parts_per_call": {p: round(v, 1) for p, v in per_call.items()},
                                "with_libc_per_call": round(libc, 1),
                                "recorder_over_mpi_send": round(recorder / send_each, 3),
                                "other_threads_per_call": round(others, 1)}
        floor = _floor(tmp, calls)
    send_each = sum(sends) / len(sends)
    figures.update(mpi_send=round(send_each, 1), floor_per_call=round(floor, 1),
                   floor_over_mpi_send=round(floor / send_each, 3))
    return figures


def _variant(tmp: Path, launcher: str, calls: int,
             variant: str) -> tuple[dict[str, float], float, float, float]:
    """One recorder's per-call instructions on the calling thread: by part, with libc, and
    MPI_Send's own; and on the process's other threads (the writer's compression)."""
    by_length = {}
    for n in (calls, 2 * calls):
        processes = _run(tmp, launcher, n, variant)
        files = [main for main, _ in processes]
        self_costs = [_self_costs(f) for f in files]
        costs = [_parts(c) for c in self_costs]
        send = sum(_inclusive(f, "PMPI_Send") for f in files)
        libc = sum(_with_libc(f, c) for f, c in zip(files, self_costs, strict=True))
        others = sum(_total(f) for _, more in processes for f in more)
        by_length[n] = ({p: sum(c[p] for c in costs) for p in costs[0]}, libc, send, others)
    (small, libc_small, send_small, others_small) = by_length[calls]
    (large, libc_large, send_large, others_large) = by_length[2 * calls]
    added = 2 * calls  # both processes' calls added by doubling the length
    per_call = {p: (large[p] - small[p]) / added for p in small}
    return (per_call, (libc_large - libc_small) / added, (send_large - send_small) / calls,
            (others_large - others_small) / added)


def _floor(tmp: Path, calls: int) -> float:
    """The floor loop's instructions a call (the slope between two lengths)."""
    totals = []
    for n in (calls, 2 * calls):
        out = tmp / f"floor.{n}"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        str(tmp / "floor"), str(n)], check=True, capture_output=True)
        totals.append(_inclusive(out, "main"))
    return (totals[1] - totals[0]) / calls


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.recorder", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=20_000,
                   help="calls a process at the shorter length (default 20000; the longer "
                        "is twice as many)")
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--only", action="append", choices=list(VARIANTS),
                   help="measure only this recorder (repeatable; default: all)")
    p.add_argument("--max-data", type=int,
                   help="the data lines a process hashes at most, for the recorder measured "
                        f"past that cap ({PAST_CAP!r}; default a tenth of --calls; the "
                        f"shipped recorder's is {MAX_DATA:,})")
    args = p.parse_args(argv)
    here = Path(sys.executable).parent
    mpicc, launcher = here / "mpicc", here / "mpiexec"
    missing = [str(t) for t in (mpicc, launcher) if not t.exists()]
    missing += [t for t in ("valgrind", "callgrind_annotate", "cc") if not shutil.which(t)]
    if missing:
        print(f"bench.recorder: skipped: not found: {', '.join(missing)} (pip install "
              "mpich beside this Python; apt-get install valgrind)")
        return 0
    if args.calls < 1000 or args.calls % 2:
        p.error(f"--calls: {args.calls} is not an even number >= 1000")
    if args.max_data is not None and not 0 <= args.max_data < args.calls:
        p.error(f"--max-data: {args.max_data} is not in 0 to --calls ({args.calls}) less 1: "
                "the calls measured would not be past it")
    figures = measure(str(mpicc), str(launcher), args.calls, args.only, args.max_data)
    print("instructions a call (an 8-byte MPI_Send of the MPI library: "
          f"{figures['mpi_send']:,})")
    measured = args.only or list(VARIANTS)
    if PAST_CAP in measured:
        print(f"  {PAST_CAP!r}: built with -DMPISIM_MAX_DATA={figures['max_data_past_the_cap']:,}"
              f" (the shipped recorder: {MAX_DATA:,}), so that the calls measured, from "
              f"{args.calls:,} to {2 * args.calls:,} a process, are past it: what the default "
              f"recorder costs after a process's first {MAX_DATA:,} data lines")
    hashing = [v for v in measured if v != PAST_CAP and "MPISIM_NO_HASH" not in VARIANTS[v]]
    if 2 * args.calls > MAX_DATA and hashing:
        print(f"  (the others' longer length, {2 * args.calls:,} calls a process, is past "
              f"their cap of {MAX_DATA:,} data lines: a hashed figure mixes both)")
    parts = [*PARTS, "the rest"]
    print("  (the calling thread's; 'writer': the recorder's writer thread's, a call)")
    print(f"  {'recorder':20} {'a call':>8} " + " ".join(f"{p:>11}" for p in parts)
          + f" {'with libc':>10} {'/ MPI_Send':>10} {'writer':>8}")
    for variant in measured:
        f = figures[variant]
        assert isinstance(f, dict)
        print(f"  {variant:20} {f['recorder_per_call']:>8,.0f} "
              + " ".join(f"{f['parts_per_call'][p]:>11,.0f}" for p in parts)
              + f" {f['with_libc_per_call']:>10,.0f} {f['recorder_over_mpi_send']:>9.2f}x"
              + f" {f['other_threads_per_call']:>8,.0f}")
    print(f"  {'floor':20} {figures['floor_per_call']:>8,.0f} "
          f"{'':>47} {figures['floor_per_call']:>10,.0f} "
          f"{figures['floor_over_mpi_send']:>9.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
