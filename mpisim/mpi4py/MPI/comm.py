"""``MPI.Comm`` of the stand-in: each method is one call of the rank's ``mpi`` handle.

Every method finds the calling rank (:func:`~.bridge.current`), makes the handle's call with
``comm=`` this communicator and, for a blocking call, suspends the rank's greenlet until the
engine reaches the call's event (:meth:`~.bridge.RankContext.call`). Point-to-point methods
are in :mod:`.pt2pt`, collectives in :mod:`.collective` (both mixed in); here: identity,
communicator creation, error handlers and communicator buffers.

``MPI.COMM_WORLD`` and ``MPI.COMM_SELF`` are single objects shared by every rank, resolved
to the calling rank's handle at each call; ``Dup``/``Split`` return per-rank objects.

The classes are mpi4py's, all here as in mpi4py's ``Comm.pyx``: :class:`Comm`,
:class:`Intracomm`, :class:`Topocomm`, :class:`Cartcomm`, :class:`Graphcomm`,
:class:`Distgraphcomm` and ``Intercomm``, their methods written in one mixin per chapter
(:mod:`.topology` for §8, :mod:`.intercomm` for §7.6); a call that makes a communicator
returns the class of what it made (:func:`wrap`), and ``Free`` turns the object into a
null communicator, as mpi4py does.
"""

from __future__ import annotations

from typing import Any

from ...mpi.constants import UNDEFINED
from ...mpi.errors import MPIError
from ...mpi.topology import CART, DIST_GRAPH, GRAPH
from ..bridge import current
from ..datatypes.integers import c_int
from ..exceptions import Exception as MPIException
from ..exceptions import as_exception, unsupported
from .attributes import AttributeMethods, copy_attributes, delete_attributes
from .buffers import attach, detach, flush, iflush
from .collective import CollectiveMethods
from .dynamic import DisconnectMethods, SpawnMethods
from .errhandler import ErrhandlerMethods
from .group import GroupMethods
from .info import Info, handle_info
from .intercomm import IntercommMaker, IntercommMethods
from .pt2pt import P2PMethods
from .request import Request
from .topology import CartQueries, DistGraphQueries, GraphQueries, NeighborMethods, TopologyMaker

__all__ = ["COMM_NULL", "COMM_SELF", "COMM_WORLD", "Cartcomm", "Comm", "Distgraphcomm",
           "Graphcomm", "Intercomm", "Intracomm", "Topocomm", "wrap"]


class Aborted(BaseException):
    """Comm.Abort: the job ends (as MPI_Abort ends every process); not an Exception, so a
    script's ``except Exception`` cannot swallow it."""


