"""Every shipped scenario loads, says what it shows, and its run agrees with its expect:."""


import pytest
from helpers.paths import SCENARIOS

from mpisim.scenario import load

SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted(SCENARIOS.glob("*.py"))


def test_the_library_has_at_least_ten_scenarios():
    assert len(SHIPPED) >= 10


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenario_meets_its_expect(path):
    sc = load(path)
    assert sc.name == path.stem, "a scenario is named after its file"
    assert len(sc.description) > 100, "the description teaches what the scenario shows"
    assert sc.expect, "every shipped scenario states its expected outcome"
    assert sc.check_expect(sc.run()) is None


# What the descriptions promise when a value is changed with --set.
VARIANTS = [
    ("example-3.10-send.yaml", {"count": "1000"}, "completed"),
    ("example-3.10-bsend.yaml", {"count": "100000"}, "completed"),
    ("example-3.10-ssend.yaml", {"count": "1"}, "deadlock"),
    ("circular-head-of-line.yaml", {"mpi.allocator": "first-fit"}, "completed"),
    ("master-worker-bsend-bursts.yaml", {"work": "50us"}, "error"),
    ("pipeline-bsend-overflow.yaml", {"depth": "16"}, "completed"),
    ("detach-before-recv-deadlock.yaml", {"count": "512"}, "completed"),
    ("ring-bsend.yaml", {"mpi.force_ssend": "true"}, "deadlock"),
    ("halo-2d-bsend.yaml", {"mpi.force_ssend": "true"}, "deadlock"),
    ("halo-2d-bsend.yaml", {"slots": "3"}, "error"),
]


@pytest.mark.parametrize("name, overrides, outcome", VARIANTS,
                         ids=[f"{n}-{next(iter(o))}={next(iter(o.values()))}"
                              for n, o, _ in VARIANTS])
def test_variants_the_descriptions_promise(name, overrides, outcome):
    sc = load(SCENARIOS / name).with_overrides(overrides)
    assert sc.run().outcome.value == outcome
