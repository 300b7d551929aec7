"""The user pages of the documentation read in short paragraphs.

A user page (getting started, how-to guides, the guides by topic, the FAQ, the front page)
keeps each paragraph of prose under a bound, and each how-to guide stays short: one task a
page. Measurements, and how a claim is checked, belong on the explanation and contributor
pages, which are not bound here. Code, tables, lists and headings are not prose paragraphs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DOCS = ROOT / "docs"
MAX_WORDS = 100  # per paragraph of a user page
MAX_HOWTO_WORDS = 400  # per how-to guide, code included
# The pages of guide/ that say what the real libraries do are explanation (measurements).
USER_PAGES = sorted(
    p for p in [*DOCS.glob("getting-started/*.md"), *DOCS.glob("howto/*.md"),
                *DOCS.glob("guide/*.md"), DOCS / "index.md", DOCS / "faq.md"]
    if not p.name.startswith("facts-"))
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s")
NOT_PROSE = ("#", "|", "<!--", "<", "{", "---")


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a Markdown page: no code, tables, lists, headings or
    directives."""
    found: list[str] = []
    current: list[str] = []
    fence = in_list = False

    def end() -> None:
        if current:
            found.append(" ".join(current))
        current.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~", ":::")):
            end()
            fence = not fence
        elif fence:
            continue
        elif not stripped:
            end()
            in_list = False
        elif LIST_ITEM.match(line):
            end()
            in_list = True
        elif in_list and line.startswith((" ", "\t")):
            continue
        elif stripped.startswith(NOT_PROSE) or line.startswith("    "):
            end()
        else:
            in_list = False
            current.append(stripped)
    end()
    return found


def test_the_paragraph_reader_skips_code_lists_and_tables() -> None:
    text = ("One two three.\nFour.\n\n```\ncode code\n```\n\n- a list item\n  more\n\n"
            "| a | table |\n\n# Heading\n\nFive six.")
    assert paragraphs(text) == ["One two three. Four.", "Five six."]


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_user_page_keeps_its_paragraphs_short(page: Path) -> None:
    long = [(len(p.split()), p[:80]) for p in paragraphs(page.read_text(encoding="utf-8"))
            if len(p.split()) > MAX_WORDS]
    assert not long, (f"{page.relative_to(ROOT)}: paragraphs over {MAX_WORDS} words "
                      f"(split them, or move measurements to docs/explanation/): {long}")


@pytest.mark.parametrize("page", sorted(DOCS.glob("howto/*.md")), ids=lambda p: p.stem)
def test_a_how_to_guide_is_one_short_task(page: Path) -> None:
    words = len(page.read_text(encoding="utf-8").split())
    assert words <= MAX_HOWTO_WORDS, f"{page.name}: {words} words (at most {MAX_HOWTO_WORDS})"
