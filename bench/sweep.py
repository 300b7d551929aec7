"""Sweep throughput: runs per wall-clock second with 1 and 2 jobs, against single runs.

The baseline calls ``mpisim.run`` (or ``Scenario.run``) in a plain loop, with no trace: the
cost of a simulation alone. A sweep over the same number of runs adds varying the point,
chunking and collecting (jobs=1, in-process) and then process start-up and pickling
(jobs=2, a local process pool; a sweep shorter than the pool's start-up, about 0.25 s, runs
in-process instead). The machine is shared and noisy: the ratios are what count.

    python bench/sweep.py                         # Example 3.10 as a program function
    python bench/sweep.py --runs 2000 --repeat 5
    python bench/sweep.py --scenario scenarios/example-3.10-bsend.yaml --key count
"""

from __future__ import annotations

import argparse
import time

import mpisim as ms
from mpisim.whatif import sweep


def exchange(mpi, count=1000):
    """MPI 3.5 Example 3.10 with bsend and enough buffer."""
    peer = 1 - mpi.rank
    yield mpi.buffer_attach(mpi.pack_size(count, ms.REAL) + mpi.BSEND_OVERHEAD)
    yield mpi.bsend(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
    yield mpi.buffer_detach()


def _best_rate(runs: int, repeat: int, fn) -> float:
    """Runs per second of the fastest of ``repeat`` timings (others' load only slows)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return runs / best if best > 0 else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20000, help="runs per measurement")
    parser.add_argument("--scenario", help="a scenario file instead of the built-in program")
    parser.add_argument("--key", default="count", help="the param to vary (default count)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per figure (best kept)")
    args = parser.parse_args()
    values = list(range(100, 100 + args.runs))

    if args.scenario:
        from mpisim.scenario import load

        target = load(args.scenario)
        name = target.name
        kwargs: dict = {}

        def single(value: int) -> None:
            target.with_overrides({args.key: value}).run(trace=False)
    else:
        target, name, kwargs = exchange, "example-3.10 (bsend, program function)", {"ranks": 2}

        def single(value: int) -> None:
            ms.run(exchange, 2, params={args.key: value}, trace=False)

    print(f"{name}: {args.runs} runs each, best of {args.repeat}")

    def loop() -> None:
        for v in values:
            single(v)

    base = _best_rate(args.runs, args.repeat, loop)
    print(f"  single runs in a loop   {base:9.0f} runs/s")
    rates = {}
    for jobs in (1, 2):
        rates[jobs] = _best_rate(args.runs, args.repeat, lambda j=jobs: sweep(
            target, {args.key: values}, jobs=j, progress=False, **kwargs))
        print(f"  sweep, jobs={jobs}           {rates[jobs]:9.0f} runs/s"
              f"   ({rates[jobs] / base:.2f} x single runs)")
    print(f"  jobs=2 / jobs=1         {rates[2] / rates[1]:9.2f}")


if __name__ == "__main__":
    main()
