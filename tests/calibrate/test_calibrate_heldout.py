"""The held-out check of ``mpisim calibrate``: calibrate against a real MPI, then run
programs the calibration never measured both under the real library and under mpisim's
mpi4py stand-in with the calibrated profile; outcome and what each rank printed (how many
bsends were accepted before the overflow, which ones fitted after a receive, and which of
its calls waited for a sleeping rank) must agree.

Held-out programs: Example 3.10 with standard sends at the calibrated eager limit and one
int above it, and with bsend into exactly and less than the standard's advice; overflow
bursts of rendezvous messages into attaches around the calibrated rule's sizes and into
the standard's advice; wrap-around (three entries in 3 * (m + MPI_BSEND_OVERHEAD), one
received: the head, the middle, the last, then two more bsends); rings of bsends.

Needs the real library: ``MPISIM_ORACLE_PYTHON`` (MPICH; or this Python with the ``oracle``
extra) / ``MPISIM_ORACLE_OMPI_PYTHON`` (Open MPI) naming a Python with mpi4py, numpy and
that library's mpiexec beside it; skipped otherwise. Each calibrates first (about 20 s with
MPICH, 70 s with Open MPI). A real hang is a deadlock after DEADLOCK_AFTER seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers import real_mpi
from helpers.paths import DATA

from mpisim.calibrate import calibrate
from mpisim.calibrate.fit import predicted_attach
from mpisim.calibrate.suite import LaunchError
from mpisim.profiles.library import get_profile

pytestmark = pytest.mark.real_mpi  # launches a real MPI library

HELD_OUT = DATA / "real" / "heldout"
DEADLOCK_AFTER = 8.0
SLEEP = 0.5
"""Seconds the held-out programs' sleeping rank sleeps; a call that takes more than half of
it waited (wall time under the real library, simulated time under mpisim)."""
LIBRARIES = {"mpich": ("MPISIM_ORACLE_PYTHON", []),
             "openmpi": ("MPISIM_ORACLE_OMPI_PYTHON", ["--allow-run-as-root", "--oversubscribe"])}


@cache
def _found(library: str) -> str | None:
    """The Python of the real library (MPICH: this one with the oracle extra), or None."""
    env, _ = LIBRARIES[library]
    python = os.environ.get(env) or (sys.executable if library == "mpich" else None)
    if not python or not (Path(python).parent / "mpiexec").exists():
        return None
    probe = subprocess.run([python, "-c", "from mpi4py import MPI; import numpy; "
                            "print(MPI.Get_library_version())"],
                           capture_output=True, text=True, env=real_mpi.ENV)
    name = "MPICH" if library == "mpich" else "Open MPI"
    return python if probe.returncode == 0 and name in probe.stdout else None


def _python(library: str) -> str:
    python = _found(library)
    if python is None:
        pytest.skip(f"set {LIBRARIES[library][0]} to a Python with mpi4py, numpy and "
                    f"{library}'s mpiexec beside it")
    return python


@cache
def calibrated(library: str, folder: str) -> str:
    """Calibrate once per library and session; the profile file's path."""
    python = _python(library)
    mpiexec = " ".join([str(Path(python).parent / "mpiexec"), *LIBRARIES[library][1], "-n 2"])
    out = Path(folder) / f"{library}-calibrated.yaml"
    try:
        profile = calibrate(mpiexec, python, out, progress=lambda _line: None)
    except LaunchError as e:
        pytest.skip(f"{library}'s mpiexec cannot start the probes here: {e}")
    assert library.replace("openmpi", "Open MPI").lower() in profile.library.lower()
    return str(out)


def _folder(library: str, tmp_path_factory: Any) -> Path:
    """One folder per library and session, so both tests share one calibration."""
    folder = tmp_path_factory.getbasetemp() / f"calibrated-{library}"
    folder.mkdir(exist_ok=True)
    return folder


def real(library: str, script: Path, args: list[str], ranks: int) -> tuple[str, list[str]]:
    python = _python(library)
    return real_mpi.real([str(Path(python).parent / "mpiexec"), *LIBRARIES[library][1], "-n",
                          str(ranks), python, str(script), *args], DEADLOCK_AFTER)


def cases(profile_path: str) -> list[tuple[Path, list[str], int]]:
    """The held-out programs, sized from the calibrated profile; in each, one rank sleeps
    SLEEP seconds and the others say which of their calls waited."""
    p = get_profile(profile_path)
    ints = p.eager_limit // 4
    big = 3 * p.eager_limit + 7          # rendezvous, and not a size the probes used
    rule = p.sizing
    nap = str(SLEEP)
    out = [(HELD_OUT / "exchange_timed.py", ["send", str(ints), nap], 2),
           (HELD_OUT / "exchange_timed.py", ["send", str(ints + 1), nap], 2),
           (HELD_OUT / "exchange_timed.py", ["bsend", "3000", nap], 2),
           (HELD_OUT / "exchange_timed.py", ["bsend", "3000", nap, "12000"], 2),
           (HELD_OUT / "exchange_timed.py", ["bsend", str(ints + 1), nap], 2),
           (HELD_OUT / "ring_timed.py", ["10", str(ints + 100), "3", nap], 4),
           (HELD_OUT / "ring_timed.py", ["6", "64", "6", nap], 4)]
    for k in (2, 3):
        fit = predicted_attach(rule, k, big)
        out += [(HELD_OUT / "burst.py", [str(big), "6", str(fit), nap], 2),
                (HELD_OUT / "burst.py", [str(big), "6", str(fit - 1), nap], 2)]
    out.append((HELD_OUT / "burst.py", [str(big), "6", str(4 * (big + p.bsend_overhead)), nap],
                2))
    out += [(HELD_OUT / "wrap.py", [str(big), str(which), nap], 2) for which in (0, 1, 2)]
    out.append((HELD_OUT / "prerecv_timed.py", [str(p.eager_limit), nap], 2))
    return out


def disagreements(library: str, profile: str, programs: list[tuple[Path, list[str], int]]
                  ) -> list[str]:
    """The programs on which the real library and mpisim differ, each with both answers."""
    out = []
    for script, args, ranks in programs:
        got_real = real(library, script, args, ranks)
        got_sim = real_mpi.simulated(script, args, ranks, profile)
        if got_real[0] != got_sim[0] or (got_real[0] == "completed"
                                         and got_real[1] != got_sim[1]):
            out.append(f"{script.name} {' '.join(args)}: real {got_real}, "
                       f"simulated {got_sim}")
    return out


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_a_calibrated_profile_predicts_programs_it_never_measured(library, tmp_path_factory):
    _python(library)
    profile = calibrated(library, str(_folder(library, tmp_path_factory)))
    disagree = disagreements(library, profile, cases(profile))
    assert not disagree, "\n".join(disagree)


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_a_rendezvous_send_to_a_receiver_asleep_after_posting_waits(library, tmp_path_factory):
    """3.4: a rendezvous send completes once the receive is matched and the data moved; with
    the receiver outside MPI (asleep) the real libraries make no progress on it."""
    _python(library)
    profile = calibrated(library, str(_folder(library, tmp_path_factory)))
    big = 3 * get_profile(profile).eager_limit + 7
    disagree = disagreements(library, profile,
                             [(HELD_OUT / "prerecv_timed.py", [str(big), str(SLEEP)], 2)])
    assert not disagree, "\n".join(disagree)
