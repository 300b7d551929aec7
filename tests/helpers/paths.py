"""The repository's folders, wherever a test file stands below tests/."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
SCENARIOS = ROOT / "scenarios"
DATA = TESTS / "data"
"""Files the tests read: calibration/ (recorded probe outputs), real/ (mpi4py programs for a
real mpiexec), replay/ (stored recordings), replay_c/ (C and Fortran programs to record),
stored/ (every shipped scenario's result and trace)."""
