"""The ops of a ``programs`` entry: one MPI call each, read with its location, then run.

An op is a one-key mapping named after the handle's call (the calls, their arguments and
what they bind: :mod:`mpisim.handle.calltable`)::

    - bsend: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
    - isend: {dest: right, bytes: 64 KiB, request: "r[i]"}
    - waitall: "r[*]"
    - buffer_attach: 16 KiB

Each argument is a literal or an expression (:mod:`mpisim.scenario.expr`). Each family of
ops has a module of its own, with its part of the grammar, its reader and its runners:

- :mod:`~mpisim.scenario.ops.p2p`: sends, receives, probes, completions, the attached
  buffer, ``barrier``; request names and status variables;
- :mod:`~mpisim.scenario.ops.collective`: collectives, their v and w forms, nonblocking;
- :mod:`~mpisim.scenario.ops.comm`: communicators and Cartesian topologies;
- :mod:`~mpisim.scenario.ops.onesided`: windows and RMA;
- :mod:`~mpisim.scenario.ops.file`: MPI-IO;
- :mod:`~mpisim.scenario.ops.control`: ``loop``, ``if``, ``compute``;
- :mod:`~mpisim.scenario.ops.threads`: ``init_thread``, ``thread``, ``join`` and the
  thread level (a rank's threads, MPI 4.1 §11.6).

:class:`OpReader`'s bases are that list: its MRO is the scenario language's table of
contents, as :class:`mpisim.handle.rank.Rank`'s is the standard's. :data:`RUNNERS` maps each
kind of op of the call table (and the control ops) to the generator that runs it.

Adding an op family: a module with its grammar (docstring), a reader mixin (methods
``_<call>``) and ``RUNNERS`` for its kinds, then one line each below.
"""

from __future__ import annotations

from . import collective, comm, control, file, onesided, p2p, threads
from .collective import CollectiveOps
from .comm import CommOps
from .control import ControlOps
from .file import FileOps
from .onesided import WindowOps
from .p2p import P2POps
from .running import run_call
from .step import CALLS, CONTROL, PEER, SELF, WORLD, Op, RequestRef
from .threads import ThreadOps

__all__ = ["CALLS", "CONTROL", "PEER", "RUNNERS", "SELF", "WORLD", "Op", "OpReader",
           "RequestRef"]


class OpReader(P2POps, CollectiveOps, CommOps, WindowOps, FileOps, ControlOps, ThreadOps):
    """Reads op lists, reporting problems to ``problems`` (a Problems) with key paths.

    ``params`` are the load-time params (expressions using only them, ``size`` and the
    constants are evaluated once at load, so their errors are reported before any run).
    """


RUNNERS = {"local": run_call, **p2p.RUNNERS, **collective.RUNNERS, **comm.RUNNERS,
           **onesided.RUNNERS, **file.RUNNERS, **control.RUNNERS, **threads.RUNNERS}
"""How each kind of op runs: the call table's ``op`` kinds, and the control ops."""
