"""One-sided communication calls of the ``mpi`` handle (MPI 4.1 §12): windows, the RMA
operations, and the synchronization calls.

Each call checks its arguments, then lets the run's :class:`~mpisim.rma.OneSided` do the
work (:mod:`mpisim.rma`): windows are made and freed collectively (``win_create``,
``win_allocate``, ``win_allocate_shared``, ``win_create_dynamic`` yield the Window;
``win.memory`` is this process's part as a numpy uint8 array), operations are nonblocking
(``put``, ``get``, ``accumulate``, ``get_accumulate``, ``fetch_and_op``,
``compare_and_swap`` return once made; their ``r`` forms yield a Request, complete when the
origin's buffer may be reused or, for the fetching forms, holds the result) and complete at
the synchronization that closes their epoch (``win_fence``; ``win_start``/``win_complete``
with ``win_post``/``win_wait``/``win_test``; ``win_lock``/``win_unlock``,
``win_lock_all``/``win_unlock_all`` and the flushes).

Buffers are numpy arrays (their dtype names the datatype when none is given), or None for
an operation of size only (``count`` x ``datatype``: its time on the network, nothing
moved). Ranks are ranks of the window (of the communicator it was made over); a target
displacement counts the target's ``disp_unit``\\ s (bytes for a dynamic window, where it is
an address the target took with ``get_address``). An RMA call out of place in its window's
epochs is MPI_ERR_RMA_SYNC; a location outside the target's window MPI_ERR_RMA_RANGE.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from simpy.events import Event

from ..collectives.ops import SUM
from ..engine.clock import at, done, failed
from ..engine.sites import program_site
from ..mpi.constants import BOTTOM, PROC_NULL
from ..mpi.errors import ErrArg, ErrGroup, MPIError
from ..mpi.group import Group
from ..mpi.info import Info
from ..mpi.typemap import memory_of
from ..p2p.calls import check_datatype
from ..p2p.requests import Request, Status
from ..rma import active, creation, kinds, passive
from ..rma.access import Target, check_window, target_rank
from ..rma.accumulate import accumulate_op
from ..rma.constants import (
    LOCK_EXCLUSIVE,
    LOCK_SHARED,
    MODES,
    WIN_BASE,
    WIN_CREATE_FLAVOR,
    WIN_DISP_UNIT,
    WIN_FLAVOR_ALLOCATE,
    WIN_FLAVOR_CREATE,
    WIN_FLAVOR_DYNAMIC,
    WIN_FLAVOR_SHARED,
    WIN_MODEL,
    WIN_SIZE,
    WIN_UNIFIED,
)
from ..rma.errors import ErrAssert, ErrDisp, ErrLocktype, ErrRmaFlavor, ErrSize
from ..rma.operations import when_all
from ..rma.runtime import OneSided
from ..rma.waits import Holders
from .base import POLL_TIME, HandleBase

__all__ = ["OneSidedCalls"]


class OneSidedCalls(HandleBase):
    """MPI 4.1 §12: windows, RMA operations and their synchronization."""

    __slots__ = ()

    @property
    def _rma(self) -> OneSided:
        """The run's one-sided state (:class:`~mpisim.rma.OneSided`), which the simulation
        keeps in the run state every handle holds (no attribute per rank: an idle rank stays
        small)."""
        found = self._run.one_sided
        if found is None:
            raise RuntimeError("one-sided calls need a run made by ms.run or ms.Simulation")
        return found

    # -- windows (§12.2) -----------------------------------------------------------------
    def win_create(self, base: Any = None, size: int | None = None, disp_unit: int = 1,
                   info: Any = None, comm: Any = None) -> Event:
        """MPI_Win_create (§12.2.1, collective over ``comm``): a window over ``base``, a
        numpy array of this process (its first ``size`` bytes; all of them by default;
        None: no memory). Yields the Window.

        Parameters
        ----------
        base
            The memory exposed, a numpy array (None: no memory).
        size
            Bytes of ``base`` exposed. Default: all of ``base`` (0 without one).
        disp_unit
            Bytes of one unit of ``target_disp`` at this process; 1 by default.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator whose members make the window together;
            MPI_COMM_WORLD by default.
        """
        return self._make("MPI_Win_create", WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm)

    def win_allocate(self, size: int = 0, disp_unit: int = 1, info: Any = None,
                     comm: Any = None) -> Event:
        """MPI_Win_allocate (§12.2.2, collective): a window over ``size`` bytes MPI
        allocates, zeroed. Yields the Window (``win.memory``: this process's bytes).

        Parameters
        ----------
        size
            Bytes of the window's memory at this process (0 by default).
        disp_unit
            Bytes of one unit of ``target_disp`` at this process; 1 by default.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator whose members make the window together;
            MPI_COMM_WORLD by default.
        """
        return self._make("MPI_Win_allocate", WIN_FLAVOR_ALLOCATE, None, size, disp_unit, info,
                          comm)

    def win_allocate_shared(self, size: int = 0, disp_unit: int = 1, info: Any = None,
                            comm: Any = None) -> Event:
        """MPI_Win_allocate_shared (§12.2.3, collective over processes of one node): one
        allocation, each process's ``size`` bytes after the previous one's. Yields the
        Window; ``win_shared_query`` gives any member's part.

        Parameters
        ----------
        size
            Bytes of the window's memory at this process (0 by default).
        disp_unit
            Bytes of one unit of ``target_disp`` at this process; 1 by default.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator whose members make the window together;
            MPI_COMM_WORLD by default.
        """
        return self._make("MPI_Win_allocate_shared", WIN_FLAVOR_SHARED, None, size, disp_unit,
                          info, comm)

    def win_create_dynamic(self, info: Any = None, comm: Any = None) -> Event:
        """MPI_Win_create_dynamic (§12.2.4, collective): a window without memory until a
        process attaches some (``win_attach``). Yields the Window.

        Parameters
        ----------
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator whose members make the window together;
            MPI_COMM_WORLD by default.
        """
        return self._make("MPI_Win_create_dynamic", WIN_FLAVOR_DYNAMIC, None, 0, 1, info, comm)

    def _make(self, call: str, flavor: int, base: Any, size: Any, disp_unit: Any, info: Any,
              comm: Any) -> Event:
        try:
            memory = None
            if base is not None and base is not BOTTOM:
                memory = memory_of(base, writable=True, what=f"{call}'s base")
            size = _size(call, size, memory)
            if memory is not None:
                memory = memory[:size]
            if isinstance(disp_unit, bool) or not isinstance(disp_unit, int | np.integer) \
                    or disp_unit <= 0:
                raise ErrDisp(f"{call}: disp_unit must be a positive integer, got "
                              f"{disp_unit!r}")
            made = creation.create(self._rma, self._port, call, comm, flavor, memory, size,
                                   int(disp_unit), info)
            self._made_when(made, "window", call)  # a leak if never freed
            return made
        except MPIError as e:
            self._proc.unyielded = False  # (the creation may have entered the call: still one)
            self._enter(call)
            return failed(self._env, e)

    def win_shared_query(self, win: Any, rank: int) -> tuple[np.ndarray, int]:
        """MPI_Win_shared_query (§12.2.3): (the memory of ``rank``'s part, its disp_unit);
        PROC_NULL: the first part that has any. A window not made by allocate_shared
        shares no memory here but an allocated one's (a created or dynamic window's part
        is empty, as MPI 4.1 allows).

        Parameters
        ----------
        win
            The window (MPI_Win).
        rank
            Rank in the window's group of the process whose part is asked for
            (``ms.PROC_NULL``: the first non-empty).
        """
        win = check_window(win, "win_shared_query")
        info = win.info
        if rank == PROC_NULL:
            world = next((w for w in info.group if info.segments[w].size), info.group[0])
        else:
            world = target_rank(win, rank, "win_shared_query")
        part = info.segments[world]
        if info.flavor in (WIN_FLAVOR_CREATE, WIN_FLAVOR_DYNAMIC):
            return np.zeros(0, dtype=np.uint8), part.disp_unit
        return part.memory, part.disp_unit

    def win_attach(self, win: Any, base: Any, size: int | None = None) -> None:
        """MPI_Win_attach (§12.2.4, local): the first ``size`` bytes of the numpy array
        ``base`` (all by default) become accessible in the dynamic window ``win``.

        Parameters
        ----------
        win
            The window (MPI_Win).
        base
            The numpy array attached (or detached).
        size
            Bytes attached (default: all of ``base``).
        """
        win = check_window(win, "win_attach")
        if win.info.flavor != WIN_FLAVOR_DYNAMIC:
            raise ErrRmaFlavor(f"win_attach: {win.name} is not a dynamic window")
        memory = memory_of(base, writable=True, what="win_attach's base")
        win.segment(win.me).attach(memory[:_size("win_attach", size, memory)])

    def win_detach(self, win: Any, base: Any) -> None:
        """MPI_Win_detach (§12.2.4, local): the memory attached at ``base`` no longer is.

        Parameters
        ----------
        win
            The window (MPI_Win).
        base
            The numpy array attached (or detached).
        """
        win = check_window(win, "win_detach")
        if win.info.flavor != WIN_FLAVOR_DYNAMIC:
            raise ErrRmaFlavor(f"win_detach: {win.name} is not a dynamic window")
        win.segment(win.me).detach(memory_of(base, what="win_detach's base"))

    def win_free(self, win: Any) -> Event:
        """MPI_Win_free (§12.2.5, collective): returns once every member has called it, no
        epoch open; the window is then unusable.

        Parameters
        ----------
        win
            The window (MPI_Win).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        try:
            return creation.free(self._rma, self._port, check_window(win, "win_free"),
                                 "MPI_Win_free")
        except MPIError as e:
            self._enter("MPI_Win_free")
            return failed(self._env, e)

    def win_get_attr(self, win: Any, keyval: int) -> Any:
        """MPI_Win_get_attr (§12.2.6) of a predefined key: WIN_BASE (an address),
        WIN_SIZE, WIN_DISP_UNIT, WIN_CREATE_FLAVOR, WIN_MODEL (always WIN_UNIFIED); None for
        another key.

        Parameters
        ----------
        win
            The window (MPI_Win).
        keyval
            The attribute: ``ms.WIN_BASE``, ``WIN_SIZE``, ``WIN_DISP_UNIT``,
            ``WIN_CREATE_FLAVOR`` or ``WIN_MODEL``.
        """
        win = check_window(win, "win_get_attr")
        part = win.segment(win.me)
        values = {WIN_BASE: lambda: part.base, WIN_SIZE: lambda: part.size,
                  WIN_DISP_UNIT: lambda: part.disp_unit,
                  WIN_CREATE_FLAVOR: lambda: win.info.flavor, WIN_MODEL: lambda: WIN_UNIFIED}
        value = values.get(keyval)
        return None if value is None else value()

    def win_get_group(self, win: Any) -> Group:
        """MPI_Win_get_group (§12.2.6): the group of the window's processes.

        Parameters
        ----------
        win
            The window (MPI_Win).
        """
        win = check_window(win, "win_get_group")
        return Group(win.info.group, self.rank)

    def win_set_name(self, win: Any, name: str) -> None:
        """MPI_Win_set_name: what reports call the window.

        Parameters
        ----------
        win
            The window (MPI_Win).
        name
            The window's name, as reports show it.
        """
        win = check_window(win, "win_set_name")
        if not isinstance(name, str):
            raise ErrArg(f"win_set_name: expected a name, got {name!r}")
        win.label = name

    def win_get_name(self, win: Any) -> str:
        """MPI_Win_get_name: the name set, else "" (as MPICH).

        Parameters
        ----------
        win
            The window (MPI_Win).
        """
        return check_window(win, "win_get_name").label or ""

    def win_set_info(self, win: Any, info: Any) -> None:
        """MPI_Win_set_info (§12.2.7): the window's hints (none changes the simulation).

        Parameters
        ----------
        win
            The window (MPI_Win).
        info
            The new hints, an ``Info``; mpisim reads none of them.
        """
        check_window(win, "win_set_info").hints = info.dup() if hasattr(info, "dup") else info

    def win_get_info(self, win: Any) -> Info:
        """MPI_Win_get_info (§12.2.7): a new info object with the hints the program set
        (MPICH and Open MPI add defaults of their own, which mpisim has none of).

        Parameters
        ----------
        win
            The window (MPI_Win).
        """
        hints = check_window(win, "win_get_info").hints
        return hints.dup() if isinstance(hints, Info) else Info()

    # -- operations (§12.3) --------------------------------------------------------------
    def put(self, buf: Any = None, count: int | None = None, datatype: Any = None,
            target: int | None = None, target_disp: int = 0, target_count: int | None = None,
            target_datatype: Any = None, win: Any = None) -> Event:
        """MPI_Put (§12.3.1): ``buf``'s data into ``target``'s window at ``target_disp``
        (``target_count`` x ``target_datatype``: by default the origin's).

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Put", False, buf, count, datatype, target, target_disp,
                             target_count, target_datatype, win)

    def rput(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             target: int | None = None, target_disp: int = 0, target_count: int | None = None,
             target_datatype: Any = None, win: Any = None) -> Event:
        """MPI_Rput (§12.3.5): MPI_Put, yielding a Request complete once ``buf`` may be
        reused (its bytes have left).

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.
        """
        return self._operate("MPI_Rput", True, buf, count, datatype, target, target_disp,
                             target_count, target_datatype, win)

    def get(self, buf: Any = None, count: int | None = None, datatype: Any = None,
            target: int | None = None, target_disp: int = 0, target_count: int | None = None,
            target_datatype: Any = None, win: Any = None) -> Event:
        """MPI_Get (§12.3.2): ``target``'s window data at ``target_disp`` into ``buf``, as
        the target's memory holds them when the request reaches it.

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), filled with the data read.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Get", False, buf, count, datatype, target, target_disp,
                             target_count, target_datatype, win)

    def rget(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             target: int | None = None, target_disp: int = 0, target_count: int | None = None,
             target_datatype: Any = None, win: Any = None) -> Event:
        """MPI_Rget (§12.3.5): MPI_Get, yielding a Request complete once ``buf`` holds the
        data.

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), filled with the data read.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.
        """
        return self._operate("MPI_Rget", True, buf, count, datatype, target, target_disp,
                             target_count, target_datatype, win)

    def accumulate(self, buf: Any = None, count: int | None = None, datatype: Any = None,
                   target: int | None = None, target_disp: int = 0,
                   target_count: int | None = None, target_datatype: Any = None,
                   op: Any = SUM, win: Any = None) -> Event:
        """MPI_Accumulate (§12.3.4): ``op`` of ``buf``'s elements onto the target's,
        atomically per element; ``ms.REPLACE`` replaces them.

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        op
            The operation combining the data with the target's: ``ms.SUM`` (the
            default), ``ms.REPLACE``, ``ms.NO_OP`` (get_accumulate only: a read),
            or another predefined ``ms`` op (MPI 4.1 §12.3.4: no user-defined op).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Accumulate", False, buf, count, datatype, target,
                             target_disp, target_count, target_datatype, win, op)

    def raccumulate(self, buf: Any = None, count: int | None = None, datatype: Any = None,
                    target: int | None = None, target_disp: int = 0,
                    target_count: int | None = None, target_datatype: Any = None,
                    op: Any = SUM, win: Any = None) -> Event:
        """MPI_Raccumulate (§12.3.5): MPI_Accumulate, yielding a Request complete once
        ``buf`` may be reused.

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        op
            The operation combining the data with the target's: ``ms.SUM`` (the
            default), ``ms.REPLACE``, ``ms.NO_OP`` (get_accumulate only: a read),
            or another predefined ``ms`` op (MPI 4.1 §12.3.4: no user-defined op).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.
        """
        return self._operate("MPI_Raccumulate", True, buf, count, datatype, target,
                             target_disp, target_count, target_datatype, win, op)

    def get_accumulate(self, buf: Any = None, count: int | None = None, datatype: Any = None,
                       result: Any = None, result_count: int | None = None,
                       result_datatype: Any = None, target: int | None = None,
                       target_disp: int = 0, target_count: int | None = None,
                       target_datatype: Any = None, op: Any = SUM, win: Any = None) -> Event:
        """MPI_Get_accumulate (§12.3.4): ``result`` gets the target's elements, then they
        become ``op`` of them and ``buf``'s, atomically per element (``ms.NO_OP``: an
        atomic read).

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        result
            A numpy array that receives the target's data as it was before the
            operation.
        result_count
            Elements of ``result_datatype`` in ``result``. Default: ``count``.
        result_datatype
            MPI datatype of ``result``. Default: ``datatype``.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        op
            The operation combining the data with the target's: ``ms.SUM`` (the
            default), ``ms.REPLACE``, ``ms.NO_OP`` (get_accumulate only: a read),
            or another predefined ``ms`` op (MPI 4.1 §12.3.4: no user-defined op).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Get_accumulate", False, buf, count, datatype, target,
                             target_disp, target_count, target_datatype, win, op,
                             (result, result_count, result_datatype))

    def rget_accumulate(self, buf: Any = None, count: int | None = None,
                        datatype: Any = None, result: Any = None,
                        result_count: int | None = None, result_datatype: Any = None,
                        target: int | None = None, target_disp: int = 0,
                        target_count: int | None = None, target_datatype: Any = None,
                        op: Any = SUM, win: Any = None) -> Event:
        """MPI_Rget_accumulate (§12.3.5): MPI_Get_accumulate, yielding a Request complete
        once ``result`` holds the target's former elements.

        Parameters
        ----------
        buf
            The origin buffer: a numpy array (its dtype gives the datatype when
            none is given, its size the count), whose data is sent.
        count
            Elements of ``datatype`` at the origin. Default: the numpy ``buf``'s
            size.
        datatype
            MPI datatype at the origin. Default: the numpy ``buf``'s dtype's.
        result
            A numpy array that receives the target's data as it was before the
            operation.
        result_count
            Elements of ``result_datatype`` in ``result``. Default: ``count``.
        result_datatype
            MPI datatype of ``result``. Default: ``datatype``.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        target_count
            Elements of ``target_datatype`` at the target. Default: ``count``.
        target_datatype
            MPI datatype at the target. Default: ``datatype``.
        op
            The operation combining the data with the target's: ``ms.SUM`` (the
            default), ``ms.REPLACE``, ``ms.NO_OP`` (get_accumulate only: a read),
            or another predefined ``ms`` op (MPI 4.1 §12.3.4: no user-defined op).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.
        """
        return self._operate("MPI_Rget_accumulate", True, buf, count, datatype, target,
                             target_disp, target_count, target_datatype, win, op,
                             (result, result_count, result_datatype))

    def fetch_and_op(self, buf: Any = None, result: Any = None, datatype: Any = None,
                     target: int | None = None, target_disp: int = 0, op: Any = SUM,
                     win: Any = None) -> Event:
        """MPI_Fetch_and_op (§12.3.4): MPI_Get_accumulate of one element of
        ``datatype``.

        Parameters
        ----------
        buf
            The operand, a numpy array of one element (ignored with
            ``ms.NO_OP``).
        result
            A numpy array that receives the target's data as it was before the
            operation.
        datatype
            The MPI datatype of the one element. Default: the numpy ``buf``'s
            dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        op
            The operation combining ``buf`` with the target's element:
            ``ms.SUM`` (the default), ``ms.REPLACE``, ``ms.NO_OP`` (a read), or
            another predefined ``ms`` op.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Fetch_and_op", False, buf, 1, datatype, target,
                             target_disp, 1, datatype, win, op, (result, 1, datatype))

    def compare_and_swap(self, buf: Any = None, compare: Any = None, result: Any = None,
                         datatype: Any = None, target: int | None = None,
                         target_disp: int = 0, win: Any = None) -> Event:
        """MPI_Compare_and_swap (§12.3.6): the target's element of ``datatype`` becomes
        ``buf``'s if it equals ``compare``'s; ``result`` gets what it was, atomically.

        Parameters
        ----------
        buf
            The value (a numpy array of one element) written if the target's
            equals ``compare``.
        compare
            The value (a numpy array of one element) compared with the target's;
            equal: ``buf`` replaces it.
        result
            A numpy array that receives the target's data as it was before the
            operation.
        datatype
            The MPI datatype of the one element. Default: the numpy ``buf``'s
            dtype's.
        target
            Rank of the target process in the window's communicator
            (``ms.PROC_NULL``: nothing happens).
        target_disp
            Displacement at the target, in units of the target's ``disp_unit``,
            from the window's start; 0 by default.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._operate("MPI_Compare_and_swap", False, buf, 1, datatype, target,
                             target_disp, 1, datatype, win, kinds.CAS, (result, 1, datatype),
                             compare)

    def _operate(self, call: str, request: bool, buf: Any, count: Any, datatype: Any,
                 target: Any, target_disp: Any, target_count: Any, target_datatype: Any,
                 win: Any, op: Any = None, result: Any = None, compare: Any = None) -> Event:
        """One operation: checked, made, and what the call yields (None, or its Request)."""
        where = self._where or program_site()
        env = self._env
        self._enter(call)
        try:
            win = check_window(win, call)
            world = target_rank(win, target, call)
            self._call_peer = world  # reports name world ranks
            if world == PROC_NULL:
                return _null_request(env, call, self.rank) if request else done(env, None)
            op_ = self._make_op(call, win, world, where, buf, count, datatype, target_disp,
                                target_count, target_datatype, op, result, compare)
        except MPIError as e:
            return failed(env, e)
        self._call_nbytes = op_.nbytes
        earliest = env._now + self._overhead
        value = op_.local if request else None
        gate = op_.gate
        if op is not None and gate is not None and self._rma.lock_mode == "lazy" and (
                gate.done_at is None or gate.done_at > earliest):
            # an atomic operation of a lazily locked epoch returns once the lock is held
            # (Open MPI 5.0.11: the epoch's first accumulate waits for the grant)
            self._call_obj = Holders(call, win, lambda: {world: win.info.lock(world)}
                                     if gate.done_at is None else {})
            return when_all(env, [gate], earliest, value)
        return at(env, earliest, value)

    def _make_op(self, call: str, win: Any, world: int, where: Any, buf: Any, count: Any,
                 datatype: Any, disp: Any, tcount: Any, tdt: Any, op: Any, result: Any,
                 compare: Any) -> Any:
        """Check the buffers and send the operation (see mpisim.rma.kinds)."""
        rt = self._rma
        space = self._addresses() if buf is BOTTOM or compare is BOTTOM or (
            result is not None and result[0] is BOTTOM) else None
        target = Target(world, disp, tcount, check_datatype(tdt))
        datatype = check_datatype(datatype)
        if call in ("MPI_Get", "MPI_Rget"):
            return kinds.reading(rt, self._port, win, call, where, target, buf, count, datatype,
                                 space)
        if op is not None and op != kinds.CAS:
            op = accumulate_op(op, call, result is not None)
        if result is None:
            return kinds.writing(rt, self._port, win, call, where, target, buf, count, datatype,
                                 op, space)
        rbuf, rcount, rdt = result
        return kinds.fetching(rt, self._port, win, call, where, target, buf, count, datatype, op,
                              (rbuf, rcount, check_datatype(rdt)), compare, space)

    # -- active target: fence (§12.5.1) and post/start/complete/wait (§12.5.2) ---------------
    def win_fence(self, assertion: int = 0, win: Any = None) -> Event:
        """MPI_Win_fence (§12.5.1, collective over the window): completes the operations of
        the epoch it closes, at every member; opens the next (MPI_MODE_NOSUCCEED: none).

        Parameters
        ----------
        assertion
            Assertions, ``ms.MODE_NOCHECK | ms.MODE_NOPRECEDE ...``
            (MPI_MODE_*), 0 by default (none).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_fence", win, assertion,
                          lambda w: active.fence(self._rma, self._port, w, assertion,
                                                 "MPI_Win_fence"))

    def win_start(self, group: Any, assertion: int = 0, win: Any = None) -> Event:
        """MPI_Win_start (§12.5.2): an access epoch to the processes of ``group`` (a Group,
        or a list of window ranks); returns once each of them has posted.

        Parameters
        ----------
        group
            The group (a ``Group``) of the processes of the epoch.
        assertion
            Assertions, ``ms.MODE_NOCHECK | ms.MODE_NOPRECEDE ...``
            (MPI_MODE_*), 0 by default (none).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_start", win, assertion,
                          lambda w: active.start(self._rma, self._port, w,
                                                 _members(w, group, "MPI_Win_start"),
                                                 "MPI_Win_start"))

    def win_complete(self, win: Any = None) -> Event:
        """MPI_Win_complete (§12.5.2): ends the access epoch once its operations are
        complete at their targets.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_complete", win, 0,
                          lambda w: active.complete(self._rma, self._port, w, "MPI_Win_complete"))

    def win_post(self, group: Any, assertion: int = 0, win: Any = None) -> Event:
        """MPI_Win_post (§12.5.2): an exposure epoch to the processes of ``group``; returns
        at once.

        Parameters
        ----------
        group
            The group (a ``Group``) of the processes of the epoch.
        assertion
            Assertions, ``ms.MODE_NOCHECK | ms.MODE_NOPRECEDE ...``
            (MPI_MODE_*), 0 by default (none).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_post", win, assertion,
                          lambda w: active.post(self._rma, self._port, w,
                                                _members(w, group, "MPI_Win_post"),
                                                "MPI_Win_post"))

    def win_wait(self, win: Any = None) -> Event:
        """MPI_Win_wait (§12.5.2): ends the exposure epoch once every origin of its group
        has completed.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_wait", win, 0,
                          lambda w: active.wait(self._rma, self._port, w, "MPI_Win_wait"))

    def win_test(self, win: Any = None) -> Event:
        """MPI_Win_test (§12.5.2): yields whether every origin has completed (the exposure
        epoch then ends, as with MPI_Win_wait); a test that finds not takes a poll's time.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.
        """
        def test(w: Any) -> Event:
            env = self._env
            if active.test(self._rma, self._port, w, "MPI_Win_test"):
                self._polling = False
                return done(env, True)
            # a poll that found nothing (the run's poll watch finds a loop that never ends)
            later = at(env, env._now + max(self._overhead, POLL_TIME), False)
            self._failed_poll(later)
            return later
        return self._sync("MPI_Win_test", win, 0, test)

    # -- passive target: locks (§12.5.3) and flushes (§12.5.4) --------------------------------
    def win_lock(self, target: int, lock_type: int = LOCK_EXCLUSIVE, assertion: int = 0,
                 win: Any = None) -> Event:
        """MPI_Win_lock (§12.5.3): an access epoch to ``target``, with its lock
        (``ms.LOCK_EXCLUSIVE`` or ``ms.LOCK_SHARED``); when it returns is the profile's
        ``rma_lock`` (eager: once granted; lazy: at once).

        Parameters
        ----------
        target
            Rank of the target process in the window's group.
        lock_type
            ``ms.LOCK_EXCLUSIVE`` (the default) or ``ms.LOCK_SHARED``.
        assertion
            Assertions, ``ms.MODE_NOCHECK | ms.MODE_NOPRECEDE ...``
            (MPI_MODE_*), 0 by default (none).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        where = self._site()
        return self._sync("MPI_Win_lock", win, assertion,
                          lambda w: passive.lock(self._rma, self._port, w,
                                                 _target(w, target, "MPI_Win_lock"),
                                                 _lock_type(lock_type), assertion, where,
                                                 "MPI_Win_lock"))

    def win_unlock(self, target: int, win: Any = None) -> Event:
        """MPI_Win_unlock (§12.5.3): ends the epoch once its operations to ``target`` are
        complete there, and releases the lock.

        Parameters
        ----------
        target
            Rank of the target process in the window's group.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_unlock", win, 0,
                          lambda w: passive.unlock(self._rma, self._port, w,
                                                   _target(w, target, "MPI_Win_unlock"),
                                                   "MPI_Win_unlock"))

    def win_lock_all(self, assertion: int = 0, win: Any = None) -> Event:
        """MPI_Win_lock_all (§12.5.3): a shared lock of every member of the window.

        Parameters
        ----------
        assertion
            Assertions, ``ms.MODE_NOCHECK | ms.MODE_NOPRECEDE ...``
            (MPI_MODE_*), 0 by default (none).
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        where = self._site()
        return self._sync("MPI_Win_lock_all", win, assertion,
                          lambda w: passive.lock_all(self._rma, self._port, w, assertion, where,
                                                     "MPI_Win_lock_all"))

    def win_unlock_all(self, win: Any = None) -> Event:
        """MPI_Win_unlock_all (§12.5.3): ends the lock_all epoch once its operations are
        complete, and releases every lock.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sync("MPI_Win_unlock_all", win, 0,
                          lambda w: passive.unlock_all(self._rma, self._port, w,
                                                       "MPI_Win_unlock_all"))

    def win_flush(self, target: int, win: Any = None) -> Event:
        """MPI_Win_flush (§12.5.4): the operations made so far to ``target`` complete
        there.

        Parameters
        ----------
        target
            Rank of the target process in the window's group.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._flush("MPI_Win_flush", target, False, win)

    def win_flush_all(self, win: Any = None) -> Event:
        """MPI_Win_flush_all (§12.5.4): the operations made so far complete at their
        targets.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._flush("MPI_Win_flush_all", None, False, win)

    def win_flush_local(self, target: int, win: Any = None) -> Event:
        """MPI_Win_flush_local (§12.5.4): the operations made so far to ``target`` complete
        locally (their buffers may be reused).

        Parameters
        ----------
        target
            Rank of the target process in the window's group.
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._flush("MPI_Win_flush_local", target, True, win)

    def win_flush_local_all(self, win: Any = None) -> Event:
        """MPI_Win_flush_local_all (§12.5.4): every operation made so far completes
        locally.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._flush("MPI_Win_flush_local_all", None, True, win)

    def _flush(self, call: str, target: Any, local: bool, win: Any) -> Event:
        return self._sync(call, win, 0, lambda w: passive.flush(
            self._rma, self._port, w, None if target is None else _target(w, target, call), local,
            call))

    def win_sync(self, win: Any = None) -> Event:
        """MPI_Win_sync (§12.5.4): synchronizes the public and private copies of the
        window, which are one memory in mpisim (MPI_WIN_UNIFIED): returns.

        Parameters
        ----------
        win
            The window (MPI_Win), as ``win_create`` and the like yield it;
            required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        def sync(w: Any) -> Event:
            self._enter("MPI_Win_sync")
            return at(self._env, self._env._now + self._overhead)
        return self._sync("MPI_Win_sync", win, 0, sync)

    def _site(self) -> Any:
        """Where the program makes the call (called by the call's own method)."""
        return self._where or program_site()

    def _sync(self, call: str, win: Any, assertion: Any, run: Any) -> Event:
        """A synchronization call: its window and assertion checked, then ``run(win)``;
        an MPI error is raised at the program's yield."""
        try:
            win = check_window(win, call)
            if isinstance(assertion, bool) or not isinstance(assertion, int | np.integer) \
                    or assertion & ~MODES:
                raise ErrAssert(f"{call}: {assertion!r} is not a combination of "
                                "MPI_MODE_* assertions (§12.5.5)")
            return run(win)
        except MPIError as e:
            self._proc.unyielded = False  # (run may have entered the call: still one call)
            self._enter(call)
            return failed(self._env, e)


