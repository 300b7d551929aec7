"""Dynamic process calls of the ``mpi`` handle (MPI 4.1 §11.8-§11.10).

``comm_spawn`` and ``comm_spawn_multiple`` start new simulated processes running rank
programs (generator functions taking the child's own handle); the children have their own
MPI_COMM_WORLD, ``comm_get_parent`` gives them the intercommunicator to their parents (None,
MPI_COMM_NULL, in the processes the run started with), and the parents get the same
intercommunicator from the spawn. Both calls are collective over ``comm``: once every
member has made it, the root's arguments count (§11.8.2: the others are ignored), the
children start after the profile's ``spawn_latency`` (seconds: measured on MPICH and Open
MPI, see the profiles) and the parents return then.

``open_port``/``close_port`` and ``comm_accept``/``comm_connect`` join two groups that were
started apart (§11.9); ``publish_name``/``lookup_name``/``unpublish_name`` name a port
(§11.9.4); ``comm_disconnect`` (§11.10.4) frees a communicator once every member has called
it. ``comm_join`` (§11.10.5) joins two processes through a socket, which simulated processes
do not have: it fails with MPI_ERR_UNSUPPORTED_OPERATION.

Processes are numbered in the order they start, the run's ranks first: a child's ``rank``
(its number in reports, the trace and the result's ``ranks``) is therefore not its rank in
its own MPI_COMM_WORLD; ``mpi.comm_rank()`` gives that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from simpy.events import Event

from ..engine.clock import failed, fire_at, pending
from ..mpi.comm import Comm, CommInfo
from ..mpi.dynamic import ErrPort, ErrSpawn, ErrUnsupportedOperation, Ports, Side
from ..mpi.errors import ErrArg, ErrComm, ErrRoot, MPIError
from .base import HandleBase

__all__ = ["DynamicCalls", "Spawner", "spawned_state"]


class Spawner(Protocol):
    """The run's side of dynamic processes (:class:`mpisim.runs.spawn.Spawns`), as a handle
    sees it."""

    ports: Ports

    def universe_size(self) -> int | None: ...

    def spawn(self, call: str, jobs: list[tuple[Any, tuple[Any, ...], int]],
              parents: tuple[int, ...], latency: float) -> CommInfo: ...


def spawned_state(mpi: HandleBase, world: CommInfo, rank: int, parent: CommInfo,
                  appnum: int) -> None:
    """Make ``mpi`` a spawned process's handle: ``world`` its MPI_COMM_WORLD (``rank`` its
    rank there), ``parent`` its side of the intercommunicator to the parents, ``appnum``
    its command's index in a spawn_multiple (MPI 4.1 §11.10.3)."""
    mpi._world = Comm(world, rank)
    mpi.size = len(world.group)
    mpi.__dict__["_parent"] = Comm(parent, rank)
    mpi.__dict__["_appnum"] = appnum


