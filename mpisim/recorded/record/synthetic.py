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
MPI (``g``) and inside calls (``d``) are seeded random nanoseconds (numpy's generator, drawn a
chunk of steps at a time: both formats get the same); worker ``w`` computes as long as every
other worker between tasks but starts 200 ns after worker ``w - 1``, so that the master's
wildcard receives match in the same order in a replay as written. Every process ends with
MPI_Finalize: a recording replays to COMPLETED.

Each shape is a function giving a process's calls in one step (:class:`Slot`: its lines and
its times' ranges); steps differ only in their request ids. Writing streams: a chunk of steps
is made and written at a time, so a recording of 10^9 calls takes the memory of one chunk.
The text format formats every line; the compact one derives each call's key and request base
from steps 0 and 1 (:func:`.compact.call_key`) and writes the rest as columns, the very bytes
the text recording converts to (about 10^6 calls a second, against 5 x 10^4 through text),
in blocks of :func:`.compact.block_calls` calls for the process count, as the recorder's.
``PATH`` ending in ``.trace`` is one file (the processes' logs in rank order, as ``mpisim
record`` writes it); any other path is a directory of ``rank.N.log`` files.

    python -m mpisim.recorded.record.synthetic halo3d --ranks 8 --steps 1000 -o halo.trace
    python -m mpisim.recorded.record.synthetic master-worker --ranks 1024 --calls 10000000 -o mw
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .compact import TextToCompact, call_key

__all__ = ["SHAPES", "Slot", "calls_per_step", "grid", "steps_for", "write"]

LIBRARY = ("MPICH Version:      5.0.2 MPICH Release date: Fri Sep 25 20:45:26 UTC 2026 "
           "MPICH Device:       ch4:ofi")
_HEADER = ("#mpisim-trace 1\n#rank {rank} {size}\n#pid {pid}\n#mpi 5.0\n#bsend-overhead 96\n"
           "#any-source -2\n#proc-null -1\n#exe ./{exe}\n#host synthetic\n"
           "#library " + LIBRARY + "\n"
           "Init g=0 thread=0\n= 0 d=0\n"
           "T 1 size=1 extent=1 lb=0 kind=named name=MPI_BYTE\n"
           "T 2 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n")
_FINALIZE = "@ 99 ./{exe} 0x1f00\nFinalize g={g} @=99\n= 0 d=21000\n"
_CHUNK = 4096  # steps made and written at a time (at most)
_CHUNK_CALLS = 1 << 16  # calls made and written at a time (at most)
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


class Slot(NamedTuple):
    """One call of a step: its lines (``{g}`` and ``{d}`` where its times go) and the ranges
    its times are drawn from (ns, both ends included)."""

    call: str
    result: str
    gap: tuple[int, int]
    duration: tuple[int, int]


Steps = Callable[[int, int, int], list[Slot]]


def _halo3d(rank: int, size: int, step: int) -> list[Slot]:
    pairs = _neighbours(rank, size)
    first = 1 + 12 * step
    slots = [Slot(f"Irecv g={{g}} @=1 src={src} tag={d} comm=0 n={FACE} T=2",
                  f"= 0 d={{d}} r={first + d}", (60, 200), (300, 900))
             for d, (src, _) in enumerate(pairs)]
    slots += [Slot(f"Isend g={{g}} @=2 dest={dest} tag={d} comm=0 n={FACE} T=2",
                   f"= 0 d={{d}} r={first + 6 + d}", (60, 200), (400, 1500))
              for d, (_, dest) in enumerate(pairs)]
    statuses = ",".join(f"{src}:{d}:{FACE * 8}" for d, (src, _) in enumerate(pairs))
    ids = ",".join(map(str, range(first, first + 12)))
    slots.append(Slot(f"Waitall g={{g}} @=3 r={ids}", f"= 0 d={{d}} st={statuses}" +
                      ",-" * 6, (50, 150), (2000, 20000)))
    slots.append(Slot("Allreduce g={g} @=4 comm=0 n=1 T=2 op=SUM", "= 0 d={d}",
                      (20000, 60000), (3000, 12000)))
    return slots


def _master_worker(rank: int, size: int, step: int) -> list[Slot]:
    if rank == 0:
        return [slot for worker in range(1, size) for slot in (
            Slot("Recv g={g} @=1 src=A tag=1 comm=0 n=64 T=2",
                 f"= 0 d={{d}} st={worker}:1:512", (50, 150), (300, 5000)),
            Slot(f"Send g={{g}} @=2 dest={worker} tag=2 comm=0 n=64 T=2", "= 0 d={d}",
                 (50, 150), (300, 900)))]
    # the first results arrive in rank order, and so every later one
    first = 20_000 + (200 * rank if step == 0 else 0)
    return [Slot("Send g={g} @=1 dest=0 tag=1 comm=0 n=64 T=2", "= 0 d={d}",
                 (first, first), (300, 900)),
            Slot("Recv g={g} @=2 src=0 tag=2 comm=0 n=64 T=2", "= 0 d={d} st=0:2:512",
                 (100, 100), (1000, 50000))]


