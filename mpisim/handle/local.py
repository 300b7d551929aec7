"""Local calls of the ``mpi`` handle: ``compute`` (time outside MPI) and the datatype and
address queries of MPI 4.1 §5.1 and §4.1.5, which return their value at once (no yield)."""

from __future__ import annotations

import math
from typing import Any

from simpy.events import Event

from ..engine.clock import at, failed
from ..mpi import addresses as _addr
from ..mpi import datatypes as _dt
from ..mpi.errors import ErrArg
from ..values.units import UnitError, parse_time
from .base import HandleBase

__all__ = ["LocalCalls"]


class LocalCalls(HandleBase):
    """``compute``, ``type_size``, ``pack_size``, ``get_address``, ``aint_*``."""

    __slots__ = ()

    def compute(self, seconds: float | str) -> Event:
        """Keep this rank busy for ``seconds`` of simulated time: outside MPI, so it makes
        no progress (messages that need it wait for its next call, see p2p.progress).

        Parameters
        ----------
        seconds
            Simulated time, in seconds (``1e-3``) or with a unit (``"1ms"``,
            ``"20us"``).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        self._enter("compute")
        if seconds.__class__ is not float or not 0.0 <= seconds < math.inf:  # (a float in
            try:  # range is parse_time's answer as it is: a replay's every gap)
                seconds = parse_time(seconds)
            except UnitError as e:
                return failed(self._env, ErrArg(f"compute: {e}"))
        end = self._env._now + seconds
        if end == math.inf:
            return failed(self._env, ErrArg(f"compute: the simulated clock would overflow "
                                           f"({self._env._now:.6g} s + {seconds:.6g} s)"))
        progress = self._tp.progress
        if progress is not None and seconds > 0:
            progress.computing[self.rank] = True
        return at(self._env, end, None)


    def type_size(self, datatype: Any) -> int:
        """MPI_Type_size: a C int; UNDEFINED when the size does not fit (4.1.5).

        Parameters
        ----------
        datatype
            An MPI datatype (``ms.INT``, a derived type...).
        """
        return _dt.type_size(datatype)


    def type_size_x(self, datatype: Any) -> int:
        """MPI_Type_size_x: the size as an MPI_Count.

        Parameters
        ----------
        datatype
            An MPI datatype (``ms.INT``, a derived type...).
        """
        return _dt.type_size_x(datatype)


    def pack_size(self, count: int, datatype: Any) -> int:
        """MPI_Pack_size: an upper bound of the packed size (exact in mpisim).

        Parameters
        ----------
        count
            Number of elements.
        datatype
            An MPI datatype (``ms.INT``, a derived type...).
        """
        return _dt.pack_size(count, datatype)


    def get_address(self, location: Any, index: Any = None) -> int:
        """MPI_Get_address of an element of a numpy array.

        Parameters
        ----------
        location
            A numpy array.
        index
            The element's index: an int or a tuple of ints (negative counts from
            the end, as in numpy); None (the default): the first element.
        """
        return self._addresses().get_address(location, index)


    @staticmethod
    def aint_add(base: int, disp: int) -> int:
        """MPI_Aint_add.

        Parameters
        ----------
        base
            An address (as ``get_address`` gives).
        disp
            A displacement in bytes.
        """
        return _addr.aint_add(base, disp)


    @staticmethod
    def aint_diff(addr1: int, addr2: int) -> int:
        """MPI_Aint_diff.

        Parameters
        ----------
        addr1
            An address.
        addr2
            The address subtracted.
        """
        return _addr.aint_diff(addr1, addr2)
