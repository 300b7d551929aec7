"""The mpi4py stand-in's cost over the native API, on the bsend ring.

The same ring (attach room for ``slots`` messages, then ``iterations`` times bsend 1 KiB to
rank+1 and recv from rank-1; latency 1 us, bandwidth 10 GB/s) three ways, in this process:

- the bare SimPy event ring of ``bench/run.py`` (the baseline every figure is divided by);
- the native generator program (``bench.run.bsend_ring``, sizes only), and the same
  moving numpy data as the script does;
- an mpi4py script run by ``ms.run_mpi4py``: one greenlet per rank, a pickle-free
  uppercase ``Bsend``/``Recv`` of a numpy buffer per message (size only in the native one,
  so the difference is the front end: greenlet switches, buffer-spec reading, the data copy).

Each figure is the best of ``--repeat`` rounds, the four taking turns in each (shared, noisy
machines); the ratios are the numbers that count: ``native / bare``, ``mpi4py / native``
and ``mpi4py / native + data`` (the greenlet front end alone).

    python -m bench.frontend                    # 16 ranks, 2000 messages each
    python -m bench.frontend --ranks 64 --iterations 500 --repeat 5
    python -m bench.frontend --instructions     # instructions per message (cachegrind)

Wall-clock figures on a shared machine swing by a third from run to run; ``--instructions``
counts instead, as ``bench/instructions.py`` does: the native program moving numpy data and
the mpi4py script each run in a child process under ``valgrind --tool=cachegrind`` at two
iteration counts (``--counts``, default 40 and 160), and the difference of the instruction
counts over the difference of the message counts is one message's cost, start-up excluded.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from .cachegrind import counted, refused
from .run import NBYTES, NET, bare_ring, bsend_ring

SCRIPT = """
    import sys

    import numpy as np
    from mpi4py import MPI

    iterations, slots = int(sys.argv[1]), int(sys.argv[2])
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    right, left = (rank + 1) % size, (rank - 1) % size
    MPI.Attach_buffer(bytearray(slots * ({nbytes} + MPI.BSEND_OVERHEAD)))
    out, got = np.zeros({nbytes}, dtype=np.uint8), np.empty({nbytes}, dtype=np.uint8)
    for _ in range(iterations):
        comm.Bsend([out, MPI.BYTE], dest=right, tag=0)
        comm.Recv([got, MPI.BYTE], source=left, tag=0)
"""


def bsend_ring_data(mpi, iterations: int, slots: int = 4):
    """The native ring moving numpy data, as the script does (bench.run's moves sizes)."""
    import numpy as np

    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    out, got = np.zeros(NBYTES, dtype=np.uint8), np.empty(NBYTES, dtype=np.uint8)
    yield mpi.buffer_attach(slots * (NBYTES + mpi.BSEND_OVERHEAD))
    for _ in range(iterations):
        yield mpi.bsend(out, dest=right, tag=0)
        yield mpi.recv(got, source=left, tag=0)


def run_front(script: Path, ranks: int, iterations: int, slots: int) -> None:
    """The mpi4py script's ring, run once."""
    import mpisim as ms

    result = ms.run_mpi4py(script, ranks=ranks, args=[str(iterations), str(slots)],
                           network=NET)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def run_native(program, ranks: int, iterations: int, slots: int) -> None:
    """A native program's ring, run once."""
    import mpisim as ms

    result = ms.run(program, ranks=ranks, network=NET,
                    params={"iterations": iterations, "slots": slots})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def write_script(directory: str) -> Path:
    """The ring's mpi4py script, written in ``directory``."""
    script = Path(directory) / "bsend_ring.py"
    script.write_text(textwrap.dedent(SCRIPT.format(nbytes=NBYTES)))
    return script


WORKLOADS = ("native + data", "mpi4py script")


def child(name: str, ranks: int, iterations: int, slots: int) -> None:
    """One measured run of a workload (the process cachegrind counts)."""
    if name == "native + data":
        run_native(bsend_ring_data, ranks, iterations, slots)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run_front(write_script(tmp), ranks, iterations, slots)


def instructions(name: str, ranks: int, iterations: int, slots: int) -> int:
    """Instructions executed by one run of ``name`` under cachegrind (deterministic, as
    :mod:`bench.cachegrind` makes it)."""
    return counted("bench.frontend", "--child", name, str(ranks), str(iterations), str(slots),
                   what=name)[0]


def count(ranks: int, counts: list[int], slots: int) -> int:
    """Instructions per message of each workload and the script's ratio to the native
    program moving the same data, printed."""
    small, large = counts
    why = refused("python -m bench.frontend", "--counts", small, large)
    if why:
        print(why, file=sys.stderr)
        return 2
    per = {}
    print(f"bsend ring: {ranks} ranks x {small} and {large} messages of {NBYTES} B, "
          "instructions per message (cachegrind)")
    for name in WORKLOADS:
        per[name] = (instructions(name, ranks, large, slots)
                     - instructions(name, ranks, small, slots)) / (ranks * (large - small))
        print(f"  {name:16s} {per[name]:12,.0f} instructions/message", flush=True)
    ratio = per["mpi4py script"] / per["native + data"]
    print(f"  mpi4py script / native + data: {ratio:.2f}x the instructions per message")
    return 0


def best(fns: dict, repeat: int) -> dict[str, float]:
    """The best time of each workload over ``repeat`` rounds, each round running every one
    in turn (a load that comes and goes on a shared machine then weighs on all alike, not
    on the one that happened to run meanwhile)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(t) for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.frontend", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--instructions", action="store_true",
                   help="count instructions per message under cachegrind (not time)")
    p.add_argument("--counts", type=int, nargs=2, default=[40, 160],
                   metavar=("SMALL", "LARGE"), help="iterations of the two counted runs "
                   "(default 40 160)")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        name, ranks, iterations, slots = args.child
        child(name, int(ranks), int(iterations), int(slots))
        return 0
    if args.instructions:
        return count(args.ranks, args.counts, args.slots)

    messages = args.ranks * args.iterations
    with tempfile.TemporaryDirectory() as tmp:
        script = write_script(tmp)

        def front() -> None:
            run_front(script, args.ranks, args.iterations, args.slots)

        def native(program) -> None:
            run_native(program, args.ranks, args.iterations, args.slots)

        timings = best({"bare SimPy ring": lambda: bare_ring(args.ranks, args.iterations),
                        "native program": lambda: native(bsend_ring),
                        "native + data": lambda: native(bsend_ring_data),
                        "mpi4py script": front}, args.repeat)
    bare = timings["bare SimPy ring"]
    print(f"bsend ring: {args.ranks} ranks x {args.iterations} messages of {NBYTES} B "
          f"(best of {args.repeat})")
    for name, seconds in timings.items():
        print(f"  {name:16s} {messages / seconds:12,.0f} msg/s  {seconds / bare:6.2f}x bare")
    ratio = timings["mpi4py script"] / timings["native program"]
    data = timings["mpi4py script"] / timings["native + data"]
    print(f"  mpi4py script / native program: {ratio:.2f}x the time per message "
          f"({data:.2f}x the native program that moves the same numpy data)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
