"""An interactive explorer for notebooks: ``ms.explore(scenario)``.

Controls (ipywidgets, the ``notebook`` extra) for the scenario's params and the common
settings — eager limit, attached buffer, allocator, profile, ranks — and on every change
one run, whose report, occupancy and timeline replace the previous ones. ``scenario`` is
what the what-if functions take: a path, a loaded Scenario, or a program function (an
mpi4py ``Script`` too) with ``ranks=`` and other ``mpisim.run`` keywords.

Decisions:

- **Values on ladders.** Sizes and times span decades, so a param's slider offers its value
  times powers of two (whole numbers up to 16 step by one instead); the eager limit and
  the buffer offer powers of two from 256 B, plus the value given. Sliders act on release
  (``continuous_update=False``): one run per choice, not one per pixel.
- **The file stays in force until a control moves.** Only keys whose control differs from
  its first value are passed (so the report's settings still say "file" for the rest).
  Choosing another profile puts the allocator back to the profile's unless the allocator
  was chosen here too, as ``--set mpi.profile=...`` does (the profile models a library,
  allocator included).
- **A run that cannot start** (a rank count the program cannot use, a param it refuses)
  shows the reason in place of the report; the controls stay usable.
- **Figures on demand.** The report (outcome, cause, wait-for graph, buffer peaks) is
  rewritten on every run; the occupancy and the timeline sit in tabs and are drawn for the
  tab in view (matplotlib takes a few hundred ms a figure, the runs of the shipped scenarios
  a few ms), so moving a control feels immediate. Each step is timed on the status line
  (``timings``).

Without ipywidgets, :func:`explore` prints how to install it and returns one run's Result
with the values given, which a notebook displays as usual.
"""

from __future__ import annotations

import html
import inspect
import time
from collections.abc import Callable
from typing import Any

from ..report.display import figure_png, result_html
from ..runs.settings import lookup
from ..values.units import format_size, format_time, parse_size
from .target import Target

__all__ = ["Explorer", "explore"]

INSTALL = ("ms.explore needs ipywidgets: pip install 'mpisim[notebook]' (then restart the "
           "kernel). Showing one run with the values given instead.")
SIZES = [2**k for k in range(8, 25)]  # 256 B .. 16 MiB
UNSET = "(unset)"
"""A control's value for "not given" (widgets cannot select None): the run gets None."""
FIGURE_DPI = 72
TABS = ("report", "occupancy", "timeline")
FIGURE_RANKS = 4


def explore(scenario: Any, **run_kwargs: Any) -> Any:
    """Controls for ``scenario``'s params and settings; each change re-runs it and redraws
    the report, occupancy and timeline. Returns an ``Explorer`` (displayed as its
    widgets), or without ipywidgets a printed note and one Result.

    For notebooks (the ``notebook`` extra: ``pip install 'mpisim[notebook]'``). There is a
    slider for each of the program's parameters and for the eager limit, the attached
    buffer, the allocator, the profile and the number of ranks; the values offered step by
    powers of two around the one given.

    Parameters
    ----------
    scenario
        What to explore: a scenario file's path, a loaded ``mpisim.scenario.Scenario``, a
        rank program function (then ``run_kwargs`` carry ``ranks=``) or an mpi4py
        ``Script``.
    **run_kwargs
        The first values, as :func:`mpisim.run` takes them (``ranks``, ``params``,
        ``network``, ``mpi``, ``buffer``...); with a scenario, they override its settings.

    Returns
    -------
    Explorer or Result
        The explorer: ``controls`` (setting key -> widget), ``result`` (the last run's
        Result), ``runs``. Without ipywidgets: the Result of one run with the values given.

    Examples
    --------
    >>> import mpisim as ms
    >>> def program(mpi, count=100):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.send(count=count, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=0)
    >>> explorer = ms.explore(program, ranks=2)  # in a notebook, displays the controls
    >>> sorted(explorer.controls)
    ['buffer', 'count', 'mpi.allocator', 'mpi.profile', 'network.eager_limit', 'ranks']
    >>> explorer.result.outcome
    <Outcome.COMPLETED: 'completed'>
    >>> explorer.controls["network.eager_limit"].value = 256  # as moving the slider does
    >>> explorer.result.outcome  # 400-byte messages now go rendezvous
    <Outcome.DEADLOCK: 'deadlock'>
    """
    target = Target.of(scenario, run_kwargs)
    try:
        import ipywidgets
    except ImportError:
        print(INSTALL)
        return target.run({})
    return Explorer(target, ipywidgets)


