"""Instructions per simulated message, counted under cachegrind: the figure machine load
does not change (wall-clock rates on a shared machine vary several-fold from run to run).

Each workload runs twice under ``valgrind --tool=cachegrind --cache-sim=no``, with a small
and a larger number of messages; the difference of the two instruction counts divided by
the difference of the message counts is the cost of one message, start-up and trace
building excluded. The runs are made deterministic (one BLAS thread, a fixed hash seed,
no address randomisation where ``setarch -R`` exists), so the same code gives the same
count to the instruction.

    python -m bench.instructions                     # bsend ring, send ring, bare ring and
                                                     # their floors (bench/floor.py), 64 ranks
    python -m bench.instructions --ranks 1024 --messages 8192 24576

With Cython installed (``pip install cython``, and a C compiler), the floors are also
counted compiled with the C types of ``bench/floor.pxd`` (``floor-compiled``,
``floor-send-compiled``): what a compiled build could buy at best.

The counts are also written into ``bench/results.json`` (key ``instructions``), from which
``python -m bench --readme`` shows them under the performance table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from .cachegrind import counted, refused

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
COMPILED = ("floor-compiled", "floor-send-compiled")
WORKLOADS = ("bsend-ring", "send-ring", "bare", "floor", "floor-send", *COMPILED)


def run_workload(name: str, ranks: int, messages: int, compiled: str | None = None) -> None:
    """One run of ``name`` (the measured process; trace on, as in ``python -m bench``);
    ``compiled``: the path of the compiled floor, for the compiled workloads."""
    from .run import NET, bare_ring, bsend_ring, send_ring

    iterations = max(1, messages // ranks)
    if name == "bare":
        bare_ring(ranks, iterations)
        return
    if name.startswith("floor"):  # the rings' work, every layer merged (bench/floor.py)
        from . import floor

        module = floor.load_compiled(Path(compiled)) if name in COMPILED else floor
        module.floor_ring(ranks, iterations, "send" if name.startswith("floor-send")
                          else "bsend")
        return
    import mpisim as ms

    program = {"bsend-ring": bsend_ring, "send-ring": send_ring}[name]
    result = ms.Simulation(program, ranks=ranks, network=NET,
                           params={"iterations": iterations}).run()
    assert result.outcome is ms.Outcome.COMPLETED, result


def instructions(name: str, ranks: int, messages: int, compiled: str = "") -> int:
    """Instructions executed by one run under cachegrind."""
    return counted("bench.instructions", "--child", name, str(ranks), str(messages), compiled,
                   what=name)[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.instructions",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=WORKLOADS, help="these workloads only")
    ap.add_argument("--ranks", type=int, default=64, help="ranks of the rings (default 64)")
    ap.add_argument("--messages", type=int, nargs=2, default=[4000, 12000],
                    metavar=("SMALL", "LARGE"), help="messages of the two runs (default "
                    "4000 12000)")
    ap.add_argument("--out", type=Path, default=RESULTS,
                    help="results file to add the counts to (default %(default)s)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run_workload(args.child[0], int(args.child[1]), int(args.child[2]), args.child[3])
        return 0
    small, large = args.messages
    why = refused("python -m bench.instructions", "--messages", small, large)
    if why:
        print(why, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="floor-") as build:
        workloads, compiled = _compiled(args.only or WORKLOADS, Path(build))
        rows = [_count(name, args.ranks, small, large, compiled) for name in workloads]
    bare = next((r["instructions_per_message"] for r in rows if r["workload"] == "bare"), None)
    if bare:
        for r in rows:
            r["ratio"] = round(bare / r["instructions_per_message"], 3)
    if args.out.exists():
        result = json.loads(args.out.read_text())
        result["instructions"] = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                  "rows": rows}
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"written {args.out}")
    return 0


def _compiled(workloads: tuple[str, ...] | list[str],
              build: Path) -> tuple[list[str], str]:
    """The workloads that can run here, and the compiled floor's path when one is asked for
    (built in ``build``); without Cython the compiled floors are left out, saying why."""
    if not any(name in COMPILED for name in workloads):
        return list(workloads), ""
    from .floor import build_compiled

    try:
        return list(workloads), str(build_compiled(build))
    except RuntimeError as e:
        print(f"{', '.join(COMPILED)}: left out: {e}", file=sys.stderr)
        return [name for name in workloads if name not in COMPILED], ""


def _count(name: str, ranks: int, small: int, large: int, compiled: str) -> dict:
    """The row of one workload: its instructions per message, from two runs."""
    # the rings deliver whole rounds: count what they really deliver
    lo, hi = (ranks * max(1, m // ranks) for m in (small, large))
    per_message = (instructions(name, ranks, large, compiled)
                   - instructions(name, ranks, small, compiled)) / (hi - lo)
    print(f"{name:<20} {ranks:>6} ranks  {per_message:>10,.0f} instructions/message",
          flush=True)
    return {"workload": name, "ranks": ranks, "messages": [lo, hi],
            "instructions_per_message": round(per_message)}


if __name__ == "__main__":
    sys.exit(main())
