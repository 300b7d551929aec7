"""The mpi4py stand-in's cost over the native API, on the bsend ring.

The same ring (attach room for ``slots`` messages, then ``iterations`` times bsend 1 KiB to
rank+1 and recv from rank-1; latency 1 us, bandwidth 10 GB/s) three ways, in this process:

- the bare SimPy event ring of ``bench/run.py`` (the baseline every figure is divided by);
- the native generator program (``bench.run.bsend_ring``, sizes only), and the same
  moving numpy data as the script does;
- an mpi4py script run by ``ms.run_mpi4py``: one greenlet per rank, a pickle-free
  uppercase ``Bsend``/``Recv`` of a numpy buffer per message (size only in the native one,
  so the difference is the front end: greenlet switches, buffer-spec reading, the data copy).

Each figure is the best of ``--repeat`` timings (shared, noisy machines); the ratios are the
numbers that count: ``native / bare``, ``mpi4py / native`` and ``mpi4py / native + data``
(the greenlet front end alone).

    python -m bench.frontend                    # 16 ranks, 2000 messages each
    python -m bench.frontend --ranks 64 --iterations 500 --repeat 5
"""

from __future__ import annotations

import argparse
import tempfile
import textwrap
import time
from pathlib import Path

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


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.frontend", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)

    import mpisim as ms

    messages = args.ranks * args.iterations
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bsend_ring.py"
        script.write_text(textwrap.dedent(SCRIPT.format(nbytes=NBYTES)))

        def front() -> None:
            result = ms.run_mpi4py(script, ranks=args.ranks,
                                   args=[str(args.iterations), str(args.slots)], network=NET)
            assert result.outcome is ms.Outcome.COMPLETED, result.report()

        def native(program) -> None:
            result = ms.run(program, ranks=args.ranks, network=NET,
                            params={"iterations": args.iterations, "slots": args.slots})
            assert result.outcome is ms.Outcome.COMPLETED, result.report()

        timings = {"bare SimPy ring": best(lambda: bare_ring(args.ranks, args.iterations),
                                           args.repeat),
                   "native program": best(lambda: native(bsend_ring), args.repeat),
                   "native + data": best(lambda: native(bsend_ring_data), args.repeat),
                   "mpi4py script": best(front, args.repeat)}
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
