"""Interpreting a scenario's ops: the program that ``ms.run`` calls for every rank.

:class:`Program` is a picklable callable object (not a closure), so a loaded scenario can be
sent to worker processes. ``program(mpi, **params)`` returns the rank's generator: it runs,
in file order, the ops of every ``programs`` entry whose selector contains the rank (a rank
in no entry runs nothing). Before each MPI call it sets ``mpi._where`` to the op's location,
``"programs[0].ops[2].loop.ops[0] (line 14)"``, which the engine puts in deadlock reports and
errors.

Selectors were resolved at load time for the scenario's ``ranks`` and params; a run with a
different size or params (``sc.run(ranks=8)``) resolves them again.

A scenario that is wrong at run time (division by zero, a count of 2.5, a request name never
stored, a status variable set only on a branch not taken) raises
:class:`~mpisim.scenario.problems.ScenarioRuntimeError` naming the op; the run ends with
outcome ``error``. A rank that runs more than ``MAX_SPINS`` loop iterations or ``if`` tests
without making any MPI call is stopped the same way, so that ``loop: {times: 1e12, ops: []}``
cannot hang a run.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ..handle.calltable import OPS
from ..mpi.datatypes import BASIC_TYPES, pack_size
from ..mpi.errors import MPIError
from .expr import CONSTANTS, Expr, ExprError
from .fileops import run_file
from .ops import PEER, SELF, Op, RequestRef
from .problems import ScenarioRuntimeError
from .selectors import select
from .values import Invalid, convert

__all__ = ["MAX_SPINS", "Entry", "Program"]

MAX_SPINS = 1_000_000
"""Loop iterations and if tests a rank may run in a row without an MPI call."""


class Entry:
    """One ``programs`` entry: its selector (as written), the ranks it selected at load time,
    its ops and its index."""

    __slots__ = ("index", "ops", "ranks", "selector")

    def __init__(self, index: int, selector: Any, ranks: frozenset[int], ops: list[Op]) -> None:
        self.index, self.selector, self.ranks, self.ops = index, selector, ranks, ops


class Program:
    """The rank program of a YAML scenario: ``program(mpi, **params)`` is a generator."""

    def __init__(self, name: str, entries: list[Entry], size: int,
                 params: dict[str, Any]) -> None:
        self.__name__ = name
        self.entries = entries
        self.size = size
        self.params = dict(params)

    def __repr__(self) -> str:
        return f"<scenario program {self.__name__!r}: {len(self.entries)} entries>"

    def ops_for(self, rank: int, size: int, params: dict[str, Any]) -> list[Op]:
        """The ops rank ``rank`` runs, in order."""
        same = size == self.size and params == self.params
        ops: list[Op] = []
        for entry in self.entries:
            ranks = entry.ranks if same else _reselect(entry, size, params)
            if rank in ranks:
                ops.extend(entry.ops)
        return ops

    def __call__(self, mpi: Any, **params: Any) -> Generator[Any, Any, None]:
        return _Interpreter(mpi, params).run(self.ops_for(mpi.rank, mpi.size, params))


def _reselect(entry: Entry, size: int, params: dict[str, Any]) -> frozenset[int]:
    try:
        return select(entry.selector, size, params)
    except Invalid as e:
        raise ScenarioRuntimeError(f"programs[{entry.index}].ranks: {e}") from None


class _Interpreter:
    """One rank's variables and request handles while its ops run."""

    __slots__ = ("comms", "files", "mpi", "requests", "scope", "spins", "windows")

    def __init__(self, mpi: Any, params: dict[str, Any]) -> None:
        self.mpi = mpi
        self.scope: dict[str, Any] = {  # the variables expressions see
            **CONSTANTS, **params, "rank": mpi.rank, "size": mpi.size,
            "BSEND_OVERHEAD": mpi.BSEND_OVERHEAD}
        self.requests: dict[tuple[str, Any], Any] = {}
        self.comms: dict[str, Any] = {}
        self.windows: dict[str, Any] = {}  # by the names of their ``as:``
        self.files: dict[str, Any] = {}    # open files, by the names of their ``as:``
        self.spins = 0

    def comm(self, op: Op) -> Any:
        """The communicator an op names (None: MPI_COMM_WORLD)."""
        name = op.comm
        if name is None:
            return None
        if name == SELF:
            return self.mpi.comm_self
        if name not in self.comms:
            raise self.error(op, f"{op.call}.comm: {name!r} is not set on this rank (its "
                             "comm_dup / comm_split did not run here, or gave MPI_COMM_NULL)")
        return self.comms[name]

    def run(self, ops: list[Op]) -> Generator[Any, Any, None]:
        for op in ops:
            call = op.call
            if call == "loop":
                yield from self._loop(op)
            elif call == "if":
                self._spin(op)
                branch = op.body if self.arg(op, "cond") else op.orelse
                yield from self.run(branch)
            else:
                yield from _CALLS[call](self, op)

    def _loop(self, op: Op) -> Generator[Any, Any, None]:
        times = self.arg(op, "times")
        if times < 0:
            raise self.error(op, f"loop.times: must not be negative, got {times}")
        var, scope = op.var, self.scope
        saved = scope.get(var, _UNSET) if var else _UNSET
        for i in range(times):
            self._spin(op)
            if var:
                scope[var] = i
            yield from self.run(op.body)
        if var:
            if saved is _UNSET:
                scope.pop(var, None)
            else:
                scope[var] = saved

    def _spin(self, op: Op) -> None:
        self.spins += 1
        if self.spins > MAX_SPINS:
            raise self.error(op, f"{MAX_SPINS} loop iterations and if tests without any MPI "
                             "call (a loop that never communicates?)")

    # -- values --------------------------------------------------------------------------
    def arg(self, op: Op, key: str) -> Any:
        kind, expr = op.args[key]
        tree = expr.tree
        if tree[0] == "c":  # literals were converted to their kind at load time
            return tree[1]
        return self.value(op, f"{op.call}.{key}", kind, expr)

    def value(self, op: Op, what: str, kind: str, expr: Expr) -> Any:
        try:
            return convert(kind, expr.evaluate(self.scope))
        except (ExprError, Invalid) as e:
            raise self.error(op, f"{what}: {e}") from None

    def datatype(self, op: Op) -> Any:
        name = op.datatype.evaluate(self.scope) if op.datatype is not None else "BYTE"
        if name not in BASIC_TYPES:
            raise self.error(op, f"{op.call}.datatype: {name!r} is not a basic datatype")
        return BASIC_TYPES[name]

    def error(self, op: Op, message: str) -> ScenarioRuntimeError:
        return ScenarioRuntimeError(f"{op.where}: {message}")

    # -- bindings and requests -----------------------------------------------------------
    def bind_status(self, op: Op, status: Any) -> None:
        if status is None:
            return
        for key, name in op.binds.items():
            if key.startswith("status."):
                self.scope[name] = getattr(status, key[7:])

    def bind(self, op: Op, key: str, value: Any) -> None:
        name = op.binds.get(key)
        if name is not None:
            self.scope[name] = value

    def store(self, op: Op, ref: RequestRef, request: Any) -> None:
        self.requests[(ref.name, self._index(op, ref))] = request

    def lookup(self, op: Op, ref: RequestRef) -> Any:
        key = (ref.name, self._index(op, ref))
        if key not in self.requests:
            raise self.error(op, f"{op.call}: no request stored under {_show(key)} yet")
        return self.requests[key]

    def lookup_all(self, op: Op) -> list[Any]:
        found: list[Any] = []
        for ref in op.requests:
            if ref.star:
                keys = [k for k in self.requests if k[0] == ref.name]
                keys.sort(key=lambda k: (k[1] is not None, k[1] if k[1] is not None else 0))
                found.extend(self.requests[k] for k in keys)
            else:
                found.append(self.lookup(op, ref))
        return found

    def _index(self, op: Op, ref: RequestRef) -> int | None:
        if ref.index is None:
            return None
        return self.value(op, f"{op.call} request {ref.text!r}", "int", ref.index)


