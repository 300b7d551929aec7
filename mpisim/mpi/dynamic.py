"""Dynamic processes' vocabulary (MPI 4.1 §11.8-§11.10): error classes, ports and names.

A *port* (§11.9.1) is where a server's MPI_Comm_accept and a client's MPI_Comm_connect
meet: ``open_port`` gives a fresh name (``"mpisim-port:1"``...), the accepting group
and the connecting group each agree among themselves first (both calls are collective over
their communicator, the root's port name counting), then the first group waiting at the
port of each kind are joined by a new intercommunicator. :class:`Ports` keeps the open
ports, the groups waiting at them and the published service names (§11.9.4) of one run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import MPIError

__all__ = ["CODES", "ErrName", "ErrPort", "ErrService", "ErrSpawn", "ErrUnsupportedOperation",
           "Ports", "Side"]


class ErrSpawn(MPIError):
    """MPI_ERR_SPAWN: the processes could not be started (MPI 4.1 §11.8.2)."""

    error_class = "MPI_ERR_SPAWN"


class ErrPort(MPIError):
    """MPI_ERR_PORT: a port name that is not open (MPI 4.1 §11.9.2)."""

    error_class = "MPI_ERR_PORT"


class ErrName(MPIError):
    """MPI_ERR_NAME: a service name nobody published (MPI 4.1 §11.9.4)."""

    error_class = "MPI_ERR_NAME"


class ErrService(MPIError):
    """MPI_ERR_SERVICE: unpublishing a name not published (MPI 4.1 §11.9.4)."""

    error_class = "MPI_ERR_SERVICE"


class ErrUnsupportedOperation(MPIError):
    """MPI_ERR_UNSUPPORTED_OPERATION: a call the simulator cannot make meaningful."""

    error_class = "MPI_ERR_UNSUPPORTED_OPERATION"


CODES = {"MPI_ERR_NAME": 33, "MPI_ERR_PORT": 38, "MPI_ERR_SERVICE": 41, "MPI_ERR_SPAWN": 42,
         "MPI_ERR_UNSUPPORTED_OPERATION": 44}
"""Their codes, as MPICH 5.0.2 numbers them (``MPI.ERR_SPAWN`` is 42)."""


class Side:
    """One group at a port: the members of an MPI_Comm_accept (or _connect) that have all
    called it, waiting for the other group. ``joined`` is called with each member's world
    rank and its side of the new intercommunicator once the other group comes."""

    __slots__ = ("accepting", "group", "members", "port", "result")

    def __init__(self, port: str, group: tuple[int, ...], accepting: bool) -> None:
        self.port = port
        self.group = group
        self.accepting = accepting
        self.members: list[tuple[int, Callable[[Any], None]]] = []
        self.result: Any = None  # this group's CommInfo of the intercommunicator, once made

    def join(self, world: int, joined: Callable[[Any], None]) -> None:
        """Member ``world`` waits for the connection (told at once if it is made)."""
        if self.result is not None:
            joined(self.result)
        else:
            self.members.append((world, joined))

    def connected(self, info: Any) -> None:
        self.result = info
        for _, joined in self.members:
            joined(info)
        self.members = []

    def waits_for(self) -> list[int]:
        """Nobody known: any process may still connect (the deadlock analysis lists it)."""
        return []

    def reason(self) -> str:
        other = "MPI_Comm_connect" if self.accepting else "MPI_Comm_accept"
        return f"waits at port {self.port!r} for a group to call {other} on it (MPI 4.1 §11.9)"


class Ports:
    """The run's open ports, the groups waiting at them and its published names."""

    def __init__(self) -> None:
        self.opened = 0
        self.open: set[str] = set()
        self.waiting: dict[str, list[Side]] = {}
        self.names: dict[str, str] = {}

    def open_port(self) -> str:
        self.opened += 1
        name = f"mpisim-port:{self.opened}"
        self.open.add(name)
        return name

    def close_port(self, name: str) -> None:
        if name not in self.open:
            raise ErrPort(f"close_port: {name!r} is not an open port")
        self.open.discard(name)

    def arrive(self, side: Side, make: Callable[[Side, Side], tuple[Any, Any]]) -> None:
        """A group at its port: joined to the first group of the other kind waiting there
        (``make(acceptor, connector)`` gives each side's CommInfo), else it waits."""
        queue = self.waiting.setdefault(side.port, [])
        other = next((s for s in queue if s.accepting != side.accepting), None)
        if other is None:
            queue.append(side)
            return
        queue.remove(other)
        acceptor, connector = (side, other) if side.accepting else (other, side)
        a, c = make(acceptor, connector)
        acceptor.connected(a)
        connector.connected(c)

    def publish(self, service: str, port: str) -> None:
        self.names[service] = port

    def unpublish(self, service: str, port: str) -> None:
        if self.names.get(service) != port:
            raise ErrService(f"unpublish_name: {service!r} is not published with port "
                             f"{port!r}")
        del self.names[service]

    def lookup(self, service: str) -> str:
        port = self.names.get(service)
        if port is None:
            raise ErrName(f"lookup_name: no port is published under {service!r}")
        return port
