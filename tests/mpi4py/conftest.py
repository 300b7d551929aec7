"""The fixture of the modules that run mpi4py's own tests under the stand-in."""

from __future__ import annotations

import pytest
from helpers import mpi4py_suite


@pytest.fixture(scope="session")
def suite():
    """The directory of mpi4py's test files (fetched once, see helpers.mpi4py_suite); the
    test skips, saying why, when they cannot be fetched."""
    try:
        return mpi4py_suite.suite_dir()
    except OSError as e:
        pytest.skip(f"mpi4py {mpi4py_suite.VERSION}'s tests cannot be fetched: {e}")
