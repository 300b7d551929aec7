"""The three kinds of RMA operation (MPI 4.1 §12.3), from the buffers a call gives to what
its operation does at the target and back at the origin.

- :func:`reading`: MPI_Get and MPI_Rget: the target's bytes come back into the origin's
  buffer;
- :func:`writing`: MPI_Put, MPI_Accumulate and their request forms: the origin's bytes go
  to the target, which writes or combines them;
- :func:`fetching`: MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and
  MPI_Rget_accumulate: both, atomically at the target.

Each checks what it can at the call (sizes that must match, an op the element type
supports), then lets :func:`~mpisim.rma.access.issue` check the window, epoch and range and
send it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.port import RankPort
from ..mpi.errors import ErrType
from .access import Target, issue
from .accumulate import NO_OP, combine, element_dtype
from .data import (
    accumulate_into,
    cas_into,
    check_sizes,
    origin_data,
    read,
    receiving,
    store,
    write,
)
from .operations import DATA, FETCH, READ, Operation

__all__ = ["CAS", "fetching", "reading", "writing"]

CAS = "CAS"
"""The op of MPI_Compare_and_swap (for the conflict check: an atomic op of its own)."""


def reading(rt: Any, port: RankPort, win: Any, call: str, where: Any, target: Target, buf: Any,
            count: Any, datatype: Any, space: Any) -> Operation:
    """A get: ``count`` x ``datatype`` into ``buf`` (None: its time only)."""
    count, datatype, nbytes = receiving(buf, count, datatype, call)
    tcount = target.fill(count, datatype)
    check_sizes(call, nbytes, tcount, target.datatype)

    def act(memory: np.ndarray, offset: int) -> Any:
        return None if buf is None else read(memory, offset, tcount, target.datatype)

    return issue(rt, port, win, call, where, target, nbytes, READ, act, nbytes,
                 lambda value: store(buf, count, datatype, value, space), True, None)


def writing(rt: Any, port: RankPort, win: Any, call: str, where: Any, target: Target, buf: Any,
            count: Any, datatype: Any, op: Any, space: Any) -> Operation:
    """A put (``op`` None) or an accumulate of ``buf``'s data."""
    count, datatype, nbytes, packed = origin_data(buf, count, datatype, space, call)
    tcount = target.fill(count, datatype)
    check_sizes(call, nbytes, tcount, target.datatype)
    if op is not None:
        check_elements(call, op, datatype, target.datatype, packed)

    def act(memory: np.ndarray, offset: int) -> None:
        if packed is None:
            return
        if op is None:
            write(memory, offset, packed, tcount, target.datatype)
        else:
            accumulate_into(memory, offset, packed, tcount, target.datatype, op, call)

    return issue(rt, port, win, call, where, target, nbytes, DATA, act, 0, None, False,
                 None if op is None else op.name)


def fetching(rt: Any, port: RankPort, win: Any, call: str, where: Any, target: Target, buf: Any,
             count: Any, datatype: Any, op: Any, result: tuple[Any, Any, Any],
             compare: Any, space: Any) -> Operation:
    """A fetching accumulate (``op``), or a compare-and-swap (``op`` CAS, ``compare``):
    ``result`` = (buffer, count, datatype) gets what the target held."""
    if op is NO_OP and buf is None:
        count = 0 if count is None else count  # an atomic read: no origin data
    count, datatype, nbytes, packed = origin_data(buf, count, datatype, space, call)
    tcount = target.fill(count, datatype)
    if op is not NO_OP:
        check_sizes(call, nbytes, tcount, target.datatype)
    rbuf, rcount, rdt = result
    rcount, rdt, rbytes = receiving(rbuf, rcount, rdt, call)
    check_sizes(call, rbytes, tcount, target.datatype)
    if op == CAS:
        expected = origin_data(compare, 1, datatype, space, call)[3]
        name = CAS

        def act(memory: np.ndarray, offset: int) -> Any:
            return cas_into(memory, offset, packed, expected, target.datatype)
    else:
        check_elements(call, op, datatype, target.datatype, packed)
        name = op.name

        def act(memory: np.ndarray, offset: int) -> Any:
            return accumulate_into(memory, offset, packed, tcount, target.datatype,
                                   op, call)

    return issue(rt, port, win, call, where, target, nbytes, FETCH, act, rbytes,
                 lambda value: store(rbuf, rcount, rdt, value, space), op is NO_OP, name)


def check_elements(call: str, op: Any, origin: Any, target: Any, packed: Any) -> None:
    """An accumulate's origin and target are of one predefined type, which ``op`` is
    defined on (MPI_ERR_TYPE, MPI_ERR_OP at the call, not at the target)."""
    dtype = element_dtype(target, call)
    if packed is None:
        return
    if element_dtype(origin, call) != dtype:
        raise ErrType(f"{call}: the origin's {origin.name} and the target's {target.name} "
                      "are not of the same predefined type (§12.3.4)")
    empty = np.zeros(0, dtype=dtype)
    combine(op, empty, empty, call)