def _size(call: str, size: Any, memory: np.ndarray | None) -> int:
    """A window's size in bytes: ``size``, or all of ``memory``; MPI_ERR_SIZE if negative
    or more than the memory holds."""
    if size is None:
        return 0 if memory is None else memory.size
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise ErrSize(f"{call}: size must be a non-negative integer, got {size!r}")
    if memory is not None and size > memory.size:
        raise ErrSize(f"{call}: size {size} is more than the {memory.size} bytes of its base")
    return int(size)


def _target(win: Any, rank: Any, call: str) -> int:
    """The world rank of window rank ``rank`` (PROC_NULL is no target here)."""
    world = target_rank(win, rank, call)
    if world == PROC_NULL:
        raise ErrArg(f"{call}: MPI_PROC_NULL is no target of a lock or flush")
    return world


def _lock_type(lock_type: Any) -> int:
    if lock_type not in (LOCK_EXCLUSIVE, LOCK_SHARED) or isinstance(lock_type, bool):
        raise ErrLocktype(f"MPI_Win_lock: {lock_type!r} is neither ms.LOCK_EXCLUSIVE nor "
                          "ms.LOCK_SHARED")
    return int(lock_type)


def _members(win: Any, group: Any, call: str) -> list[int]:
    """The world ranks of ``group`` (a Group, or window ranks), each a member of ``win``."""
    if isinstance(group, Group):
        members = list(group.members)
        outside = [w for w in members if w not in win.info.index]
        if outside:
            raise ErrGroup(f"{call}: ranks {outside} of the group are not in {win.name}")
        return members
    try:
        ranks = list(group)
    except TypeError:
        raise ErrGroup(f"{call}: {group!r} is not a group (a Group, or window ranks)") \
            from None
    return [target_rank(win, r, call) for r in ranks]


def _null_request(env: Any, call: str, rank: int) -> Event:
    """The Request of an operation toward MPI_PROC_NULL: complete at once."""
    req = Request("rma", call, rank, PROC_NULL, 0, 0)
    req.status = Status(PROC_NULL, -1, 0)
    req.known(env._now)
    return done(env, req)
