"""Calls of the ``mpi`` handle made of its point-to-point calls: persistent requests (MPI
4.1 §3.9) and MPI_Sendrecv (§3.10).

A persistent request is made once (``send_init``, ``bsend_init``, ``ssend_init``,
``rsend_init``, ``recv_init``: local calls that yield an inactive request) and started any
number of times (``start``, ``startall``); each start posts the operation as the
corresponding nonblocking call would, into the same request, which a wait or test then
completes and makes inactive again until the next start.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..engine.clock import done, failed
from ..mpi.causes import CallDetail
from ..mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from ..mpi.errors import ErrRequest, MPIError
from ..p2p import completion
from ..p2p.calls import check_tag
from ..p2p.protocols import BUFFERED, READY, STANDARD, SYNCHRONOUS
from ..p2p.requests import Request
from .base import HandleBase

__all__ = ["Persistent", "PersistentCalls"]


class Persistent(Request):
    """A persistent request: its operation's arguments, kept for every start."""

    __slots__ = ("args", "mode")
    args: tuple[Any, ...]  # (buf, count, datatype, peer, tag, comm) of every start
    mode: str | None  # a send's mode; None: a receive

    def __repr__(self) -> str:
        state = "inactive" if not self.active else super().__repr__()
        return f"<Persistent {self.call} {state}>"


