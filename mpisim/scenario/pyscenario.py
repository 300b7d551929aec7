"""Python scenarios: a file with ``main(mpi, **params)`` and a ``SCENARIO`` dict.

``SCENARIO`` takes the keys of a YAML scenario except ``programs`` (``main`` is the program,
run on every rank; branch on ``mpi.rank``). Loading imports the file (it is code the user
chose to run, unlike YAML, which is never executed) and validates ``SCENARIO`` like a YAML
header; problems name the line of the key in the ``SCENARIO = {...}`` literal when it is
one, found with ``ast``.

:class:`PythonProgram` pickles as the file's path and imports the file again, once per
process, when first called in another process (a worker of a sweep).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from .yamlload import LList, LMap

__all__ = ["PythonProgram", "import_scenario", "located"]

_MODULES: dict[str, ModuleType] = {}


class ImportProblem(Exception):
    """The file could not be imported: ``line`` and ``message``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def import_scenario(path: str) -> ModuleType:
    """Import the file at ``path`` as a fresh module; ImportProblem on failure."""
    resolved = str(Path(path).resolve())
    digest = hashlib.sha1(resolved.encode()).hexdigest()[:12]
    name = f"mpisim_scenario_{Path(path).stem.replace('-', '_').replace('.', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportProblem(0, "cannot import this file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        raise ImportProblem(e.lineno or 0, f"syntax error: {e.msg}") from None
    except (Exception, SystemExit) as e:
        sys.modules.pop(name, None)
        line = 0
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == resolved:
                line = frame.lineno or 0
        raise ImportProblem(line, f"importing it raised {type(e).__name__}: {e}") from None
    _MODULES[resolved] = module
    return module


class PythonProgram:
    """``main`` of a Python scenario, picklable by path."""

    def __init__(self, path: str, module: ModuleType | None = None) -> None:
        self.path = str(Path(path).resolve())
        self.__name__ = Path(path).stem
        if module is not None:
            _MODULES[self.path] = module

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "__name__": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def main(self) -> Any:
        module = _MODULES.get(self.path) or import_scenario(self.path)
        return module.main

    def __call__(self, mpi: Any, **params: Any) -> Any:
        return self.main()(mpi, **params)

    def __repr__(self) -> str:
        return f"<main of {self.__name__}.py>"


def check_main(module: ModuleType, params: dict[str, Any]) -> str | None:
    """Why ``module.main`` cannot be called as ``main(mpi, **params)``, or None."""
    main = getattr(module, "main", None)
    if main is None:
        return "no function main(mpi, **params)"
    if not callable(main):
        return "main is not a function"
    try:
        inspect.signature(main).bind(None, **params)
    except TypeError as e:
        return f"main(mpi, **params) cannot take the params {sorted(params)}: {e}"
    except ValueError:
        return None
    return None


def main_line(source: str) -> int:
    """The line of ``def main`` (0 if none)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "main":
            return node.lineno
    return 0


def located(value: Any, source: str) -> Any:
    """``SCENARIO`` as LMap/LList, with the lines of its keys where the source shows them."""
    lines = _literal_lines(source)
    return _convert(value, lines, ())


def _literal_lines(source: str) -> dict[tuple, int]:
    """(key path) -> line, from a ``SCENARIO = {...}`` literal; () is the assignment."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if isinstance(node, ast.Assign | ast.AnnAssign) \
                and any(isinstance(t, ast.Name) and t.id == "SCENARIO" for t in targets):
            out = {(): node.lineno}
            if node.value is not None:
                _walk(node.value, (), out)
            return out
    return {}


def _walk(node: ast.AST, path: tuple, out: dict[tuple, int]) -> None:
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values, strict=True):
            if isinstance(k, ast.Constant):
                out[(*path, k.value)] = k.lineno
                _walk(v, (*path, k.value), out)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "dict":
        for kw in node.keywords:
            if kw.arg is not None:
                out[(*path, kw.arg)] = kw.value.lineno
                _walk(kw.value, (*path, kw.arg), out)


def _convert(value: Any, lines: dict[tuple, int], path: tuple) -> Any:
    base = lines.get(path) or lines.get((), 0)
    if isinstance(value, dict):
        m = LMap(line=base)
        for k, v in value.items():
            m[k] = _convert(v, lines, (*path, k))
            m.lines[k] = lines.get((*path, k)) or base
        return m
    if isinstance(value, list | tuple):
        out = LList([_convert(v, lines, path) for v in value], line=base)
        out.lines = [base] * len(out)
        return out
    return value
