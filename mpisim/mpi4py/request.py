"""``MPI.Request`` and ``MPI.Prequest`` of the stand-in (``MPI.Status`` is in :mod:`.status`).

A :class:`Request` wraps the handle's request. As in mpi4py it is true while it is not
MPI_REQUEST_NULL: a wait or test that completes it (or ``Free``) makes it false. A request
made by a lowercase call (``irecv``, ``isend``) returns the received object from
``wait``/``test`` (unpickled from the bytes that travelled); one made by an uppercase call
returns None. Persistent requests (``Send_init``...) stay true when complete (inactive, not
null) until freed, as in MPI.

``Testany`` and ``Testsome`` are built here from the handle's ``test``/``wait``: a request
complete at the current simulated time is reported (lowest index first, as the engine's
waitany does); when none is, one poll of simulated time passes, as with ``Test``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from ..mpi.constants import PROC_NULL, TAG_UB, UNDEFINED
from ..p2p.requests import Request as _EngineRequest
from .bridge import current
from .exceptions import Unsupporting, unsupported
from .status import Status, empty, fill

__all__ = ["REQUEST_NULL", "Prequest", "Request", "Status", "fill", "received"]


def received(st: Any) -> Any:
    """The object a lowercase receive returns: the sender's object, unpickled."""
    data = None if st is None else st.data
    if data is None:
        return None
    if isinstance(data, np.ndarray):
        data = data.tobytes()
    if isinstance(data, bytes | bytearray):
        return pickle.loads(data) if data else None  # an empty message is None
    return data


_HANDLES: dict[int, Request] = {}


def _null(rank: int) -> _EngineRequest:
    r = _EngineRequest("send", "MPI_REQUEST_NULL", rank, PROC_NULL, 0, 0)
    r.active = False
    return r


