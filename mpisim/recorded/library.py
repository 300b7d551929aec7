"""The profile a replay uses by default: the one of the library the recording names.

A recording carries the library's own words (``#library``, MPI_Get_library_version): a
replay of a run made with MPICH 5.0.2 is a replay under MPICH's behaviour, not the standard's
model, unless the user says otherwise (``--set mpi.profile=...``). The decision, as an MPI
user expects it:

- the profile of the same release (major.minor) when mpisim has one: MPICH 5.0.x ->
  ``mpich-5.0``, Open MPI 5.0.x -> ``openmpi-5.0``;
- else the nearest release of the same library that mpisim has a profile of (MPICH 4.2 ->
  ``mpich-5.0``... the closest major.minor; a tie goes to the newer), said in the report;
- else (another library, or no ``#library`` line) the ``standard`` profile, and the report
  says so and why.

The candidates are read from the profiles mpisim has (names ``<family>-<major>.<minor>``),
so a profile added later is chosen without a change here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..profiles.library import names

__all__ = ["LibraryProfile", "library_name", "profile_for"]

_FAMILIES = {"mpich": "MPICH", "openmpi": "Open MPI"}
_RELEASE = re.compile(r"^(mpich|openmpi)-(\d+)\.(\d+)$")
_VERSION = {"mpich": re.compile(r"^MPICH Version:\s*(\d+)\.(\d+)(?:\.(\d+))?"),
            "openmpi": re.compile(r"^Open MPI v(\d+)\.(\d+)(?:\.(\d+))?")}


@dataclass(frozen=True)
class LibraryProfile:
    """The profile chosen for a recording's library, and why (one phrase for the report)."""

    profile: str
    library: str
    reason: str
    exact: bool


def library_name(text: str) -> str:
    """The library of a ``#library`` line in a few words: ``MPICH 5.0.2``, ``Open MPI
    v5.0.11``; the line's start otherwise."""
    words = text.split()
    if len(words) >= 3 and words[0] == "MPICH" and words[1] == "Version:":
        return f"MPICH {words[2]}"
    if text.startswith("Open MPI"):
        return text.split(",")[0]
    return text[:60].strip() or "unknown library"


def _releases() -> dict[str, dict[tuple[int, int], str]]:
    out: dict[str, dict[tuple[int, int], str]] = {}
    for name in names():
        m = _RELEASE.match(name)
        if m:
            out.setdefault(m.group(1), {})[(int(m.group(2)), int(m.group(3)))] = name
    return out


def profile_for(text: str) -> LibraryProfile:
    """The profile of the library a recording's ``#library`` line names (see the module)."""
    library = library_name(text)
    for family, pattern in _VERSION.items():
        m = pattern.match(text.strip())
        if m is None:
            continue
        version = (int(m.group(1)), int(m.group(2)))
        releases = _releases().get(family, {})
        if version in releases:
            return LibraryProfile(releases[version], library,
                                  f"the recording's library, {library}", True)
        if releases:
            near = min(releases, key=lambda v: (abs((v[0] - version[0]) * 100 + v[1] -
                                                    version[1]), -v[0], -v[1]))
            return LibraryProfile(
                releases[near], library,
                f"the nearest release mpisim has a profile of to the recording's "
                f"{library}: {_FAMILIES[family]} {near[0]}.{near[1]}", False)
    known = ", ".join(n for n in names() if _RELEASE.match(n))
    return LibraryProfile("standard", library,
                          f"mpisim has no profile of the recording's library ({library}; it "
                          f"has {known}): the standard's model", False)
