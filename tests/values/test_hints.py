"""The "did you mean" every reader gives: a misspelt key, choice or profile name names the
closest valid one, as a scenario file's key does."""

from __future__ import annotations

import pytest

from mpisim.values.readers import Invalid, hint, read_choice, unknown_key

PROFILES = ["standard", "mpich-4.0", "openmpi-4.1", "mpich-5.0", "openmpi-5.0", "mpich",
            "openmpi"]


@pytest.mark.parametrize(("word", "close"), [
    ("mpic", "mpich"), ("opnmpi", "openmpi"), ("standrad", "standard"),
    ("openmpi5", "openmpi-5.0"), ("mpich4", "mpich-4.0"), ("mpich_5", "mpich-5.0"),
    ("openmpi-4", "openmpi-4.1"),
])
def test_a_misspelt_profile_name_gets_the_closest_keeping_its_version(word, close):
    assert hint(word, PROFILES) == f" (did you mean {close!r}?)"


def test_nothing_close_gives_no_hint():
    assert hint("lam", PROFILES) == ""


def test_unknown_key_hints_or_lists():
    keys = ["network.eager_limit", "network.eager_cells", "network.latency"]
    assert unknown_key("network.eager_limt", keys) == \
        "unknown key (did you mean 'network.eager_limit'?)"
    assert unknown_key("zzz", keys) == f"unknown key (valid: {', '.join(keys)})"


def test_a_choice_says_the_choices_and_the_closest():
    with pytest.raises(Invalid) as e:
        read_choice("first_fit", ["circular", "first-fit", "unbounded"])
    assert str(e.value) == ("'first_fit' is not one of circular, first-fit, unbounded "
                            "(did you mean 'first-fit'?)")
