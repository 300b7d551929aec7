"""Pages of the site built from the project itself, so that they cannot drift from it.

- ``{mpisim-gallery}``: every shipped scenario (``scenarios/*.yaml``, ``scenarios/*.py``)
  and mpi4py script (``scenarios/mpi4py/*.py``), each with what it shows (its own
  description or docstring), the command that runs it, the first line of its report and its
  figures. Each is run through mpisim's Python API when the page is read; the PNGs are drawn
  into a cache in the doctree folder (kept while the file and mpisim's code are unchanged,
  so a rebuild costs nothing) and copied into the built site's ``_gallery/``.
- ``{mpisim-exit-codes}``: the table of exit codes, one row per ``EXIT_*`` constant of the
  command line (a constant without a meaning here fails the build).
- ``{mpisim-json-example}``: a shipped scenario's result JSON, as ``mpisim run --json``
  prints it (indented).
- ``{mpisim-bibtex}``: ``CITATION.cff`` as a BibTeX entry.
- ``{mpisim-notebook-downloads}``: a download link to each notebook.
- ``{mpisim-module-docs} MODULE ...``: the docstrings of the scenario reader's modules, a
  section each (the scenario schema, as the reader states it).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import html
import io
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from mpisim_docs import parse_rst
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]  # the repository
SCENARIOS = ROOT / "scenarios"
FIGURES = "_gallery"  # the built site's folder of gallery figures
DPI = 90  # figures are drawn 10 inches wide: 900 px, the width of the page's text

# mpi4py scripts do not say how many ranks they want: the gallery runs them so (default 2)
SCRIPT_RUNS: dict[str, tuple[int, list[str]]] = {
    "exchange": (2, ["bsend"]),
    "fan_in": (4, []),
    "ibsend_reattach": (2, []),
    "ring": (4, []),
}


# -- what is shipped ---------------------------------------------------------------------------
@dataclass
class Shipped:
    """One shipped scenario or script, as the gallery shows it."""

    path: Path
    kind: str  # "scenario" or "mpi4py"
    ranks: int = 0
    argv: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def shown_path(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    @property
    def command(self) -> str:
        """The command that runs it by name (``mpisim`` finds a shipped example so, in a
        clone as after ``pip install``)."""
        if self.kind == "mpi4py":
            return " ".join(["mpisim mpi4py -n", str(self.ranks), self.path.name, *self.argv])
        return f"mpisim run {self.name} --plot"


def shipped() -> list[Shipped]:
    """Every shipped scenario and script, in the gallery's order."""
    files = [Shipped(p, "scenario") for p in sorted(SCENARIOS.glob("*.yaml"))]
    files += [Shipped(p, "scenario") for p in sorted(SCENARIOS.glob("*.py"))]
    for path in sorted((SCENARIOS / "mpi4py").glob("*.py")):
        ranks, argv = SCRIPT_RUNS.get(path.stem, (2, []))
        files.append(Shipped(path, "mpi4py", ranks, argv))
    return files


def _code_stamp() -> str:
    """Changes whenever mpisim's code does: its version and every module's size and mtime."""
    import mpisim

    package = Path(mpisim.__file__).parent
    parts = [mpisim.__version__]
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# -- running one and drawing its figures -------------------------------------------------------
@dataclass
class Entry:
    """What the gallery shows of one: its description, report line, output and figures."""

    description: str
    outcome: str
    output: str
    figures: list[tuple[str, str]]  # (file name, caption)


def _run(item: Shipped) -> tuple[Any, str, str]:
    """(result, description, the script's own output)."""
    import mpisim as ms

    if item.kind == "mpi4py":
        doc = ast.get_docstring(ast.parse(item.path.read_text(encoding="utf-8"))) or ""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            result = ms.run_mpi4py(item.path, item.ranks, item.argv)
        return result, doc, out.getvalue()
    scenario = ms.load_scenario(item.path)
    return scenario.run(), scenario.description or "", ""


