"""The documentation site builds and its pages render in a real browser.

The site is built with Sphinx (warnings are errors, every cross-reference checked), or
taken from ``MPISIM_DOCS_BUILD`` (a built ``html`` folder, as CI passes after its own
build), and opened in headless Chromium. A stranger must find there, rendered with every
figure loaded: the front page, the installation page (the Python version, Linux for
recording, every extra of pyproject.toml), the first tutorial, the gallery with a figure
for each shipped scenario and script, the tutorials (one page per notebook in
``notebooks/``), the CLI reference (every command), the reference of ``mpisim.run`` with
each parameter described, the changelog (CHANGES.md), the glossary's terms, how to cite
(CITATION.cff), and on every page the source and the issue tracker. Reports wrap instead
of scrolling sideways.
Nothing is fetched from the network: the browser is the system's (``/usr/bin/chromium``),
never downloaded, and requests that leave the site are refused.

Skips without Sphinx (when it has to build), without the playwright package, or without
Chromium. ``MPISIM_DOCS_SCREENSHOTS=DIR`` also saves a screenshot of each page there.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

# the repository: the folder above this file that holds pyproject.toml, wherever tests/ puts it
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
SHIPPED = sorted([*(ROOT / "scenarios").glob("*.yaml"), *(ROOT / "scenarios").glob("*.py"),
                  *(ROOT / "scenarios" / "mpi4py").glob("*.py")])
REPOSITORY = "https://github.com/mpisim/mpisim"
GLOSSARY = ("cell", "eager", "rendezvous", "entry", "live bytes", "used bytes", "wrap gap",
            "profile")

# Every image of the page, made to load now, then whether each one decoded.
IMAGES_JS = """async () => {
    const images = Array.from(document.querySelectorAll("article img"));
    images.forEach((img) => { img.loading = "eager"; });
    return Promise.all(images.map((img) => img.decode().then(
        () => ({src: img.currentSrc || img.src, width: img.naturalWidth}),
        () => ({src: img.currentSrc || img.src, width: 0}))));
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: ``MPISIM_DOCS_BUILD``, else a fresh build."""
    given = os.environ.get("MPISIM_DOCS_BUILD")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"MPISIM_DOCS_BUILD={given}: no index.html"
        return html
    if any(importlib.util.find_spec(name) is None for name in ("sphinx", "myst_nb", "sphinxarg")):
        pytest.skip('the docs extra is not installed (pip install -e ".[docs]")')
    out = tmp_path_factory.mktemp("docs")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")],
        cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, f"sphinx-build failed:\n{build.stdout}\n{build.stderr}"
    return out / "html"


@pytest.fixture(scope="module")
def page(site: Path) -> Any:
    """A page of headless Chromium that stays on this machine."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip('playwright is not installed (pip install -e ".[docs]")')
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 900})
        tab.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith("file:") else route.abort())
        yield tab
        browser.close()


# Each section of the page with an h3 title: the title, its text and its images' widths.
SECTIONS_JS = """() => Array.from(document.querySelectorAll("article section > h3")).map(
    (h) => ({title: h.innerText, text: h.parentElement.innerText,
             images: Array.from(h.parentElement.querySelectorAll("img")).map(
                 (i) => i.naturalWidth)}))"""


def _title(heading: str) -> str:
    """A heading's text without its permalink sign."""
    return heading.strip().rstrip("#¶").strip()


def _open(page: Any, site: Path, name: str) -> list[dict[str, Any]]:
    """Open ``name`` (a page of the site) and return its images, each loaded or not."""
    path = site / name
    assert path.is_file(), f"{name} was not built"
    page.goto(path.as_uri(), wait_until="load")
    assert page.locator("article h1").first.inner_text().strip(), f"{name}: no title"
    images = page.evaluate(IMAGES_JS)
    shots = os.environ.get("MPISIM_DOCS_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / (name.replace("/", "_") + ".png")),
                        full_page=True)
    broken = [i["src"] for i in images if i["width"] <= 0]
    assert not broken, f"{name}: images that did not load: {broken}"
    return images


