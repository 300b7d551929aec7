"""mpisim's benchmark: simulated messages per wall-clock second, as a ratio to bare SimPy.

Each workload runs in its own process, beside the *bare SimPy event ring* measured in that
same process, at the same rank count and number of messages: per message each rank yields
``env.timeout(latency + size / bandwidth)``, hands the message to its right neighbour
(succeeding the Event the neighbour waits on, or appending to its deque), then takes its own
incoming message from its deque without yielding when it is there, else yields a fresh
Event. It is the cheapest hand-off SimPy offers, so the ratio (mpisim rate / bare rate) says
how much the simulator costs on top of SimPy, whatever the machine's load. The machines are
shared and noisy: each figure is the best of ``--repeat`` timings, and the ratio is the
number that counts.

Workloads (latency 1 us, bandwidth 10 GB/s, eager limit 64 KiB, 1 KiB messages, trace on):

- ``bsend-ring``: attach, then repeatedly bsend to rank+1 and recv from rank-1;
- ``send-ring``: the same with standard-mode send (eager);
- ``rendezvous-ring``: irecv, send, wait with an eager limit below the message size;
- ``alltoall-bsend``: every rank bsends to every other rank, then receives them all;
- ``big-ring``: ``--big-ranks`` ranks (default 1,048,576) with one bsend each;
- ``sweep-200``: a 200-point sweep (``mpisim.whatif.sweep``, one process) of the bsend ring
  over its buffer size; its rate counts the messages of all 200 runs.

Memory: the peak resident size of the workload's process (``resource.getrusage``) after one
run, less the size before it, per rank. With the trace on, the timing and the memory include
building the trace's arrays (which happens when ``result.trace`` is first read).

    python -m bench                          # everything; writes bench/results.json
    python -m bench --only bsend-ring send-ring --ranks 64 --messages 50000
    python -m bench --big-ranks 65536        # the large run, smaller
    python -m bench --readme                 # rewrite docs/contributing/performance.md's table
    python -m bench --compare old.json       # bench/results.json against an earlier run
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

from .whatif import readme_lines as whatif_lines

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
README = HERE.parent / "docs" / "contributing" / "performance.md"  # its table between the markers
LATENCY, BANDWIDTH, EAGER, NBYTES = 1e-6, 1e10, 65536, 1024
NET = {"latency": LATENCY, "bandwidth": BANDWIDTH, "eager_limit": EAGER}
WORKLOADS = ("bsend-ring", "send-ring", "rendezvous-ring", "alltoall-bsend", "big-ring",
             "sweep-200")


# -- the baseline ---------------------------------------------------------------------------
def bare_ring(ranks: int, iterations: int) -> int:
    """The bare SimPy event ring (see the module docstring); returns messages delivered."""
    import simpy

    env = simpy.Environment()
    boxes = [deque() for _ in range(ranks)]
    waiting: list = [None] * ranks
    delay = LATENCY + NBYTES / BANDWIDTH
    delivered = [0]

    def proc(r: int):
        right = (r + 1) % ranks
        box = boxes[r]
        for i in range(iterations):
            yield env.timeout(delay)
            w = waiting[right]
            if w is not None:
                waiting[right] = None
                w.succeed(i)
            else:
                boxes[right].append(i)
            if box:
                box.popleft()
            else:
                ev = waiting[r] = env.event()
                yield ev
            delivered[0] += 1

    for r in range(ranks):
        env.process(proc(r))
    env.run()
    return delivered[0]


# -- the workloads (rank programs) ----------------------------------------------------------
def bsend_ring(mpi, iterations: int, slots: int = 4):
    import mpisim as ms

    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    yield mpi.buffer_attach(slots * (NBYTES + mpi.BSEND_OVERHEAD))
    for _ in range(iterations):
        yield mpi.bsend(count=NBYTES, datatype=ms.BYTE, dest=right, tag=0)
        yield mpi.recv(count=NBYTES, datatype=ms.BYTE, source=left, tag=0)


def send_ring(mpi, iterations: int):
    import mpisim as ms

    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    for _ in range(iterations):
        yield mpi.send(count=NBYTES, datatype=ms.BYTE, dest=right, tag=0)
        yield mpi.recv(count=NBYTES, datatype=ms.BYTE, source=left, tag=0)


def rendezvous_ring(mpi, iterations: int):
    import mpisim as ms

    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    for _ in range(iterations):
        req = yield mpi.irecv(count=NBYTES, datatype=ms.BYTE, source=left, tag=0)
        yield mpi.send(count=NBYTES, datatype=ms.BYTE, dest=right, tag=0)
        yield mpi.wait(req)


def alltoall_bsend(mpi, iterations: int):
    import mpisim as ms

    others = [p for p in range(mpi.size) if p != mpi.rank]
    yield mpi.buffer_attach(iterations * len(others) * (NBYTES + mpi.BSEND_OVERHEAD))
    for _ in range(iterations):
        for p in others:
            yield mpi.bsend(count=NBYTES, datatype=ms.BYTE, dest=p, tag=0)
        for _ in others:
            yield mpi.recv(count=NBYTES, datatype=ms.BYTE, source=ms.ANY_SOURCE, tag=0)


PROGRAMS = {"bsend-ring": (bsend_ring, {}), "send-ring": (send_ring, {}),
            "rendezvous-ring": (rendezvous_ring, {"eager_limit": NBYTES // 2}),
            "alltoall-bsend": (alltoall_bsend, {}), "big-ring": (bsend_ring, {})}


# -- one measurement, in its own process ----------------------------------------------------
def _rss() -> int:
    """Peak resident size of this process so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(name: str, ranks: int, messages: int, repeat: int, trace: bool) -> dict:
    """Time one workload and the bare ring with the same ranks and messages."""
    import mpisim as ms

    if name == "sweep-200":
        return _measure_sweep(ranks, messages, repeat)
    program, net = PROGRAMS[name]
    per_round = ranks * (ranks - 1) if name == "alltoall-bsend" else ranks
    iterations = max(1, messages // per_round)
    total = iterations * per_round

    def sim() -> ms.Simulation:
        s = ms.Simulation(program, ranks=ranks, network={**NET, **net},
                          params={"iterations": iterations}, trace=trace)
        r = s.run()
        assert r.outcome is ms.Outcome.COMPLETED and r.messages["received"] == total, r
        if trace:  # its arrays are built when first read: counted here
            for name in ("buffer", "entries", "messages", "calls"):
                getattr(r.trace, name)
        return s

    before = _rss()
    start = time.perf_counter()
    events = sim().events
    t_first = time.perf_counter() - start
    memory = _rss() - before
    # the first run is timed too (the only one for big-ring, whose rerun would start from
    # the first's freed gigabytes)
    t_sim = t_first if name == "big-ring" else min(t_first, _best(sim, repeat - 1))
    bare_iterations = max(1, total // ranks)
    assert bare_ring(ranks, bare_iterations) == bare_iterations * ranks
    t_bare = _best(lambda: bare_ring(ranks, bare_iterations), repeat)
    bare_rate = bare_iterations * ranks / t_bare
    return {"workload": name, "ranks": ranks, "messages": total, "trace": trace,
            "seconds": t_sim, "rate": total / t_sim, "bare_rate": bare_rate,
            "ratio": total / t_sim / bare_rate, "events_per_message": events / total,
            "memory_per_rank": memory / ranks, "memory_per_message": memory / total}


def _measure_sweep(ranks: int, messages: int, repeat: int) -> dict:
    import mpisim as ms
    from mpisim.whatif import sweep

    iterations = max(1, messages // ranks)
    slots = list(range(1, 201))
    kwargs = {"ranks": ranks, "network": NET, "params": {"iterations": iterations}}
    one = ms.run(bsend_ring, trace=False, **kwargs)
    assert one.outcome is ms.Outcome.COMPLETED, one
    total = 200 * one.messages["received"]

    def run() -> None:
        table = sweep(bsend_ring, {"slots": slots}, jobs=1, progress=False, **kwargs)
        assert len(table) == 200 and {row["outcome"] for row in table} == {"completed"}

    t_sim = _best(run, repeat)
    t_bare = _best(lambda: [bare_ring(ranks, iterations) for _ in range(200)], repeat)
    bare_rate = total / t_bare
    return {"workload": "sweep-200", "ranks": ranks, "messages": total, "trace": False,
            "seconds": t_sim, "rate": total / t_sim, "bare_rate": bare_rate,
            "ratio": total / t_sim / bare_rate, "runs_per_second": 200 / t_sim}


# -- the driver -----------------------------------------------------------------------------
def plan(args: argparse.Namespace) -> list[tuple[str, int, int]]:
    """(workload, ranks, messages) of every measurement asked for."""
    out = []
    for name in args.only or WORKLOADS:
        if name == "big-ring":
            out.append((name, args.big_ranks, args.big_ranks))
        elif name == "alltoall-bsend":
            out.append((name, 64, args.messages))
        elif name == "sweep-200":
            out.append((name, 8, 400))
        else:
            out += [(name, r, args.messages) for r in args.ranks]
    return out


def _child(spec: str) -> None:
    name, ranks, messages, repeat, trace = json.loads(spec)
    print(json.dumps(measure(name, ranks, messages, repeat, trace)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=WORKLOADS, help="these workloads only")
    ap.add_argument("--ranks", type=int, nargs="*", default=[2, 64, 1024],
                    help="rank counts of the rings (default 2 64 1024)")
    ap.add_argument("--messages", type=int, default=100_000, help="messages per measurement")
    ap.add_argument("--big-ranks", type=int, default=1_048_576, help="ranks of big-ring")
    ap.add_argument("--repeat", type=int, default=3, help="timings per figure (best kept)")
    ap.add_argument("--no-trace", action="store_true", help="switch the recorder off")
    ap.add_argument("--out", type=Path, default=RESULTS,
                    help="JSON results (default bench/results.json)")
    ap.add_argument("--readme", action="store_true",
                    help="only rewrite the performance table of docs/contributing/performance.md "
                         "from --out")
    ap.add_argument("--compare", type=Path, metavar="OLD",
                    help="only compare --out with the results file OLD (an earlier run)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    if args.readme:
        write_readme(json.loads(args.out.read_text()))
        return 0
    if args.compare:
        for line in compare(json.loads(args.compare.read_text()),
                            json.loads(args.out.read_text())):
            print(line)
        return 0
    rows = []
    print(f"{'workload':<16} {'ranks':>8} {'messages':>9} {'msg/s':>9} {'bare msg/s':>10} "
          f"{'ratio':>6} {'events/msg':>10} {'B/rank':>8} {'B/msg':>6}", flush=True)
    for name, ranks, messages in plan(args):
        spec = json.dumps([name, ranks, messages, args.repeat, not args.no_trace])
        out = subprocess.run([sys.executable, "-m", "bench", "--child", spec],
                             capture_output=True, text=True, cwd=HERE.parent)
        if out.returncode != 0:
            print(f"{name} {ranks}: failed\n{out.stderr}", file=sys.stderr)
            return 1
        row = json.loads(out.stdout.splitlines()[-1])
        rows.append(row)
        print(f"{name:<16} {ranks:>8} {row['messages']:>9} {row['rate']:>9.0f} "
              f"{row['bare_rate']:>10.0f} {row['ratio']:>6.3f} "
              f"{row.get('events_per_message', float('nan')):>10.2f} "
              f"{row.get('memory_per_rank', float('nan')):>8.0f} "
              f"{row.get('memory_per_message', float('nan')):>6.0f}", flush=True)
    result = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "python": platform.python_version(), "machine": platform.machine(),
              "baseline": "bare SimPy event ring, same process, same ranks and messages",
              "rows": rows}
    if args.out.exists():  # the figures other modules add (instructions, whatif) stay
        result = json.loads(args.out.read_text()) | result
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written {args.out}")
    return 0


def compare(old: dict, new: dict) -> list[str]:
    """Lines comparing two results files, workload by workload: the ratios to the bare ring
    (each measured beside its own baseline, so machines and load cancel out as far as they
    can) and, where both have them, the instructions per message."""
    lines = [f"{'workload':<16} {'ranks':>8} {'old ratio':>9} {'new ratio':>9} {'change':>8}"]
    before = {(r["workload"], r["ranks"]): r for r in old.get("rows", [])}
    for r in new.get("rows", []):
        o = before.get((r["workload"], r["ranks"]))
        if o is None:
            lines.append(f"{r['workload']:<16} {r['ranks']:>8} {'-':>9} {r['ratio']:>9.3f}")
            continue
        lines.append(f"{r['workload']:<16} {r['ranks']:>8} {o['ratio']:>9.3f} "
                     f"{r['ratio']:>9.3f} {r['ratio'] / o['ratio'] - 1:>+8.1%}")
    counted = {(r["workload"], r["ranks"]): r["instructions_per_message"]
               for r in old.get("instructions", {}).get("rows", [])}
    rows = new.get("instructions", {}).get("rows", [])
    if counted and rows:
        lines += ["", f"{'instructions':<16} {'ranks':>8} {'old':>9} {'new':>9} {'change':>8}"]
        for r in rows:
            o = counted.get((r["workload"], r["ranks"]))
            if o is not None:
                n = r["instructions_per_message"]
                lines.append(f"{r['workload']:<16} {r['ranks']:>8} {o:>9,} {n:>9,} "
                             f"{n / o - 1:>+8.1%}")
    return lines


BEGIN, END = "<!-- bench table begin -->", "<!-- bench table end -->"


def write_readme(result: dict) -> None:
    """Replace the table between README's bench markers with ``result``'s rows."""
    lines = [BEGIN, "", "| workload | ranks | messages | msg/s | bare SimPy msg/s | ratio | "
             "SimPy events / msg | memory / rank | memory / msg |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        events, memory = r.get("events_per_message"), r.get("memory_per_rank")
        per_msg = r.get("memory_per_message")
        lines.append(f"| {r['workload']} | {r['ranks']} | {r['messages']} | {r['rate']:.0f} | "
                     f"{r['bare_rate']:.0f} | {r['ratio']:.3f} | "
                     f"{'-' if events is None else f'{events:.2f}'} | "
                     f"{'-' if memory is None else f'{memory / 1024:.1f} KiB'} | "
                     f"{'-' if per_msg is None else f'{per_msg:.0f} B'} |")
    lines += ["", f"Measured {result['when']} (Python {result['python']}); ratio = mpisim's "
              f"rate / the {result['baseline']}."]
    counted = result.get("instructions")
    if counted:
        names = {"bsend-ring": "bsend ring", "send-ring": "send ring", "bare": "bare SimPy ring",
                 "floor": "the bsend ring's floor (bench/floor.py)",
                 "floor-send": "the send ring's floor",
                 "floor-compiled": "the bsend ring's floor compiled (Cython, bench/floor.pxd)",
                 "floor-send-compiled": "the send ring's floor compiled"}
        parts = [f"{names.get(r['workload'], r['workload'])} {r['instructions_per_message']:,}"
                 + (f" (ratio {r['ratio']:.3f})" if r["workload"] != "bare"
                    and "ratio" in r else "") for r in counted["rows"]]
        lines += ["", f"Instructions per message under cachegrind ({counted['rows'][0]['ranks']} "
                  f"ranks, trace on, `python -m bench.instructions`, {counted['when']}): "
                  + "; ".join(parts) + "."]
    lines += whatif_lines(result)
    lines += ["", END]
    text = README.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    README.write_text(text[:start] + "\n".join(lines) + text[end:])
