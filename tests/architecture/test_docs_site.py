"""The documentation site builds and its pages render in a real browser.

The site is built with Sphinx (warnings are errors, every cross-reference checked), or
taken from ``MPISIM_DOCS_BUILD`` (a built ``html`` folder, as CI passes after its own
build), and opened in headless Chromium: the front page, the reference of ``mpisim.run``
and the page of each notebook in ``notebooks/`` must render, with every figure loaded.
Nothing is fetched from the network: the browser is the system's (``/usr/bin/chromium``),
never downloaded, and requests that leave the site are refused.

Skips without Sphinx (when it has to build), without the playwright package, or without
Chromium. ``MPISIM_DOCS_SCREENSHOTS=DIR`` also saves a screenshot of each page there.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
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
    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
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
    for title in ("Rank programs in Python", "Tutorials", "Reference"):
        assert title in links, (title, links)


def test_the_reference_of_mpisim_run_renders(page: Any, site: Path) -> None:
    _open(page, site, "reference/running.html")
    entry = page.locator('dt[id="mpisim.run"]')
    assert entry.is_visible(), "no entry for mpisim.run"
    signature = entry.inner_text()
    assert "run(" in signature and "program" in signature and "ranks" in signature
    assert "Run" in page.locator('dt[id="mpisim.run"] + dd').inner_text()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_notebook_renders_with_its_figures(page: Any, site: Path, notebook: str) -> None:
    images = _open(page, site, f"tutorials/{notebook}.html")
    assert images, f"{notebook}: no figure on its page"
    assert page.locator("article div.cell_output").count(), f"{notebook}: no outputs"