class PersistentCalls(HandleBase):
    """MPI 4.1 §3.9 and §3.10: persistent requests, and sendrecv."""

    __slots__ = ()

    def send_init(self, buf: Any = None, count: Any = None, datatype: Any = None,
                  dest: Any = None, tag: Any = 0, comm: Any = None) -> Event:
        """MPI_Send_init: yields an inactive persistent request for a standard-mode send;
        ``start`` it.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._init("MPI_Send_init", STANDARD, buf, count, datatype, dest, tag, comm)

    def bsend_init(self, buf: Any = None, count: Any = None, datatype: Any = None,
                   dest: Any = None, tag: Any = 0, comm: Any = None) -> Event:
        """MPI_Bsend_init: yields an inactive persistent request for a buffered-mode send;
        ``start`` it.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._init("MPI_Bsend_init", BUFFERED, buf, count, datatype, dest, tag, comm)

    def ssend_init(self, buf: Any = None, count: Any = None, datatype: Any = None,
                   dest: Any = None, tag: Any = 0, comm: Any = None) -> Event:
        """MPI_Ssend_init: yields an inactive persistent request for a synchronous-mode
        send; ``start`` it.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._init("MPI_Ssend_init", SYNCHRONOUS, buf, count, datatype, dest, tag,
                          comm)

    def rsend_init(self, buf: Any = None, count: Any = None, datatype: Any = None,
                   dest: Any = None, tag: Any = 0, comm: Any = None) -> Event:
        """MPI_Rsend_init: yields an inactive persistent request for a ready-mode send;
        ``start`` it.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._init("MPI_Rsend_init", READY, buf, count, datatype, dest, tag, comm)

    def recv_init(self, buf: Any = None, count: Any = None, datatype: Any = None,
                  source: Any = ANY_SOURCE, tag: Any = ANY_TAG, comm: Any = None) -> Event:
        """MPI_Recv_init: yields an inactive persistent receive request; ``start`` it.

        Parameters
        ----------
        buf
            Where the data goes: a numpy array, filled in place (its dtype gives
            the datatype when none is given, its size the count); None (the
            default): the data is in the Status (``status.data``).
        count
            Largest number of elements of ``datatype`` accepted (a larger
            message is MPI_ERR_TRUNCATE). Default: the numpy ``buf``'s size;
            with neither ``count`` nor ``buf``, any size.
        datatype
            The MPI datatype of an element. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        source
            Rank of the sender in ``comm``, ``ms.ANY_SOURCE`` (the default) or
            ``ms.PROC_NULL`` (completes at once, empty).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._init("MPI_Recv_init", None, buf, count, datatype, source, tag, comm)

    def _init(self, call: str, mode: str | None, buf: Any, count: Any, datatype: Any,
              peer: Any, tag: Any, comm: Any) -> Event:
        """An inactive persistent request for ``mode`` (None: a receive), its arguments
        kept for every start."""
        self._enter(call)
        req = Persistent("send" if mode else "recv", call, self.rank, -1, -1, 0)
        req.active = False
        req.mode = mode
        req.args = (buf, count, datatype, peer, tag, comm)
        self._made("request", req, call)  # a leak if never freed (correctness checks)
        return done(self._env, req)

    def start(self, request: Any) -> Event:
        """MPI_Start: post the persistent request's operation; wait or test it as usual.

        Parameters
        ----------
        request
            The request (a ``Request``), as a nonblocking or ``*_init`` call
            yielded it.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self.startall([request], "MPI_Start")

    def startall(self, requests: Any, call: str = "MPI_Startall") -> Event:
        """MPI_Startall: start each persistent request, in order.

        Parameters
        ----------
        requests
            A list of requests (each a ``Request``), as nonblocking calls
            yielded them.
        call
            The MPI call's name in reports and errors (``MPI_Startall`` by
            default; ``MPI_Start`` is the same loop).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        reqs = list(requests) if not isinstance(requests, Request) else [requests]
        for req in reqs:
            if not isinstance(req, Persistent) or req.active:
                self._enter(call)
                return failed(self._env, ErrRequest(
                    f"{call}: {req!r} is not an inactive persistent request (3.9: start only "
                    "what *_init made and a wait or test completed)"))
        for req in reqs:
            assert isinstance(req, Persistent)  # (each checked above)
            buf, count, datatype, peer, tag, comm = req.args
            self._proc.unyielded = False  # (each start is part of this one call, not a call of
            # the program's left unyielded: see mpisim.engine.yields)
            if req.mode is None:
                ev = self._post_recv(req.call, buf, count, datatype, peer, tag, comm, req)
            else:
                ev = self._send(req.call, req.mode, buf, count, datatype, peer, tag, False,
                                comm, req=req)
            if isinstance(ev, Event) and ev._ok is False:
                return ev
            self._watch_buffer(req, buf)  # (pending until its completion, as a nonblocking call's)
        return done(self._env, None)

    def sendrecv(self, sendbuf: Any = None, sendcount: Any = None, sendtype: Any = None,
                 dest: Any = PROC_NULL, sendtag: Any = 0, recvbuf: Any = None,
                 recvcount: Any = None, recvtype: Any = None, source: Any = ANY_SOURCE,
                 recvtag: Any = ANY_TAG, comm: Any = None) -> Event:
        """MPI_Sendrecv: a send and a receive posted together; yields the receive's Status.
        The receive's source and tag are checked first: a bad one fails the call before
        anything is sent, as in MPICH and Open MPI.

        Parameters
        ----------
        sendbuf
            The data sent (as ``send``'s ``buf``): a numpy array, another object
            (with ``sendcount``), or None: size only.
        sendcount
            Elements of ``sendtype`` sent. Default: the whole numpy ``sendbuf``.
        sendtype
            Datatype of the elements sent. Default: the numpy ``sendbuf``'s,
            else ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm``; ``ms.PROC_NULL`` (the default): no
            send.
        sendtag
            Tag of the message sent, 0 by default.
        recvbuf
            Where the data received goes (as ``recv``'s ``buf``): a numpy array
            filled in place, or None (the default): in the Status.
        recvcount
            Largest number of elements of ``recvtype`` accepted. Default: the
            numpy ``recvbuf``'s size, else any.
        recvtype
            Datatype of the elements received. Default: the numpy ``recvbuf``'s,
            else ``ms.BYTE``.
        source
            Rank to receive from, ``ms.ANY_SOURCE`` (the default) or
            ``ms.PROC_NULL``: no receive.
        recvtag
            Tag to receive, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        try:
            self._probed(source, recvtag, comm)  # type: ignore[attr-defined]
            check_tag(recvtag, True)
        except MPIError as e:
            self._enter("MPI_Sendrecv")
            return failed(self._env, e)
        sent = self._send("MPI_Sendrecv", STANDARD, sendbuf, sendcount, sendtype, dest,
                          sendtag, False, comm)
        if sent._ok is False:
            return sent
        sreq = sent._value
        self._proc.unyielded = False  # (the receive is part of this call: see mpisim.engine.yields)
        rreq = self._post_recv("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag,
                               comm)
        if isinstance(rreq, Event):
            return rreq
        self._works_on(CallDetail(rreq.peer, recvtag, rreq.nbytes, [sreq, rreq]))  # both
        return self._env.process(_both(self._env, sreq, rreq))

    def sendrecv_replace(self, buf: Any = None, count: Any = None, datatype: Any = None,
                         dest: Any = PROC_NULL, sendtag: Any = 0, source: Any = ANY_SOURCE,
                         recvtag: Any = ANY_TAG, comm: Any = None) -> Event:
        """MPI_Sendrecv_replace: the received data replaces the sent one in ``buf``.

        Parameters
        ----------
        buf
            The data sent, replaced by the data received: a numpy array
            (received in place) or another object; ``count`` x ``datatype`` of
            size only with None (the default).
        count
            Elements of ``datatype`` sent and at most received. Default: the
            whole numpy ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver of the send in ``comm``; ``ms.PROC_NULL`` (the
            default): no send.
        sendtag
            Tag of the message sent, 0 by default.
        source
            Rank to receive from, or ``ms.ANY_SOURCE`` (the default);
            ``ms.PROC_NULL``: no receive.
        recvtag
            Tag to receive, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is the receive's Status.
        """
        return self.sendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype,
                             source, recvtag, comm)


def _both(env: Any, sreq: Request, rreq: Request) -> Any:
    statuses = yield completion.waitall(env, [sreq, rreq])
    return statuses[1]
