"""Replays at growing lengths: what a call costs on disk, to read, to replay, in memory.

For a blocking pattern (a 2-process ping-pong: MPI_Send/MPI_Recv) and a nonblocking one (an
8-process 3-D halo exchange: 6 MPI_Irecv + 6 MPI_Isend + MPI_Waitall + MPI_Allreduce a
step), and on request a master-worker (8 processes: the master's MPI_Recv from
MPI_ANY_SOURCE, then MPI_Send of the next task to its source), a synthetic recording
(``mpisim.recorded.record.synthetic``) of each size is written and, in a new interpreter
per size (so that each peak is its own):

- **bytes/call**: the recording's size on disk over its calls;
- **read**: ``read_trace`` alone, in calls a second of CPU time (a shared machine's other
  load does not inflate it; the JSON has the wall times too);
- **replay**: ``ms.replay`` of the recording already read, ``trace=False`` (and with
  ``--trace``, also trace on; with ``--trace disk``, also the trace written to a directory
  as the replay goes, ``trace="disk"``, and its bytes a call there), in calls a second of
  CPU time; with the trace on, also the time and peak memory of reading it (its arrays
  built) after the replay;
- **peak RSS**: the child's peak resident size (VmHWM) less its size before reading: the
  reader's columns and the replay together (a compact recording is read as it is replayed,
  :mod:`mpisim.recorded.read.stream`: its growth is a window of two blocks per rank, not the
  calls; a block's calls are shared among the processes,
  :func:`mpisim.recorded.record.compact.block_calls`, printed beside the pattern);
- **/native** (``--native``): the replay's CPU time over the pattern's native generator
  program (:data:`NATIVE`: the same calls written by hand, after the recorded gaps).

Each figure is printed beside the smallest size's, so that the growth shows: memory that
grows in proportion to the calls shows as a ratio equal to the sizes' ratio.

Targets (issue 41): memory at 10^8 calls within 1.5x memory at 10^7; the read path at
>= 5x10^6 calls/s a core (a compact format's); a nonblocking replay as fast per call as a
blocking one.

    python -m bench.scale                               # 10^5 and 10^6 calls
    python -m bench.scale --sizes 1e5 1e6 1e7 --json scale.json
    python -m bench.scale --patterns halo3d --sizes 1e5 --trace
    python -m bench.scale --format compact --trace disk  # the trace in memory vs on disk
    python -m bench.scale --format compact               # the recordings compact
    python -m bench.scale --format compact --native --sizes 1e6 1e7 --keep recs
    python -m bench.scale --format compact --patterns halo3d --ranks 1024 --sizes 1e6 1e7
    python -m bench.scale --format compact --patterns halo3d --ranks 1024 --sizes 1e7 3e7 \
        --lockstep --block-budget 1e12        # the reader's window, blocks as before
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

HERE = Path(__file__).resolve().parent
PATTERNS = {"pingpong": ("pingpong", 2, "blocking"), "halo3d": ("halo3d", 8, "nonblocking"),
            "master-worker": ("master-worker", 8, "wildcard")}


def _peak() -> int:
    """This process's peak resident size in bytes (Linux's VmHWM; else ru_maxrss)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _lockstep(recording) -> None:
    """Every rank's calls taken as a replay takes them (a stride at a time, each rank's next
    14 calls in turn), without simulating them: the reader's window alone."""
    size = len(recording.ranks)
    stride = max(1, min(4096, (1 << 19) // size))  # (the replayer's stride)
    calls = [iter(r.calls.replayed(stride)) if hasattr(r.calls, "replayed") else iter(())
             for r in recording.ranks]
    while calls:
        calls = [it for it in calls if len(list(islice(it, 14))) == 14]


def _child(path: str, trace: bool | str, pattern: str | None = None,
           replay: bool | str = True) -> None:
    """In a new interpreter: read, then replay, ``path`` (not with ``replay`` false; with
    ``replay == "lockstep"``, its calls taken in step, :func:`_lockstep`); with ``pattern``,
    then run its native program (:func:`native`) on the recorded gaps; print the figures as
    JSON."""
    import mpisim as ms
    from mpisim.recorded.replayer.program import load

    before = _peak()
    start, cpu = time.perf_counter(), time.process_time()
    recording = load(path)  # read once, and kept: the replay takes it from there
    read, read_cpu = time.perf_counter() - start, time.process_time() - cpu
    calls = sum(len(r.calls) for r in recording.ranks)
    if not replay:
        print(json.dumps({"calls": calls, "read_seconds": read, "read_cpu": read_cpu,
                          "peak_growth": _peak() - before, "before": before}))
        return
    if replay == "lockstep":
        read_growth, cpu = _peak() - before, time.process_time()
        _lockstep(recording)
        print(json.dumps({"calls": calls, "read_seconds": read, "read_cpu": read_cpu,
                          "read_growth": read_growth, "lockstep_cpu":
                          time.process_time() - cpu, "peak_growth": _peak() - before,
                          "before": before}))
        return
    start, cpu = time.perf_counter(), time.process_time()
    result = ms.replay(path, trace=trace)
    replay, replay_cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    figures = {"calls": calls, "read_seconds": read, "read_cpu": read_cpu,
               "replay_seconds": replay, "replay_cpu": replay_cpu,
               "peak_growth": _peak() - before, "before": before}
    if result.trace.directory is not None:  # (trace="disk": what it holds, not read)
        figures["trace_bytes"] = sum(f.stat().st_size for f in
                                     result.trace.directory.iterdir())
    if trace:  # then the trace read (its arrays built; on disk, into their files)
        start = time.perf_counter()
        len(result.trace.calls)
        figures["read_back_seconds"] = time.perf_counter() - start
        figures["read_back_growth"] = _peak() - before
    if pattern is not None:
        gaps = {r.rank: r.calls.gap.tolist() for r in recording.ranks}
        cpu = time.process_time()
        written = ms.run(NATIVE[pattern], ranks=recording.size, trace=trace,
                         mpi={"profile": "mpich-5.0"}, params={"gaps": gaps})
        figures["native_cpu"] = time.process_time() - cpu
        assert written.outcome is ms.Outcome.COMPLETED, written.report()
        figures["same_sim_time"] = abs(written.sim_time - result.sim_time) <= \
            1e-9 * max(1.0, result.sim_time)
    print(json.dumps(figures))


def native_pingpong(mpi, gaps):
    """The synthetic ping-pong written by hand: its calls, each after its recorded gap."""
    import mpisim as ms

    mine, peer = gaps[mpi.rank], mpi.rank ^ 1
    order = (True, False) if mpi.rank % 2 == 0 else (False, True)
    for i in range(1, len(mine) - 1, 2):  # (MPI_Init's and MPI_Finalize's gaps aside)
        for gap, sending in zip(mine[i:i + 2], order, strict=True):
            yield mpi.compute(gap)
            if sending:
                yield mpi.send(count=8, datatype=ms.BYTE, dest=peer, tag=0)
            else:
                yield mpi.recv(count=8, datatype=ms.BYTE, source=peer, tag=0)
    yield mpi.compute(mine[-1])


def native_halo3d(mpi, gaps):
    """The synthetic 3-D halo exchange written by hand (6 irecv, 6 isend, a waitall and an
    allreduce a step), each call after its recorded gap."""
    import mpisim as ms
    from mpisim.recorded.record.synthetic import FACE, _neighbours

    mine, pairs = gaps[mpi.rank], _neighbours(mpi.rank, mpi.size)
    for i in range(1, len(mine) - 1, 14):
        step, reqs = mine[i:i + 14], []
        for d, (src, _) in enumerate(pairs):
            yield mpi.compute(step[d])
            reqs.append((yield mpi.irecv(count=FACE, datatype=ms.DOUBLE, source=src, tag=d)))
        for d, (_, dest) in enumerate(pairs):
            yield mpi.compute(step[6 + d])
            reqs.append((yield mpi.isend(count=FACE, datatype=ms.DOUBLE, dest=dest, tag=d)))
        yield mpi.compute(step[12])
        yield mpi.waitall(reqs)
        yield mpi.compute(step[13])
        yield mpi.allreduce(count=1, datatype=ms.DOUBLE, op=ms.SUM)
    yield mpi.compute(mine[-1])


def native_master_worker(mpi, gaps):
    """The synthetic master-worker written by hand: the master receives each result from
    MPI_ANY_SOURCE and sends the next task to its source; a worker sends a result and
    receives a task (64 doubles each), each call after its recorded gap."""
    import mpisim as ms

    mine = gaps[mpi.rank]
    for i in range(1, len(mine) - 1, 2):
        yield mpi.compute(mine[i])
        if mpi.rank == 0:
            status = yield mpi.recv(count=64, datatype=ms.DOUBLE, source=ms.ANY_SOURCE, tag=1)
            yield mpi.compute(mine[i + 1])
            yield mpi.send(count=64, datatype=ms.DOUBLE, dest=status.source, tag=2)
        else:
            yield mpi.send(count=64, datatype=ms.DOUBLE, dest=0, tag=1)
            yield mpi.compute(mine[i + 1])
            yield mpi.recv(count=64, datatype=ms.DOUBLE, source=0, tag=2)
    yield mpi.compute(mine[-1])


NATIVE = {"pingpong": native_pingpong, "halo3d": native_halo3d,
          "master-worker": native_master_worker}
"""Each pattern's native generator program: what the replay's cost is set beside."""


def measure(pattern: str, calls: int, tmp: Path, trace: bool | str, fmt: str = "text",
            native: bool = False, keep: Path | None = None, ranks: int | None = None,
            replay: bool | str = True, block_budget: int | None = None) -> dict:
    """Write the recording, measure it in a child (two with ``trace``, three with ``trace
    == "disk"``), delete it; with ``keep``, the recording is kept in that directory and
    taken from there next time; ``ranks``, the processes (default: the pattern's); without
    ``replay``, the recording is only read (``"lockstep"``: read and its calls taken in
    step, :func:`_lockstep`); ``block_budget``, the calls all processes' compact blocks hold
    together (default the writers', :data:`mpisim.recorded.record.compact.BLOCK_BUDGET`)."""
    from mpisim.recorded.record import compact
    from mpisim.recorded.record import synthetic as syn

    shape, default, kind = PATTERNS[pattern]
    ranks = ranks or default
    name = pattern if ranks == default else f"{pattern}-{ranks}"
    if block_budget is not None:
        name += f"-budget{block_budget}"
    path = (keep or tmp) / f"{name}-{calls}.{fmt}.trace"
    start = time.perf_counter()
    steps = syn.steps_for(shape, ranks, calls)
    saved = compact.BLOCK_BUDGET
    compact.BLOCK_BUDGET = saved if block_budget is None else block_budget
    try:
        if keep is None or not path.exists():
            syn.write(path, shape, ranks, steps, fmt=fmt)
        blocks = compact.block_calls(ranks)
    finally:
        compact.BLOCK_BUDGET = saved
    written = syn.total_calls(shape, ranks, steps)
    row: dict = {"pattern": pattern, "kind": kind, "ranks": ranks, "calls": written,
                 "bytes": path.stat().st_size, "write_seconds": time.perf_counter() - start}
    if fmt == "compact":  # (the calls a block of this many processes holds)
        row["block_calls"] = blocks
    for on in (False, True, "disk")[:1 + bool(trace) + (trace == "disk")]:
        done = subprocess.run([sys.executable, "-m", "bench.scale", "--child",
                               json.dumps([str(path), on, pattern if native else None,
                                           replay])],
                              capture_output=True, text=True, cwd=HERE.parent)
        if done.returncode != 0:
            raise SystemExit(f"bench.scale: the replay of {path.name} failed:\n{done.stderr}")
        figures = json.loads(done.stdout.splitlines()[-1])
        row[{False: "no_trace", True: "trace", "disk": "trace_disk"}[on]] = figures
    if keep is None:
        path.unlink()
    return row


def _line(row: dict, base: dict, key: str) -> str:
    m, b = row[key], base[key]
    n, nb = row["calls"], base["calls"]
    read, bread = n / m["read_cpu"], nb / b["read_cpu"]
    mem, bmem = m["peak_growth"], b["peak_growth"]
    ratio = f"{m['replay_cpu'] / m['native_cpu']:6.2f}x" if "native_cpu" in m else f"{'-':>7}"
    if "replay_cpu" in m and "replay_cpu" in b:
        rate, brate = n / m["replay_cpu"], nb / b["replay_cpu"]
        replayed = f"{rate:>9,.0f} ({rate / brate:4.2f}x)"
    elif "lockstep_cpu" in m:
        replayed = f"{'taken in step':>16}"
    else:
        replayed = f"{'not replayed':>16}"
    return (f"{row['calls']:>12,} {row['bytes'] / n:7.1f} B "
            f"{read:>11,.0f} ({read / bread:4.2f}x) {replayed} "
            f"{ratio} {mem / 1e6:>9,.1f} MB ({mem / max(bmem, 1):6.1f}x) {mem / n:7.1f} B  "
            f"x{n / nb:,.0f} calls")


def report(rows: list[dict]) -> None:
    head = (f"{'calls':>12} {'on disk':>9} {'read calls/s CPU':>18} {'replay calls/s':>16} "
            f"{'/native':>10} {'peak RSS growth':>20} {'a call':>9}")
    for pattern in dict.fromkeys(r["pattern"] for r in rows):
        mine = [r for r in rows if r["pattern"] == pattern]
        for key, label in (("no_trace", "trace off"), ("trace", "trace on"),
                           ("trace_disk", "trace on disk")):
            if key not in mine[0]:
                continue
            first = mine[0]
            blocks = (f", blocks of {first['block_calls']:,} calls" if "block_calls" in first
                      else "")
            print(f"{pattern} ({first['kind']}, {first['ranks']} processes{blocks}), {label}; "
                  "(beside the smallest size)")
            print(head)
            for row in mine:
                print(_line(row, first, key))
                m = row[key]
                if "trace_bytes" in m:
                    print(f"{'':>12} the trace's directory: {m['trace_bytes'] / 1e6:,.1f}"
                          f" MB, {m['trace_bytes'] / row['calls']:.1f} B a call")
                if "read_back_growth" in m:
                    print(f"{'':>12} its trace read: {m['read_back_seconds']:.2f} s, peak RSS "
                          f"growth then {m['read_back_growth'] / 1e6:,.1f} MB")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6],
                   help="calls of each recording (default 1e5 1e6; e.g. 1e5 1e6 1e7)")
    p.add_argument("--patterns", nargs="+", choices=sorted(PATTERNS),
                   default=["pingpong", "halo3d"], help="default: pingpong and halo3d; "
                   "master-worker: rank 0 receives results from MPI_ANY_SOURCE")
    p.add_argument("--format", choices=("text", "compact"), default="text",
                   help="the recordings' format (default text; compact: mpisim record's)")
    p.add_argument("--trace", nargs="?", const=True, choices=("disk",), default=False,
                   help="also replay with the trace on (a second child per size); "
                        "--trace disk: and with the trace written to disk as it goes (a "
                        "third), the peak memory of both side by side")
    p.add_argument("--dir", type=Path, help="where to write the recordings (default: a "
                   "temporary directory; each is deleted once measured)")
    p.add_argument("--native", action="store_true",
                   help="also run each pattern's native generator program on the recorded "
                   "gaps: the replay's CPU time over it (the /native column)")
    p.add_argument("--keep", type=Path, help="keep the recordings in this directory and "
                   "measure those already there (writing 10^7 calls takes minutes)")
    p.add_argument("--ranks", type=int, help="processes of every pattern (default: 2 for "
                   "pingpong, 8 for halo3d and master-worker; e.g. 1024)")
    p.add_argument("--read-only", action="store_true",
                   help="write and read each recording, do not replay it (e.g. at 1e9 calls: "
                   "bytes a call, the read rate and the reader's memory)")
    p.add_argument("--lockstep", action="store_true",
                   help="write and read each recording, then take every rank's calls as a "
                   "replay does, a stride at a time and 14 calls a rank in turn, without "
                   "simulating them: the reader's window alone, at lengths a replay would "
                   "take hours for (e.g. --ranks 1024 --sizes 1e7 3e7)")
    p.add_argument("--block-budget", type=float,
                   help="the calls all processes' compact blocks hold together (default the "
                   "writers' 2^22; e.g. 1e12 for blocks of 65,536 calls at any process "
                   "count, as recordings were written before)")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.ranks is not None and args.ranks < 2:
        p.error(f"--ranks: {args.ranks} is less than 2")
    if args.read_only and args.lockstep:
        p.error("--read-only and --lockstep: one or the other")
    if args.block_budget is not None and args.block_budget < 1:
        p.error(f"--block-budget: {args.block_budget:g} is not a positive number of calls")
    budget = None if args.block_budget is None else int(args.block_budget)
    replay = "lockstep" if args.lockstep else not args.read_only
    for what, folder in (("--keep", args.keep), ("--dir", args.dir)):
        try:
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            p.error(f"{what}: {folder}: {e.strerror or e}")
    if args.child:
        _child(*json.loads(args.child))
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="mpisim-scale-", dir=args.dir) as tmp:
        for pattern in args.patterns:
            for size in sorted(args.sizes):
                rows.append(measure(pattern, int(size), Path(tmp), args.trace, args.format,
                                    args.native, args.keep, args.ranks, replay,
                                    budget))
                print(f"  measured {pattern} at {rows[-1]['calls']:,} calls", file=sys.stderr,
                      flush=True)
                if args.json:
                    args.json.write_text(json.dumps(rows, indent=1) + "\n")
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
