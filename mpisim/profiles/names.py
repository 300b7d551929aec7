"""What a profile's name stands for, in the words a report prints.

``mpich`` and ``openmpi`` are the short names of the 4.x profiles (``mpich-4.0``,
``openmpi-4.1``): scenarios that name them keep their results, but a reader of a report could
take them for today's libraries, so every report, table and figure prints the release beside
them (``mpich (MPICH 4.0)``), and a replay set beside a recording of another release of the
same library says which profile models that one (:func:`release_note`).
"""

from __future__ import annotations

import re

from .library import ALIASES

__all__ = ["canonical", "label", "release", "release_note"]

_FAMILIES = {"mpich": "MPICH", "openmpi": "Open MPI"}
_RELEASE = re.compile(r"^(mpich|openmpi)-(\d+\.\d+)$")


def canonical(name: str) -> str:
    """The built-in profile an alias stands for (``mpich`` -> ``mpich-4.0``); else ``name``."""
    return ALIASES.get(name, name)


def release(name: str) -> str | None:
    """The library release a built-in profile models, in its makers' words: ``MPICH 4.0``
    for ``mpich`` and ``mpich-4.0``, ``Open MPI 5.0`` for ``openmpi-5.0``; None for
    ``standard`` and profile files."""
    m = _RELEASE.match(canonical(str(name)))
    return f"{_FAMILIES[m.group(1)]} {m.group(2)}" if m else None


def label(name: str) -> str:
    """A profile's name as reports print it: an alias with its release,
    ``mpich (MPICH 4.0)``; any other name as is (it says its release already)."""
    name = str(name)
    return f"{name} ({release(name)})" if name in ALIASES else name


def release_note(name: str, recorded: str, library: str) -> str | None:
    """For a replay run under profile ``name`` of a recording made with ``library`` (its
    words: ``MPICH 5.0.2``), whose own profile is ``recorded`` (``mpich-5.0``): when ``name``
    models another release of the same library, the sentence that says so, ``mpich is MPICH
    4.0; this recording is MPICH 5.0.2: mpich-5.0``; else None."""
    mine, theirs = _RELEASE.match(canonical(str(name))), _RELEASE.match(canonical(recorded))
    if mine is None or theirs is None or mine.group(1) != theirs.group(1) or \
            canonical(str(name)) == canonical(recorded):
        return None
    return f"{name} is {release(name)}; this recording is {library}: {recorded}"
