"""Rich display in Jupyter: the HTML of results, deadlocks, sweeps and what-if answers.

The objects' ``_repr_html_`` methods call these functions (looked up at call time, so
``import mpisim`` never imports matplotlib). Decisions, so that the output reads the same
in JupyterLab's light and dark themes and in a static render (GitHub, nbviewer):

- every block is a card that sets its own text *and* background colours (dark ink on a
  light card); nothing inherits the page's background, and every pair of colours used
  has a contrast ratio of at least 4.5:1 (WCAG AA), checked by the tests;
- inline ``style`` attributes only: no ``<style>`` sheet, no classes, no script, which
  sanitizers strip;
- figures are embedded: PNG thumbnails as ``data:`` URIs, the wait-for graph as inline SVG
  (text kept as text), each on a white ground of its own;
- tables are capped (``MAX_ROWS``); the full text report stays one click away in a
  ``<details>`` element.

The outcome colours follow the sweep maps': completed green, deadlock red, overflow
(MPI_ERR_BUFFER) orange, another error amber, timeout grey.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..mpi.causes import advice
from ..values.units import format_size, format_time

__all__ = ["BADGE_COLORS", "CELL_COLORS", "INK", "PAPER", "category", "deadlock_html",
           "figure_png", "figure_svg", "min_buffer_html", "min_buffer_table_html",
           "profiles_html", "result_html", "safety_html", "sweep_html", "waitfor_svg"]

INK, PAPER, MUTED, RULE, HEAD = "#1b1b1b", "#ffffff", "#4d4d4d", "#9a9a9a", "#e9edf2"
BADGE_COLORS: dict[str, tuple[str, str]] = {  # (text, background)
    "completed": ("#ffffff", "#1a7f37"), "deadlock": ("#ffffff", "#b42318"),
    "overflow": ("#ffffff", "#a63f00"), "error": ("#ffffff", "#7a4f00"),
    "timeout": ("#ffffff", "#595959"), "safe": ("#ffffff", "#1a7f37"),
    "not safe": ("#ffffff", "#b42318")}
CELL_COLORS: dict[str, tuple[str, str]] = {
    "completed": ("#0f3d1c", "#d3f0dc"), "deadlock": ("#5f1010", "#fbd9d6"),
    "overflow": ("#5a2600", "#fde3cc"), "error": ("#4d3800", "#fff1c2"),
    "timeout": ("#2b2b2b", "#e6e6e6")}
MAX_ROWS = 16
SWEEP_ROWS = 60
THUMB_DPI = 64
THUMB_RANKS = 3

_CARD = (f"color:{INK};background:{PAPER};border:1px solid {RULE};border-radius:6px;"
         "padding:8px 12px;margin:4px 0;font-family:system-ui,-apple-system,'Segoe UI',"
         "sans-serif;font-size:13px;line-height:1.45;max-width:980px")
_TD = f"color:{INK};background:{PAPER};padding:2px 8px;border-bottom:1px solid {HEAD}"
_TH = f"color:{INK};background:{HEAD};padding:3px 8px;text-align:left;font-weight:600"
_SMALL = f"color:{MUTED};background:{PAPER};font-size:12px"
_MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


# -- building blocks ---------------------------------------------------------------------
def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def category(outcome: str, error_class: str | None = None) -> str:
    """The colour class of a run: an error of class MPI_ERR_BUFFER is an overflow."""
    return "overflow" if outcome == "error" and error_class == "MPI_ERR_BUFFER" else outcome


def badge(word: str, kind: str) -> str:
    fg, bg = BADGE_COLORS.get(kind, (PAPER, MUTED))
    return (f'<span style="color:{fg};background:{bg};border-radius:4px;padding:1px 8px;'
            f'font-weight:700;letter-spacing:0.03em">{_e(word)}</span>')


def card(*parts: str) -> str:
    return f'<div style="{_CARD}">' + "".join(parts) + "</div>"


def para(text_html: str, style: str = "") -> str:
    return f'<div style="color:{INK};background:{PAPER};margin:4px 0;{style}">{text_html}</div>'


def small(text: str) -> str:
    return f'<div style="{_SMALL};margin:4px 0">{_e(text)}</div>'


def table(header: Sequence[str], rows: Iterable[Sequence[Any]],
          styles: Iterable[Sequence[str | None]] | None = None, right: set[int] | None = None
          ) -> str:
    """A table; ``styles[i][j]`` overrides the (text, background) style of a cell."""
    right = right or set()
    head = "".join(f'<th style="{_TH}{";text-align:right" if j in right else ""}">{_e(h)}</th>'
                   for j, h in enumerate(header))
    body = []
    styles = list(styles) if styles is not None else None
    for i, row in enumerate(rows):
        cells = []
        for j, value in enumerate(row):
            extra = styles[i][j] if styles is not None and styles[i][j] else ""
            align = ";text-align:right" if j in right else ""
            cells.append(f'<td style="{_TD}{align};{extra}">{_e(value)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ('<table style="border-collapse:collapse;margin:6px 0;font-size:12.5px">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def cell_style(kind: str) -> str:
    fg, bg = CELL_COLORS.get(kind, (INK, PAPER))
    return f"color:{fg};background:{bg};font-weight:600"


def details(summary: str, text: str) -> str:
    return (f'<details style="color:{INK};background:{PAPER};margin:4px 0">'
            f'<summary style="color:{MUTED};background:{PAPER};cursor:pointer">{_e(summary)}'
            f'</summary><pre style="color:{INK};background:{PAPER};{_MONO};font-size:12px;'
            f'white-space:pre-wrap;margin:4px 0">{_e(text)}</pre></details>')


def figure_png(fig: Any, dpi: int = THUMB_DPI) -> bytes:
    """The Figure as PNG bytes, on a white ground (readable on any page background)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()


