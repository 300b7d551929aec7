"""CITATION.cff, which the documentation's "How to cite" shows, names this release."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

import mpisim

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


def test_the_citation_names_this_version_and_the_repository() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == mpisim.__version__, "CITATION.cff's version is not mpisim's"
    assert cff["repository-code"] == "https://github.com/mpisim/mpisim"
    assert cff["title"] and cff["authors"]
    license = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    named = license if isinstance(license, str) else license.get("text")
    assert cff["license"] == named, (cff["license"], license)
