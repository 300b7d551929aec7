"""Collective ops (MPI 4.1 §6; sizes only, no data): grammar, reader, runners.

``bcast``, ``reduce``, ``gather``, ``scatter`` (``root``, default 0), ``allreduce``,
``allgather``, ``alltoall``, ``reduce_scatter_block``, ``scan``, ``exscan``, with ``count`` +
``datatype`` or ``bytes`` (each rank's own; a scatter's or an all-to-all's per block),
``comm``, ``algorithm``::

    - allreduce: {count: 1, datatype: DOUBLE}
    - scatterv: {sendcounts: peer + 1, datatype: INT, root: 0}

The v forms: ``gatherv`` and ``allgatherv`` take each rank's own ``count`` (an expression
of ``rank`` when ranks differ: ``count: rank + 1``); ``scatterv`` and ``alltoallv`` take
``sendcounts`` and ``reduce_scatter`` ``recvcounts``: a count per rank, as a list of
``size`` values (``[1, 2, 3, 4]``, each a literal or an expression) or one expression in
which ``peer`` is the rank the block is for (``sendcounts: peer + 1``), with ``datatype`` (a
scatterv's receiver may give its own ``count`` instead: what it receives; by default its
entry of ``sendcounts``); ``alltoallw`` takes ``sendcounts`` and ``sendtypes`` (a list of type
names per rank, or one name). Every collective has its nonblocking form, ``i`` prefixed
(``ibarrier``, ``ibcast``... ``ireduce_scatter``), which takes the same arguments and needs
``request`` (waited for with ``wait``/``waitall`` as a point-to-point request).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...handle.calltable import OPS
from ...mpi.datatypes import BASIC_TYPES
from ..expr import Expr, constant
from ..values import describe
from ..yamlload import line_of
from .reader import ReaderBase
from .running import UNSET, RankState, bind, call, kwargs_of, run_call
from .step import PEER, Op

__all__ = ["RUNNERS", "CollectiveOps"]


class CollectiveOps(ReaderBase):
    """The reader of every collective that carries data (the call table says which keys)."""

    def _collective(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """A collective, its v and w forms, and their nonblocking forms (the table's args
        say which keys each takes; a nonblocking one stores its request)."""
        args = OPS[op.call].args
        counts = next((a for a in args if a.endswith("counts")), None)
        nonblocking = "request" in OPS[op.call].binds
        allowed = ["comm", "algorithm", *(["root"] if "root" in args else [])]
        scatterv = op.call.endswith("scatterv")  # a receiver may give its own count
        if counts is not None:
            allowed += [counts, *(["sendtypes"] if "sendtypes" in args else ["datatype"])]
            allowed += ["count", "bytes"] if scatterv else []
        elif "count" in args:
            allowed += ["count", "bytes", "datatype"]
        allowed += ["request"] if nonblocking else []
        required = tuple(x for x in (None if scatterv else counts,
                                     "request" if nonblocking else None) if x)
        m = self._mapping(value, path, line, tuple(allowed), required)
        self._comm(op, m, path, line)
        if "root" in args:
            self._arg(op, m, "root", "int", path, line, default=0)
        if counts is not None:
            self._counts(op, m, counts, path, line)
            if "sendtypes" in args:
                self._sendtypes(op, m, path, line)
            elif "count" in m or "bytes" in m:
                self._size(op, m, path, line)
            else:
                op.datatype = self._datatype(m.get("datatype", "BYTE"), f"{path}.datatype",
                                             line_of(m, "datatype", line))
        elif "count" in m or "bytes" in m:
            self._size(op, m, path, line)
        elif "count" in args:  # no data: a collective of empty messages
            op.args["count"], op.datatype = ("int", constant(0)), constant("BYTE")
        if "algorithm" in m:
            algorithm = m["algorithm"]
            if not isinstance(algorithm, str):
                self._problem(line_of(m, "algorithm", line), f"{path}.algorithm",
                              f"expected an algorithm name, got {describe(algorithm)}")
            else:
                op.args["algorithm"] = ("any", constant(algorithm))
        if nonblocking:
            self._store_request(op, m, path, line)

    def _counts(self, op: Op, m: dict, key: str, path: str, line: int) -> None:
        """A count per rank: a list (literals or expressions), or one expression in which
        ``peer`` is the rank the count is for (``sendcounts: peer + 1``)."""
        if key not in m:
            return
        value, kline = m[key], line_of(m, key, line)
        if isinstance(value, list):
            items = [self._count(v, f"{path}.{key}[{k}]", line_of(value, k, kline))
                     for k, v in enumerate(value)]
            if all(x is not None for x in items):
                op.args[key] = ("list", items)
            return
        added = PEER not in self.base
        self.base.add(PEER)
        try:
            expr = self._count(value, f"{path}.{key}", kline)
        finally:
            if added:
                self.base.discard(PEER)
        if expr is not None:
            op.args[key] = ("peer", expr)

    def _count(self, value: Any, path: str, line: int) -> Expr | None:
        expr = self.value(value, "int", path, line)
        if expr is not None and expr.tree[0] == "c" and isinstance(expr.tree[1], int) \
                and expr.tree[1] < 0:
            self._problem(line, path, f"must not be negative, got {expr.tree[1]}")
        return expr

    def _sendtypes(self, op: Op, m: dict, path: str, line: int) -> None:
        """Alltoallw's datatype per rank: a list of basic type names, or one for all."""
        value, tline = m.get("sendtypes", "BYTE"), line_of(m, "sendtypes", line)
        names = value if isinstance(value, list) else [value]
        types = [self._datatype(v, f"{path}.sendtypes", line_of(names, k, tline)
                                if isinstance(value, list) else tline)
                 for k, v in enumerate(names)]
        if all(t is not None for t in types):
            op.args["sendtypes"] = ("list" if isinstance(value, list) else "one",
                                    types)