def figure_svg(fig: Any) -> str:
    """The Figure as an ``<svg>`` element (no XML prolog), text kept as text."""
    from matplotlib import rc_context

    buf = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "mpisim"}):
        fig.savefig(buf, format="svg", facecolor="white", metadata={"Date": None})
    text = buf.getvalue()
    # matplotlib's <style> would style the whole page once inline: dropped (cosmetic only)
    return re.sub(r"<style[^>]*>.*?</style>", "", text[text.index("<svg"):], flags=re.S)


def _img(png: bytes, alt: str, width: int = 640) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}" '
            f'style="max-width:{width}px;width:100%;height:auto;background:#ffffff;'
            f'border:1px solid {HEAD};margin:6px 0;display:block">')


def _figure_block(make: Any, alt: str, width: int = 640) -> str:
    """A thumbnail of ``make()``; a figure that cannot be drawn is named, not fatal."""
    try:
        return _img(figure_png(make()), alt, width)
    except Exception as e:  # a display must never raise: say what failed instead
        return small(f"({alt} not drawn: {type(e).__name__}: {e})")


def _size(n: int | None) -> str:
    return "-" if n is None else format_size(n).split(" (")[0]


# -- a run ---------------------------------------------------------------------------------
def result_html(result: Any, figure: bool = True) -> str:
    """A Result: outcome badge, the cause, settings, buffer peaks, one figure (unless
    ``figure`` is false: the explorer draws its own), the text report."""
    err = result.error
    kind = category(result.outcome.value, err.error_class if err is not None else None)
    m = result.messages
    head = para(f"{badge(result.outcome.value.upper(), kind)} <b>{_e(result.scenario)}</b> "
                f"at t = {_e(format_time(result.sim_time))} · {len(result.ranks)} ranks · "
                f"{m['sent']} messages sent, {m['received']} received, "
                f"{_e(_size(m['bytes']))}")
    parts = [head, _cause_html(result)]
    parts += [para("warning: " + _e(w), cell_style("error")) for w in result.warnings[:8]]
    if result.unreceived:
        parts.append(small(f"{len(result.unreceived)} message(s) never received, first: "
                           + _unreceived(result.unreceived[0])))
    parts.append(_peaks_html(result))
    if result.settings:
        from .text import settings_text

        parts.append(small("settings in force: " + settings_text(result.settings)))
    if figure:
        parts.append(_result_figure(result))
    parts.append(details("full report (text)", result.report()))
    return card(*parts)


