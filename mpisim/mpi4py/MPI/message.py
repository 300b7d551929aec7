"""``MPI.Message`` of the stand-in: a message a matched probe took (MPI 4.1 §3.8.2).

``comm.Mprobe``/``comm.mprobe`` (and ``Improbe``/``improbe``, ``Message.Probe``,
``Message.probe``, ``Message.Iprobe``, ``Message.iprobe``) match a message as a receive
would and take it: no other receive or probe of any rank can match it afterwards. The
Message then receives it once: ``Recv(buf)``/``Irecv(buf)`` into a buffer spec (read as
``Comm.Recv`` reads one, :mod:`..msgbuffer.p2p`), ``recv()``/``irecv()`` as a pickled object.
After the receive the Message is ``MPI.MESSAGE_NULL`` (false), as in mpi4py; a probe of
``MPI.PROC_NULL`` gives ``MPI.MESSAGE_NO_PROC``, whose receive completes at once (the
constant itself stays MESSAGE_NO_PROC, a copy of it becomes null).
"""

from __future__ import annotations

from typing import Any

from ...mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from ...p2p.matched import NO_PROC
from ..bridge import current
from ..exceptions import Exception as MPIException
from ..exceptions import Unsupporting, unsupported
from ..msgbuffer.p2p import c_int, p2p
from .request import Request, Status, fill, received

__all__ = ["MESSAGE_NO_PROC", "MESSAGE_NULL", "Message"]


class Message(metaclass=Unsupporting):
    """mpi4py's MPI.Message (see the module)."""

    def __init__(self, message: Message | None = None) -> None:
        if message is not None and not isinstance(message, Message):
            raise TypeError(f"Argument 'message' has incorrect type (expected "
                            f"mpi4py.MPI.Message, got {type(message).__name__})")
        self._m: Any = None if message is None else message._m  # the handle's message
        self._comm: Any = None if message is None else message._comm

    # -- state ---------------------------------------------------------------------------
    def __bool__(self) -> bool:
        return self._m is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self._m is other._m

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self._m is not other._m

    def __hash__(self) -> int:
        return id(self._m)

    def __repr__(self) -> str:
        if self._m is None:
            return "<mpi4py.MPI.Message MESSAGE_NULL>"
        return f"<mpi4py.MPI.Message {self._m!r}>"

    # -- matched probes ------------------------------------------------------------------
    @classmethod
    def Probe(cls, comm: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> Message:
        """MPI_Mprobe on ``comm``: blocks until a message matches, and takes it."""
        source, tag = c_int(source), c_int(tag)
        found, st = comm._p2p("mprobe", True, source=source, tag=tag)
        fill(status, st)
        return cls._of(found, comm)

    probe = Probe

    @classmethod
    def Iprobe(cls, comm: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> Message | None:
        """MPI_Improbe on ``comm``: the message if one matches now (taken), else None."""
        source, tag = c_int(source), c_int(tag)
        flag, found, st = comm._p2p("improbe", True, source=source, tag=tag)
        if not flag:
            return None
        fill(status, st)
        return cls._of(found, comm)

    iprobe = Iprobe

    @classmethod
    def _of(cls, found: Any, comm: Any) -> Message:
        made = cls()
        made._m, made._comm = found, comm
        return made

    def free(self) -> None:
        """Nothing to free (mpi4py's ``Message.free`` does nothing either)."""

    # -- receives ------------------------------------------------------------------------
    def _take(self) -> tuple[Any, Any]:
        """The handle's message and its communicator; this Message becomes null (unless
        it is the MESSAGE_NO_PROC constant)."""
        found, comm = self._m, self._comm
        if found is None:
            raise MPIException("invalid message (MPI_MESSAGE_NULL)", None, "MPI_ERR_REQUEST")
        if self is not MESSAGE_NO_PROC:
            self._m = self._comm = None
        return found, comm

    def _source(self) -> int:
        """The rank mpi4py reads the buffer spec for: PROC_NULL for MESSAGE_NO_PROC (the
        buffer is not read), else ANY_SOURCE."""
        return PROC_NULL if self._m is NO_PROC else ANY_SOURCE

    def _call(self, call: str, found: Any, comm: Any, **kwargs: Any) -> Any:
        ctx = current()
        mpi = ctx.mpi
        method = getattr(mpi, call)
        key = comm._key() if comm is not None else "world"
        return ctx.call(lambda: method(message=found, **kwargs), key)

    def Recv(self, buf: Any, status: Status | None = None) -> None:
        """MPI_Mrecv into a buffer spec; the status of the message."""
        arr, count, dt = p2p(buf, self._source(), False)
        found, comm = self._take()
        fill(status, self._call("mrecv", found, comm, buf=arr, count=count, datatype=dt))

    def Irecv(self, buf: Any) -> Request:
        """MPI_Imrecv into a buffer spec: a Request."""
        arr, count, dt = p2p(buf, self._source(), False)
        found, comm = self._take()
        return Request(self._call("imrecv", found, comm, buf=arr, count=count, datatype=dt))

    def recv(self, status: Status | None = None) -> Any:
        """MPI_Mrecv of a pickled object: the object (None from MESSAGE_NO_PROC)."""
        found, comm = self._take()
        st = self._call("mrecv", found, comm, datatype=_byte())
        fill(status, st)
        return received(st)

    def irecv(self) -> Request:
        """MPI_Imrecv of a pickled object: a Request whose wait returns the object."""
        found, comm = self._take()
        return Request(self._call("imrecv", found, comm, datatype=_byte()), objects=True)

    def __reduce__(self) -> str | tuple[Any, ...]:
        """The constants pickle by name, a null or no-proc copy as a copy of its constant;
        a matched message cannot be pickled (ValueError, as in mpi4py)."""
        if self is MESSAGE_NULL:
            return "MESSAGE_NULL"
        if self is MESSAGE_NO_PROC:
            return "MESSAGE_NO_PROC"
        if self._m is None:
            return Message, (MESSAGE_NULL,)
        if self._m is NO_PROC:
            return Message, (MESSAGE_NO_PROC,)
        raise ValueError(f"cannot serialize {self!r}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Message", name)


def _byte() -> Any:
    from ...mpi.datatypes import BYTE

    return BYTE


Message.__module__ = "mpi4py.MPI"  # as mpi4py's: the constants pickle by name

MESSAGE_NULL = Message()
MESSAGE_NO_PROC = Message._of(NO_PROC, None)
