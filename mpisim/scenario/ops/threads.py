"""Threads of a rank (MPI 4.1 §11.6): ``init_thread``, ``thread``, ``join``, and the level.

- ``init_thread: multiple`` (long form ``{required: multiple, provided: p}``): MPI_Init_thread
  (§11.2.1), the rank's first op. ``required`` is ``single``, ``funneled``, ``serialized``
  or ``multiple`` (or 0..3, or a param holding one); ``provided`` binds the level given (as
  MPICH and Open MPI do, the level asked for). Without it a rank runs at ``single``,
  MPI_Init's level.
- ``query_thread: {provided: p}``: MPI_Query_thread, the level (0..3) bound to ``p``.
- ``is_thread_main: {flag: m}``: MPI_Is_thread_main, whether the op runs in the rank's
  main thread (its program, not a ``thread:`` body).
- ``thread: {name: comm, ops: [...]}`` (``daemon: true`` optional): start a thread of the
  rank running ``ops`` (the same op grammar) beside the ops that follow, at the current
  simulated time. Its ops block only it. It sees the variables set before it started and
  binds its own: what it binds is not seen by the rank's other ops, and names it binds are
  known to its own ops only. Requests, communicators, windows and files are the rank's,
  shared by its threads (a request may be waited on from either: MPI 4.1 §11.6.2 forbids
  two threads waiting on the same one, a finding, ``thread-same-request``).
- ``join: comm`` (or ``join: [comm, io]``): wait for the end of every thread of that name
  the rank has started (a ``thread`` op in a loop starts several).

A rank's ops that end with threads still running wait for them in MPI_Finalize (not for a
``daemon: true`` one), as a process's exit joins its threads. A deadlock or an error in a
thread's op is reported at that op's line, with the thread's name. Calls from threads are
checked against the level (findings ``thread-level``, ``thread-same-request``,
``thread-concurrent-collective``, ``thread-probe-race``).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...handle.access import threads_of
from ...handle.calltable import OPS
from ...mpi.constants import THREAD_LEVELS
from ...mpi.errors import MPIError
from ..expr import constant, parse_expr
from ..values import describe
from ..yamlload import line_of
from .reader import ReaderBase
from .running import RankState, kwargs_of
from .step import Op

__all__ = ["MAKES", "RUNNERS", "ThreadOps"]

MAKES = {"thread": "spawn_thread"}
"""The ops of this family that make a handle call under another name."""


class ThreadOps(ReaderBase):
    """The readers of the thread ops."""

    def _init_thread(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("required", "provided"), ("required",),
                          short="required")
        if "required" in m:
            self._required(op, m["required"], f"{path}.required",
                           line_of(m, "required", line))
        self._bind(op, m, "provided", path, line)

    def _required(self, op: Op, value: Any, path: str, line: int) -> None:
        """A level's name or number, or a param holding one (``--set level=funneled``)."""
        held = self.params.get(value) if isinstance(value, str) else None
        if held is not None and _level(held) is not None:
            op.args["required"] = ("any", parse_expr(value))  # (read when it runs)
            return
        level = _level(value)
        if level is None:
            shown = f"param {value!r} holding {describe(held)}" if held is not None else \
                describe(value)
            self._problem(line, path, f"expected a thread level ({', '.join(THREAD_LEVELS)}"
                          f", 0..3, or a param holding one), got {shown}")
            return
        op.args["required"] = ("int", constant(level))

    def _query_thread(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("provided",), ())
        self._bind(op, m, "provided", path, line)

    def _is_thread_main(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("flag",), ())
        self._bind(op, m, "flag", path, line)

    def _thread(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("name", "ops", "daemon"), ("name", "ops"))
        if "name" in m:
            name = m["name"]
            if isinstance(name, str) and name.strip():
                op.var = name
            else:
                self._problem(line_of(m, "name", line), f"{path}.name",
                              f"expected the thread's name, got {describe(name)}")
        if "daemon" in m:
            if isinstance(m["daemon"], bool):
                op.args["daemon"] = ("any", constant(m["daemon"]))
            else:
                self._problem(line_of(m, "daemon", line), f"{path}.daemon",
                              f"expected true or false, got {describe(m['daemon'])}")
        bound = set(self.bound)  # what the thread binds is its own
        op.body = self.read_ops(m.get("ops"), f"{path}.ops", line_of(m, "ops", line))
        self.bound = bound
        if op.var:
            self.thread_names.add(op.var)

    def _join(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        names = value if isinstance(value, list) else [value]
        for k, name in enumerate(names):
            where = f"{path}[{k}]" if isinstance(value, list) else path
            nline = line_of(value, k, line) if isinstance(value, list) else line
            if not isinstance(name, str) or name not in self.thread_names:
                shown = repr(name) if isinstance(name, str) else describe(name)
                self._problem(nline, where, f"no thread named {shown}: a thread op earlier "
                              "in the file names each thread a join waits for")
            else:
                op.threads.append(name)
        if not names:
            self._problem(line, path, "expected a thread name or a list of them, got []")


def _level(value: Any) -> int | None:
    if isinstance(value, str) and value.lower() in THREAD_LEVELS:
        return THREAD_LEVELS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return value
    return None


def _level_call(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """MPI_Init_thread, MPI_Query_thread, MPI_Is_thread_main: local, the value bound. A
    refused level (after the rank's first call) is the op's error, at its line: the call
    is local, so the run's report would name the rank's last MPI call instead."""
    st.port.where = op.where
    try:
        value = getattr(st.mpi, op.call)(**kwargs_of(st, op))
    except MPIError as e:
        raise st.error(op, str(e)) from None
    st.bind(op, OPS[op.call].yields[0], value)
    return
    yield


def _thread(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """Start the thread: its ops on a state of their own (a copy of the variables, the
    rank's requests, communicators, windows and files)."""
    own = st.fork()
    daemon = bool(st.arg(op, "daemon")) if "daemon" in op.args else False
    st.port.where = op.where
    st.mpi.spawn_thread(_body, own, op.body, name=op.var, daemon=daemon)
    return
    yield


def _body(st: RankState, ops: list[Op]) -> Generator[Any, Any, None]:
    yield from st.run(ops)


def _join(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """Wait for every thread of the names given that the rank started."""
    names = set(op.threads)
    threads = [t for t in threads_of(st.mpi) if t.name in names]
    missing = names - {t.name for t in threads}
    if missing:
        raise st.error(op, f"join: no thread named {', '.join(map(repr, sorted(missing)))} "
                       "was started on this rank (its thread op did not run here)")
    st.port.where = op.where
    st.spins = 0
    for thread in threads:  # noqa: UP028 - a thread's end sends its value: no list can take it
        yield thread


RUNNERS = {"level": _level_call, "thread": _thread, "join": _join}
"""How each kind of op of this family runs: the call table's ``level`` kind, and the
``thread`` and ``join`` ops (by name: they are not the handle's calls)."""