_UNSET = object()


def _show(key: tuple[str, Any]) -> str:
    return repr(key[0] if key[1] is None else f"{key[0]}[{key[1]}]")


# -- one runner per kind of op (mpisim.handle.calltable): evaluate, set where, yield the call ------
def _kwargs(st: _Interpreter, op: Op) -> dict[str, Any]:
    """The op's arguments under the handle's parameter names (the table's ``args``); a v
    form's per-rank counts and types are :func:`_vector`'s."""
    kwargs: dict[str, Any] = {}
    for name in OPS[op.call].args:
        if name == "datatype":
            kwargs[name] = st.datatype(op)
        elif name == "comm":
            kwargs[name] = st.comm(op)
        elif name in op.args and name not in _PER_RANK:
            kwargs[name] = st.arg(op, name)
    return kwargs


def _call(st: _Interpreter, op: Op, call: str, kwargs: dict[str, Any]) -> Any:
    """The event of the handle's ``call``, made where the op is (reports name the op)."""
    st.mpi._where = op.where
    st.spins = 0
    return getattr(st.mpi, call)(**kwargs)


def _bind(st: _Interpreter, op: Op, result: Any) -> None:
    """Bind the parts of the call's value (the table's ``yields``) that the op names."""
    parts = OPS[op.call].yields
    for part, value in zip(parts, (result,) if len(parts) == 1 else result or (), strict=False):
        if part == "status":
            st.bind_status(op, value)
        elif part == "flag":
            st.bind(op, "flag", bool(value))
        elif part == "indices":  # MPI_Waitsome's outcount
            st.bind(op, "outcount", value if isinstance(value, int) else len(value or ()))
        elif part == "request":
            if op.request is not None:
                st.store(op, op.request, value)
        else:
            st.bind(op, part, value)