def test_the_front_page_renders_with_its_figure(page: Any, site: Path) -> None:
    images = _open(page, site, "index.html")
    assert images, "the front page shows no figure"
    assert "mpisim" in page.locator("article h1").first.inner_text()
    links = page.locator(".sidebar-tree a.reference").all_inner_texts()
    for title in ("Installation", "Your first ten minutes", "Tutorials", "Gallery",
                  "Rank programs in Python", "Python API", "Exit codes", "Glossary",
                  "Changelog", "How to cite", "Development"):
        assert title in links, (title, links)
    captions = page.locator(".sidebar-tree p.caption").all_inner_texts()
    parts = [c.strip().lower() for c in captions]
    for part in ("getting started", "tutorials", "how-to guides", "reference", "explanation",
                 "contributing"):
        assert part in parts, (part, captions)
    toc = [p for p in parts if p != "project"]  # "project": the source and tracker links
    assert toc[-1] == "contributing", f"the contributors' pages are not last: {captions}"


def test_the_installation_page_says_what_a_stranger_needs(page: Any, site: Path) -> None:
    _open(page, site, "getting-started/installation.html")
    text = page.locator("article").inner_text()
    python = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert f"Python {python.removeprefix('>=')}" in text, python
    assert "Linux" in text and "pip install mpisim" in text and "git clone" in text
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    cells = page.locator("article table td:first-child").all_inner_texts()
    assert sorted(extras) == sorted(c.strip() for c in cells), (sorted(extras), cells)


def test_the_first_tutorial_runs_on_the_package_alone(page: Any, site: Path) -> None:
    images = _open(page, site, "getting-started/first-steps.html")
    assert images, "the first tutorial shows no figure"
    outputs = page.locator("article div.cell_output").all_inner_texts()
    assert any("DEADLOCK" in o for o in outputs) and any("MPI_ERR_BUFFER" in o for o in outputs)
    assert not any("Traceback" in o for o in outputs), outputs


def test_reports_wrap_instead_of_scrolling_sideways(page: Any, site: Path) -> None:
    """A report line of 200 characters wraps inside the page's width."""
    _open(page, site, "getting-started/first-steps.html")
    page.set_viewport_size({"width": 800, "height": 900})
    wide = page.evaluate("""() => Array.from(document.querySelectorAll(
        'article div.cell_output pre')).filter(p => p.scrollWidth > p.clientWidth + 2).length""")
    page.set_viewport_size({"width": 1280, "height": 900})
    assert wide == 0, f"{wide} report(s) scroll sideways"


# Reports (plain text: program output, mpisim's reports) that are wider than their box.
WIDE_REPORTS_JS = """() => Array.from(document.querySelectorAll(
    "article div.cell_output pre, article div.highlight-default pre, "
    + "article div.highlight-text pre, article div.highlight-none pre"))
    .filter((p) => p.scrollWidth > p.clientWidth + 2)
    .map((p) => p.innerText.split("\\n")[0].slice(0, 80))"""