def _cause_html(result: Any) -> str:
    if result.deadlock is not None:
        return _deadlock_body(result.deadlock, graph=True)
    err = result.error
    if err is not None:
        where = f" at {err.where}" if err.where else ""
        call = err.call or "the program"
        text = (f"rank {err.rank}, {_e(call)}{_e(where)}, t = {_e(format_time(err.time))}: "
                f"<b>{_e(err.error_class)}</b>: {_e(err.message)}")
        out = para(text, cell_style(category("error", err.error_class)) + ";padding:4px 6px")
        if err.error_class == "MPI_ERR_BUFFER":
            out += small("try: attach a larger buffer (min_buffer finds the smallest that "
                         "works), or receive earlier so that entries complete")
        return out
    if result.timeout_reason:
        return para("stopped: " + _e(result.timeout_reason), cell_style("timeout"))
    return ""


def _unreceived(u: dict[str, Any]) -> str:
    where = f" at {u['where']}" if u.get("where") else ""
    return (f"rank {u['src']} -> rank {u['dst']}, tag {u['tag']}, {_size(u['bytes'])}: "
            f"{u['call']}{where}")


def _peaks_html(result: Any) -> str:
    """The attached buffers' peaks, failing ranks first (marked *)."""
    failing = set(result.failing_ranks())
    order = [result.ranks[r] for r in result.ranks_in_order()]
    used = [r for r in order if r.buffer.size or r.buffer.bsends or r.buffer.overflows
            or r.buffers]
    if not used:
        return small("no rank attached a buffer or made a buffered send")
    rows, styles = [], []
    for r in used[:MAX_ROWS]:
        for name, b in [("", r.buffer), *sorted(r.buffers.items())]:
            if name and not (b.size or b.bsends):
                continue
            mark = "*" if r.rank in failing else ""
            rows.append([f"{mark}{r.rank}", name or "process", b.size, b.peak_used,
                         b.peak_live, b.peak_entries, b.bsends, b.overflows])
            cells: list[str | None] = [None] * 7
            styles.append([*cells, cell_style("overflow") if b.overflows else None])
    more = f" ({len(used) - MAX_ROWS} more ranks not shown)" if len(used) > MAX_ROWS else ""
    note = " (* failed or blocked; shown first)" if failing & {r.rank for r in used} else ""
    return (para(f"<b>attached buffers</b>, bytes{_e(note + more)}") +
            table(["rank", "buffer", "size", "peak used", "peak live", "entries", "bsends",
                   "overflows"], rows, styles, right={2, 3, 4, 5, 6, 7}))


def _result_figure(result: Any) -> str:
    """Occupancy of at most THUMB_RANKS ranks (failing first), else the timeline."""
    trace = result.trace
    if len(trace.buffer):
        held = set(trace.buffer["rank"].tolist())
        ranks = [r for r in result.ranks_in_order() if r in held]
        note = "" if len(ranks) <= THUMB_RANKS else small(
            f"ranks {', '.join(map(str, ranks[:THUMB_RANKS]))} of the {len(ranks)} with a "
            "buffer drawn; result.plot_occupancy() draws them all")
        return note + _figure_block(
            lambda: result.plot_occupancy(ranks=ranks[:THUMB_RANKS]),
            "attached-buffer occupancy")
    if result.deadlock is None and len(trace.calls):
        return _figure_block(result.plot_timeline, "timeline")
    return ""


