"""The wait-for graph of a deadlock: who waits for whom, the cycles drawn in red.

A node per blocked rank (labelled with its rank and the call it is blocked in), an arrow
from each rank to every rank it waits for: solid for an AND wait (a send or receive with a
given peer, waitall: it needs that rank), dashed for an OR wait (a receive from
ANY_SOURCE, waitany: any one would do). Arrows on a cycle of the graph, and the ranks on
it, are red: a cycle of AND waits is the deadlock's cause; a *knot* (a group every wait of
which stays inside it) is what a deadlock of OR waits looks like, and its ranks are ringed
red too. Ranks that finished, or that nobody blocked waits for, are not drawn.

Beyond ``max_ranks`` blocked ranks only those on the listed cycles and knots, then their
neighbours, are drawn, and the title says how many were left out. networkx places the
nodes (on a circle, cycle members first and in cycle order, so a ring reads as a ring).
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .style import axes_figure, readable

__all__ = ["CYCLE_COLOR", "plot_waitfor", "waitfor_ranks"]

CYCLE_COLOR = "#c62828"
EDGE_COLOR = "#555555"
NODE_FACE = "#e8eef7"
NODE_EDGE = "#1f3b63"
MAX_RANKS = 24


def waitfor_ranks(deadlock: Any, max_ranks: int = MAX_RANKS) -> list[int]:
    """The ranks drawn: cycle and knot members first (in cycle order), then the ranks
    they wait for and the other blocked ranks, at most ``max_ranks``."""
    order: list[int] = []
    for group in [*deadlock.cycles, *deadlock.knots]:
        order += [r for r in group if r not in order]
    blocked = _by_rank(deadlock)
    for r in list(order):
        order += [w for w in getattr(blocked.get(r), "waits_for", []) if w not in order]
    order += [b.rank for b in deadlock.blocked if b.rank not in order]
    return order[:max_ranks]


def plot_waitfor(deadlock: Any, ax: Axes | None = None, max_ranks: int = MAX_RANKS) -> Figure:
    """Draw the wait-for graph of ``deadlock`` (a :class:`mpisim.runs.deadlock.Deadlock`, or a
    Result that ended in one); returns the Figure.

    Parameters
    ----------
    deadlock
        ``result.deadlock``, or a Result that ended in a deadlock.
    ax
        A matplotlib Axes to draw into (one of your own figure's). Default: None, a new
        Figure.
    max_ranks
        The most ranks drawn (default 24): beyond, those on the cycles and knots, then
        their neighbours, and the title says how many were left out.

    Returns
    -------
    Figure
        A matplotlib Figure (``fig.savefig("x.png")``; a notebook shows it), or ``ax``'s
        figure when ``ax`` is given.
    """
    import networkx as nx

    deadlock = getattr(deadlock, "deadlock", deadlock)
    if deadlock is None or not hasattr(deadlock, "blocked"):
        raise ValueError("plot_waitfor: expected a Deadlock or a Result that deadlocked")
    ranks = waitfor_ranks(deadlock, max_ranks)
    shown = set(ranks)
    blocked = _by_rank(deadlock)
    on_cycle = {(c[i], c[(i + 1) % len(c)]) for c in deadlock.cycles for i in range(len(c))}
    red = {r for group in [*deadlock.cycles, *deadlock.knots] for r in group}
    graph = nx.DiGraph()
    graph.add_nodes_from(ranks)
    for r in ranks:
        b = blocked.get(r)
        for w in getattr(b, "waits_for", []):
            if w in shown:
                graph.add_edge(r, w, any_of=bool(getattr(b, "any_of", False)))
    own = ax is None  # (a figure of mpisim's own: made readable at the end)
    if ax is None:
        side = 3.2 if len(ranks) <= 4 else min(7.0, 2.4 + 0.25 * len(ranks))
        high = side * 0.6 if len(ranks) <= 2 else side  # two ranks sit side by side
        fig = Figure(figsize=(max(side, 4.2), high + 0.4), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = axes_figure(ax)
    pos = (nx.circular_layout(ranks) if len(ranks) > 1 else {ranks[0]: (0.0, 0.0)}) \
        if ranks else {}
    size = 1600 if len(ranks) <= 16 else 900  # (room for a 10-point call name when few)
    _draw_edges(nx, graph, pos, ax, on_cycle, size)
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_size=size, node_color=NODE_FACE,
                           edgecolors=[CYCLE_COLOR if r in red else NODE_EDGE for r in ranks],
                           linewidths=[2.4 if r in red else 1.2 for r in ranks])
    labels = {r: f"{r}\n{_short_call(blocked.get(r))}" for r in ranks}
    nx.draw_networkx_labels(graph, pos, labels, ax=ax, font_size=7, font_color="#111111")
    ax.set_axis_off()
    ax.margins(0.25)
    ax.set_title(_title(deadlock, len(ranks)), fontsize="medium")
    handles = _legend(graph)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
              ncols=len(handles), fontsize="x-small", frameon=False)
    return readable(fig) if own else fig


def _draw_edges(nx: Any, graph: Any, pos: dict[int, Any], ax: Axes,
                on_cycle: set[tuple[int, int]], node_size: int = 900) -> None:
    for any_of in (False, True):
        for red in (False, True):
            edges = [(u, v) for u, v, d in graph.edges(data=True)
                     if d["any_of"] is any_of and ((u, v) in on_cycle) is red]
            if not edges:
                continue
            nx.draw_networkx_edges(graph, pos, edgelist=edges, ax=ax, node_size=node_size,
                                   edge_color=CYCLE_COLOR if red else EDGE_COLOR,
                                   width=2.2 if red else 1.1,
                                   style="dashed" if any_of else "solid",
                                   arrows=True, arrowstyle="-|>", arrowsize=14,
                                   connectionstyle="arc3,rad=0.15")


def _by_rank(deadlock: Any) -> dict[int, Any]:
    """Each blocked rank's entry: of the entries of a rank's threads (MPI 4.1 §11.6), the
    first that waits for other ranks (the one its edges leave from)."""
    found: dict[int, Any] = {}
    for b in deadlock.blocked:
        if b.rank not in found or (getattr(b, "waits_for", None)
                                   and not getattr(found[b.rank], "waits_for", None)):
            found[b.rank] = b
    return found


def _short_call(b: Any) -> str:
    if b is None:
        return "(not blocked)"
    return str(b.call).removeprefix("MPI_")


def _title(deadlock: Any, drawn: int) -> str:
    n = len({b.rank for b in deadlock.blocked})  # (a rank's threads are one rank)
    head = f"wait-for graph: {n} rank{'s' if n != 1 else ''} blocked"
    if deadlock.cycles:
        c = deadlock.cycles[0]
        head += "\ncycle " + " → ".join(str(r) for r in [*c, c[0]])
        if len(deadlock.cycles) > 1:
            head += f" (+{len(deadlock.cycles) - 1} more)"
    elif deadlock.knots:
        head += f"\nknot: ranks {', '.join(map(str, deadlock.knots[0]))}"
    if drawn < n:
        head += f"\n{drawn} of {n} ranks drawn"
    return head


def _legend(graph: Any) -> list[Line2D]:
    handles = [Line2D([], [], color=EDGE_COLOR, lw=1.1, label="waits for (all of)"),
               Line2D([], [], color=CYCLE_COLOR, lw=2.2, label="on a cycle")]
    if any(d["any_of"] for _, _, d in graph.edges(data=True)):
        handles.insert(1, Line2D([], [], color=EDGE_COLOR, lw=1.1, ls="--",
                                 label="waits for (any of)"))
    return handles
