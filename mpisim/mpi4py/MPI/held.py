"""What ``MPI.Win`` and ``MPI.File`` of the stand-in share: each holds one object of the rank's
handle (a window, a file), ``None`` for its null (``MPI.WIN_NULL``, ``MPI.FILE_NULL``).

As in mpi4py, such an object is true unless null, equal to another holding the same handle
object, and pickles only as its null constant (``ValueError`` for any other).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Held"]


class Held:
    """Truth, equality, hash and pickling from ``_held`` (the handle's object, or None) and
    ``_NULL`` (the name of the null constant in the MPI module)."""

    _NULL = ""
    _family: type = object  # the class equality compares within (Win, File)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if Held in cls.__bases__:
            cls._family = cls

    @property
    def _held(self) -> Any:  # pragma: no cover - each class says where it keeps it
        raise NotImplementedError

    def __bool__(self) -> bool:
        return self._held is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self._family):
            return NotImplemented
        return self._held is other._held  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return id(self._held)

    def __reduce__(self) -> Any:
        if self._held is None:
            return self._NULL
        raise ValueError(f"cannot serialize {self!r}")
