"""``MPI.Info`` of the stand-in (MPI 4.1 §10): mpi4py's info object over the handle's
:class:`mpisim.mpi.info.Info`, with mpi4py's dictionary protocol.

As in mpi4py: ``MPI.Info()`` is a null object equal to MPI.INFO_NULL, ``Free`` turns the
object into a null one, ``Get`` gives None for a missing key, and the mapping methods
(``info[key]``, ``len``, ``in``, iteration over the keys, ``get``, ``keys``, ``values``,
``items``, ``pop``, ``popitem``, ``update``, ``copy``, ``clear``) work on a live object
and raise KeyError on MPI.INFO_NULL. MPI.INFO_NULL and MPI.INFO_ENV pickle as themselves;
another info object as a new one with the same pairs.

MPI.INFO_ENV is MPICH 5.0.2's: it holds no keys (Open MPI 5.0.11's has 12: ``command``,
``argv``, ``maxprocs``, ``host``... observed with mpi4py). An MPI error of an info call
(a key too long, deleting a missing key) is raised as MPI.Exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...mpi.errors import ErrInfo, MPIError
from ...mpi.info import Info as _Info
from ..datatypes.integers import c_str, pair
from ..exceptions import as_exception, unsupported

__all__ = ["INFO_ENV", "INFO_NULL", "Info", "handle_info"]

_MISSING = object()


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except MPIError as e:
        raise as_exception(e) from None


class Info:
    """mpi4py's MPI.Info."""

    _info: _Info | None = None

    def __init__(self, info: Any = None) -> None:
        if info is None:
            return
        if not isinstance(info, Info):
            raise TypeError(f"expecting an info object, got {type(info).__name__}")
        self._info = info._info

    @classmethod
    def _of(cls, info: _Info | None) -> Info:
        made = cls.__new__(cls)
        made._info = info
        return made

    @classmethod
    def Create(cls, items: Any = None) -> Info:
        """MPI_Info_create, filled with ``items`` (a mapping or (key, value) pairs)."""
        info = cls._of(_Info())
        if items is not None:
            info.update(items)
        return info

    @classmethod
    def Create_env(cls, args: Any = None) -> Info:
        """MPI_Info_create_env: MPICH's (no keys)."""
        return cls._of(_Info())

    def _live(self) -> _Info:
        if self._info is None:
            raise KeyError("MPI.INFO_NULL holds no keys")
        return self._info

    def __reduce__(self) -> Any:
        if self is INFO_NULL:
            return "INFO_NULL"
        if self is INFO_ENV:
            return "INFO_ENV"
        return (_restored, (None if self._info is None else self._info.items(),
                            self._info is _ENV))

    def __bool__(self) -> bool:
        return self._info is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Info) and self._info is other._info

    def __hash__(self) -> int:
        return id(self._info)

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Info {dict(self.items())}>" if self else "<mpi4py.MPI.INFO_NULL>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Info", name)

    # -- MPI calls -------------------------------------------------------------------------
    def Dup(self) -> Info:
        return Info._of(_call(self._g().dup))

    def Free(self) -> None:
        if self is INFO_ENV:
            return
        _call(self._g().free)
        self._info = None

    def Get(self, key: str) -> str | None:
        return _call(self._g().get, c_str(key))

    def Set(self, key: str, value: str) -> None:
        _call(self._g().set, c_str(key), c_str(value))

    def Delete(self, key: str) -> None:
        _call(self._g().delete, key)

    def Get_nkeys(self) -> int:
        return _call(self._g().nkeys)

    def Get_nthkey(self, n: int) -> str:
        return _call(self._g().nthkey, int(n))

    def _g(self) -> _Info:
        if self._info is None:
            raise as_exception(_null_error())
        return self._info

    # -- the mapping protocol --------------------------------------------------------------
    def __len__(self) -> int:
        return 0 if self._info is None else self._info.nkeys()

    def __contains__(self, key: object) -> bool:
        return self._info is not None and self._info.get(str(key)) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __getitem__(self, key: str) -> str:
        value = self._live().get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: str) -> None:
        _call(self._live().set, c_str(key), c_str(value))

    def __delitem__(self, key: str) -> None:
        info = self._live()
        if info.get(key) is None:
            raise KeyError(key)
        info.delete(key)

    def get(self, key: str, default: Any = None) -> Any:
        value = None if self._info is None else self._info.get(key)
        return default if value is None else value

    def keys(self) -> list[str]:
        return [k for k, _ in self.items()]

    def values(self) -> list[str]:
        return [v for _, v in self.items()]

    def items(self) -> list[tuple[str, str]]:
        return [] if self._info is None else self._info.items()

    def copy(self) -> Info:
        return Info._of(None if self._info is None else self._info.dup())

    def clear(self) -> None:
        if self._info is not None:
            for key in self.keys():
                self._info.delete(key)

    def update(self, other: Any = (), **kwargs: Any) -> None:
        info = self._live()
        if hasattr(other, "keys"):
            keys = other.keys()  # a mapping, an Info
            pairs = [(k, other[k]) for k in keys]
        else:  # (key, value) pairs, unpacked as mpi4py does
            pairs = [pair(item) for item in other]
        for key, value in [*pairs, *kwargs.items()]:
            _call(info.set, c_str(key), c_str(value))

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        value = None if self._info is None else self._info.get(key)
        if value is None:
            if default is _MISSING:
                raise KeyError(key)
            return default
        self._info.delete(key)  # type: ignore[union-attr]
        return value

    def popitem(self) -> tuple[str, str]:
        items = self._live().items()
        if not items:
            raise KeyError("popitem(): info is empty")
        key, value = items[-1]
        self._info.delete(key)  # type: ignore[union-attr]
        return key, value


def _null_error() -> MPIError:
    return ErrInfo("invalid info object (MPI_INFO_NULL)")


def _restored(items: Any, env: bool) -> Info:
    if env:
        return Info._of(_ENV)
    return Info._of(None if items is None else _Info(items))


def handle_info(info: Any) -> _Info | None:
    """The handle's Info of an ``info=`` argument (None and MPI.INFO_NULL: none)."""
    if info is None or not isinstance(info, Info):
        return None
    return info._info


_ENV = _Info()
INFO_NULL = Info()
INFO_ENV = Info._of(_ENV)