def _overflow_rank(result: Any) -> int | None:
    rows = result.trace.buffer
    rows = rows[rows["event"] == "overflow"]
    return int(rows["rank"][rows["time"].argmin()]) if len(rows) else None


def _figures(result: Any) -> Iterator[tuple[str, str, Any]]:
    """(kind, caption, Figure) for each figure the run has something to show in."""
    from mpisim.plot import plot_waitfor

    yield "occupancy", "Attached buffers over time (used and live bytes)", result.plot_occupancy()
    yield "timeline", "Each rank's calls and messages over time", result.plot_timeline()
    rank = _overflow_rank(result)
    if rank is not None:
        yield "layout", f"Rank {rank}'s buffer at its first overflow", result.plot_layout(rank)
    if result.deadlock is not None:
        yield "waitfor", "Who waits for whom at the deadlock", plot_waitfor(result)


def render(item: Shipped, cache: Path, stamp: str) -> Entry:
    """Run ``item`` and draw its figures into ``cache``, unless they are there already."""
    key = hashlib.sha256(item.path.read_bytes() + stamp.encode()).hexdigest()
    index = cache / f"{item.name}.json"
    if index.is_file():
        saved = json.loads(index.read_text(encoding="utf-8"))
        if saved.get("key") == key and all((cache / f).is_file() for f, _ in saved["figures"]):
            return Entry(saved["description"], saved["outcome"], saved["output"],
                         [tuple(f) for f in saved["figures"]])
    result, description, output = _run(item)
    figures = []
    for kind, caption, fig in _figures(result):
        name = f"{item.name}-{kind}.png"
        fig.savefig(cache / name, dpi=DPI)
        figures.append((name, caption))
    outcome = result.report().splitlines()[0]
    index.write_text(json.dumps({"key": key, "description": description, "outcome": outcome,
                                 "output": output, "figures": figures}), encoding="utf-8")
    return Entry(description, outcome, output, figures)


# -- the directive ------------------------------------------------------------------------------
def _cache(env: Any) -> Path:
    path = Path(env.app.doctreedir) / "mpisim-gallery"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _figure_html(name: str, caption: str, depth: int) -> str:
    src = "../" * depth + f"{FIGURES}/{name}"
    alt = html.escape(caption, quote=True)
    return (f'<figure class="mpisim-gallery-figure"><a href="{src}"><img src="{src}" '
            f'alt="{alt}" loading="lazy"></a><figcaption>{html.escape(caption)}'
            f"</figcaption></figure>")


class GalleryDirective(SphinxDirective):
    """Every shipped scenario and script with its description, command and figures, a
    section each (built as nodes: a description is text, never parsed as markup)."""

    def run(self) -> list[nodes.Node]:
        import matplotlib

        matplotlib.use("Agg")
        cache, stamp = _cache(self.env), _code_stamp()
        depth = self.env.docname.count("/")
        out: list[nodes.Node] = []
        group: nodes.section | None = None
        for item in shipped():
            self.env.note_dependency(str(item.path))
            title = "mpi4py scripts" if item.kind == "mpi4py" else "Scenarios"
            if group is None or group["names"] != [nodes.fully_normalize_name(title)]:
                group = self._section(title)
                out.append(group)
            try:
                entry = render(item, cache, stamp)
            except Exception as e:  # the gallery names the example that failed, and why
                raise self.error(f"gallery: {item.shown_path} did not run: "
                                 f"{type(e).__name__}: {e}") from e
            section = self._section(item.path.name)
            section += nodes.paragraph(text=" ".join(entry.description.split()))
            section += nodes.paragraph(text="Run it:")
            section += nodes.literal_block(item.command, item.command, language="text")
            where = nodes.paragraph(text="The file: ")
            where += nodes.literal(item.shown_path, item.shown_path)
            where += nodes.Text(" (in a clone; ")
            where += nodes.literal("mpisim examples copy DIR", "mpisim examples copy DIR")
            where += nodes.Text(" copies it out).")
            section += where
            section += nodes.paragraph(text="Its report begins:")
            section += nodes.literal_block(entry.outcome, entry.outcome, language="text")
            if entry.output:
                section += nodes.paragraph(text="The script's own output:")
                text = entry.output.rstrip()
                section += nodes.literal_block(text, text, language="text")
            markup = "\n".join(_figure_html(f, c, depth) for f, c in entry.figures)
            section += nodes.raw("", f'<div class="mpisim-gallery">{markup}</div>',
                                 format="html")
            group += section
            figures = getattr(self.env, "mpisim_gallery", set())
            figures.update(f for f, _ in entry.figures)
            self.env.mpisim_gallery = figures
        return out

    def _section(self, title: str) -> nodes.section:
        section = nodes.section()
        section += nodes.title(title, title)
        section["names"].append(nodes.fully_normalize_name(title))
        self.state.document.note_implicit_target(section, section)
        return section


