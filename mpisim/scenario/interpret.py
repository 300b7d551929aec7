"""Interpreting a scenario's ops: the program that ``ms.run`` calls for every rank.

:class:`Program` is a picklable callable object (not a closure), so a loaded scenario can be
sent to worker processes. ``program(mpi, **params)`` returns the rank's generator: it runs,
in file order, the ops of every ``programs`` entry whose selector contains the rank (a rank
in no entry runs nothing). Before each MPI call it sets the rank's ``port.where`` to the op's
location,
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

import copy
from collections.abc import Generator, Iterable
from typing import Any

from ..handle.access import port_of
from ..handle.calltable import OPS
from ..mpi.datatypes import BASIC_TYPES
from .expr import CONSTANTS, Expr, ExprError
from .ops import CONTROL, RUNNERS, SELF, Op, RequestRef
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

    __slots__ = ("comms", "files", "mpi", "port", "requests", "scope", "spins", "windows")

    def __init__(self, mpi: Any, params: dict[str, Any]) -> None:
        self.mpi = mpi
        self.port = port_of(mpi)  # where each op's call is made (reports name the op)
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

    def run(self, ops: Iterable[Op]) -> Generator[Any, Any, None]:
        """Run ops in order, each by its family's runner (:mod:`mpisim.scenario.ops`)."""
        for op in ops:
            yield from _CALLS[op.call](self, op)

    def fork(self) -> _Interpreter:
        """The state of a thread the rank starts (a ``thread`` op): a copy of the variables;
        the requests, communicators, windows and files are the rank's, shared."""
        own = copy.copy(self)
        own.scope = dict(self.scope)
        own.spins = 0
        return own

    def spin(self, op: Op) -> None:
        """Count a loop iteration or if test; too many without an MPI call is an error."""
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


def _show(key: tuple[str, Any]) -> str:
    return repr(key[0] if key[1] is None else f"{key[0]}[{key[1]}]")


_CALLS = {**{name: RUNNERS[c.op] for name, c in OPS.items() if c.op is not None},
          **{name: RUNNERS[name] for name in CONTROL}}
"""The runner of each op (:data:`mpisim.scenario.ops.RUNNERS`, by the call table's kind)."""
