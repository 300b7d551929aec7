"""Running a program with the size of its attached buffer replaced: what min-buffer probes.

Real codes attach their own buffer (``MPI_Buffer_attach(malloc(n), n)``), so min-buffer
searches the size *those* calls request rather than asking for a ``buffer`` key.
:class:`SizedAttach` wraps the rank programs (a picklable object, so it goes to worker
processes like any program) and, per rank, either

- replaces the size of every ``buffer_attach`` the program makes (the YAML op and the Python
  call alike: the handle's method is shadowed on that one rank's handle, so every other call
  costs what it did), recording where each call was and what it asked for; or
- when the program never attaches (``implicit``), attaches the size itself before the
  program starts, as the scenario key ``buffer`` does.

A rank whose size is None runs as written; KEEP records the rank's attach calls but lets
them ask for what they ask. A probe may also stop at the first overflow of a
counted rank even when the program catches it (MPI_ERRORS_RETURN): the overflow is raised as
:class:`ProbeOverflow`, which ends the run at once, since its verdict is already known.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.sites import file_line
from ..handle.access import port_of
from ..mpi.errors import ErrBuffer

__all__ = ["KEEP", "AttachSite", "ProbeOverflow", "SizedAttach"]

KEEP = -1
"""A size meaning: record the rank's attach calls, change nothing."""


@dataclass(frozen=True)
class AttachSite:
    """One ``buffer_attach`` call of the program: rank, location and the size it asked for."""

    rank: int
    where: str
    requested: Any

    def describe(self) -> str:
        asked = f"{self.requested} B" if isinstance(self.requested, int) else repr(self.requested)
        return f"buffer_attach at {self.where} (asks for {asked})"


class ProbeOverflow(BaseException):
    """A counted rank overflowed: the probe's verdict is known, the run need not go on.
    A BaseException, so that a program's ``except Exception`` does not swallow it."""


class SizedAttach:
    """The rank programs with the attach size of some ranks replaced (see the module)."""

    def __init__(self, program: Callable[..., Any] | Sequence[Callable[..., Any]],
                 sizes: Sequence[int | None], implicit: bool, stop_on_overflow: bool = False,
                 record: bool = False, buffer: str | None = None) -> None:
        self.program = program
        self.buffer = buffer  # "comm NAME": that communicator's buffer; None: the process's
        self.sizes = tuple(sizes)
        self.implicit = implicit
        self.stop_on_overflow = stop_on_overflow
        self.record = record
        self.sites: list[AttachSite] = []
        self.overflow: tuple[int, Any] | None = None
        self.__name__ = getattr(program, "__name__", "program")

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("sites", "overflow")} | \
            {"sites": [], "overflow": None}

    def _program_of(self, rank: int) -> Callable[..., Any]:
        program = self.program
        if callable(program):
            return program
        chosen: Callable[..., Any] = program[rank]  # one program per rank
        return chosen

    def __call__(self, mpi: Any, **params: Any) -> Any:
        program = self._program_of(mpi.rank)
        size = self.sizes[mpi.rank] if mpi.rank < len(self.sizes) else None
        if size is None:
            return program(mpi, **params)
        if self.stop_on_overflow:
            self._stop_on_overflow(mpi)
        if self.buffer is not None:
            self._shadow_comm_attach(mpi, size)
            return program(mpi, **params)
        if self.implicit and size != KEEP:
            return _attached_first(mpi, size, program, params)
        original = mpi.buffer_attach
        sites = self.sites if self.record else None

        imposed = size

        def buffer_attach(size: Any, buf: Any = None) -> Any:  # the handle's parameter names
            if sites is not None:
                sites.append(AttachSite(mpi.rank, _caller(mpi), size))
            return original(size if imposed == KEEP else imposed, buf)

        buffer_attach.__doc__ = original.__doc__
        mpi.buffer_attach = buffer_attach
        return program(mpi, **params)

    def _shadow_comm_attach(self, mpi: Any, size: int) -> None:
        """Replace the size of the comm_attach_buffer calls for the chosen communicator
        (``buffer`` is "comm NAME": the scenario's name for it, or MPI's)."""
        original, wanted = mpi.comm_attach_buffer, (self.buffer or "").removeprefix("comm ")
        sites = self.sites if self.record else None
        imposed = size

        def comm_attach_buffer(size: Any, comm: Any = None, buf: Any = None) -> Any:
            handle = mpi.comm_world if comm is None else comm
            if getattr(handle, "label_or_name", None) != wanted:
                return original(size, comm, buf)
            if sites is not None:
                sites.append(AttachSite(mpi.rank, _caller(mpi), size))
            return original(size if imposed == KEEP else imposed, comm, buf)

        mpi.comm_attach_buffer = comm_attach_buffer

    def _stop_on_overflow(self, mpi: Any) -> None:
        """Shadow bsend/ibsend on this handle: a refused entry ends the run at once (the
        MPIError, with the buffer's layout, is kept in ``overflow``)."""
        for name in ("bsend", "ibsend"):
            original = getattr(mpi, name)

            def call(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                ev = _original(*args, **kwargs)
                if ev._ok is False and isinstance(ev._value, ErrBuffer):
                    self.overflow = (mpi.rank, ev._value)
                    raise ProbeOverflow(ev._value.message)
                return ev

            setattr(mpi, name, call)


def _attached_first(mpi: Any, size: int, program: Callable[..., Any],
                    params: dict[str, Any]) -> Any:
    yield mpi.buffer_attach(size)
    body = program(mpi, **params)
    return (yield from body) if inspect.isgenerator(body) else body


def _caller(mpi: Any) -> str:
    """Where the attach was called: the scenario op (the port's ``where``, set by YAML
    programs just before the call) or the Python line that made it."""
    where = port_of(mpi).where
    if where:
        return str(where)
    frame = sys._getframe(2)
    return file_line(frame.f_code.co_filename, frame.f_lineno)  # (a notebook's: cell N, line L)
