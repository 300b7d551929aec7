"""Every parameter of every object the API reference documents is described in its docstring.

The objects are read from the reference's own directives (``autofunction``, ``autoclass``,
``autoexception``, ``automodule``, ``automethod`` and the site's ``mpisim-autoclass``, with
their ``:members:``), wherever they are under ``docs/``, so that a page that moves or an
object that is added is checked without a list kept here. A parameter is described when the
docstring's numpydoc ``Parameters`` (or ``Other Parameters``) section has an entry for it; a
class's constructor is described in the class docstring (autodoc shows that one). ``self``
and ``cls`` need no entry; ``*args`` and ``**kwargs`` do (as ``*args`` / ``**kwargs``).

Besides: every class and function of ``mpisim.__all__`` is in the reference, every function
has a Returns section, every call of the rank handle says what its yield gives, and the
entry points' Examples run as doctests.
"""

from __future__ import annotations

import doctest
import enum
import importlib
import inspect
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import ROOT

DOCS = ROOT / "docs"
AUTO = re.compile(r"^(?P<indent>\s*)(?:\.\. (?P<rst>auto\w+|mpisim-autoclass)::"
                  r"|```\{(?P<myst>auto\w+|mpisim-autoclass)\})\s*(?P<target>\S+)\s*$")
OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")
SECTION_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
PARAMETER_SECTIONS = ("Parameters", "Other Parameters")
RECORDING = ROOT / "tests" / "data" / "replay" / "example-3.10-bsend.trace"
ENTRY_POINTS = ("run", "Simulation", "Network", "MPIConfig", "sweep", "min_buffer", "check_safe",
                "run_mpi4py", "replay", "compare_profiles", "explore", "Result")

# Parameters not yet described, as "object: parameter" (the aim, and the rule: empty).
ALLOWED: set[str] = set()


@dataclass
class Directive:
    kind: str
    target: str
    options: dict[str, str] = field(default_factory=dict)
    where: str = ""


def directives(root: Path = DOCS) -> list[Directive]:
    """The autodoc directives of the documentation's pages (rST inside MyST's eval-rst
    fences, and MyST's own ```{autoclass} fences), with their options."""
    found = []
    for path in sorted([*root.rglob("*.md"), *root.rglob("*.rst")]):
        if "_build" in path.parts or "jupyter_execute" in path.parts:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            m = AUTO.match(line)
            if not m:
                continue
            d = Directive(m["rst"] or m["myst"], m["target"],
                          where=f"{path.relative_to(ROOT)}:{n + 1}")
            key = None
            for follow in lines[n + 1:]:
                opt = OPTION.match(follow)
                if opt and (m["myst"] or len(follow) - len(follow.lstrip()) > len(m["indent"])):
                    key = opt["key"]
                    d.options[key] = opt["value"].strip()
                elif key and follow.strip() and not follow.lstrip().startswith(("```", "..")) \
                        and len(follow) - len(follow.lstrip()) > len(m["indent"]) + 3:
                    d.options[key] += " " + follow.strip()  # a :members: list continued
                else:
                    break
            found.append(d)
    return found


def _idle(mpi: Any) -> Any:
    yield from ()


def resolve(target: str, kind: str) -> Any:
    """The object a directive documents; ``mpisim-autoclass`` targets are the class of the
    rank handle (``handle``) or of an annotated field (``mpisim.Result.ranks.buffer``)."""
    if kind == "mpisim-autoclass" and target == "handle":
        import mpisim

        return type(mpisim.Simulation(_idle, ranks=1).handles[0])
    parts = target.split(".")
    obj: Any = importlib.import_module(parts[0])
    for n, name in enumerate(parts[1:], 1):
        if isinstance(obj, type) and kind == "mpisim-autoclass" and \
                not isinstance(getattr(obj, name, None), type):
            hint = typing.get_type_hints(obj)[name]
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            obj = hint if not args else args[0]
            while typing.get_args(obj):
                obj = typing.get_args(obj)[0]
        elif hasattr(obj, name):
            obj = getattr(obj, name)
        else:
            obj = importlib.import_module(".".join(parts[: n + 1]))
    return obj