def _split(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """A collective whose send buffer holds one item (of count elements) per rank."""
    kwargs = kwargs_of(st, op)
    kwargs["sendbuf"] = [None] * st.mpi.comm_size(kwargs["comm"])
    bind(st, op, (yield call(st, op, op.call, kwargs)))


def _vector(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """A v or w form: a count (alltoallw: and a datatype) per rank of the communicator; a
    scatterv's receiver receives its own count of them."""
    kwargs = kwargs_of(st, op)
    comm = kwargs["comm"]
    size = st.mpi.comm_size(comm)
    for name in ("sendcounts", "recvcounts"):
        if name in op.args:
            kwargs[name] = _per_rank(st, op, name, size)
    if "sendtypes" in op.args:
        kwargs["sendtypes"] = _types(st, op, size)
    if op.call.endswith("scatterv") and "count" not in kwargs:  # what this rank receives
        kwargs["count"] = kwargs["sendcounts"][st.mpi.comm_rank(comm)] \
            if "sendcounts" in kwargs else 0
    bind(st, op, (yield call(st, op, op.call, kwargs)))


def _per_rank(st: RankState, op: Op, name: str, size: int) -> list[int]:
    """The counts of a list (one per rank) or of an expression in ``peer``."""
    kind, value = op.args[name]
    if kind == "list":
        if len(value) != size:
            raise st.error(op, f"{op.call}.{name}: {len(value)} counts for a communicator "
                           f"of {size} ranks")
        counts = [st.value(op, f"{op.call}.{name}[{k}]", "int", e) for k, e in enumerate(value)]
    else:
        scope = st.scope
        saved = scope.get(PEER, UNSET)
        try:
            counts = []
            for k in range(size):
                scope[PEER] = k
                counts.append(st.value(op, f"{op.call}.{name} (peer {k})", "int", value))
        finally:
            if saved is UNSET:
                scope.pop(PEER, None)
            else:
                scope[PEER] = saved
    for k, c in enumerate(counts):
        if c < 0:
            raise st.error(op, f"{op.call}.{name}: the count for rank {k} is {c} (negative)")
    return counts


def _types(st: RankState, op: Op, size: int) -> list[Any]:
    """Alltoallw's datatype per rank (one name for all, or a list of ``size``)."""
    kind, exprs = op.args["sendtypes"]
    names = [e.evaluate(st.scope) for e in exprs]
    if kind == "one":
        names = names * size
    elif len(names) != size:
        raise st.error(op, f"{op.call}.sendtypes: {len(names)} datatypes for a communicator "
                       f"of {size} ranks")
    for name in names:
        if name not in BASIC_TYPES:
            raise st.error(op, f"{op.call}.sendtypes: {name!r} is not a basic datatype")
    return [BASIC_TYPES[name] for name in names]


RUNNERS = {"collective": run_call, "split": _split, "vector": _vector}
"""How each kind of op of this family runs (the call table's ``op``)."""
