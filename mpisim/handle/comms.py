"""Communicator and session management calls of the ``mpi`` handle (MPI 4.1 §6, §11.3).

``comm_rank``, ``comm_size``, ``comm_dup``, ``comm_split``, ``comm_free``, ``session_init``,
``comm_create_from_group`` and ``comm_set_name``. The creation calls are collective: each
member waits for the others, then gets its handle after an allgather's time
(:mod:`mpisim.mpi.comm` says how they agree).
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..engine.clock import done, failed, fire_at, pending
from ..mpi.comm import Comm, Session
from ..mpi.constants import UNDEFINED
from ..mpi.errors import ErrArg, ErrComm, MPIError
from .base import HandleBase
from .buffers import owned_buffer

__all__ = ["CommCalls"]


class CommCalls(HandleBase):
    """MPI 4.1 §6 and §11.3: communicators and sessions."""

    __slots__ = ()

    def comm_rank(self, comm: Comm | None = None) -> int:
        """MPI_Comm_rank: this process's rank in ``comm``."""
        return self._comm(comm).rank

    def comm_size(self, comm: Comm | None = None) -> int:
        """MPI_Comm_size."""
        return self._comm(comm).size

    def comm_dup(self, comm: Comm | None = None) -> Event:
        """MPI_Comm_dup (collective over ``comm``): yields a new communicator, same group,
        its own context (its messages never match the original's receives)."""
        return self._create("MPI_Comm_dup", comm, None, self._comms.dup)

    def comm_split(self, color: int, key: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Comm_split (collective): yields the communicator of this process's color,
        ranked by (key, rank in ``comm``); None (MPI_COMM_NULL) for ``ms.UNDEFINED``."""
        for name, value in (("color", color), ("key", key)):
            if isinstance(value, bool) or not isinstance(value, int):
                self._enter("MPI_Comm_split")
                return failed(self._env, ErrArg(f"comm_split: {name} must be an integer, "
                                               f"got {value!r}"))
        if color < 0 and color != UNDEFINED:
            self._enter("MPI_Comm_split")
            return failed(self._env, ErrArg(f"comm_split: color must be >= 0 or UNDEFINED, "
                                           f"got {color}"))
        return self._create("MPI_Comm_split", comm, (color, key), self._comms.split)

    def comm_free(self, comm: Comm) -> Event:
        """MPI_Comm_free: the handle becomes unusable (MPI_ERR_COMM afterwards)."""
        self._enter("MPI_Comm_free", obj=getattr(comm, "buffer", None))
        if not isinstance(comm, Comm) or comm.freed:
            return failed(self._env, ErrComm(f"comm_free: {comm!r} is not a valid communicator"))
        if comm.info is self._comms.world or comm.info.context == 2:
            return failed(self._env, ErrComm(f"comm_free: {comm.name} cannot be freed"))
        comm.freed = True
        buffer = comm.buffer
        if buffer is not None and buffer.attached:  # detached first, as MPICH does
            return buffer.finalize() or done(self._env, None)
        return done(self._env, None)

    def session_init(self) -> Event:
        """MPI_Session_init (MPI 4.1 §11.3): yields this process's new Session."""
        self._enter("MPI_Session_init")
        self._sessions += 1
        return done(self._env, Session(f"session#{self._sessions} of rank {self.rank}"))

    def comm_create_from_group(self, session: Session, tag: str = "mpisim") -> Event:
        """MPI_Comm_create_from_group over the session's "mpi://WORLD" group (collective
        over every process, matched by ``tag``): yields a communicator of that session."""
        if not isinstance(session, Session) or session.finalized:
            self._enter("MPI_Comm_create_from_group")
            return failed(self._env, ErrArg(f"comm_create_from_group: {session!r} is not an "
                                           "active session"))
        world = self.comm_world
        return self._create("MPI_Comm_create_from_group", world, session,
                            lambda _p: self._comms.from_group(str(tag)), ("group", str(tag)))

    def _create(self, call: str, comm: Any, arg: Any, maker: Any, key: Any = None) -> Event:
        """A collective call that makes a communicator: wait for every member, then each
        gets its handle after an allgather's time (see mpisim.mpi.comm)."""
        env = self._env
        try:
            parent = self._comm(comm)
        except MPIError as e:
            self._enter(call)
            return failed(env, e)
        if key is None:
            key = (parent.context, parent.calls)
            parent.calls += 1
        else:
            if self._group_calls is None:
                self._group_calls = {}
            key = (*key, self._group_calls.get(key, 0))
            self._group_calls[key[:-1]] = key[-1] + 1
        ev = pending(env)
        rounds = self._comms.rounds_time(parent.size)
        me = self.rank

        def created(result: Any) -> None:
            handle = None if result is None else Comm(result[0], result[0].rank_of(me), result[1])
            fire_at(ev, env._now + rounds, handle)

        waiting = self._comms.agree(key, call, parent.group, me, arg, created, maker(parent))
        self._enter(call, obj=waiting)
        return ev

    def comm_set_name(self, comm: Comm, name: str) -> None:
        """MPI_Comm_set_name (a local call, not yielded): what reports call the communicator.
        When the run's ``buffer`` setting names it (``{comm: NAME, size: SIZE}``), that buffer
        is attached to it now (MPI_Comm_attach_buffer)."""
        comm = self._comm(comm)
        if not isinstance(name, str) or not name:
            raise ErrArg(f"comm_set_name: expected a name, got {name!r}")
        comm.label = name
        sizes = self._named_sizes
        if sizes and name in sizes and (comm.buffer is None or not comm.buffer.attached):
            ev = owned_buffer(self, "MPI_Comm_attach_buffer", comm, True).attach(sizes[name], None)
            if ev._ok is False:
                raise ev._value
