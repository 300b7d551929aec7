"""The collective calls of the ``mpi`` handle (MPI 4.1 §6), and their nonblocking forms.

Each method describes the call's data as :class:`~mpisim.collectives.algorithms.Args` and
lets the run's :class:`~mpisim.collectives.Collectives` start it. All take ``comm=``
(default MPI_COMM_WORLD) and ``algorithm=`` (default: the run's choice, see
``mpisim.collectives.DEFAULTS``). Blocking calls yield the value; nonblocking ones (``i``
prefix) yield a Request whose ``result`` holds it once a wait or test has completed it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from simpy.events import Event

from ..collectives import check_root, nbytes_of, reduction, split_items
from ..collectives.algorithms import Args
from ..collectives.ops import SUM
from .base import HandleBase

__all__ = ["CollectiveCalls"]


class CollectiveCalls(HandleBase):
    """MPI 4.1 §6: barrier, broadcast, reductions, gathers, scatters, all-to-all, scans."""

    __slots__ = ()

    def barrier(self, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Barrier: completes once every member of ``comm`` has entered it."""
        return _start(self, "MPI_Barrier", "barrier", comm, algorithm, _no_args)

    def ibarrier(self, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ibarrier: completes once every member of ``comm`` has entered it. Yields a Request
        whose ``result`` holds the value."""
        return _start(self, "MPI_Ibarrier", "barrier", comm, algorithm, _no_args)

    def bcast(self, buf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
              comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Bcast: every rank gets the root's ``buf`` (into a numpy ``buf`` too)."""
        return _bcast(self, "MPI_Bcast", buf, count, datatype, root, comm, algorithm)

    def ibcast(self, buf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
               comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ibcast: every rank gets the root's ``buf`` (into a numpy ``buf`` too). Yields a
        Request whose ``result`` holds the value."""
        return _bcast(self, "MPI_Ibcast", buf, count, datatype, root, comm, algorithm)

    def reduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
               datatype: Any = None, op: Any = SUM, root: int = 0, comm: Any = None,
               algorithm: Any = None) -> Event:
        """MPI_Reduce: the root gets ``op`` over every rank's ``sendbuf`` (numpy arrays elementwise;
        copied into ``recvbuf`` when given)."""
        return _reduce(self, "MPI_Reduce", "reduce", sendbuf, recvbuf, count, datatype, op, root,
                       comm, algorithm)

    def ireduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                datatype: Any = None, op: Any = SUM, root: int = 0, comm: Any = None,
                algorithm: Any = None) -> Event:
        """MPI_Ireduce: the root gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given). Yields a Request whose ``result`` holds
        the value."""
        return _reduce(self, "MPI_Ireduce", "reduce", sendbuf, recvbuf, count, datatype, op, root,
                       comm, algorithm)

    def allreduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                  datatype: Any = None, op: Any = SUM, comm: Any = None,
                  algorithm: Any = None) -> Event:
        """MPI_Allreduce: every rank gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given)."""
        return _reduce(self, "MPI_Allreduce", "allreduce", sendbuf, recvbuf, count, datatype, op,
                       None, comm, algorithm)

    def iallreduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                   datatype: Any = None, op: Any = SUM, comm: Any = None,
                   algorithm: Any = None) -> Event:
        """MPI_Iallreduce: every rank gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given). Yields a Request whose ``result`` holds
        the value."""
        return _reduce(self, "MPI_Iallreduce", "allreduce", sendbuf, recvbuf, count, datatype, op,
                       None, comm, algorithm)

    def scan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
             datatype: Any = None, op: Any = SUM, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Scan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r (numpy arrays
        elementwise; copied into ``recvbuf`` when given)."""
        return _reduce(self, "MPI_Scan", "scan", sendbuf, recvbuf, count, datatype, op, None, comm,
                       algorithm)

    def iscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
              datatype: Any = None, op: Any = SUM, comm: Any = None,
              algorithm: Any = None) -> Event:
        """MPI_Iscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r (numpy arrays
        elementwise; copied into ``recvbuf`` when given). Yields a Request whose ``result`` holds
        the value."""
        return _reduce(self, "MPI_Iscan", "scan", sendbuf, recvbuf, count, datatype, op, None, comm,
                       algorithm)

    def exscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
               datatype: Any = None, op: Any = SUM, comm: Any = None,
               algorithm: Any = None) -> Event:
        """MPI_Exscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r - 1, rank 0 None
        (numpy arrays elementwise; copied into ``recvbuf`` when given)."""
        return _reduce(self, "MPI_Exscan", "exscan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def iexscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                datatype: Any = None, op: Any = SUM, comm: Any = None,
                algorithm: Any = None) -> Event:
        """MPI_Iexscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r - 1, rank 0 None
        (numpy arrays elementwise; copied into ``recvbuf`` when given). Yields a Request whose
        ``result`` holds the value."""
        return _reduce(self, "MPI_Iexscan", "exscan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def gather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
               comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Gather: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere)."""
        return _gather(self, "MPI_Gather", "gather", sendbuf, count, datatype, root, comm,
                       algorithm)

    def igather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Igather: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere). Yields a Request whose ``result`` holds the value."""
        return _gather(self, "MPI_Igather", "gather", sendbuf, count, datatype, root, comm,
                       algorithm)

    def gatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Gatherv: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere)."""
        return _gather(self, "MPI_Gatherv", "gatherv", sendbuf, count, datatype, root, comm,
                       algorithm)

    def igatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                 comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Igatherv: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere). Yields a Request whose ``result`` holds the value."""
        return _gather(self, "MPI_Igatherv", "gatherv", sendbuf, count, datatype, root, comm,
                       algorithm)

    def allgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Allgather: a list of every rank's ``sendbuf``, in rank order, at every rank."""
        return _gather(self, "MPI_Allgather", "allgather", sendbuf, count, datatype, None, comm,
                       algorithm)

    def iallgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Iallgather: a list of every rank's ``sendbuf``, in rank order, at every rank. Yields
        a Request whose ``result`` holds the value."""
        return _gather(self, "MPI_Iallgather", "allgather", sendbuf, count, datatype, None, comm,
                       algorithm)

    def allgatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Allgatherv: a list of every rank's ``sendbuf``, in rank order, at every rank."""
        return _gather(self, "MPI_Allgatherv", "allgatherv", sendbuf, count, datatype, None, comm,
                       algorithm)

    def iallgatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                    comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Iallgatherv: a list of every rank's ``sendbuf``, in rank order, at every rank. Yields
        a Request whose ``result`` holds the value."""
        return _gather(self, "MPI_Iallgatherv", "allgatherv", sendbuf, count, datatype, None, comm,
                       algorithm)

    def scatter(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Scatter: each rank gets its item of the root's ``sendbuf`` (a list of one item per
        rank, or a numpy array cut in equal parts)."""
        return _scatter(self, "MPI_Scatter", "scatter", sendbuf, count, datatype, root, comm,
                        algorithm)

    def iscatter(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                 comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Iscatter: each rank gets its item of the root's ``sendbuf`` (a list of one item per
        rank, or a numpy array cut in equal parts). Yields a Request whose ``result`` holds the
        value."""
        return _scatter(self, "MPI_Iscatter", "scatter", sendbuf, count, datatype, root, comm,
                        algorithm)

    def scatterv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                 comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Scatterv: each rank gets its item of the root's ``sendbuf`` (a list of one item per
        rank, or a numpy array cut in equal parts)."""
        return _scatter(self, "MPI_Scatterv", "scatterv", sendbuf, count, datatype, root, comm,
                        algorithm)

    def iscatterv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None, root: int = 0,
                  comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Iscatterv: each rank gets its item of the root's ``sendbuf`` (a list of one item per
        rank, or a numpy array cut in equal parts). Yields a Request whose ``result`` holds the
        value."""
        return _scatter(self, "MPI_Iscatterv", "scatterv", sendbuf, count, datatype, root, comm,
                        algorithm)

    def alltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Alltoall: item k of every rank's ``sendbuf`` goes to rank k; each rank gets the list
        of the items sent to it."""
        return _alltoall(self, "MPI_Alltoall", "alltoall", sendbuf, count, datatype, comm,
                         algorithm)

    def ialltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ialltoall: item k of every rank's ``sendbuf`` goes to rank k; each rank gets the list
        of the items sent to it. Yields a Request whose ``result`` holds the value."""
        return _alltoall(self, "MPI_Ialltoall", "alltoall", sendbuf, count, datatype, comm,
                         algorithm)

    def alltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Alltoallv: item k of every rank's ``sendbuf`` goes to rank k; each rank gets the list
        of the items sent to it."""
        return _alltoall(self, "MPI_Alltoallv", "alltoallv", sendbuf, count, datatype, comm,
                         algorithm)

    def ialltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ialltoallv: item k of every rank's ``sendbuf`` goes to rank k; each rank gets the
        list of the items sent to it. Yields a Request whose ``result`` holds the value."""
        return _alltoall(self, "MPI_Ialltoallv", "alltoallv", sendbuf, count, datatype, comm,
                         algorithm)

    def reduce_scatter_block(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                             op: Any = SUM, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Reduce_scatter_block: block k of the reduction over every rank's ``sendbuf`` (p equal
        blocks) goes to rank k."""
        return _reduce_scatter_block(self, "MPI_Reduce_scatter_block", sendbuf, count, datatype, op,
                                     comm, algorithm)

    def ireduce_scatter_block(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                              op: Any = SUM, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ireduce_scatter_block: block k of the reduction over every rank's ``sendbuf`` (p
        equal blocks) goes to rank k. Yields a Request whose ``result`` holds the value."""
        return _reduce_scatter_block(self, "MPI_Ireduce_scatter_block", sendbuf, count, datatype,
                                     op, comm, algorithm)


# -- each family's Args, built once the communicator is known ------------------------------
def _start(mpi: Any, call: str, kind: str, comm: Any, algorithm: Any, make: Any,
           recvbuf: Any = None) -> Any:
    blocking = not call.startswith("MPI_I")
    return mpi._colls.start(mpi, call, kind, comm, algorithm, blocking, make, recvbuf)


def _no_args(_comm: Any) -> Args:
    return Args()


def _bcast(mpi: Any, call: str, buf: Any, count: Any, datatype: Any, root: Any, comm: Any,
           algorithm: Any) -> Any:
    return _start(mpi, call, "bcast", comm, algorithm,
                  lambda c: Args(buf, nbytes_of(buf, count, datatype), check_root(root, c)),
                  buf if isinstance(buf, np.ndarray) else None)


def _reduce(mpi: Any, call: str, kind: str, sendbuf: Any, recvbuf: Any, count: Any,
            datatype: Any, op: Any, root: Any, comm: Any, algorithm: Any) -> Any:
    """A reduction; ``root`` None for the unrooted ones (allreduce, scan, exscan)."""
    def make(c: Any) -> Args:
        a = reduction(sendbuf, count, datatype, op)
        a.root = check_root(root, c) if root is not None else 0
        return a
    return _start(mpi, call, kind, comm, algorithm, make, recvbuf)


def _gather(mpi: Any, call: str, kind: str, sendbuf: Any, count: Any, datatype: Any,
            root: Any, comm: Any, algorithm: Any) -> Any:
    """A gather; ``root`` None for the allgathers."""
    return _start(mpi, call, kind, comm, algorithm,
                  lambda c: Args(sendbuf, nbytes_of(sendbuf, count, datatype),
                                 check_root(root, c) if root is not None else 0))


def _scatter(mpi: Any, call: str, kind: str, sendbuf: Any, count: Any, datatype: Any,
             root: Any, comm: Any, algorithm: Any) -> Any:
    def make(c: Any) -> Args:
        r = check_root(root, c)
        a = split_items(sendbuf, c.size, count, datatype, call) if c.rank == r else Args()
        a.root = r
        return a
    return _start(mpi, call, kind, comm, algorithm, make)


def _alltoall(mpi: Any, call: str, kind: str, sendbuf: Any, count: Any, datatype: Any,
              comm: Any, algorithm: Any) -> Any:
    return _start(mpi, call, kind, comm, algorithm,
                  lambda c: split_items(sendbuf, c.size, count, datatype, call))


def _reduce_scatter_block(mpi: Any, call: str, sendbuf: Any, count: Any, datatype: Any,
                          op: Any, comm: Any, algorithm: Any) -> Any:
    def make(c: Any) -> Args:
        a = split_items(sendbuf, c.size, count, datatype, call)
        a.op = reduction(None, None, None, op).op
        return a
    return _start(mpi, call, "reduce_scatter_block", comm, algorithm, make)
