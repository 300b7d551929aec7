"""Rich display in Jupyter (mpisim.report.display): every ``_repr_html_`` is well-formed HTML that
shows the answer's key figures, readable whatever the page's theme.

The HTML is parsed with html.parser and every element must be closed in order. "Readable in
light and dark themes" is checked as rules the display keeps: every colour pair it uses has
a WCAG contrast ratio of at least 4.5, every element that sets a text colour also sets its
background (nothing relies on the page's), and there is no <style>, <script> or class (a
static render, GitHub's, strips them).
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import pytest
from helpers.paths import SCENARIOS
from helpers.programs import exchange, wrap

import mpisim as ms
from mpisim.plot import layout_at
from mpisim.plot.waitfor import CYCLE_COLOR
from mpisim.report import display
from mpisim.scenario import load

VOID = {"img", "br", "hr", "meta", "input", "col", "area", "base", "link", "source", "wbr"}
RENDEZVOUS = ms.Network(latency="1us", bandwidth="10 GB/s", eager_limit="1 KiB")


class _Checker(HTMLParser):
    """Collects tags, styles and image sources; records any tag closed out of order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tags: list[str] = []
        self.styles: list[str] = []
        self.attrs: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self.rows: list[list[str]] = []  # table rows, cell texts

    def handle_starttag(self, tag, attrs):
        self._seen(tag, attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self.rows[-1].append("")
        if tag not in VOID:
            self.stack.append(tag)
            self.text.append(" ")

    def handle_startendtag(self, tag, attrs):
        self._seen(tag, attrs)

    def _seen(self, tag, attrs):
        self.tags.append(tag)
        d = dict(attrs)
        self.attrs.append(d)
        if d.get("style"):
            self.styles.append(d["style"])

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        if self.rows and self.rows[-1] and ("td" in self.stack or "th" in self.stack):
            self.rows[-1][-1] += data


def parse(html: str) -> _Checker:
    """Parse ``html``; fail unless every element is closed, in order."""
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert not checker.problems, checker.problems[:5]
    assert not checker.stack, f"unclosed: {checker.stack}"
    return checker


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", "".join(parse(html).text))


def pngs(checker: _Checker) -> list[bytes]:
    out = []
    for a in checker.attrs:
        src = a.get("src") or ""
        if src.startswith("data:image/png;base64,"):
            out.append(base64.b64decode(src.split(",", 1)[1]))
    return out


def assert_theme_safe(html: str) -> None:
    checker = parse(html)
    assert "style" not in checker.tags and "script" not in checker.tags
    assert not [t for t, a in zip(checker.tags, checker.attrs, strict=True)
                if "class" in a and t not in _SVG_TAGS]
    for style in checker.styles:
        if re.search(r"(^|;)\s*color:", style):
            assert "background" in style, style


_SVG_TAGS = {"svg", "g", "path", "defs", "use", "text", "clippath", "rect", "style",
             "tspan", "metadata", "title", "desc"}


# -- the rule of colours ---------------------------------------------------------------------
def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(fg: str, bg: str) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_colour_pair_meets_wcag_aa():
    pairs = [*display.BADGE_COLORS.values(), *display.CELL_COLORS.values(),
             (display.INK, display.PAPER), (display.MUTED, display.PAPER),
             (display.INK, display.HEAD)]
    for fg, bg in pairs:
        assert contrast(fg, bg) >= 4.5, (fg, bg, contrast(fg, bg))


# -- Result ----------------------------------------------------------------------------------
def test_completed_result_shows_badge_peaks_and_occupancy_thumbnail():
    """3.6.1: Example 3.10 with Bsend; each rank's peak used is one entry (pack_size +
    MPI_BSEND_OVERHEAD), shown in the peaks table beside the outcome."""
    result = load(SCENARIOS / "example-3.10-bsend.yaml").run()
    html = result._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert "COMPLETED" in text and "example-3.10-bsend" in text
    entry = 2000 * ms.REAL.size + 96
    assert [r.buffer.peak_used for r in result.ranks] == [entry, entry]
    row = re.search(r"0 process (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)", text)
    assert row and int(row.group(2)) == entry and int(row.group(5)) == 1
    images = pngs(parse(html))
    assert len(images) == 1 and images[0].startswith(b"\x89PNG\r\n\x1a\n")


def test_deadlocked_result_shows_cause_and_wait_for_graph_with_the_cycle_in_red():
    """3.5, Example 3.10 with standard sends above the eager limit: the cycle 0 -> 1 -> 0."""
    result = load(SCENARIOS / "example-3.10-send.yaml").run()
    html = result._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert "DEADLOCK" in text and "cycle: 0 → 1 → 0" in text
    blocked = [row for row in parse(html).rows if row[1].startswith("MPI_Send(")]
    assert [(row[0], row[3]) for row in blocked] == [("0", "1"), ("1", "0")]
    assert all("rendezvous" in row[4] for row in blocked)
    svg = html[html.index("<svg"):html.index("</svg>")]
    assert CYCLE_COLOR.lower() in svg.lower()
    assert "Send" in svg  # the node labels stay text (svg.fonttype none)
    assert repr(result).count("\n") == 0 and "deadlock" in repr(result)


def test_overflow_result_names_the_error_and_counts_the_overflow():
    """3.5 advice to users: not enough buffer space is an overflow error (MPI_ERR_BUFFER)."""
    result = load(SCENARIOS / "example-3.10-bsend-too-small.yaml").run()
    html = result._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert "ERROR" in text and "MPI_ERR_BUFFER" in text and "MPI_Bsend" in text
    overflowed = [r.rank for r in result.ranks if r.buffer.overflows]
    assert overflowed and f"*{overflowed[0]} process" in text
    assert display.CELL_COLORS["overflow"][1] in html


def test_many_ranks_table_is_capped_and_the_run_without_buffers_shows_its_timeline():
    def ring(mpi):
        yield mpi.send(count=8, dest=(mpi.rank + 1) % mpi.size)
        yield mpi.recv(count=8, source=(mpi.rank - 1) % mpi.size)

    result = ms.run(ring, ranks=40)
    html = result._repr_html_()
    assert_theme_safe(html)
    assert "no rank attached a buffer" in text_of(html)
    assert len(pngs(parse(html))) == 1  # the timeline instead of an empty occupancy


def test_deadlock_object_has_its_own_display():
    result = load(SCENARIOS / "example-3.10-ssend.yaml").run()
    html = result.deadlock._repr_html_()
    assert_theme_safe(html)
    assert "2 ranks blocked forever" in text_of(html) and "<svg" in html
    assert repr(result.deadlock) == "<Deadlock: 2 ranks blocked, cycle 0 -> 1 -> 0>"


# -- what-if answers -------------------------------------------------------------------------
def test_sweep_table_colours_each_outcome_cell_and_draws_the_map():
    """3.5: the exchange deadlocks exactly where 4 * count bytes exceed the eager limit."""
    table = ms.sweep(exchange, {"count": [250, 2000], "network.eager_limit": ["1 KiB",
                                                                             "16 KiB"]},
                     ranks=2, jobs=1, progress=False)
    html = table._repr_html_()
    assert_theme_safe(html)
    checker = parse(html)
    cells = [(a.get("style") or "", t) for a, t in zip(checker.attrs, checker.tags,
                                                       strict=True) if t == "td"]
    styled = [s for s, _ in cells if display.CELL_COLORS["deadlock"][1] in s]
    assert len(styled) == table.count("deadlock") == 1
    assert len([s for s, _ in cells if display.CELL_COLORS["completed"][1] in s]) == 3
    assert "1 deadlock" in text_of(html) and "3 completed" in text_of(html)
    assert len(pngs(checker)) == 1


def test_min_buffer_answer_shows_the_size_its_verdicts_and_non_monotonic_ranges():
    """3.6.1: a larger circular buffer can overflow where a smaller one did not."""
    found = ms.min_buffer(wrap, ranks=2, network={"eager_limit": 0})
    assert found.min_buffer == 1800 and found.non_monotonic == [[2200, 2399]]
    html = found._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert "1800 B" in text and "2200..2399" in text
    verdicts = {row[0]: row[1] for row in parse(html).rows if len(row) == 3}
    assert verdicts["1800"] == "completed" and verdicts["1799"] == "error"
    assert verdicts["as written"] == "error"  # no attach at all: the first bsend overflows
    assert repr(found) == "<MinBuffer wrap: 1800 B for every rank, overflows again at 1 " \
                          "ranges>"
    per_rank = ms.min_buffer_per_rank(wrap, ranks=2, network={"eager_limit": 0})
    text = text_of(per_rank._repr_html_())
    assert "1800" in text and "2200..2399" in text


def test_min_buffer_without_an_answer_says_why():
    found = ms.min_buffer(load(SCENARIOS / "example-3.10-ssend.yaml"))
    assert found.min_buffer is None
    text = text_of(found._repr_html_())
    assert "NO SIZE WORKS" in text and "deadlock" in text


def test_safety_verdicts():
    """3.5: Example 3.10 is not safe (its synchronous form deadlocks; the graph shows the
    cycle); with Bsend and its buffer it is safe in the buffered sense."""
    unsafe = ms.check_safe(exchange, ranks=2)
    html = unsafe._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert "NOT SAFE" in text and "MPI 3.5" in text and "<svg" in html
    assert re.search(r"as written completed .* synchronous deadlock", text)
    safe = ms.check_safe(load(SCENARIOS / "example-3.10-bsend.yaml"), buffered=True)
    text = text_of(safe._repr_html_())
    assert text.lstrip().startswith("SAFE") and "<svg" not in safe._repr_html_()
    assert repr(unsafe) == ("<Safety exchange: not safe (as written completed, synchronous "
                            "deadlock)>")


def test_profile_comparison_table():
    comparison = ms.compare_profiles(SCENARIOS / "circular-head-of-line.yaml")
    html = comparison._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    for profile, result in comparison.results:  # a short name with its release
        assert f"{comparison.label(profile)} {result.outcome.value}" in text
    assert "mpich (MPICH 4.0) " in text


def test_buffer_layout_is_a_png():
    result = load(SCENARIOS / "circular-head-of-line.yaml").run()
    png = layout_at(result, 0, result.error.time)._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("*.yaml")))
def test_every_shipped_scenario_displays(name):
    result = load(SCENARIOS / name).run()
    html = result._repr_html_()
    assert_theme_safe(html)
    text = text_of(html)
    assert result.outcome.value.upper() in text
    assert "not drawn" not in text