class Comm(GroupMethods, AttributeMethods, ErrhandlerMethods, P2PMethods, CollectiveMethods,
           DisconnectMethods):
    """mpi4py's MPI.Comm: the base of every communicator class (see the module).

    ``MPI.Comm(comm)`` is another handle of the same communicator, as in mpi4py (a class
    that cannot hold it, ``MPI.Intercomm(intracomm)``, is a TypeError); ``MPI.Comm()`` is
    a null one, equal to MPI.COMM_NULL.
    """

    _kind: str = "null"      # "world", "self", "null", "handle" or "pending" (Idup's)
    _handle: Any = None      # the handle's Comm (kind "handle")

    def __init__(self, comm: Any = None) -> None:
        if comm is None:
            return
        if not isinstance(comm, Comm):
            raise TypeError(f"expecting a communicator, got {type(comm).__name__}")
        if comm._kind != "null" and not self._holds(comm):
            raise TypeError(f"expecting an {type(self).__name__}, got "
                            f"{type(comm).__name__}")
        self._kind, self._handle = comm._kind, comm._handle

    def _holds(self, comm: Comm) -> bool:
        """Whether this class can be a handle of ``comm`` (a subclass narrows it)."""
        return True

    @classmethod
    def _made(cls, kind: str, handle: Any = None) -> Comm:
        obj = cls.__new__(cls)
        obj._kind, obj._handle = kind, handle
        return obj

    def __reduce__(self) -> Any:
        """MPI.COMM_WORLD, COMM_SELF and COMM_NULL pickle as themselves, a copy of one as a
        copy; another communicator cannot travel (ValueError, as in mpi4py)."""
        if self._kind == "handle":
            raise ValueError(f"cannot serialize {self!r}")
        for name, obj in (("COMM_WORLD", COMM_WORLD), ("COMM_SELF", COMM_SELF),
                          ("COMM_NULL", COMM_NULL)):
            if self is obj:
                return name
        return (_restored, (type(self), self._kind))

    # -- the handle's Comm ----------------------------------------------------------------
    def _c(self, mpi: Any) -> Any:
        """The ``comm=`` argument of the handle's calls (None: MPI_COMM_WORLD)."""
        kind = self._kind
        if kind == "world":
            return None
        if kind == "self":
            return mpi.comm_self
        if kind == "pending":
            raise MPIException("the communicator of an MPI_Comm_idup used before its request "
                               "completed (MPI 4.1 §7.4.2)", None, "MPI_ERR_COMM")
        if kind == "null" or self._handle is None:
            raise MPIException("invalid communicator (MPI_COMM_NULL)", None, "MPI_ERR_COMM")
        return self._handle

    def _comm(self, mpi: Any) -> Any:
        """The handle's Comm of this communicator (MPI_COMM_WORLD's too)."""
        comm = self._c(mpi)
        return mpi.comm_world if comm is None else comm

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:
        ctx = current()
        mpi = ctx.mpi
        comm = self._c(mpi)
        method = getattr(mpi, call)
        return ctx.call(lambda: method(comm=comm, **kwargs), self._key())

    def _local(self, call: str, **kwargs: Any) -> Any:
        """A local call of the handle on this communicator (its value at once; an MPI error
        raised as MPI.Exception)."""
        mpi = current().plain()
        try:
            return getattr(mpi, call)(comm=self._c(mpi), **kwargs)
        except MPIError as e:
            raise as_exception(e) from None

    def _key(self) -> Any:
        """This communicator in the rank's table of error handlers."""
        return self._kind if self._handle is None else self._handle.context

    def _wrap(self, made: Any) -> Comm:
        """The class mpi4py gives a communicator the handle made (None: MPI_COMM_NULL).
        Its error handler is mpi4py's default, MPI_ERRORS_RETURN, whatever this one's:
        mpi4py sets it on every communicator it makes (observed with mpi4py 4.1.2 over
        MPICH 5.0.2: a Dup of a communicator under MPI_ERRORS_ARE_FATAL is under
        MPI_ERRORS_RETURN)."""
        return wrap(made)

    # -- identity -------------------------------------------------------------------------
    def Get_rank(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.comm_world.rank if comm is None else comm.rank  # (a spawned one: its own)

    def Get_size(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.size if comm is None else comm.size

    rank = property(Get_rank)
    size = property(Get_size)

    def Get_name(self) -> str:
        named = _names().get(self._kind)
        if named is not None:
            return named
        if self._kind == "world":
            return "MPI_COMM_WORLD"
        if self._kind == "self":
            return "MPI_COMM_SELF"
        if self._kind == "null":
            return "MPI_COMM_NULL"
        return self._c(current().mpi).label_or_name

    def Set_name(self, name: str) -> None:
        """MPI_Comm_set_name (what reports call it; MPI_COMM_WORLD and MPI_COMM_SELF keep
        their names in the trace, the script reads back what it set)."""
        mpi = current().plain()
        if self._kind in ("world", "self"):
            _names()[self._kind] = str(name)
            return
        mpi.comm_set_name(self._c(mpi), str(name))

    name = property(lambda self: self.Get_name(), lambda self, value: self.Set_name(value))

    def Is_inter(self) -> bool:
        return self._kind == "handle" and self._handle.is_inter

    def Is_intra(self) -> bool:
        return not self.Is_inter()

    is_inter = property(Is_inter)
    is_intra = property(Is_intra)

    def Get_topology(self) -> int:
        """MPI_Topo_test: MPI.CART, MPI.GRAPH, MPI.DIST_GRAPH or MPI.UNDEFINED."""
        return self._local("topo_test")

    topology = property(Get_topology)

    @property
    def is_topo(self) -> bool:
        return self.Get_topology() != UNDEFINED

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
        return (f"<mpi4py.MPI.{type(self).__name__} "
                f"{self._kind if self._kind != 'handle' else 'comm'}>")

    # -- handles as integers (MPI_Comm_c2f and friends) ------------------------------------
    def toint(self) -> int:
        """The communicator as an integer (MPICH's handle values for the predefined ones,
        others numbered by their context); MPI.Comm.fromint gives it back on this rank."""
        if self._kind != "handle":
            return _PREDEFINED[self._kind]
        number = _HANDLE_BASE + self._handle.context
        _handles()[number] = self._handle
        return number

    py2f = toint

    @classmethod
    def fromint(cls, arg: int) -> Comm:
        for kind, number in _PREDEFINED.items():
            if arg == number:
                return {"world": COMM_WORLD, "self": COMM_SELF}.get(kind) or Comm()
        handle = _handles().get(arg)
        if handle is None:
            raise ValueError(f"{arg:#x} is not a communicator handle of this process")
        return wrap(handle)

    f2py = fromint

    # -- communicators ---------------------------------------------------------------------
    def Dup(self, info: Any = None) -> Comm:
        """MPI_Comm_dup (MPI_Comm_dup_with_info with ``info``): the attributes whose
        keyvals copy them are copied, by their copy functions (:mod:`.attributes`)."""
        hints = handle_info(info)
        made = self._wrap(self._p2p("comm_dup", True) if hints is None else
                          self._p2p("comm_dup_with_info", True, info=hints))
        copy_attributes(self, made)
        return made

    Clone = Dup

    def Idup(self, info: Any = None) -> tuple[Comm, Request]:
        """MPI_Comm_idup (MPI_Comm_idup_with_info with ``info``): the new communicator, of
        this one's class, and the request; the communicator is null until the request
        completes (MPI 4.1 §7.4.2: it must not be used before; it is not MPI.COMM_NULL, as
        MPICH's handle is not), then a copy of this one with its attributes copied as Dup
        copies them."""
        hints = handle_info(info)
        engine = self._p2p("comm_idup", True) if hints is None else \
            self._p2p("comm_idup_with_info", True, info=hints)
        made = type(self)._made("pending")

        def completed(req: Any) -> None:
            new = self._wrap(req.result)
            made._kind, made._handle = new._kind, new._handle
            copy_attributes(self, made)
        return made, Request(engine, result=completed)

    def Idup_with_info(self, info: Any) -> tuple[Comm, Request]:
        return self.Idup(info)

    def Dup_with_info(self, info: Any) -> Comm:
        return self.Dup(info)

    def Split(self, color: int = 0, key: int = 0) -> Comm:
        # color and key are C ints: converted as mpi4py does (integers.c_int)
        made = self._p2p("comm_split", True, color=c_int(color), key=c_int(key))
        return self._wrap(made)

    def Free(self) -> None:
        """MPI_Comm_free: the object becomes MPI.COMM_NULL, as in mpi4py."""
        if self._kind in ("world", "self"):
            raise MPIException(f"cannot free {self.Get_name()}", None, "MPI_ERR_COMM")
        delete_attributes(self)
        ctx = current()
        handle = self._c(ctx.mpi)
        ctx.call(lambda: ctx.mpi.comm_free(handle))
        self._kind, self._handle = "null", None

    def Split_type(self, split_type: int, key: int = 0, info: Any = None) -> Comm:
        """MPI_Comm_split_type: MPI.COMM_TYPE_SHARED groups the processes of a node (the
        network's ``ranks_per_node``; one node when it is not set)."""
        made = self._p2p("comm_split_type", True, split_type=c_int(split_type),
                         key=c_int(key), info=handle_info(info))
        return self._wrap(made)

    def Get_info(self) -> Info:
        mpi = current().plain()
        return Info._of(mpi.comm_get_info(self._comm(mpi)))

    def Set_info(self, info: Info) -> None:
        mpi = current().plain()
        mpi.comm_set_info(handle_info(info), self._comm(mpi))

    info = property(Get_info, Set_info)

    def Abort(self, errorcode: int = 0) -> None:
        raise Aborted(f"MPI_Abort({self.Get_name()}, {errorcode}) called by rank "
                      f"{current().mpi.rank}")

    # -- communicator buffers (MPI 4.1) ----------------------------------------------------
    def Attach_buffer(self, buf: Any) -> None:
        attach(buf, self)

    def Detach_buffer(self) -> Any:
        return detach(self)

    def Flush_buffer(self) -> None:
        flush(self)

    def Iflush_buffer(self) -> Request:
        return iflush(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(type(self).__name__, name)


class Intracomm(TopologyMaker, IntercommMaker, SpawnMethods, Comm):
    """mpi4py's MPI.Intracomm (MPI.COMM_WORLD, COMM_SELF, and what Dup and Split make)."""

    def _holds(self, comm: Comm) -> bool:
        return not comm.Is_inter()


class Topocomm(NeighborMethods, Intracomm):
    """mpi4py's MPI.Topocomm: an intracommunicator with a process topology (MPI 4.1 §8)."""

    _topology: int | None = None  # the kind its subclass holds (None: any)

    def _holds(self, comm: Comm) -> bool:
        kind = comm.Get_topology()
        return kind != UNDEFINED and self._topology in (None, kind)


class Cartcomm(CartQueries, Topocomm):
    """mpi4py's MPI.Cartcomm (MPI_Cart_create, MPI_Cart_sub)."""

    _topology = CART


class Graphcomm(GraphQueries, Topocomm):
    """mpi4py's MPI.Graphcomm (MPI_Graph_create)."""

    _topology = GRAPH


class Distgraphcomm(DistGraphQueries, Topocomm):
    """mpi4py's MPI.Distgraphcomm (MPI_Dist_graph_create[_adjacent])."""

    _topology = DIST_GRAPH


class Intercomm(IntercommMethods, Comm):
    """mpi4py's MPI.Intercomm (MPI 4.1 §7.6): its peers are the remote group's ranks."""


_CLASSES: dict[Any, type[Comm]] = {CART: Cartcomm, GRAPH: Graphcomm,
                                   DIST_GRAPH: Distgraphcomm, "inter": Intercomm}


def wrap(handle: Any) -> Comm:
    """The stand-in's object of a handle's Comm: the class mpi4py gives it
    (MPI.COMM_NULL-equal Intracomm for None)."""
    if handle is None:
        return Intracomm()
    key = "inter" if handle.is_inter else getattr(handle.topo, "kind", None)
    return _CLASSES.get(key, Intracomm)._made("handle", handle)


def _restored(cls: type[Comm], kind: str) -> Comm:
    return cls._made(kind)


_PREDEFINED = {"world": 0x44000000, "self": 0x44000001, "null": 0x04000000}
"""MPICH's handle values of MPI_COMM_WORLD, MPI_COMM_SELF and MPI_COMM_NULL."""
_HANDLE_BASE = 0x84000000


def _handles() -> dict[int, Any]:
    """This rank's communicators by the integer ``toint`` gave them."""
    ctx = current()
    table = ctx.__dict__.get("comm_handles")
    if table is None:
        table = ctx.__dict__["comm_handles"] = {}
    return table


def _names() -> dict[str, str]:
    """This rank's names for MPI_COMM_WORLD and MPI_COMM_SELF (MPI_Comm_set_name)."""
    return current().__dict__.setdefault("comm_names", {})


COMM_WORLD = Intracomm._made("world")
COMM_SELF = Intracomm._made("self")
COMM_NULL = Intracomm._made("null")
