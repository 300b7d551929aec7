"""Reading the ops of a ``programs`` entry: one call each, with its location.

An op is a one-key mapping named after the handle's call (the calls, their arguments and
what they bind: :mod:`mpisim.handle.calltable`)::

    - bsend: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
    - isend: {dest: right, bytes: 64 KiB, request: "r[i]"}
    - waitall: "r[*]"
    - buffer_attach: 16 KiB

Arguments (each a literal or an expression, see :mod:`mpisim.scenario.expr`):

- sends (``send bsend ssend rsend isend ibsend issend irsend``): ``dest`` (required), ``tag``
  (default 0), the size as ``count`` + ``datatype`` (a basic type name, default BYTE, or a
  param holding one) **or** ``bytes`` (a size: ``bytes: 64 KiB`` means 65536 elements of
  BYTE); nonblocking ones need ``request``.
- ``recv``/``irecv``: ``source`` (default ANY_SOURCE), ``tag`` (default ANY_TAG), ``count`` +
  ``datatype`` or ``bytes`` (the receive buffer), ``request`` for irecv.
- ``probe``/``iprobe``: ``source``, ``tag`` (same defaults).
- ``wait``/``test``: a request; ``waitall``/``waitany``/``waitsome``/``testall``: a list of
  requests; ``request_free``: a request. Short forms: ``wait: r``, ``waitall: [a, b]``.
- ``buffer_attach``: a size (``16 KiB``, or an expression in bytes), or
  ``{count: n, datatype: T, messages: k}`` meaning k * (pack_size(n, T) + BSEND_OVERHEAD).
- ``buffer_detach: {}``, ``buffer_flush: {}`` (MPI 4.1), ``barrier: {}``, ``compute: 5us``
  (a time; long form ``{seconds: 5us}``, the handle's argument, ``time`` still accepted).
  ``buffer_attach: BUFFER_AUTOMATIC`` attaches MPI 4.1's automatic buffer.
- collectives (MPI 4.1 §6; sizes only, no data): ``bcast``, ``reduce``, ``gather``,
  ``scatter`` (``root``, default 0), ``allreduce``, ``allgather``, ``alltoall``,
  ``reduce_scatter_block``, ``scan``, ``exscan``, with ``count`` + ``datatype`` or ``bytes``
  (each rank's own; a scatter's or an all-to-all's per block), ``comm``, ``algorithm``.
  The v forms: ``gatherv`` and ``allgatherv`` take each rank's own ``count`` (an expression
  of ``rank`` when ranks differ: ``count: rank + 1``); ``scatterv`` and ``alltoallv`` take
  ``sendcounts`` and ``reduce_scatter`` ``recvcounts``: a count per rank, as a list of
  ``size`` values (``[1, 2, 3, 4]``, each a literal or an expression) or one expression in
  which ``peer`` is the rank the block is for (``sendcounts: peer + 1``), with
  ``datatype`` (a scatterv's receiver may give its own ``count`` instead: what it
  receives; by default its entry of ``sendcounts``); ``alltoallw`` takes ``sendcounts`` and
  ``sendtypes`` (a list of type names per rank, or one name). Every collective has its
  nonblocking form, ``i`` prefixed (``ibarrier``, ``ibcast``... ``ireduce_scatter``), which
  takes the same arguments and needs ``request`` (waited for with ``wait``/``waitall`` as a
  point-to-point request).
- ``cart_create: {dims: [0, 0], periods: [true, true], as: grid}`` (MPI 4.1 §8.5.1: the
  zeros of ``dims`` filled as MPI_Dims_create fills them, ``periods`` a list or one value)
  and ``cart_shift: {comm: grid, direction: 0, disp: 1, source: s, dest: d}`` (binds the
  ranks of the shift; PROC_NULL past a non-periodic edge).
- one-sided communication (MPI 4.1 §12; sizes only, no data): ``win_allocate: {size: 4 KiB,
  disp_unit: 8, as: w}`` (or ``win_create``, ``comm`` optional) names a window; then
  ``put``, ``get``, ``accumulate`` (``target``, ``target_disp``, ``count`` + ``datatype``
  or ``bytes``, ``op`` for accumulate: SUM, REPLACE...), ``win_fence: w`` (or ``{win: w,
  assertion: 0}``), ``win_lock: {target: 1, lock_type: shared, win: w}`` (exclusive by
  default), ``win_unlock`` and ``win_flush: {target: 1, win: w}``, ``win_lock_all: w``,
  ``win_unlock_all: w``, ``win_free: w``.
- MPI-IO (MPI 4.1 §14): ``file_open: {filename: out.dat, amode: [RDWR, CREATE], as: f}``,
  then the file calls with ``fh: f`` (:mod:`mpisim.scenario.fileops`).
- ``loop: {times: N, var: i, ops: [...]}`` (``var`` optional, counts 0..N-1, visible in its
  body only) and ``if: {cond: EXPR, then: [...], else: [...]}`` (``else`` optional).

Request names: ``request: r`` stores the request under ``r``; ``request: "r[i]"`` under ``r``
indexed by an expression. ``wait: "r[i]"`` waits for one; ``"r[*]"`` means every request
stored under ``r`` (the plain one first, then by index). Storing under a used name replaces
the old handle, as assigning a C variable does.

Status variables: ``status: {source: s, tag: t, count: n}`` (recv, probe, iprobe, wait,
waitany, test) sets variables from the status (``count`` in bytes), so a later op can say
``dest: s`` (reply to whoever sent). ``flag: f`` (iprobe, test, testall), ``index: i``
(waitany), ``outcount: n`` (waitsome), ``size: n`` (buffer_detach) likewise. When a test
finds nothing, its status variables keep their values. A name must be set by an op earlier
in the file to be used (checked at load); one set only on a branch not taken is a run-time
error.
"""

