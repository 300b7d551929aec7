"""One namespace for everything a user needs (as mpi4py's ``MPI``): every predefined
datatype and constant the scenario language accepts, the what-if functions, nothing
private."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import re
from pathlib import Path

from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.mpi.datatypes import BASIC_TYPES
from mpisim.scenario.expr import CONSTANTS


def test_every_name_a_scenario_accepts_is_exported():
    names = set(BASIC_TYPES) | set(CONSTANTS)
    assert names <= set(ms.__all__)
    assert names <= set(dir(ms))
    for name in names:
        assert getattr(ms, name) is not None


def test_what_if_functions_are_in_all_and_dir_and_import_star_works():
    for name in ("sweep", "min_buffer", "min_buffer_per_rank", "check_safe",
                 "compare_profiles"):
        assert name in ms.__all__ and name in dir(ms)
        assert callable(getattr(ms, name))
    scope: dict = {}
    exec("from mpisim import *", scope)
    assert {"sweep", "INTEGER4", "TWOINT", "SUM", "Comm"} <= set(scope)


def test_nothing_private_is_public_and_the_version_comes_from_the_package():
    assert not [n for n in ms.__all__ if n.startswith("_") and n != "__version__"]
    assert len(ms.__all__) == len(set(ms.__all__))
    assert ms.__version__ == importlib.metadata.version("mpisim")
    assert ms.MPIConfig().resolve().bsend_overhead == ms.BSEND_OVERHEAD


def test_sub_packages_do_not_shadow_the_handles_calls():
    """``ms.bsend`` would read as MPI_Bsend and ``ms.rank`` as the handle's rank: the engine's
    modules are imported by path, and ``dir(ms)`` shows what a user reaches."""
    for name in ("bsend", "rank", "network"):
        assert not hasattr(ms, name) and name not in dir(ms), name
    from mpisim.profiles import library as profiles  # still importable by path

    assert profiles.MPIConfig is ms.MPIConfig and not hasattr(ms, "bsend")
    public = {"collectives", "plot", "scenario", "whatif", "mpi4py", "recorded"}
    assert public <= set(dir(ms))
    assert all(getattr(ms, n).__name__ == f"mpisim.{n}" for n in public)
    assert [n for n in dir(ms) if n.startswith("_")] == ["__version__"]


def test_a_scenario_file_loads_from_the_one_namespace():
    scenario = ms.load_scenario(SCENARIOS / "example-3.10-bsend.yaml")
    assert scenario.run().outcome is ms.Outcome.COMPLETED


def _handle() -> object:
    """A rank program's ``mpi``, as the program sees it."""
    seen: list = []

    def program(mpi):
        seen.append(mpi)
        yield mpi.barrier()

    ms.run(program, ranks=1)
    return seen[0]


HANDLE_ATTRIBUTES = {"rank", "size", "now", "comm_world", "comm_self", "BSEND_OVERHEAD"}
"""What the handle holds besides calls: MPI_Comm_rank/size of MPI_COMM_WORLD, MPI_Wtime,
the two predefined communicators, MPI_BSEND_OVERHEAD."""


def test_the_handles_public_names_are_mpis_vocabulary():
    """Every public method is an MPI call named after its function (MPI_Buffer_attach ->
    buffer_attach, read from the call's own docstring) or what a program does beside MPI
    (``compute``, ``spawn_thread``, ``current_thread``); everything else the
    handle keeps for the run (its SimPy environment, the call it is in, the call log) is
    private."""
    mpi = _handle()
    public = {n for n in dir(mpi) if not n.startswith("_")}
    calls = {n for n in public if callable(getattr(mpi, n))}
    assert public - calls == HANDLE_ATTRIBUTES
    assert "compute" in calls
    for name in calls - {"compute", "spawn_thread", "current_thread"}:  # beside MPI
        function = re.match(r"MPI_(\w+)", getattr(mpi, name).__doc__ or "")
        assert function and function[1].lower() == name, name


