"""bench.cachegrind's refusals, shared by bench.instructions, bench.percall and
bench.frontend: one line each, valgrind's absence said first."""

from __future__ import annotations

import pytest

from bench import cachegrind


@pytest.fixture
def valgrind(monkeypatch):
    """valgrind present or not, whatever this machine has."""
    def present(yes: bool) -> None:
        monkeypatch.setattr(cachegrind.shutil, "which",
                            lambda tool: f"/usr/bin/{tool}" if yes else None)
    return present


def test_two_runs_that_can_be_made_are_not_refused(valgrind):
    valgrind(True)
    assert cachegrind.refused("python -m bench.percall", "--calls", 100, 300) is None


@pytest.mark.parametrize("small, large", [(300, 100), (100, 100), (0, 100), (-5, 100)])
def test_small_must_be_positive_and_below_large(valgrind, small, large):
    valgrind(True)
    assert cachegrind.refused("python -m bench.instructions", "--messages", small, large) == \
        "--messages: SMALL must be positive and below LARGE"


def test_without_valgrind_the_command_says_how_to_install_it(valgrind):
    valgrind(False)
    assert cachegrind.refused("python -m bench.frontend", "--counts", 300, 100) == \
        "python -m bench.frontend: valgrind is not installed (apt-get install valgrind)"
