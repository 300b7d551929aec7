"""Every setting of a run, declared once: the one table the rest is made from.

The network's settings are declared on the fields of :class:`~mpisim.p2p.network.Network`, the
MPI library's on :class:`~mpisim.profiles.library.MPIConfig` (``mpi.profile`` among them), and
the run's own (``ranks``, ``buffer``, ``seed``, ``until``, ``max_events``, ``name``) here.
Each declaration (:class:`~mpisim.values.readers.Setting`) carries its reader, kind (and so its
unit), choices, default and documentation. From this table come: the scenario schema's
``network:``/``mpi:`` keys and run keys, the keys ``--set`` and ``--vary`` accept, the
checks of ``mpisim.run``'s keywords, the documentation's settings table and ``mpisim settings``.
A value is read by the same reader whoever gives it, so it means the same and a bad value
gets the same reason (``network.eager_cells: must be at least 1, got 0``).

:func:`put` is the one dotted-key setter (``network.intra.latency``) used by overrides and
sweeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..collectives import check_algorithms
from ..mpi.constants import buffer_setting
from ..p2p.network import Network
from ..profiles.library import MPIConfig
from ..values.readers import (
    Invalid,
    Setting,
    declared,
    read_int,
    read_positive,
    read_size,
    read_text,
    read_time,
)

__all__ = ["GROUPS", "RUN", "SETTINGS", "assignment", "every_key", "get", "lookup",
           "markdown_table", "put", "read_buffer", "text_table"]


def read_buffer(value: Any) -> Any:
    """The run's buffer: a size, AUTOMATIC, or ``{comm: NAME, size: SIZE}`` (the buffer of
    the communicator the program names NAME, MPI 4.1)."""
    try:
        process, comm = buffer_setting(read_size, value)
    except Invalid:
        raise
    except ValueError as e:
        raise Invalid(str(e)) from None
    return process if comm is None else {"comm": comm[0], "size": comm[1]}


def _run(key: str, read: Callable[[Any], Any], kind: str, doc: str, shown: str,
         nullable_: bool = True) -> Setting:
    return Setting(key, read, kind, doc, shown, (), nullable_)


RUN: dict[str, Setting] = {s.key: s for s in (
    _run("ranks", read_positive, "count", "how many MPI processes run the program", "",
         nullable_=False),
    _run("buffer", read_buffer, "buffer", "bytes every rank attaches before its program "
         "starts (AUTOMATIC: MPI_BUFFER_AUTOMATIC; {comm: NAME, size: SIZE}: the buffer of "
         "the communicator the program names NAME)", "none"),
    _run("seed", lambda v: read_int(v, minimum=0), "count", "the seed of jitter and of "
         "random choices (whole number >= 0)", "0", nullable_=False),
    _run("until", read_time, "time", "simulated time limit (the run ends as timeout)",
         "none"),
    _run("max_events", read_positive, "count", "event limit (the run ends as timeout)",
         "20,000,000 when until is unset"),
    _run("name", read_text, "text", "the run's name in reports", "the program's name"),
)}
"""The run's own settings (keywords of ``mpisim.run``)."""


def _mpi() -> dict[str, Setting]:
    settings = declared(MPIConfig, "mpi")
    collectives = settings["collectives"]
    read = collectives.read
    settings["collectives"] = Setting(collectives.key, lambda v: check_algorithms(read(v)),
                                      collectives.kind, collectives.doc, collectives.default,
                                      collectives.choices, collectives.nullable)
    return settings


GROUPS: dict[str, dict[str, Setting]] = {
    "network": declared(Network, "network"),
    "mpi": _mpi(),
}
"""The settings of each group (``network``, ``mpi``), by name."""

SETTINGS: dict[str, Setting] = {
    **RUN, **{s.key: s for group in GROUPS.values() for s in group.values()}}
"""Every setting by its key (``ranks``, ``network.eager_limit``, ``mpi.profile``...)."""


def _flat() -> Iterator[Setting]:
    for setting in SETTINGS.values():
        yield setting
        yield from setting.keys


def every_key() -> list[str]:
    """Every key ``--set`` and ``--vary`` accept (the keys of mapping settings included:
    ``network.intra.latency``)."""
    return [s.key for s in _flat()]


def lookup(key: str) -> Setting | None:
    """The declaration of ``key``, or None."""
    return next((s for s in _flat() if s.key == key), None)


def put(root: dict, key: str, value: Any, new: Callable[[], dict] = dict,
        mark: Callable[[dict, str], None] | None = None) -> None:
    """Set dotted ``key`` in nested mappings ``root`` (``network.intra.latency``), making
    the mappings on the way with ``new`` (copies of shared ones are the caller's job);
    ``mark(mapping, name)`` is told of every key set or made."""
    parts = key.split(".")
    target = root
    for part in parts[:-1]:
        inner = target.get(part)
        if not isinstance(inner, dict):
            inner = new()
            target[part] = inner
            if mark is not None:
                mark(target, part)
        target = inner
    target[parts[-1]] = value
    if mark is not None:
        mark(target, parts[-1])


def assignment(text: str, option: str = "--set") -> tuple[str, str]:
    """``KEY=VALUE`` as ``--set`` and ``--vary`` take it: (key, value), stripped; ValueError
    naming ``option`` otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"{option} {text!r}: expected KEY=VALUE")
    return key.strip(), value.strip()


def get(root: Any, key: str) -> Any:
    """The value of dotted ``key`` in nested mappings (None where absent)."""
    value = root
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


# -- the table, for people ------------------------------------------------------------------
def _kind(s: Setting) -> str:
    if s.choices:
        return " \\| ".join(s.choices)
    return {"time": "time (s)", "size": "size (B)", "bandwidth": "bandwidth (B/s)",
            "count": "whole number", "bool": "true \\| false"}.get(s.kind, s.kind)


def markdown_table() -> str:
    """The settings as a Markdown table (``docs/reference/settings.md``'s; a test keeps
    the two equal)."""
    rows = ["| key | value | default | what it does |", "|---|---|---|---|"]
    for s in _flat():
        rows.append(f"| `{s.key}` | {_kind(s)} | {s.default or '-'} | {s.doc} |")
    return "\n".join(rows) + "\n"


def text_table() -> str:
    """The settings as plain text (``mpisim settings``)."""
    lines = []
    for s in _flat():
        kind = _kind(s).replace("\\|", "|")
        lines.append(f"{s.key}  [{kind}; default: {s.default or '-'}]\n    {s.doc}")
    return "\n".join(lines) + "\n"

