"""Point-to-point methods of the stand-in's ``Comm`` (mixed in): lowercase (pickled
objects) and uppercase (buffer specs) sends, receives and probes, matched probes
(:mod:`.message`), sendrecv, Isendrecv and persistent requests.

A lowercase message is the pickle's bytes (``pickle.HIGHEST_PROTOCOL``, as mpi4py), carried
as a uint8 array, so its size, protocol and attached-buffer space are those of the real
library and a buffer receive can take it; the receiver unpickles its own copy. Uppercase
calls read their buffer specs with :func:`~.msgspec.p2p` (mpi4py's rules and errors) and
receive into the caller's memory. Ranks and tags are C ints, converted as mpi4py's
signatures convert them (:func:`~.msgspec.c_int`), before the buffer is read.
"""

from __future__ import annotations

import pickle
import sys
import warnings
from typing import Any

import numpy as np
from greenlet import getcurrent

from ...mpi.constants import ANY_SOURCE, ANY_TAG, BOTTOM, PROC_NULL
from ...p2p.requests import joined as _joined
from ..bridge import SITES, THREAD_CALLS, current
from ..datatypes.datatype import Datatype
from ..datatypes.integers import INT_MAX as _INT_MAX
from ..datatypes.integers import INT_MIN as _INT_MIN
from ..exceptions import unsupported
from ..msgbuffer.p2p import c_int, p2p
from .message import Message
from .request import Prequest, Request, Status, fill, received

__all__ = ["P2PMethods", "both", "dumps"]

PROTOCOL = pickle.HIGHEST_PROTOCOL
_NDARRAY = np.ndarray


def dumps(obj: Any) -> bytes:
    return pickle.dumps(obj, PROTOCOL)


