"""``mpisim calibrate``: measure the user's own MPI library and write a profile file.

Buffered mode is where MPI libraries differ most (MPI 4.1 §3.6 fixes the behaviour only up
to the model implementation of §3.6.1), and a profile is only as good as its last
measurement. :func:`calibrate` runs small mpi4py probe programs (:mod:`.probes`) under the
user's ``mpiexec -n 2`` with the user's Python (:mod:`.suite`), fits the profile's settings
from what they observed (:mod:`.fit`, pure functions) and writes a profile file
(:mod:`mpisim.profiles.profilefile`) in which every value carries its evidence: the probe, its
parameters, what was observed and the library's version string.

Decisions: the profile is based on the built-in profile of the same family (``mpich-4.0``
for an MPICH, ``openmpi-4.1`` for an Open MPI, else ``standard``), whose collective
algorithm choices it takes; every setting is written out, those no probe measures with
evidence saying so. The network's latency and bandwidth are Hockney's fit of a ping-pong
between the two processes, i.e. of the transport mpiexec chose (shared memory on one node).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..profiles.library import PROFILES, Profile
from ..profiles.profilefile import READERS, dump_profile
from .fit import FitError, fit
from .suite import CalibrationError, Launcher, observe

__all__ = ["CalibrationError", "FitError", "calibrate", "profile_from"]


def _family(library: str) -> str:
    if "MPICH" in library:
        return "mpich-4.0"
    if "Open MPI" in library:
        return "openmpi-4.1"
    return "standard"


def profile_from(obs: dict[str, Any], name: str) -> tuple[Profile, dict[str, Any], str]:
    """(profile, evidence per setting, the profile it is based on) from observations.

    Parameters
    ----------
    obs
        The probes' records, as :func:`calibrate` keeps them with ``observations=``.
    name
        The new profile's name.

    Returns
    -------
    tuple
        ``(profile, evidence, based_on)``: the Profile; for each setting, the probe and
        note it comes from; the name of the built-in profile the unmeasured settings are
        taken from.
    """
    settings, evidence = fit(obs)
    library = " ".join(obs["library"].replace("\x00", " ").split())
    based_on = _family(library)
    base = PROFILES[based_on]
    profile = replace(base, name=name, family=base.family or base.name,
                      library=library, **settings,
                      description=f"{library}: measured by mpisim calibrate")
    for key in READERS:  # every setting: measured, or the base profile's
        evidence.setdefault(key, {"probe": None, "library": library,
                                  "note": f"not measured: {based_on}'s value"})
    return profile, evidence, based_on


def write_profile(path: str | os.PathLike[str], profile: Profile, evidence: dict[str, Any],
                  based_on: str, calibration: dict[str, Any]) -> None:
    """Write the profile file whole or not at all (a temporary file renamed into place)."""
    text = dump_profile(profile, evidence, based_on=based_on, calibration=calibration)
    _write_atomically(Path(path), text)


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def calibrate(mpiexec: str = "mpiexec -n 2", python: str | None = None,
              out: str | os.PathLike[str] = "my-mpi.yaml", name: str | None = None,
              progress: Callable[[str], None] = print,
              observations: str | os.PathLike[str] | None = None,
              from_observations: str | os.PathLike[str] | None = None) -> Profile:
    """Measure the MPI that ``mpiexec`` and ``python`` (with mpi4py) run, write the profile
    to ``out`` and return it. ``observations``: also keep the raw probe records there;
    ``from_observations``: refit stored records instead of running anything.

    Parameters
    ----------
    mpiexec
        The launcher command, split as a shell does (default ``"mpiexec -n 2"``).
    python
        The Python that runs the probes, with mpi4py built on the MPI measured. Default:
        None, this interpreter.
    out
        The profile file written (YAML), whole or not at all (default ``"my-mpi.yaml"``).
    name
        The profile's name. Default: None, ``out``'s file name without its suffix.
    progress
        Called with a line of text as each probe runs (default: ``print``).
    observations
        A file to keep the probes' raw records in (JSON), to refit later. Default: None.
    from_observations
        A file of records kept before: fit them instead of running anything. Default:
        None, run the probes.

    Returns
    -------
    Profile
        The profile written (use its file as ``mpi.profile``).
    """
    python = python or sys.executable
    if from_observations is not None:
        obs = json.loads(Path(from_observations).read_text(encoding="utf-8"))
    else:
        obs = observe(Launcher(mpiexec, python, log=progress), progress)
        obs["mpiexec"], obs["python"] = mpiexec, python
        if observations is not None:
            _write_atomically(Path(observations), json.dumps(obs, indent=1) + "\n")
    profile, evidence, based_on = profile_from(obs, name or Path(out).stem)
    calibration = {"mpiexec": obs.get("mpiexec"), "python": obs.get("python"),
                   "mpi_version": obs.get("mpi_version"), "launches": obs.get("launches"),
                   "seconds": obs.get("seconds")}
    write_profile(out, profile, evidence, based_on, calibration)
    return profile
