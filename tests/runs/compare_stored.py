"""Compare the stored results of the shipped scenarios with what the engine gives now, field
by field, leaving out what depends only on the order of events at one instant.

A change of the event order at an instant (allowed when documented and deterministic)
renumbers messages and reorders the rows of different ranks at one time; it must change no
outcome, time or buffer figure. Run before regenerating the stored copies:

    python tests/runs/compare_stored.py              # against tests/data/stored/
    python tests/runs/compare_stored.py OLD_DIR      # against an earlier copy of it

Left out, as order-dependent: message ids (the ``id`` of a message row, the ``msg`` of a
buffer entry's row) and the order of rows of different ranks at one time (messages and
entries are compared as sorted lists of rows, buffer rows and calls rank by rank in order).
Everything else is compared as it is: outcome, times, buffers, summaries, errors, the
deadlock, warnings, unreceived messages (their ids excepted). It prints one line per
scenario and every difference, and exits 1 if there is any.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from test_stored_results import SHIPPED, STORED, outputs  # noqa: E402

ORDER_FIELDS = {"id", "msg", "message_id"}
"""Keys of the result JSON that are message numbers (order-dependent)."""


def _without_order(value: Any) -> Any:
    """The result JSON without its order-dependent keys."""
    if isinstance(value, dict):
        return {k: _without_order(v) for k, v in value.items() if k not in ORDER_FIELDS}
    if isinstance(value, list):
        return [_without_order(v) for v in value]
    return value


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if k not in old or k not in new:
                out.append(f"{path}.{k}: only in {'new' if k in new else 'old'}")
            else:
                _diff(old[k], new[k], f"{path}.{k}", out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, f"{path}[{i}]", out)
    elif old != new and not (old != old and new != new):  # (NaN is NaN here)
        out.append(f"{path}: {old!r} -> {new!r}")


def _trace_rows(text: str) -> dict[str, Any]:
    """The trace's rows in an order-free form (see the module)."""
    lines = [json.loads(line) for line in text.splitlines()]
    counts, rows = lines[0], lines[1:]
    by = {name: [r[1:] for r in rows if r[0] == name] for name in counts}
    messages = sorted(json.dumps(r[1:]) for r in by["messages"])  # id left out
    entries = sorted(json.dumps(r[:1] + r[2:]) for r in by["entries"])  # msg left out
    per_rank: dict[str, dict[int, list]] = {"buffer": {}, "calls": {}}
    for name in per_rank:
        for r in by[name]:
            per_rank[name].setdefault(r[0], []).append(r)
    return {"counts": counts, "messages": messages, "entries": entries,
            "buffer": {str(k): v for k, v in per_rank["buffer"].items()},
            "calls": {str(k): v for k, v in per_rank["calls"].items()}}


def compare(old_dir: Path) -> int:
    differing = 0
    for path in SHIPPED:
        new = outputs(path)
        out: list[str] = []
        old_json = json.loads((old_dir / f"{path.stem}.json").read_text())
        new_json = json.loads(new[f"{path.stem}.json"])
        _diff(_without_order(old_json), _without_order(new_json), "result", out)
        old_trace = _trace_rows((old_dir / f"{path.stem}.trace.jsonl").read_text())
        new_trace = _trace_rows(new[f"{path.stem}.trace.jsonl"])
        _diff(old_trace, new_trace, "trace", out)
        same = all((old_dir / name).read_text() == text for name, text in new.items())
        state = ("identical, byte for byte" if same else
                 "same outcome, times and buffers (order-dependent fields differ)" if not out
                 else f"{len(out)} difference(s)")
        print(f"{path.name:<40} {old_json['outcome']:<10} t = {old_json['sim_time']:<12.6g} "
              f"{state}")
        for line in out[:20]:
            print(f"    {line}")
        differing += bool(out)
    print(f"{len(SHIPPED)} scenarios, {differing} with differences beyond the event order")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(compare(Path(sys.argv[1]) if len(sys.argv) > 1 else STORED))
