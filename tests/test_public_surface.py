"""One namespace for everything a user needs (as mpi4py's ``MPI``): every predefined
datatype and constant the scenario language accepts, the what-if functions, nothing
private."""

from __future__ import annotations

import importlib.metadata

import mpisim as ms
from mpisim.datatypes import BASIC_TYPES
from mpisim.scenario.expr import CONSTANTS


def test_every_name_a_scenario_accepts_is_exported():
    names = set(BASIC_TYPES) | set(CONSTANTS)
    assert names <= set(ms.__all__)
    assert names <= set(dir(ms))
    for name in names:
        assert getattr(ms, name) is not None


def test_what_if_functions_are_in_all_and_dir_and_import_star_works():
    for name in ("sweep", "min_buffer", "min_buffer_per_rank", "check_safe",
                 "compare_profiles"):
        assert name in ms.__all__ and name in dir(ms)
        assert callable(getattr(ms, name))
    scope: dict = {}
    exec("from mpisim import *", scope)
    assert {"sweep", "INTEGER4", "TWOINT", "SUM", "Comm"} <= set(scope)


def test_nothing_private_is_public_and_the_version_comes_from_the_package():
    assert not [n for n in ms.__all__ if n.startswith("_") and n != "__version__"]
    assert len(ms.__all__) == len(set(ms.__all__))
    assert ms.__version__ == importlib.metadata.version("mpisim")
    assert ms.MPIConfig().resolve().bsend_overhead == ms.BSEND_OVERHEAD