def _pingpong(rank: int, size: int, step: int) -> list[Slot]:
    peer = rank ^ 1
    if peer >= size:
        return []
    send = Slot(f"Send g={{g}} @=1 dest={peer} tag=0 comm=0 n=8 T=1", "= 0 d={d}",
                (80, 400), (300, 2000))
    recv = Slot(f"Recv g={{g}} @=2 src={peer} tag=0 comm=0 n=8 T=1",
                f"= 0 d={{d}} st={peer}:0:8", (80, 400), (300, 2000))
    return [send, recv] if rank % 2 == 0 else [recv, send]


SHAPES: dict[str, Steps] = {"halo3d": _halo3d, "master-worker": _master_worker,
                            "pingpong": _pingpong}
"""The shapes by name: each a function (rank, size, step) giving a process's calls in that
step. Its steps differ only in their request ids (a step's are the last one's plus a
stride) and, in step 0, in their time ranges."""

_SITES = {"halo3d": 4, "master-worker": 2, "pingpong": 2}
_SITE_AT = {"halo3d": 0x1200, "master-worker": 0x1300, "pingpong": 0x1300}


def _sites(shape: str) -> str:
    exe = shape.replace("-", "_")
    return "".join(f"@ {i + 1} ./{exe} {_SITE_AT[shape] + 0x40 * i:#x}\n"
                   for i in range(_SITES[shape]))


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


def _times(rng: np.random.Generator, slots0: list[Slot], slots: list[Slot], first: int,
           n: int) -> tuple[np.ndarray, np.ndarray]:
    """The gaps and durations of steps ``first`` to ``first + n`` (n x slots, ns)."""
    def ranges(which: int) -> tuple[np.ndarray, np.ndarray]:
        low = np.array([[s[which][0] for s in slots]] * n, dtype=np.int64).reshape(n, -1)
        high = np.array([[s[which][1] for s in slots]] * n, dtype=np.int64).reshape(n, -1)
        if first == 0 and n:
            low[0] = [s[which][0] for s in slots0]
            high[0] = [s[which][1] for s in slots0]
        return low, high + 1
    gap = rng.integers(*ranges(2))
    return gap, rng.integers(*ranges(3))


def _chunks(shape: str, rank: int, size: int, steps: int,
            rng: np.random.Generator) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(first step, gaps, durations) a chunk of steps at a time."""
    slots0, slots = SHAPES[shape](rank, size, 0), SHAPES[shape](rank, size, 1)
    if not slots:
        return
    per = max(1, min(_CHUNK, _CHUNK_CALLS // len(slots)))
    for first in range(0, steps, per):
        n = min(per, steps - first)
        yield (first, *_times(rng, slots0, slots, first, n))


def _write_rank(f, shape: str, rank: int, size: int, steps: int, seed: int,
                fmt: str = "text") -> None:
    rng = np.random.default_rng(seed * 1_000_003 + rank)
    exe = shape.replace("-", "_")
    head = _HEADER.format(rank=rank, size=size, pid=1000 + rank, exe=exe) + _sites(shape)
    if fmt == "compact":
        _write_compact(f, shape, rank, size, steps, rng, head)
        return
    f.write(head)
    steps_of = SHAPES[shape]
    for first, gaps, durations in _chunks(shape, rank, size, steps, rng):
        lines = []
        for i in range(len(gaps)):
            for slot, g, d in zip(steps_of(rank, size, first + i), gaps[i], durations[i],
                                  strict=True):
                lines.append(f"{slot.call.format(g=g)}\n{slot.result.format(d=d)}\n")
        f.write("".join(lines))
    f.write(_FINALIZE.format(exe=exe, g=rng.integers(1000, 2001)))


def _write_compact(f, shape: str, rank: int, size: int, steps: int,
                   rng: np.random.Generator, head: str) -> None:
    """A process's stream, its steps as columns: each call's key and request base are those
    of its lines in step 0 and 1 (:func:`.compact.call_key`, as a text log converted would
    have them), a later step's bases the last one's plus the stride between those two."""
    writer = TextToCompact(f)
    for line in head.split("\n"):
        writer.line(line)
    stream = writer.open_stream()
    slots0, slots1 = SHAPES[shape](rank, size, 0), SHAPES[shape](rank, size, 1)
    keys0 = [call_key(s.call.format(g=0), s.result.format(d=0)) for s in slots0]
    keys1 = [call_key(s.call.format(g=0), s.result.format(d=0)) for s in slots1]
    if [k[0] for k in keys0] != [k[0] for k in keys1]:
        raise AssertionError(f"{shape}: steps 0 and 1 make calls of different keys")
    keys = [k[0] for k in keys0]
    base0 = np.array([k[3] for k in keys0], dtype=np.int64)
    stride = np.array([k[3] for k in keys1], dtype=np.int64) - base0
    which = np.arange(len(keys))
    for first, gaps, durations in _chunks(shape, rank, size, steps, rng):
        n = len(gaps)
        at = np.arange(first, first + n, dtype=np.int64)[:, None]
        bases = np.where(base0 > 0, base0 + at * stride, 0)
        stream.columns(keys, np.tile(which, n), gaps.ravel(), durations.ravel(),
                       bases.ravel())
    for line in _FINALIZE.format(exe=shape.replace("-", "_"),
                                 g=rng.integers(1000, 2001)).split("\n"):
        writer.line(line)
    writer.close()


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
