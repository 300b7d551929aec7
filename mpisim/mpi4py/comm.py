"""``MPI.Comm`` of the stand-in: each method is one call of the rank's ``mpi`` handle.

Every method finds the calling rank (:func:`~.bridge.current`), makes the handle's call with
``comm=`` this communicator and, for a blocking call, suspends the rank's greenlet until the
engine reaches the call's event (:meth:`~.bridge.RankContext.call`).

Lowercase methods move Python objects as mpi4py does: pickled (the message is the pickle's
bytes, so its size, the eager/rendezvous choice and the attached-buffer space are those of
the real library) and unpickled on arrival (every rank gets its own copy). Uppercase methods
take buffer specs (:func:`~.datatype.message`) and receive into the caller's memory.

``MPI.COMM_WORLD`` and ``MPI.COMM_SELF`` are single objects shared by every rank, resolved
to the calling rank's handle at each call; ``Dup``/``Split`` return per-rank objects.
Collectives are in :mod:`.collective` (mixed in).
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np

from ..constants import ANY_SOURCE, ANY_TAG
from ..p2p.requests import Request as _EngineRequest
from .bridge import current
from .collective import Collectives
from .datatype import message
from .exceptions import Exception as MPIException
from .exceptions import unsupported
from .request import Prequest, Request, Status, fill, received

__all__ = ["COMM_NULL", "COMM_SELF", "COMM_WORLD", "Comm", "Intracomm"]

PROTOCOL = pickle.HIGHEST_PROTOCOL


def dumps(obj: Any) -> bytes:
    return pickle.dumps(obj, PROTOCOL)


class Aborted(BaseException):
    """Comm.Abort: the job ends (as MPI_Abort ends every process); not an Exception, so a
    script's ``except Exception`` cannot swallow it."""


