"""``load(path)``: read a scenario file (YAML or Python) and validate all of it.

YAML files are read with :mod:`mpisim.scenario.yamlload` (line numbers, duplicate keys
refused, YAML 1.1 ambiguities refused), never executed. Every problem is collected and
reported once, in file order: ``ScenarioError.problems`` lists them,
``str(error)`` is the first plus ``(and N more)``.

A rank runs the ops of **every** ``programs`` entry whose selector contains it, in file order
(so ``ranks: all`` can attach a buffer and later entries add per-rank work); a rank selected by
no entry runs an empty program. An entry without ``ranks`` is for all ranks.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

from .interpret import Entry, Program
from .ops import OpReader
from .problems import Problems, ScenarioError
from .pyscenario import (
    ImportProblem,
    PythonProgram,
    check_main,
    import_scenario,
    located,
    main_line,
)
from .scenario import Scenario
from .schema import TOP_KEYS, Header, read_header
from .selectors import select
from .values import Invalid, describe
from .yamlload import YamlProblem, line_of, read_yaml

__all__ = ["load", "settings_scenario"]

_YAML = (".yaml", ".yml")


def load(path: str | os.PathLike[str]) -> Any:
    """Load and validate the scenario at ``path`` (.yaml, .yml or .py); ScenarioError if
    anything is wrong, with one line per problem naming the file, line and key.

    Parameters
    ----------
    path
        The scenario file: YAML (``.yaml``, ``.yml``: the ops of each rank, as the
        reference's scenario schema describes) or Python (``.py``: a program and its
        settings).

    Returns
    -------
    Scenario
        The loaded scenario: ``run()`` runs it, ``with_overrides({...})`` changes settings
        as ``--set`` does.

    Raises
    ------
    ValueError
        A ``ScenarioError``: every problem found, one line each (``problems``).
    """
    shown = os.fspath(path)
    suffix = Path(shown).suffix.lower()
    if suffix not in (*_YAML, ".py"):
        raise ScenarioError([f"{shown}: not a scenario file (expected .yaml, .yml or .py)"])
    try:
        text = Path(shown).read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError([f"{shown}: cannot read the file: {e.strerror or e}"]) from None
    except UnicodeDecodeError as e:
        raise ScenarioError([f"{shown}: not UTF-8 text ({e.reason} at byte {e.start})"]) \
            from None
    if suffix == ".py":
        return _load_python(shown, text)
    doc, yaml_problems = read_yaml(text)
    return build_yaml(shown, doc, yaml_problems)


def build_yaml(path: str, doc: Any, yaml_problems: list[YamlProblem] | None = None) -> Any:
    """Validate a YAML document read from ``path``; the Scenario, or ScenarioError."""
    problems = Problems(path)
    for p in yaml_problems or []:
        problems.add(p.line, "", p.message)
    if doc is None and not problems:
        problems.add(1, "", "the file is empty (a scenario needs at least ranks and programs)")
    elif doc is not None and not isinstance(doc, dict):
        problems.add(getattr(doc, "line", 1) or 1, "", "expected a mapping of scenario keys "
                     f"(name, ranks, programs ...), got {describe(doc)}")
    if not isinstance(doc, dict):
        problems.raise_if_any()
    header = read_header(doc, problems, Path(path).stem)
    program = _programs(doc, problems, header)
    problems.raise_if_any()
    return Scenario(path, doc, header, program, partial(build_yaml, path))


_NO_PROGRAM = "programs:\n  - ops: []\n"  # the program is given elsewhere


def settings_scenario(settings: str | None, defaults: dict[str, Any], refused: tuple[str, ...],
                      program: str) -> Any:
    """The Scenario of a program given elsewhere (an mpi4py script, a recording): its
    settings read from a scenario-style file ``settings`` (None: no file), the keys missing
    from it taken from ``defaults`` (``{"name": ..., "ranks": ...}``). Keys ``refused`` and
    ``programs``, ``params``, ``expect`` are errors naming ``program`` ("an mpi4py script").
    ValueError with one line per problem (file, line and key) if anything is wrong."""
    own, source = "", "<settings>"
    if settings is not None:
        source = settings
        try:
            with open(settings, encoding="utf-8") as f:
                own = f.read()
        except OSError as e:
            raise ValueError(f"{settings}: cannot read the settings: {e.strerror or e}") \
                from None
    doc, _problems = read_yaml(own)
    has = doc if isinstance(doc, dict) else {}
    for key in ("programs", "params", "expect", *refused):
        if key in has:
            raise ValueError(f"{settings}: {key}: not used with {program} (it is the "
                             "program; settings only)")
    # each default as a JSON scalar (valid YAML): a script named null.py, yes.py or 1.py
    # keeps its name as text instead of YAML reading it as null, true or 1
    missing = "".join(f"{key}: {json.dumps(value)}\n" for key, value in defaults.items()
                      if key not in has)
    text = (f"{own.rstrip()}\n" if own.strip() else "") + missing + _NO_PROGRAM
    try:
        doc, problems = read_yaml(text)
        return build_yaml(source, doc, problems)
    except ScenarioError as e:
        raise ValueError("\n".join(e.problems or [str(e)])) from None


def _programs(doc: dict, problems: Problems, header: Header) -> Program | None:
    if "programs" not in doc:
        problems.add(getattr(doc, "line", 1) or 1, "programs",
                     "missing (a list of {ranks: selector, ops: [...]})")
        return None
    value, line = doc["programs"], line_of(doc, "programs")
    if not isinstance(value, list):
        problems.add(line, "programs", f"expected a list of {{ranks, ops}}, got "
                     f"{describe(value)}")
        return None
    size = header.ranks or 1
    reader = OpReader(problems, header.params, size)
    entries = []
    for p, item in enumerate(value):
        path, pline = f"programs[{p}]", line_of(value, p, line)
        if not isinstance(item, dict):
            problems.add(pline, path, f"expected a mapping {{ranks, ops}}, got {describe(item)}")
            continue
        for key in item:
            if key not in ("ranks", "ops"):
                problems.add(line_of(item, key, pline), f"{path}.{key}",
                             "unknown key (valid: ranks, ops)")
        if "ops" not in item:
            problems.add(pline, path, "missing ops")
        selector = item.get("ranks", "all")
        ranks: frozenset[int] = frozenset()
        if header.ranks is not None:
            try:
                ranks = select(selector, size, header.params)
            except Invalid as e:
                problems.add(line_of(item, "ranks", pline), f"{path}.ranks", str(e))
        ops = reader.read_ops(item.get("ops"), f"{path}.ops", line_of(item, "ops", pline))
        entries.append(Entry(p, selector, ranks, ops))
    return Program(header.name, entries, size, header.params)


def _load_python(path: str, text: str) -> Any:
    try:
        module = import_scenario(path)
    except ImportProblem as e:
        raise ScenarioError([Problems(path).format(e.line, "", e.message)]) from None
    return build_python(path, module, located(getattr(module, "SCENARIO", None), text),
                        main_line(text))


def build_python(path: str, module: Any, doc: Any, line_of_main: int) -> Any:
    """Validate a Python scenario's SCENARIO (as LMap) and main."""
    problems = Problems(path)
    if doc is None:
        problems.add(0, "SCENARIO", "missing: a Python scenario defines SCENARIO = {...} "
                     "(the keys of a YAML scenario but programs) and main(mpi, **params)")
        problems.raise_if_any()
    if not isinstance(doc, dict):
        problems.add(getattr(doc, "line", 0), "SCENARIO", f"expected a dict, got "
                     f"{describe(doc)}")
        problems.raise_if_any()
    allowed = tuple(k for k in TOP_KEYS if k != "programs")
    if "programs" in doc:
        problems.add(line_of(doc, "programs"), "SCENARIO.programs",
                     "not used in a Python scenario: main(mpi, **params) is the program")
    header = read_header(doc, problems, Path(path).stem, allowed=(*allowed, "programs"))
    why = check_main(module, header.params)
    if why:
        problems.add(line_of_main, "main", why)
    problems.raise_if_any()
    program = PythonProgram(path, module)
    return Scenario(path, doc, header, program, partial(_rebuild_python, path, program,
                                                        line_of_main))


def _rebuild_python(path: str, program: PythonProgram, line_of_main: int, doc: Any) -> Any:
    module = _module_of(program)
    return build_python(path, module, doc, line_of_main)


def _module_of(program: PythonProgram) -> Any:
    from .pyscenario import _MODULES

    try:
        return _MODULES.get(program.path) or import_scenario(program.path)
    except ImportProblem as e:
        raise ScenarioError([Problems(program.path).format(e.line, "", e.message)]) from None