class Request(metaclass=Unsupporting):
    """mpi4py's MPI.Request (see the module)."""

    _persistent = False

    def __init__(self, r: Any = None, objects: bool = False, result: Any = None) -> None:
        if isinstance(r, Request):  # MPI.Request(other): the same request
            self.__dict__.update(r.__dict__)
            return
        self._r = r
        self._objects = objects      # made by a lowercase call: wait returns the object
        self._result = result        # a collective's value handler (uppercase forms)
        self._null = r is None

    @property
    def handle(self) -> int:
        """An integer naming the request (MPI_Request as an int)."""
        if not self:
            return 0
        _HANDLES[id(self._r)] = self
        return id(self._r)

    @classmethod
    def fromhandle(cls, handle: int) -> Request:
        found = _HANDLES.get(handle)
        return cls(found) if found is not None else cls()

    def toint(self) -> int:
        return -1  # no Fortran/C integer handles in the stand-in

    def py2f(self) -> int:
        return -1

    # -- state ---------------------------------------------------------------------------
    def __bool__(self) -> bool:
        if self._null or self._r is None:
            return False
        return self._persistent or self._r.active

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Request):
            return (not self and not other) or self._r is other._r
        return NotImplemented

    def __hash__(self) -> int:
        return id(self)

    def _engine(self) -> _EngineRequest:
        if not self:
            return _null(current().mpi.rank)
        return self._r  # type: ignore[return-value]

    def _done(self, st: Any) -> Any:
        """After the engine reported completion: nullify (non-persistent), the value."""
        if self._result is not None:
            self._result(self._r)
        value = received(st) if self._objects else None
        if not self._persistent:
            self._null = True
        return value

    # -- completion ----------------------------------------------------------------------
    def Wait(self, status: Status | None = None) -> bool:
        self.wait(status)
        return True

    def wait(self, status: Status | None = None) -> Any:
        ctx = current()
        if not self:
            fill(status, _empty())
            return None
        st = ctx.call(lambda: ctx.mpi.wait(self._r))
        fill(status, st)
        return self._done(st)

    def Test(self, status: Status | None = None) -> bool:
        return self.test(status)[0]

    def test(self, status: Status | None = None) -> tuple[bool, Any]:
        ctx = current()
        if not self:
            fill(status, _empty())
            return True, None
        flag, st = ctx.call(lambda: ctx.mpi.test(self._r))
        if not flag:
            return False, None
        fill(status, st)
        return True, self._done(st)

    def Get_status(self, status: Status | None = None) -> bool:
        """Whether it is complete, without completing it. Not complete, it is a poll: it
        takes the poll time of an MPI_Iprobe that finds nothing (and is recorded as one),
        so a loop on it advances simulated time as a real one does."""
        if not self:
            fill(status, _empty())
            return True
        st = self._complete_now()
        if st is not None:
            fill(status, st)
            return True
        _poll()
        return False

    get_status = Get_status

    def _complete_now(self) -> Any:
        """The engine's status if complete at the current time (without completing it),
        else None; an inactive request is complete with an empty status."""
        if not self:
            return _empty()
        r = self._r
        if r.done_at is not None and r.done_at <= current().mpi.now:  # type: ignore[union-attr]
            st = r.status  # type: ignore[union-attr]
            return st if st is not None else _empty()  # a send's: the empty status
        return None

    @classmethod
    def Get_status_any(cls, requests: Any, status: Status | None = None) -> tuple[int, bool]:
        """MPI_Request_get_status_any (MPI 4.1): (index, flag) of a complete request,
        which stays as it is; (UNDEFINED, True) when none is active."""
        reqs = list(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            fill(status, _empty())
            return UNDEFINED, True
        for i in active:
            st = reqs[i]._complete_now()
            if st is not None:
                fill(status, st)
                return i, True
        _poll()
        return UNDEFINED, False

    get_status_any = Get_status_any

    @classmethod
    def Get_status_all(cls, requests: Any, statuses: Any = None) -> bool:
        """MPI_Request_get_status_all (MPI 4.1): whether every request is complete (their
        statuses filled then), none of them freed."""
        reqs = list(requests)
        sts = [r._complete_now() for r in reqs]
        if any(st is None for st in sts):
            _poll()
            return False
        _fill_all(statuses, sts)
        return True

    get_status_all = Get_status_all

    @classmethod
    def Get_status_some(cls, requests: Any, statuses: Any = None) -> list[int] | None:
        """MPI_Request_get_status_some (MPI 4.1): the indices of the complete active
        requests (None when none is active), none of them freed."""
        reqs = list(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            return None
        done = [(i, st) for i in active if (st := reqs[i]._complete_now()) is not None]
        if not done:
            _poll()
        _fill_all(statuses, [st for _, st in done])
        return [i for i, _ in done]

    get_status_some = Get_status_some

    def Free(self) -> None:
        ctx = current()
        if self:
            ctx.call(lambda: ctx.mpi.request_free(self._r))
        self._null = True

    def free(self) -> None:
        self.Free()

    def Cancel(self) -> None:
        """MPI_Cancel (3.8.4): a receive not yet matched is cancelled (it completes with
        ``Is_cancelled()`` true); anything else completes as it would have (the standard
        allows either, and MPI 4.1 deprecates cancelling sends)."""
        if not self:
            return
        r = self._r
        ctx = current()
        posted = ctx.mpi._tp.queues[ctx.mpi.rank].posted  # type: ignore[union-attr]
        if r.kind == "recv" and r in posted:  # type: ignore[union-attr]
            posted.remove(r)
            st = _empty()
            st.cancelled = True
            r.status = st  # type: ignore[union-attr]
            r.known(ctx.mpi.now)  # type: ignore[union-attr]

    def cancel(self) -> None:
        self.Cancel()

    # -- on lists ------------------------------------------------------------------------
    @classmethod
    def Waitall(cls, requests: Any, statuses: list | None = None) -> bool:
        cls.waitall(requests, statuses)
        return True

    @classmethod
    def waitall(cls, requests: Any, statuses: list | None = None) -> list[Any]:
        ctx = current()
        reqs = list(requests)
        alive = [bool(r) for r in reqs]
        sts = ctx.call(lambda: ctx.mpi.waitall([r._engine() for r in reqs]))
        _fill_all(statuses, sts)
        return [r._done(st) if a else None for r, a, st in zip(reqs, alive, sts, strict=True)]

    @classmethod
    def Waitany(cls, requests: Any, status: Status | None = None) -> int:
        return cls.waitany(requests, status)[0]

    @classmethod
    def waitany(cls, requests: Any, status: Status | None = None) -> tuple[int, Any]:
        ctx = current()
        reqs = list(requests)
        index, st = ctx.call(lambda: ctx.mpi.waitany([r._engine() for r in reqs]))
        fill(status, st)
        if index == UNDEFINED:
            return UNDEFINED, None
        return index, reqs[index]._done(st)

    @classmethod
    def Waitsome(cls, requests: Any, statuses: list | None = None) -> list[int] | None:
        return cls.waitsome(requests, statuses)[0]

    @classmethod
    def waitsome(cls, requests: Any, statuses: list | None = None
                 ) -> tuple[list[int] | None, list[Any] | None]:
        ctx = current()
        reqs = list(requests)
        indices, sts = ctx.call(lambda: ctx.mpi.waitsome([r._engine() for r in reqs]))
        if indices == UNDEFINED:
            return None, None
        _fill_all(statuses, sts)
        return list(indices), [reqs[i]._done(st) for i, st in zip(indices, sts, strict=True)]

    @classmethod
    def Testall(cls, requests: Any, statuses: list | None = None) -> bool:
        return cls.testall(requests, statuses)[0]

    @classmethod
    def testall(cls, requests: Any, statuses: list | None = None
                ) -> tuple[bool, list[Any] | None]:
        ctx = current()
        reqs = list(requests)
        alive = [bool(r) for r in reqs]
        flag, sts = ctx.call(lambda: ctx.mpi.testall([r._engine() for r in reqs]))
        if not flag:
            return False, None
        _fill_all(statuses, sts)
        return True, [r._done(st) if a else None
                      for r, a, st in zip(reqs, alive, sts, strict=True)]

    @classmethod
    def Testany(cls, requests: Any, status: Status | None = None) -> tuple[int, bool]:
        index, flag, _obj = cls.testany(requests, status)
        return index, flag

    @classmethod
    def testany(cls, requests: Any, status: Status | None = None) -> tuple[int, bool, Any]:
        reqs = list(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            fill(status, _empty())
            return UNDEFINED, True, None
        ready = _complete(reqs, active)
        if not ready:
            reqs[active[0]].test()  # nothing complete: one poll of simulated time
            return UNDEFINED, False, None
        i = ready[0]
        return i, True, reqs[i].wait(status)

    @classmethod
    def Testsome(cls, requests: Any, statuses: list | None = None) -> list[int] | None:
        return cls.testsome(requests, statuses)[0]

    @classmethod
    def testsome(cls, requests: Any, statuses: list | None = None
                 ) -> tuple[list[int] | None, list[Any] | None]:
        reqs = list(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            return None, None
        ready = _complete(reqs, active)
        if not ready:
            reqs[active[0]].test()
            return [], []
        sub, objs = cls.waitsome([reqs[i] for i in ready], statuses)
        return [ready[k] for k in sub or []], objs

    def __reduce__(self) -> str | tuple[Any, ...]:
        """REQUEST_NULL pickles by name, another null request as a copy of it; an active
        one cannot be pickled (ValueError, as in mpi4py)."""
        if self is REQUEST_NULL:
            return "REQUEST_NULL"
        if not self:
            return Request, (REQUEST_NULL,)
        raise ValueError(f"cannot serialize {self!r}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Request", name)


def _poll() -> None:
    """A poll that found nothing: the poll time of an MPI_Iprobe (recorded as one)."""
    ctx = current()
    mpi = ctx.mpi
    ctx.call(lambda: mpi.iprobe(source=0, tag=TAG_UB, comm=mpi.comm_self))


def _complete(reqs: list[Request], active: list[int]) -> list[int]:
    now = current().mpi.now
    return [i for i in active if reqs[i]._r.done_at is not None  # type: ignore[union-attr]
            and reqs[i]._r.done_at <= now]  # type: ignore[union-attr]


def _fill_all(statuses: Any, sts: list[Any]) -> None:
    """Fill the statuses given (a list shorter than the requests is extended, as mpi4py
    does; a tuple fills what it holds)."""
    if statuses is None:
        return
    if isinstance(statuses, list):
        statuses.extend(Status() for _ in range(len(sts) - len(statuses)))
    for status, st in zip(statuses, sts, strict=False):
        fill(status, st)


_empty = empty


Request.__module__ = "mpi4py.MPI"  # as mpi4py's: REQUEST_NULL pickles by name
REQUEST_NULL = Request()


class Prequest(Request):
    """mpi4py's MPI.Prequest: a persistent request, restarted with ``Start``."""

    _persistent = True

    def Start(self) -> None:
        ctx = current()
        ctx.call(lambda: ctx.mpi.start(self._r))

    @classmethod
    def Startall(cls, requests: Any) -> None:
        ctx = current()
        reqs = list(requests)
        ctx.call(lambda: ctx.mpi.startall([r._r for r in reqs]))
