"""Attributes and info hints of communicators in the ``mpi`` handle (MPI 4.1 §7.7, §9.1.2,
§10): keyvals, ``comm_set_attr``/``comm_get_attr``/``comm_delete_attr``, the predefined
attributes (``ms.TAG_UB``...: :mod:`mpisim.mpi.attributes` gives each library's values),
and the info objects (:class:`mpisim.mpi.info.Info`) with ``comm_set_info`` /
``comm_get_info``.

All are local calls (their value at once). A keyval's ``copy`` runs when ``comm_dup``
duplicates a communicator holding the attribute, its ``delete`` when the attribute is
deleted, replaced or its communicator freed; both run inside the engine, so they may not
make MPI calls (the mpi4py stand-in runs its own in the script,
:mod:`mpisim.mpi4py.MPI.attributes`).
"""

from __future__ import annotations

from typing import Any

from ..mpi.attributes import (
    APPNUM,
    FIRST_USER_KEYVAL,
    KEYVAL_INVALID,
    PREDEFINED,
    UNIVERSE_SIZE,
    Keyval,
    predefined_value,
)
from ..mpi.comm import Comm
from ..mpi.errors import ErrArg, ErrKeyval
from ..mpi.info import Info
from .base import HandleBase

__all__ = ["AttributeCalls", "InfoCalls"]

_PREDEFINED = frozenset(PREDEFINED.values())