class Comm(Collectives):
    """mpi4py's MPI.Comm (an intracommunicator)."""

    def __init__(self, kind: str = "handle", handle: Any = None) -> None:
        self._kind = kind          # "world", "self", "null" or "handle"
        self._handle = handle      # the handle's Comm (kind "handle")

    # -- the handle's Comm ----------------------------------------------------------------
    def _c(self, mpi: Any) -> Any:
        """The ``comm=`` argument of the handle's calls (None: MPI_COMM_WORLD)."""
        kind = self._kind
        if kind == "world":
            return None
        if kind == "self":
            return mpi.comm_self
        if kind == "null" or self._handle is None:
            raise MPIException("invalid communicator (MPI_COMM_NULL)", None, "MPI_ERR_COMM")
        return self._handle

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:
        ctx = current()
        mpi = ctx.mpi
        comm = self._c(mpi)
        method = getattr(mpi, call)
        return ctx.call(lambda: method(comm=comm, **kwargs), self._key())

    def _key(self) -> Any:
        """This communicator in the rank's table of error handlers."""
        return self._kind if self._handle is None else self._handle.context

    # -- error handlers ---------------------------------------------------------------------
    def Set_errhandler(self, errhandler: Any) -> None:
        """MPI_ERRORS_RETURN (mpi4py's default: errors raise MPI.Exception) or
        MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT (an MPI error ends the run, even if the
        script would catch it)."""
        from .module import Errhandler

        if not isinstance(errhandler, Errhandler):
            raise MPIException(f"{errhandler!r} is not an error handler", None,
                               "MPI_ERR_ARG")
        current().fatal[self._key()] = errhandler.fatal

    def Get_errhandler(self) -> Any:
        from .module import ERRORS_ARE_FATAL, ERRORS_RETURN

        return ERRORS_ARE_FATAL if current().fatal.get(self._key()) else ERRORS_RETURN

    def _inherit(self, made: Comm) -> Comm:
        """A new communicator keeps its parent's error handler (6.4.2)."""
        fatal = current().fatal
        if self._key() in fatal and made._kind == "handle":
            fatal[made._key()] = fatal[self._key()]
        return made

    # -- identity -------------------------------------------------------------------------
    def Get_rank(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.rank if comm is None else comm.rank

    def Get_size(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.size if comm is None else comm.size

    rank = property(Get_rank)
    size = property(Get_size)

    def Get_name(self) -> str:
        if self._kind == "world":
            return "MPI_COMM_WORLD"
        if self._kind == "self":
            return "MPI_COMM_SELF"
        return self._c(current().mpi).name

    name = property(Get_name)

    def Is_inter(self) -> bool:
        return False

    def Is_intra(self) -> bool:
        return True

    is_inter = property(Is_inter)
    is_intra = property(Is_intra)

    def __bool__(self) -> bool:
        return self._kind != "null" and not (self._handle is not None and self._handle.freed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Comm):
            return NotImplemented
        if self._kind != "handle" or other._kind != "handle":
            return self._kind == other._kind
        return self._handle == other._handle

    def __hash__(self) -> int:
        return hash(self._kind) if self._kind != "handle" else hash(self._handle)

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Intracomm {self._kind if self._kind != 'handle' else 'comm'}>"

    # -- communicators ---------------------------------------------------------------------
    def Dup(self, info: Any = None) -> Comm:
        return self._inherit(Comm("handle", self._p2p("comm_dup", True)))

    Clone = Dup

    def Split(self, color: int = 0, key: int = 0) -> Comm:
        made = self._p2p("comm_split", True, color=color, key=key)
        return Comm("null") if made is None else self._inherit(Comm("handle", made))

    def Free(self) -> None:
        if self._kind in ("world", "self"):
            raise MPIException(f"cannot free {self.Get_name()}", None, "MPI_ERR_COMM")
        ctx = current()
        handle = self._c(ctx.mpi)
        ctx.call(lambda: ctx.mpi.comm_free(handle))

    def Abort(self, errorcode: int = 0) -> None:
        raise Aborted(f"MPI_Abort({self.Get_name()}, {errorcode}) called by rank "
                      f"{current().mpi.rank}")

    # -- lowercase point-to-point (pickled objects) ---------------------------------------
    def _send_obj(self, call: str, obj: Any, dest: int, tag: int) -> Any:
        data = np.frombuffer(dumps(obj), dtype=np.uint8)  # a buffer Recv can take it too
        return self._p2p(call, True, buf=data, datatype=_byte(), dest=dest, tag=tag)

    def send(self, obj: Any, dest: int, tag: int = 0) -> None:
        self._send_obj("send", obj, dest, tag)

    def bsend(self, obj: Any, dest: int, tag: int = 0) -> None:
        self._send_obj("bsend", obj, dest, tag)

    def ssend(self, obj: Any, dest: int, tag: int = 0) -> None:
        self._send_obj("ssend", obj, dest, tag)

    def isend(self, obj: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_obj("isend", obj, dest, tag), objects=True)

    def ibsend(self, obj: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_obj("ibsend", obj, dest, tag), objects=True)

    def issend(self, obj: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_obj("issend", obj, dest, tag), objects=True)

    def recv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG,
             status: Status | None = None) -> Any:
        if buf is not None:
            warnings.warn("Comm.recv: the buf argument is ignored (the object is received "
                          "whole, as a matched probe and receive)", UserWarning, stacklevel=2)
        st = self._p2p("recv", True, datatype=_byte(), source=source, tag=tag)
        fill(status, st)
        return received(st)

    def irecv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        return Request(self._p2p("irecv", False, count=_capacity(buf), datatype=_byte(),
                                 source=source, tag=tag), objects=True)

    def sendrecv(self, sendobj: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None) -> Any:
        data = np.frombuffer(dumps(sendobj), dtype=np.uint8)
        st = self._sendrecv(dict(sendbuf=data, sendcount=None, sendtype=_byte()),
                            dest, sendtag, dict(recvcount=_capacity(recvbuf),
                                                recvtype=_byte()), source, recvtag)
        fill(status, st)
        return received(st)

    def probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> bool:
        fill(status, self._p2p("probe", True, source=source, tag=tag))
        return True

    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> bool:
        flag, st = self._p2p("iprobe", True, source=source, tag=tag)
        if flag:
            fill(status, st)
        return bool(flag)

    # -- uppercase point-to-point (buffers) ------------------------------------------------
    def _send_buf(self, call: str, buf: Any, dest: int, tag: int) -> Any:
        arr, count, dt = message(buf)
        return self._p2p(call, True, buf=arr, count=count, datatype=dt, dest=dest, tag=tag)

    def Send(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._send_buf("send", buf, dest, tag)

    def Bsend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._send_buf("bsend", buf, dest, tag)

    def Ssend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._send_buf("ssend", buf, dest, tag)

    def Rsend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._send_buf("rsend", buf, dest, tag)

    def Isend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_buf("isend", buf, dest, tag))

    def Ibsend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_buf("ibsend", buf, dest, tag))

    def Issend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_buf("issend", buf, dest, tag))

    def Irsend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._send_buf("irsend", buf, dest, tag))

    def Recv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG,
             status: Status | None = None) -> None:
        arr, count, dt = message(buf, writable=True)
        fill(status, self._p2p("recv", True, buf=arr, count=count, datatype=dt, source=source,
                               tag=tag))

    def Irecv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        arr, count, dt = message(buf, writable=True)
        return Request(self._p2p("irecv", False, buf=arr, count=count, datatype=dt,
                                 source=source, tag=tag))

    def Sendrecv(self, sendbuf: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None) -> None:
        sarr, scount, stype = message(sendbuf)
        rarr, rcount, rtype = message(recvbuf, writable=True)
        fill(status, self._sendrecv(dict(sendbuf=sarr, sendcount=scount, sendtype=stype), dest,
                                    sendtag, dict(recvbuf=rarr, recvcount=rcount,
                                                  recvtype=rtype), source, recvtag))

    def Sendrecv_replace(self, buf: Any, dest: int, sendtag: int = 0,
                         source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                         status: Status | None = None) -> None:
        arr, count, dt = message(buf, writable=True)
        send = None if arr is None else arr.copy()
        fill(status, self._sendrecv(dict(sendbuf=send, sendcount=count, sendtype=dt), dest,
                                    sendtag, dict(recvbuf=arr, recvcount=count, recvtype=dt),
                                    source, recvtag))

    def _sendrecv(self, send: dict, dest: int, sendtag: int, recv: dict, source: int,
                  recvtag: int) -> Any:
        """MPI_Sendrecv: the handle's call when it has one, else its definition (3.10: an
        irecv and a send, then the wait)."""
        ctx = current()
        mpi = ctx.mpi
        if hasattr(type(mpi), "sendrecv"):
            return self._p2p("sendrecv", True, dest=dest, sendtag=sendtag, source=source,
                             recvtag=recvtag, **send, **recv)
        comm = self._c(mpi)
        rreq = ctx.call(lambda: mpi.irecv(buf=recv.get("recvbuf"), count=recv["recvcount"],
                                          datatype=recv["recvtype"], source=source,
                                          tag=recvtag, comm=comm))
        ctx.call(lambda: mpi.send(buf=send["sendbuf"], count=send["sendcount"],
                                  datatype=send["sendtype"], dest=dest, tag=sendtag,
                                  comm=comm))
        return ctx.call(lambda: mpi.wait(rreq))

    def Isendrecv(self, sendbuf: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                  source: int = ANY_SOURCE, recvtag: int = ANY_TAG) -> Request:
        """MPI_Isendrecv (MPI 4.0): an irecv and an isend, one request for both."""
        sarr, scount, stype = message(sendbuf)
        rarr, rcount, rtype = message(recvbuf, writable=True)
        rreq = self._p2p("irecv", False, buf=rarr, count=rcount, datatype=rtype,
                         source=source, tag=recvtag)
        sreq = self._p2p("isend", False, buf=sarr, count=scount, datatype=stype, dest=dest,
                         tag=sendtag)
        return Request(both(sreq, rreq, "MPI_Isendrecv"))

    def Isendrecv_replace(self, buf: Any, dest: int, sendtag: int = 0,
                          source: int = ANY_SOURCE, recvtag: int = ANY_TAG) -> Request:
        """MPI_Isendrecv_replace: the data sent is copied at the call (as MPI's internal
        buffer), the received data replaces it in ``buf``."""
        arr, count, dt = message(buf, writable=True)
        send = None if arr is None else arr.copy()
        rreq = self._p2p("irecv", False, buf=arr, count=count, datatype=dt, source=source,
                         tag=recvtag)
        sreq = self._p2p("isend", False, buf=send, count=count, datatype=dt, dest=dest,
                         tag=sendtag)
        return Request(both(sreq, rreq, "MPI_Isendrecv_replace"))

    def Probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> bool:
        return self.probe(source, tag, status)

    def Iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> bool:
        return self.iprobe(source, tag, status)

    # -- persistent requests ---------------------------------------------------------------
    def _init(self, call: str, buf: Any, peer: int, tag: int, writable: bool = False
              ) -> Prequest:
        mpi = current().mpi
        if not hasattr(type(mpi), call):
            raise unsupported("Comm", call.capitalize().replace("_init", "_init"))
        arr, count, dt = message(buf, writable=writable)
        where = {"source" if call == "recv_init" else "dest": peer}
        return Prequest(self._p2p(call, True, buf=arr, count=count, datatype=dt, tag=tag,
                                  **where))

    def Send_init(self, buf: Any, dest: int, tag: int = 0) -> Prequest:
        return self._init("send_init", buf, dest, tag)

    def Bsend_init(self, buf: Any, dest: int, tag: int = 0) -> Prequest:
        return self._init("bsend_init", buf, dest, tag)

    def Ssend_init(self, buf: Any, dest: int, tag: int = 0) -> Prequest:
        return self._init("ssend_init", buf, dest, tag)

    def Rsend_init(self, buf: Any, dest: int, tag: int = 0) -> Prequest:
        return self._init("rsend_init", buf, dest, tag)

    def Recv_init(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Prequest:
        return self._init("recv_init", buf, source, tag, writable=True)

    # -- communicator buffers (MPI 4.1) ----------------------------------------------------
    def Attach_buffer(self, buf: Any) -> None:
        from .module import attach

        attach(buf, self)

    def Detach_buffer(self) -> Any:
        from .module import detach

        return detach(self)

    def Flush_buffer(self) -> None:
        from .module import flush

        flush(self)

    def Iflush_buffer(self) -> Request:
        from .module import iflush

        return iflush(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Comm", name)


Intracomm = Comm


def both(sreq: Any, rreq: Any, call: str) -> Any:
    """One handle request that completes when a send and a receive both have: its status
    and error are the receive's (the send's error if only it failed)."""
    combo = _EngineRequest("recv", call, rreq.rank, rreq.peer, rreq.tag, rreq.nbytes)
    combo.ctx, combo.comm = rreq.ctx, rreq.comm
    left = [2]

    def known(_r: Any) -> None:
        left[0] -= 1
        if left[0] == 0:
            combo.status = rreq.status
            combo.error = rreq.error or sreq.error
            sreq.active = rreq.active = False  # completed through the combined request
            combo.known(max(sreq.done_at, rreq.done_at))

    sreq.on_known(known)
    rreq.on_known(known)
    return combo


def _byte() -> Any:
    from ..datatypes import BYTE

    return BYTE


def _capacity(buf: Any) -> int | None:
    """Bytes a lowercase receive takes: any size without a buffer (the stand-in, like
    mpi4py's matched-probe receive, allocates what arrives), else the buffer's size."""
    if buf is None:
        return None
    if isinstance(buf, int) and not isinstance(buf, bool):
        return buf
    return memoryview(buf).nbytes


COMM_WORLD = Comm("world")
COMM_SELF = Comm("self")
COMM_NULL = Comm("null")