# -- a deadlock ----------------------------------------------------------------------------
def deadlock_html(deadlock: Any) -> str:
    """A Deadlock: the blocked calls, whom each waits for, the cycles, the graph drawn."""
    return card(_deadlock_body(deadlock, graph=True))


def _deadlock_body(dl: Any, graph: bool) -> str:
    n = len(dl.blocked)
    what = "a livelock" if dl.livelock else "blocked forever"
    parts = [para(f"<b>{n} rank{'s' if n != 1 else ''} {what}</b>")]
    rows, styles = [], []
    cyc = {r for c in dl.cycles for r in c}
    for b in dl.blocked[:MAX_ROWS]:
        args = [f"peer={b.peer}"] if b.peer is not None else []
        if b.tag is not None:
            args.append(f"tag={'ANY_TAG' if b.tag == -1 else b.tag}")
        if b.bytes:
            args.append(_size(b.bytes))
        joiner = " or " if b.any_of else " and "
        rows.append([b.rank, f"{b.call}({', '.join(args)})", b.where or "",
                     joiner.join(map(str, b.waits_for[:8])) +
                     (" ..." if len(b.waits_for) > 8 else ""), b.reason])
        styles.append([cell_style("deadlock") if b.rank in cyc else None, None, None, None,
                       None])
    parts.append(table(["rank", "blocked in", "where", "waits for", "why"], rows, styles))
    if n > MAX_ROWS:
        parts.append(small(f"... and {n - MAX_ROWS} more blocked ranks"))
    for c in dl.cycles[:5]:
        parts.append(para("cycle: " + _e(" → ".join(str(r) for r in [*c, c[0]])),
                          cell_style("deadlock") + ";display:inline-block;padding:1px 6px;"
                          "margin-right:6px"))
    for k in dl.knots[:3]:
        if len(k) > 2:
            parts.append(small(f"knot: ranks {', '.join(map(str, k))} wait only on one another"))
    for text in advice(b.cause for b in dl.blocked):
        parts.append(small(f"try: {text}"))
    if graph and dl.blocked:
        parts.append(_svg_block(dl))
    return "".join(parts)


def waitfor_svg(deadlock: Any) -> str:
    """The wait-for graph of ``deadlock`` as an ``<svg>`` element."""
    from ..plot.waitfor import plot_waitfor

    return figure_svg(plot_waitfor(deadlock))


def _svg_block(dl: Any) -> str:
    try:
        svg = waitfor_svg(dl)
    except Exception as e:  # a display must never raise
        return small(f"(wait-for graph not drawn: {type(e).__name__}: {e})")
    return (f'<div style="background:#ffffff;max-width:420px;border:1px solid {HEAD};'
            f'margin:6px 0">{svg}</div>')