from __future__ import annotations

import re
from typing import Any

from ..handle.calltable import OPS
from ..mpi.constants import BUFFER_AUTOMATIC
from ..mpi.datatypes import BASIC_TYPES
from ..rma.accumulate import ACCUMULATE_OPS
from ..rma.constants import LOCK_EXCLUSIVE, LOCK_SHARED
from .expr import CONSTANTS, RESERVED, Expr, ExprError, constant, parse_expr
from .fileops import FileOpReader
from .values import Invalid, convert, describe, hint, is_unit_literal
from .yamlload import Ambiguous, line_of

__all__ = ["CALLS", "PEER", "Op", "OpReader", "RequestRef"]

SENDS = tuple(name for name, c in OPS.items() if c.op == "send")
COLLECTIVES = tuple(name for name, c in OPS.items()
                    if c.op in ("collective", "split", "vector"))
CALLS = (*OPS, "loop", "if")
"""The ops of the scenario language: the handle's calls that :data:`mpisim.handle.calltable.OPS`
lists, and the two control ops."""
PEER = "peer"
"""In a v form's counts expression, the rank the count is for (``sendcounts: peer + 1``)."""
WORLD, SELF = "world", "self"
"""The names of MPI_COMM_WORLD and MPI_COMM_SELF in a scenario's ``comm:`` arguments."""
_STATUS_FIELDS = ("source", "tag", "count")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REF = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")


_LOCK_TYPES = {"exclusive": LOCK_EXCLUSIVE, "shared": LOCK_SHARED}
"""``win_lock``'s ``lock_type`` (MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED)."""

NON_NEGATIVE = ("count", "messages", "bytes", "size")
"""Arguments whose literal values must not be negative (MPI_ERR_COUNT, MPI_ERR_ARG)."""


def _extra(op: Op, *but: str) -> tuple[str, ...]:
    """The variables the op's call binds (the table's ``binds``), but ``but``."""
    return tuple(b for b in OPS[op.call].binds if b not in but)


class RequestRef:
    """A request name: ``r``, ``r[i+1]`` (index an expression) or ``r[*]`` (all under r)."""

    __slots__ = ("index", "name", "star", "text")

    def __init__(self, name: str, index: Expr | None, star: bool, text: str) -> None:
        self.name, self.index, self.star, self.text = name, index, star, text


