"""Synthetic recordings of realistic shapes, to any length, in the recording format
(:mod:`.trace`): what a replay, a reader or a what-if is measured and tested on at
application scale without running the application.

Shapes (each process's calls per step in brackets):

- ``halo3d``: a 3-D halo exchange on a periodic process grid (as MPI_Dims_create would
  make it): each step, MPI_Irecv from and MPI_Isend to the 6 face neighbours (1,024
  doubles each, a tag per direction), one MPI_Waitall on the 12 requests, then an
  MPI_Allreduce of one double (a residual) over MPI_COMM_WORLD [14];
- ``master-worker``: rank 0 hands out tasks: each step, every worker sends a result
  (tag 1) and receives its next task (tag 2); the master receives each result from
  MPI_ANY_SOURCE and replies to the status's source [workers 2, master 2 per worker];
- ``pingpong``: blocking MPI_Send/MPI_Recv of 8 bytes between ranks 2k and 2k+1, one
  round trip a step (an odd last rank only initialises and finalises) [2].

Request ids grow by one for each new request, as the recorder numbers them. Times outside
MPI (``g``) and inside calls (``d``) are seeded random nanoseconds; worker ``w`` computes
as long as every other worker between tasks but starts 200 ns after worker ``w - 1``, so
that the master's wildcard receives match in the same order in a replay as written. Every
process ends with MPI_Finalize: a recording replays to COMPLETED.

Writing streams: each process's lines are made and written a few thousand steps at a time,
so a recording of 10^8 calls takes the memory of one chunk. ``PATH`` ending in ``.trace``
is one file (the processes' logs in rank order, as ``mpisim record`` writes it); any other
path is a directory of ``rank.N.log`` files.

    python -m mpisim.recorded.record.synthetic halo3d --ranks 8 --steps 1000 -o halo.trace
    python -m mpisim.recorded.record.synthetic master-worker --ranks 1024 --calls 10000000 -o mw
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from .compact import TextToCompact

__all__ = ["SHAPES", "calls_per_step", "grid", "steps_for", "write"]

LIBRARY = ("MPICH Version:      5.0.2 MPICH Release date: Fri Sep 25 20:45:26 UTC 2026 "
           "MPICH Device:       ch4:ofi")
_HEADER = ("#mpisim-trace 1\n#rank {rank} {size}\n#pid {pid}\n#mpi 5.0\n#bsend-overhead 96\n"
           "#any-source -2\n#proc-null -1\n#exe ./{exe}\n#host synthetic\n"
           "#library " + LIBRARY + "\n"
           "Init g=0 thread=0\n= 0 d=0\n"
           "T 1 size=1 extent=1 lb=0 kind=named name=MPI_BYTE\n"
           "T 2 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n")
_FINALIZE = "@ 99 ./{exe} 0x1f00\nFinalize g={g} @=99\n= 0 d=21000\n"
_CHUNK = 4096  # steps made and written at a time
MAX_RANKS = 1 << 20
FACE = 1024  # doubles a halo message carries (a 32 x 32 face)


def grid(size: int) -> tuple[int, int, int]:
    """A balanced 3-D grid of ``size`` processes (as MPI_Dims_create, MPI 4.1 §8.5.2, makes
    one: the largest factor first)."""
    dims = [1, 1, 1]
    n, p = size, 2
    factors = []
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    if n > 1:
        factors.append(n)
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return tuple(sorted(dims, reverse=True))  # type: ignore[return-value]


def _neighbours(rank: int, size: int) -> list[tuple[int, int]]:
    """(source, dest) per direction: receive from the neighbour behind, send to the one
    ahead, on a periodic grid (row-major coordinates, as MPI_Cart_create orders them)."""
    dx, dy, dz = grid(size)
    x, y, z = rank // (dy * dz), (rank // dz) % dy, rank % dz
    out = []
    for axis in range(3):
        for step in (1, -1):
            ahead, behind = [x, y, z], [x, y, z]
            dim = (dx, dy, dz)[axis]
            ahead[axis] = (ahead[axis] + step) % dim
            behind[axis] = (behind[axis] - step) % dim
            out.append((behind[0] * dy * dz + behind[1] * dz + behind[2],
                        ahead[0] * dy * dz + ahead[1] * dz + ahead[2]))
    return out


def _halo3d(rank: int, size: int, steps: int, rng: random.Random) -> Iterator[str]:
    yield "@ 1 ./halo3d 0x1200\n@ 2 ./halo3d 0x1240\n@ 3 ./halo3d 0x1280\n@ 4 ./halo3d 0x12c0\n"
    pairs = _neighbours(rank, size)
    irecv = [f"Irecv g={{}} @=1 src={src} tag={d} comm=0 n={FACE} T=2\n= 0 d={{}} r={{}}\n"
             for d, (src, _) in enumerate(pairs)]
    isend = [f"Isend g={{}} @=2 dest={dest} tag={d} comm=0 n={FACE} T=2\n= 0 d={{}} r={{}}\n"
             for d, (_, dest) in enumerate(pairs)]
    statuses = ",".join(f"{src}:{d}:{FACE * 8}" for d, (src, _) in enumerate(pairs))
    waitall = "Waitall g={} @=3 r={}\n= 0 d={} st=" + statuses + ",-,-,-,-,-,-\n"
    allreduce = "Allreduce g={} @=4 comm=0 n=1 T=2 op=SUM\n= 0 d={}\n"
    ints, req = rng.randint, 1
    for start in range(0, steps, _CHUNK):
        lines = []
        for _ in range(min(_CHUNK, steps - start)):
            first = req
            for template in irecv:
                lines.append(template.format(ints(60, 200), ints(300, 900), req))
                req += 1
            for template in isend:
                lines.append(template.format(ints(60, 200), ints(400, 1500), req))
                req += 1
            ids = ",".join(map(str, range(first, req)))
            lines.append(waitall.format(ints(50, 150), ids, ints(2000, 20000)))
            lines.append(allreduce.format(ints(20000, 60000), ints(3000, 12000)))
        yield "".join(lines)


def _master_worker(rank: int, size: int, steps: int, rng: random.Random) -> Iterator[str]:
    yield "@ 1 ./master_worker 0x1300\n@ 2 ./master_worker 0x1340\n"
    ints = rng.randint
    if rank == 0:
        recv = "Recv g={} @=1 src=A tag=1 comm=0 n=64 T=2\n= 0 d={} st={}:1:512\n"
        send = "Send g={} @=2 dest={} tag=2 comm=0 n=64 T=2\n= 0 d={}\n"
        for start in range(0, steps, _CHUNK):
            lines = []
            for _ in range(min(_CHUNK, steps - start)):
                for worker in range(1, size):
                    lines.append(recv.format(ints(50, 150), ints(300, 5000), worker))
                    lines.append(send.format(ints(50, 150), worker, ints(300, 900)))
            yield "".join(lines)
        return
    send = "Send g={} @=1 dest=0 tag=1 comm=0 n=64 T=2\n= 0 d={}\n"
    recv = "Recv g=100 @=2 src=0 tag=2 comm=0 n=64 T=2\n= 0 d={} st=0:2:512\n"
    stagger = 200 * rank  # the first results arrive in rank order, and so every later one
    for start in range(0, steps, _CHUNK):
        lines = []
        for _ in range(min(_CHUNK, steps - start)):
            lines.append(send.format(20_000 + stagger, ints(300, 900)))
            stagger = 0
            lines.append(recv.format(ints(1000, 50000)))
        yield "".join(lines)


def _pingpong(rank: int, size: int, steps: int, rng: random.Random) -> Iterator[str]:
    yield "@ 1 ./pingpong 0x1300\n@ 2 ./pingpong 0x1340\n"
    peer = rank ^ 1
    if peer >= size:
        return
    send = f"Send g={{}} @=1 dest={peer} tag=0 comm=0 n=8 T=1\n= 0 d={{}}\n"
    recv = f"Recv g={{}} @=2 src={peer} tag=0 comm=0 n=8 T=1\n= 0 d={{}} st={peer}:0:8\n"
    order = (send, recv) if rank % 2 == 0 else (recv, send)
    ints = rng.randint
    for start in range(0, steps, _CHUNK):
        lines = []
        for _ in range(min(_CHUNK, steps - start)):
            for template in order:
                lines.append(template.format(ints(80, 400), ints(300, 2000)))
        yield "".join(lines)


Writer = Callable[[int, int, int, random.Random], Iterator[str]]
SHAPES: dict[str, Writer] = {"halo3d": _halo3d, "master-worker": _master_worker,
                             "pingpong": _pingpong}
"""The shapes by name: each a function (rank, size, steps, rng) giving a process's lines
after its header, in chunks."""


def calls_per_step(shape: str, size: int) -> int:
    """MPI calls one step makes over all processes (MPI_Init and MPI_Finalize aside)."""
    if shape == "halo3d":
        return 14 * size
    if shape == "master-worker":
        return 4 * (size - 1)
    if shape == "pingpong":
        return 2 * (size - size % 2)
    raise ValueError(f"unknown shape {shape!r} (one of {', '.join(SHAPES)})")


def steps_for(shape: str, size: int, calls: int) -> int:
    """Steps that make about ``calls`` calls (at least 1)."""
    return max(1, round((calls - 2 * size) / max(1, calls_per_step(shape, size))))


def total_calls(shape: str, size: int, steps: int) -> int:
    """Calls in a recording of ``steps`` steps, MPI_Init and MPI_Finalize included."""
    return calls_per_step(shape, size) * steps + 2 * size


def write(path: str | os.PathLike[str], shape: str, ranks: int, steps: int,
          seed: int = 1, fmt: str = "text") -> int:
    """Write a recording of ``shape`` (a name of :data:`SHAPES`) for ``ranks`` processes
    (1 to 2**20; master-worker and pingpong at least 2) and ``steps`` steps (>= 0) to
    ``path`` (a ``.trace`` file, else a directory of ``rank.N.log`` files, made if need
    be); ``seed`` makes the times; ``fmt`` the format ("text", the default, or "compact":
    :mod:`.compact`). Returns the number of calls written. A recording is
    written to a temporary name and renamed when whole: nothing half-written is left."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r} (one of {', '.join(SHAPES)})")
    low = 1 if shape == "halo3d" else 2
    if not low <= ranks <= MAX_RANKS:
        raise ValueError(f"ranks: {ranks} is not in {low}..{MAX_RANKS} for {shape}")
    if steps < 0:
        raise ValueError(f"steps: {steps} is negative")
    target = Path(path)
    single = target.suffix == ".trace"
    tmp = target.with_name(f".{target.name}.part")
    if single:
        with open(tmp, "wb" if fmt == "compact" else "w") as f:
            for rank in range(ranks):
                _write_rank(f, shape, rank, ranks, steps, seed, fmt)
        os.replace(tmp, target)
    else:
        tmp.mkdir(parents=True, exist_ok=True)
        for rank in range(ranks):
            with open(tmp / f"rank.{rank}.log", "wb" if fmt == "compact" else "w") as f:
                _write_rank(f, shape, rank, ranks, steps, seed, fmt)
        if target.exists():
            for old in target.glob("rank.*.log"):
                old.unlink()
            target.rmdir()
        os.replace(tmp, target)
    return total_calls(shape, ranks, steps)