def _local(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """A call whose op gives exactly the handle's arguments (point-to-point, barrier,
    compute)."""
    _bind(st, op, (yield _call(st, op, op.call, _kwargs(st, op))))


def _request(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    _bind(st, op, (yield _call(st, op, op.call, {"request": st.lookup(op, op.request)})))


def _requests(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    _bind(st, op, (yield _call(st, op, op.call, {"requests": st.lookup_all(op)})))


def _buffer(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """The process's buffer, or with ``comm:`` that communicator's (comm_<verb>_buffer)."""
    kwargs: dict[str, Any] = {}
    if op.call == "buffer_attach":
        kwargs["size"] = _attach_size(st, op)
    comm = st.comm(op)
    if op.comm is None:
        call = op.call
    else:
        call, kwargs["comm"] = f"comm_{op.call[len('buffer_'):]}_buffer", comm
    _bind(st, op, (yield _call(st, op, call, kwargs)))


def _attach_size(st: _Interpreter, op: Op) -> Any:
    if "size" in op.args:
        return st.arg(op, "size")
    count, messages = st.arg(op, "count"), st.arg(op, "messages")
    try:
        return messages * (pack_size(count, st.datatype(op)) + st.mpi.BSEND_OVERHEAD)
    except MPIError as e:  # MPI_Pack_size refused the count: name the op and its line
        raise st.error(op, f"buffer_attach: MPI_Pack_size: {e}") from None


def _comm(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    mpi = st.mpi
    kwargs = _kwargs(st, op)
    if op.call == "comm_free":
        if kwargs["comm"] is None:
            kwargs["comm"] = mpi.comm_world
        yield _call(st, op, op.call, kwargs)
        st.comms.pop(op.comm, None)
        return
    made = yield _call(st, op, op.call, kwargs)
    name = op.binds["as"]
    if made is None:
        st.comms.pop(name, None)
    else:
        mpi.comm_set_name(made, name)  # (attaches the run's buffer for it, if it names it)
        st.comms[name] = made


def _collective(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """A collective (a nonblocking one stores its request)."""
    _bind(st, op, (yield _call(st, op, op.call, _kwargs(st, op))))


def _split(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """A collective whose send buffer holds one item (of count elements) per rank."""
    kwargs = _kwargs(st, op)
    kwargs["sendbuf"] = [None] * st.mpi.comm_size(kwargs["comm"])
    _bind(st, op, (yield _call(st, op, op.call, kwargs)))


_PER_RANK = ("sendcounts", "recvcounts", "sendtypes")
"""A v or w form's arguments that hold one value per rank of the communicator."""


def _vector(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """A v or w form: a count (alltoallw: and a datatype) per rank of the communicator; a
    scatterv's receiver receives its own count of them."""
    kwargs = _kwargs(st, op)
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
    _bind(st, op, (yield _call(st, op, op.call, kwargs)))


def _per_rank(st: _Interpreter, op: Op, name: str, size: int) -> list[int]:
    """The counts of a list (one per rank) or of an expression in ``peer``."""
    kind, value = op.args[name]
    if kind == "list":
        if len(value) != size:
            raise st.error(op, f"{op.call}.{name}: {len(value)} counts for a communicator "
                           f"of {size} ranks")
        counts = [st.value(op, f"{op.call}.{name}[{k}]", "int", e) for k, e in enumerate(value)]
    else:
        scope = st.scope
        saved = scope.get(PEER, _UNSET)
        try:
            counts = []
            for k in range(size):
                scope[PEER] = k
                counts.append(st.value(op, f"{op.call}.{name} (peer {k})", "int", value))
        finally:
            if saved is _UNSET:
                scope.pop(PEER, None)
            else:
                scope[PEER] = saved
    for k, c in enumerate(counts):
        if c < 0:
            raise st.error(op, f"{op.call}.{name}: the count for rank {k} is {c} (negative)")
    return counts


def _types(st: _Interpreter, op: Op, size: int) -> list[Any]:
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


def _values(st: _Interpreter, op: Op, key: str, kind: str) -> list[Any] | Any:
    """A list argument's values (``("list", exprs)``), or its one value."""
    form, held = op.args[key]  # type: ignore[misc]
    if form == "list":
        return [st.value(op, f"{op.call}.{key}[{k}]", kind, e) for k, e in enumerate(held)]
    return st.value(op, f"{op.call}.{key}", kind, held)


def _topology(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
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
    made = yield _call(st, op, op.call, {"dims": dims, "periods": periods,
                                         "reorder": bool(st.arg(op, "reorder")),
                                         "comm": parent})
    name = op.binds["as"]
    if made is None:
        st.comms.pop(name, None)
    else:
        mpi.comm_set_name(made, name)
        st.comms[name] = made


def _query(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """A local call (cart_shift): its value's parts bound by name, nothing yielded."""
    st.mpi._where = op.where
    result = getattr(st.mpi, op.call)(**_kwargs(st, op))
    for part, value in zip(OPS[op.call].yields, result, strict=True):
        st.bind(op, part, value)
    return
    yield


def _window(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """win_allocate, win_create (over an array of ``size`` bytes): the window named by
    ``as`` (a scenario moves no data: its windows are read by nobody)."""
    kwargs = _kwargs(st, op)
    if op.call == "win_create":
        kwargs["base"] = np.zeros(kwargs.pop("size"), dtype=np.uint8)
    st.windows[op.binds["as"]] = yield _call(st, op, op.call, kwargs)


def _rma(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """An operation or synchronization on the window the op names (``win:``)."""
    if op.win not in st.windows:
        raise st.error(op, f"{op.call}.win: {op.win!r} is not made on this rank (its "
                       "win_allocate / win_create did not run here)")
    yield _call(st, op, op.call, {**_kwargs(st, op), "win": st.windows[op.win]})
    if op.call == "win_free":
        del st.windows[op.win]


def _file(st: _Interpreter, op: Op) -> Generator[Any, Any, None]:
    """An MPI-IO op (:mod:`mpisim.scenario.fileops`)."""
    yield from run_file(st, op, _call, _kwargs(st, op), _bind)


_RUNNERS = {"send": _local, "recv": _local, "probe": _local, "request": _request,
            "requests": _requests, "buffer": _buffer, "local": _local, "comm": _comm,
            "collective": _collective, "split": _split, "vector": _vector,
            "topology": _topology, "query": _query, "window": _window, "rma": _rma,
            "file": _file}
"""How each kind of op runs (the table's ``op``)."""

_CALLS = {name: _RUNNERS[c.op] for name, c in OPS.items()}
