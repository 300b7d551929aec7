"""Collective operations (MPI 4.1 §6) over any communicator, built from point-to-point
messages (see :mod:`.channel`) by the algorithms of :mod:`.algorithms`.

:class:`Collectives` starts one process's part of a collective call: it checks the
arguments, picks the algorithm (the call's ``algorithm=``, else the run's
``mpi.collectives`` setting, else the profile's default), and runs the algorithm as a SimPy
process whose value is the call's result. Blocking calls yield that process; nonblocking
ones (``ibcast``...) return a Request that completes with it, its value in
``request.result``.

Data: a numpy array travels as its bytes (and arrives as a copy); any other Python object
travels as ``count`` elements of ``datatype`` (0 bytes when no count is given), as for
point-to-point calls. Reductions apply the op elementwise (numpy arrays, lists) or to the
values (numbers, or anything a user op takes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.clock import done, failed
from ..mpi import datatypes as _dt
from ..mpi.errors import ErrArg, ErrCount, ErrRoot, MPIError
from ..p2p.requests import Request, Status
from ..values.readers import SettingError
from .algorithms import ALGORITHMS, Args
from .channel import Channel, Entered
from .ops import (
    BAND,
    BOR,
    BXOR,
    LAND,
    LOR,
    LXOR,
    MAX,
    MAXLOC,
    MIN,
    MINLOC,
    OPS,
    PROD,
    SUM,
    Op,
    as_op,
)

__all__ = ["ALGORITHMS", "BAND", "BOR", "BXOR", "DEFAULTS", "LAND", "LOR", "LXOR", "MAX",
           "MAXLOC", "MIN", "MINLOC", "OPS", "PROD", "SUM", "Collectives", "Op",
           "check_algorithms"]

DEFAULTS: dict[str, dict[str, str]] = {
    # the standard's profile: the first (textbook) algorithm of each collective
    "standard": {kind: next(iter(algs)) for kind, algs in ALGORITHMS.items()},
    # MPICH's choices for short messages (src/mpi/coll/*/ *_intra_auto: binomial bcast below
    # 12 KiB, recursive doubling allreduce below 2 KiB and allgather for powers of two,
    # dissemination barrier, pairwise alltoall above the Bruck range)
    "mpich": {"barrier": "dissemination", "bcast": "binomial", "reduce": "binomial",
              "allreduce": "recursive_doubling", "gather": "binomial", "scatter": "binomial",
              "allgather": "recursive_doubling", "alltoall": "pairwise",
              "scan": "recursive_doubling"},
    # Open MPI's coll/tuned fixed decisions for few processes and short messages
    # (coll_tuned_decision_fixed.c: linear alltoall and gather, ring allgather, recursive
    # doubling allreduce, binomial bcast)
    "openmpi": {"barrier": "dissemination", "bcast": "binomial", "reduce": "binomial",
                "allreduce": "recursive_doubling", "gather": "linear", "scatter": "binomial",
                "allgather": "ring", "alltoall": "linear", "scan": "linear"},
}
"""Each profile's algorithm per collective (collectives not named take the standard's)."""


def check_algorithms(chosen: dict[str, str]) -> dict[str, str]:
    """``chosen`` (collective -> algorithm) if every name is known; else SettingError naming
    ``mpi.collectives.<collective>``."""
    for kind, alg in chosen.items():
        if kind not in ALGORITHMS:
            raise SettingError(f"mpi.collectives.{kind}", "unknown collective (valid: "
                               f"{', '.join(ALGORITHMS)})")
        if alg not in ALGORITHMS[kind]:
            raise SettingError(f"mpi.collectives.{kind}", f"unknown algorithm {alg!r} (one of "
                               f"{', '.join(ALGORITHMS[kind])})")
    return chosen


class Collectives:
    """Starts collective calls for every process of one run."""

    def __init__(self, env: Any, transport: Any, profile: str,
                 chosen: dict[str, str] | None = None) -> None:
        self.env = env
        self.tp = transport
        self.choice = {**DEFAULTS["standard"], **DEFAULTS.get(profile, {}),
                       **check_algorithms(chosen or {})}
        self.entered = Entered()

    def start(self, mpi: Any, call: str, kind: str, comm: Any, algorithm: str | None,
              blocking: bool, make_args: Any, recvbuf: Any = None) -> Any:
        """One process's part of ``call``: an event (blocking) or a Request. A numpy
        ``recvbuf`` receives the value too."""
        env = self.env
        try:
            comm = mpi._comm(comm)
            args = make_args(comm)
            alg = ALGORITHMS[kind].get(algorithm or self.choice[kind])
            if alg is None:
                raise ErrArg(f"{call}: unknown algorithm {algorithm!r} (one of "
                             f"{', '.join(ALGORITHMS[kind])})")
        except MPIError as e:
            mpi._enter(call)
            return failed(env, e)
        tag = comm.colls
        comm.colls += 1
        ch = Channel(env, self.tp, comm, call, tag, self.entered)
        mpi._enter(call, nbytes=args.nbytes, obj=ch)
        gen = alg(ch, args)
        proc = env.process(gen if recvbuf is None else _into(gen, recvbuf))
        if blocking:
            return proc
        req = Request("coll", call, ch.me, -1, -1, args.nbytes)
        proc.callbacks.append(lambda p: _complete(req, p, env))
        return done(env, req)


def _into(gen: Any, recvbuf: Any) -> Any:
    value = yield from gen
    if isinstance(value, np.ndarray) and isinstance(recvbuf, np.ndarray):
        recvbuf[...] = value.reshape(recvbuf.shape)
    return value


def _complete(req: Request, proc: Any, env: Any) -> None:
    if proc._ok:
        req.result = proc._value
    else:
        proc._defused = True
        req.error = proc._value
    req.status = Status(-1, -1, 0)
    req.known(env._now)


# -- arguments ----------------------------------------------------------------------------
def nbytes_of(buf: Any, count: Any, datatype: Any) -> int:
    """Bytes a value travels as: a numpy array's, else count x datatype size (0 if none)."""
    if isinstance(buf, np.ndarray) and count is None:
        return int(buf.nbytes)
    if count is None:
        return 0
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ErrCount(f"count must be a non-negative integer, got {count!r}")
    dt = _dt.BYTE if datatype is None else datatype
    if not isinstance(dt, _dt.Datatype):
        raise ErrArg(f"{datatype!r} is not a datatype")
    return count * dt.size


def check_root(root: Any, comm: Any) -> int:
    if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < comm.size:
        raise ErrRoot(f"root {root!r} is not a rank of {comm.name} (size {comm.size})")
    return root


def split_items(buf: Any, size: int, count: Any, datatype: Any, what: str) -> Args:
    """One item per rank from a list/tuple of ``size`` items or a numpy array cut in
    ``size`` equal parts (unequal for the v forms)."""
    if isinstance(buf, np.ndarray):
        parts = np.array_split(buf.reshape(-1) if buf.ndim != 2 or len(buf) != size else buf,
                               size)
        return Args(items=parts, sizes=[int(p.nbytes) for p in parts])
    if not isinstance(buf, list | tuple) or len(buf) != size:
        raise ErrArg(f"{what}: expected a list of {size} items (one per rank) or a numpy "
                     f"array, got {type(buf).__name__}")
    return Args(items=list(buf), sizes=[nbytes_of(x, count, datatype) for x in buf])


def reduction(sendbuf: Any, count: Any, datatype: Any, op: Any) -> Args:
    return Args(value=sendbuf, nbytes=nbytes_of(sendbuf, count, datatype), op=as_op(op))
