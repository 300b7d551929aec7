"""The table a sweep returns: one row per run, a numpy structured array underneath.

Columns: one per varied key, named as the key (``count``, ``network.eager_limit``) and
holding its values as given (whole numbers as ``i8``, other numbers as ``f8``, booleans as
``?``, anything else as text), then the outcome of each run:

======================  =====  ==========================================================
``outcome``             U9     completed / deadlock / error / timeout (the JSON's word)
``sim_time``            f8     simulated seconds at the end of the run
``error_class``         U32    the MPI error class that ended it (``MPI_ERR_BUFFER``), or ""
``peak_used``           i8     the most attached-buffer bytes unavailable, max over ranks
``peak_live``           i8     the most bytes of uncompleted entries, max over ranks
======================  =====  ==========================================================

Rows are in the order of ``itertools.product`` over the keys in the order given. The CSV is
written whole or not at all (a temporary file beside it, then renamed), so an interrupted
write leaves no half a file.
"""

from __future__ import annotations

import csv
import io
import math
import os
import secrets
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..values.units import SIZE_SCALES, format_time

__all__ = ["OUTCOME_COLUMNS", "SweepTable", "column_dtype"]

OUTCOME_COLUMNS: list[tuple[str, str]] = [("outcome", "U9"), ("sim_time", "f8"),
                                          ("error_class", "U32"), ("peak_used", "i8"),
                                          ("peak_live", "i8")]
REPR_ROWS = 40


def column_dtype(values: Sequence[Any]) -> str:
    """The dtype of a key's column: ?, i8, f8, or text wide enough for every value."""
    if values and all(isinstance(v, bool | np.bool_) for v in values):
        return "?"
    if values and all(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
                      and -2**63 <= v < 2**63 for v in values):
        return "i8"
    if values and all(isinstance(v, int | float | np.integer | np.floating)
                      and not isinstance(v, bool | np.bool_) for v in values):
        return "f8"
    return f"U{max([1, *(len(_text(v)) for v in values)])}"


def _text(value: Any) -> str:
    return "none" if value is None else str(value)


