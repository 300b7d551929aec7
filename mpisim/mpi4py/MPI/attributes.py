"""Communicator attributes in the stand-in (MPI 4.1 §7.7): mpi4py's ``Create_keyval``,
``Free_keyval``, ``Set_attr``, ``Get_attr`` and ``Delete_attr`` of ``Comm``.

The values are the handle's (:mod:`mpisim.handle.attributes`, where the predefined
attributes ``MPI.TAG_UB``, ``MPI.IO``... have the profile's library's values). The
callbacks are mpi4py's and run in the script, where they may make MPI calls (a copy
function that duplicates a communicator): ``copy_fn`` None or False (the attribute is not
copied by ``Dup``), True (copied as is) or ``copy_fn(comm, keyval, value)`` (copied as
what it returns, not at all for NotImplemented); ``delete_fn(comm, keyval, value)`` when
the attribute is deleted, replaced, or its communicator freed. ``nopython`` keyvals hold
integers; here every value is a Python object, so they behave alike.
"""

from __future__ import annotations

from typing import Any

from ...mpi.attributes import KEYVAL_INVALID, PREDEFINED
from ...mpi.errors import MPIError
from ..bridge import current
from ..datatypes.objattrs import guarded, intptr
from ..exceptions import as_exception

__all__ = ["AttributeMethods", "copy_attributes", "delete_attributes", "guarded", "intptr"]


def _callbacks() -> dict[int, tuple[Any, Any]]:
    """This rank's keyvals' (copy_fn, delete_fn)."""
    return current().__dict__.setdefault("keyvals", {})


def _nopython() -> set[int]:
    """This rank's keyvals made with ``nopython=True`` (their values are C integers)."""
    return current().__dict__.setdefault("nopython_keyvals", set())


def _local(call: str, *args: Any, **kwargs: Any) -> Any:
    try:
        return getattr(current().plain(), call)(*args, **kwargs)
    except MPIError as e:
        raise as_exception(e) from None


class AttributeMethods:
    """Comm's attribute methods (needs ``_comm``)."""

    @classmethod
    def Create_keyval(cls, copy_fn: Any = None, delete_fn: Any = None,
                      nopython: bool = False) -> int:
        keyval = _local("comm_create_keyval")
        _callbacks()[keyval] = (copy_fn, delete_fn)
        if nopython:
            _nopython().add(keyval)
        return keyval

    @classmethod
    def Free_keyval(cls, keyval: int) -> int:
        _local("comm_free_keyval", keyval)
        _callbacks().pop(keyval, None)
        _nopython().discard(keyval)  # the handle gives its number to a later keyval
        return KEYVAL_INVALID

    def Get_attr(self, keyval: int) -> Any:
        mpi = current().plain()
        return _local("comm_get_attr", keyval, comm=self._comm(mpi))  # type: ignore[attr-defined]

    def Set_attr(self, keyval: int, attrval: Any) -> None:
        comm = self._comm(current().plain())  # type: ignore[attr-defined]
        old = (comm.attrs or {}).get(keyval, _NONE)
        if old is not _NONE:
            _deleted(self, keyval, old)
        if keyval in _nopython():
            attrval = intptr(attrval)
        _local("comm_set_attr", keyval, attrval, comm=comm)

    def Delete_attr(self, keyval: int) -> None:
        comm = self._comm(current().plain())  # type: ignore[attr-defined]
        value = (comm.attrs or {}).get(keyval, _NONE)
        if value is _NONE and keyval not in _PREDEFINED:
            # not set: nothing to delete (MPICH 5.0.2; Open MPI 5.0.11 raises
            # MPI_ERR_OTHER), but a keyval that is none is MPI_ERR_KEYVAL
            _local("comm_get_attr", keyval, comm=comm)
            return
        _local("comm_delete_attr", keyval, comm=comm)
        if value is not _NONE:
            _deleted(self, keyval, value)


_NONE = object()
_PREDEFINED = frozenset(PREDEFINED.values())


def _deleted(comm: Any, keyval: int, value: Any) -> None:
    delete_fn = _callbacks().get(keyval, (None, None))[1]
    if callable(delete_fn):
        guarded(delete_fn, comm, keyval, value)


def copy_attributes(parent: Any, made: Any) -> None:
    """What ``Dup`` copies, by each keyval's ``copy_fn`` (called in the script)."""
    mpi = current().plain()
    source, target = parent._comm(mpi), made._comm(mpi)
    for keyval, (copy_fn, _) in _callbacks().items():
        value = (source.attrs or {}).get(keyval, _NONE)
        if value is _NONE or not copy_fn:
            continue
        copied = value if copy_fn is True else guarded(copy_fn, parent, keyval, value)
        if copied is not NotImplemented:
            _local("comm_set_attr", keyval, copied, comm=target)


def delete_attributes(comm: Any) -> None:
    """``Free`` deletes every attribute first, calling the delete functions (§7.7.2)."""
    handle = comm._comm(current().plain())
    for keyval in list(_callbacks()):
        value = (handle.attrs or {}).get(keyval, _NONE)
        if value is not _NONE:
            _local("comm_delete_attr", keyval, comm=handle)
            _deleted(comm, keyval, value)
