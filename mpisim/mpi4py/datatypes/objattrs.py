"""Attributes of datatypes and windows in the stand-in (MPI 4.1 §7.7.4 and §7.7.3):
``Datatype.Create_keyval``, ``Free_keyval``, ``Set_attr``, ``Get_attr``, ``Delete_attr``
and ``Win``'s.

A communicator's attributes live in the handle (:mod:`..MPI.attributes`); a datatype or window
attribute is only the process's own note on its handle, so the stand-in keeps them, per
rank (each rank is its own process; predefined datatypes are shared objects here), keyed by
the handle (``Datatype(x)`` copies share it). Each kind has its own keyvals, as in MPICH,
where a keyval names its kind and one of another kind is MPI_ERR_KEYVAL. Observed with
mpi4py 4.1.2 over MPICH 5.0.2: a predefined datatype takes attributes; ``Dup`` (and
``Create_dup``) copies them by each keyval's ``copy_fn`` (§7.7.4: MPI_Type_dup), no other
constructor does, ``Commit`` keeps them; ``Free`` calls the delete callbacks first; a
keyval freed while attributes use it keeps its callbacks for them; ``Delete_attr`` of an
attribute not set does nothing (Open MPI 5.0.11 raises MPI_ERR_OTHER); a ``nopython``
keyval holds C integers (``TypeError: an integer is required`` for anything else; a
negative one comes back as its 64-bit unsigned value). The callbacks run in the script, as
for communicators (:func:`guarded`, which :mod:`..MPI.attributes` shares).
"""

from __future__ import annotations

import traceback
from typing import Any

from ...mpi.attributes import KEYVAL_INVALID
from ..bridge import current
from ..exceptions import Exception as MPIException
from .integers import c_int

__all__ = ["LocalAttributeMethods", "copy_local_attributes", "delete_local_attributes", "guarded",
           "intptr"]

def intptr(value: Any) -> int:
    """A ``nopython`` attribute: a C integer the size of a pointer, as mpi4py stores it
    (read back unsigned: -7 is 2**64 - 7); what is no integer is ``TypeError: an integer
    is required`` (observed with mpi4py 4.1.2 over MPICH 5.0.2 and Open MPI 5.0.11)."""
    if not isinstance(value, int):
        try:
            value = c_int(value)
        except OverflowError:
            value = int(value)
    value = int(value)
    if not -(1 << 63) <= value < (1 << 64):
        raise OverflowError("value too large to convert to a C pointer")
    return value % (1 << 64)


def guarded(callback: Any, *args: Any) -> Any:
    """A callback's result; an exception it raises is printed (its traceback, on stderr)
    and becomes MPI.Exception of class MPI_ERR_OTHER, as mpi4py reports it."""
    try:
        return callback(*args)
    except Exception:
        traceback.print_exc()
        raise MPIException(f"the attribute callback {callback!r} raised", None,
                           "MPI_ERR_OTHER") from None


_FIRST = {"type": 0x24800000, "win": 0x24C00000}
"""The first keyval of each kind (MPICH's keyvals name their kind; the handle numbers
communicator keyvals from 0x24400000)."""


class _Keyval:
    """A datatype or window keyval: its callbacks, whether it holds C integers, and
    whether it was freed (its attributes stay, with their callbacks)."""

    __slots__ = ("copy_fn", "delete_fn", "freed", "nopython")

    def __init__(self, copy_fn: Any, delete_fn: Any, nopython: bool) -> None:
        self.copy_fn, self.delete_fn, self.nopython = copy_fn, delete_fn, nopython
        self.freed = False


def _keyvals(kind: str) -> dict[int, _Keyval]:
    """This rank's keyvals of ``kind``."""
    return current().state.setdefault(f"{kind}_keyvals", {})


def _values(kind: str, handle: Any) -> dict[int, Any]:
    """This rank's attributes on ``handle`` (a datatype's or window's handle)."""
    table = current().state.setdefault(f"{kind}_attributes", {})
    entry = table.get(id(handle))
    if entry is None or entry[0] is not handle:  # (the handle is kept: its id stays its)
        entry = table[id(handle)] = (handle, {})
    return entry[1]


def _keyval(kind: str, keyval: Any, live: bool = True) -> _Keyval:
    found = _keyvals(kind).get(keyval) if isinstance(keyval, int) else None
    if found is None or (live and found.freed):
        raise MPIException(f"Invalid keyval {keyval!r}", None, "MPI_ERR_KEYVAL")
    return found


class LocalAttributeMethods:
    """Attribute methods of ``Datatype`` and ``Win`` (needs ``_ATTR_KIND`` and
    ``_attr_handle()``: the handle, or the null object's MPI error)."""

    _ATTR_KIND = ""

    @classmethod
    def Create_keyval(cls, copy_fn: Any = None, delete_fn: Any = None,
                      nopython: bool = False) -> int:
        keyvals = _keyvals(cls._ATTR_KIND)
        number = _FIRST[cls._ATTR_KIND] + len(keyvals) + 1
        keyvals[number] = _Keyval(copy_fn, delete_fn, bool(nopython))
        return number

    @classmethod
    def Free_keyval(cls, keyval: int) -> int:
        _keyval(cls._ATTR_KIND, keyval).freed = True
        return KEYVAL_INVALID

    def _attrs(self) -> dict[int, Any]:
        return _values(self._ATTR_KIND, self._attr_handle())  # type: ignore[attr-defined]

    def Get_attr(self, keyval: int) -> Any:
        attrs = self._attrs()
        _keyval(self._ATTR_KIND, keyval, live=False)
        return attrs.get(keyval)

    def Set_attr(self, keyval: int, attrval: Any) -> None:
        attrs = self._attrs()
        k = _keyval(self._ATTR_KIND, keyval)
        if k.nopython:
            attrval = intptr(attrval)
        if keyval in attrs:
            _deleted(self, k, keyval, attrs.pop(keyval))
        attrs[keyval] = attrval

    def Delete_attr(self, keyval: int) -> None:
        attrs = self._attrs()
        k = _keyval(self._ATTR_KIND, keyval, live=False)
        if keyval in attrs:
            _deleted(self, k, keyval, attrs.pop(keyval))


def _deleted(obj: Any, k: _Keyval, keyval: int, value: Any) -> None:
    if callable(k.delete_fn):
        guarded(k.delete_fn, obj, keyval, value)


def copy_local_attributes(old: Any, made: Any) -> None:
    """What MPI_Type_dup copies (§7.7.4), by each keyval's ``copy_fn`` (called in the
    script: None or False, not copied; True, as is; else what it returns, not at all for
    NotImplemented)."""
    kind = old._ATTR_KIND
    source, target = old._attrs(), made._attrs()
    for keyval, value in list(source.items()):
        copy_fn = _keyvals(kind)[keyval].copy_fn
        if not copy_fn:
            continue
        copied = value if copy_fn is True else guarded(copy_fn, old, keyval, value)
        if copied is not NotImplemented:
            target[keyval] = copied


def delete_local_attributes(obj: Any) -> None:
    """Freeing a datatype or window deletes its attributes first, calling their delete
    callbacks (§7.7.4, §7.7.3)."""
    attrs = obj._attrs()
    for keyval in list(attrs):
        _deleted(obj, _keyvals(obj._ATTR_KIND)[keyval], keyval, attrs.pop(keyval))