class DynamicCalls(HandleBase):
    """MPI 4.1 §11.8-§11.10: spawning processes, ports, names, disconnecting."""

    __slots__ = ()

    _parent: Comm | None = None  # the intercommunicator to the parents (a spawned process)
    _appnum = 0

    # -- starting processes (§11.8) --------------------------------------------------------
    def comm_spawn(self, program: Callable[..., Any] | None, args: Sequence[Any] = (),
                   maxprocs: int = 1, root: int = 0, comm: Comm | None = None,
                   info: Any = None) -> Event:
        """MPI_Comm_spawn (collective over ``comm``, MPI 4.1 §11.8.2): start ``maxprocs``
        new processes running ``program``; yields the intercommunicator to them (the
        spawning group local, the children remote).

        Parameters
        ----------
        program
            The children's rank program: a generator function called as
            ``program(mpi, *args)`` with each child's own handle (significant at ``root``
            only, as every argument but ``root`` and ``comm``).
        args
            Further arguments of ``program`` (MPI's ``argv``). Default: none.
        maxprocs
            How many processes to start, at least 1 (``4``). Default: 1.
        root
            The rank in ``comm`` whose arguments count. Default: 0.
        comm
            The spawning intracommunicator (a ``Comm``); MPI_COMM_WORLD by default
            (``mpi.comm_self`` to spawn from one process).
        info
            Hints (an ``Info`` or None); mpisim reads none of them.

        Returns
        -------
        Event
            Yield it; its value is the intercommunicator (a ``Comm``), once the children
            have started (the profile's ``spawn_latency`` after the last member's call).

        Examples
        --------
        >>> import mpisim as ms
        >>> def child(mpi, x):
        ...     parent = mpi.comm_get_parent()
        ...     yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=x, comm=parent)
        >>> def program(mpi):
        ...     inter = yield mpi.comm_spawn(child, args=(7,), maxprocs=2, comm=mpi.comm_self)
        ...     for _ in range(2):
        ...         yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=7,
        ...                        comm=inter)
        >>> r = ms.run(program, ranks=1)
        >>> r.outcome, len(r.ranks)
        (<Outcome.COMPLETED: 'completed'>, 3)
        """
        return self._spawn("MPI_Comm_spawn", [(program, tuple(args), maxprocs)], root, comm)

    def comm_spawn_multiple(self, programs: Sequence[Callable[..., Any]],
                            args: Sequence[Sequence[Any]] | None = None,
                            maxprocs: Sequence[int] | None = None, root: int = 0,
                            comm: Comm | None = None, info: Any = None) -> Event:
        """MPI_Comm_spawn_multiple (collective over ``comm``, MPI 4.1 §11.8.3): start the
        processes of several programs in one MPI_COMM_WORLD, each program's in turn; a
        child's MPI_APPNUM attribute is its program's index.

        Parameters
        ----------
        programs
            The rank programs (generator functions), one per command.
        args
            Each program's further arguments, a list of tuples. Default: none.
        maxprocs
            How many processes each program starts (``[2, 1]``). Default: one each.
        root
            The rank in ``comm`` whose arguments count. Default: 0.
        comm
            The spawning intracommunicator (a ``Comm``); MPI_COMM_WORLD by default.
        info
            Hints (an ``Info``, or a list of them, or None); mpisim reads none of them.

        Returns
        -------
        Event
            Yield it; its value is the intercommunicator to every child (a ``Comm``).
        """
        programs = list(programs)
        argv = list(args) if args is not None else [()] * len(programs)
        counts = list(maxprocs) if maxprocs is not None else [1] * len(programs)
        if not (len(argv) == len(counts) == len(programs)) or not programs:
            if not self._is_root(root, comm):  # (its arguments are not significant)
                return self._spawn("MPI_Comm_spawn_multiple", [], root, comm)
            self._enter("MPI_Comm_spawn_multiple")
            return failed(self._env, ErrArg(
                f"comm_spawn_multiple: {len(programs)} programs, {len(argv)} argument lists "
                f"and {len(counts)} maxprocs: expected one of each per program, at least one"))
        return self._spawn("MPI_Comm_spawn_multiple",
                           [(p, tuple(a), n) for p, a, n in zip(programs, argv, counts,
                                                                 strict=True)], root, comm)

    def comm_get_parent(self) -> Comm | None:
        """MPI_Comm_get_parent (MPI 4.1 §11.8.2): the intercommunicator to the processes
        that spawned this one (they are its remote group), or None (MPI_COMM_NULL) in a
        process the run started itself, or once this one has disconnected from it."""
        parent = self._parent
        return None if parent is None or parent.freed else parent

    def _spawn(self, call: str, jobs: list[tuple[Any, tuple[Any, ...], int]], root: int,
               comm: Any) -> Event:
        env = self._env
        try:
            parent = self._intracomm(call, comm)
            if not isinstance(root, int) or not 0 <= root < parent.size:
                raise ErrRoot(f"{call}: root {root!r} is not a rank of {parent.name} "
                              f"(size {parent.size})")
            if parent.rank == root:
                _check_jobs(call, jobs)
        except MPIError as e:
            self._enter(call)
            return failed(env, e)
        spawner = self._spawner(call)
        if isinstance(spawner, Event):
            return spawner
        latency = self._config.profile.spawn_latency

        def make(args: dict[int, Any]) -> dict[int, Any]:
            try:
                mine = spawner.spawn(call, args[parent.world(root)], tuple(parent.group),
                                     latency)
            except ErrSpawn as e:
                return dict.fromkeys(args, e)
            return {w: (mine, None) for w in args}
        return self._collective(call, parent, jobs if parent.rank == root else None, make,
                                latency)

    def _collective(self, call: str, parent: Comm, arg: Any,
                    make: Callable[[dict[int, Any]], dict[int, Any]], latency: float) -> Event:
        """A collective over ``parent`` whose members each get a communicator (or the
        error ``make`` gave them all) ``latency`` after the last one's call."""
        env, me = self._env, self.rank
        ev = pending(env)
        key = (parent.context, parent.calls)
        parent.calls += 1
        where = self._site()

        def created(result: Any) -> None:
            if isinstance(result, MPIError):
                fire_at(ev, env._now, result, ok=False)
                return
            handle = Comm(result[0], result[0].rank_of(me))
            self._made("comm", handle, call, where)
            fire_at(ev, env._now + latency, handle)
        waiting = self._comms.agree(key, call, parent.group, me, arg, created, make)
        self._enter(call, obj=waiting)
        return ev

    # -- ports and names (§11.9) -----------------------------------------------------------
    def open_port(self, info: Any = None) -> str:
        """MPI_Open_port (MPI 4.1 §11.9.2, local): a new port name, where a group's
        ``comm_accept`` waits for another's ``comm_connect``.

        Parameters
        ----------
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        """
        return self._ports("MPI_Open_port").open_port()

    def close_port(self, port_name: str) -> None:
        """MPI_Close_port (MPI 4.1 §11.9.2, local): the port accepts no more connections
        (MPI_ERR_PORT for a name that is not open).

        Parameters
        ----------
        port_name
            A name ``open_port`` gave.
        """
        self._ports("MPI_Close_port").close_port(port_name)

    def comm_accept(self, port_name: str | None, info: Any = None, root: int = 0,
                    comm: Comm | None = None) -> Event:
        """MPI_Comm_accept (collective over ``comm``, MPI 4.1 §11.9.2): wait at the root's
        port for a group that calls ``comm_connect`` on it; yields the intercommunicator
        to that group (this group local).

        Parameters
        ----------
        port_name
            The port (significant at ``root`` only): a name ``open_port`` gave.
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        root
            The rank in ``comm`` whose port counts. Default: 0.
        comm
            The accepting intracommunicator; MPI_COMM_WORLD by default.
        """
        return self._meet("MPI_Comm_accept", port_name, root, comm, True)

    def comm_connect(self, port_name: str | None, info: Any = None, root: int = 0,
                     comm: Comm | None = None) -> Event:
        """MPI_Comm_connect (collective over ``comm``, MPI 4.1 §11.9.3): join the group
        accepting at the root's port; yields the intercommunicator to it. A port that is
        not open is MPI_ERR_PORT.

        Parameters
        ----------
        port_name
            The port (significant at ``root`` only): a name ``open_port`` or
            ``lookup_name`` gave.
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        root
            The rank in ``comm`` whose port counts. Default: 0.
        comm
            The connecting intracommunicator; MPI_COMM_WORLD by default.
        """
        return self._meet("MPI_Comm_connect", port_name, root, comm, False)

    def _meet(self, call: str, port: Any, root: int, comm: Any, accepting: bool) -> Event:
        env, me = self._env, self.rank
        try:
            parent = self._intracomm(call, comm)
            if not isinstance(root, int) or not 0 <= root < parent.size:
                raise ErrRoot(f"{call}: root {root!r} is not a rank of {parent.name}")
            ports = self._ports(call)
            if parent.rank == root and port not in ports.open:
                raise ErrPort(f"{call}: {port!r} is not an open port")
        except MPIError as e:
            self._enter(call)
            return failed(env, e)
        ev = pending(env)
        key = (parent.context, parent.calls)
        parent.calls += 1
        where = self._site()
        rounds = self._comms.rounds_time
        comms, tp = self._comms, self._tp

        def connect(a: Side, c: Side) -> tuple[CommInfo, CommInfo]:
            if tp.order is not None:  # (a race exploration: both groups learn each other's
                everyone = (*a.group, *c.group)  # past, as the connection orders them)
                tp.order.meet(everyone, everyone)
            return comms.intercomm(a.group, c.group, f"accept({a.port})")

        def make(args: dict[int, Any]) -> dict[int, Any]:
            side = Side(args[parent.world(root)], tuple(parent.group), accepting)
            return dict.fromkeys(args, side)

        def joined(info: CommInfo) -> None:
            handle = Comm(info, info.rank_of(me))
            self._made("comm", handle, call, where)
            fire_at(ev, env._now + rounds(len(info.everyone)), handle)

        def agreed(side: Side) -> None:
            if entered:  # (else _enter below sets it)
                self._works_on(self._detail._replace(obj=side))  # now it waits at the port
            at_port.append(side)
            side.join(me, joined)
            if parent.world(root) == me:
                ports.arrive(side, connect)
        entered: list[bool] = []
        at_port: list[Side] = []
        waiting = self._comms.agree(key, call, parent.group, me,
                                    port if parent.rank == root else None, agreed, make)
        self._enter(call, obj=at_port[0] if at_port else waiting)
        entered.append(True)
        return ev

    def publish_name(self, service_name: str, port_name: str, info: Any = None) -> None:
        """MPI_Publish_name (MPI 4.1 §11.9.4, local): ``lookup_name(service_name)`` gives
        ``port_name`` from then on, in every process of the run.

        Parameters
        ----------
        service_name
            The service's name (a string).
        port_name
            The port it names.
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        """
        self._ports("MPI_Publish_name").publish(str(service_name), port_name)

    def unpublish_name(self, service_name: str, port_name: str, info: Any = None) -> None:
        """MPI_Unpublish_name (MPI 4.1 §11.9.4, local): forget the name
        (MPI_ERR_SERVICE if it is not published with that port).

        Parameters
        ----------
        service_name
            The service's name.
        port_name
            The port it was published with.
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        """
        self._ports("MPI_Unpublish_name").unpublish(str(service_name), port_name)

    def lookup_name(self, service_name: str, info: Any = None) -> str:
        """MPI_Lookup_name (MPI 4.1 §11.9.4, local): the port published under the name
        (MPI_ERR_NAME if none is).

        Parameters
        ----------
        service_name
            The service's name.
        info
            Hints (an ``Info`` or None); mpisim reads none of them.
        """
        return self._ports("MPI_Lookup_name").lookup(str(service_name))

    # -- releasing connections (§11.10.4), joining sockets (§11.10.5) -----------------------
    def comm_disconnect(self, comm: Comm) -> Event:
        """MPI_Comm_disconnect (collective over every member of ``comm``, both groups of
        an intercommunicator; MPI 4.1 §11.10.4): returns once every member has called it
        and this process's nonblocking operations on it have completed (MPI waits for its
        pending communication), then the handle is freed (MPI_ERR_COMM afterwards); on the
        parent intercommunicator ``comm_get_parent`` gives None from then on. It no longer
        connects its members: MPI_Finalize does not wait across it (§11.10.4;
        ``comm_free`` leaves them connected).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``), not MPI_COMM_WORLD nor MPI_COMM_SELF.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_Comm_disconnect"
        if not isinstance(comm, Comm) or comm.freed:
            self._enter(call)
            return failed(self._env, ErrComm(f"comm_disconnect: {comm!r} is not a valid "
                                             "communicator"))
        if comm == self.comm_world or comm.info.context == 2:
            self._enter(call)
            return failed(self._env, ErrComm(f"comm_disconnect: {comm.name} cannot be "
                                             "disconnected"))
        env = self._env
        ev = pending(env)
        key = ("disconnect", comm.context, comm.calls)
        comm.calls += 1
        members = comm.info.everyone
        reqs = self._pending_on(comm)
        entered: list[bool] = []
        unknown: list[Any] = []

        def make(args: dict[int, Any]) -> dict[int, Any]:
            return dict.fromkeys(args)

        def finish() -> None:
            self._delete_attrs(comm)
            comm.freed = True
            last = max([env._now + self._comms.rounds_time(len(members)),
                        *(r.done_at for r in reqs)])
            fire_at(ev, last, None)

        def agreed(_: Any) -> None:  # every member called it: its own messages' ends next
            self._comms.disconnected(comm.info)  # (it connects no one now: §11.10.4)
            unknown.extend(r for r in reqs if r.done_at is None)
            if not unknown:
                finish()
                return
            if entered:  # (else _enter below names them)
                self._works_on(self._detail._replace(obj=list(unknown)))
            left = [len(unknown)]

            def known(_r: Any) -> None:
                left[0] -= 1
                if not left[0]:
                    finish()
            for r in unknown:
                r.on_known(known)
        waiting = self._comms.agree(key, call, members, self.rank, None, agreed, make)
        self._enter(call, obj=list(unknown) if unknown else waiting)
        entered.append(True)
        return ev

    def _pending_on(self, comm: Comm) -> list[Any]:
        """This process's nonblocking operations on ``comm`` not yet complete (MPI 4.1
        §11.10.4: MPI_Comm_disconnect waits for them), its collectives' included."""
        life, now = self._life, self._env._now
        contexts = (comm.context, comm.context + 1)
        return [r for r in (life.requests if life is not None else ())
                if getattr(r, "ctx", None) in contexts and getattr(r, "active", False)
                and (r.done_at is None or r.done_at > now)]

    def comm_join(self, fd: int) -> Event:
        """MPI_Comm_join (MPI 4.1 §11.10.5): its yield raises MPI_ERR_UNSUPPORTED_OPERATION.
        It joins two processes connected by a socket; a simulated process has no socket
        (use ``open_port`` / ``comm_accept`` / ``comm_connect`` instead).

        Parameters
        ----------
        fd
            The socket's file descriptor (not read).
        """
        self._enter("MPI_Comm_join")
        return failed(self._env, ErrUnsupportedOperation(
            "comm_join: simulated processes have no sockets to join through; connect them "
            "with open_port, comm_accept and comm_connect (MPI 4.1 §11.9)"))

    # -- helpers ---------------------------------------------------------------------------
    def _intracomm(self, call: str, comm: Any) -> Comm:
        parent = self._comm(comm)
        if parent.is_inter:
            raise ErrComm(f"{call}: {parent.name} is an intercommunicator; an "
                          "intracommunicator is needed")
        return parent

    def _is_root(self, root: Any, comm: Any) -> bool:
        try:
            return self._comm(comm).rank == root
        except MPIError:
            return True  # (the call reports the communicator)

    def _spawner(self, call: str) -> Spawner | Event:
        spawner = getattr(self._run, "dynamic", None)
        if spawner is None:
            self._enter(call)
            return failed(self._env, ErrSpawn(f"{call}: this handle is not part of a run "
                                              "that can start processes"))
        return spawner

    def _ports(self, call: str) -> Ports:
        spawner = getattr(self._run, "dynamic", None)
        if spawner is None:
            raise ErrUnsupportedOperation(f"{call}: this handle is not part of a run")
        ports: Ports = spawner.ports
        return ports

    def _universe(self) -> tuple[bool, Any]:
        """(set, value) of MPI_UNIVERSE_SIZE here, when the run decides it (its
        ``universe`` setting); (False, None) leaves it to the library's table."""
        spawner = getattr(self._run, "dynamic", None)
        size = None if spawner is None else spawner.universe_size()
        return (size is not None), size


def _check_jobs(call: str, jobs: list[tuple[Any, tuple[Any, ...], int]]) -> None:
    """The root's arguments: a program and a count >= 1 each (MPICH: "Invalid value for
    maxprocs, must be non-negative"; 0 makes MPICH 5.0.2 crash, refused here too)."""
    for program, _, count in jobs:
        if not callable(program):
            raise ErrArg(f"{call}: the program must be a rank program (a generator "
                         f"function), got {program!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ErrArg(f"{call}: maxprocs must be a whole number >= 1, got {count!r}")
