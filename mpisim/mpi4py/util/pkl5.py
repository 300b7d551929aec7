"""``mpi4py.util.pkl5`` for the stand-in: pickled objects of any size, sent as pickle
protocol 5's data stream plus its out-of-band buffers.

mpi4py's pkl5 is plain Python over MPI, and this module sends the same messages as it
does (mpi4py 4.1.2's ``util/pkl5.py``), so a simulated run moves the same bytes in the same
number of messages: an object is pickled with protocol 5 (``pkl5.pickle.dumps_oob``),
buffers of at least ``THRESHOLD`` bytes (256 KiB) out of band; the sender sends a header of int64
lengths (the stream's, then each buffer's, typecode ``"q"``), then the stream, then each
buffer, all with the call's tag; the receiver probes, receives the header, then the parts
from the same source and tag. Matched probes take the header and every part with
``Mprobe`` (so another receive cannot interleave). Collectives (bcast, gather, scatter,
allgather, alltoall) run on a duplicate of the communicator made on first use, with a tag
that counts calls, as mpi4py's do (bcast with the buffer Bcast; the others with
point-to-point messages). Intercommunicators are not supported.

``Comm``, ``Intracomm``, ``Request`` and ``Message`` are mpi4py's classes of the same
names: ``pkl5.Intracomm(MPI.COMM_WORLD)`` is the same communicator with these methods.
"""

from __future__ import annotations

import struct
from typing import Any

from ..bridge import current
from ..datatypes.datatype import DATATYPES, Datatype
from ..exceptions import unsupported
from ..MPI.comm import Comm as _Comm
from ..MPI.comm import Intracomm as _Intracomm
from ..MPI.message import MESSAGE_NO_PROC, MESSAGE_NULL
from ..MPI.message import Message as _Message
from ..MPI.request import REQUEST_NULL
from ..MPI.request import Request as _Request
from ..MPI.status import Status
from ..msgbuffer.membuffer import buffer
from ..msgbuffer.pickle import Pickle

__all__ = ["Comm", "Intercomm", "Intracomm", "Message", "Pickle", "Request", "pickle"]

ANY_SOURCE, ANY_TAG, PROC_NULL = -2, -1, -1
_BYTE = DATATYPES["BYTE"]
_INFO = "q"  # the header's typecode: int64 lengths
_TAG_UB = 2**31 - 1


# -- pickling and large counts ----------------------------------------------------------------
pickle = Pickle()
"""The Pickle pkl5 uses (a test may swap it, as mpi4py's tests do)."""


def dumps(obj: Any) -> tuple[bytes, list[Any]]:
    """The protocol-5 stream and the out-of-band buffers (``pickle.dumps_oob``)."""
    return pickle.dumps_oob(obj)


def loads(data: Any, bufs: list[Any]) -> Any:
    return pickle.loads_oob(data, bufs)


class _BigMPI:
    """Parts longer than ``blocksize`` bytes travel as one element of a contiguous
    datatype (mpi4py's way past a C int count; with MPI 4 counts the limit is int64)."""

    blocksize = 2**63 - 1

    def __init__(self) -> None:
        self.cache: dict[int, Any] = {}

    def __enter__(self) -> _BigMPI:
        return self

    def __exit__(self, *exc: Any) -> None:
        for dtype in self.cache.values():
            dtype.Free()
        self.cache.clear()

    def __call__(self, buf: Any) -> list[Any]:
        count = memoryview(buf).nbytes
        if count <= self.blocksize:
            return [buf, count, _BYTE]
        dtype = self.cache.get(count)
        if dtype is None:
            dtype = self.cache[count] = _BYTE.Create_contiguous(count).Commit()
        return [buf, 1, dtype]


_bigmpi = _BigMPI()


def _info_pack(info: list[int]) -> bytes:
    return struct.pack(f"{len(info)}{_INFO}", *info)


def _info_unpack(info: Any) -> tuple[int, ...]:
    return struct.unpack(f"{len(info) // 8}{_INFO}", info)


def _info_type() -> Any:
    return Datatype.fromcode(_INFO)


def _new_buffer(size: int) -> Any:
    return buffer.allocate(size)


