"""mpisim as a correctness checker, scored as the MPI Bugs Initiative scores tools.

tests/data/mbi/ holds small mpi4py codes written for the project in the MBI's manner: each
is correct or carries one labelled error, in pairs (``<name>_ok.py``, ``<name>_bad.py``)
per rule. Its first line labels it: ``# mbi: correct``, ``# mbi: error RULE``,
``# mbi: leak RULE`` or ``# mbi: race RULE``. Each code runs on 3 ranks through
:func:`mpisim.check_races` (the run as written, then the other matching orders of its
wildcard receives): a code is *flagged* when the run as written has a finding or the
exploration finds a race. An erroneous code counts as found (a true positive) only when
the finding names its labelled rule. Recall and precision, on this set, stay at 1.0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mpisim as ms
from mpisim.mpi.findings import RULES
from mpisim.mpi4py import script_scenario

MBI = Path(__file__).resolve().parents[2] / "data" / "mbi"
CODES = sorted(MBI.glob("*.py"))


def label(path: Path) -> tuple[str, str | None]:
    """("correct", None) or (kind, rule) from the code's first line."""
    words = path.read_text().splitlines()[0].removeprefix("# mbi:").split()
    return words[0], (words[1] if len(words) > 1 else None)


def verdict(path: Path) -> set[str]:
    """The rules mpisim reports for one code (as written, and its races)."""
    scenario = script_scenario(str(path), [], 3, output="discard")
    races = ms.check_races(scenario, max_orders=8)
    found = {f.rule for f in races.tried[0].result.findings}
    race = races.finding()
    if race is not None:
        found.add(race.rule)
    return found


@pytest.fixture(scope="module")
def verdicts() -> dict[str, set[str]]:
    return {p.name: verdict(p) for p in CODES}


def test_every_code_is_labelled_with_a_known_rule_and_has_its_twin():
    assert len(CODES) >= 20
    for path in CODES:
        kind, rule = label(path)
        assert kind in ("correct", "error", "leak", "race"), path.name
        assert kind == "correct" or rule in RULES, path.name
        twin = path.name.replace("_bad", "_ok") if "_bad" in path.name else \
            path.name.replace("_ok", "_bad")
        assert (MBI / twin).exists(), f"{path.name} has no twin {twin}"


def test_recall_and_precision_are_one_on_the_project_set(verdicts):
    tp = fp = fn = 0
    wrong = []
    for path in CODES:
        kind, rule = label(path)
        found = verdicts[path.name]
        if kind == "correct":
            fp += bool(found)
            if found:
                wrong.append(f"{path.name}: correct, yet {sorted(found)}")
        elif rule in found:
            tp += 1
        else:
            fn += 1
            wrong.append(f"{path.name}: {rule} not found (found {sorted(found)})")
    recall = tp / (tp + fn)
    precision = tp / (tp + fp) if tp + fp else 0.0
    assert (recall, precision) == (1.0, 1.0), "\n".join(wrong)


def test_each_erroneous_code_reports_only_its_own_rule(verdicts):
    """A labelled error is not drowned in others: the bad twin reports its rule alone."""
    for path in CODES:
        kind, rule = label(path)
        if kind != "correct":
            assert verdicts[path.name] == {rule}, path.name
