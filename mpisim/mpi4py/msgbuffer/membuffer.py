"""``MPI.buffer`` (alias ``MPI.memory``) of the stand-in: a view of bytes in memory.

mpi4py's ``buffer`` is a byte view with the buffer protocol (``MPI.buffer.allocate(n)``,
``MPI.buffer.frombuffer(obj)``, ``MPI.buffer(obj)``; ``address``, ``obj``, ``nbytes``,
``readonly``, ``tobytes``, ``toreadonly``, ``cast``, ``release``). Here it is a
one-dimensional uint8 numpy array (numpy arrays have the buffer protocol), sharing the
memory of the object it was made from, so anything that takes a buffer takes it and a
write through it lands in that object.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["buffer"]


class buffer(np.ndarray):
    """mpi4py's MPI.buffer (see the module)."""

    def __new__(cls, obj: Any = None) -> buffer:
        return cls.frombuffer(b"" if obj is None else obj)

    @classmethod
    def allocate(cls, nbytes: int, clear: bool = False) -> buffer:
        """``nbytes`` new bytes (zeroed either way)."""
        if nbytes < 0:
            raise ValueError("expecting non-negative size")
        return np.zeros(int(nbytes), dtype=np.uint8).view(cls)

    @classmethod
    def frombuffer(cls, obj: Any, readonly: bool = False) -> buffer:
        """The bytes of ``obj`` (anything with the buffer protocol), shared; mpi4py's
        errors for an object that is not contiguous, or not writable unless ``readonly``."""
        from .p2p import raw

        made = raw(obj, readonly)[0].view(cls)
        if readonly:
            made.flags.writeable = False
        return made

    @classmethod
    def fromaddress(cls, address: int, nbytes: int, readonly: bool = False) -> buffer:
        raise BufferError("MPI.buffer.fromaddress: the simulator reads no raw memory")

    @property
    def address(self) -> int:
        return self.__array_interface__["data"][0]

    @property
    def obj(self) -> Any:
        return self.base

    @property
    def readonly(self) -> bool:
        return not self.flags.writeable

    @property
    def format(self) -> str:
        return "B"

    def tobytes(self, order: str | None = None) -> bytes:
        """The bytes (``order`` is ignored, as in mpi4py)."""
        return np.ndarray.tobytes(self)

    def toreadonly(self) -> buffer:
        made = self.view(type(self))
        made.flags.writeable = False
        return made

    def release(self) -> None:
        """Nothing to release: the memory is the object's."""

    def __bool__(self) -> bool:
        """True when it holds any byte (mpi4py's buffer is a sized object): an array of
        many elements would have no truth value."""
        return self.nbytes > 0

    def cast(self, format: str, shape: Any = None) -> memoryview:
        # numpy's stubs: no __buffer__ before 3.12; typeshed's cast takes literal formats
        view = memoryview(self).cast("B").cast(format)  # type: ignore[arg-type, call-overload]
        return view if shape is None else view.cast("B").cast(format, shape)

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.buffer {self.nbytes} bytes>"


buffer.__module__ = "mpi4py.MPI"
