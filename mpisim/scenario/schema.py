"""The keys of a scenario and how each is read.

Top-level keys (all optional but ``ranks``, and ``programs`` in a YAML scenario):

=============  ==================================================================
name           text; default: the file name without its extension
description    text: what the scenario shows and which rule or test it reproduces
ranks          whole number, 1..65536
params         mapping name -> number, text or boolean; names usable in expressions
               and overridable (``--set count=4096``); a number with a unit is read as
               the number (``64 KiB`` -> 65536 bytes, ``10us`` -> 1e-05 seconds)
network        latency, bandwidth, eager_limit, system_buffer, overhead, contention
               (nic|none), intra {latency, bandwidth}, ranks_per_node, jitter
mpi            profile (standard|mpich|openmpi), bsend_overhead, allocator
               (circular|first-fit|unbounded), alignment, copy_bandwidth, force_ssend
buffer         size every rank attaches before its program starts (null: none)
seed           whole number >= 0 (default 0)
until          simulated time limit (null: none); max_events: event limit
expect         outcome (completed|deadlock|error|timeout), and optionally
               error_class (e.g. MPI_ERR_BUFFER), error_call (e.g. MPI_Bsend),
               error_rank, blocked (the ranks a deadlock leaves blocked),
               min_sim_time, max_sim_time (bounds on the simulated end time),
               min_end_time {rank: time} (a rank finishes no earlier than)
programs       list of {ranks: selector, ops: [...]} (see ops and selectors)
=============  ==================================================================

Settings are literals (no expressions): they are what ``--set``/``--vary`` change. Times,
sizes and bandwidths take units. A param's name must be an identifier that is not a
top-level key, ``rank``, ``size`` or an MPI constant. Header values are read here; the
engine's own checks (``Network``/``MPIConfig``) then run too, so a value the engine would
refuse is reported at load time with the file's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..bsend.profiles import BUFFER_POLICIES, MPIConfig
from ..constants import buffer_setting
from ..network import Network
from .expr import RESERVED
from .problems import Problems
from .values import (
    Invalid,
    describe,
    hint,
    is_unit_literal,
    read_bandwidth,
    read_bool,
    read_choice,
    read_int,
    read_size,
    read_text,
    read_time,
)
from .yamlload import Ambiguous, line_of

__all__ = ["MAX_RANKS", "MPI_KEYS", "NETWORK_KEYS", "OUTCOMES", "TOP_KEYS", "Header",
           "read_header"]

MAX_RANKS = 65536
OUTCOMES = ("completed", "deadlock", "error", "timeout")
TOP_KEYS = ("name", "description", "ranks", "params", "network", "mpi", "buffer", "seed",
            "until", "max_events", "expect", "programs")
SETTINGS = ("name", "description", "ranks", "buffer", "seed", "until", "max_events")
"""Top-level keys an override may set."""

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _buffer_key(value: Any) -> Any:
    """A size, AUTOMATIC, or {comm: NAME, size: SIZE} (a communicator's buffer)."""
    try:
        process, comm = buffer_setting(read_size, value)
    except Invalid:
        raise
    except ValueError as e:
        raise Invalid(str(e)) from None
    return process if comm is None else {"comm": comm[0], "size": comm[1]}


def _nullable(reader: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else reader(v)


def _positive(v: Any) -> int:
    return read_int(v, minimum=1)


NETWORK_KEYS: dict[str, Callable[[Any], Any]] = {
    "latency": read_time, "bandwidth": read_bandwidth, "eager_limit": read_size,
    "system_buffer": _nullable(read_size), "overhead": read_time,
    "contention": lambda v: read_choice(v, ("nic", "none")), "ranks_per_node": _positive,
    "jitter": read_time,
}
INTRA_KEYS: dict[str, Callable[[Any], Any]] = {"latency": read_time,
                                               "bandwidth": read_bandwidth}
MPI_KEYS: dict[str, Callable[[Any], Any]] = {
    "buffer_policy": lambda v: read_choice(v, BUFFER_POLICIES),
    "profile": lambda v: read_choice(v, ("standard", "mpich", "openmpi")),
    "bsend_overhead": read_size,
    "allocator": lambda v: read_choice(v, ("circular", "first-fit", "unbounded")),
    "alignment": _positive, "copy_bandwidth": _nullable(read_bandwidth),
    "force_ssend": read_bool,
}
_TOP: dict[str, Callable[[Any], Any]] = {
    "name": read_text, "description": read_text,
    "ranks": lambda v: read_int(v, minimum=1, maximum=MAX_RANKS),
    "buffer": _nullable(lambda v: _buffer_key(v)),
    "seed": lambda v: read_int(v, minimum=0),
    "until": _nullable(read_time), "max_events": _nullable(_positive),
}


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
    h.network = _settings(problems, doc, "network", NETWORK_KEYS)
    h.mpi = _settings(problems, doc, "mpi", MPI_KEYS)
    _engine_checks(problems, doc, h)
    if doc.get("expect") is not None:
        h.expect = _expect(problems, doc["expect"], line_of(doc, "expect"))
    return h


def _read(problems: Problems, m: dict, key: str, path: str,
          reader: Callable[[Any], Any]) -> Any:
    try:
        return reader(m[key])
    except Invalid as e:
        problems.add(line_of(m, key), path, str(e))
        return None


def _unknown(problems: Problems, line: int, path: str, valid: Any) -> None:
    close = hint(path.rsplit(".", 1)[-1], valid)
    listed = ", ".join(valid)
    problems.add(line, path, f"unknown key{close or f' (valid: {listed})'}")


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
    read as the number, so expressions can compute with it: ``64 KiB`` -> 65536 (bytes),
    ``10us`` -> 1e-05 (seconds), ``10 GB/s`` -> 1e10 (bytes per second)."""
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if isinstance(value, str) and is_unit_literal(value):
        for reader in (read_size, read_time, read_bandwidth, read_int):
            try:
                return reader(value)
            except Invalid:
                continue
        return value
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return read_int(value)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return value
    raise Invalid(f"a param is a number, text or true/false, not {describe(value)}")


def _settings(problems: Problems, doc: dict, section: str,
              keys: dict[str, Callable[[Any], Any]]) -> dict[str, Any]:
    line = line_of(doc, section)
    m = _mapping(problems, doc.get(section), line, section)
    out: dict[str, Any] = {}
    for key in m or {}:
        path = f"{section}.{key}"
        if key == "intra" and section == "network":
            intra = _mapping(problems, m[key], line_of(m, key, line), path)
            out[key] = {}
            for sub in intra or {}:
                if sub not in INTRA_KEYS:
                    _unknown(problems, line_of(intra, sub, line), f"{path}.{sub}", INTRA_KEYS)
                    continue
                value = _read(problems, intra, sub, f"{path}.{sub}", INTRA_KEYS[sub])
                if value is not None:
                    out[key][sub] = value
        elif key not in keys:
            valid = [*keys, "intra"] if section == "network" else keys
            _unknown(problems, line_of(m, key, line), path, valid)
        else:
            value = _read(problems, m, key, path, keys[key])
            if value is not None or m[key] is None:
                out[key] = value
    return out


def _engine_checks(problems: Problems, doc: dict, h: Header) -> None:
    """What the engine itself refuses (a combination of values, a profile's limits)."""
    if problems:
        return
    try:
        config = MPIConfig.from_dict(dict(h.mpi)).resolve()
    except (ValueError, TypeError) as e:
        _engine_problem(problems, doc, "mpi", str(e))
        return
    try:
        Network.from_dict(dict(h.network)).resolve(ranks=h.ranks or 1, seed=0,
                                                   defaults=config.profile)
    except (ValueError, TypeError) as e:
        _engine_problem(problems, doc, "network", str(e))


def _engine_problem(problems: Problems, doc: dict, section: str, message: str) -> None:
    """Place the engine's ``"mpi.alignment: ..."`` at the line of that key."""
    first = message.splitlines()[0] if message else "invalid setting"
    key, sep, rest = first.partition(": ")
    path = key.split(".")
    if not sep or path[0] != section or not all(p.isidentifier() for p in path):
        problems.add(line_of(doc, section), section, first)
        return
    line, node = line_of(doc, section), doc.get(section)
    for part in path[1:]:
        if not isinstance(node, dict) or part not in node:
            break
        line, node = line_of(node, part, line), node[part]
    problems.add(line, key, rest)


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
