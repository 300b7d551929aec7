"""Every shipped scenario gives, byte for byte, the result JSON and trace stored in
tests/data/stored/: engine changes meant to be invisible (speed, structure) are.

When a change of semantics is intended, regenerate the stored copies and review the diff:

    python tests/runs/test_stored_results.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mpisim.scenario import load

ROOT = Path(__file__).resolve().parents[2]  # also run as a script: no helpers import
SCENARIOS = ROOT / "scenarios"
STORED = ROOT / "tests" / "data" / "stored"
SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted(SCENARIOS.glob("*.py"))
REGENERATE = "python tests/runs/test_stored_results.py"


def outputs(path: Path) -> dict[str, str]:
    """The texts stored for one scenario: its result JSON and its trace, one row a line."""
    result = load(path).run()
    trace = {name: getattr(result.trace, name).tolist()
             for name in ("buffer", "entries", "messages", "calls")}
    lines = [json.dumps({name: len(rows) for name, rows in trace.items()})]
    for name, rows in trace.items():
        lines += [json.dumps([name, *row]) for row in rows]
    return {f"{path.stem}.json": result.to_json() + "\n",
            f"{path.stem}.trace.jsonl": "\n".join(lines) + "\n"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenario_gives_its_stored_result_and_trace(path):
    for name, text in outputs(path).items():
        stored = STORED / name
        assert stored.exists(), f"no stored copy of {name}: run `{REGENERATE}`"
        expected = stored.read_text()
        if text != expected:
            at = next(i for i, (a, b) in enumerate(zip(text, expected + "\0", strict=False))
                      if a != b)
            line, start = text.count("\n", 0, at) + 1, max(at - 120, 0)
            pytest.fail(f"{name} differs from the stored copy at line {line}:\n"
                        f"  now:    ...{text[start:at + 80]!r}\n"
                        f"  stored: ...{expected[start:at + 80]!r}\n"
                        f"if the change is intended, run `{REGENERATE}` and review the diff")


def test_every_stored_copy_belongs_to_a_shipped_scenario():
    stems = {p.stem for p in SHIPPED}
    orphans = [p.name for p in STORED.iterdir()
               if p.name.removesuffix(".json").removesuffix(".trace.jsonl") not in stems]
    assert not orphans, f"stored copies without a scenario: {orphans}; run `{REGENERATE}`"


def regenerate() -> None:
    """Rewrite every stored copy from the current engine."""
    for old in STORED.glob("*"):
        old.unlink()
    STORED.mkdir(exist_ok=True)
    for path in SHIPPED:
        for name, text in outputs(path).items():
            (STORED / name).write_text(text)
    print(f"stored {2 * len(SHIPPED)} files in {STORED.relative_to(ROOT)}/", file=sys.stderr)


if __name__ == "__main__":
    regenerate()
