"""The collective calls of the ``mpi`` handle (MPI 4.1 §6), and their nonblocking forms.

Each method describes the call's data as :class:`~mpisim.collectives.algorithms.Args`
(built by :mod:`mpisim.collectives.arguments`) and lets the run's
:class:`~mpisim.collectives.Collectives` start it. All take ``comm=`` (default
MPI_COMM_WORLD) and ``algorithm=`` (default: the run's choice, see
``mpisim.collectives.DEFAULTS``). Blocking calls yield the value; nonblocking ones (``i``
prefix, 6.12) yield a Request whose ``result`` holds it once a wait or test has completed
it, and take the same arguments.

Data, as in point-to-point calls: a numpy array travels as its bytes, a list gives one item
per process, anything else travels as ``count`` elements of ``datatype``. A numpy
``recvbuf`` receives the result in place (each process's block of a gather's or an
all-to-all's, at ``displs`` for the v forms). ``ms.IN_PLACE`` as the send buffer (the
receive buffer of a scatter's root) is MPI_IN_PLACE: where the standard allows it, a
process's own part is read from its receive buffer and its result left there.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..collectives.algorithms import Args
from ..collectives.arguments import (
    alltoall_args,
    bcast_args,
    gather_args,
    reduce_args,
    reduce_local,
    reduce_scatter_args,
    scatter_args,
)
from ..collectives.ops import SUM
from .base import HandleBase

__all__ = ["CollectiveCalls"]


class CollectiveCalls(HandleBase):
    """MPI 4.1 §6: barrier, broadcast, reductions, gathers, scatters, all-to-all, scans,
    reduce-scatters; each blocking call and its nonblocking form."""

    __slots__ = ()

    def barrier(self, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Barrier: completes once every member of ``comm`` has entered it (6.3).

        Parameters
        ----------
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return _start(self, "MPI_Barrier", "barrier", comm, algorithm, _no_args)

    def ibarrier(self, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ibarrier: completes once every member of ``comm`` has entered it (6.3).
        Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _start(self, "MPI_Ibarrier", "barrier", comm, algorithm, _no_args)

    def bcast(self, buf: Any = None, count: Any = None, datatype: Any = None, root: Any = 0,
              comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Bcast: every rank gets the root's ``buf`` (into a numpy ``buf`` too) (6.4).

        Parameters
        ----------
        buf
            The data: at the root what is broadcast (a numpy array, or any
            object); elsewhere a numpy array to receive into, or None.
        count
            Elements of ``datatype`` broadcast. Default: a numpy ``buf``'s own
            size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Bcast", "bcast", comm, algorithm,
                      lambda c, _: bcast_args(c, buf, count, datatype, root))

    def ibcast(self, buf: Any = None, count: Any = None, datatype: Any = None,
               root: Any = 0, comm: Any = None, algorithm: Any = None) -> Event:
        """MPI_Ibcast: every rank gets the root's ``buf`` (into a numpy ``buf`` too) (6.4).
        Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        buf
            The data: at the root what is broadcast (a numpy array, or any
            object); elsewhere a numpy array to receive into, or None.
        count
            Elements of ``datatype`` broadcast. Default: a numpy ``buf``'s own
            size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _start(self, "MPI_Ibcast", "bcast", comm, algorithm,
                      lambda c, _: bcast_args(c, buf, count, datatype, root),
                      buf, root)

    def reduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
               datatype: Any = None, op: Any = SUM, root: Any = 0, comm: Any = None,
               algorithm: Any = None) -> Event:
        """MPI_Reduce: the root gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given; ``IN_PLACE`` at the root: its
        ``recvbuf`` is its contribution) (6.9.1).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _reduce(self, "MPI_Reduce", "reduce", sendbuf, recvbuf, count, datatype, op, root,
                       comm, algorithm)

    def ireduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                datatype: Any = None, op: Any = SUM, root: Any = 0, comm: Any = None,
                algorithm: Any = None) -> Event:
        """MPI_Ireduce: the root gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given; ``IN_PLACE`` at the root: its
        ``recvbuf`` is its contribution) (6.9.1). Yields a Request whose ``result`` holds
        the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _reduce(self, "MPI_Ireduce", "reduce", sendbuf, recvbuf, count, datatype, op, root,
                       comm, algorithm)

    def allreduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                  datatype: Any = None, op: Any = SUM, comm: Any = None,
                  algorithm: Any = None) -> Event:
        """MPI_Allreduce: every rank gets ``op`` over every rank's ``sendbuf`` (numpy arrays
        elementwise; copied into ``recvbuf`` when given; ``IN_PLACE``: ``recvbuf`` is the
        contribution) (6.9.6).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _reduce(self, "MPI_Allreduce", "allreduce", sendbuf, recvbuf, count, datatype, op,
                       None, comm, algorithm)

    def iallreduce(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                   datatype: Any = None, op: Any = SUM, comm: Any = None,
                   algorithm: Any = None) -> Event:
        """MPI_Iallreduce: every rank gets ``op`` over every rank's ``sendbuf`` (numpy
        arrays elementwise; copied into ``recvbuf`` when given; ``IN_PLACE``: ``recvbuf``
        is the contribution) (6.9.6). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _reduce(self, "MPI_Iallreduce", "allreduce", sendbuf, recvbuf, count, datatype, op,
                       None, comm, algorithm)

    def scan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
             datatype: Any = None, op: Any = SUM, comm: Any = None,
             algorithm: Any = None) -> Event:
        """MPI_Scan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r (numpy arrays
        elementwise; copied into ``recvbuf`` when given; ``IN_PLACE``: ``recvbuf`` is the
        contribution) (6.11.1).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _reduce(self, "MPI_Scan", "scan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def iscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
              datatype: Any = None, op: Any = SUM, comm: Any = None,
              algorithm: Any = None) -> Event:
        """MPI_Iscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r (numpy arrays
        elementwise; copied into ``recvbuf`` when given; ``IN_PLACE``: ``recvbuf`` is the
        contribution) (6.11.1). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _reduce(self, "MPI_Iscan", "scan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def exscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
               datatype: Any = None, op: Any = SUM, comm: Any = None,
               algorithm: Any = None) -> Event:
        """MPI_Exscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r - 1, rank 0
        None and its ``recvbuf`` untouched (numpy arrays elementwise; ``IN_PLACE``:
        ``recvbuf`` is the contribution) (6.11.2).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _reduce(self, "MPI_Exscan", "exscan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def iexscan(self, sendbuf: Any = None, recvbuf: Any = None, count: Any = None,
                datatype: Any = None, op: Any = SUM, comm: Any = None,
                algorithm: Any = None) -> Event:
        """MPI_Iexscan: rank r gets ``op`` over the ``sendbuf`` of ranks 0 to r - 1, rank 0
        None and its ``recvbuf`` untouched (numpy arrays elementwise; ``IN_PLACE``:
        ``recvbuf`` is the contribution) (6.11.2). Yields a Request whose ``result``
        holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _reduce(self, "MPI_Iexscan", "exscan", sendbuf, recvbuf, count, datatype, op, None,
                       comm, algorithm)

    def gather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
               root: Any = 0, comm: Any = None, algorithm: Any = None,
               recvbuf: Any = None) -> Event:
        """MPI_Gather: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere); a numpy ``recvbuf`` at the root gets them one after the other
        (``IN_PLACE`` at the root: its block of ``recvbuf`` is its contribution) (6.5).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Gather", "gather", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, root,
                                                  recvbuf))

    def igather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                root: Any = 0, comm: Any = None, algorithm: Any = None,
                recvbuf: Any = None) -> Event:
        """MPI_Igather: a list of every rank's ``sendbuf``, in rank order, at the root (None
        elsewhere); a numpy ``recvbuf`` at the root gets them one after the other
        (``IN_PLACE`` at the root: its block of ``recvbuf`` is its contribution) (6.5).
        Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Igather", "gather", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, root,
                                                  recvbuf),
                      sendbuf)

    def gatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                root: Any = 0, comm: Any = None, algorithm: Any = None, recvbuf: Any = None,
                recvcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Gatherv: a list of every rank's ``sendbuf`` (each its own ``count``), in rank
        order, at the root (None elsewhere); the root's numpy ``recvbuf`` gets rank k's
        at ``displs[k]`` (in elements; default: one after the other), ``recvcounts[k]``
        elements (``IN_PLACE`` at the root: that block is its contribution) (6.5).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed one after another).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Gatherv", "gatherv", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, root,
                                                  recvbuf, recvcounts, displs))

    def igatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 root: Any = 0, comm: Any = None, algorithm: Any = None,
                 recvbuf: Any = None, recvcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Igatherv: a list of every rank's ``sendbuf`` (each its own ``count``), in
        rank order, at the root (None elsewhere); the root's numpy ``recvbuf`` gets rank
        k's at ``displs[k]`` (in elements; default: one after the other),
        ``recvcounts[k]`` elements (``IN_PLACE`` at the root: that block is its
        contribution) (6.5). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed one after another).
        """
        return _start(self, "MPI_Igatherv", "gatherv", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, root,
                                                  recvbuf, recvcounts, displs),
                      sendbuf)

    def allgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Allgather: a list of every rank's ``sendbuf``, in rank order, at every rank;
        a numpy ``recvbuf`` gets them one after the other (``IN_PLACE``: the rank's block
        of ``recvbuf`` is its contribution) (6.7).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Allgather", "allgather", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, None,
                                                  recvbuf))

    def iallgather(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Iallgather: a list of every rank's ``sendbuf``, in rank order, at every rank;
        a numpy ``recvbuf`` gets them one after the other (``IN_PLACE``: the rank's block
        of ``recvbuf`` is its contribution) (6.7). Yields a Request whose ``result``
        holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Iallgather", "allgather", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, None,
                                                  recvbuf),
                      sendbuf)

    def allgatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None, recvbuf: Any = None,
                   recvcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Allgatherv: a list of every rank's ``sendbuf`` (each its own ``count``), in
        rank order, at every rank; a numpy ``recvbuf`` gets rank k's at ``displs[k]``,
        ``recvcounts[k]`` elements (``IN_PLACE``: the rank's block is its contribution)
        (6.7).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed one after another).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Allgatherv", "allgatherv", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, None,
                                                  recvbuf, recvcounts, displs))

    def iallgatherv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                    comm: Any = None, algorithm: Any = None, recvbuf: Any = None,
                    recvcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Iallgatherv: a list of every rank's ``sendbuf`` (each its own ``count``), in
        rank order, at every rank; a numpy ``recvbuf`` gets rank k's at ``displs[k]``,
        ``recvcounts[k]`` elements (``IN_PLACE``: the rank's block is its contribution)
        (6.7). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed one after another).
        """
        return _start(self, "MPI_Iallgatherv", "allgatherv", comm, algorithm,
                      lambda c, call: gather_args(c, call, sendbuf, count, datatype, None,
                                                  recvbuf, recvcounts, displs),
                      sendbuf)

    def scatter(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                root: Any = 0, comm: Any = None, algorithm: Any = None,
                recvbuf: Any = None) -> Event:
        """MPI_Scatter: each rank gets its item of the root's ``sendbuf`` (a list of one
        item per rank, or a numpy array cut in blocks of ``count`` elements, else in
        equal parts), into a numpy ``recvbuf`` too (``IN_PLACE`` as the root's
        ``recvbuf``: its block stays where it is) (6.6).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Scatter", "scatter", comm, algorithm,
                      lambda c, call: scatter_args(c, call, sendbuf, count, datatype, root,
                                                   recvbuf))

    def iscatter(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 root: Any = 0, comm: Any = None, algorithm: Any = None,
                 recvbuf: Any = None) -> Event:
        """MPI_Iscatter: each rank gets its item of the root's ``sendbuf`` (a list of one
        item per rank, or a numpy array cut in blocks of ``count`` elements, else in
        equal parts), into a numpy ``recvbuf`` too (``IN_PLACE`` as the root's
        ``recvbuf``: its block stays where it is) (6.6). Yields a Request whose
        ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Iscatter", "scatter", comm, algorithm,
                      lambda c, call: scatter_args(c, call, sendbuf, count, datatype, root,
                                                   recvbuf),
                      sendbuf, root)

    def scatterv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 root: Any = 0, comm: Any = None, algorithm: Any = None,
                 recvbuf: Any = None, sendcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Scatterv: each rank gets its item of the root's ``sendbuf``: a list of one
        item per rank, or a numpy array whose block k is ``sendcounts[k]`` elements at
        ``displs[k]`` (default: one after the other); into a numpy ``recvbuf`` too
        (``IN_PLACE`` as the root's ``recvbuf``) (6.6).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        sendcounts
            Elements sent to each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in the root's
            ``sendbuf`` (default: packed one after another).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Scatterv", "scatterv", comm, algorithm,
                      lambda c, call: scatter_args(c, call, sendbuf, count, datatype, root,
                                                   recvbuf, sendcounts, displs))

    def iscatterv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  root: Any = 0, comm: Any = None, algorithm: Any = None,
                  recvbuf: Any = None, sendcounts: Any = None, displs: Any = None) -> Event:
        """MPI_Iscatterv: each rank gets its item of the root's ``sendbuf``: a list of one
        item per rank, or a numpy array whose block k is ``sendcounts[k]`` elements at
        ``displs[k]`` (default: one after the other); into a numpy ``recvbuf`` too
        (``IN_PLACE`` as the root's ``recvbuf``) (6.6). Yields a Request whose ``result``
        holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        root
            Rank, in ``comm``, of the process that sends (bcast, scatter) or
            receives (reduce, gather); 0 by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        sendcounts
            Elements sent to each process (one count per process, in rank
            order).
        displs
            Displacement, in elements, of each process's block in the root's
            ``sendbuf`` (default: packed one after another).
        """
        return _start(self, "MPI_Iscatterv", "scatterv", comm, algorithm,
                      lambda c, call: scatter_args(c, call, sendbuf, count, datatype, root,
                                                   recvbuf, sendcounts, displs),
                      sendbuf, root)

    def alltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                 comm: Any = None, algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Alltoall: item k of every rank's ``sendbuf`` goes to rank k; each rank gets
        the list of the items sent to it, into a numpy ``recvbuf`` too (``IN_PLACE``: the
        items are read from ``recvbuf`` and replaced there) (6.8).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Alltoall", "alltoall", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, count, datatype, recvbuf))

    def ialltoall(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Ialltoall: item k of every rank's ``sendbuf`` goes to rank k; each rank gets
        the list of the items sent to it, into a numpy ``recvbuf`` too (``IN_PLACE``: the
        items are read from ``recvbuf`` and replaced there) (6.8). Yields a Request whose
        ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Ialltoall", "alltoall", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, count, datatype, recvbuf),
                      sendbuf)

    def alltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                  comm: Any = None, algorithm: Any = None, recvbuf: Any = None,
                  sendcounts: Any = None, sdispls: Any = None, recvcounts: Any = None,
                  rdispls: Any = None) -> Event:
        """MPI_Alltoallv: item k of every rank's ``sendbuf`` (a list, or a numpy array's
        block of ``sendcounts[k]`` elements at ``sdispls[k]``) goes to rank k; each rank
        gets the list of the items sent to it, into a numpy ``recvbuf`` too (block k:
        ``recvcounts[k]`` elements at ``rdispls[k]``; ``IN_PLACE``: read from those
        blocks and replaced there) (6.8).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        sendcounts
            Elements sent to each process (one count per process, in rank
            order).
        sdispls
            Displacement, in elements, of the block for each process in
            ``sendbuf`` (default: packed).
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        rdispls
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Alltoallv", "alltoallv", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, count, datatype, recvbuf,
                                                    sendcounts, sdispls, recvcounts, rdispls))

    def ialltoallv(self, sendbuf: Any = None, count: Any = None, datatype: Any = None,
                   comm: Any = None, algorithm: Any = None, recvbuf: Any = None,
                   sendcounts: Any = None, sdispls: Any = None, recvcounts: Any = None,
                   rdispls: Any = None) -> Event:
        """MPI_Ialltoallv: item k of every rank's ``sendbuf`` (a list, or a numpy array's
        block of ``sendcounts[k]`` elements at ``sdispls[k]``) goes to rank k; each rank
        gets the list of the items sent to it, into a numpy ``recvbuf`` too (block k:
        ``recvcounts[k]`` elements at ``rdispls[k]``; ``IN_PLACE``: read from those
        blocks and replaced there) (6.8). Yields a Request whose ``result`` holds the
        value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of ``datatype`` in each process's contribution (count x the
            datatype's size is the bytes carried). Default: a numpy
            ``sendbuf``'s own size; 0 for another object.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        sendcounts
            Elements sent to each process (one count per process, in rank
            order).
        sdispls
            Displacement, in elements, of the block for each process in
            ``sendbuf`` (default: packed).
        recvcounts
            Elements received from each process (one count per process, in rank
            order).
        rdispls
            Displacement, in elements, of each process's block in ``recvbuf``
            (default: packed).
        """
        return _start(self, "MPI_Ialltoallv", "alltoallv", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, count, datatype, recvbuf,
                                                    sendcounts, sdispls, recvcounts, rdispls),
                      sendbuf)

    def alltoallw(self, sendbuf: Any = None, sendcounts: Any = None, sdispls: Any = None,
                  sendtypes: Any = None, recvbuf: Any = None, recvcounts: Any = None,
                  rdispls: Any = None, recvtypes: Any = None, comm: Any = None,
                  algorithm: Any = None) -> Event:
        """MPI_Alltoallw: as alltoallv with a datatype per rank and displacements in bytes:
        block k of ``sendbuf`` is ``sendcounts[k]`` elements of ``sendtypes[k]`` at byte
        ``sdispls[k]``; each rank gets the list of the items sent to it, into a numpy
        ``recvbuf`` too (``IN_PLACE``: read from the receive blocks and replaced there)
        (6.8).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        sendcounts
            Elements sent to each process, in its ``sendtypes`` entry's
            datatype.
        sdispls
            Byte displacement of the block for each process in ``sendbuf``.
        sendtypes
            Datatype of the block sent to each process (one per process).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process, in its ``recvtypes`` entry's
            datatype.
        rdispls
            Byte displacement of each process's block in ``recvbuf``.
        recvtypes
            Datatype of the block received from each process (one per process).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Alltoallw", "alltoallw", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, None, None, recvbuf,
                                                    sendcounts, sdispls, recvcounts, rdispls,
                                                    sendtypes, recvtypes, w=True))

    def ialltoallw(self, sendbuf: Any = None, sendcounts: Any = None, sdispls: Any = None,
                   sendtypes: Any = None, recvbuf: Any = None, recvcounts: Any = None,
                   rdispls: Any = None, recvtypes: Any = None, comm: Any = None,
                   algorithm: Any = None) -> Event:
        """MPI_Ialltoallw: as alltoallv with a datatype per rank and displacements in bytes:
        block k of ``sendbuf`` is ``sendcounts[k]`` elements of ``sendtypes[k]`` at byte
        ``sdispls[k]``; each rank gets the list of the items sent to it, into a numpy
        ``recvbuf`` too (``IN_PLACE``: read from the receive blocks and replaced there)
        (6.8). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        sendcounts
            Elements sent to each process, in its ``sendtypes`` entry's
            datatype.
        sdispls
            Byte displacement of the block for each process in ``sendbuf``.
        sendtypes
            Datatype of the block sent to each process (one per process).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        recvcounts
            Elements received from each process, in its ``recvtypes`` entry's
            datatype.
        rdispls
            Byte displacement of each process's block in ``recvbuf``.
        recvtypes
            Datatype of the block received from each process (one per process).
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        """
        return _start(self, "MPI_Ialltoallw", "alltoallw", comm, algorithm,
                      lambda c, call: alltoall_args(c, call, sendbuf, None, None, recvbuf,
                                                    sendcounts, sdispls, recvcounts, rdispls,
                                                    sendtypes, recvtypes, w=True),
                      sendbuf)

    def reduce_scatter_block(self, sendbuf: Any = None, count: Any = None,
                             datatype: Any = None, op: Any = SUM, comm: Any = None,
                             algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Reduce_scatter_block: block k (``count`` elements; without a count, p equal
        parts) of the reduction over every rank's ``sendbuf`` goes to rank k, into a
        numpy ``recvbuf`` too (``IN_PLACE``: ``recvbuf`` holds the p blocks; the result
        is left at its start) (6.10.1).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of the result each process gets (its block). Default:
            ``sendbuf``'s size over the number of processes.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Reduce_scatter_block", "reduce_scatter_block", comm, algorithm,
                      lambda c, call: reduce_scatter_args(c, call, sendbuf, recvbuf, count, None,
                                                          datatype, op))

    def ireduce_scatter_block(self, sendbuf: Any = None, count: Any = None,
                              datatype: Any = None, op: Any = SUM, comm: Any = None,
                              algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Ireduce_scatter_block: block k (``count`` elements; without a count, p equal
        parts) of the reduction over every rank's ``sendbuf`` goes to rank k, into a
        numpy ``recvbuf`` too (``IN_PLACE``: ``recvbuf`` holds the p blocks; the result
        is left at its start) (6.10.1). Yields a Request whose ``result`` holds the
        value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        count
            Elements of the result each process gets (its block). Default:
            ``sendbuf``'s size over the number of processes.
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Ireduce_scatter_block", "reduce_scatter_block", comm, algorithm,
                      lambda c, call: reduce_scatter_args(c, call, sendbuf, recvbuf, count, None,
                                                          datatype, op),
                      sendbuf)

    def reduce_scatter(self, sendbuf: Any = None, recvcounts: Any = None,
                       datatype: Any = None, op: Any = SUM, comm: Any = None,
                       algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Reduce_scatter: block k (``recvcounts[k]`` elements, the blocks one after the
        other) of the reduction over every rank's ``sendbuf`` goes to rank k, into a
        numpy ``recvbuf`` too (``IN_PLACE``: ``recvbuf`` holds every block; the result is
        left at its start) (6.10.2).

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvcounts
            Elements of the result each process gets (one per process, in rank
            order).
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.

        Returns
        -------
        Event
            Yield it; its value is what this rank gets (above): the result, or
            None where the call gives this rank nothing.
        """
        return _start(self, "MPI_Reduce_scatter", "reduce_scatter", comm, algorithm,
                      lambda c, call: reduce_scatter_args(c, call, sendbuf, recvbuf, None,
                                                          recvcounts, datatype, op))

    def ireduce_scatter(self, sendbuf: Any = None, recvcounts: Any = None,
                        datatype: Any = None, op: Any = SUM, comm: Any = None,
                        algorithm: Any = None, recvbuf: Any = None) -> Event:
        """MPI_Ireduce_scatter: block k (``recvcounts[k]`` elements, the blocks one after
        the other) of the reduction over every rank's ``sendbuf`` goes to rank k, into a
        numpy ``recvbuf`` too (``IN_PLACE``: ``recvbuf`` holds every block; the result is
        left at its start) (6.10.2). Yields a Request whose ``result`` holds the value.

        Parameters
        ----------
        sendbuf
            This rank's contribution: a numpy array (travels as its bytes), a
            list (one item per process where the call sends one to each), or any
            object (``count`` elements of ``datatype``); ``ms.IN_PLACE`` where
            the standard allows it.
        recvcounts
            Elements of the result each process gets (one per process, in rank
            order).
        datatype
            MPI datatype of the elements (``ms.INT``, ``ms.DOUBLE``...), which
            sizes ``count``; ``ms.BYTE`` by default.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        comm
            The communicator whose members all make the call (a ``Comm``);
            MPI_COMM_WORLD by default.
        algorithm
            The algorithm that carries it out, by name
            (``mpisim.collectives.ALGORITHMS`` lists each collective's);
            default: the run's choice (``mpi.collectives``, else the profile's).
        recvbuf
            A numpy array that receives the result in place (optional: the yield
            gives the result anyway); with ``ms.IN_PLACE`` as ``sendbuf``, also
            this rank's contribution.
        """
        return _start(self, "MPI_Ireduce_scatter", "reduce_scatter", comm, algorithm,
                      lambda c, call: reduce_scatter_args(c, call, sendbuf, recvbuf, None,
                                                          recvcounts, datatype, op),
                      sendbuf)

    def reduce_local(self, inbuf: Any, inoutbuf: Any, count: Any = None, datatype: Any = None,
                     op: Any = SUM) -> Any:
        """MPI_Reduce_local (6.9.7): ``inoutbuf`` (numpy) becomes ``op`` of ``inbuf`` and
        itself, elementwise, at once (a local call: no yield); returns ``inoutbuf``. A wrong
        argument raises its MPIError here.

        Parameters
        ----------
        inbuf
            The operand: a numpy array (or a value).
        inoutbuf
            The numpy array that holds the other operand and receives the result
            in place.
        count
            Elements of ``datatype`` combined. Default: all of them.
        datatype
            MPI datatype of the elements. Default: the numpy arrays' own.
        op
            The reduction operation (MPI_Op): ``ms.SUM`` (the default),
            ``ms.MAX``, ``ms.MINLOC``..., or one of the program's own,
            ``ms.Op(name, fn)`` with ``fn(a, b)`` combining two contributions.
        """
        return reduce_local(inbuf, inoutbuf, count, datatype, op)


# -- starting a call ----------------------------------------------------------------------
def _start(mpi: Any, call: str, kind: str, comm: Any, algorithm: Any, make: Any,
           sendbuf: Any = None, root: Any = None) -> Any:
    """Start ``call`` (blocking unless its name is MPI_I...) with the Args
    ``make(comm, call)`` builds once the communicator is known; ``sendbuf``: a buffer the
    members send from (only the ``root`` when given), the library's until a nonblocking
    call completes (§6.12)."""
    blocking = not call.startswith("MPI_I")
    return mpi._colls.start(mpi._port, call, kind, comm, algorithm, blocking,
                            lambda c: make(c, call), sendbuf=None if blocking else sendbuf,
                            sendroot=root)


def _no_args(_comm: Any, _call: str) -> Args:
    return Args()


def _reduce(mpi: Any, call: str, kind: str, sendbuf: Any, recvbuf: Any, count: Any,
            datatype: Any, op: Any, root: Any, comm: Any, algorithm: Any) -> Any:
    """A reduction; ``root`` None for the unrooted ones (allreduce, scan, exscan)."""
    return _start(mpi, call, kind, comm, algorithm,
                  lambda c, _: reduce_args(c, call, sendbuf, recvbuf, count, datatype, op, root),
                  sendbuf)