class Explorer:
    """The explorer's widgets and its last run: ``controls`` (key -> widget), ``result``,
    ``error`` (why the last run could not start), ``runs``, ``timings`` (seconds)."""

    def __init__(self, target: Target, widgets: Any) -> None:
        self.target = target
        self.w = widgets
        self.controls: dict[str, Any] = {}
        self.result: Any = None
        self.error: str | None = None
        self.runs = 0
        self.timings: dict[str, float] = {}
        self._quiet = False
        self._moved: set[str] = set()  # the controls the user moved
        self._build_controls()
        self.initial = {k: c.value for k, c in self.controls.items()}
        self.status = widgets.HTML()
        self.report = widgets.HTML()
        image = {"max_width": "900px", "width": "100%"}
        self.occupancy = widgets.Image(format="png", layout=image)
        self.timeline = widgets.Image(format="png", layout=image)
        self._stale: set[str] = set()
        self.tabs = widgets.Tab(children=[self.report, self.occupancy, self.timeline])
        for i, name in enumerate(TABS):
            self.tabs.set_title(i, name)
        grid = widgets.GridBox(list(self.controls.values()), layout=widgets.Layout(
            grid_template_columns="repeat(3, minmax(260px, 1fr))", grid_gap="4px 12px"))
        title = widgets.HTML(f"<b>{html.escape(target.name)}</b>: move a control to run "
                             "again")
        self.widget = widgets.VBox([title, grid, self.status, self.tabs])
        for key, control in self.controls.items():
            control.observe(self._changed(key), names="value")
        self.tabs.observe(lambda change: self._draw_shown(), names="selected_index")
        self.rerun()

    # -- display ---------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        last = "no run" if self.result is None else self.result.outcome.value
        return f"<Explorer {self.target.name}: {self.runs} runs, last {last}>"

    # -- the controls ------------------------------------------------------------------------
    def _build_controls(self) -> None:
        base = self.target.run_kwargs({})
        times = self.target.scenario is not None  # a scenario's float params are times
        for name, value in _params(self.target, base).items():
            control = _param_control(self.w, name, value, times)
            if control is not None:
                self.controls[name] = control
        net, mpi = _given(base.get("network")), _given(base.get("mpi"))
        self.controls["network.eager_limit"] = self._sizes(
            "eager limit", net.get("eager_limit"), "profile's")
        if base.get("buffer") is None or _is_size(base.get("buffer")) or \
                (isinstance(base.get("buffer"), str) and base["buffer"][:1].isdigit()):
            self.controls["buffer"] = self._sizes("buffer (every rank)", base.get("buffer"),
                                                  "none")
        self.controls["mpi.allocator"] = self._choice("allocator", "mpi.allocator",
                                                      mpi.get("allocator"), "profile's")
        self.controls["mpi.profile"] = self._choice("profile", "mpi.profile",
                                                    mpi.get("profile") or "standard", None)
        ranks = int(base.get("ranks") or 1)
        self.controls["ranks"] = self.w.IntSlider(
            value=ranks, min=1, max=max(16, 2 * ranks), description="ranks",
            continuous_update=False, style={"description_width": "110px"})

    def _sizes(self, label: str, value: Any, unset: str) -> Any:
        value = parse_size(value) if isinstance(value, str) else value
        options: list[tuple[str, Any]] = [(unset, UNSET)] if value is None else []
        sizes = sorted(set(SIZES) | ({int(value)} if value is not None else set()))
        options += [(format_size(s).split(" (")[0], s) for s in sizes]
        return self.w.SelectionSlider(options=options, value=UNSET if value is None else value,
                                      description=label,
                                      continuous_update=False,
                                      style={"description_width": "110px"})

    def _choice(self, label: str, key: str, value: Any, unset: str | None) -> Any:
        setting = lookup(key)
        choices = list(setting.choices) if setting is not None else []
        options = ([(unset, UNSET)] if unset is not None else []) + [(c, c) for c in choices]
        if value is not None and value not in choices:
            options.append((str(value), value))
        return self.w.Dropdown(options=options, value=UNSET if value is None else value,
                               description=label,
                               style={"description_width": "110px"})

    def _changed(self, key: str) -> Callable[[Any], None]:
        def on_change(change: Any) -> None:
            if self._quiet:
                return
            self._moved.add(key)
            if key == "mpi.profile":
                allocator = self.controls["mpi.allocator"]
                if "mpi.allocator" not in self._moved and allocator.value != UNSET:
                    self._quiet = True  # one run for both changes
                    try:
                        allocator.value = UNSET
                    finally:
                        self._quiet = False
            self.rerun()
        return on_change

    # -- running -------------------------------------------------------------------------------
    def point(self) -> dict[str, Any]:
        """The keys whose control moved, with their values (what the run is given)."""
        return {k: None if c.value == UNSET else c.value for k, c in self.controls.items()
                if c.value != self.initial[k]}

    def rerun(self) -> Any:
        """Run with the controls' values, rewrite the report and redraw the figure in view
        (the other is drawn when its tab is chosen); returns the Result (None if it could
        not start: ``error`` says why)."""
        start = time.perf_counter()
        self.runs += 1
        self.timings = {"run": 0.0, "report": 0.0, "draw": 0.0}
        try:
            result = self.target.run(self.point())
        except Exception as e:  # a bad combination of values: say why, keep the controls
            self.result, self.error = None, f"{type(e).__name__}: {e}"
            self.timings["run"] = time.perf_counter() - start
            self.report.value = _error_html(self.error)
            self.occupancy.value = self.timeline.value = b""
            self._stale = set()
            self.status.value = self._status()
            return None
        ran = time.perf_counter()
        self.result, self.error = result, None
        self.report.value = result_html(result, figure=False)
        self.timings |= {"run": ran - start, "report": time.perf_counter() - ran}
        self._stale = {"occupancy", "timeline"}
        self._draw_shown()
        return result

    def _draw_shown(self) -> None:
        """Draw the figure of the tab in view if the last run has not been drawn there."""
        name = TABS[self.tabs.selected_index or 0]
        if name in self._stale and self.result is not None:
            start = time.perf_counter()
            result = self.result
            if name == "occupancy":
                ranks = result.ranks_in_order()[:FIGURE_RANKS]
                self.occupancy.value = _png(lambda: result.plot_occupancy(ranks=ranks))
            else:
                self.timeline.value = _png(result.plot_timeline)
            self._stale.discard(name)
            self.timings["draw"] = time.perf_counter() - start
        self.status.value = self._status()

    def _status(self) -> str:
        moved = ", ".join(f"{k}={_shown(v)}" for k, v in self.point().items()) or \
            "the values given"
        t = self.timings
        drawn = f", figure {t['draw'] * 1e3:.0f} ms" if t.get("draw") else ""
        return (f'<span style="color:#4d4d4d;background:#ffffff;padding:0 4px">run '
                f"{self.runs} with {html.escape(moved)}: simulation "
                f"{t['run'] * 1e3:.0f} ms, report {t['report'] * 1e3:.0f} ms{drawn}</span>")


