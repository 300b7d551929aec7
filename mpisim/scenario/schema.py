"""The keys of a scenario and how each is read.

Top-level keys (all optional but ``ranks``, and ``programs`` in a YAML scenario):

=============  ==================================================================
name           text; default: the file name without its extension
description    text: what the scenario shows and which rule or test it reproduces
ranks          whole number, 1..65536
params         mapping name -> number, text or boolean; names usable in expressions
               and overridable (``--set count=4096``); a number with a unit is read as
               the number (``64 KiB`` -> 65536 bytes, ``10us`` -> 1e-05 seconds)
network        the network's settings (``mpisim settings``: network.*)
mpi            the MPI library's settings (``mpisim settings``: mpi.*)
buffer, seed,  the run's settings (``mpisim settings``)
until, max_events
expect         outcome (completed|deadlock|error|timeout), and optionally
               error_class (e.g. MPI_ERR_BUFFER), error_call (e.g. MPI_Bsend),
               error_rank, blocked (the ranks a deadlock leaves blocked),
               min_sim_time, max_sim_time (bounds on the simulated end time),
               min_end_time {rank: time} (a rank finishes no earlier than)
programs       list of {ranks: selector, ops: [...]} (see ops and selectors)
=============  ==================================================================

Settings are literals (no expressions): they are what ``--set``/``--vary`` change. Times,
sizes and bandwidths take units. Each is read by its one declaration (:mod:`mpisim.runs.settings`),
the reader the engine uses too, so a value the engine would refuse is reported here, at the
file's line, with the engine's reason; nothing is validated twice. A param's name must be an
identifier that is not a top-level key, ``rank``, ``size`` or an MPI constant.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from typing import Any

from ..profiles.profilefile import is_profile_path
from ..runs.settings import GROUPS, RUN
from ..values.readers import Setting, SettingError, unknown_key
from ..values.units import UnitError, parse_quantity
from .expr import RESERVED
from .problems import OVERRIDE, Problems
from .values import Invalid, describe, is_unit_literal, read_choice, read_int, read_text, read_time
from .yamlload import Ambiguous, line_of

__all__ = ["MAX_RANKS", "OUTCOMES", "SETTINGS", "TOP_KEYS", "Header", "read_header"]

MAX_RANKS = 65536
"""The most ranks a scenario file runs (its selectors and expressions are per rank; a
Python program given to ``mpisim.run`` may have more)."""
OUTCOMES = ("completed", "deadlock", "error", "timeout")
TOP_KEYS = ("name", "description", "ranks", "params", "network", "mpi", "buffer", "seed",
            "until", "max_events", "expect", "programs")
SETTINGS = ("description", *RUN)
"""Top-level keys an override may set (the run's settings, and the description)."""

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ranks(value: Any) -> int:
    return read_int(RUN["ranks"](value), maximum=MAX_RANKS)


_TOP: dict[str, Callable[[Any], Any]] = {
    **RUN, "description": read_text, "name": read_text, "ranks": _ranks}


class Header:
    """The header values of a scenario, read and checked."""

    def __init__(self) -> None:
        self.name: str = ""
        self.description: str = ""
        self.ranks: int | None = None
        self.params: dict[str, Any] = {}
        self.network: dict[str, Any] = {}
        self.mpi: dict[str, Any] = {}
        self.buffer: int | None = None
        self.seed: int = 0
        self.until: float | None = None
        self.max_events: int | None = None
        self.expect: dict[str, Any] | None = None


def read_header(doc: dict, problems: Problems, default_name: str,
                allowed: tuple[str, ...] = TOP_KEYS) -> Header:
    """Read every key but ``programs``; problems go to ``problems``."""
    h = Header()
    h.name = default_name
    for key in doc:
        if key not in allowed:
            _unknown(problems, line_of(doc, key), str(key), allowed)
    for key, reader in _TOP.items():
        if key in doc:
            value = _read(problems, doc, key, key, reader)
            if value is not None or key in ("buffer", "until", "max_events"):
                setattr(h, key, value)
    if "ranks" not in doc:
        problems.add(getattr(doc, "line", 1) or 1, "ranks", "missing (how many MPI processes)")
    h.params = _params(problems, doc.get("params"), line_of(doc, "params"))
    h.network = _settings(problems, doc, "network")
    _profile_beside_the_file(doc.get("mpi"), problems.file)
    h.mpi = _settings(problems, doc, "mpi")
    if doc.get("expect") is not None:
        h.expect = _expect(problems, doc["expect"], line_of(doc, "expect"))
    return h


def _profile_beside_the_file(section: Any, file: str) -> None:
    """A profile file named in the scenario is found relative to the scenario file (one
    given with ``--set`` relative to the working directory): its path is made absolute in
    the document before the setting is read."""
    if not isinstance(section, dict):
        return
    name = section.get("profile")
    if not isinstance(name, str) or not is_profile_path(name) or os.path.isabs(name):
        return
    if getattr(section, "lines", {}).get("profile") == OVERRIDE:
        return
    section["profile"] = os.path.join(os.path.dirname(os.path.abspath(file)), name)


def _read(problems: Problems, m: dict, key: str, path: str,
          reader: Callable[[Any], Any]) -> Any:
    try:
        return reader(m[key])
    except SettingError as e:  # a declared setting: the reason is the same everywhere
        problems.add(line_of(m, key), path, e.reason)
    except Invalid as e:
        problems.add(line_of(m, key), path, str(e))
    return None


def _unknown(problems: Problems, line: int, path: str, valid: Any) -> None:
    problems.add(line, path, unknown_key(path.rsplit(".", 1)[-1], list(valid)))


def _mapping(problems: Problems, value: Any, line: int, path: str) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.add(line, path, f"expected a mapping, got {describe(value)}")
        return None
    return value


def _params(problems: Problems, value: Any, line: int) -> dict[str, Any]:
    m = _mapping(problems, value, line, "params")
    params: dict[str, Any] = {}
    for name, v in (m or {}).items():
        path, kline = f"params.{name}", line_of(m, name, line)
        if not isinstance(name, str) or not _IDENT.match(name) or name in RESERVED \
                or name in TOP_KEYS:
            problems.add(kline, path, "a param name must be an identifier other than rank, "
                         "size, BSEND_OVERHEAD, an MPI constant or a top-level key")
            continue
        try:
            params[name] = read_param(v)
        except Invalid as e:
            problems.add(kline, path, str(e))
    return params


def read_param(value: Any) -> Any:
    """A param value: a number, text or a boolean. Text that is a number with a unit is
    read as the number (by :func:`mpisim.values.units.parse_quantity`, as in an expression or
    ``--vary``), so expressions can compute with it: ``64 KiB`` -> 65536 (bytes), ``10us`` ->
    1e-05 (seconds), ``10 GB/s`` -> 1e10 (bytes per second)."""
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if isinstance(value, str) and is_unit_literal(value):
        try:
            kind, number = parse_quantity(value)
        except UnitError as e:
            raise Invalid(str(e)) from None
        if kind != "number":
            return number
        return read_int(number) if float(number).is_integer() else number  # "1e3": 1000
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return read_int(value)
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise Invalid(f"a param is a number, text or true/false, not {describe(value)}")


def _settings(problems: Problems, doc: dict, section: str) -> dict[str, Any]:
    """The ``network:`` or ``mpi:`` mapping, each key read by its declaration."""
    line = line_of(doc, section)
    m = _mapping(problems, doc.get(section), line, section) or {}
    declared = GROUPS[section]
    out: dict[str, Any] = {}
    for key in m:
        path, setting = f"{section}.{key}", declared.get(key)
        if setting is None:
            _unknown(problems, line_of(m, key, line), path, declared)
        elif setting.keys and m[key] is not None:
            out[key] = _keys(problems, m, key, setting, line)
        else:
            value = _read(problems, m, key, path, setting)
            if value is not None or m[key] is None:
                out[key] = value
    return out


def _keys(problems: Problems, m: dict, key: str, setting: Setting, line: int) -> dict:
    """A mapping setting (``network.intra``): each of its keys at its own line."""
    inner = _mapping(problems, m[key], line_of(m, key, line), setting.key) or {}
    out: dict[str, Any] = {}
    for sub in inner:
        path, declared = f"{setting.key}.{sub}", setting.sub(sub)
        if declared is None:
            _unknown(problems, line_of(inner, sub, line), path, [s.name for s in setting.keys])
            continue
        value = _read(problems, inner, sub, path, declared)
        if value is not None:
            out[sub] = value
    return out


def _expect(problems: Problems, value: Any, line: int) -> dict[str, Any] | None:
    m = _mapping(problems, value, line, "expect")
    if m is None:
        return None
    readers: dict[str, Callable[[Any], Any]] = {
        "outcome": lambda v: read_choice(v, OUTCOMES), "error_class": read_text,
        "error_call": read_text, "error_rank": lambda v: read_int(v, minimum=0),
        "blocked": _rank_list, "min_sim_time": read_time, "max_sim_time": read_time,
        "min_end_time": _end_times,
    }
    out: dict[str, Any] = {}
    for key in m:
        if key not in readers:
            _unknown(problems, line_of(m, key, line), f"expect.{key}", readers)
            continue
        v = _read(problems, m, key, f"expect.{key}", readers[key])
        if v is not None:
            out[key] = v
    if "outcome" not in m:
        problems.add(line, "expect", f"missing outcome ({', '.join(OUTCOMES)})")
    elif out.get("outcome") not in (None, "error") and \
            {"error_class", "error_call", "error_rank"} & out.keys():
        problems.add(line, "expect", "error_class, error_call and error_rank go with "
                     "outcome: error")
    elif out.get("outcome") not in (None, "deadlock") and "blocked" in out:
        problems.add(line, "expect", "blocked goes with outcome: deadlock")
    return out


def _end_times(value: Any) -> dict[int, float]:
    if not isinstance(value, dict):
        raise Invalid(f"expected a mapping rank -> time, got {describe(value)}")
    return {read_int(k, minimum=0): read_time(v) for k, v in value.items()}


def _rank_list(value: Any) -> list[int]:
    if not isinstance(value, list):
        raise Invalid(f"expected a list of ranks, got {describe(value)}")
    return sorted({read_int(v, minimum=0) for v in value})
