"""Differential tests: the shipped mpi4py scripts under the real library and under the
stand-in with the profile that models that library.

Needs a Python with the real mpi4py and an ``mpiexec`` beside it: the ``oracle`` extra
(``pip install -e ".[oracle]"``: mpi4py and MPICH from PyPI), or ``MPISIM_ORACLE_PYTHON``
naming another environment's python; skipped otherwise. Each case runs ``mpiexec -n N
python script args`` and ``ms.run_mpi4py`` with ``mpi.profile`` = the library's; the outcome
(completed / deadlock / the MPI error class) and what every rank printed (the data it
received) must agree. A real hang is seen as a timeout (DEADLOCK_AFTER seconds); a real
error is read from mpi4py's exception text, also when the job then hangs in MPI_Finalize
(MPICH waits there for the buffered messages nobody receives).
"""

from __future__ import annotations

import pytest
from helpers import real_mpi
from helpers.paths import SCENARIOS

pytestmark = pytest.mark.real_mpi  # launches a real MPI library

SCRIPTS = SCENARIOS / "mpi4py"
DEADLOCK_AFTER = 6.0
"""Seconds a real run may take before it counts as hung (they finish in well under one)."""

CASES = [
    # (script, args, ranks): what Example 3.10, rings, fan-in, Ibsend and re-attach do
    ("exchange.py", ["send", "100"], 2),        # eager: completes
    ("exchange.py", ["send", "16000"], 2),      # 64000 B > the eager limit: both block
    ("exchange.py", ["send", "100000"], 2),
    ("exchange.py", ["ssend", "10"], 2),        # synchronous: always blocks (3.5)
    ("exchange.py", ["bsend", "2000"], 2),      # attach = pack_size + BSEND_OVERHEAD: fits
    ("exchange.py", ["bsend", "2000", "8000"], 2),  # without the overhead: MPI_ERR_BUFFER
    ("ring.py", [], 4),                         # 10 bsends, room for 10
    ("ring.py", ["10", "256", "5"], 4),         # room for 5 small (eager) messages: fits
    ("ring.py", ["100", "4096", "3"], 4),       # room for 3 rendezvous messages: overflow
    ("fan_in.py", [], 4),                       # ANY_SOURCE fan-in with replies
    ("ibsend_reattach.py", [], 2),              # Ibsend + Wait, detach, smaller re-attach
]


oracle = real_mpi.oracle  # (python, mpiexec, family): the family names the profile


def real(script: str, args: list[str], ranks: int) -> tuple[str, list[str]]:
    python, mpiexec, profile = oracle()  # type: ignore[misc]
    # Open MPI counts cores as slots: more ranks than cores need oversubscription
    extra = ["--oversubscribe"] if profile == "openmpi" else []
    return real_mpi.real([mpiexec, *extra, "-n", str(ranks), python, str(SCRIPTS / script),
                          *args], DEADLOCK_AFTER)


@pytest.mark.parametrize("script, args, ranks", CASES,
                         ids=[f"{s}-{'-'.join(a) or 'default'}-n{n}" for s, a, n in CASES])
def test_the_stand_in_agrees_with_the_real_library(script, args, ranks):
    found = oracle()
    if found is None:
        pytest.skip("no real mpi4py with mpiexec (pip install -e '.[oracle]', or set "
                    "MPISIM_ORACLE_PYTHON to a python that has them)")
    real_outcome, real_lines = real(script, args, ranks)
    sim_outcome, sim_lines = real_mpi.simulated(SCRIPTS / script, args, ranks, found[2])
    assert sim_outcome == real_outcome, (
        f"{script} {' '.join(args)} on {ranks} ranks: real {found[2]} {real_outcome}, "
        f"simulated {sim_outcome}")
    if real_outcome == "completed":
        assert sim_lines == real_lines  # every rank received the same data
