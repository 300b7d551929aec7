"""Communicator and session management calls of the ``mpi`` handle (MPI 4.1 §6, §11.3).

``comm_rank``, ``comm_size``, ``comm_dup``, ``comm_split``, ``comm_free``, ``session_init``,
``comm_create_from_group`` and ``comm_set_name``. The creation calls are collective: each
member waits for the others, then gets its handle after an allgather's time
(:mod:`mpisim.mpi.comm` says how they agree).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from simpy.events import Event

from ..engine.clock import done, failed, fire_at, pending
from ..mpi.comm import Comm, Session
from ..mpi.constants import (
    COMM_TYPE_HW_GUIDED,
    COMM_TYPE_HW_UNGUIDED,
    COMM_TYPE_RESOURCE_GUIDED,
    COMM_TYPE_SHARED,
    UNDEFINED,
)
from ..mpi.errors import ErrArg, ErrComm, MPIError
from ..mpi.group import Group
from ..p2p.requests import Request, Status
from .base import HandleBase
from .buffers import owned_buffer

__all__ = ["CommCalls"]


class CommCalls(HandleBase):
    """MPI 4.1 §6 and §11.3: communicators and sessions."""

    __slots__ = ()

    def comm_rank(self, comm: Comm | None = None) -> int:
        """MPI_Comm_rank: this process's rank in ``comm``.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._comm(comm).rank

    def comm_size(self, comm: Comm | None = None) -> int:
        """MPI_Comm_size.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._comm(comm).size

    def comm_dup(self, comm: Comm | None = None) -> Event:
        """MPI_Comm_dup (collective over ``comm``): yields a new communicator, same group,
        its own context (its messages never match the original's receives), its topology,
        and the attributes whose keyvals copy them (MPI 4.1 §7.4.2, §7.7).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._dup("MPI_Comm_dup", comm, None)

    def comm_dup_with_info(self, info: Any, comm: Comm | None = None) -> Event:
        """MPI_Comm_dup_with_info: comm_dup, the new communicator's hints ``info``.

        Parameters
        ----------
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is the new communicator (a ``Comm``).
        """
        return self._dup("MPI_Comm_dup_with_info", comm, info)

    def comm_idup(self, comm: Comm | None = None) -> Event:
        """MPI_Comm_idup (MPI 4.1 §7.4.2): the nonblocking comm_dup. Yields a Request at
        once; it completes when every member has started it, and its ``result`` is then the
        new communicator (which must not be used before, as MPI says of ``newcomm``).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._idup("MPI_Comm_idup", comm, None)

    def comm_idup_with_info(self, info: Any, comm: Comm | None = None) -> Event:
        """MPI_Comm_idup_with_info: comm_idup, the new communicator's hints ``info``.

        Parameters
        ----------
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is a Request whose ``result`` is the new
            communicator once it completes.
        """
        return self._idup("MPI_Comm_idup_with_info", comm, info)

    def _idup(self, call: str, comm: Any, info: Any) -> Event:
        env = self._env
        made = self._dup(call, comm, info)
        if made.triggered and not made.ok:  # a bad communicator: the call fails at once
            return made
        req = Request("coll", call, self.rank, -1, -1, 0)
        if hasattr(self._call_obj, "waits_for"):  # the agreement _dup entered: a wait on
            req.channel = self._call_obj          # the request waits for its members

        def complete(ev: Event) -> None:
            req.result = ev.value
            req.status = Status(-1, -1, 0)
            req.known(env._now)
        made.callbacks.append(complete)
        return done(env, req)

    def _dup(self, call: str, comm: Any, info: Any) -> Event:
        try:
            parent = self._comm(comm)
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)

        def then(made: Comm) -> None:
            self._copy_attrs(parent, made)
            made.hints = info.dup() if info is not None else (
                parent.hints.dup() if parent.hints is not None else None)
        return self._create(call, parent, None, self._comms.dup, then=then)

    def comm_split_type(self, split_type: int, key: int = 0, info: Any = None,
                        comm: Comm | None = None) -> Event:
        """MPI_Comm_split_type (collective, MPI 4.1 §7.4.2): ``ms.COMM_TYPE_SHARED`` splits
        by node (the network's ``ranks_per_node``: ranks r // ranks_per_node share one; one
        node when it is not set, as every process of an mpiexec on one machine);
        ``ms.COMM_TYPE_HW_GUIDED`` and ``ms.COMM_TYPE_RESOURCE_GUIDED`` do too when ``info``
        asks for ``mpi_hw_resource_type`` = ``mpi_shared_memory`` (else MPI_COMM_NULL);
        ``ms.COMM_TYPE_HW_UNGUIDED`` splits by node when that is a smaller group (else
        MPI_COMM_NULL); ``ms.UNDEFINED`` gives MPI_COMM_NULL.

        Parameters
        ----------
        split_type
            ``ms.COMM_TYPE_SHARED`` (one per node), ``COMM_TYPE_HW_GUIDED`` ...
            or ``ms.UNDEFINED``.
        key
            Orders the ranks in the new communicator (ties: by the rank in
            ``comm``); 0 by default.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is this process's new communicator, or None
            (``ms.UNDEFINED``).
        """
        node = self._node(split_type, info, comm)
        if isinstance(node, Event):
            return node
        return self._create("MPI_Comm_split_type", comm, (node, key),
                            lambda p: self._comms.inter_split(p) if p.is_inter else
                            self._comms.split(p, what="split_type"))

    def _node(self, split_type: Any, info: Any, comm: Any) -> int | Event:
        """This process's color in comm_split_type (UNDEFINED for MPI_COMM_NULL)."""
        rpn = self._tp.net.ranks_per_node
        node = self.rank // rpn if rpn else 0
        if split_type == COMM_TYPE_SHARED:
            return node
        asked = None if info is None else info.get("mpi_hw_resource_type")
        if split_type in (COMM_TYPE_HW_GUIDED, COMM_TYPE_RESOURCE_GUIDED):
            return node if asked == "mpi_shared_memory" else UNDEFINED
        if split_type == COMM_TYPE_HW_UNGUIDED:
            try:
                parent = self._comm(comm)
            except MPIError as e:
                self._enter("MPI_Comm_split_type")
                return failed(self._env, e)
            nodes = {w // rpn if rpn else 0 for w in parent.group}
            if len(nodes) < 2:
                return UNDEFINED
            if info is not None:
                info.set("mpi_hw_resource_type", "mpi_shared_memory")
            return node
        if split_type == UNDEFINED:
            return UNDEFINED
        self._enter("MPI_Comm_split_type")
        return failed(self._env, ErrArg(f"comm_split_type: unknown split type {split_type!r}"))

    def comm_split(self, color: int, key: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Comm_split (collective): yields the communicator of this process's color,
        ranked by (key, rank in ``comm``); None (MPI_COMM_NULL) for ``ms.UNDEFINED``.

        Parameters
        ----------
        color
            Processes of the same color share a new communicator;
            ``ms.UNDEFINED``: none for this process.
        key
            Orders the ranks in the new communicator (ties: by the rank in
            ``comm``); 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        for name, value in (("color", color), ("key", key)):  # Python or numpy integers
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                self._enter("MPI_Comm_split")
                return failed(self._env, ErrArg(f"comm_split: {name} must be an integer, "
                                               f"got {value!r}"))
        color, key = int(color), int(key)
        if color < 0 and color != UNDEFINED:
            self._enter("MPI_Comm_split")
            return failed(self._env, ErrArg(f"comm_split: color must be >= 0 or UNDEFINED, "
                                           f"got {color}"))
        return self._create("MPI_Comm_split", comm, (color, key),
                            lambda p: (self._comms.inter_split if p.is_inter else
                                       self._comms.split)(p))

    def comm_free(self, comm: Comm) -> Event:
        """MPI_Comm_free: the handle becomes unusable (MPI_ERR_COMM afterwards).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        self._enter("MPI_Comm_free", obj=getattr(comm, "buffer", None))
        if not isinstance(comm, Comm) or comm.freed:
            return failed(self._env, ErrComm(f"comm_free: {comm!r} is not a valid communicator"))
        if comm.info is self._comms.world or comm.info.context == 2:
            return failed(self._env, ErrComm(f"comm_free: {comm.name} cannot be freed"))
        self._delete_attrs(comm)  # MPI 4.1 §7.7.2: every attribute deleted first
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

    def comm_create_from_group(self, session: Any, tag: str = "mpisim") -> Event:
        """MPI_Comm_create_from_group (MPI 4.1 §7.4.2, §11.3): collective over the group's
        members, matched by ``tag``; yields their communicator. ``session``: a Session
        (its "mpi://WORLD" group: every process) or a Group (:meth:`comm_group`...).

        Parameters
        ----------
        session
            The session (MPI_Session, as ``session_init`` yields it); required.
        tag
            A string that tells this creation apart from others made at once;
            ``"mpisim"`` by default.
        """
        if isinstance(session, Group) and not session.freed and self.rank in session:
            members = session.members
            return self._create("MPI_Comm_create_from_group", self.comm_world, members,
                                lambda _p: self._comms.created_from(_p, "from_group"),
                                ("group", str(tag), members), members)
        if not isinstance(session, Session) or session.finalized:
            self._enter("MPI_Comm_create_from_group")
            return failed(self._env, ErrArg(f"comm_create_from_group: {session!r} is not an "
                                           "active session, nor a group holding this process"))
        world = self.comm_world
        return self._create("MPI_Comm_create_from_group", world, session,
                            lambda _p: self._comms.from_group(str(tag)), ("group", str(tag)))

    def _create(self, call: str, comm: Any, arg: Any, maker: Any, key: Any = None,
                members: Any = None, grow: bool = False, then: Any = None) -> Event:
        """A collective call that makes a communicator: wait for every member (both groups
        of an intercommunicator; ``members`` when only some of the parent's take part),
        then each gets its handle after an allgather's time (see mpisim.mpi.comm)."""
        env = self._env
        try:
            parent = self._comm(comm)
        except MPIError as e:
            self._enter(call)
            return failed(env, e)
        if members is None:
            members = parent.group if parent.info.remote is None else parent.info.everyone
        if key is None:
            key = (parent.context, parent.calls)
            parent.calls += 1
        else:
            if self._group_calls is None:
                self._group_calls = {}
            key = (*key, self._group_calls.get(key, 0))
            self._group_calls[key[:-1]] = key[-1] + 1
        ev = pending(env)
        me = self.rank
        where = self._site()

        def created(result: Any) -> None:
            handle = None if result is None else Comm(result[0], result[0].rank_of(me), result[1])
            if then is not None and handle is not None:
                then(handle)
            self._made("comm", handle, call, where)  # a leak if never freed
            fire_at(ev, env._now + self._comms.rounds_time(len(members)), handle)

        waiting = self._comms.agree(key, call, members, me, arg, created, maker(parent),
                                    grow)
        self._enter(call, obj=waiting)
        return ev

    def comm_set_name(self, comm: Comm, name: str) -> None:
        """MPI_Comm_set_name (a local call, not yielded): what reports call the communicator.
        When the run's ``buffer`` setting names it (``{comm: NAME, size: SIZE}``), that buffer
        is attached to it now (MPI_Comm_attach_buffer).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``).
        name
            The communicator's name, as reports show it.
        """
        comm = self._comm(comm)
        if not isinstance(name, str) or not name:
            raise ErrArg(f"comm_set_name: expected a name, got {name!r}")
        comm.label = name
        sizes = self._named_sizes
        if sizes and name in sizes and (comm.buffer is None or not comm.buffer.attached):
            owned = owned_buffer(self, "MPI_Comm_attach_buffer", comm, True)
            assert owned is not None  # (create=True makes it)
            ev = owned.attach(sizes[name], None)
            if ev._ok is False:
                raise ev._value