def _members(obj: Any, options: dict[str, str]) -> Iterator[tuple[str, Any]]:
    """The members a directive's ``:members:`` shows: those it names, or (named none) every
    public one defined there (and inherited, with ``:inherited-members:``)."""
    if "members" not in options:
        return
    names = [n.strip() for n in options["members"].split(",") if n.strip()]
    if not names:
        if inspect.ismodule(obj):
            names = [n for n in getattr(obj, "__all__", ()) if not n.startswith("_")]
        else:
            owners = [c for c in inspect.getmro(obj) if c.__module__.startswith("mpisim")]
            if "inherited-members" not in options:
                owners = owners[:1]
            names = sorted({n for c in owners for n in vars(c) if not n.startswith("_")})
    for name in names:
        yield name, inspect.getattr_static(obj, name, None)  # None: an instance's field


def callables() -> Iterator[tuple[str, Any, bool]]:
    """(name, object, whether its signature is shown) for every function, method and class
    the reference documents."""
    seen: set[int] = set()
    for d in directives():
        try:
            obj = resolve(d.target, d.kind)
        except (AttributeError, ImportError, KeyError) as e:
            raise AssertionError(f"{d.where}: {d.kind} {d.target}: no such object ({e})") from e
        yield from _with_members(d.target, obj, d.options, seen)


def _with_members(name: str, obj: Any, options: dict[str, str], seen: set[int]
                  ) -> Iterator[tuple[str, Any, bool]]:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if inspect.isclass(obj):
        yield name, obj, "no-constructor" not in options
    elif callable(obj):
        yield name, obj, True
    for member, raw in _members(obj, options):
        if isinstance(raw, staticmethod | classmethod):
            raw = raw.__func__
        if isinstance(raw, property):
            continue
        if inspect.isclass(raw):
            yield from _with_members(f"{name}.{member}", raw, {}, seen)
        elif inspect.isfunction(raw) and id(raw) not in seen:
            seen.add(id(raw))
            yield f"{name}.{member}", raw, True


def constructor_class(cls: type) -> type | None:
    """The class that defines ``cls``'s constructor (``__init__`` or ``__new__``): its
    docstring describes the parameters (an ``ErrRank`` takes ``MPIError``'s); None when
    that is Python's own (``object``, ``Exception``): nothing of mpisim's to describe."""
    if issubclass(cls, enum.Enum):
        return None
    owner = next(c for c in cls.__mro__ if "__init__" in vars(c) or "__new__" in vars(c))
    return owner if owner.__module__.startswith("mpisim") else None


