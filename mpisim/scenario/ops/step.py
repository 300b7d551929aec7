"""One step of a rank program, as read from the file: :class:`Op` and :class:`RequestRef`.

The names every op family shares live here too: the calls of the language (:data:`CALLS`)
and the words a scenario uses for the predefined communicators.
"""

from __future__ import annotations

from typing import Any

from ...handle.calltable import OPS
from ..expr import Expr

__all__ = ["CALLS", "COLLECTIVES", "CONTROL", "PEER", "SELF", "SENDS", "WORLD", "Op",
           "RequestRef"]

SENDS = tuple(name for name, c in OPS.items() if c.op == "send")
"""The send ops (one reader for all eight modes)."""
COLLECTIVES = tuple(name for name, c in OPS.items()
                    if c.op in ("collective", "split", "vector"))
"""The collective ops that carry data (one reader for all, led by the call table)."""
CONTROL = ("loop", "if", "thread", "join")
"""The ops that are not the handle's calls: loops, branches, and a rank's threads."""
CALLS = (*OPS, *CONTROL)
"""The ops of the scenario language: the handle's calls that :data:`mpisim.handle.calltable.OPS`
lists, and the control ops."""
PEER = "peer"
"""In a v form's counts expression, the rank the count is for (``sendcounts: peer + 1``)."""
WORLD, SELF = "world", "self"
"""The names of MPI_COMM_WORLD and MPI_COMM_SELF in a scenario's ``comm:`` arguments."""


class RequestRef:
    """A request name: ``r``, ``r[i+1]`` (index an expression) or ``r[*]`` (all under r)."""

    __slots__ = ("index", "name", "star", "text")

    def __init__(self, name: str, index: Expr | None, star: bool, text: str) -> None:
        self.name, self.index, self.star, self.text = name, index, star, text


class Op:
    """One step of a rank program: the call, its arguments, where it is in the file."""

    __slots__ = ("args", "binds", "body", "call", "comm", "datatype", "orelse", "request",
                 "requests", "threads", "var", "where", "win")

    def __init__(self, call: str, where: str) -> None:
        self.call = call
        self.where = where
        # each argument as (form, what): ("one", an Expr) or ("list", a list of them)
        self.args: dict[str, tuple[str, Any]] = {}
        self.datatype: Expr | None = None
        self.request: RequestRef | None = None
        self.requests: list[RequestRef] = []
        self.binds: dict[str, str] = {}
        self.body: list[Op] = []
        self.orelse: list[Op] = []
        self.var: str | None = None  # a loop's variable; a thread's name
        self.threads: list[str] = []  # the names of the threads a join waits for
        self.comm: str | None = None  # the communicator's name (None: MPI_COMM_WORLD)
        self.win: str | None = None   # the window's name (one-sided ops)

    def __repr__(self) -> str:
        return f"<Op {self.call} at {self.where}>"