# -- point-to-point --------------------------------------------------------------------------
def _send_raw(comm: _Comm, send: Any, data: Any, bufs: list[Any], dest: int, tag: int) -> None:
    info = [len(data), *(memoryview(b).nbytes for b in bufs)]
    send(comm, [_info_pack(info), _info_type()], dest, tag)
    with _bigmpi as bigmpi:
        for part in (data, *bufs):
            send(comm, bigmpi(part), dest, tag)


def _send(comm: _Comm, send: Any, obj: Any, dest: int, tag: int) -> None:
    if dest == PROC_NULL:
        send(comm, [None, 0, _BYTE], dest, tag)
        return
    data, bufs = dumps(obj)
    _send_raw(comm, send, data, bufs, dest, tag)


def _isend(comm: _Comm, isend: Any, obj: Any, dest: int, tag: int) -> Request:
    reqs: list[Any] = []
    _send(comm, lambda c, b, d, t: reqs.append(isend(c, b, d, t)), obj, dest, tag)
    return Request(reqs)


def _recv_raw(comm: _Comm, recv: Any, buf: Any, source: int, tag: int,
              status: Status | None = None) -> tuple[Any, list[Any]]:
    status = Status() if status is None else status
    _Comm.Probe(comm, source, tag, status)
    source, tag = status.Get_source(), status.Get_tag()
    info = bytearray(status.Get_elements(_info_type()) * 8)
    _Comm.Recv(comm, [info, _info_type()], source, tag, status)
    sizes = _info_unpack(info)
    if buf is not None:
        buf = memoryview(buf).cast("B")
        buf = buf[:sizes[0]] if len(buf) >= sizes[0] else None
    data = _new_buffer(sizes[0]) if buf is None else buf
    bufs = [_new_buffer(n) for n in sizes[1:]]
    with _bigmpi as bigmpi:
        for part in (data, *bufs):
            recv(comm, bigmpi(part), source, tag)
    status.Set_elements(_BYTE, sum(sizes))
    return data, bufs


def _recv(comm: _Comm, recv: Any, buf: Any, source: int, tag: int, status: Status | None) -> Any:
    if source == PROC_NULL:
        recv(comm, [None, 0, _BYTE], source, tag, status)
        return None
    data, bufs = _recv_raw(comm, recv, buf, source, tag, status)
    return loads(data, bufs)


def _mprobe(comm: _Comm, mprobe: Any, source: int, tag: int,
            status: Status | None) -> Message | None:
    """The header and every part, each taken by a matched probe."""
    if source == PROC_NULL:
        return Message([_Comm.Mprobe(comm, source, tag, status)])
    status = Status() if status is None else status
    first = mprobe(comm, source, tag, status)
    if first is None:
        return None
    parts = [first]
    source, tag = status.Get_source(), status.Get_tag()
    nbytes = 0
    for _ in range(status.Get_elements(_info_type())):
        parts.append(_Comm.Mprobe(comm, source, tag, status))
        nbytes += status.Get_elements(_BYTE)
    status.Set_elements(_BYTE, nbytes)
    return Message(parts)


def _mrecv_data(message: Message, mrecv: Any, status: Status | None = None
                ) -> tuple[Any, list[Any]]:
    head, *rest = message
    if head == MESSAGE_NO_PROC:
        _Message.Recv(head, [bytearray(0), _info_type()], status)
        mrecv(MESSAGE_NO_PROC, [None, 0, _BYTE])
        data, bufs = dumps(None)
        return bytearray(data), bufs
    info = bytearray(len(rest) * 8)
    _Message.Recv(head, [info, _info_type()], status)
    sizes = _info_unpack(info)
    data = _new_buffer(sizes[0])
    bufs = [_new_buffer(n) for n in sizes[1:]]
    with _bigmpi as bigmpi:
        for part, buf in zip(rest, (data, *bufs), strict=True):
            mrecv(part, bigmpi(buf))
    if status is not None:
        status.Set_elements(_BYTE, sum(sizes))
    return data, bufs


