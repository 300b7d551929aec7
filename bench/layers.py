"""Where a message's work is, layer by layer: bytecodes and Python calls per message.

Instructions per message (``python -m bench.instructions``) say how much a message costs;
this says where. Each ring (the bsend ring and the send ring of ``python -m bench``, 64
ranks, trace on) runs twice under ``sys.settrace`` with opcode events, at two numbers of
messages; the difference of the two counts, divided by the difference of the messages, is
the work of one message, start-up and finish excluded (the method of bench/instructions.py,
with the interpreter's own counters instead of cachegrind's). Each function is counted in
the layer its module belongs to (``LAYERS``), and the flat floor of ``bench/floor.py`` is
counted the same way, its functions mapped to the layer that does their work in mpisim
(``FLOOR_LAYERS``). The table says which layers cost more than the work they must do.

A bytecode is not a fixed cost (a call, a struct pack or a heap push costs tens of simple
ones), so the counts rank the layers; the instructions measure them. Calls are Python
calls (a C function, ``struct.pack`` say, is inside its caller's bytecodes).

    python -m bench.layers               # both rings, 64 ranks
    python -m bench.layers --markdown    # the table for docs/contributing/performance.md
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# mpisim's modules by layer (the first prefix that fits), top to bottom
LAYERS = (
    ("program", ("bench/",)),
    ("handle (the call)", ("mpisim/handle/",)),
    ("buffered mode, allocator", ("mpisim/buffered/",)),
    ("transport, matching, completion", ("mpisim/p2p/",)),
    ("trace rows", ("mpisim/engine/trace.py",)),
    ("events, process, loop", ("mpisim/engine/", "mpisim/runs/", "simpy/")),
)
OTHER = "other"

# the floor's functions by the layer that does their work in mpisim
FLOOR_LAYERS = {
    "ring_program": "program",
    "enter": "handle (the call)",
    "bsend": "buffered mode, allocator",
    "settle": "buffered mode, allocator",
    "send": "handle (the call)",
    "post": "transport, matching, completion",
    "recv": "transport, matching, completion",
    "arrive": "transport, matching, completion",
    "deliver": "transport, matching, completion",
    "__init__": "transport, matching, completion",  # Status
    "_event": "events, process, loop",
}


def layer_of(filename: str) -> str:
    """The layer of a code object's file (see ``LAYERS``)."""
    path = filename.replace("\\", "/")
    for name, prefixes in LAYERS:
        if any(p in path for p in prefixes):
            return name
    return OTHER


class Counts:
    """Bytecodes and calls per code object while tracing is on."""

    def __init__(self) -> None:
        self.ops: Counter = Counter()
        self.calls: Counter = Counter()

    def __call__(self, frame: Any, event: str, arg: Any) -> Callable | None:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            self.calls[frame.f_code] += 1
        return self._local

    def _local(self, frame: Any, event: str, arg: Any) -> Callable | None:
        if event == "opcode":
            self.ops[frame.f_code] += 1
        return self._local

    def traced(self, fn: Callable[[], Any]) -> tuple[Counter, Counter]:
        self.ops.clear()
        self.calls.clear()
        sys.settrace(self)
        try:
            fn()
        finally:
            sys.settrace(None)
        return Counter(self.ops), Counter(self.calls)


def per_message(run: Callable[[int], Any], ranks: int, small: int, large: int,
                layer: Callable[[Any], str]) -> dict[str, tuple[float, float]]:
    """{layer: (bytecodes, calls)} per message of ``run(iterations)``, from two runs."""
    counts = Counts()
    (ops_a, calls_a), (ops_b, calls_b) = (counts.traced(lambda n=n: run(n))
                                          for n in (small, large))
    messages = ranks * (large - small)
    out: dict[str, list[float]] = {}
    for code in set(ops_a) | set(ops_b) | set(calls_b):
        row = out.setdefault(layer(code), [0.0, 0.0])
        row[0] += (ops_b[code] - ops_a[code]) / messages
        row[1] += (calls_b[code] - calls_a[code]) / messages
    return {k: (v[0], v[1]) for k, v in out.items()}


def measure(ranks: int = 64, small: int = 20, large: int = 60) -> dict[str, dict]:
    """{ring: {"mpisim": {layer: (bytecodes, calls)}, "floor": {...}}} per message."""
    import mpisim as ms

    from . import floor
    from .run import NET, bsend_ring, send_ring

    def floor_layer(code: Any) -> str:
        if Path(code.co_filename).name == "floor.py":
            return FLOOR_LAYERS.get(code.co_name, OTHER)
        return layer_of(code.co_filename)

    out = {}
    for ring, program in (("bsend", bsend_ring), ("send", send_ring)):
        def sim(n: int, program: Any = program) -> None:
            result = ms.Simulation(program, ranks=ranks, network=NET,
                                   params={"iterations": n}).run()
            assert result.outcome is ms.Outcome.COMPLETED, result

        out[ring] = {
            "mpisim": per_message(sim, ranks, small, large,
                                  lambda code: layer_of(code.co_filename)),
            "floor": per_message(lambda n, ring=ring: floor.floor_ring(ranks, n, ring),
                                 ranks, small, large, floor_layer),
        }
    return out


def table(result: dict[str, dict], markdown: bool = False) -> list[str]:
    """The per-layer table of both rings: mpisim's bytecodes and calls, the floor's, and
    how many times the floor's work mpisim's is."""
    names = [name for name, _ in LAYERS] + [OTHER]
    lines = []
    if markdown:
        lines += ["| ring | layer | mpisim bytecodes | floor bytecodes | mpisim calls | "
                  "floor calls |", "|---|---|---|---|---|---|"]
    for ring, both in result.items():
        ours, flat = both["mpisim"], both["floor"]
        if not markdown:
            lines += [f"{ring} ring, per message", f"  {'layer':<34} {'mpisim':>8} "
                      f"{'floor':>8} {'calls':>6} {'floor':>6}"]
        for name in [*names, "total"]:
            if name == "total":
                a = tuple(sum(v[i] for v in ours.values()) for i in (0, 1))
                b = tuple(sum(v[i] for v in flat.values()) for i in (0, 1))
            else:
                a, b = ours.get(name, (0.0, 0.0)), flat.get(name, (0.0, 0.0))
            if name != "total" and max(a[0], b[0]) < 0.5:
                continue
            if markdown:
                label = f"**{name}**" if name == "total" else name
                lines.append(f"| {ring} | {label} | {a[0]:,.0f} | {b[0]:,.0f} | {a[1]:.0f} "
                             f"| {b[1]:.0f} |")
            else:
                lines.append(f"  {name:<34} {a[0]:>8,.0f} {b[0]:>8,.0f} {a[1]:>6.0f} "
                             f"{b[1]:>6.0f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.layers",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=64, help="ranks of the rings (default 64)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    for line in table(measure(args.ranks), args.markdown):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