def copy_figures(app: Sphinx, exception: Exception | None) -> None:
    """The figures the gallery shows, into the built site."""
    if exception is not None or app.builder.format != "html":
        return
    figures = getattr(app.env, "mpisim_gallery", set())
    if not figures:
        return
    target = Path(app.outdir) / FIGURES
    target.mkdir(parents=True, exist_ok=True)
    cache = _cache(app.env)
    for name in sorted(figures):
        if (cache / name).is_file():
            shutil.copyfile(cache / name, target / name)
        else:
            logger.warning(f"mpisim gallery: figure {name} is missing; rebuild with -E")


def merge_figures(app: Sphinx, env: Any, docnames: Any, other: Any) -> None:
    env.mpisim_gallery = getattr(env, "mpisim_gallery", set()) | getattr(
        other, "mpisim_gallery", set())


# -- exit codes, the JSON, the citation ---------------------------------------------------------
EXIT_MEANINGS = {
    "EXIT_OK": "completed (`check`: safe; `check --races`: race-free)",
    "EXIT_USAGE": "invalid input or usage: a bad file, key, value or option",
    "EXIT_DEADLOCK": "deadlock (`check`: not safe)",
    "EXIT_ERROR": "an MPI error ended the run, for example a buffer overflow "
                  "(`check`: cannot judge)",
    "EXIT_TIMEOUT": "timeout: the run reached `until`, `max_events` or `--timeout`",
    "EXIT_DISAGREES": "the run disagrees with the scenario's `expect:` (`run --strict`; "
                      "then 0 means it agrees, even for a scenario meant to deadlock)",
    "EXIT_UNRECEIVED": "it completed, but some messages were never received "
                       "(`run --strict`; erroneous, MPI 4.1 §11.2.2)",
    "EXIT_FINDINGS": "the run has correctness findings (`--strict` of `run`, `check`, "
                     "`mpi4py`), or `check --races` found a message race",
}
SIGNALS = [(130, "interrupted by Ctrl-C (SIGINT): one line, nothing written"),
           (143, "stopped by SIGTERM: one line, nothing written")]


class ExitCodesDirective(SphinxDirective):
    """The exit codes of ``mpisim``, from ``mpisim.cli.common``."""

    def run(self) -> list[nodes.Node]:
        from mpisim.cli import common

        codes = {name: getattr(common, name) for name in dir(common)
                 if name.startswith("EXIT_") and isinstance(getattr(common, name), int)}
        unknown = sorted(set(codes) - set(EXIT_MEANINGS))
        if unknown:
            raise self.error(f"exit codes without a meaning in docs/_ext/mpisim_site.py: "
                             f"{', '.join(unknown)}")
        rows = sorted((code, EXIT_MEANINGS[name]) for name, code in codes.items())
        lines = [".. list-table::", "   :header-rows: 1", "   :widths: 1 9", "",
                 "   * - code", "     - meaning"]
        for code, meaning in [*rows, *SIGNALS]:
            lines += [f"   * - {code}", f"     - {meaning.replace('`', '``')}"]
        return parse_rst(self, lines)