# -- requests and messages ----------------------------------------------------------------------
class Request(tuple):
    """A pkl5 request: the requests of every part of one object (mpi4py's
    ``pkl5.Request``); ``wait`` and ``test`` return the object a receive got."""

    _data_bufs: Any = None

    def __new__(cls, request: Any = None) -> Request:
        if request is None:
            request = (REQUEST_NULL,)
        if isinstance(request, _Request):
            request = (request,)
        return super().__new__(cls, request)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Request):
            return tuple(self) == tuple(other)
        if isinstance(other, _Request):
            return all(req == other for req in self)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __bool__(self) -> bool:
        return any(bool(req) for req in self)

    def Free(self) -> None:
        for req in self:
            req.Free()

    def free(self) -> None:
        for req in self:
            req.free()

    def cancel(self) -> None:
        for req in self:
            req.Cancel()

    def get_status(self, status: Status | None = None) -> bool:
        statuses = [status] + [None] * max(len(self) - 1, 0)
        return all(_Request.Get_status(r, s) for r, s in zip(self, statuses, strict=True))

    def test(self, status: Status | None = None) -> tuple[bool, Any]:
        return _test(self, _Request.Testall, status)

    def wait(self, status: Status | None = None) -> Any:
        return _test(self, _Request.Waitall, status)[1]

    @classmethod
    def get_status_all(cls, requests: Any, statuses: Any = None) -> bool:
        requests = list(requests)
        if statuses is None:
            return all(req.get_status() for req in requests)
        statuses += [Status() for _ in range(len(statuses), len(requests))]
        return all(req.get_status(st) for req, st in zip(requests, statuses, strict=False))

    @classmethod
    def testall(cls, requests: Any, statuses: Any = None) -> tuple[bool, Any]:
        return _testall(list(requests), _Request.Testall, statuses)

    @classmethod
    def waitall(cls, requests: Any, statuses: Any = None) -> Any:
        return _testall(list(requests), _Request.Waitall, statuses)[1]


def _load(request: Request) -> Any:
    data_bufs = request._data_bufs
    if data_bufs is None:
        return None
    if not request:
        request._data_bufs = None
    return loads(*data_bufs)


def _test(request: Request, test: Any, status: Status | None) -> tuple[bool, Any]:
    if test(list(request), None if status is None else [status]):
        return True, _load(request)
    return False, None


def _testall(requests: list[Any], testall: Any, statuses: Any) -> tuple[bool, Any]:
    if isinstance(statuses, list):
        statuses += [Status() for _ in range(len(requests) - len(statuses))]
    flat = [req for request in requests for req in request]
    flat_statuses = None
    if statuses is not None:
        flat_statuses = [st for request, st in zip(requests, statuses, strict=False)
                         for _ in request]
    if testall(flat, flat_statuses):
        return True, [_load(request) for request in requests]
    return False, None


class Message(tuple):
    """A pkl5 message: the matched messages of every part of one object (mpi4py's
    ``pkl5.Message``)."""

    def __new__(cls, message: Any = None) -> Message:
        if message is None:
            message = (MESSAGE_NULL,)
        if isinstance(message, _Message):
            message = (message,)
        return super().__new__(cls, message)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Message):
            return tuple(self) == tuple(other)
        if isinstance(other, _Message):
            return all(msg == other for msg in self)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __bool__(self) -> bool:
        return any(bool(msg) for msg in self)

    def free(self) -> None:
        """Nothing to free (mpi4py's ``Message.free`` does nothing either)."""

    def recv(self, status: Status | None = None) -> Any:
        return loads(*_mrecv_data(self, _Message.Recv, status))

    def irecv(self) -> Request:
        reqs: list[Any] = []
        data_bufs = _mrecv_data(self, lambda m, b: reqs.append(_Message.Irecv(m, b)))
        request = Request(reqs)
        request._data_bufs = data_bufs
        return request

    @classmethod
    def probe(cls, comm: _Comm, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              status: Status | None = None) -> Message:
        return _mprobe(comm, _Comm.Mprobe, source, tag, status)  # type: ignore[return-value]

    @classmethod
    def iprobe(cls, comm: _Comm, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               status: Status | None = None) -> Message | None:
        return _mprobe(comm, _Comm.Improbe, source, tag, status)


