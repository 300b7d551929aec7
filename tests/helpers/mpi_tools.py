"""The compilers and launchers of the real MPI libraries that the ``real_mpi`` tests build and
run programs with, each set taken from one library, or a skip saying why there is none.

A program built by one library's wrapper and started by another's ``mpiexec`` (or recorded
with a recorder built by another's ``mpicc``) fails inside MPI: the tools are never picked
one by one from PATH, where the first ``mpicc`` and the first ``mpif90`` may belong to
different libraries (MPICH's wheel in a venv has no Fortran wrapper; Debian's Open MPI in
/usr/bin has one).

- MPICH: the ``mpich`` wheel's ``mpicc``/``mpiexec`` beside a Python (``pip install mpi4py
  mpich``: the ``oracle`` extra): this one (:func:`mpich`), or the one
  ``MPISIM_ORACLE_PYTHON`` names (:func:`oracle_mpich`).
- Open MPI: the first folder on PATH whose ``mpicc``, ``mpiexec`` (and for Fortran
  ``mpif90``) all answer as Open MPI's (Debian's ``openmpi-bin libopenmpi-dev gfortran``);
  Debian's ``mpicc.openmpi``-style names are tried where the plain ones belong to another
  library."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

OPENMPI_LAUNCH = ("--allow-run-as-root", "--oversubscribe")
"""Open MPI's mpiexec refuses to run as root (containers, CI) and more processes than cores
without these."""

OPENMPI_PACKAGES = "apt-get install openmpi-bin libopenmpi-dev gfortran"


def mpich(python: str | None = None) -> tuple[str, str]:
    """(mpicc, mpiexec) of the MPICH beside ``python`` (default: this Python), or skip."""
    bindir = Path(python or sys.executable).parent
    mpicc, mpiexec = bindir / "mpicc", bindir / "mpiexec"
    if not (mpicc.exists() and mpiexec.exists()):
        pytest.skip(f"no MPICH mpicc/mpiexec in {bindir} (pip install mpi4py mpich in the "
                    "venv of that Python)")
    return str(mpicc), str(mpiexec)


def oracle_mpich() -> tuple[str, str]:
    """(mpicc, mpiexec) of the MPICH beside the Python ``MPISIM_ORACLE_PYTHON`` names (the
    differential tests' library; this Python if unset), or skip."""
    return mpich(os.environ.get("MPISIM_ORACLE_PYTHON"))


_CACHE: list[str] = []


def recorder_cache() -> str:
    """The ``XDG_CACHE_HOME`` of this test process's recorded runs: each recorder build (its
    key: the source, the compiler, the flags) is made once, not once a test (about 7 s of
    CPU each, most of the real-MPI tests' time); the cache is the one a user's runs share.
    A first-time user's build, into an empty cache, is tested by test_recorder_cache.py."""
    if not _CACHE:
        _CACHE.append(tempfile.mkdtemp(prefix="mpisim-recorder-cache-"))
        atexit.register(shutil.rmtree, _CACHE[0], True)
    return _CACHE[0]


def recorder_shim(**flags: int) -> Path:
    """The recorder built with MPICH's ``mpicc`` into :func:`recorder_cache`, as ``mpisim
    record`` builds it (``flags``: :func:`~mpisim.recorded.record.recorder.build_shim`'s,
    e.g. ``max_data=100``)."""
    from mpisim.recorded.record.recorder import build_shim

    mpicc, _ = mpich()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", recorder_cache())
        return build_shim(mpicc, **flags)


def compiled(tmp_path_factory: pytest.TempPathFactory, sources: dict[str, Path],
             *flags: str) -> tuple[Path, dict[str, str]]:
    """Each of ``sources`` built with MPICH's ``mpicc -O1 flags`` into a new folder, named as
    its key; and this process's environment with the recorder's cache
    (:func:`recorder_cache`) as ``XDG_CACHE_HOME`` (skips without MPICH)."""
    mpicc, _ = mpich()
    apps = tmp_path_factory.mktemp("apps")
    for name, source in sources.items():
        subprocess.run([mpicc, "-O1", *flags, "-o", str(apps / name), str(source)],
                       check=True, timeout=300)
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    return apps, env


class OpenMPI(NamedTuple):
    """One Open MPI installation's tools (absolute paths)."""

    mpicc: str
    mpiexec: str
    mpif90: str | None
    """None unless asked for (``openmpi(fortran=True)``)."""

    @property
    def launcher(self) -> list[str]:
        """``mpiexec`` with :data:`OPENMPI_LAUNCH`: put ``-n N program`` after it."""
        return [self.mpiexec, *OPENMPI_LAUNCH]


def _answers(command: list[str]) -> str:
    """What ``command`` prints (both streams; empty if it cannot run)."""
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return run.stdout + run.stderr


def _is_openmpi_wrapper(path: Path) -> bool:
    """Whether ``path`` is Open MPI's compiler wrapper and the compiler it calls is there."""
    if not path.is_file() or "Open MPI" not in _answers([str(path), "--showme:version"]):
        return False
    compiler = _answers([str(path), "--showme:command"]).split()
    return bool(compiler) and any((Path(d) / compiler[0]).is_file()
                                  for d in os.get_exec_path())


def _is_openmpi_launcher(path: Path) -> bool:
    """Whether ``path`` is Open MPI's mpiexec (4.x names itself OpenRTE, 5.x Open MPI)."""
    if not path.is_file():
        return False
    text = _answers([str(path), "--version"])
    return "OpenRTE" in text or "Open MPI" in text


def _one(folder: Path, name: str, check: Callable[[Path], bool]) -> Path | None:
    """``folder/name``, else Debian's ``folder/name.openmpi``, if Open MPI's."""
    return next((p for p in (folder / name, folder / f"{name}.openmpi") if check(p)), None)


def openmpi(fortran: bool = False) -> OpenMPI:
    """Open MPI's mpicc, mpiexec (and with ``fortran`` its mpif90, its compiler present),
    all from the first folder on PATH that holds them; else skip saying what is missing."""
    seen = []
    for folder in map(Path, dict.fromkeys(os.get_exec_path())):
        mpicc = _one(folder, "mpicc", _is_openmpi_wrapper)
        mpif90 = _one(folder, "mpif90", _is_openmpi_wrapper) if fortran else None
        if mpicc is None or (fortran and mpif90 is None):
            continue
        mpiexec = _one(folder, "mpiexec", _is_openmpi_launcher)
        if mpiexec is None:
            seen.append(str(folder))
            continue
        return OpenMPI(str(mpicc), str(mpiexec), str(mpif90) if mpif90 else None)
    wanted = "mpicc, mpif90" if fortran else "mpicc"
    why = f"no folder on PATH holds Open MPI's {wanted} (its compiler present) and mpiexec"
    if seen:
        why += (f" ({', '.join(seen)}: its {wanted} but another library's mpiexec or none: "
                "a program built there would be started by another library)")
    pytest.skip(f"{why}; {OPENMPI_PACKAGES}")


def fortran_mpi(library: str) -> tuple[list[str], str, str]:
    """(launcher command, mpif90, mpicc) of ``library`` (``mpich``: beside the Python
    ``MPISIM_ORACLE_PYTHON`` names, else this one; ``openmpi``: :func:`openmpi`), or skip."""
    if library == "mpich":
        mpicc, mpiexec = oracle_mpich()
        mpifort = Path(mpicc).parent / "mpifort"
        if not mpifort.exists():
            pytest.skip("the MPICH of this venv has no Fortran bindings (the mpich wheel ships "
                        "no mpifort and no libmpifort)")
        return [mpiexec], str(mpifort), mpicc
    tools = openmpi(fortran=True)
    return tools.launcher, str(tools.mpif90), tools.mpicc
