"""Point-to-point ops, the attached buffer and requests: grammar, reader, runners.

Sends (``send bsend ssend rsend isend ibsend issend irsend``)::

    - bsend: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
    - isend: {dest: right, bytes: 64 KiB, request: "r[i]"}

take ``dest`` (required), ``tag`` (default 0), the size as ``count`` + ``datatype`` (a basic
type name, default BYTE, or a param holding one) **or** ``bytes`` (a size: ``bytes: 64 KiB``
means 65536 elements of BYTE), ``comm``; nonblocking ones need ``request``.

- ``recv``/``irecv``: ``source`` (default ANY_SOURCE), ``tag`` (default ANY_TAG), ``count`` +
  ``datatype`` or ``bytes`` (the receive buffer), ``request`` for irecv.
- ``probe``/``iprobe``: ``source``, ``tag`` (same defaults).
- ``wait``/``test``: a request; ``waitall``/``waitany``/``waitsome``/``testall``: a list of
  requests; ``request_free``: a request. Short forms: ``wait: r``, ``waitall: [a, b]``.
- ``buffer_attach``: a size (``16 KiB``, or an expression in bytes), or
  ``{count: n, datatype: T, messages: k}`` meaning k * (pack_size(n, T) + BSEND_OVERHEAD).
  ``buffer_attach: BUFFER_AUTOMATIC`` attaches MPI 4.1's automatic buffer. ``comm: c``
  attaches the communicator's buffer (MPI 4.1 §3.6).
- ``buffer_detach: {}`` (``size: n`` binds the detached size), ``buffer_flush: {}`` (MPI 4.1),
  ``barrier: {}``.

Request names: ``request: r`` stores the request under ``r``; ``request: "r[i]"`` under ``r``
indexed by an expression. ``wait: "r[i]"`` waits for one; ``"r[*]"`` means every request
stored under ``r`` (the plain one first, then by index). Storing under a used name replaces
the old handle, as assigning a C variable does.

Status variables: ``status: {source: s, tag: t, count: n}`` (recv, probe, iprobe, wait,
waitany, test) sets variables from the status (``count`` in bytes), so a later op can say
``dest: s`` (reply to whoever sent). ``flag: f`` (iprobe, test, testall), ``index: i``
(waitany), ``outcount: n`` (waitsome), ``size: n`` (buffer_detach) likewise. When a test
finds nothing, its status variables keep their values.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...handle.calltable import OPS
from ...mpi.constants import BUFFER_AUTOMATIC
from ...mpi.datatypes import pack_size
from ...mpi.errors import MPIError
from ..expr import CONSTANTS, constant
from ..yamlload import line_of
from .reader import ReaderBase
from .running import RankState, bind, call, run_call
from .step import Op

__all__ = ["RUNNERS", "P2POps"]


def _extra(op: Op, *but: str) -> tuple[str, ...]:
    """The variables the op's call binds (the table's ``binds``), but ``but``."""
    return tuple(b for b in OPS[op.call].binds if b not in but)


class P2POps(ReaderBase):
    """The readers of sends, receives, probes, completions and the attached buffer."""

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


def _request(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """wait, test, request_free: the request stored under the op's name."""
    ref = op.request
    assert ref is not None  # (the reader refuses a wait, test or free without one)
    bind(st, op, (yield call(st, op, op.call, {"request": st.lookup(op, ref)})))


def _requests(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """waitall, waitany, waitsome, testall: every request the op names."""
    bind(st, op, (yield call(st, op, op.call, {"requests": st.lookup_all(op)})))


def _buffer(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """The process's buffer, or with ``comm:`` that communicator's (comm_<verb>_buffer)."""
    kwargs: dict[str, Any] = {}
    if op.call == "buffer_attach":
        kwargs["size"] = _attach_size(st, op)
    comm = st.comm(op)
    if op.comm is None:
        name = op.call
    else:
        name, kwargs["comm"] = f"comm_{op.call[len('buffer_'):]}_buffer", comm
    bind(st, op, (yield call(st, op, name, kwargs)))


def _attach_size(st: RankState, op: Op) -> Any:
    if "size" in op.args:
        return st.arg(op, "size")
    count, messages = st.arg(op, "count"), st.arg(op, "messages")
    try:
        return messages * (pack_size(count, st.datatype(op)) + st.mpi.BSEND_OVERHEAD)
    except MPIError as e:  # MPI_Pack_size refused the count: name the op and its line
        raise st.error(op, f"buffer_attach: MPI_Pack_size: {e}") from None


RUNNERS = {"send": run_call, "recv": run_call, "probe": run_call, "request": _request,
           "requests": _requests, "buffer": _buffer}
"""How each kind of op of this family runs (the call table's ``op``)."""