# -- collectives ------------------------------------------------------------------------------
def _commctx(comm: _Comm) -> tuple[_Comm, int]:
    """The communicator's duplicate (made on first use, collectively) and the next tag,
    as mpi4py's ``_commctx_intra``: one duplicate per communicator per rank."""
    if comm.Is_inter():
        raise unsupported("pkl5", "collectives on intercommunicators")
    table = current().state.setdefault("pkl5", {})
    entry = table.get(comm._key())
    if entry is None:
        entry = table[comm._key()] = [_Comm.Dup(comm), 0]
    dup, tag = entry
    entry[1] = tag + 1 if tag + 1 < _TAG_UB else 0
    return dup, tag


def _check_root(comm: _Comm, root: int) -> None:
    if not 0 <= root < comm.Get_size():
        from ..exceptions import Exception as MPIException

        raise MPIException("invalid root", None, "MPI_ERR_ROOT")


def _bcast(comm: _Comm, obj: Any, root: int) -> Any:
    rank = comm.Get_rank()
    data: bytes | bytearray
    data, bufs = dumps(obj if rank == root else None)
    dup, _tag = _commctx(comm)
    infotype = _info_type()
    if rank == root:  # (writable copies: the stand-in's Bcast reads the root's buffer so)
        info = [len(data), *(memoryview(b).nbytes for b in bufs)]
        _Comm.Bcast(dup, [bytearray(_info_pack([len(info)])), infotype], root)
        _Comm.Bcast(dup, [bytearray(_info_pack(info)), infotype], root)
        data, bufs = bytearray(data), [bytearray(b) for b in bufs]
    else:
        count = bytearray(8)
        _Comm.Bcast(dup, [count, infotype], root)
        info_buf = bytearray(_info_unpack(count)[0] * 8)
        _Comm.Bcast(dup, [info_buf, infotype], root)
        sizes = _info_unpack(info_buf)
        data, bufs = _new_buffer(sizes[0]), [_new_buffer(n) for n in sizes[1:]]
    with _bigmpi as bigmpi:
        for part in (data, *bufs):
            _Comm.Bcast(dup, bigmpi(part), root)
    return loads(data, bufs)


def _p2p() -> tuple[list[Any], Any, Any]:
    reqs: list[Any] = []
    return (reqs, lambda c, b, d, t: reqs.append(_Comm.Isend(c, b, d, t)),
            lambda c, b, s, t: _Comm.Recv(c, b, s, t))


def _gather(comm: _Comm, obj: Any, root: int) -> list[Any] | None:
    reqs, send, recv = _p2p()
    dup, tag = _commctx(comm)
    size = dup.Get_size()
    _check_root(dup, root)
    data, bufs = dumps(obj)
    _send_raw(dup, send, data, bufs, root, tag)
    objs = None
    if root == dup.Get_rank():
        objs = [loads(*_recv_raw(dup, recv, None, source, tag)) for source in range(size)]
    _Request.Waitall(reqs)
    return objs


def _scatter(comm: _Comm, objs: Any, root: int) -> Any:
    reqs, send, recv = _p2p()
    dup, tag = _commctx(comm)
    size = dup.Get_size()
    _check_root(dup, root)
    if root == dup.Get_rank():
        objs = [None] * size if objs is None else list(objs)
        if len(objs) != size:
            raise ValueError(f"expecting {size} items, got {len(objs)}")
        for dest, item in enumerate(objs):
            _send_raw(dup, send, *dumps(item), dest, tag)
    obj = loads(*_recv_raw(dup, recv, None, root, tag))
    _Request.Waitall(reqs)
    return obj


def _allgather(comm: _Comm, obj: Any) -> list[Any]:
    reqs, send, recv = _p2p()
    dup, tag = _commctx(comm)
    size = dup.Get_size()
    data, bufs = dumps(obj)
    for dest in range(size):
        _send_raw(dup, send, data, bufs, dest, tag)
    objs = [loads(*_recv_raw(dup, recv, None, source, tag)) for source in range(size)]
    _Request.Waitall(reqs)
    return objs


def _alltoall(comm: _Comm, objs: Any) -> list[Any]:
    reqs, send, recv = _p2p()
    dup, tag = _commctx(comm)
    size = dup.Get_size()
    objs = [None] * size if objs is None else list(objs)
    if len(objs) != size:
        raise ValueError(f"expecting {size} items, got {len(objs)}")
    for dest, item in enumerate(objs):
        _send_raw(dup, send, *dumps(item), dest, tag)
    got = [loads(*_recv_raw(dup, recv, None, source, tag)) for source in range(size)]
    _Request.Waitall(reqs)
    return got