def _write_rank(f, shape: str, rank: int, size: int, steps: int, seed: int,
                fmt: str = "text") -> None:
    rng = random.Random(seed * 1_000_003 + rank)
    exe = shape.replace("-", "_")
    out = f
    if fmt == "compact":  # the same lines, each process's made a compact stream
        out = _Compact(TextToCompact(f))
    out.write(_HEADER.format(rank=rank, size=size, pid=1000 + rank, exe=exe))
    for chunk in SHAPES[shape](rank, size, steps, rng):
        out.write(chunk)
    out.write(_FINALIZE.format(exe=exe, g=rng.randint(1000, 2000)))
    if fmt == "compact":
        out.close()


class _Compact:
    """Text written in chunks of whole lines, given to a compact stream's writer."""

    def __init__(self, writer: TextToCompact) -> None:
        self.writer = writer

    def write(self, chunk: str) -> None:
        for line in chunk.split("\n"):
            self.writer.line(line)

    def close(self) -> None:
        self.writer.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mpisim.recorded.record.synthetic",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shape", choices=sorted(SHAPES), help="the pattern of calls")
    p.add_argument("--ranks", type=int, default=8, help="processes (default 8; e.g. 1024)")
    length = p.add_mutually_exclusive_group()
    length.add_argument("--steps", type=int, help="steps (default 100)")
    length.add_argument("--calls", type=int,
                        help="about this many calls in all (sets the steps; e.g. 10000000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the times (default 1)")
    p.add_argument("--format", choices=("text", "compact"), default="text",
                   help="the recording's format (default text)")
    p.add_argument("-o", "--output", required=True,
                   help="a .trace file, or a directory for rank.N.log files")
    args = p.parse_args(argv)
    try:
        if args.ranks < 1:
            raise ValueError(f"ranks: {args.ranks} is not a positive number")
        steps = steps_for(args.shape, args.ranks, args.calls) if args.calls else (
            100 if args.steps is None else args.steps)
        calls = write(args.output, args.shape, args.ranks, steps, args.seed, args.format)
    except (ValueError, OSError) as e:
        print(f"python -m mpisim.recorded.record.synthetic: {e}", file=sys.stderr)
        return 2
    print(f"{args.output}: {args.shape}, {args.ranks} processes, {steps} steps, "
          f"{calls:,} calls")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