class JsonExampleDirective(SphinxDirective):
    """The result JSON of the shipped scenario named, as ``mpisim run --json`` prints it."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import mpisim as ms

        path = ROOT / self.arguments[0]
        self.env.note_dependency(str(path))
        text = json.dumps(json.loads(ms.load_scenario(path).run().to_json()), indent=2)
        block = nodes.literal_block(text, text, language="json")
        return [block]


def bibtex(cff: dict[str, Any]) -> str:
    """A BibTeX ``@software`` entry of a CITATION.cff."""
    authors = " and ".join(
        a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}"
        for a in cff.get("authors", []))
    fields = {"title": cff.get("title"), "author": f"{{{authors}}}",
              "version": cff.get("version"), "url": cff.get("repository-code"),
              "license": cff.get("license")}
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields.items() if value)
    return f"@software{{mpisim,\n{body}\n}}"


class BibtexDirective(SphinxDirective):
    """CITATION.cff as BibTeX."""

    def run(self) -> list[nodes.Node]:
        path = ROOT / "CITATION.cff"
        self.env.note_dependency(str(path))
        text = bibtex(yaml.safe_load(path.read_text(encoding="utf-8")))
        return [nodes.literal_block(text, text, language="bibtex")]


class NotebookDownloadsDirective(SphinxDirective):
    """A download link to each notebook of ``notebooks/`` (the original, not the copy the
    build runs)."""

    def run(self) -> list[nodes.Node]:
        up = "../" * (self.env.docname.count("/") + 1)
        lines = [f"- :download:`{p.name} <{up}notebooks/{p.name}>`"
                 for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
        return parse_rst(self, lines)


ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")


RULE = re.compile(r"^=+( +=+)+ *$")


def _tables_as_literals(lines: list[str]) -> list[str]:
    """A docstring's simple tables shown as they are written (a literal block): a table
    written for ``help()`` need not be valid reStructuredText."""
    out: list[str] = []
    rows = 0  # lines of the table being copied (0: outside a table)
    for n, line in enumerate(lines):
        if RULE.match(line) and not rows:
            out += ["::", ""]
        if rows or RULE.match(line):
            out.append("   " + line)
            rows += 1
            following = lines[n + 1] if n + 1 < len(lines) else ""
            if RULE.match(line) and rows > 1 and not following.strip():
                rows = 0
                out.append("")
        else:
            out.append(line)
    return out


class ModuleDocsDirective(SphinxDirective):
    """The docstrings of the modules named, a section each titled by its first line: the
    scenario language as the reader itself states it. Cross-references become literals
    (they name modules that are not part of the API reference)."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        import importlib
        import inspect

        lines: list[str] = []
        for name in self.arguments[0].split():
            module = importlib.import_module(name)
            self.env.note_dependency(module.__file__)
            title, _, body = (inspect.getdoc(module) or name).partition("\n")
            title = title.strip().rstrip(".")
            text = _tables_as_literals(ROLE.sub(r"``\1``", body).splitlines())
            lines += [title, "-" * len(title), "", *text, ""]
        node = nodes.section()
        node.document = self.state.document
        from sphinx.util.nodes import nested_parse_with_titles

        nested_parse_with_titles(self.state, StringList(lines, self.get_source_info()[0]), node)
        return node.children


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("mpisim-gallery", GalleryDirective)
    app.add_directive("mpisim-exit-codes", ExitCodesDirective)
    app.add_directive("mpisim-json-example", JsonExampleDirective)
    app.add_directive("mpisim-bibtex", BibtexDirective)
    app.add_directive("mpisim-notebook-downloads", NotebookDownloadsDirective)
    app.add_directive("mpisim-module-docs", ModuleDocsDirective)
    app.connect("env-merge-info", merge_figures)
    app.connect("build-finished", copy_figures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