# -- helpers -----------------------------------------------------------------------------------
def _params(target: Target, base: dict[str, Any]) -> dict[str, Any]:
    """The params and their values: the scenario's, or the program's keyword defaults
    overridden by ``params=``."""
    given = dict(base.get("params") or {})
    if target.scenario is not None:
        return dict(target.scenario.params) | given
    program = target.program[0] if isinstance(target.program, list | tuple) else target.program
    try:
        sig = inspect.signature(program)
    except (TypeError, ValueError):
        return given
    found = {p.name: p.default for p in list(sig.parameters.values())[1:]
             if p.default is not inspect.Parameter.empty}
    return found | given


def _param_control(w: Any, name: str, value: Any, times: bool) -> Any:
    style = {"description_width": "110px"}
    if isinstance(value, bool):
        return w.Checkbox(value=value, description=name, style=style)
    ladder: list[float]
    if isinstance(value, int):
        ladder = list(range(0, max(8, 2 * value) + 1)) if 0 <= value <= 16 else \
            sorted({max(1, round(value * 2.0**k)) for k in range(-5, 4)} | {value})
        return w.SelectionSlider(options=[(str(v), v) for v in ladder], value=value,
                                 description=name, continuous_update=False, style=style)
    if isinstance(value, float):
        ladder = [0.0, 1e-6, 1e-5, 1e-4, 1e-3] if value == 0 else \
            sorted({value * 2.0**k for k in range(-4, 4)})
        label = format_time if times else (lambda v: f"{v:.4g}")
        return w.SelectionSlider(options=[(label(v), v) for v in ladder], value=value,
                                 description=name, continuous_update=False, style=style)
    if isinstance(value, str):
        return w.Text(value=value, description=name, continuous_update=False, style=style)
    return None  # not adjustable here (a list, an object): it keeps its value


def _given(settings: Any) -> dict[str, Any]:
    if settings is None:
        return {}
    if isinstance(settings, dict):
        return dict(settings)
    return {k: getattr(settings, k) for k in ("eager_limit", "allocator", "profile")
            if getattr(settings, k, None) is not None}


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _shown(value: Any) -> str:
    if _is_size(value) and value >= 1024:
        return format_size(value).split(" (")[0]
    if isinstance(value, float):
        return format_time(value)
    return str(value)


def _png(make: Callable[[], Any]) -> bytes:
    try:
        return figure_png(make(), dpi=FIGURE_DPI)
    except Exception:  # a figure that cannot be drawn leaves its place empty
        return b""


def _error_html(message: str) -> str:
    return ('<div style="color:#5f1010;background:#fbd9d6;border:1px solid #b42318;'
            f'padding:6px 10px;border-radius:6px">could not run: {html.escape(message)}</div>')
