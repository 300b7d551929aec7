"""Profile files: a profile as YAML, each value with the evidence it came from.

``mpisim calibrate`` writes them; ``mpi: {profile: my-mpi.yaml}`` (relative to the scenario
file), ``--set mpi.profile=my-mpi.yaml`` and ``ms.MPIConfig(profile="my-mpi.yaml")`` (relative
to the working directory) read them. The format::

    mpisim_profile: 1                 # format version
    name: my-mpi                      # what reports show as mpi.profile
    description: MPICH 5.0.2 on this laptop, measured by mpisim calibrate
    library: "MPICH Version: 5.0.2"   # MPI_Get_library_version, first line
    based_on: mpich-4.0               # settings not given come from this profile (default
                                      # standard); its collective algorithms are used too
    settings:
      eager_limit: 8192               # a bare value, or a value with its evidence:
      bsend_overhead:
        value: 96
        evidence: {probe: overhead, parameters: {}, observed: {MPI_BSEND_OVERHEAD: 96},
                   library: "MPICH Version: 5.0.2"}

Every key of :class:`~mpisim.profiles.library.Profile` but ``name`` and ``description`` may
be a setting, plus ``latency`` and ``bandwidth`` (the network defaults a ping-pong gives).
Any other key is refused; so are values of the wrong type. Each problem is one line,
``file:line: key: problem`` (:class:`ProfileFileError`, a ValueError). YAML is read with
PyYAML's safe loader, node by node, for the lines; anchors and duplicate keys are refused.
"""

from __future__ import annotations

import copy
import os
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from ..buffered.allocators import KINDS, check_sizing
from ..rma.constants import LOCK_MODES, PROGRESS_MODES
from ..values.units import UnitError, parse_bandwidth, parse_size, parse_time
from ..values.yamlslips import syntax_problem

__all__ = ["FORMAT", "ProfileFileError", "dump_profile", "is_profile_path", "load_profile"]

FORMAT = 1
SUFFIXES = (".yaml", ".yml")
TOP = ("mpisim_profile", "name", "description", "library", "based_on", "calibration",
       "settings")
ERROR_CLASSES = ("MPI_ERR_BUFFER", "MPI_ERR_OTHER", "MPI_ERR_ARG", "MPI_ERR_INTERN")


class ProfileFileError(ValueError):
    """A profile file that cannot be used: ``file:line: key: problem``."""


def is_profile_path(name: object) -> bool:
    """Whether a profile given by name is a file (a .yaml/.yml name or a path)."""
    return isinstance(name, (str, os.PathLike)) and (
        os.fspath(name).lower().endswith(SUFFIXES) or os.sep in os.fspath(name))


# -- reading YAML with lines ---------------------------------------------------------------
class _Node:
    """A composed YAML value and the line it starts on."""

    def __init__(self, value: Any, line: int) -> None:
        self.value, self.line = value, line


