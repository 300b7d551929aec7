"""What-if on several workers: min-buffer's wall time on 1 and 2 local worker processes.

Two questions, each asked with ``jobs=1`` and ``jobs=2`` in a fresh process, in the same run,
and their answers checked identical (all but the cost: runs, wall time, workers):

- ``min-buffer scenario``: a shipped scenario, ``scenarios/halo-2d-bsend.yaml`` (83 runs of
  about 10 ms);
- ``min-buffer recording``: a recording of ``--calls`` MPI calls (default 10**5), written
  here: 2 processes, each attaching room for 4 messages, then bursts of 4 bsends of 1 KiB to
  the other and 4 receives (each run of it takes seconds).

The baseline, measured in the same run: what 2 processes buy this machine at that moment
(a CPU-bound loop run twice in one process, then once in each of 2). The machines are shared:
``speedup`` (1-worker time / 2-worker time) means little alone; ``efficiency`` (speedup / the
machine's) is the figure that counts.

    python -m bench.whatif                 # writes the "whatif" key of bench/results.json
    python -m bench.whatif --calls 20000   # a smaller recording
    python -m bench --readme               # then the performance page shows them
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
SCENARIO = HERE.parent / "scenarios" / "halo-2d-bsend.yaml"
COST = ("runs", "wall_time", "workers")
SPIN = 20_000_000

HEAD = """#mpisim-trace 1
#rank {rank} {size}
#pid {pid}
#mpi 5.0
#bsend-overhead 96
#any-source -2
#proc-null -1
#exe ./burst
#library MPICH Version:      5.0.2
Init g=0 thread=0
= 0 d=0
@ 1 ./burst 0x10
Buffer_attach g=1000 @=1 size={attach}
= 0 d=1000
@ 2 ./burst 0x20
T 1 size=1 extent=1 lb=0 kind=named name=MPI_BYTE
"""
TAIL = """@ 3 ./burst 0x30
Buffer_detach g=300 @=3
= 0 d=900 size={attach}
@ 4 ./burst 0x40
Finalize g=1000 @=4
= 0 d=10000
# exit
"""


def write_recording(path: Path, calls: int, nbytes: int = 1024, burst: int = 4) -> int:
    """A 2-process recording of about ``calls`` calls (see the module); returns them."""
    rounds = max(1, calls // (2 * 2 * burst))
    attach = burst * (nbytes + 96)
    with path.open("w") as f:
        for rank in (0, 1):
            peer = 1 - rank
            f.write(HEAD.format(rank=rank, size=2, pid=1000 + rank, attach=attach))
            sends = "".join(f"Bsend g=500 @=2 dest={peer} tag={t} comm=0 n={nbytes} T=1 "
                            f"pk={nbytes}\n= 0 d=2000\n" for t in range(burst))
            recvs = "".join(f"Recv g=500 @=2 src={peer} tag={t} comm=0 n={nbytes} T=1\n"
                            f"= 0 d=3000 st={peer}:{t}:{nbytes}\n" for t in range(burst))
            f.write((sends + recvs) * rounds)
            f.write(TAIL.format(attach=attach))
    return 2 * (rounds * 2 * burst + 4)


def spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def machine_speedup() -> float:
    """What a second process buys now: two loops in one process / one in each of two."""
    start = time.perf_counter()
    spin(SPIN)
    spin(SPIN)
    serial = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        pool.submit(spin, 1).result()  # started before the clock
        start = time.perf_counter()
        list(pool.map(spin, [SPIN, SPIN]))
        parallel = time.perf_counter() - start
    return serial / parallel


def measure(target: str, jobs: int) -> dict:
    """One min-buffer search, in this process: its seconds and its JSON."""
    from mpisim.whatif import min_buffer

    scenario: object = target
    if target.endswith(".trace"):
        from mpisim.recorded import replay_scenario

        scenario = replay_scenario(target)
    start = time.perf_counter()
    found = min_buffer(scenario, jobs=jobs)
    return {"seconds": time.perf_counter() - start, "answer": found.to_dict()}


def _child(target: str, jobs: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.whatif", "--child", target, str(jobs)],
                         capture_output=True, text=True, cwd=HERE.parent, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def question(name: str, target: str) -> dict:
    """The row of one question: seconds on 1 and 2 workers, beside the machine's speedup."""
    one, two = _child(target, 1), _child(target, 2)
    same = {k: v for k, v in one["answer"].items() if k not in COST} == \
        {k: v for k, v in two["answer"].items() if k not in COST}
    if not same:
        raise SystemExit(f"{name}: the answer differs on 2 workers")
    machine = machine_speedup()
    speedup = one["seconds"] / two["seconds"]
    row = {"workload": name, "runs": [one["answer"]["runs"], two["answer"]["runs"]],
           "min_buffer": one["answer"]["min_buffer"],
           "seconds": [round(one["seconds"], 3), round(two["seconds"], 3)],
           "speedup": round(speedup, 3), "machine_speedup": round(machine, 3),
           "efficiency": round(speedup / machine, 3)}
    print(f"{name:<24} {row['seconds'][0]:>8.2f} s {row['seconds'][1]:>8.2f} s "
          f"{speedup:>8.2f} {machine:>8.2f} {row['efficiency']:>10.2f}", flush=True)
    return row


def readme_lines(result: dict) -> list[str]:
    """The performance page's paragraph on these figures (``python -m bench --readme``)."""
    found = result.get("whatif")
    if not found:
        return []
    parts = [f"{r['workload']} ({r['runs'][0]} runs, answer {r['min_buffer']} B) "
             f"{r['seconds'][0]:.2f} s on 1 worker, {r['seconds'][1]:.2f} s on 2: speedup "
             f"{r['speedup']:.2f} where the machine's was {r['machine_speedup']:.2f} "
             f"(efficiency {r['efficiency']:.2f})" for r in found["rows"]]
    return ["", f"What-if on 1 and 2 worker processes (`python -m bench.whatif`, "
                f"{found['when']}, same answers): " + "; ".join(parts) + "."]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.whatif",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=100_000, help="calls of the recording")
    ap.add_argument("--only", nargs="*", choices=["scenario", "recording"],
                    help="these questions only")
    ap.add_argument("--out", type=Path, default=RESULTS,
                    help="results file to add the figures to (default %(default)s)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]))))
        return 0
    print(f"{'question':<24} {'1 worker':>10} {'2 workers':>10} {'speedup':>8} "
          f"{'machine':>8} {'efficiency':>10}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-whatif-") as tmp:
        if not args.only or "scenario" in args.only:
            rows.append(question(f"min-buffer {SCENARIO.stem}", str(SCENARIO)))
        if not args.only or "recording" in args.only:
            trace = Path(tmp) / "burst.trace"
            calls = write_recording(trace, args.calls)
            rows.append(question(f"min-buffer {calls}-call recording", str(trace)))
    if args.out.exists():
        result = json.loads(args.out.read_text())
        result["whatif"] = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "rows": rows}
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
