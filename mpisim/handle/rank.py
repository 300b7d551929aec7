"""The ``mpi`` handle: what a rank program calls.

One class, :class:`Rank`, whose calls are written in one mixin per chapter of the standard:

- :class:`~mpisim.handle.p2p.PointToPoint` (§3): sends of the four modes, receives, probes,
  waits and tests;
- :class:`~mpisim.handle.buffers.BufferCalls` (§3.6): the attached buffer of the process,
  of a communicator or of a session;
- :class:`~mpisim.handle.comms.CommCalls` (§6, §11.3): communicators and sessions;
- :class:`~mpisim.handle.groups.GroupCalls` (§7.2-§7.6): groups, communicators made from
  them, intercommunicators;
- :class:`~mpisim.handle.collectives.CollectiveCalls` (§6): collectives and their
  nonblocking forms;
- :class:`~mpisim.handle.persistent.PersistentCalls` (§3.9, §3.10): persistent requests,
  sendrecv;
- :class:`~mpisim.handle.topology.TopologyCalls` (§8): process topologies and the
  neighbourhood collectives;
- :class:`~mpisim.handle.attributes.AttributeCalls` (§7.7, §9.1.2) and
  :class:`~mpisim.handle.attributes.InfoCalls` (§10): attributes, info objects;
- :class:`~mpisim.handle.rma.OneSidedCalls` (§12): windows, RMA operations and their
  synchronization;
- :class:`~mpisim.handle.io.FileCalls` (§14): MPI-IO, files, views and data access;
- :class:`~mpisim.handle.threads.ThreadCalls` (§11.6): the level of thread support, and
  threads of the rank that make calls beside its program;
- :class:`~mpisim.handle.dynamic.DynamicCalls` (§11.8-§11.10): spawned processes, ports,
  names, disconnecting;
- :class:`~mpisim.handle.local.LocalCalls`: compute time, datatype sizes, addresses;

on :class:`~mpisim.handle.base.HandleBase`, which holds the rank's state and what every
call does on entry. Names follow MPI without the prefix, snake_cased (MPI_Buffer_attach ->
buffer_attach); sizes and times also accept unit strings ("64 KiB", "5us"). The call table
(:mod:`mpisim.handle.calltable`) names every call once; a test checks the class against it.
"""

from __future__ import annotations

from .attributes import AttributeCalls, InfoCalls
from .base import POLL_TIME, POLLS, SAME_TIME_CALLS, ZeroTimeLoop
from .buffers import BufferCalls
from .collectives import CollectiveCalls
from .comms import CommCalls
from .dynamic import DynamicCalls
from .groups import GroupCalls
from .io import FileCalls
from .local import LocalCalls
from .p2p import PointToPoint
from .persistent import PersistentCalls
from .rma import OneSidedCalls
from .threads import ThreadCalls
from .topology import TopologyCalls

__all__ = ["POLLS", "POLL_TIME", "SAME_TIME_CALLS", "Rank", "ZeroTimeLoop"]


class Rank(PointToPoint, BufferCalls, CommCalls, GroupCalls, CollectiveCalls, PersistentCalls,
           TopologyCalls, AttributeCalls, InfoCalls, OneSidedCalls, FileCalls, ThreadCalls,
           DynamicCalls, LocalCalls):
    """The handle of one MPI process (``mpi`` in rank programs)."""

    __slots__ = ()
