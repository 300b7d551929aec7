"""The collective calls of the ``mpi`` handle (MPI 4.1 §6), and their nonblocking forms.

Each is a method of :class:`~mpisim.handle.rank.Rank` (assigned in its class body): it describes
the call's data as :class:`~.algorithms.Args` and lets the run's
:class:`~mpisim.collectives.Collectives` start it. All take ``comm=`` (default
MPI_COMM_WORLD) and ``algorithm=`` (default: the run's choice, see ``DEFAULTS``).
Blocking calls yield the value; nonblocking ones (``i`` prefix) yield a Request whose
``result`` holds it once a wait or test has completed it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..collectives import check_root, nbytes_of, reduction, split_items
from ..collectives.algorithms import Args
from ..collectives.ops import SUM

__all__ = ["ALL"]


def _start(mpi: Any, call: str, kind: str, comm: Any, algorithm: Any, make: Any,
           recvbuf: Any = None) -> Any:
    blocking = not call.startswith("MPI_I")
    return mpi._colls.start(mpi, call, kind, comm, algorithm, blocking, make, recvbuf)


def barrier(self: Any, comm: Any = None, algorithm: Any = None) -> Any:
    """MPI_Barrier: completes once every member of ``comm`` has entered it."""
    return _start(self, "MPI_Barrier", "barrier", comm, algorithm, lambda c: Args())


def ibarrier(self: Any, comm: Any = None, algorithm: Any = None) -> Any:
    """MPI_Ibarrier: yields a Request."""
    return _start(self, "MPI_Ibarrier", "barrier", comm, algorithm, lambda c: Args())


def _bcast(call: str) -> Any:
    def bcast(self: Any, buf: Any = None, count: Any = None, datatype: Any = None,
              root: int = 0, comm: Any = None, algorithm: Any = None) -> Any:
        return _start(self, call, "bcast", comm, algorithm,
                      lambda c: Args(buf, nbytes_of(buf, count, datatype), check_root(root, c)),
                      buf if isinstance(buf, np.ndarray) else None)
    bcast.__doc__ = f"{call}: every rank gets the root's ``buf`` (into a numpy ``buf`` too)."
    return bcast


def _reduce(call: str, kind: str, rooted: bool) -> Any:
    def reduce(self: Any, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
               datatype: Any = None, op: Any = SUM, root: int = 0, comm: Any = None,
               algorithm: Any = None) -> Any:
        def make(c: Any) -> Args:
            a = reduction(sendbuf, count, datatype, op)
            a.root = check_root(root, c) if rooted else 0
            return a
        return _start(self, call, kind, comm, algorithm, make, recvbuf)
    where = "the root gets" if rooted else "every rank gets"
    reduce.__doc__ = (f"{call}: {where} ``op`` over every rank's ``sendbuf`` (numpy arrays "
                      "elementwise; copied into ``recvbuf`` when given).")
    return reduce


def _gather(call: str, kind: str) -> Any:
    def gather(self: Any, sendbuf: Any = None, count: Any = None, datatype: Any = None,
               root: int = 0, comm: Any = None, algorithm: Any = None) -> Any:
        rooted = "all" not in kind
        return _start(self, call, kind, comm, algorithm,
                      lambda c: Args(sendbuf, nbytes_of(sendbuf, count, datatype),
                                     check_root(root, c) if rooted else 0))
    gather.__doc__ = (f"{call}: a list of every rank's ``sendbuf``, in rank order, at "
                      + ("every rank." if "all" in kind else "the root (None elsewhere)."))
    return gather


def _scatter(call: str, kind: str) -> Any:
    def scatter(self: Any, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                root: int = 0, comm: Any = None, algorithm: Any = None) -> Any:
        def make(c: Any) -> Args:
            r = check_root(root, c)
            a = split_items(sendbuf, c.size, count, datatype, call) if c.rank == r else Args()
            a.root = r
            return a
        return _start(self, call, kind, comm, algorithm, make)
    scatter.__doc__ = (f"{call}: each rank gets its item of the root's ``sendbuf`` (a list "
                       "of one item per rank, or a numpy array cut in equal parts).")
    return scatter


def _alltoall(call: str, kind: str) -> Any:
    def alltoall(self: Any, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 comm: Any = None, algorithm: Any = None) -> Any:
        return _start(self, call, kind, comm, algorithm,
                      lambda c: split_items(sendbuf, c.size, count, datatype, call))
    alltoall.__doc__ = (f"{call}: item k of every rank's ``sendbuf`` goes to rank k; each "
                        "rank gets the list of the items sent to it.")
    return alltoall


def _reduce_scatter_block(call: str) -> Any:
    def reduce_scatter_block(self: Any, sendbuf: Any = None, count: Any = None,
                             datatype: Any = None, op: Any = SUM, comm: Any = None,
                             algorithm: Any = None) -> Any:
        def make(c: Any) -> Args:
            a = split_items(sendbuf, c.size, count, datatype, call)
            a.op = reduction(None, None, None, op).op
            return a
        return _start(self, call, "reduce_scatter_block", comm, algorithm, make)
    reduce_scatter_block.__doc__ = (f"{call}: block k of the reduction over every rank's "
                                    "``sendbuf`` (p equal blocks) goes to rank k.")
    return reduce_scatter_block


ALL = {
    "barrier": barrier, "ibarrier": ibarrier,
    "bcast": _bcast("MPI_Bcast"), "ibcast": _bcast("MPI_Ibcast"),
    "reduce": _reduce("MPI_Reduce", "reduce", True),
    "ireduce": _reduce("MPI_Ireduce", "reduce", True),
    "allreduce": _reduce("MPI_Allreduce", "allreduce", False),
    "iallreduce": _reduce("MPI_Iallreduce", "allreduce", False),
    "scan": _reduce("MPI_Scan", "scan", False), "iscan": _reduce("MPI_Iscan", "scan", False),
    "exscan": _reduce("MPI_Exscan", "exscan", False),
    "iexscan": _reduce("MPI_Iexscan", "exscan", False),
    "gather": _gather("MPI_Gather", "gather"), "igather": _gather("MPI_Igather", "gather"),
    "gatherv": _gather("MPI_Gatherv", "gatherv"),
    "igatherv": _gather("MPI_Igatherv", "gatherv"),
    "allgather": _gather("MPI_Allgather", "allgather"),
    "iallgather": _gather("MPI_Iallgather", "allgather"),
    "allgatherv": _gather("MPI_Allgatherv", "allgatherv"),
    "iallgatherv": _gather("MPI_Iallgatherv", "allgatherv"),
    "scatter": _scatter("MPI_Scatter", "scatter"),
    "iscatter": _scatter("MPI_Iscatter", "scatter"),
    "scatterv": _scatter("MPI_Scatterv", "scatterv"),
    "iscatterv": _scatter("MPI_Iscatterv", "scatterv"),
    "alltoall": _alltoall("MPI_Alltoall", "alltoall"),
    "ialltoall": _alltoall("MPI_Ialltoall", "alltoall"),
    "alltoallv": _alltoall("MPI_Alltoallv", "alltoallv"),
    "ialltoallv": _alltoall("MPI_Ialltoallv", "alltoallv"),
    "reduce_scatter_block": _reduce_scatter_block("MPI_Reduce_scatter_block"),
    "ireduce_scatter_block": _reduce_scatter_block("MPI_Ireduce_scatter_block"),
}
"""Every collective call of the handle, by method name."""
