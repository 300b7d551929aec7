"""Requests and statuses: the handles of nonblocking operations.

A request's completion time is often known before it happens (an eager send is complete
once its bytes have left the port, and that time is fixed when the send is posted), so a
request stores ``done_at`` instead of waiting for an event: it is complete when
``done_at <= now``. Nobody pays an event for a completion nobody waits for. A request whose
completion time is not known yet (a receive, a rendezvous send before clear-to-send) keeps
``done_at = None``; waiters register a callback that runs as soon as the time becomes known
and schedules their wake-up for that time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Request", "Status", "joined"]


class Status:
    """The OUT status of a receive or probe (MPI_Status).

    ``count`` is in bytes (use ``count // datatype.size`` for elements). ``data`` is what the
    sender passed as ``buf`` (a copy for numpy arrays), None when it sent none. A receive
    yields it (``status = yield mpi.recv(...)``); mpisim builds it.

    Parameters
    ----------
    source
        The sender's rank in the communicator of the receive (MPI_SOURCE).
    tag
        The message's tag (MPI_TAG).
    count
        The bytes received (at most the receive's size; the message's size for a probe).
    data
        What the sender sent as ``buf`` (a copy of a numpy array), or None when it sent
        none (a send of size only).
    error
        The MPI error class of a failed receive (``"MPI_ERR_TRUNCATE"``), or None
        (MPI_ERROR).
    """

    __slots__ = ("cancelled", "count", "data", "error", "source", "tag")

    def __init__(self, source: int, tag: int, count: int, data: Any = None,
                 error: str | None = None) -> None:
        self.source = source
        self.tag = tag
        self.count = count
        self.data = data
        self.error = error
        self.cancelled = False

    def get_count(self, datatype: Any = None) -> int:
        """Elements of ``datatype`` received (MPI_Get_count); bytes when no datatype.

        Parameters
        ----------
        datatype
            The datatype the count is in (``ms.INT``...). Default: None, bytes.

        Returns
        -------
        int
            ``count // datatype.size``, or ``ms.UNDEFINED`` when the bytes are not a whole
            number of elements.
        """
        if datatype is None:
            return self.count
        size: int = datatype.size
        if size == 0 or self.count % size:
            return -32766  # MPI_UNDEFINED
        return self.count // size

    def __repr__(self) -> str:
        err = f", error={self.error}" if self.error else ""
        return f"Status(source={self.source}, tag={self.tag}, count={self.count}{err})"


EMPTY_STATUS_ARGS = (-2, -1, 0)  # MPI's empty status: ANY_SOURCE, ANY_TAG, count 0


class Request:
    """A nonblocking operation's handle (MPI_Request).

    ``kind`` is ``"send"`` or ``"recv"``; ``call`` the MPI name of the call that made it.
    After a wait or successful test the request is inactive (MPI_REQUEST_NULL): waiting on it
    again returns an empty status at once. Nonblocking calls yield one
    (``req = yield mpi.isend(...)``); mpisim builds it, a program passes it to ``wait``,
    ``test`` and the like.

    Parameters
    ----------
    kind
        What it stands for: ``"send"``, ``"recv"``, ``"coll"`` (a nonblocking
        collective), ``"rma"`` (a request-based one-sided operation) or ``"io"``.
    call
        The MPI name of the call that made it (``"MPI_Isend"``).
    rank
        The rank that made it (in MPI_COMM_WORLD).
    peer
        The other rank: a send's destination, a receive's source (world ranks;
        ``ms.ANY_SOURCE`` for a wildcard receive).
    tag
        The tag (``ms.ANY_TAG`` for a receive of any tag).
    nbytes
        A send's bytes; a receive's capacity in bytes (None: any size).
    buf
        A receive's buffer (a numpy array it fills), or None.
    count
        A receive's count of ``datatype`` elements, or None.
    datatype
        A receive's datatype, or None.
    """

    # The attributes every request sets are slots; the ones most never set (an error, a
    # communicator other than the world, ...) are class defaults, and only a request that
    # sets one gets a ``__dict__`` for it: smaller requests, fewer stores per message.
    # (error, ctx and comm are read once per message: a class default read through an
    # instance is not specialised by the interpreter and costs more than the slot's store)
    __slots__ = ("__dict__", "active", "buf", "call", "comm", "count", "ctx", "datatype",
                 "done_at", "error", "kind", "mode", "nbytes", "peer", "protocol", "rank",
                 "status", "tag", "waiters", "wake", "where")

    waiting: Any = None  # a Cause: why a send cannot complete yet (deadlock reports)
    channel: Any  # a collective's or a meeting's: the members a wait on it waits for
    forced = False       # a send made synchronous by mpi.force_ssend
    freed = False        # MPI_Request_free was called on it
    space: Any = None    # the address space its buffer is in (MPI_BOTTOM)
    result: Any = None   # a nonblocking collective's value
    wild: int | None = None  # its number among its rank's wildcard receives (races)
    snapshot: Any = None  # a copy of its numpy buffer when posted (correctness checks)

    def __init__(self, kind: str, call: str, rank: int, peer: int, tag: int, nbytes: int | None,
                 buf: Any = None, count: int | None = None, datatype: Any = None) -> None:
        self.kind = kind
        self.call = call
        self.rank = rank
        self.peer = peer
        self.tag = tag
        self.nbytes = nbytes
        self.done_at: float | None = None
        self.status: Status | None = None
        self.waiters: list[Callable[[Request], None]] | None = None
        self.active = True
        self.buf = buf            # a receive's buffer, count and datatype (what it takes)
        self.count = count
        self.datatype = datatype
        self.mode: str | None = None      # a send's effective mode, set by the transport
        self.protocol: str | None = None  # eager or rendezvous, set by the transport
        self.where: Any = None  # a send's place in the program (set by the rank handle)
        self.wake: Any = None   # the event of the blocking wait on it, if one waits
        self.error: Exception | None = None  # why it failed, if it did
        self.ctx = 0            # the communicator's matching context (0: MPI_COMM_WORLD)
        self.comm: Any = None   # its Comm when not the world: Status.source is a rank in it

    def restart(self, peer: int, tag: int, nbytes: int | None) -> Request:
        """Start this (persistent) request again (3.9): active, nothing known yet."""
        self.peer, self.tag, self.nbytes = peer, tag, nbytes
        self.done_at = self.status = self.error = self.waiters = self.waiting = None
        self.active = True
        return self

    def known(self, when: float) -> None:
        """The engine learned when this request completes; tell the waiters."""
        self.done_at = when
        waiters = self.waiters
        if waiters:
            self.waiters = None
            for waiter in waiters:
                waiter(self)

    def on_known(self, waiter: Callable[[Request], None]) -> None:
        """Call ``waiter(self)`` once the completion time is known (at once if it is)."""
        if self.done_at is not None:
            waiter(self)
        elif self.waiters is None:
            self.waiters = [waiter]
        else:
            self.waiters.append(waiter)

    def __repr__(self) -> str:
        state = "pending" if self.done_at is None else f"done_at={self.done_at:.9g}"
        return f"<Request {self.call} peer={self.peer} tag={self.tag} {self.nbytes} B {state}>"


def joined(send: Request, recv: Request, call: str) -> Request:
    """One request that completes when a send and a receive both have: MPI_Isendrecv and
    MPI_Isendrecv_replace, which MPI 4.1 §3.10 defines as an irecv and an isend under one
    request. Its status and error are the receive's (the send's error if only it failed)."""
    combo = Request("recv", call, recv.rank, recv.peer, recv.tag, recv.nbytes)
    combo.ctx, combo.comm = recv.ctx, recv.comm
    left = [2]

    def known(_r: Request) -> None:
        left[0] -= 1
        if left[0] == 0 and send.done_at is not None and recv.done_at is not None:
            combo.status = recv.status
            combo.error = recv.error or send.error
            send.active = recv.active = False  # completed through the combined request
            combo.known(max(send.done_at, recv.done_at))

    send.on_known(known)
    recv.on_known(known)
    return combo
