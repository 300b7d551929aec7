"""The public API is fully annotated: every function and public method a user reaches from
``mpisim.__all__`` (and from the ``mpi`` handle a rank program receives) declares the type
of each parameter and of its return, so that a user's type checker (the package ships
``py.typed``) checks their calls. Reached means: a name of ``__all__``, a public method of
one of its classes (inherited ones too), and, transitively, the mpisim classes named in
those annotations (``run`` returns a ``Result``, whose methods are public too)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any

import mpisim as ms
from mpisim.handle.rank import Rank

_DUNDERS = ("__init__", "__call__")
"""The underscore methods that are public: a class's constructor, a callable's call."""


def unannotated(function: Callable[..., Any], bound: bool) -> list[str]:
    """The parameters (and ``return``) of ``function`` without an annotation; ``bound``: its
    first parameter is ``self`` or ``cls``, which needs none."""
    signature = inspect.signature(function)
    params = list(signature.parameters.values())[1 if bound else 0:]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _ours(obj: object) -> bool:
    return str(getattr(obj, "__module__", "")).startswith("mpisim")


def methods(cls: type) -> Iterator[tuple[str, Callable[..., Any], bool]]:
    """(qualified name, function, bound) of each public method of ``cls`` defined in mpisim,
    inherited ones included; a property gives its getter and setter."""
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not _ours(klass):
            continue
        for name, raw in vars(klass).items():
            if name in seen or (name.startswith("_") and name not in _DUNDERS):
                continue
            seen.add(name)
            qualified = f"{klass.__module__}.{klass.__qualname__}.{name}"
            if isinstance(raw, staticmethod):
                yield qualified, raw.__func__, False
            elif isinstance(raw, classmethod):
                yield qualified, raw.__func__, True
            elif isinstance(raw, property):
                yield from ((qualified, f, True) for f in (raw.fget, raw.fset) if f is not None)
            elif inspect.isfunction(raw):
                yield qualified, raw, True


def named_classes(function: Callable[..., Any]) -> Iterator[type]:
    """The mpisim classes an annotation of ``function`` names (resolved in its module)."""
    scope = getattr(function, "__globals__", {})
    for annotation in getattr(function, "__annotations__", {}).values():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        for dotted in re.findall(r"[A-Za-z_][\w.]*", text):
            head, *rest = dotted.split(".")
            obj = scope.get(head)
            for part in rest:
                obj = getattr(obj, part, None)
            if inspect.isclass(obj) and _ours(obj):
                yield obj


def public_callables() -> Iterator[tuple[str, Callable[..., Any], bool]]:
    """Every function and method reached from ``mpisim.__all__`` and the handle."""
    roots = [getattr(ms, name) for name in ms.__all__]
    todo: list[Any] = [o for o in roots if (inspect.isclass(o) or inspect.isfunction(o))
                       and _ours(o)]
    todo.append(Rank)  # the `mpi` of a rank program (`program` is typed Callable[..., Any])
    done: set[object] = set()
    while todo:
        obj = todo.pop()
        if obj in done:
            continue
        done.add(obj)
        found = methods(obj) if inspect.isclass(obj) else \
            iter([(f"{obj.__module__}.{obj.__qualname__}", obj, False)])
        for qualified, function, bound in found:
            if _ours(function):
                yield qualified, function, bound
                todo.extend(named_classes(function))


def test_every_public_function_and_method_is_fully_annotated():
    missing = {name: gaps for name, f, bound in public_callables()
               if (gaps := unannotated(f, bound))}
    assert missing == {}


def test_the_walk_reaches_the_api_through_its_annotations():
    """The check is not vacuous: it sees the entry points, the classes' methods (inherited
    ones too), the handle's calls and the classes only an annotation names."""
    names = {name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1]
             for name, _f, _b in public_callables()}
    assert {"simulation.run", "Comm.rank_of", "Result.report", "PointToPoint.bsend",
            "SweepTable.to_pandas"} <= names


def test_an_unannotated_parameter_or_return_is_found():
    def bare(a, b: int = 0):  # (unannotated on purpose: the case the check must catch)
        return a

    def typed(*args: int, **kwargs: str) -> None:
        pass

    class Holder:
        def method(self, x: int):  # (no return annotation, on purpose)
            return x

    assert unannotated(bare, bound=False) == ["a", "return"]
    assert unannotated(typed, bound=False) == []
    assert unannotated(Holder.method, bound=True) == ["return"]