class AttributeCalls(HandleBase):
    """MPI 4.1 §7.7: keyvals and communicator attributes."""

    __slots__ = ()

    _keyvals: dict[int, Keyval] | None = None  # this process's user keyvals
    _keyvals_made = 0  # keyvals made so far: a new one's number is never a freed one's, so
    # it neither replaces a live keyval nor sees attributes left under a freed one

    def comm_create_keyval(self, copy_fn: Any = None, delete_fn: Any = None) -> int:
        """MPI_Comm_create_keyval: a new keyval; ``copy_fn`` None/False (not copied by
        comm_dup), True (copied as is) or ``copy_fn(comm, keyval, value)`` giving the copy
        (NotImplemented: not copied); ``delete_fn(comm, keyval, value)`` on deletion.

        Parameters
        ----------
        copy_fn
            What ``comm_dup`` does with the attribute: None or False (the
            default), not copied; True, copied as is; a function ``copy_fn(comm,
            keyval, value)``, its result is the copy (NotImplemented: not
            copied).
        delete_fn
            Called as ``delete_fn(comm, keyval, value)`` when the attribute is
            deleted or its communicator freed; None (the default): nothing.
        """
        keyvals = self._keyvals if self._keyvals is not None else {}
        self._keyvals = keyvals
        self._keyvals_made += 1
        number = FIRST_USER_KEYVAL + self._keyvals_made
        keyvals[number] = Keyval(number, copy_fn, delete_fn)
        return number

    def comm_free_keyval(self, keyval: int) -> int:
        """MPI_Comm_free_keyval: the keyval may no longer be used to set attributes
        (those set stay until deleted); gives ``ms.KEYVAL_INVALID``.

        Parameters
        ----------
        keyval
            The key (from ``comm_create_keyval``, or a predefined one such as
            ``ms.TAG_UB``).
        """
        self._keyval(keyval, "comm_free_keyval")
        self._keyvals.pop(keyval)  # type: ignore[union-attr]
        return KEYVAL_INVALID

    def comm_set_attr(self, keyval: int, value: Any, comm: Comm | None = None) -> None:
        """MPI_Comm_set_attr: attach ``value`` under ``keyval`` (a value already there is
        deleted first, its delete callback called).

        Parameters
        ----------
        keyval
            The key (from ``comm_create_keyval``, or a predefined one such as
            ``ms.TAG_UB``).
        value
            The value attached (any object).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        if keyval in _PREDEFINED:
            raise ErrKeyval(f"comm_set_attr: {keyval:#x} is a predefined attribute")
        k = self._keyval(keyval, "comm_set_attr")
        attrs = c.attrs if c.attrs is not None else {}
        c.attrs = attrs
        if keyval in attrs:
            _deleted(c, k, attrs.pop(keyval))
        attrs[keyval] = value

    def comm_get_attr(self, keyval: int, comm: Comm | None = None) -> Any:
        """MPI_Comm_get_attr: the value, or None when it is not set (flag false). The
        predefined attributes, by keyval or by name (``"TAG_UB"``, ``"IO"``...; ``ms.TAG_UB``
        is the tag bound mpisim enforces, not a keyval), have the profile's library's values
        (mpisim.mpi.attributes).

        Parameters
        ----------
        keyval
            The key (from ``comm_create_keyval``, or a predefined one such as
            ``ms.TAG_UB``).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        keyval = PREDEFINED.get(keyval, keyval) if isinstance(keyval, str) else keyval
        if keyval in _PREDEFINED:
            family = self._config.profile.collectives_family
            world = c.info is self._comms.world or bool(c.attrs and c.attrs.get(_WORLDLY)) \
                or c.info is self.comm_world.info  # (a spawned process's own world)
            found, value = predefined_value(family, keyval, self.size, world)
            if found and keyval == APPNUM:  # a spawned process's command (MPI 4.1 §11.10.3)
                return getattr(self, "_appnum", value)
            universe = getattr(self, "_universe", None)  # the run's setting (§11.10.1)
            if keyval == UNIVERSE_SIZE and universe is not None and universe()[0]:
                return universe()[1] if world or family == "mpich" else None
            return value
        if not isinstance(keyval, int) or (keyval not in (self._keyvals or {})
                                           and keyval not in (c.attrs or {})):
            raise ErrKeyval(f"comm_get_attr: {keyval!r} is not a keyval")
        return (c.attrs or {}).get(keyval)

    def comm_delete_attr(self, keyval: int, comm: Comm | None = None) -> None:
        """MPI_Comm_delete_attr: remove the attribute, calling its delete callback.

        Parameters
        ----------
        keyval
            The key (from ``comm_create_keyval``, or a predefined one such as
            ``ms.TAG_UB``).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        if keyval in _PREDEFINED:
            raise ErrKeyval(f"comm_delete_attr: {keyval:#x} is a predefined attribute")
        attrs = c.attrs or {}
        if keyval not in attrs:
            raise ErrKeyval(f"comm_delete_attr: no attribute {keyval!r} on {c.name}")
        _deleted(c, (self._keyvals or {}).get(keyval), attrs.pop(keyval))

    def _keyval(self, keyval: Any, call: str) -> Keyval:
        found = (self._keyvals or {}).get(keyval) if isinstance(keyval, int) else None
        if found is None:
            raise ErrKeyval(f"{call}: {keyval!r} is not a keyval of this process")
        return found

    def _copy_attrs(self, parent: Comm, made: Comm) -> None:
        """What MPI_Comm_dup copies (§7.7.2): each attribute whose keyval says so, and the
        predefined ones of MPI_COMM_WORLD."""
        attrs: dict[Any, Any] = {}
        if parent.info is self._comms.world or (parent.attrs and parent.attrs.get(_WORLDLY)):
            attrs[_WORLDLY] = True
        for keyval, value in (parent.attrs or {}).items():
            k = (self._keyvals or {}).get(keyval)
            if k is None or not k.copy:
                continue
            copied = value if k.copy is True else k.copy(parent, keyval, value)
            if copied is not NotImplemented:
                attrs[keyval] = copied
        made.attrs = attrs or None

    def _delete_attrs(self, comm: Comm) -> None:
        """MPI_Comm_free deletes every attribute first (§7.7.2)."""
        for keyval, value in list((comm.attrs or {}).items()):
            if keyval != _WORLDLY:
                _deleted(comm, (self._keyvals or {}).get(keyval), value)
        comm.attrs = None


_WORLDLY = "predefined"
"""The mark a duplicate of MPI_COMM_WORLD carries: it holds the predefined attributes."""


def _deleted(comm: Comm, keyval: Keyval | None, value: Any) -> None:
    if keyval is not None and callable(keyval.delete):
        keyval.delete(comm, keyval.number, value)


class InfoCalls(HandleBase):
    """MPI 4.1 §10: info objects, and a communicator's hints (§7.4.4)."""

    __slots__ = ()

    def info_create(self) -> Info:
        """MPI_Info_create: an empty info object."""
        return Info()

    def info_set(self, info: Info, key: str, value: str) -> None:
        """MPI_Info_set.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        key
            The key (a string).
        value
            The value (a string).
        """
        _info(info).set(key, value)

    def info_get(self, info: Info, key: str) -> str | None:
        """MPI_Info_get (MPI 4.1: MPI_Info_get_string): the value, or None when the key is
        not set.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        key
            The key (a string).
        """
        return _info(info).get(key)

    def info_delete(self, info: Info, key: str) -> None:
        """MPI_Info_delete.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        key
            The key (a string).
        """
        _info(info).delete(key)

    def info_get_nkeys(self, info: Info) -> int:
        """MPI_Info_get_nkeys.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        """
        return _info(info).nkeys()

    def info_get_nthkey(self, info: Info, n: int) -> str:
        """MPI_Info_get_nthkey: the n-th key (from 0), in the order they were set.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        n
            Which key, from 0, in the order the keys were set.
        """
        return _info(info).nthkey(n)

    def info_dup(self, info: Info) -> Info:
        """MPI_Info_dup.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        """
        return _info(info).dup()

    def info_free(self, info: Info) -> None:
        """MPI_Info_free.

        Parameters
        ----------
        info
            The info object (MPI_Info), from ``info_create``.
        """
        _info(info).free()

    def comm_set_info(self, info: Info | None, comm: Comm | None = None) -> None:
        """MPI_Comm_set_info: the communicator's hints (mpisim reads none of them).

        Parameters
        ----------
        info
            The new hints, an ``Info``; mpisim reads none of them.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        c.hints = None if info is None else _info(info).dup()

    def comm_get_info(self, comm: Comm | None = None) -> Info:
        """MPI_Comm_get_info: a new info object with the hints the program set (MPICH and
        Open MPI add their own defaults, which mpisim has none of).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        c = self._comm(comm)
        return Info() if c.hints is None else c.hints.dup()


def _info(info: Any) -> Info:
    if not isinstance(info, Info):
        raise ErrArg(f"{info!r} is not an info object")
    return info
