"""What the documentation build needs beyond stock Sphinx.

- The notebooks in ``notebooks/`` are copied into ``tutorials/`` before the sources are read
  (the copies are build products, not committed), each with a hidden first cell that makes
  ``notebooks/`` the working directory, so that their relative paths (``../scenarios/...``)
  mean what they mean in Jupyter; myst-nb then executes and renders them.
- ``{mpisim-autoclass} WHERE`` documents a class a user meets without importing it, found
  from the public API rather than by its module path (which is the package's own business):
  ``handle`` is the class of a rank program's ``mpi``; ``mpisim.Result.trace`` is the class
  of that annotated field. It expands to ``autoclass`` of the class's current path;
  ``:no-constructor:`` hides the arguments of a class only mpisim builds, ``:no-types:``
  the types of its methods' arguments.
- ``{mpisim-moduledoc} mpisim.recorded.read_trace`` shows the docstring of the module that
  defines a public object (there: the recording's format).
- ``{mpisim-algorithms}`` tables the collectives' algorithms and each profile's choice.
- Napoleon is kept off properties and attributes (their docstrings are prose).
- References that autodoc writes by an object's defining module (``mpisim.<module>.Result``
  in a type hint) are resolved to the place the object is documented (``mpisim.Result``),
  matched by identity, so that they keep working when modules move.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
import typing
from pathlib import Path
from typing import Any, ClassVar

import nbformat
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

CHDIR_TAG = "remove-cell"
CHDIR_SOURCE = (
    "# the build runs the notebook where it lives, as Jupyter does\n"
    "import os\n"
    "\n"
    'os.chdir("../../notebooks")'
)


# -- the notebooks ----------------------------------------------------------------------------
def copy_notebooks(app: Sphinx, config: Any) -> None:
    """Copy ``notebooks/*.ipynb`` into ``tutorials/`` (only files whose copy would change,
    so incremental builds stay incremental), outputs cleared, the working-directory cell
    first; remove copies whose notebook is gone."""
    source = Path(app.srcdir).parent / "notebooks"
    target = Path(app.srcdir) / "tutorials"
    wanted = set()
    for path in sorted(source.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        chdir = nbformat.v4.new_code_cell(CHDIR_SOURCE)
        chdir.metadata["tags"] = [CHDIR_TAG]
        chdir["id"] = "mpisim-docs-chdir"  # fixed, so that an unchanged notebook's copy is too
        nb.cells.insert(0, chdir)
        text = nbformat.writes(nb)
        copy = target / path.name
        wanted.add(copy.name)
        if not copy.exists() or copy.read_text(encoding="utf-8") != text:
            copy.write_text(text, encoding="utf-8")
    for stale in target.glob("*.ipynb"):
        if stale.name not in wanted:
            stale.unlink()


# -- classes a user meets -----------------------------------------------------------------------
def _idle(mpi: Any) -> Any:
    yield from ()


def _one_class(hint: Any) -> type:
    """The class in an annotation such as ``X``, ``X | None`` or ``list[X]``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if isinstance(hint, type) and not args:
        return hint
    if len(args) == 1:
        return _one_class(args[0])
    raise ValueError(f"no single class in {hint!r}")


def met_class(where: str) -> type:
    """The class found at ``where``: ``handle`` (a rank program's ``mpi``), or a public
    dotted path through classes and their annotated fields (``mpisim.Result.ranks.buffer``:
    the class of the field ``buffer`` of the class of ``Result.ranks``)."""
    if where == "handle":
        import mpisim

        return type(mpisim.Simulation(_idle, ranks=1).handles[0])
    parts = where.split(".")
    obj: Any = importlib.import_module(parts[0])
    for name in parts[1:]:
        value = getattr(obj, name, None)
        if isinstance(obj, type) and not isinstance(value, type):
            obj = _one_class(typing.get_type_hints(obj)[name])  # a field: its class
        else:
            obj = getattr(obj, name)
    if not isinstance(obj, type):
        raise ValueError(f"{where} is not a class")
    return obj


class MetClassDirective(SphinxDirective):
    """``autoclass`` of the class :func:`met_class` finds; the options are autoclass's."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {
        "no-constructor": directives.flag,  # mpisim builds it: its arguments are not shown
        "no-types": directives.flag,  # nor the types of its methods' arguments (all Any)
        "members": directives.unchanged,
        "undoc-members": directives.flag,
        "inherited-members": directives.unchanged,
        "exclude-members": directives.unchanged,
        "member-order": directives.unchanged,
        "no-index": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        cls = met_class(self.arguments[0])
        name = f"{cls.__module__}.{cls.__qualname__}"
        options = dict(self.options)
        if options.pop("no-constructor", False) is None:
            NO_CONSTRUCTOR.add(name)
        if options.pop("no-types", False) is None:
            NO_TYPES.add(name)
        lines = [f".. autoclass:: {name}"]
        for key, value in options.items():
            lines.append(f"   :{key}:" + (f" {value}" if value else ""))
        return parse_rst(self, lines)


NO_CONSTRUCTOR: set[str] = set()
NO_TYPES: set[str] = set()


def hide_constructor(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                     signature: str | None, return_annotation: str | None) -> Any:
    """No arguments shown for a class marked ``:no-constructor:``."""
    if what == "class" and name in NO_CONSTRUCTOR:
        return "", None
    return None


def drop_types(app: Sphinx, domain: str, objtype: str, content: Any) -> None:
    """Nor the types of those arguments, nor any types of a ``:no-types:`` class's members
    (dropped before autodoc adds them to the description)."""
    if domain != "py":
        return
    signature = content.parent[0]
    name = ".".join(filter(None, (signature.get("module"), signature.get("fullname"))))
    owner = name.rsplit(".", 1)[0]
    if (objtype == "class" and name in NO_CONSTRUCTOR) or owner in NO_TYPES:
        current = getattr(app.env, "current_document", None)
        annotations = (current.autodoc_annotations if current is not None
                       else app.env.temp_data.get("annotations", {}))
        annotations.pop(name, None)


class AlgorithmsDirective(SphinxDirective):
    """The table of collective algorithms and each profile family's choice, from
    ``mpisim.collectives.ALGORITHMS`` and ``DEFAULTS``."""

    def run(self) -> list[nodes.Node]:
        from mpisim.collectives import ALGORITHMS, DEFAULTS

        families = [family for family in DEFAULTS if family != "standard"]
        lines = [".. list-table::", "   :header-rows: 1", "",
                 "   * - collective", "     - algorithms (the ``standard`` profile's first)",
                 *[f"     - ``{family}``" for family in families]]
        for kind, algorithms in ALGORITHMS.items():
            standard = DEFAULTS["standard"][kind]
            ordered = [standard, *(a for a in algorithms if a != standard)]
            lines += [f"   * - ``{kind}``", "     - " + ", ".join(ordered),
                      *[f"     - {DEFAULTS[family].get(kind, standard)}"
                        for family in families]]
        return parse_rst(self, lines)


class ModuleDocDirective(SphinxDirective):
    """The docstring of the module that defines the public object named, without its
    first line (the module's title)."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        obj = _lookup(self.arguments[0])
        if obj is None:
            raise self.error(f"no object {self.arguments[0]}")
        doc = inspect.getdoc(sys.modules[obj.__module__]) or ""
        return parse_rst(self, doc.split("\n", 1)[1].strip("\n").splitlines())


def parse_rst(directive: SphinxDirective, lines: list[str]) -> list[nodes.Node]:
    """Parse reStructuredText made by a directive, on a MyST page as on an rST one."""
    if type(directive.state).__name__ == "MockState":  # MyST: its nested parse reads MyST
        lines = ["```{eval-rst}", *lines, "```"]
    node = nodes.container()
    directive.state.nested_parse(StringList(lines, directive.get_source_info()[0]),
                                 directive.content_offset, node)
    return node.children


# -- references by defining module ---------------------------------------------------------------
def _lookup(path: str) -> Any:
    """The object at a dotted path: attributes first, a submodule only where there is no
    attribute (``mpisim.scenario.load`` is the function, not the module of that name);
    None if there is none."""
    parts = path.split(".")
    try:
        obj: Any = importlib.import_module(parts[0])
    except ImportError:
        return None
    for n, name in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            if not isinstance(obj, types.ModuleType):
                return None
            try:
                obj = importlib.import_module(".".join(parts[: n + 1]))
            except ImportError:
                return None
    return obj


def _documented(env: Any) -> dict[int, str]:
    """id(object) -> the name it is documented under, for every documented mpisim object
    that is a class, function or module (values such as ``SUM`` are not unique)."""
    cache = getattr(env, "_mpisim_documented", None)
    if cache is None:
        cache = {}
        for name in env.get_domain("py").objects:
            if name.startswith("mpisim"):
                obj = _lookup(name)
                if isinstance(obj, type | types.FunctionType | types.ModuleType):
                    cache.setdefault(id(obj), name)
        env._mpisim_documented = cache
    return cache


def resolve_by_identity(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    """A reference to ``mpisim.<module>.X`` that is documented as ``mpisim.X``."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    candidates = [target]
    module = node.get("py:module")
    if module and not target.startswith("mpisim"):
        candidates.insert(0, f"{module}.{target}")
    objects = env.get_domain("py").objects
    name = None
    for path in candidates:
        obj = _lookup(path) if path.startswith("mpisim") else None
        name = _documented(env).get(id(obj)) if obj is not None else None
        if name:
            break
    if name is None and "." not in target:  # a docstring's :func:`parse_values`
        named = [n for n in objects if n.startswith("mpisim") and n.endswith(f".{target}")]
        name = named[0] if len(named) == 1 else None
    if name is None or name == target:
        return None
    entry = objects[name]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode,
                        name)


def forget_documented(app: Sphinx, env: Any, *args: Any) -> None:
    """The map is rebuilt once every page has been read."""
    env._mpisim_documented = None


# -- napoleon, kept off properties -------------------------------------------------------------
def napoleon_except_on_properties(app: Sphinx) -> None:
    """Napoleon reads a property's or attribute's first line ``X: text`` as its type ``X``;
    mpisim's say ``The CLI's status: 0 safe, 3 not``. Napoleon keeps reading sections in
    everything else."""
    try:
        from sphinx.ext.napoleon import _process_docstring
    except ImportError:
        return
    for listener in list(app.events.listeners.get("autodoc-process-docstring", [])):
        if listener.handler is _process_docstring:
            app.disconnect(listener.id)

            def process(app: Sphinx, what: str, *args: Any) -> None:
                if what not in ("property", "attribute", "data"):
                    _process_docstring(app, what, *args)

            app.connect("autodoc-process-docstring", process, priority=listener.priority)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", napoleon_except_on_properties)
    app.connect("config-inited", copy_notebooks)
    app.add_directive("mpisim-autoclass", MetClassDirective)
    app.add_directive("mpisim-algorithms", AlgorithmsDirective)
    app.add_directive("mpisim-moduledoc", ModuleDocDirective)
    app.connect("autodoc-process-signature", hide_constructor)
    app.connect("object-description-transform", drop_types, priority=400)
    app.connect("env-updated", forget_documented)
    app.connect("missing-reference", resolve_by_identity)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

