"""Instructions a call of ``bench.scale``'s patterns, native and replayed, under cachegrind:
the figure machine load does not change, for the question of issue 41 "is a nonblocking
call as cheap to simulate as a blocking one?".

For each pattern (the 2-process ping-pong, the 8-process 3-D halo exchange) a synthetic
compact recording of ``SMALL`` and of ``LARGE`` calls is written; each is run twice under
``valgrind --tool=cachegrind --cache-sim=no`` (its native generator program on the recorded
gaps, then its replay, trace off) and the difference of the two counts over the difference
of the calls is the cost of one call, start-up and reading left out. The halo is also run
without its MPI_Allreduce (``halo3d-p2p``) and with nothing but it (``halo3d-allreduce``), so
that the allreduce's share shows; and each native run's events (the engine's, counted by
the run) are given a call, since the cost of a call is, nearly, the cost of its events.

    python -m bench.percall                          # both patterns, 5,000 and 25,000 calls
    python -m bench.percall --patterns halo3d --calls 2000 10000

The runs are made deterministic as ``bench.cachegrind`` makes them (one BLAS thread, a
fixed hash seed, no address randomisation where ``setarch -R`` exists).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from .cachegrind import counted, refused

FACE = 1024  # doubles a halo message carries (the synthetic recording's)
RUNS = {"pingpong": ("native", "replay"),
        "halo3d": ("native", "replay", "native-p2p", "native-allreduce")}


def halo_part(mpi, gaps, part):
    """The halo's native program (``bench.scale.native_halo3d``) with only its
    point-to-point calls (``part`` "p2p") or only its allreduce ("allreduce"), each call
    after its recorded gap."""
    import mpisim as ms
    from mpisim.recorded.record.synthetic import _neighbours

    mine, pairs = gaps[mpi.rank], _neighbours(mpi.rank, mpi.size)
    for i in range(1, len(mine) - 1, 14):
        step = mine[i:i + 14]
        if part == "p2p":
            reqs = []
            for d, (src, _) in enumerate(pairs):
                yield mpi.compute(step[d])
                reqs.append((yield mpi.irecv(count=FACE, datatype=ms.DOUBLE, source=src,
                                             tag=d)))
            for d, (_, dest) in enumerate(pairs):
                yield mpi.compute(step[6 + d])
                reqs.append((yield mpi.isend(count=FACE, datatype=ms.DOUBLE, dest=dest,
                                             tag=d)))
            yield mpi.compute(step[12])
            yield mpi.waitall(reqs)
        yield mpi.compute(step[13])
        if part == "allreduce":
            yield mpi.allreduce(count=1, datatype=ms.DOUBLE, op=ms.SUM)
    yield mpi.compute(mine[-1])


def run(path: str, how: str) -> int:
    """One run of the recording at ``path``: its replay, or a native program on its gaps;
    returns the events the engine processed (0 for a replay)."""
    import mpisim as ms
    from mpisim.recorded.replayer.program import load

    from .scale import NATIVE

    if how == "replay":
        result = ms.replay(path, trace=False)
        assert result.outcome is ms.Outcome.COMPLETED, result.report()
        return 0
    recording = load(path)
    gaps = {r.rank: r.calls.gap.tolist() for r in recording.ranks}
    pattern = Path(path).name.split("-")[0]
    program, params = NATIVE[pattern], {"gaps": gaps}
    if how != "native":
        program, params["part"] = halo_part, how.removeprefix("native-")
    sim = ms.Simulation(program, ranks=recording.size, trace=False,
                        mpi={"profile": "mpich-5.0"}, params=params)
    result = sim.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return sim.events


def instructions(path: Path, how: str) -> tuple[int, int]:
    """Instructions executed by one run under cachegrind, and its events."""
    what = f"{path.name} {how}"
    count, out = counted("bench.percall", "--child", str(path), how, what=what)
    events = re.search(r"events (\d+)", out)
    if events is None:
        raise RuntimeError(f"{what}: the run printed no count of its events\n{out[-2000:]}")
    return count, int(events.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.percall",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--patterns", nargs="*", choices=list(RUNS), default=list(RUNS),
                    help="the patterns (default: both)")
    ap.add_argument("--calls", type=int, nargs=2, default=[5000, 25000],
                    metavar=("SMALL", "LARGE"), help="calls of the two recordings (default "
                    "5000 25000)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(f"events {run(*args.child)}")
        return 0
    small, large = args.calls
    why = refused("python -m bench.percall", "--calls", small, large)
    if why:
        print(why, file=sys.stderr)
        return 2
    from mpisim.recorded.record import synthetic as syn

    from .scale import PATTERNS

    with tempfile.TemporaryDirectory(prefix="percall-") as tmp:
        print("| pattern, run | instructions a call | events a call |\n|---|---|---|")
        for pattern in args.patterns:
            shape, ranks, _ = PATTERNS[pattern]
            paths, calls = [], []
            for n in (small, large):
                steps = syn.steps_for(shape, ranks, n)
                paths.append(Path(tmp) / f"{pattern}-{n}.trace")
                syn.write(paths[-1], shape, ranks, steps, fmt="compact")
                calls.append(syn.total_calls(shape, ranks, steps))
            for how in RUNS[pattern]:
                (a, ea), (b, eb) = (instructions(p, how) for p in paths)
                per = (b - a) / (calls[1] - calls[0])
                ev = f"{(eb - ea) / (calls[1] - calls[0]):.2f}" if how != "replay" else ""
                print(f"| {pattern} {how} | {per:,.0f} | {ev} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
