"""Info objects (MPI 4.1 §10): ordered (key, value) pairs of strings, the hints a call may
take.

An :class:`Info` keeps its keys in the order they were first set (MPI_Info_get_nthkey
numbers them so). Keys are at most MPI_MAX_INFO_KEY (255) characters and values at most
MPI_MAX_INFO_VAL (1024, MPICH's), else MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE; deleting a
key that is not there is MPI_ERR_INFO_NOKEY. A freed Info refuses further use with
MPI_ERR_INFO. mpisim reads no hint (none changes how it simulates); calls accept an Info
wherever MPI takes one, and MPI_Comm_get_info gives back the hints the program set.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import ErrArg, ErrInfo, ErrInfoKey, ErrInfoNokey, ErrInfoValue

__all__ = ["MAX_INFO_KEY", "MAX_INFO_VAL", "Info"]

MAX_INFO_KEY = 255
"""MPI_MAX_INFO_KEY (MPICH's and Open MPI's)."""
MAX_INFO_VAL = 1024
"""MPI_MAX_INFO_VAL (MPICH's; Open MPI's is 256)."""


class Info:
    """One MPI_Info: string keys to string values, in the order they were set.

    ``mpi.info_create()`` makes an empty one; mpisim reads none of the hints.

    Parameters
    ----------
    items
        ``(key, value)`` pairs set first, in order (as :meth:`set` takes them). Default:
        none.
    """

    __slots__ = ("_items", "freed")

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._items: dict[str, str] = {}
        self.freed = False
        for key, value in items:
            self.set(key, value)

    def _live(self) -> dict[str, str]:
        if self.freed:
            raise ErrInfo("the info object was freed")
        return self._items

    def set(self, key: str, value: str) -> None:
        """MPI_Info_set.

        Parameters
        ----------
        key
            The key (a string of 1 to 255 characters).
        value
            The value (a string of at most 1024 characters; anything else is turned into
            one by ``str``).
        """
        items = self._live()
        key, value = str(key), str(value)
        if not key or len(key) > MAX_INFO_KEY:
            raise ErrInfoKey(f"info key {key!r}: 1 to {MAX_INFO_KEY} "
                         "characters")
        if len(value) > MAX_INFO_VAL:
            raise ErrInfoValue(f"info value of {key!r}: at most "
                         f"{MAX_INFO_VAL} characters")
        items[key] = value

    def get(self, key: str) -> str | None:
        """MPI_Info_get_string: the value, or None (flag false).

        Parameters
        ----------
        key
            The key (a string of 1 to 255 characters).
        """
        return self._live().get(str(key))

    def delete(self, key: str) -> None:
        """MPI_Info_delete (MPI_ERR_INFO_NOKEY when absent).

        Parameters
        ----------
        key
            The key (a string of 1 to 255 characters).
        """
        items = self._live()
        if str(key) not in items:
            raise ErrInfoNokey(f"info key {key!r} is not set")
        del items[str(key)]

    def nkeys(self) -> int:
        """MPI_Info_get_nkeys."""
        return len(self._live())

    def nthkey(self, n: int) -> str:
        """MPI_Info_get_nthkey: the n-th key set (from 0).

        Parameters
        ----------
        n
            Which key, from 0, in the order the keys were set.
        """
        keys = list(self._live())
        if not 0 <= n < len(keys):
            raise ErrArg(f"info key number {n}: the object has {len(keys)}")
        return keys[n]

    def items(self) -> list[tuple[str, str]]:
        return list(self._live().items())

    def dup(self) -> Info:
        """MPI_Info_dup: a new object with the same pairs, in the same order."""
        return Info(self.items())

    def free(self) -> None:
        """MPI_Info_free."""
        self._live()
        self.freed = True

    def __repr__(self) -> str:
        return "<Info freed>" if self.freed else f"<Info {self._items}>"
