"""Shared test settings: hypothesis profiles sized for CI.

The folders mirror the package's layers (tests/engine for mpisim/engine, and so on), with
tests/architecture for the rules about the whole (layers, public surface, contract, docs
site), tests/helpers for what many files share and tests/data for the files tests read.

Markers (registered in pyproject.toml, set in each file with ``pytestmark`` or on the test):
``real_mpi`` on every test that launches a real MPI library (they skip without one),
``notebooks`` on the notebook tests, ``slow`` on any test (all its cases together) that
takes more than about 2 s on its own. ``.venv/bin/python -m pytest -n auto --dist
loadgroup`` runs everything on every core (pytest-xdist), the tests of ``real_mpi`` one
after another on one worker: two real MPI jobs at once, each polling busily, would share
the cores and slow each other past their timeouts. The inner loop is ``.venv/bin/python -m
pytest -m "not slow and not real_mpi and not notebooks"``.
"""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


# mpi4py's own test modules run under the stand-in at 1 to 4 ranks, and the one-sided
# differential tests launch the real library dozens of times: minutes each. They run where
# MPISIM_FULL_SUITE=1 is set, so that CI's whole run stays within its time.
_LONG = ("test_mpi4py_suite_collectives.py", "test_mpi4py_suite_comms.py",
         "test_mpi4py_suite_rma.py", "test_mpi4py_oracle_rma.py")


@pytest.hookimpl(tryfirst=True)  # (before pytest-xdist reads the groups)
def pytest_collection_modifyitems(config, items):
    import os

    one_at_a_time = pytest.mark.xdist_group("real_mpi")
    for item in items:
        if item.get_closest_marker("real_mpi"):
            item.add_marker(one_at_a_time)
    # The real MPI tests first, then the other slow ones (a stable sort: each file's order
    # kept): the workers start with the longest work, and the run does not end waiting
    # for one of them to finish a minute-long test begun last.
    items.sort(key=lambda item: (item.get_closest_marker("real_mpi") is None,
                                 item.get_closest_marker("slow") is None))
    if os.environ.get("MPISIM_FULL_SUITE") == "1":
        return
    skip = pytest.mark.skip(reason="a long module: set MPISIM_FULL_SUITE=1 to run it")
    for item in items:
        if item.path.name in _LONG:
            item.add_marker(skip)