def parameters(obj: Any) -> list[str]:
    """The parameters a user passes, as a docstring names them (``*args``, ``**kwargs``)."""
    if inspect.isclass(obj) and constructor_class(obj) is None:
        return []
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    names = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def described(doc: str | None) -> set[str]:
    """The names a numpydoc docstring's Parameters sections describe (``a, b : int`` is
    two; ``*args`` keeps its stars)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    names: set[str] = set()
    inside = False
    for n, line in enumerate(lines):
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        if SECTION_UNDERLINE.match(nxt) and line.strip():
            inside = line.strip() in PARAMETER_SECTIONS
            continue
        if not inside or SECTION_UNDERLINE.match(line) or not line.strip():
            continue
        if line.startswith((" ", "\t")):
            continue  # an entry's description
        head = line.split(" : ", 1)[0].rstrip(":").strip()
        names.update(h.strip().strip("\\") for h in head.split(","))
    return {n.replace("\\*", "*") for n in names}


def undocumented() -> list[str]:
    """Each ``object: parameter`` without a description."""
    missing = []
    for name, obj, shown in callables():
        if not shown:
            continue
        owner = constructor_class(obj) if inspect.isclass(obj) else obj
        have = described(getattr(owner, "__doc__", None))
        missing += [f"{name}: {p}" for p in parameters(obj) if p not in have]
    return missing


def test_the_reference_documents_objects():
    """The directives are found where the reference is (a check over none would pass)."""
    names = {name for name, _, _ in callables()}
    assert {"mpisim.run", "mpisim.Simulation", "mpisim.Result.report", "mpisim.sweep",
            "handle.send", "handle.allreduce"} <= names
    assert len(names) > 100


def test_every_public_class_and_function_is_in_the_reference():
    """What ``import mpisim as ms`` offers is documented, so the check below covers it."""
    import mpisim

    documented = {id(obj) for _, obj, _ in callables()}
    public = [name for name in mpisim.__all__ if inspect.isclass(getattr(mpisim, name))
              or inspect.isfunction(getattr(mpisim, name))]
    assert [n for n in public if id(getattr(mpisim, n)) not in documented] == []


def test_every_public_parameter_is_described():
    missing = [m for m in undocumented() if m not in ALLOWED]
    assert not missing, (f"{len(missing)} parameters of the API reference have no entry in "
                         "their docstring's Parameters section:\n  " + "\n  ".join(missing))


def test_the_allow_list_holds_only_what_is_still_missing():
    stale = ALLOWED - set(undocumented())
    assert not stale, f"described now, remove from ALLOWED: {sorted(stale)}"


def test_every_function_says_what_it_returns():
    """A module-level function of the reference that returns a value has a Returns (or
    Yields) section; a method's first line says what it gives (``Result.report``: "A
    readable account of the run"), and so does a call of the rank handle ("yields a
    Request") or its Returns section."""
    lacking = []
    for name, obj, _ in callables():
        if not inspect.isfunction(obj) or "." in obj.__qualname__:
            continue
        if inspect.signature(obj).return_annotation in (None, "None"):
            continue
        if not re.search(r"^(Returns|Yields)\n-{3,}$", inspect.getdoc(obj) or "", re.M):
            lacking.append(name)
    assert not lacking, f"no Returns section: {lacking}"


def test_every_call_of_the_handle_says_what_its_yield_gives():
    handle = resolve("handle", "mpisim-autoclass")
    lacking = []
    for name in dir(handle):
        call = getattr(handle, name)
        if name.startswith("_") or not inspect.isfunction(call):
            continue
        returns = inspect.signature(call).return_annotation
        if getattr(returns, "__name__", returns) != "Event":  # (a string under PEP 563)
            continue
        doc = inspect.getdoc(call) or ""
        if not re.search(r"[Yy]ield", doc.split("Parameters\n")[0]) and "Returns\n" not in doc:
            lacking.append(name)
    assert not lacking, f"what the yield gives is not said: {lacking}"


def test_the_parser_reads_numpydoc_entries():
    doc = """Do it.

    Parameters
    ----------
    a, b : int
        Two.
    *args
        More.
    c
        Untyped.

    Returns
    -------
    x : int
        Not a parameter.
    """
    assert described(doc) == {"a", "b", "*args", "c"}
    assert described("One line only.") == set()


def test_a_parameter_without_an_entry_is_found():
    def call(count, *args, tag=0, **kwargs):
        """Send.

        Parameters
        ----------
        count
            Elements.
        *args
            More.
        """

    have = described(call.__doc__)
    assert [p for p in parameters(call) if p not in have] == ["tag", "**kwargs"]


def test_the_entry_points_have_examples():
    """The entry points show a call a user can copy (the test below runs them)."""
    import mpisim

    lacking = [n for n in ENTRY_POINTS
               if not re.search(r"^Examples\n-{3,}$", inspect.getdoc(getattr(mpisim, n)) or "",
                                re.M)]
    assert not lacking, f"no Examples section: {lacking}"


@pytest.mark.slow  # (about 4 s together: runs, sweeps, widgets)
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_example_of_an_entry_point_runs(name, tmp_path, monkeypatch):
    """Each entry point's Examples run as a doctest: a call that changes, or an answer
    that moves, fails here rather than in a user's first session."""
    import mpisim

    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if name == "explore":
        pytest.importorskip("ipywidgets")  # the notebook extra
    (tmp_path / "run.trace").write_bytes(RECORDING.read_bytes())  # replay's example reads it
    obj = getattr(mpisim, name)
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, f"mpisim.{name}")
             if t.examples]
    assert tests, f"mpisim.{name} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    outcome = runner.summarize(verbose=False)
    assert outcome.failed == 0, f"{outcome.failed} of {outcome.attempted} examples failed"