class Op:
    """One step of a rank program: the call, its arguments, where it is in the file."""

    __slots__ = ("args", "binds", "body", "call", "comm", "datatype", "orelse", "request",
                 "requests", "var", "where", "win")

    def __init__(self, call: str, where: str) -> None:
        self.call = call
        self.where = where
        self.args: dict[str, tuple[str, Expr]] = {}
        self.datatype: Expr | None = None
        self.request: RequestRef | None = None
        self.requests: list[RequestRef] = []
        self.binds: dict[str, str] = {}
        self.body: list[Op] = []
        self.orelse: list[Op] = []
        self.var: str | None = None
        self.comm: str | None = None  # the communicator's name (None: MPI_COMM_WORLD)
        self.win: str | None = None   # the window's name (one-sided ops)

    def __repr__(self) -> str:
        return f"<Op {self.call} at {self.where}>"


class OpReader(FileOpReader):
    """Reads op lists, reporting problems to ``problems`` (a Problems) with key paths.

    ``params`` are the load-time params (expressions using only them, ``size`` and the
    constants are evaluated once at load, so their errors are reported before any run).
    """

    def __init__(self, problems: Any, params: dict[str, Any], size: int) -> None:
        self.problems = problems
        self.params = params
        self.known = {**CONSTANTS, **params, "size": size}
        self.base = {*self.known, "rank", "BSEND_OVERHEAD"}
        self.bound: set[str] = set()
        self.request_names: set[str] = set()
        self.comm_names: set[str] = {WORLD, SELF}
        self.loop_vars: list[str] = []
        self.win_names: set[str] = set()  # windows named by an earlier win_allocate/create

    # -- op lists ------------------------------------------------------------------------
    def read_ops(self, value: Any, path: str, line: int) -> list[Op]:
        if value is None:
            return []
        if not isinstance(value, list):
            self._problem(line, path, f"expected a list of ops, got {describe(value)}")
            return []
        ops = []
        for k, item in enumerate(value):
            op = self.read_op(item, f"{path}[{k}]", line_of(value, k, line))
            if op is not None:
                ops.append(op)
        return ops

    def read_op(self, item: Any, path: str, line: int) -> Op | None:
        if not isinstance(item, dict) or len(item) != 1:
            got = f"{len(item)} keys ({', '.join(map(str, item))})" if isinstance(item, dict) \
                else describe(item)
            self._problem(line, path, "an op is a mapping with one key naming the call "
                          f"(e.g. bsend: {{dest: 1, count: 10}}), got {got}")
            return None
        call, value = next(iter(item.items()))
        line = line_of(item, call, line)
        if call not in CALLS:
            self._problem(line, path, f"unknown call {str(call)!r}{hint(str(call), CALLS)}")
            return None
        op = Op(call, f"{path} (line {line})")
        reader = getattr(self, "_" + ("sendop" if call in SENDS else
                                      "collective" if call in COLLECTIVES else call))
        reader(op, value, f"{path}.{call}", line, f"{path}.{call}")
        return op

    # -- the calls -----------------------------------------------------------------------
    def _sendop(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        blocking = not op.call.startswith("i")
        allowed = ("dest", "tag", "count", "bytes", "datatype", "comm") + (
            () if blocking else ("request",))
        m = self._mapping(value, path, line, allowed, ("dest",) + (() if blocking else
                                                                   ("request",)))
        self._comm(op, m, path, line)
        self._arg(op, m, "dest", "int", path, line)
        self._arg(op, m, "tag", "int", path, line, default=0)
        self._size(op, m, path, line)
        if not blocking:
            self._store_request(op, m, path, line)

    def _irecv(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        self._recv(op, value, path, line, _, request=True)

    def _recv(self, op: Op, value: Any, path: str, line: int, _: str,
              request: bool = False) -> None:
        allowed = ("source", "tag", "count", "bytes", "datatype", "comm",
                   "request" if request else "status")
        m = self._mapping(value, path, line, allowed, ("request",) if request else ())
        self._comm(op, m, path, line)
        self._arg(op, m, "source", "int", path, line, default=CONSTANTS["ANY_SOURCE"])
        self._arg(op, m, "tag", "int", path, line, default=CONSTANTS["ANY_TAG"])
        self._size(op, m, path, line)
        if request:
            self._store_request(op, m, path, line)
        else:
            self._status(op, m, path, line)

    def _probe(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line,
                          ("source", "tag", "status", "comm", *_extra(op, "status")), ())
        self._comm(op, m, path, line)
        self._arg(op, m, "source", "int", path, line, default=CONSTANTS["ANY_SOURCE"])
        self._arg(op, m, "tag", "int", path, line, default=CONSTANTS["ANY_TAG"])
        self._status(op, m, path, line)
        self._bind(op, m, "flag", path, line)

    _iprobe = _probe

    def _wait(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        extra = _extra(op, "status")
        m = self._mapping(value, path, line, ("request", "status", *extra), ("request",),
                          short="request")
        if "request" in m:
            op.request = self._ref(m["request"], f"{path}.request",
                                   line_of(m, "request", line), star=False)
        self._status(op, m, path, line)
        for name in extra:
            self._bind(op, m, name, path, line)

    _test = _wait

    def _request_free(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("request",), ("request",), short="request")
        if "request" in m:
            op.request = self._ref(m["request"], f"{path}.request",
                                   line_of(m, "request", line), star=False)

    def _waitall(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        extra = OPS[op.call].binds
        m = self._mapping(value, path, line, ("requests", *extra), ("requests",),
                          short="requests")
        if "requests" not in m:
            return
        refs = m["requests"]
        rline = line_of(m, "requests", line)
        items = refs if isinstance(refs, list) else [refs]
        for k, ref in enumerate(items):
            where = f"{path}.requests[{k}]" if isinstance(refs, list) else f"{path}.requests"
            r = self._ref(ref, where, line_of(refs, k, rline), star=True)
            if r is not None:
                op.requests.append(r)
        self._status(op, m, path, line)
        for name in extra:
            if name != "status":
                self._bind(op, m, name, path, line)

    _waitany = _waitsome = _testall = _waitall

    def _buffer_attach(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        if isinstance(value, str) and value.strip() == "BUFFER_AUTOMATIC":
            op.args["size"] = ("size", constant(BUFFER_AUTOMATIC, "BUFFER_AUTOMATIC"))
            return
        m = self._mapping(value, path, line, ("size", "count", "datatype", "messages", "comm"),
                          (), short="size")
        self._comm(op, m, path, line)
        if "size" in m:
            if len(m) - ("comm" in m) > 1:
                self._problem(line, path, "give size, or count + datatype (+ messages), "
                              "not both")
            self._arg(op, m, "size", "size", path, line)
        elif "count" in m:
            self._arg(op, m, "count", "int", path, line)
            self._arg(op, m, "messages", "int", path, line, default=1)
            op.datatype = self._datatype(m.get("datatype", "BYTE"), f"{path}.datatype",
                                         line_of(m, "datatype", line))
        else:
            self._problem(line, path, "expected a size (e.g. 16 KiB) or {count, datatype, "
                          "messages}")

    def _buffer_detach(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("size", "comm"), ())
        self._comm(op, m, path, line)
        self._bind(op, m, "size", path, line)

    def _barrier(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        self._comm(op, self._mapping(value, path, line, ("comm",), ()), path, line)

    _buffer_flush = _barrier  # MPI 4.1 MPI_Buffer_flush: optional comm (its buffer's flush)

    # -- communicators and collectives ---------------------------------------------------
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

    # -- process topologies (MPI 4.1 §8) -------------------------------------------------
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
                op.args[key] = ("list", items)  # type: ignore[assignment]
            return
        expr = self.value(value, kind, f"{path}.{key}", kline)
        if expr is not None:
            op.args[key] = ("one", expr)  # type: ignore[assignment]

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
                op.args[key] = ("list", items)  # type: ignore[assignment]
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
                                    types)  # type: ignore[assignment]

    def _comm(self, op: Op, m: dict, path: str, line: int) -> None:
        if "comm" not in m:
            return
        name = m["comm"]
        if not isinstance(name, str) or name not in self.comm_names:
            shown = name if isinstance(name, str) else describe(name)
            self._problem(line_of(m, "comm", line), f"{path}.comm",
                          f"unknown communicator {shown!r}{hint(str(shown), self.comm_names)} "
                          f"({WORLD}, {SELF}, or a name an earlier comm_dup / comm_split / "
                          "cart_create gives with as:)")
            return
        op.comm = None if name == WORLD else name

    def _new_comm(self, op: Op, m: dict, path: str, line: int) -> None:
        if "as" in m:
            name = self._name(m["as"], f"{path}.as", line_of(m, "as", line))
            if name in (WORLD, SELF):
                self._problem(line_of(m, "as", line), f"{path}.as",
                              f"{name!r} names a predefined communicator; choose another name")
            elif name:
                op.binds["as"] = name
            if isinstance(m["as"], str):  # known from here on, even if refused (one problem)
                self.comm_names.add(m["as"])

    # -- one-sided communication (MPI 4.1 §12) --------------------------------------------
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

    def _compute(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        if isinstance(value, dict) and "time" in value and "seconds" not in value:
            value = {"seconds" if k == "time" else k: v for k, v in value.items()}  # old name
        m = self._mapping(value, path, line, ("seconds",), ("seconds",), short="seconds")
        self._arg(op, m, "seconds", "time", path, line)

    def _loop(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("times", "var", "ops"), ("times", "ops"))
        self._arg(op, m, "times", "int", path, line)
        if "var" in m:
            op.var = self._name(m["var"], f"{path}.var", line_of(m, "var", line))
        if op.var:
            self.loop_vars.append(op.var)
        op.body = self.read_ops(m.get("ops"), f"{path}.ops", line_of(m, "ops", line))
        if op.var:
            self.loop_vars.pop()

    def _if(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("cond", "then", "else"), ("cond", "then"))
        self._arg(op, m, "cond", "any", path, line)
        op.body = self.read_ops(m.get("then"), f"{path}.then", line_of(m, "then", line))
        op.orelse = self.read_ops(m.get("else"), f"{path}.else", line_of(m, "else", line))

    # -- pieces --------------------------------------------------------------------------
    def _mapping(self, value: Any, path: str, line: int, allowed: tuple[str, ...],
                 required: tuple[str, ...], short: str | None = None) -> dict:
        if short is not None and not isinstance(value, dict):
            value = {short: value}
        elif value is None:
            value = {}
        elif not isinstance(value, dict):
            self._problem(line, path, f"expected a mapping of arguments ({', '.join(allowed)})"
                          f", got {describe(value)}" if allowed else
                          f"takes no arguments (write {{}}), got {describe(value)}")
            return {}
        for key in value:
            if key not in allowed:
                valid = f" (valid: {', '.join(allowed)})" if allowed else " (it takes none)"
                self._problem(line_of(value, key, line), f"{path}.{key}",
                              f"unknown argument{hint(str(key), allowed)}{valid}")
        for key in required:
            if key not in value:
                self._problem(line, path, f"missing {key}")
        return value

    def _arg(self, op: Op, m: dict, key: str, kind: str, path: str, line: int,
             default: Any = None) -> None:
        if key not in m:
            if default is not None:
                op.args[key] = (kind, constant(default))
            return
        expr = self.value(m[key], kind, f"{path}.{key}", line_of(m, key, line))
        if expr is None:
            return
        op.args[key] = (kind, expr)
        if key in NON_NEGATIVE and expr.tree[0] == "c" and isinstance(expr.tree[1], int) \
                and expr.tree[1] < 0:  # MPI_ERR_COUNT when it runs: refuse it now
            self._problem(line_of(m, key, line), f"{path}.{key}",
                          f"must not be negative, got {expr.tree[1]}")

    def _size(self, op: Op, m: dict, path: str, line: int) -> None:
        if "bytes" in m:
            for other in ("count", "datatype"):
                if other in m:
                    self._problem(line_of(m, other, line), f"{path}.{other}",
                                  "give count (+ datatype) or bytes, not both")
            self._arg(op, m, "bytes", "size", path, line)
            op.args["count"] = op.args.pop("bytes", ("size", constant(0)))
            op.datatype = constant("BYTE")
            return
        if "count" not in m:
            self._problem(line, path, "missing count (with datatype) or bytes")
        self._arg(op, m, "count", "int", path, line)
        op.datatype = self._datatype(m.get("datatype", "BYTE"), f"{path}.datatype",
                                     line_of(m, "datatype", line))

    def _datatype(self, value: Any, path: str, line: int) -> Expr | None:
        if isinstance(value, str) and value in BASIC_TYPES:
            return constant(value)
        if isinstance(value, str) and value in self.params:
            held = self.params[value]
            if not (isinstance(held, str) and held in BASIC_TYPES):
                self._problem(line, path, f"param {value!r} holds {describe(held)}, not a "
                              "basic datatype name")
            return parse_expr(value)
        shown = value.text if isinstance(value, Ambiguous) else value
        close = hint(shown, BASIC_TYPES) if isinstance(shown, str) else ""
        self._problem(line, path, f"unknown datatype {shown!r}{close} (a basic type such as "
                      "BYTE, INT, REAL, DOUBLE, or a param holding one)")
        return None

    def _store_request(self, op: Op, m: dict, path: str, line: int) -> None:
        if "request" in m:
            op.request = self._ref(m["request"], f"{path}.request",
                                   line_of(m, "request", line), star=False, store=True)

    def _ref(self, value: Any, path: str, line: int, star: bool,
             store: bool = False) -> RequestRef | None:
        match = _REF.match(value) if isinstance(value, str) else None
        if match is None:
            self._problem(line, path, f"expected a request name (r, r[i] or r[*]), got "
                          f"{describe(value)}")
            return None
        name, index = match.group(1), match.group(2)
        if store:
            self.request_names.add(name)
        elif name not in self.request_names:
            self._problem(line, path, f"undefined request {name!r}"
                          f"{hint(name, self.request_names)}: no earlier op stores a request "
                          "under this name")
        if index is not None and index.strip() == "*":
            if not star:
                self._problem(line, path, f"{value!r}: [*] is only for lists (waitall ...)")
                return None
            return RequestRef(name, None, True, value)
        expr = None if index is None else self.value(index, "int", path, line)
        return RequestRef(name, expr, False, value)

    def _status(self, op: Op, m: dict, path: str, line: int) -> None:
        if "status" not in m:
            return
        value, sline = m["status"], line_of(m, "status", line)
        if not isinstance(value, dict):
            self._problem(sline, f"{path}.status", "expected a mapping of status fields to "
                          f"variable names (e.g. {{source: s}}), got {describe(value)}")
            return
        for key, var in value.items():
            kline = line_of(value, key, sline)
            if key not in _STATUS_FIELDS:
                self._problem(kline, f"{path}.status.{key}", "unknown status field (valid: "
                              f"{', '.join(_STATUS_FIELDS)})")
                continue
            name = self._name(var, f"{path}.status.{key}", kline)
            if name:
                op.binds[f"status.{key}"] = name
                self.bound.add(name)

    def _bind(self, op: Op, m: dict, key: str, path: str, line: int) -> None:
        if key in m:
            name = self._name(m[key], f"{path}.{key}", line_of(m, key, line))
            if name:
                op.binds[key] = name
                self.bound.add(name)

    def _name(self, value: Any, path: str, line: int) -> str | None:
        if not isinstance(value, str) or not _IDENT.match(value):
            self._problem(line, path, f"expected a variable name, got {describe(value)}")
            return None
        if value in RESERVED or value in self.params:
            what = "a param" if value in self.params else "a reserved name"
            self._problem(line, path, f"{value!r} is {what}; choose another variable name")
            return None
        return value

    # -- values --------------------------------------------------------------------------
    def value(self, value: Any, kind: str, path: str, line: int) -> Expr | None:
        """A literal or expression for an argument of ``kind`` (int, size, time, any)."""
        try:
            if isinstance(value, str):
                if kind != "any" and is_unit_literal(value):
                    return constant(convert(kind, value), value)
                return self._expression(value, kind)
            if kind == "any":
                if isinstance(value, Ambiguous):
                    raise Invalid(value.reason)
                if not isinstance(value, bool | int | float):
                    raise Invalid(f"expected an expression, got {describe(value)}")
                return constant(value)
            return constant(convert(kind, value), str(value))
        except (Invalid, ExprError) as e:
            self._problem(line, path, str(e))
            return None

    def _expression(self, text: str, kind: str) -> Expr:
        expr = parse_expr(text)
        scope = self.base | self.bound | set(self.loop_vars)
        for name in sorted(expr.names - scope):
            raise Invalid(f"undefined name {name!r}{hint(name, scope)}")
        if expr.names <= self.known.keys():
            value = convert(kind, expr.evaluate(self.known))  # fail at load, not at run time
            if expr.is_constant:
                return constant(value, text)
        return expr

    def _problem(self, line: int, path: str, message: str) -> None:
        self.problems.add(line, path, message)