INIT = Path(ms.__file__)
DOCS = Path(__file__).resolve().parents[2] / "docs"
AUTODOC = re.compile(r"(\.\. auto\w+::|\{mpisim-auto\w+\})\s+mpisim\.")


def _imported_then_defined() -> tuple[list[str], list[str]]:
    """The public names of ``mpisim/__init__.py`` in the order its statements bind them
    (its ``from .x import`` lines, then its own assignments), and the names its
    ``TYPE_CHECKING`` block shows a type checker for what ``__getattr__`` imports on use."""
    tree = ast.parse(INIT.read_text())
    bound: list[str] = []
    lazy: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            bound += [a.asname or a.name for a in node.names
                      if not (a.asname or "").startswith("_")]
        elif isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            bound += [t.id for t in targets if isinstance(t, ast.Name)
                      and not t.id.startswith("_")]
        elif isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            lazy += [a.asname or a.name for i in node.body if isinstance(i, ast.ImportFrom)
                     for a in i.names if i.module]  # `from . import x`: a sub-package
    return bound, lazy


def test_all_is_grouped_as_the_imports_every_name_once():
    """``__all__`` reads as the imports above it: the same names in the same order, then the
    names imported on first use; no name twice, none restated."""
    bound, lazy = _imported_then_defined()
    assert ms.__all__[:len(bound)] == bound
    assert sorted(ms.__all__[len(bound):]) == sorted(lazy)
    assert len(ms.__all__) == len(set(ms.__all__))


def test_bsend_overhead_is_read_from_the_standard_profile_not_restated():
    from mpisim.profiles.library import PROFILES

    assert PROFILES["standard"].bsend_overhead == ms.BSEND_OVERHEAD
    assert not re.search(r"BSEND_OVERHEAD\s*(: int)?\s*=\s*\d", INIT.read_text())


def _reference_pages() -> list[Path]:
    """The API reference: the documentation pages that autodoc mpisim's objects (found by
    their directives, wherever the documentation keeps them)."""
    return [p for p in sorted(DOCS.rglob("*.md"))
            if "_build" not in p.parts and AUTODOC.search(p.read_text())]


def test_all_is_what_the_api_reference_lists():
    """Every name of ``ms.__all__`` is documented in the API reference (an autodoc directive,
    a role or an ``ms.NAME`` in its text), and the reference lists nothing ``ms`` lacks (as
    SimPy's own test of its ``__all__`` against its API page)."""
    pages = _reference_pages()
    assert pages, f"no page under {DOCS} autodocs mpisim"
    listed: set[str] = set()
    for page in pages:
        text = page.read_text()
        listed |= set(re.findall(r"\bmpisim\.(\w+)\b(?!\.\w)", text))
        listed |= set(re.findall(r"`ms\.(\w+)", text))
    listed -= set(ms._SUBPACKAGES) | {"calibrate"}  # the public sub-packages' own pages
    assert sorted(set(ms.__all__) - listed) == [], "in __all__, not in the API reference"
    assert sorted(listed - set(ms.__all__)) == [], "in the API reference, not in __all__"


def _unannotated(qualname: str, function: object) -> list[str]:
    try:
        signature = inspect.signature(function)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # a builtin's: nothing to annotate
        return []
    missing = [f"{qualname}: {p.name}" for p in signature.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty \
            and getattr(function, "__name__", "") != "__init__":
        missing.append(f"{qualname}: return")
    return missing


def test_the_public_api_is_fully_annotated():
    """Every function of ``ms.__all__``, and every public method of its classes, annotates
    each parameter and its return (the package ships ``py.typed``: its users' type checkers
    read these)."""
    missing: list[str] = []
    for name in ms.__all__:
        obj = getattr(ms, name)
        if inspect.isfunction(obj):
            missing += _unannotated(name, obj)
        elif inspect.isclass(obj) and obj.__module__.startswith("mpisim"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    missing += _unannotated(f"{name}.{attr}", member)
    assert missing == []
    assert (INIT.parent / "py.typed").is_file()
