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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...handle.access import posted_receives
from ...mpi.constants import PROC_NULL, TAG_UB, UNDEFINED
from ...p2p.requests import Request as _EngineRequest
from ...p2p.requests import Status as _EngineStatus
from ..bridge import current
from ..datatypes.integers import converted, sized
from ..exceptions import Exception as MPIException
from ..exceptions import Unsupporting, unsupported
from .instatus import failed, fresh, library_completes_all, pending, reported, statuses_into
from .status import Status, empty, fill

__all__ = ["REQUEST_NULL", "Prequest", "Request", "Status", "fill", "received"]


def received(st: _EngineStatus | None) -> Any:
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

    def __init__(self, r: _EngineRequest | Request | None = None, objects: bool = False,
                 result: Callable[[_EngineRequest | None], object] | None = None) -> None:
        if isinstance(r, Request):  # MPI.Request(other): the same request
            self.__dict__.update(r.__dict__)
            return
        self._r: _EngineRequest | None = r
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

    @property
    def _live(self) -> _EngineRequest:
        """The engine's request of a request that is not null (its callers checked that
        first: a request is false while ``_r`` is None)."""
        assert self._r is not None
        return self._r

    def _engine(self) -> _EngineRequest:
        if not self:
            return _null(current().mpi.rank)
        return self._live

    def _done(self, st: _EngineStatus | None) -> Any:
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
        try:
            st = ctx.call(lambda: ctx.mpi.wait(self._live))
        except MPIException:
            _failed_one(status, self._r)
            raise
        fill(status, st)
        return self._done(st)

    def Test(self, status: Status | None = None) -> bool:
        return self.test(status)[0]

    def test(self, status: Status | None = None) -> tuple[bool, Any]:
        ctx = current()
        if not self:
            fill(status, _empty())
            return True, None
        try:
            flag, st = ctx.call(lambda: ctx.mpi.test(self._live))
        except MPIException:
            _failed_one(status, self._r)
            raise
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

    def _complete_now(self) -> _EngineStatus | None:
        """The engine's status if complete at the current time (without completing it),
        else None; an inactive request is complete with an empty status."""
        if not self:
            return _empty()
        r = self._live
        if r.done_at is not None and r.done_at <= current().mpi.now:
            st = r.status
            return st if st is not None else _empty()  # a send's: the empty status
        return None

    @classmethod
    def Get_status_any(cls, requests: Sequence[Request],
                       status: Status | None = None) -> tuple[int, bool]:
        """MPI_Request_get_status_any (MPI 4.1): (index, flag) of a complete request,
        which stays as it is; (UNDEFINED, True) when none is active."""
        reqs = _listed(requests)
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
    def Get_status_all(cls, requests: Sequence[Request],
                       statuses: list[Status] | None = None) -> bool:
        """MPI_Request_get_status_all (MPI 4.1): whether every request is complete (their
        statuses filled then), none of them freed."""
        reqs = _listed(requests)
        sts = [r._complete_now() for r in reqs]
        if any(st is None for st in sts):
            _poll()
            return False
        _fill_all(statuses, sts)
        return True

    get_status_all = Get_status_all

    @classmethod
    def Get_status_some(cls, requests: Sequence[Request],
                        statuses: list[Status] | None = None) -> list[int] | None:
        """MPI_Request_get_status_some (MPI 4.1): the indices of the complete active
        requests (None when none is active), none of them freed."""
        reqs = _listed(requests)
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
            ctx.call(lambda: ctx.mpi.request_free(self._live))
        self._null = True

    def free(self) -> None:
        self.Free()

    def Cancel(self) -> None:
        """MPI_Cancel (3.8.4): a receive not yet matched is cancelled (it completes with
        ``Is_cancelled()`` true); anything else completes as it would have (the standard
        allows either, and MPI 4.1 deprecates cancelling sends)."""
        if not self:
            return
        r = self._live
        ctx = current()
        posted = posted_receives(ctx.mpi)
        if r.kind == "recv" and r in posted:
            posted.remove(r)
            st = _empty()
            st.cancelled = True
            r.status = st
            r.known(ctx.mpi.now)

    def cancel(self) -> None:
        self.Cancel()

    # -- on lists ------------------------------------------------------------------------
    @classmethod
    def Waitall(cls, requests: Sequence[Request], statuses: list[Status] | None = None) -> bool:
        cls.waitall(requests, statuses)
        return True

    @classmethod
    def waitall(cls, requests: Sequence[Request],
                statuses: list[Status] | None = None) -> list[Any]:
        ctx = current()
        reqs = _listed(requests)
        alive = [bool(r) for r in reqs]
        started = _started(reqs)
        try:
            sts = ctx.call(lambda: ctx.mpi.waitall([r._engine() for r in reqs]))
        except MPIException:
            if not _carry_errors(reqs, started):
                raise
            _report_all(reqs, started, statuses, stop=not library_completes_all())
            raise failed() from None
        _fill_all(statuses, sts)
        return [r._done(st) if a else None for r, a, st in zip(reqs, alive, sts, strict=True)]

    @classmethod
    def Waitany(cls, requests: Sequence[Request], status: Status | None = None) -> int:
        return cls.waitany(requests, status)[0]

    @classmethod
    def waitany(cls, requests: Sequence[Request], status: Status | None = None) -> tuple[int, Any]:
        ctx = current()
        reqs = _listed(requests)
        started = _started(reqs)
        try:
            index, st = ctx.call(lambda: ctx.mpi.waitany([r._engine() for r in reqs]))
        except MPIException:
            done = [r for r, a in zip(reqs, started, strict=True) if a and not r._live.active]
            if done:
                _failed_one(status, done[0]._r)
            raise
        fill(status, st)
        if index == UNDEFINED:
            return UNDEFINED, None
        return index, reqs[index]._done(st)

    @classmethod
    def Waitsome(cls, requests: Sequence[Request],
                 statuses: list[Status] | None = None) -> list[int] | None:
        return cls.waitsome(requests, statuses)[0]

    @classmethod
    def waitsome(cls, requests: Sequence[Request], statuses: list[Status] | None = None
                 ) -> tuple[list[int] | None, list[Any] | None]:
        return _some(_listed(requests), statuses, None)

    @classmethod
    def Testall(cls, requests: Sequence[Request], statuses: list[Status] | None = None) -> bool:
        return cls.testall(requests, statuses)[0]

    @classmethod
    def testall(cls, requests: Sequence[Request], statuses: list[Status] | None = None
                ) -> tuple[bool, list[Any] | None]:
        ctx = current()
        reqs = _listed(requests)
        alive = [bool(r) for r in reqs]
        started = _started(reqs)
        try:
            flag, sts = ctx.call(lambda: ctx.mpi.testall([r._engine() for r in reqs]))
        except MPIException:
            if not _carry_errors(reqs, started):
                raise
            _report_all(reqs, started, statuses, stop=False)
            raise failed() from None
        if not flag:
            _report_some_failed(reqs, started, statuses)
            statuses_into(statuses, [], len(reqs))  # mpi4py's fresh statuses, copied back
            return False, None
        _fill_all(statuses, sts)
        return True, [r._done(st) if a else None
                      for r, a, st in zip(reqs, alive, sts, strict=True)]

    @classmethod
    def Testany(cls, requests: Sequence[Request], status: Status | None = None) -> tuple[int, bool]:
        index, flag, _obj = cls.testany(requests, status)
        return index, flag

    @classmethod
    def testany(cls, requests: Sequence[Request],
                status: Status | None = None) -> tuple[int, bool, Any]:
        reqs = _listed(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            fill(status, _empty())
            return UNDEFINED, True, None
        ready = _complete(reqs, active) or _complete_after_poll(reqs, active)
        if not ready:
            return UNDEFINED, False, None
        i = ready[0]
        return i, True, reqs[i].wait(status)

    @classmethod
    def Testsome(cls, requests: Sequence[Request],
                 statuses: list[Status] | None = None) -> list[int] | None:
        return cls.testsome(requests, statuses)[0]

    @classmethod
    def testsome(cls, requests: Sequence[Request], statuses: list[Status] | None = None
                 ) -> tuple[list[int] | None, list[Any] | None]:
        reqs = _listed(requests)
        active = [i for i, r in enumerate(reqs) if r]
        if not active:
            return None, None
        ready = _complete(reqs, active) or _complete_after_poll(reqs, active)
        if not ready:
            return [], []
        sub, objs = _some([reqs[i] for i in ready], statuses, len(reqs))
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
    return [i for i in active if (at := reqs[i]._live.done_at) is not None and at <= now]


def _some(reqs: list[Request], statuses: list[Status] | None, count: int | None
          ) -> tuple[list[int] | None, list[Any] | None]:
    """MPI_Waitsome on ``reqs``; ``count``: the requests the script gave (Testsome passes
    the complete ones only), whose statuses mpi4py copies back."""
    ctx = current()
    count = len(reqs) if count is None else count
    started = _started(reqs)
    try:
        indices, sts = ctx.call(lambda: ctx.mpi.waitsome([r._engine() for r in reqs]))
    except MPIException:
        if not _carry_errors(reqs, started):
            raise
        done = [i for i, a in enumerate(started) if a and not reqs[i]._live.active]
        made = [_completed(reqs[i]) for i in done]
        statuses_into(statuses, made, count, len(made))
        raise failed() from None
    if indices == UNDEFINED:
        return None, None
    made = []
    for st in sts:
        made.append(Status())
        fill(made[-1], st)
    statuses_into(statuses, made, count, len(made))
    return list(indices), [reqs[i]._done(st) for i, st in zip(indices, sts, strict=True)]


def _started(reqs: list[Request]) -> list[bool]:
    """Which requests are active (started, not complete) before a call."""
    return [bool(r) and r._r is not None and bool(r._r.active) for r in reqs]


def _carry_errors(reqs: list[Request], started: list[bool]) -> bool:
    """Whether the error a call raised is a request's own (a truncated receive...), to be
    reported in its status, rather than the call's (an invalid argument)."""
    return any(a and r._live.error is not None for r, a in zip(reqs, started, strict=True))


def _completed(r: Request) -> Status:
    """Complete a request the call completed: its status, with its error or MPI_SUCCESS."""
    status = reported(r._r)
    if r._live.error is not None:
        r._null = not r._persistent
    else:
        r._done(r._live.status)
    return status


def _report_all(reqs: list[Request], started: list[bool],
                statuses: list[Status] | None, stop: bool) -> None:
    """A Waitall or Testall that completed every request, some failing (MPI_ERR_IN_STATUS):
    each status with its error; with ``stop`` (MPICH's Waitall), the requests after the
    first failing one are left active, their statuses MPI_ERR_PENDING."""
    made: list[Status] = []
    stopped = False
    for r, a in zip(reqs, started, strict=True):
        if not a:
            made.append(fresh())
        elif stopped:
            r._live.active = True  # a later wait completes it
            made.append(pending())
        else:
            stopped = stop and r._live.error is not None
            made.append(_completed(r))
    statuses_into(statuses, made, len(reqs))


def _report_some_failed(reqs: list[Request], started: list[bool], statuses: Any) -> None:
    """MPICH's Testall when not every request is complete but a complete one failed:
    MPI_ERR_IN_STATUS, each complete request's status filled (its error in it), each
    incomplete one MPI_ERR_PENDING, no request completed. Open MPI reports nothing."""
    if library_completes_all():
        return
    ready = [a and r._complete_now() is not None for r, a in zip(reqs, started, strict=True)]
    if not any(d and r._live.error is not None for r, d in zip(reqs, ready, strict=True)):
        return
    made = [reported(r._r) if d else pending() if a else fresh()
            for r, a, d in zip(reqs, started, ready, strict=True)]
    statuses_into(statuses, made, len(reqs))
    raise failed()


def _failed_one(status: Status | None, engine: _EngineRequest | None) -> None:
    """A Wait, Test or Waitany whose request failed raises the request's error; its status
    is filled but for the error field, which these calls leave alone (§3.7.3)."""
    if status is None or engine is None or engine.error is None or engine.status is None:
        return
    error = status._error
    fill(status, engine.status)
    status._error = error


def _complete_after_poll(reqs: list[Request], active: list[int]) -> list[int]:
    """Nothing complete: one poll of simulated time (the progress a real test makes, which
    may complete some), then those complete. (A poll by MPI_Test on one of them would
    complete it unreported.)"""
    _poll()
    return _complete(reqs, active)


def _fill_all(statuses: list[Status] | None, sts: Sequence[_EngineStatus | None]) -> None:
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
    def Startall(cls, requests: Sequence[Request]) -> None:
        ctx = current()
        reqs = _listed(requests)
        ctx.call(lambda: ctx.mpi.startall([r._r for r in reqs]))


def _listed(requests: Any) -> list[Request]:
    """A request list as mpi4py reads one: its length first (``TypeError: object of type
    'NoneType' has no len()``), then each item a Request (``TypeError: Cannot convert int to
    mpi4py.MPI.Request``)."""
    sized(requests)
    return [converted(r, Request) for r in requests]
