"""Communicator and topology ops (MPI 4.1 §7, §8): grammar, reader, runners.

- ``comm_dup: {comm: c, as: d}`` (short form ``comm_dup: d``), ``comm_split: {color: rank %
  2, key: rank, as: half}`` and ``comm_free: d``: the new communicator is named by ``as`` and
  given as ``comm:`` to later ops (``world`` and ``self`` name the predefined ones).
- ``cart_create: {dims: [0, 0], periods: [true, true], as: grid}`` (MPI 4.1 §8.5.1: the
  zeros of ``dims`` filled as MPI_Dims_create fills them, ``periods`` a list or one value)
  and ``cart_shift: {comm: grid, direction: 0, disp: 1, source: s, dest: d}`` (binds the
  ranks of the shift; PROC_NULL past a non-periodic edge).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...handle.calltable import OPS
from ..yamlload import line_of
from .reader import ReaderBase
from .running import RankState, call, kwargs_of, name_comm
from .step import Op

__all__ = ["RUNNERS", "CommOps"]


class CommOps(ReaderBase):
    """The readers of communicator constructors and of Cartesian topologies."""

    def _comm_dup(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("comm", "as"), ("as",), short="as")
        self._comm(op, m, path, line)
        self._new_comm(op, m, path, line)

    def _comm_split(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("color", "key", "comm", "as"), ("color", "as"))
        self._comm(op, m, path, line)
        self._arg(op, m, "color", "int", path, line)
        self._arg(op, m, "key", "int", path, line, default=0)
        self._new_comm(op, m, path, line)

    def _comm_free(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("comm",), ("comm",), short="comm")
        self._comm(op, m, path, line)

    def _cart_create(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``cart_create: {dims: [0, 0], periods: [true, false], as: grid}``: ``dims`` a
        list (zeros filled as MPI_Dims_create fills them) or a count of dimensions (all
        filled), ``periods`` a list or one value for all (default false), ``reorder``."""
        m = self._mapping(value, path, line, ("dims", "periods", "reorder", "comm", "as"),
                          ("dims", "as"))
        self._comm(op, m, path, line)
        for key, kind in (("dims", "int"), ("periods", "any")):
            if key in m:
                self._list(op, m, key, kind, path, line)
        self._arg(op, m, "reorder", "any", path, line, default=False)
        self._new_comm(op, m, path, line)

    def _cart_shift(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """``cart_shift: {direction: 0, disp: 1, comm: grid, source: left, dest: right}``
        binds the ranks MPI_Cart_shift gives (PROC_NULL past a non-periodic edge)."""
        m = self._mapping(value, path, line, ("direction", "disp", "comm", "source", "dest"),
                          ("direction", "comm"))
        self._comm(op, m, path, line)
        self._arg(op, m, "direction", "int", path, line)
        self._arg(op, m, "disp", "int", path, line, default=1)
        for key in ("source", "dest"):
            self._bind(op, m, key, path, line)

    def _list(self, op: Op, m: dict, key: str, kind: str, path: str, line: int) -> None:
        """A list argument (each item a literal or an expression), or one value: stored
        as ("list", [exprs]) or ("one", expr)."""
        value, kline = m[key], line_of(m, key, line)
        if isinstance(value, list):
            items = [self.value(v, kind, f"{path}.{key}[{k}]", line_of(value, k, kline))
                     for k, v in enumerate(value)]
            if all(x is not None for x in items):
                op.args[key] = ("list", items)
            return
        expr = self.value(value, kind, f"{path}.{key}", kline)
        if expr is not None:
            op.args[key] = ("one", expr)


def _comm(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """comm_dup, comm_split (the new communicator named by ``as``), comm_free."""
    mpi = st.mpi
    kwargs = kwargs_of(st, op)
    if op.call == "comm_free":
        if kwargs["comm"] is None:
            kwargs["comm"] = mpi.comm_world
        yield call(st, op, op.call, kwargs)
        st.comms.pop(op.comm, None)  # type: ignore[arg-type]  # (None: never stored)
        return
    name_comm(st, op, (yield call(st, op, op.call, kwargs)))


def _values(st: RankState, op: Op, key: str, kind: str) -> list[Any] | Any:
    """A list argument's values (``("list", exprs)``), or its one value."""
    form, held = op.args[key]
    if form == "list":
        return [st.value(op, f"{op.call}.{key}[{k}]", kind, e) for k, e in enumerate(held)]
    return st.value(op, f"{op.call}.{key}", kind, held)


def _topology(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """cart_create: its dims (zeros filled by MPI_Dims_create, a count of dimensions all
    filled) and periods, the new communicator named by ``as``."""
    mpi = st.mpi
    dims = _values(st, op, "dims", "int")
    parent = st.comm(op)
    if isinstance(dims, int) or 0 in dims:
        dims = mpi.dims_create(mpi.comm_size(parent), dims)
    periods = _values(st, op, "periods", "any") if "periods" in op.args else None
    if periods is not None and not isinstance(periods, list):
        periods = [periods] * len(dims)
    name_comm(st, op, (yield call(st, op, op.call, {"dims": dims, "periods": periods,
                                                    "reorder": bool(st.arg(op, "reorder")),
                                                    "comm": parent})))


def _query(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """A local call (cart_shift): its value's parts bound by name, nothing yielded."""
    st.port.where = op.where
    result = getattr(st.mpi, op.call)(**kwargs_of(st, op))
    for part, value in zip(OPS[op.call].yields, result, strict=True):
        st.bind(op, part, value)
    return
    yield


RUNNERS = {"comm": _comm, "topology": _topology, "query": _query}
"""How each kind of op of this family runs (the call table's ``op``)."""
