"""Which MPI library a recorded command runs, and which one a recorder links.

The recorder is preloaded into the program, so it must be built against the program's own
``libmpi``: a recorder of another library makes every process fail inside MPI (MPICH's
"Invalid communicator" in MPI_Comm_rank when Open MPI's recorder calls it). So ``mpisim
record`` finds, in the command, the launcher inside its wrappers (``timeout 30 mpiexec -n 2
./app``: :func:`parse_command`) and the program after the launcher's options, reads the
``libmpi`` each links with ``ldd`` (:func:`linked_libmpi`), and compares the two
(:func:`mismatch`). When the program's library cannot be read (a Python script, whose
interpreter loads MPI at run time; a static program), the recorder's library must at least lie
in the launcher's installation prefix (``<prefix>/bin/mpiexec``, ``<prefix>/lib...``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Launch", "linked_libmpi", "mismatch", "mpicc_candidates", "parse_command"]

WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    # name: (its options that take the next word as their value, positional words before
    # the command it runs)
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset({"-c", "--class", "-n", "--classdata"}), 0),
    "numactl": (frozenset({"-i", "--interleave", "-m", "--membind", "-N", "--cpunodebind",
                           "-C", "--physcpubind", "-p", "--preferred"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "taskset": (frozenset(), 1),
    "chrt": (frozenset(), 1),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "nohup": (frozenset(), 0),
    "setsid": (frozenset(), 0),
    "strace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-O",
                          "-S", "-X"}), 0),
    "likwid-pin": (frozenset({"-c", "-s", "-d"}), 0),
}
"""Commands that run another command: ``mpisim record`` looks through them for the launcher
(and, after the launcher, for the program)."""

MPI_LAUNCHER = re.compile(r"^(mpiexec|mpirun|orterun|prterun|mpiexec\.hydra)([._-].*)?$")
SCHEDULERS = frozenset({"srun", "aprun", "jsrun", "prun", "flux"})
"""Launchers of a resource manager: not part of an MPI installation."""

_LIBMPI = re.compile(r"^\s*(lib(?:mpi|mpich|mpi_abi)\.so[.\d]*)\s+=>\s+(\S+)")


@dataclass(frozen=True)
class Launch:
    """What a command runs: its launcher (None for a program started on its own) and the
    program (None when no word after the launcher is an executable)."""

    launcher: str | None
    program: str | None


def _unwrap(words: list[str], i: int) -> int:
    """The index of the first word after the wrappers starting at ``words[i]``."""
    while i < len(words) and Path(words[i]).name in WRAPPERS:
        name = Path(words[i]).name
        takes_value, positional = WRAPPERS[name]
        i += 1
        while i < len(words):
            word = words[i]
            if word == "--":
                i += 1
                break
            if word.startswith("-") and len(word) > 1:
                i += 2 if word in takes_value else 1
            elif name == "env" and "=" in word:
                i += 1
            else:
                break
        i += positional
    return i


def _executable(word: str) -> str | None:
    if word.startswith("-") or word.isdigit() or "=" in word:
        return None
    found = shutil.which(word)
    return os.path.abspath(found) if found else None


def parse_command(command: list[str]) -> Launch:
    """The launcher and the program of ``command``, through wrappers: ``timeout 30 env X=1
    mpiexec -n 2 numactl -i all ./app`` gives mpiexec and ./app (absolute paths). The
    program is the first word after the launcher that is an executable linking an MPI
    library, else the first executable (``python``)."""
    i = _unwrap(command, 0)
    if i >= len(command):
        return Launch(None, None)
    first = _executable(command[i])
    name = Path(command[i]).name
    if not (MPI_LAUNCHER.match(name) or name in SCHEDULERS):
        return Launch(None, first)
    candidates: list[str] = []
    j = i + 1
    while j < len(command) and command[j] != ":" and len(candidates) < 4:
        k = _unwrap(command, j)
        if k != j:
            j = k
            continue
        found = _executable(command[j])
        if found:
            candidates.append(found)
        j += 1
    program = next((c for c in candidates if linked_libmpi(c)), None)
    return Launch(first, program or (candidates[0] if candidates else None))


def linked_libmpi(path: str | os.PathLike[str], env: dict[str, str] | None = None
                  ) -> str | None:
    """The MPI library (``libmpi.so.N``, ``libmpich.so.N``, ``libmpi_abi.so.N``) that
    ``path`` loads, as ``ldd`` resolves it (its real path); None when it links none, when
    the library is not found, or without ``ldd``."""
    ldd = shutil.which("ldd")
    if not ldd or not os.path.isfile(path):
        return None
    env = dict(os.environ if env is None else env)
    env.pop("LD_PRELOAD", None)
    try:
        out = subprocess.run([ldd, os.fspath(path)], capture_output=True, text=True,
                             timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stdout.splitlines():
        m = _LIBMPI.match(line)
        if m and m.group(2).startswith("/"):
            return os.path.realpath(m.group(2))
    return None


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    with contextlib.suppress(OSError):
        if os.path.getsize(a) == os.path.getsize(b):
            return _digest(a) == _digest(b)
    return False


def _digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def prefix_of(launcher: str) -> Path | None:
    """The installation prefix of an MPI launcher (``<prefix>/bin/mpiexec``), None for a
    resource manager's (``srun``)."""
    if Path(launcher).name in SCHEDULERS:
        return None
    return Path(os.path.realpath(launcher)).parent.parent


def mismatch(recorder_lib: str | None, launch: Launch) -> str | None:
    """Why a recorder linking ``recorder_lib`` does not fit ``launch`` (None: it fits, or it
    cannot be told): the program's library, or the launcher's prefix, named."""
    if recorder_lib is None:
        return None
    program_lib = linked_libmpi(launch.program) if launch.program else None
    if program_lib is not None:
        if _same_file(recorder_lib, program_lib):
            return None
        return f"{launch.program} uses {program_lib}"
    prefix = prefix_of(launch.launcher) if launch.launcher else None
    if prefix is None or prefix == Path("/") or _under(recorder_lib, prefix):
        return None
    return f"the launcher {launch.launcher} is installed in {prefix}"


def _under(path: str, prefix: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(prefix)


def mpicc_candidates(launch: Launch) -> list[str]:
    """The compiler wrappers that may build the program's recorder, best first: the
    ``mpicc`` beside the launcher (as named, then its real directory), the one of the
    program's library's installation (``<lib>/../bin/mpicc``), then ``mpicc`` on PATH."""
    found: list[str] = []
    places: list[Path] = []
    if launch.launcher:
        places += [Path(launch.launcher).parent, Path(os.path.realpath(launch.launcher)).parent]
    program_lib = linked_libmpi(launch.program) if launch.program else None
    if program_lib:
        places.append(Path(program_lib).parent.parent / "bin")
    for place in places:
        candidate = place / "mpicc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            found.append(str(candidate))
    on_path = shutil.which("mpicc")
    if on_path:
        found.append(on_path)
    unique: list[str] = []
    for c in found:
        if os.path.realpath(c) not in {os.path.realpath(u) for u in unique}:
            unique.append(c)
    return unique


def own_mpicc(launch: Launch) -> str | None:
    """The ``mpicc`` of the program's own library's installation, if there is one (to name
    in a refusal)."""
    program_lib = linked_libmpi(launch.program) if launch.program else None
    if program_lib:
        candidate = Path(program_lib).parent.parent / "bin" / "mpicc"
        if candidate.is_file():
            return str(candidate)
    if launch.launcher and prefix_of(launch.launcher):
        candidate = Path(launch.launcher).parent / "mpicc"
        if candidate.is_file():
            return str(candidate)
    return None