class SweepTable:
    """The rows of a sweep; ``.array`` is the structured array, ``.keys`` the varied keys.

    :func:`mpisim.sweep` builds it: one row per run, the varied values first, then
    ``outcome``, ``sim_time`` (simulated seconds), ``error_class``, ``peak_used`` and
    ``peak_live`` (bytes, the largest over the ranks). ``table["outcome"]`` indexes it as
    the array; iterating gives rows as dicts.

    Parameters
    ----------
    array
        The rows, a numpy structured array with the columns above.
    keys
        The varied keys, in the order of the columns (``["count", "network.eager_limit"]``).
    scenario
        The name of what was run, for reports. Default: empty.
    vary
        The values of each key as given, in their order. Default: None, the distinct
        values of each key's column.
    """

    def __init__(self, array: np.ndarray, keys: Sequence[str], scenario: str = "",
                 vary: dict[str, list[Any]] | None = None) -> None:
        self.array = array
        self.keys = list(keys)
        self.scenario = scenario
        self.vary = dict(vary) if vary is not None else {k: _unique(array[k]) for k in keys}
        self.wall_time: float | None = None  # seconds the sweep took (set by sweep())

    # -- indexing: as the structured array it holds --------------------------------------
    def __getitem__(self, key: Any) -> Any:
        """``table["buffer"]``, ``table[0]``, ``table[mask]``: as the structured array."""
        return self.array[key]

    @classmethod
    def build(cls, vary: dict[str, list[Any]], points: Sequence[tuple[Any, ...]],
              rows: Sequence[tuple[Any, ...]], scenario: str = "") -> SweepTable:
        """From the varied values, the points run and one outcome row per point."""
        keys = list(vary)
        dtype = [(k, column_dtype(vary[k])) for k in keys] + OUTCOME_COLUMNS
        array = np.zeros(len(points), dtype=dtype)
        for j, key in enumerate(keys):
            if array.dtype[key].kind == "U":
                array[key] = [_text(p[j]) for p in points]
            else:
                array[key] = [p[j] for p in points]
        for j, (name, _) in enumerate(OUTCOME_COLUMNS):
            array[name] = [r[j] for r in rows]
        return cls(array, keys, scenario, vary)

    # -- access --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Rows as dicts of plain Python values."""
        names = self.array.dtype.names or ()
        for row in self.array:
            yield {name: row[name].item() for name in names}

    def rows(self) -> list[dict[str, Any]]:
        return list(self)

    @property
    def columns(self) -> list[str]:
        return list(self.array.dtype.names or ())

    def count(self, outcome: str) -> int:
        """How many runs ended with ``outcome`` (``"completed"``, ``"deadlock"``...).

        Parameters
        ----------
        outcome
            ``"completed"``, ``"deadlock"``, ``"error"`` or ``"timeout"``.
        """
        return int(np.count_nonzero(self.array["outcome"] == outcome))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the scenario, the varied values, and the rows (NaN as null)."""
        return {"scenario": self.scenario,
                "vary": {k: [_plain(v) for v in vs] for k, vs in self.vary.items()},
                "rows": [{k: _plain(v) for k, v in row.items()} for row in self],
                "wall_time": None if self.wall_time is None else round(self.wall_time, 3)}

    def to_pandas(self) -> Any:
        """A pandas DataFrame of the rows (pandas is not a dependency of mpisim)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("SweepTable.to_pandas() needs pandas: pip install "
                              "'mpisim[pandas]' (or use .array / .to_csv())") from None
        return pd.DataFrame({name: self.array[name] for name in self.columns})

    # -- files ---------------------------------------------------------------------------
    def to_csv(self, path: str | os.PathLike[str]) -> Path:
        """Write the rows as CSV, whole or not at all; returns the path.

        Parameters
        ----------
        path
            The file to write (a str or path); an existing file is replaced only once the
            new one is complete.
        """
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write(self.csv_text())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return path

    def csv_text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self:
            writer.writerow([_csv_cell(v) for v in row.values()])
        return out.getvalue()

    # -- text ----------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        head = f"<SweepTable {self.scenario or ''}: {len(self)} runs over {', '.join(self.keys)}>"
        return head + "\n" + self.text(max_rows=REPR_ROWS)

    def _repr_html_(self) -> str:
        """Jupyter: the rows with outcome colours and the outcome map (mpisim.report.display)."""
        from ..report.display import sweep_html

        return sweep_html(self)

    def text(self, max_rows: int | None = None) -> str:
        """The table for people: aligned columns, values in the units a user writes them in
        (``2 KiB``, ``1 µs``, ``10 GB/s``), and without the outcome columns that say nothing
        (all zero or empty: no error class, no buffer used).

        Parameters
        ----------
        max_rows
            The most rows shown, the first and last halves. Default: None, every row.
        """
        rows = self.rows()
        shown = rows if max_rows is None or len(rows) <= max_rows else \
            rows[:max_rows // 2] + rows[-(max_rows // 2):]
        header = self.shown_columns()
        kinds = {k: _kind(k) for k in header}
        cells = [[_cell(kinds[k], row[k]) for k in header] for row in shown]
        widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]
        lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
        for i, c in enumerate(cells):
            if max_rows is not None and len(rows) > max_rows and i == max_rows // 2:
                lines.append(f"... {len(rows) - max_rows} more rows ...")
            lines.append("  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))
        took = "" if self.wall_time is None else f" in {self.wall_time:.3g} s of wall time"
        lines.append(self.summary() + took)
        return "\n".join(lines)

    def shown_columns(self) -> list[str]:
        """The columns the text and HTML tables show: the varied keys, the outcome, and the
        other outcome columns unless all zero or empty (no error class, no buffer used)."""
        return [c for c in self.columns if c in self.keys or c == "outcome"
                or np.any(self.array[c])]

    def cell_text(self, column: str, value: Any) -> str:
        """``value`` of ``column`` as a user writes it: ``2 KiB``, ``1 µs``, ``10 GB/s``."""
        return _cell(_kind(column), value)

    def summary(self) -> str:
        """How many runs and how they ended: ``8 runs: 6 completed, 2 deadlock``."""
        counts = ", ".join(f"{self.count(o)} {o}" for o in
                           ("completed", "deadlock", "error", "timeout") if self.count(o))
        return f"{len(self)} runs" + (f": {counts}" if counts else "")


_OUTCOME_KINDS = {"sim_time": "time", "peak_used": "size", "peak_live": "size"}


def _kind(column: str) -> str:
    """How a column's numbers are shown: ``time``, ``size``, ``bandwidth`` or plain (a
    param, a count); a setting's kind is its declaration's (``buffer``: a size)."""
    from ..runs.settings import lookup

    if column in _OUTCOME_KINDS:
        return _OUTCOME_KINDS[column]
    if column == "mpi.profile":
        return "profile"
    setting = lookup(column)
    kind = setting.kind if setting is not None else ""
    return "size" if kind == "buffer" else kind


def _cell(kind: str, value: Any) -> str:
    if kind == "profile":  # a short name with the release it stands for
        from ..profiles.names import label

        return label(str(value))
    if kind == "size" and isinstance(value, str) and value.isdigit():
        value = int(value)  # a text column (buffer=2KiB,AUTOMATIC): its sizes as sizes
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if kind == "time":
        return format_time(value)
    if kind == "size" and float(value).is_integer():
        return _size(int(value))
    if kind == "bandwidth":
        return _bandwidth(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _size(nbytes: int) -> str:
    """``2 KiB``, ``1.5 MiB``, ``9000 B``: a size as one writes it (a unit only where the
    value is exact in it, to three decimals)."""
    for unit, scale in SIZE_SCALES:
        if abs(nbytes) >= scale and nbytes * 1000 % scale == 0:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes} B"


def _bandwidth(rate: float) -> str:
    """``10 GB/s``, ``125 MB/s``: bytes per second in decimal units."""
    for unit, scale in (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if abs(rate) >= scale:
            return f"{rate / scale:.4g} {unit}"
    return f"{rate:.4g} B/s"


def _csv_cell(value: Any) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _unique(column: np.ndarray) -> list[Any]:
    seen: list[Any] = []
    for v in column.tolist():
        if v not in seen:
            seen.append(v)
    return seen
