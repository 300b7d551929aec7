"""What every op's runner uses: the rank's state, the call made where the op is, bindings.

A runner is ``runner(st, op)``, a generator that evaluates the op's arguments in the rank's
scope, sets the handle's call site to the op's location, yields the handle's call and binds
what the op names from its value. :class:`RankState` is the part of the interpreter
(:class:`mpisim.scenario.interpret.Program`'s per-rank state) the runners may use.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any, Protocol

from ...engine.port import RankPort
from ...handle.calltable import OPS
from ..expr import Expr
from ..problems import ScenarioRuntimeError
from .step import Op, RequestRef

__all__ = ["PER_RANK", "UNSET", "RankState", "bind", "call", "kwargs_of", "name_comm",
           "run_call"]

UNSET = object()
"""A variable that was not in scope (restored by removing it)."""

PER_RANK = ("sendcounts", "recvcounts", "sendtypes")
"""A v or w form's arguments that hold one value per rank of the communicator."""


class RankState(Protocol):
    """One rank's variables, communicators, windows, files and requests while its ops run."""

    mpi: Any
    port: RankPort
    scope: dict[str, Any]
    spins: int
    comms: dict[str, Any]
    windows: dict[str, Any]
    files: dict[str, Any]

    def run(self, ops: Iterable[Op]) -> Generator[Any, Any, None]: ...
    def fork(self) -> RankState: ...
    def spin(self, op: Op) -> None: ...
    def arg(self, op: Op, key: str) -> Any: ...
    def value(self, op: Op, what: str, kind: str, expr: Expr) -> Any: ...
    def datatype(self, op: Op) -> Any: ...
    def comm(self, op: Op) -> Any: ...
    def error(self, op: Op, message: str) -> ScenarioRuntimeError: ...
    def bind_status(self, op: Op, status: Any) -> None: ...
    def bind(self, op: Op, key: str, value: Any) -> None: ...
    def store(self, op: Op, ref: RequestRef, request: Any) -> None: ...
    def lookup(self, op: Op, ref: RequestRef) -> Any: ...
    def lookup_all(self, op: Op) -> list[Any]: ...


def kwargs_of(st: RankState, op: Op) -> dict[str, Any]:
    """The op's arguments under the handle's parameter names (the table's ``args``); a v
    form's per-rank counts and types are the collective family's."""
    kwargs: dict[str, Any] = {}
    for name in OPS[op.call].args:
        if name == "datatype":
            kwargs[name] = st.datatype(op)
        elif name == "comm":
            kwargs[name] = st.comm(op)
        elif name in op.args and name not in PER_RANK:
            kwargs[name] = st.arg(op, name)
    return kwargs


def call(st: RankState, op: Op, name: str, kwargs: dict[str, Any]) -> Any:
    """The event of the handle's call ``name``, made where the op is (reports name the op)."""
    st.port.where = op.where
    st.spins = 0
    return getattr(st.mpi, name)(**kwargs)


def bind(st: RankState, op: Op, result: Any) -> None:
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


def run_call(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """A call whose op gives exactly the handle's arguments (point-to-point, collectives,
    barrier, compute)."""
    bind(st, op, (yield call(st, op, op.call, kwargs_of(st, op))))


def name_comm(st: RankState, op: Op, made: Any) -> None:
    """Name a new communicator by the op's ``as`` (MPI_COMM_NULL forgets the name)."""
    name = op.binds["as"]
    if made is None:
        st.comms.pop(name, None)
    else:
        st.mpi.comm_set_name(made, name)  # (attaches the run's buffer for it, if it names it)
        st.comms[name] = made
