"""One-sided ops (MPI 4.1 §12; sizes only, no data): grammar, reader, runners.

``win_allocate: {size: 4 KiB, disp_unit: 8, as: w}`` (or ``win_create``, ``comm`` optional)
names a window; then::

    - put: {target: 1, target_disp: 0, count: 4, datatype: DOUBLE, win: w}
    - win_fence: w

``put``, ``get``, ``accumulate`` (``target``, ``target_disp``, ``count`` + ``datatype`` or
``bytes``, ``op`` for accumulate: SUM, REPLACE...), ``win_fence: w`` (or ``{win: w,
assertion: 0}``), ``win_lock: {target: 1, lock_type: shared, win: w}`` (exclusive by
default), ``win_unlock`` and ``win_flush: {target: 1, win: w}``, ``win_lock_all: w``,
``win_unlock_all: w``, ``win_free: w``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ...rma.accumulate import ACCUMULATE_OPS
from ...rma.constants import LOCK_EXCLUSIVE, LOCK_SHARED
from ..expr import constant
from ..values import describe, hint
from ..yamlload import line_of
from .reader import ReaderBase
from .running import RankState, call, kwargs_of
from .step import Op

__all__ = ["RUNNERS", "WindowOps"]

_LOCK_TYPES = {"exclusive": LOCK_EXCLUSIVE, "shared": LOCK_SHARED}
"""``win_lock``'s ``lock_type`` (MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED)."""


class WindowOps(ReaderBase):
    """The readers of window creation, RMA operations and synchronization."""

    def _win_allocate(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``win_allocate: {size: 4 KiB, disp_unit: 8, comm: c, as: w}`` (``win_create``
        the same, over an array of ``size`` bytes the rank allocates): the window is
        ``w`` from here on."""
        m = self._mapping(value, path, line, ("size", "disp_unit", "comm", "as"),
                          ("size", "as"))
        self._comm(op, m, path, line)
        self._arg(op, m, "size", "size", path, line)
        self._arg(op, m, "disp_unit", "int", path, line, default=1)
        if "as" in m:
            name = self._name(m["as"], f"{path}.as", line_of(m, "as", line))
            if name:
                op.binds["as"] = name
            if isinstance(m["as"], str):
                self.win_names.add(m["as"])

    _win_create = _win_allocate

    def _put(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``put: {target: 1, target_disp: 0, count: 4, datatype: DOUBLE, win: w}`` (or
        ``bytes``); ``get`` the same; ``accumulate`` also ``op`` (SUM, REPLACE...)."""
        ops = ("op",) if op.call == "accumulate" else ()
        m = self._mapping(value, path, line, ("target", "target_disp", "count", "bytes",
                                              "datatype", "win", *ops), ("target", "win"))
        self._win(op, m, path, line)
        self._arg(op, m, "target", "int", path, line)
        self._arg(op, m, "target_disp", "int", path, line, default=0)
        self._size(op, m, path, line)
        if ops:
            name = m.get("op", "SUM")
            if not isinstance(name, str) or f"MPI_{name}" not in ACCUMULATE_OPS:
                self._problem(line_of(m, "op", line), f"{path}.op",
                              f"unknown op {name!r} (one of "
                              f"{', '.join(n[4:] for n in ACCUMULATE_OPS)})")
            else:
                op.args["op"] = ("any", constant(name))

    _get = _accumulate = _put

    def _win_fence(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``win_fence: w`` or ``{win: w, assertion: 0}``; ``win_lock_all`` the same;
        ``win_unlock_all: w``, ``win_free: w``."""
        allowed = ("win",) if op.call in ("win_unlock_all", "win_free") else \
            ("win", "assertion")
        m = self._mapping(value, path, line, allowed, ("win",), short="win")
        self._win(op, m, path, line)
        if "assertion" in allowed:
            self._arg(op, m, "assertion", "int", path, line, default=0)

    _win_lock_all = _win_unlock_all = _win_free = _win_fence

    def _win_lock(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``win_lock: {target: 1, lock_type: shared, win: w}`` (exclusive by default);
        ``win_unlock`` and ``win_flush``: ``{target: 1, win: w}``."""
        locking = op.call == "win_lock"
        allowed = ("target", "win", *(("lock_type", "assertion") if locking else ()))
        m = self._mapping(value, path, line, allowed, ("target", "win"))
        self._win(op, m, path, line)
        self._arg(op, m, "target", "int", path, line)
        if locking:
            kind = m.get("lock_type", "exclusive")
            if kind not in _LOCK_TYPES:
                self._problem(line_of(m, "lock_type", line), f"{path}.lock_type",
                              f"expected exclusive or shared, got {describe(kind)}")
            else:
                op.args["lock_type"] = ("int", constant(_LOCK_TYPES[kind]))
            self._arg(op, m, "assertion", "int", path, line, default=0)

    _win_unlock = _win_flush = _win_lock

    def _win(self, op: Op, m: dict, path: str, line: int) -> None:
        if "win" not in m:
            return
        name = m["win"]
        if not isinstance(name, str) or name not in self.win_names:
            shown = name if isinstance(name, str) else describe(name)
            self._problem(line_of(m, "win", line), f"{path}.win",
                          f"unknown window {shown!r}{hint(str(shown), self.win_names)} (a name "
                          "an earlier win_allocate / win_create gives with as:)")
            return
        op.win = name


def _window(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """win_allocate, win_create (over an array of ``size`` bytes): the window named by
    ``as`` (a scenario moves no data: its windows are read by nobody)."""
    kwargs = kwargs_of(st, op)
    if op.call == "win_create":
        kwargs["base"] = np.zeros(kwargs.pop("size"), dtype=np.uint8)
    st.windows[op.binds["as"]] = yield call(st, op, op.call, kwargs)


def _rma(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """An operation or synchronization on the window the op names (``win:``)."""
    if op.win not in st.windows:
        raise st.error(op, f"{op.call}.win: {op.win!r} is not made on this rank (its "
                       "win_allocate / win_create did not run here)")
    yield call(st, op, op.call, {**kwargs_of(st, op), "win": st.windows[op.win]})
    if op.call == "win_free":
        del st.windows[op.win]


RUNNERS = {"window": _window, "rma": _rma}
"""How each kind of op of this family runs (the call table's ``op``)."""