def _compose(path: str, text: str) -> _Node:
    import yaml  # only when a file is read: the engine does not import YAML otherwise

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ProfileFileError(f"{path}:1: empty file (expected a mapping with settings)")
        return _convert(path, loader, node, set())
    except yaml.MarkedYAMLError as e:  # a slip: what to check, at the line to look at
        line, slip = syntax_problem(e, text.count("\n") + (not text.endswith("\n")))
        raise ProfileFileError(f"{path}:{max(line, 1)}: not valid YAML: {slip}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ProfileFileError(f"{path}:{line}: not valid YAML: {problem}") from None
    finally:
        loader.dispose()


def _convert(path: str, loader: Any, node: Any, seen: set[int]) -> _Node:
    import yaml

    line = node.start_mark.line + 1
    if id(node) in seen:  # an alias: the composer hands back the anchored node again
        raise ProfileFileError(f"{path}:{line}: anchors and aliases are not allowed")
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        out: dict[str, _Node] = {}
        for key_node, value_node in node.value:
            key = str(loader.construct_object(key_node))
            if key in out:
                raise ProfileFileError(f"{path}:{key_node.start_mark.line + 1}: {key}: given "
                                       f"twice (first on line {out[key].line})")
            out[key] = _convert(path, loader, value_node, seen)
            out[key].line = key_node.start_mark.line + 1
        return _Node(out, line)
    if isinstance(node, yaml.SequenceNode):
        return _Node([_convert(path, loader, n, seen) for n in node.value], line)
    return _Node(loader.construct_object(node), line)


def _plain(node: _Node) -> Any:
    """The composed value without lines (for evidence, which is kept as written)."""
    v = node.value
    if isinstance(v, dict):
        return {k: _plain(n) for k, n in v.items()}
    if isinstance(v, list):
        return [_plain(n) for n in v]
    return v


# -- values ----------------------------------------------------------------------------------
def _int(v: Any) -> int:
    if isinstance(v, bool):
        raise ValueError(f"expected a whole number, got {v!r}")
    try:
        return parse_size(v)
    except UnitError as e:
        raise ValueError(str(e)) from None


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {v!r}")
    return v


def _optional(reader: Any) -> Any:
    return lambda v: None if v is None else reader(v)


def _choice(choices: tuple[str, ...]) -> Any:
    def read(v: Any) -> str:
        if v not in choices:
            raise ValueError(f"{v!r} is not one of {', '.join(choices)}")
        return v
    return read


def _sizing(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"expected a sizing name or rule, got {v!r}")
    return check_sizing(v).strip()


def _unit(parser: Any) -> Any:
    def read(v: Any) -> float:
        try:
            return parser(v)
        except UnitError as e:
            raise ValueError(str(e)) from None
    return read


def _text(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"expected text, got {v!r}")
    return v


READERS: dict[str, Any] = {
    "bsend_overhead": _int, "allocator": _choice(KINDS), "sizing": _sizing,
    "alignment": _int, "eager_limit": _int, "attach_min": _int,
    "detach_unattached_error": _bool, "bsend_direct_limit": _optional(_int),
    "zero_bsend_unattached_ok": _bool, "attach_twice_error_class": _choice(ERROR_CLASSES),
    "ibsend_completes_at_once": _bool, "eager_cells": _optional(_int),
    "eager_box": _optional(_int), "local_send_limit": _optional(_int),
    "eager_waits_for_rendezvous": _bool, "rendezvous_needs_progress": _bool,
    "eager_release": _choice(("progress", "poll")),
    "failed_bsend_stalls_pair": _bool,
    "mpi41_buffers": _bool, "refused_attach_stays": _bool,
    "bcast_root_mismatch": _choice(("own_root", "lowest_self_root")),
    "short_collective_message": _choice(("completes", "MPI_ERR_OTHER")),
    "rma_lock": _choice(LOCK_MODES), "rma_progress": _choice(PROGRESS_MODES),
    "rma_lock_progress": _bool, "finalize": _choice(("collective", "local")),
    "latency": _optional(_unit(parse_time)),
    "bandwidth": _optional(_unit(parse_bandwidth)),
    "spawn_latency": _unit(parse_time), "universe_limit": _bool,
}
"""Every setting a profile file may give, and how its value is read."""


# -- loading ---------------------------------------------------------------------------------
def load_profile(path: str | os.PathLike[str], builtin: dict[str, Any]) -> Any:
    """The :class:`~mpisim.profiles.library.Profile` a file describes; ``builtin`` maps the
    names ``based_on`` may take to profiles. ProfileFileError (one line) if it is bad."""
    shown = os.fspath(path)
    try:
        text = Path(shown).read_text(encoding="utf-8")
    except OSError as e:
        raise ProfileFileError(f"{shown}: cannot read the profile file: "
                               f"{e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ProfileFileError(f"{shown}: not UTF-8 text ({e.reason})") from None
    doc = _compose(shown, text)
    if not isinstance(doc.value, dict):
        raise ProfileFileError(f"{shown}:{doc.line}: expected a mapping with name and settings")
    top: dict[str, _Node] = doc.value
    for key, node in top.items():
        if key not in TOP:
            raise ProfileFileError(f"{shown}:{node.line}: {key}: unknown key (valid: "
                                   f"{', '.join(TOP)})")
    fmt = top.get("mpisim_profile")
    if fmt is not None and fmt.value != FORMAT:
        raise ProfileFileError(f"{shown}:{fmt.line}: mpisim_profile: format {fmt.value!r} is "
                               f"not supported (this mpisim reads {FORMAT})")
    base = _base(shown, top.get("based_on"), builtin)
    values, evidence = _settings(shown, top.get("settings"), doc.line)
    texts = {}
    for key in ("name", "description", "library"):
        given = top.get(key)
        if given is not None:
            try:
                texts[key] = _text(given.value)
            except ValueError as e:
                raise ProfileFileError(f"{shown}:{given.line}: {key}: {e}") from None
    name = texts.get("name", Path(shown).stem)
    library = texts.get("library", "")
    description = texts.get("description", f"{name}: read from {Path(shown).name}"
                            + (f" ({library})" if library else ""))
    return replace(base, name=name, description=description,
                   family=base.family or base.name, source=shown, library=library,
                   evidence=tuple(sorted(evidence.items())), **values)


def _base(path: str, node: _Node | None, builtin: dict[str, Any]) -> Any:
    if node is None:
        return builtin["standard"]
    if not isinstance(node.value, str) or node.value not in builtin:
        raise ProfileFileError(f"{path}:{node.line}: based_on: unknown profile {node.value!r} "
                               f"(valid: {', '.join(builtin)})")
    return builtin[node.value]


def _settings(path: str, node: _Node | None, line: int) -> tuple[dict, dict]:
    if node is None:
        raise ProfileFileError(f"{path}:{line}: settings: missing (the profile's values)")
    if not isinstance(node.value, dict):
        raise ProfileFileError(f"{path}:{node.line}: settings: expected a mapping of setting "
                               "to value")
    values: dict[str, Any] = {}
    evidence: dict[str, Any] = {}
    for key, item in node.value.items():
        where = f"{path}:{item.line}: settings.{key}"
        if key not in READERS:
            raise ProfileFileError(f"{where}: unknown setting (valid: {', '.join(READERS)})")
        raw = item.value
        if isinstance(raw, dict):
            extra = set(raw) - {"value", "evidence"}
            if "value" not in raw or extra:
                raise ProfileFileError(f"{where}: expected a value, or a mapping of value and "
                                       "evidence")
            evidence[key] = _plain(raw["evidence"]) if "evidence" in raw else None
            where, raw = f"{path}:{raw['value'].line}: settings.{key}", raw["value"].value
        try:
            values[key] = READERS[key](raw)
        except ValueError as e:
            raise ProfileFileError(f"{where}: {e}") from None
    return values, evidence


# -- writing ---------------------------------------------------------------------------------
def dump_profile(profile: Any, evidence: dict[str, Any], *, based_on: str = "standard",
                 calibration: dict[str, Any] | None = None) -> str:
    """A profile file's text: every setting that differs from ``based_on``'s or has
    evidence, each with it."""
    settings: dict[str, Any] = {}
    for f in fields(profile):
        key = f.name
        if key not in READERS:
            continue
        value = getattr(profile, key)
        if key in evidence:  # a copy each: YAML would share a repeated one by an alias
            settings[key] = {"value": value, "evidence": copy.deepcopy(evidence[key])}
        else:
            settings[key] = value
    doc = {"mpisim_profile": FORMAT, "name": profile.name, "description": profile.description,
           "library": profile.library, "based_on": based_on}
    if calibration:
        doc["calibration"] = calibration
    doc["settings"] = settings
    import yaml

    return yaml.safe_dump(doc, sort_keys=False, width=96, allow_unicode=True,
                          default_flow_style=None)