def test_no_report_on_the_site_scrolls_sideways(page: Any, site: Path) -> None:
    """Every page's reports wrap: code may scroll, text output may not."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.name.startswith(("genindex", "search", "py-modindex"))
                   and "_modules" not in p.parts)
    wide = {}
    for name in pages:
        page.goto((site / name).as_uri(), wait_until="load")
        found = page.evaluate(WIDE_REPORTS_JS)
        if found:
            wide[name] = found
    assert not wide, f"reports that scroll sideways: {wide}"


def test_the_gallery_shows_every_shipped_scenario_with_a_figure(page: Any, site: Path
                                                                ) -> None:
    _open(page, site, "gallery/index.html")  # every figure loaded, or it fails here
    shown = {_title(e["title"]): e for e in page.evaluate(SECTIONS_JS)}
    for path in SHIPPED:
        entry = shown.get(path.name)
        assert entry is not None, f"the gallery has no section for {path.name}"
        assert path.relative_to(ROOT).as_posix() in entry["text"], f"{path.name}: no path"
        command = (rf"mpisim mpi4py -n \d+ {re.escape(path.name)}" if path.parent.name == "mpi4py"
                   else rf"mpisim run {re.escape(path.stem)} --plot")
        assert re.search(command, entry["text"]), f"{path.name}: no command by name"
        assert entry["images"] and all(w > 0 for w in entry["images"]), (path.name, entry)


def test_the_cli_reference_lists_every_command(page: Any, site: Path) -> None:
    from mpisim.cli.main import COMMANDS

    _open(page, site, "reference/cli.html")
    headings = [_title(h) for h in page.locator("article h3").all_inner_texts()]
    for command in COMMANDS:
        assert command.name in headings, (command.name, headings)


def test_the_scenario_schema_names_every_top_level_key(page: Any, site: Path) -> None:
    from mpisim.scenario.schema import TOP_KEYS

    _open(page, site, "reference/scenario-schema.html")
    text = page.locator("article").inner_text()
    missing = [key for key in TOP_KEYS if key not in text]
    assert not missing, f"the scenario schema does not name {missing}"


def test_the_changelog_is_changes_md(page: Any, site: Path) -> None:
    _open(page, site, "changelog.html")
    first = next(line for line in (ROOT / "CHANGES.md").read_text().splitlines()
                 if line.startswith("## "))
    headings = [_title(h) for h in page.locator("article h2, article h3").all_inner_texts()]
    assert first.removeprefix("## ").strip() in headings, (first, headings)


def test_the_glossary_defines_each_term(page: Any, site: Path) -> None:
    _open(page, site, "glossary.html")
    for term in GLOSSARY:
        entry = page.locator(f'dl.glossary dt[id="term-{term.replace(" ", "-")}"]')
        assert entry.count() == 1, f"the glossary has no term {term!r}"


def test_how_to_cite_shows_the_citation_file(page: Any, site: Path) -> None:
    _open(page, site, "citing.html")
    text = page.locator("article").inner_text()
    assert "cff-version" in text and "@software" in text


@pytest.mark.parametrize("name", ["index.html", "howto/is-it-safe.html", "glossary.html"])
def test_every_page_links_to_the_source_and_the_tracker(page: Any, site: Path, name: str
                                                        ) -> None:
    _open(page, site, name)
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a')).map(a => a.href)")
    assert any(h.rstrip("/") == REPOSITORY for h in hrefs), f"{name}: no link to the source"
    assert f"{REPOSITORY}/issues" in hrefs, f"{name}: no link to the issue tracker"


def test_the_reference_of_mpisim_run_describes_each_parameter(page: Any, site: Path) -> None:
    import mpisim

    _open(page, site, "reference/running.html")
    entry = page.locator('dt[id="mpisim.run"]')
    assert entry.is_visible(), "no entry for mpisim.run"
    signature = entry.inner_text()
    assert "run(" in signature and "program" in signature and "ranks" in signature
    body = page.locator('dt[id="mpisim.run"] + dd')
    assert "Run" in body.inner_text()
    fields = body.locator("dl.field-list").first
    assert "parameters" in fields.inner_text().lower(), "mpisim.run's reference has no Parameters"
    items = fields.locator("dd").first.locator("li").all_inner_texts()
    described = {item.split(" ", 1)[0]: item.partition("–")[2].strip() for item in items}
    for name in inspect.signature(mpisim.run).parameters:
        assert described.get(name), f"mpisim.run's parameter {name!r} is not described"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_notebook_renders_with_its_figures(page: Any, site: Path, notebook: str) -> None:
    images = _open(page, site, f"tutorials/{notebook}.html")
    assert images, f"{notebook}: no figure on its page"
    assert page.locator("article div.cell_output").count(), f"{notebook}: no outputs"
