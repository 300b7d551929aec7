"""One call end to end: every call of the handle's table has each front door, or a reason.

The doors are read from the code (:mod:`helpers.doors`): the stand-in's handle calls, the
recorder's C wrappers and Fortran bindings (its C file run through the preprocessor), the
replayer's and the YAML writer's tables, the scenario ops. A new call of
``mpisim/handle/calltable.py`` fails here until each door has it or
``tests/helpers/doors.py``'s ``EXCLUDED`` says why not.
"""

from __future__ import annotations

import pytest
from helpers import doors

from mpisim.handle.calltable import CALLS


def _needs_the_preprocessor() -> None:
    if doors._expanded_shim() is None:
        pytest.skip("no C compiler to expand the recorder's C file")


def test_every_door_has_every_call_or_says_why_not():
    _needs_the_preprocessor()
    gaps = [f"{name}: {door}" for name, row in doors.table().items()
            for door, cell in row.items() if cell == "no"]
    assert not gaps, ("calls a front door lacks, with no reason in tests/helpers/doors.py's "
                      "EXCLUDED (add the door, or the reason):\n  " + "\n  ".join(gaps))


def test_no_exclusion_outlives_its_gap():
    """An excluded call a door has since gained is named, so the table stays true."""
    _needs_the_preprocessor()
    stale = [f"{name}: {door}" for door, groups in doors.EXCLUDED.items()
             for names, _reason in groups for name in names if doors.has(door, name)]
    assert not stale, "excluded, yet the door has it (remove the exclusion):\n  " + \
        "\n  ".join(stale)


def test_the_doors_are_found_at_all():
    """The readers of the doors find the calls everyone knows each door has (a reader that
    broke would otherwise turn every cell into an exclusion's reason)."""
    _needs_the_preprocessor()
    for door in doors.DOORS:
        assert doors.has(door, "send") or door == "Fortran", door
    assert doors.has("Fortran", "put") and doors.has("C wrapper", "comm_idup")
    assert doors.has("stand-in", "comm_idup") and doors.has("replayer", "comm_idup")
    assert not doors.has("scenario op", "comm_idup")


def test_the_contributors_page_is_current():
    _needs_the_preprocessor()
    assert doors.PAGE.read_text() == doors.markdown(), \
        "docs/contributing/calls.md is stale: python tests/helpers/doors.py --write"


def test_the_table_covers_every_call_once():
    assert list(doors.table()) == list(CALLS)


FRONT_ENDS = {"mpi4py", "recorded", "scenario", "data", "notebooks", "fuzz"}
"""Test folders of the front doors: a call tested only there is not tested as the handle's."""


def test_every_call_of_the_table_has_a_test_of_the_handles_own():
    """A call tested only through a front end (comm_idup was) fails here: each is named as
    ``mpi.call`` or ``"call"`` in a test of the native API."""
    import re

    tests = doors.ROOT / "tests"
    text = "".join(p.read_text() for p in tests.rglob("test_*.py")
                   if p.relative_to(tests).parts[0] not in FRONT_ENDS)
    untested = [name for name in CALLS
                if not re.search(rf"\.{name}\b|[\"']{name}[\"']", text)]
    assert not untested, "calls with no test of the handle's own: " + ", ".join(untested)