# -- the communicators -------------------------------------------------------------------------
class Comm(_Comm):
    """mpi4py's ``pkl5.Comm``: the lowercase calls with pkl5's messages.

    Its signatures are mpi4py's, which differ from ``MPI.Comm``'s (a pkl5 Request or
    Message is not an MPI one; ``bcast``'s and ``scatter``'s object has no default): the
    ``override`` ignores below are those of mpi4py's own stubs."""

    def Dup(self, info: Any = None) -> Comm:
        """A duplicate, of this class (as mpi4py's Dup makes ``type(self)``)."""
        return type(self)(_Comm.Dup(self, info))

    Clone = Dup

    def Split(self, color: int = 0, key: int = 0) -> Comm:
        return type(self)(_Comm.Split(self, color, key))

    def send(self, obj: Any, dest: int, tag: int = 0) -> None:
        _send(self, _Comm.Send, obj, dest, tag)

    def bsend(self, obj: Any, dest: int, tag: int = 0) -> None:
        _send(self, _Comm.Bsend, obj, dest, tag)

    def ssend(self, obj: Any, dest: int, tag: int = 0) -> None:
        _Request.Waitall(list(_isend(self, _Comm.Issend, obj, dest, tag)))

    def isend(self, obj: Any, dest: int, tag: int = 0) -> Request:  # type: ignore[override]
        return _isend(self, _Comm.Isend, obj, dest, tag)

    def ibsend(self, obj: Any, dest: int, tag: int = 0) -> Request:  # type: ignore[override]
        return _isend(self, _Comm.Ibsend, obj, dest, tag)

    def issend(self, obj: Any, dest: int, tag: int = 0) -> Request:  # type: ignore[override]
        return _isend(self, _Comm.Issend, obj, dest, tag)

    def recv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG,
             status: Status | None = None) -> Any:
        return _recv(self, _Comm.Recv, buf, source, tag, status)

    def irecv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Any:
        """Not offered by pkl5 (its size is unknown before the header): RuntimeError, as
        in mpi4py."""
        raise RuntimeError("unsupported")

    def sendrecv(self, sendobj: Any, dest: int, sendtag: int = 0, recvbuf: Any = None,
                 source: int = ANY_SOURCE, recvtag: int = ANY_TAG,
                 status: Status | None = None) -> Any:
        sreq = _isend(self, _Comm.Isend, sendobj, dest, sendtag)
        obj = _recv(self, _Comm.Recv, recvbuf, source, recvtag, status)
        _Request.Waitall(list(sreq))
        return obj

    def mprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,  # type: ignore[override]
               status: Status | None = None) -> Message:
        return _mprobe(self, _Comm.Mprobe, source, tag, status)  # type: ignore[return-value]

    def improbe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,  # type: ignore[override]
                status: Status | None = None) -> Message | None:
        return _mprobe(self, _Comm.Improbe, source, tag, status)

    def bcast(self, obj: Any, root: int = 0) -> Any:  # type: ignore[override]
        return _bcast(self, obj, root)

    def gather(self, sendobj: Any, root: int = 0) -> list[Any] | None:
        return _gather(self, sendobj, root)

    def scatter(self, sendobj: Any, root: int = 0) -> Any:  # type: ignore[override]
        return _scatter(self, sendobj, root)

    def allgather(self, sendobj: Any) -> list[Any]:
        return _allgather(self, sendobj)

    def alltoall(self, sendobj: Any) -> list[Any]:
        return _alltoall(self, sendobj)


class Intracomm(Comm, _Intracomm):
    """mpi4py's ``pkl5.Intracomm``."""


class Intercomm(Comm):
    """mpi4py's ``pkl5.Intercomm``: not supported by the stand-in's pkl5."""

    def __init__(self, comm: Any = None) -> None:
        raise unsupported("pkl5", "Intercomm")


for _cls in (Comm, Intracomm, Intercomm, Request, Message):
    _cls.__module__ = "mpi4py.util.pkl5"