# -- what-if answers -------------------------------------------------------------------------
def sweep_html(tab: Any) -> str:
    """A SweepTable: counts by outcome, the rows with outcome colours, the outcome map."""
    counts = [(o, tab.count(o)) for o in ("completed", "deadlock", "error", "timeout")]
    overflow = int((tab.array["error_class"] == "MPI_ERR_BUFFER").sum()) if len(tab) else 0
    summary = " ".join(badge(f"{n} {o}", o) for o, n in counts if n and o != "error")
    if counts[2][1]:
        summary += " " + (badge(f"{overflow} overflow", "overflow") if overflow else "")
        if counts[2][1] - overflow:
            summary += " " + badge(f"{counts[2][1] - overflow} error", "error")
    took = "" if tab.wall_time is None else f" in {tab.wall_time:.3g} s of wall time"
    head = para(f"<b>{_e(tab.scenario or 'sweep')}</b>: {len(tab)} runs over "
                f"{_e(', '.join(tab.keys))}{_e(took)} {summary}")
    rows = tab.rows()
    shown = rows if len(rows) <= SWEEP_ROWS else \
        rows[:SWEEP_ROWS // 2] + rows[-(SWEEP_ROWS // 2):]
    cols = tab.shown_columns()  # (values as written: 2 KiB; no column all zero)
    cells, styles = [], []
    for row in shown:
        kind = category(row["outcome"], row["error_class"])
        cells.append([tab.cell_text(k, row[k]) for k in cols])
        styles.append([cell_style(kind) if k == "outcome" else None for k in cols])
    right = {j for j, k in enumerate(cols) if k not in ("outcome", "error_class")
             and not isinstance(shown[0][k] if shown else 0, str)}
    parts = [head, table(cols, cells, styles, right)]
    if len(rows) > len(shown):
        parts.append(small(f"{len(rows) - len(shown)} rows not shown (the first and the last "
                           f"{SWEEP_ROWS // 2}); .array holds them all"))
    if len(tab.keys) >= 1 and len(tab) >= 2:
        from ..plot import plot_sweep

        parts.append(_figure_block(lambda: plot_sweep(tab), "outcome map"))
    return card(*parts)


def _verdict_row(label: str, probe: Any) -> list[Any]:
    detail = probe.detail.split("; entries:")[0]
    return [label, probe.outcome if probe.ok else f"{probe.outcome}", detail]


def min_buffer_html(found: Any) -> str:
    """A MinBuffer: the answer, verified at it and the byte below, bounds, non-monotonic
    ranges."""
    who = "every rank" if found.rank is None else f"rank {found.rank}"
    if found.min_buffer is None:
        kind = category(found.never_outcome or "error", "MPI_ERR_BUFFER"
                        if "overflow" in (found.never or "") else None)
        return card(para(f"{badge('NO SIZE WORKS', kind)} <b>{_e(found.scenario)}</b>: "
                         f"{_e(found.never)}"), small("searched: " + found.searched),
                    details("full report (text)", found.report()))
    answer = para(f"{badge('MIN BUFFER', 'completed')} <b>{_e(found.scenario)}</b>: "
                  f'<span style="font-size:16px;font-weight:700">{found.min_buffer} B</span> '
                  f"({_e(_size(found.min_buffer))}) for {_e(who)}")
    rows, styles = [], []
    for label, probe in (("as written", found.as_written), (str(found.min_buffer),
                                                            found.at_answer),
                         (str(found.min_buffer - 1), found.below)):
        if probe is None or (label == "as written" and not found.sites and probe.ok):
            continue
        rows.append(_verdict_row(label, probe))
        kind = "completed" if probe.ok else category(
            probe.outcome, "MPI_ERR_BUFFER" if probe.overflow else None)
        styles.append([None, cell_style(kind), None])
    parts = [answer, small("searched: " + found.searched),
             table(["size (B)", "outcome", "detail"], rows, styles)]
    facts = [["lower bound (peak live bytes, unbounded run)", f"{found.lower_bound} B"]]
    if found.holds_all is not None:
        facts.append(["every entry of the run fits at once from", f"{found.holds_all} B"])
    if found.upper:
        facts.append(["searched up to", f"{found.upper} B" +
                      (" (every size tried)" if found.exhaustive else
                       " (sampled, edges exact)")])
    parts.append(table(["", "bytes"], facts, right={1}))
    if found.gap:
        parts.append(para(_e(found.gap), cell_style("error") + ";padding:2px 6px"))
    if found.non_monotonic:
        ranges = ", ".join(f"{a}..{b}" for a, b in found.non_monotonic)
        parts.append(para(f"<b>not monotonic</b>: these larger sizes overflow again: "
                          f"{_e(ranges)} B", cell_style("overflow") + ";padding:2px 6px"))
    parts += [small("note: " + n) for n in found.notes]
    parts.append(small(f"{found.runs} runs in {found.wall_time:.2f} s"))
    parts.append(details("full report (text)", found.report()))
    return card(*parts)


def min_buffer_table_html(tab: Any) -> str:
    """A MinBufferTable: one row per rank that buffers."""
    if tab.never is not None:
        return min_buffer_html(tab.never)
    rows, styles = [], []
    for a in tab.answers:
        below = a.below.outcome if a.below is not None else "-"
        ranges = ", ".join(f"{x}..{y}" for x, y in a.non_monotonic) or "-"
        rows.append([a.rank, "-" if a.min_buffer is None else a.min_buffer, a.lower_bound,
                     below, ranges])
        styles.append([None, cell_style("completed" if a.min_buffer is not None
                                        else "error"), None, None,
                       cell_style("overflow") if a.non_monotonic else None])
    parts = [para(f"<b>{_e(tab.scenario)}</b>: min buffer per rank (each with the other "
                  "ranks unbounded)"),
             table(["rank", "min buffer (B)", "peak live (B)", "at the byte below",
                    "overflows again at (B)"], rows, styles, right={1, 2})]
    if tab.skipped:
        parts.append(small("ranks with no bsend and no attach: "
                           + ", ".join(map(str, tab.skipped[:16]))))
    parts.append(small(f"{sum(a.runs for a in tab.answers)} runs in {tab.wall_time:.2f} s"))
    return card(*parts)


def safety_html(safety: Any) -> str:
    """A Safety verdict: SAFE / NOT SAFE, the rule, both runs, why, the wait-for graph."""
    word = "SAFE" if safety.safe else "NOT SAFE"
    if safety.buffered:
        rule = ("with its attached buffers: bsends buffered, every other send synchronous")
        changed = "every non-buffered send synchronous"
    else:
        rule = "MPI 3.5: a safe program completes when every send is synchronous"
        changed = "every send synchronous"
    rows, styles = [], []
    for label, r in (("as written", safety.as_written), (changed, safety.synchronous)):
        err = r.error.error_class if r.error is not None else None
        rows.append([label, r.outcome.value, format_time(r.sim_time)])
        styles.append([None, cell_style(category(r.outcome.value, err)), None])
    parts = [para(f"{badge(word, 'safe' if safety.safe else 'not safe')} "
                  f"<b>{_e(safety.as_written.scenario)}</b>"), small(rule),
             table(["run", "outcome", "ended at"], rows, styles)]
    if safety.reason:
        parts.append(para(_e(safety.reason)))
    failed = safety.as_written if safety.as_written.outcome.value != "completed" \
        else safety.synchronous
    if not safety.safe and failed.deadlock is not None and failed.deadlock.blocked:
        parts.append(_svg_block(failed.deadlock))
    parts.append(details("full report (text)", safety.report()))
    return card(*parts)


def profiles_html(comparison: Any) -> str:
    """A ProfileComparison: one row per profile, outcome coloured."""
    rows, styles = [], []
    for profile, r in comparison.results:
        s = {k.split(".", 1)[1]: v["value"] for k, v in r.settings.items()}
        err = r.error.error_class if r.error is not None else None
        limit = s.get("eager_limit")
        shown = comparison.label(profile)
        if profile in getattr(comparison, "notes", {}):  # another release of the recording's
            shown += f" ({comparison.notes[profile]})"
        rows.append([shown, r.outcome.value, format_time(r.sim_time), err or "-",
                     s.get("allocator", "?"), s.get("sizing", "?"),
                     _size(limit) if isinstance(limit, int) else str(limit),
                     max((x.buffer.peak_used for x in r.ranks), default=0)])
        styles.append([None, cell_style(category(r.outcome.value, err))] + [None] * 6)
    return card(para(f"<b>{_e(comparison.scenario)}</b> under {len(rows)} profiles"),
                table(["profile", "outcome", "sim time", "error", "allocator", "sizing",
                       "eager limit", "peak used (B)"], rows, styles, right={7}),
                details("full report (text)", comparison.report()))