class P2PMethods:
    """Mixin of :class:`~.comm.Comm` (needs ``_p2p``, ``_c`` and ``_key``)."""

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _c(self, mpi: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _key(self) -> Any:  # pragma: no cover
        raise NotImplementedError

    _kind: str

    # -- lowercase point-to-point (pickled objects) ---------------------------------------
    def _send_obj(self, call: str, obj: Any, dest: Any, tag: Any) -> Any:
        dest, tag = c_int(dest), c_int(tag)
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
        source, tag = c_int(source), c_int(tag)
        if buf is not None:  # mpi4py 4 receives the object whole, as a matched probe
            warnings.warn("the 'buf' argument is deprecated", UserWarning, stacklevel=2)
        st = self._p2p("recv", True, datatype=_byte(), source=source, tag=tag)
        fill(status, st)
        return received(st)

    def irecv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        source, tag = c_int(source), c_int(tag)
        return Request(self._p2p("irecv", False, count=_capacity(buf), datatype=_byte(),
                                 source=source, tag=tag), objects=True)

    def sendrecv(self, sendobj: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None) -> Any:
        dest, sendtag, source, recvtag = c_int(dest), c_int(sendtag), c_int(source), \
            c_int(recvtag)
        data = np.frombuffer(dumps(sendobj), dtype=np.uint8)
        st = self._sendrecv(dict(sendbuf=data, sendcount=None, sendtype=_byte()),
                            dest, sendtag, dict(recvcount=_capacity(recvbuf),
                                                recvtype=_byte()), source, recvtag)
        fill(status, st)
        return received(st)

    def probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> bool:
        source, tag = c_int(source), c_int(tag)
        fill(status, self._p2p("probe", True, source=source, tag=tag))
        return True

    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> bool:
        source, tag = c_int(source), c_int(tag)
        flag, st = self._p2p("iprobe", True, source=source, tag=tag)
        if flag:
            fill(status, st)
        return bool(flag)

    # -- uppercase point-to-point (buffers) ------------------------------------------------
    def _buf_call(self, call: str, buf: Any, peer: Any, tag: Any, frame: Any,  # noqa: C901 -- hot: a script's message 171,385 instructions, 1.28x a program's (bench.frontend)
                  sending: bool) -> Any:
        """The handle's ``call`` of a buffer spec to or from ``peer``, its event waited for:
        the steps of :meth:`_p2p` and :meth:`~.bridge.RankContext.call`, with the handle
        called directly and the common cases of their helpers inlined (once per call: the
        front end's hottest path). A received-into buffer must be writable."""
        if type(peer) is not int or not _INT_MIN <= peer <= _INT_MAX:  # (c_int, inlined)
            peer = c_int(peer)
        if type(tag) is not int or not _INT_MIN <= tag <= _INT_MAX:
            tag = c_int(tag)
        count = -1
        if type(buf) is list and len(buf) == 2 and peer != PROC_NULL:  # (p2p's commonest
            arr, dt = buf  # case, [array, datatype], inlined)
            if type(arr) is _NDARRAY and type(dt) is Datatype:
                dt = dt._h.t
                if dt is not None and dt.numpy_dtype is arr.dtype:
                    extent, nbytes, flags = dt.extent, arr.nbytes, arr.flags
                    if extent > 0 and not nbytes % extent and flags.c_contiguous \
                            and (sending or flags.writeable):
                        count = nbytes // extent
                        if arr.ndim != 1:
                            arr = arr.reshape(-1)
        if count < 0:
            arr, count, dt = p2p(buf, peer, sending)
        ctx = getattr(getcurrent(), "ctx", None) or current()  # (current, inlined)
        mpi = ctx.mpi
        if self._kind == "world":  # (_c and _key of MPI.COMM_WORLD, inlined)
            comm, key = None, "world"
        else:
            comm, key = self._c(mpi), self._key()
        method = getattr(mpi, call)
        known = SITES.get((id(frame.f_code), frame.f_lasti))
        if known is None or ctx.closed or THREAD_CALLS:
            ctx.start(frame)
        else:  # (RankContext.start on a line seen before, inlined)
            ctx.port.where = known[0]
        # (the handle's sends and receives take (buf, count, datatype, peer, tag, comm))
        ev = method(arr, count, dt, peer, tag, comm)
        try:
            if ev.callbacks is None and ev._ok:  # (RankContext.wait on an event that has
                return ev._value                 # already happened, inlined)
        except AttributeError:
            pass
        return ctx.wait(ev, key)

    def Send(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._buf_call("send", buf, dest, tag, sys._getframe(1), True)

    def Bsend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._buf_call("bsend", buf, dest, tag, sys._getframe(1), True)

    def Ssend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._buf_call("ssend", buf, dest, tag, sys._getframe(1), True)

    def Rsend(self, buf: Any, dest: int, tag: int = 0) -> None:
        self._buf_call("rsend", buf, dest, tag, sys._getframe(1), True)

    def Isend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._buf_call("isend", buf, dest, tag, sys._getframe(1), True))

    def Ibsend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._buf_call("ibsend", buf, dest, tag, sys._getframe(1), True))

    def Issend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._buf_call("issend", buf, dest, tag, sys._getframe(1), True))

    def Irsend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        return Request(self._buf_call("irsend", buf, dest, tag, sys._getframe(1), True))

    def Recv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG,
             status: Status | None = None) -> None:
        """MPI_Recv into the buffer spec."""
        st = self._buf_call("recv", buf, source, tag, sys._getframe(1), False)
        if status is not None:
            fill(status, st)

    def Irecv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        source, tag = c_int(source), c_int(tag)
        arr, count, dt = p2p(buf, source, False)
        return Request(self._p2p("irecv", False, buf=arr, count=count, datatype=dt,
                                 source=source, tag=tag))

    def Sendrecv(self, sendbuf: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None) -> None:
        dest, sendtag, source, recvtag = c_int(dest), c_int(sendtag), c_int(source), \
            c_int(recvtag)
        sarr, scount, stype = p2p(sendbuf, dest, True)
        rarr, rcount, rtype = p2p(recvbuf, source, False)
        fill(status, self._sendrecv(dict(sendbuf=sarr, sendcount=scount, sendtype=stype), dest,
                                    sendtag, dict(recvbuf=rarr, recvcount=rcount,
                                                  recvtype=rtype), source, recvtag))

    def Sendrecv_replace(self, buf: Any, dest: int, sendtag: int = 0,
                         source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                         status: Status | None = None) -> None:
        dest, sendtag, source, recvtag = c_int(dest), c_int(sendtag), c_int(source), \
            c_int(recvtag)
        arr, count, dt = _replace(buf, dest, source)
        send = None if arr is None or arr is BOTTOM else arr.copy()
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
        dest, sendtag, source, recvtag = c_int(dest), c_int(sendtag), c_int(source), \
            c_int(recvtag)
        sarr, scount, stype = p2p(sendbuf, dest, True)
        rarr, rcount, rtype = p2p(recvbuf, source, False)
        rreq = self._p2p("irecv", False, buf=rarr, count=rcount, datatype=rtype,
                         source=source, tag=recvtag)
        sreq = self._p2p("isend", False, buf=sarr, count=scount, datatype=stype, dest=dest,
                         tag=sendtag)
        return Request(both(sreq, rreq, "MPI_Isendrecv"))

    def Isendrecv_replace(self, buf: Any, dest: int, sendtag: int = 0,
                          source: int = ANY_SOURCE, recvtag: int = ANY_TAG) -> Request:
        """MPI_Isendrecv_replace: the data sent is copied at the call (as MPI's internal
        buffer), the received data replaces it in ``buf``."""
        dest, sendtag, source, recvtag = c_int(dest), c_int(sendtag), c_int(source), \
            c_int(recvtag)
        arr, count, dt = _replace(buf, dest, source)
        send = None if arr is None or arr is BOTTOM else arr.copy()
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

    # -- matched probes (3.8.2) -----------------------------------------------------------
    def Mprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> Message:
        """MPI_Mprobe: blocks until a message matches and takes it (see :mod:`.message`)."""
        return Message.Probe(self, source, tag, status)

    def Improbe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
                status: Status | None = None) -> Message | None:
        """MPI_Improbe: the matching message, taken, or None."""
        return Message.Iprobe(self, source, tag, status)

    mprobe = Mprobe
    improbe = Improbe

    # -- persistent requests ---------------------------------------------------------------
    def _init(self, call: str, buf: Any, peer: Any, tag: Any, writable: bool = False
              ) -> Prequest:
        peer, tag = c_int(peer), c_int(tag)
        mpi = current().mpi
        if not hasattr(type(mpi), call):
            raise unsupported("Comm", call.capitalize().replace("_init", "_init"))
        arr, count, dt = p2p(buf, peer, not writable)
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


def both(sreq: Any, rreq: Any, call: str) -> Any:
    """One handle request that completes when a send and a receive both have
    (:func:`mpisim.p2p.requests.joined`, which the replay of a recorded MPI_Isendrecv
    shares)."""
    return _joined(sreq, rreq, call)


def _replace(buf: Any, dest: int, source: int) -> tuple[Any, int, Any]:
    """The buffer of a Sendrecv_replace, read as a receive's (writable) with the source's
    rank, or the destination's when the source is PROC_NULL (as mpi4py does)."""
    return p2p(buf, source if source != PROC_NULL else dest, False)


def _byte() -> Any:
    from ...mpi.datatypes import BYTE

    return BYTE


def _capacity(buf: Any) -> int | None:
    """Bytes a lowercase receive takes: any size without a buffer (the stand-in, like
    mpi4py's matched-probe receive, allocates what arrives), else the buffer's size."""
    if buf is None:
        return None
    if isinstance(buf, int) and not isinstance(buf, bool):
        return buf
    return memoryview(buf).nbytes
