"""Integer arguments as mpi4py converts them, so a script fails (or not) as under mpi4py.

mpi4py converts two kinds of integer arguments, differently (observed with mpi4py 4.1.2 on
MPICH 5.0.2; docs/guide/facts-collectives.md):

- a C ``int`` parameter (a collective's ``root``, ``Split``'s ``color`` and ``key``) goes
  through Cython's conversion, which takes anything with ``__int__``: Python and numpy
  integers, bools (numpy's too), and floats, truncated (``root=0.7`` is root 0), and
  refuses the rest (an object with only ``__index__``, a str, None) with ``TypeError: an
  integer is required``; outside a C int, ``OverflowError: value too large to convert to
  int``. :func:`c_int` does the same.
- a count in a buffer spec (``[buf, count, datatype]``, a v form's counts and
  displacements) goes through ``operator.index``: Python and numpy integers, not numpy
  bools nor floats (``TypeError: 'float' object cannot be interpreted as an integer``).
  :func:`index` does the same.
- an integer array (a Group's ranks, a datatype constructor's blocklengths and
  displacements, Reduce_scatter's recvcounts) is measured with ``len`` first (``TypeError:
  object of type 'float' has no len()``), then read item by item through ``operator.index``:
  :func:`c_ints`. An MPI_Aint or MPI_Offset (a window's size, a file offset, a datatype's
  stride or extent) converts as a C int does, over 64 bits: :func:`c_aint`.
- an object argument of a given class (an op, a request in a list, a datatype in a list)
  is refused by its type: ``TypeError: Argument 'op' has incorrect type (expected
  mpi4py.MPI.Op, got int)`` (:func:`typed`), ``TypeError: Cannot convert int to
  mpi4py.MPI.Request`` (:func:`converted`); a string argument (an Info key or value, a
  spawned command's argument) takes str or bytes: ``TypeError: expected bytes, int found``
  (:func:`c_str`). The messages name a type as CPython's C code does (:func:`tp_name`).
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["INT_MAX", "INT_MIN", "c_aint", "c_int", "c_ints", "c_str", "converted", "index",
           "pair", "sized", "tp_name", "typed", "unpacked"]

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
"""A C int's range."""
_INT_MIN, _INT_MAX = INT_MIN, INT_MAX


def c_int(value: Any, bits: int = 32) -> int:
    """``value`` as mpi4py passes it to a C ``int`` parameter (see the module); ``bits``
    64 for an MPI_Aint, MPI_Offset or MPI_Count."""
    if not isinstance(value, int):
        convert = getattr(type(value), "__int__", None)
        if convert is None or isinstance(value, str | bytes | bytearray):
            raise TypeError("an integer is required")
        value = convert(value)
        if not isinstance(value, int):
            raise TypeError("an integer is required")
    value = int(value)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise OverflowError("value too large to convert to int")
    return value


def c_aint(value: Any) -> int:
    """``value`` as mpi4py passes it to an MPI_Aint, MPI_Offset or MPI_Count parameter."""
    return c_int(value, 64)


def tp_name(value: Any) -> str:
    """The name CPython's C code gives ``value``'s type: a class written in Python by its
    name, a built-in one bare, another (numpy's) with its module; the stand-in's classes as
    mpi4py's (``mpi4py.MPI.Request``)."""
    t = type(value)
    module = t.__module__
    if module.startswith(("mpisim.mpi4py", "mpi4py")):
        return f"mpi4py.MPI.{t.__name__}"
    if t.__flags__ & (1 << 9) or module == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{module}.{t.__qualname__}"


def sized(values: Any) -> int:
    """``len(values)``, as mpi4py measures an array argument before reading it."""
    try:
        return len(values)
    except TypeError:
        raise TypeError(f"object of type '{tp_name(values)}' has no len()") from None


def c_ints(values: Any) -> list[int]:
    """An integer array argument as mpi4py reads one (see the module)."""
    sized(values)
    return [operator.index(v) for v in values]


def typed(value: Any, cls: type, name: str, none: bool = False) -> Any:
    """``value`` if it is a ``cls`` (or None where ``none``); else the TypeError of a typed
    Cython argument ``name``."""
    if isinstance(value, cls) or (none and value is None):
        return value
    raise TypeError(f"Argument '{name}' has incorrect type (expected mpi4py.MPI."
                    f"{cls.__name__}, got {tp_name(value)})")


def converted(value: Any, cls: type) -> Any:
    """``value`` if it is a ``cls``; else the TypeError of Cython's conversion of an item."""
    if isinstance(value, cls):
        return value
    raise TypeError(f"Cannot convert {tp_name(value)} to mpi4py.MPI.{cls.__name__}")


def c_str(value: Any) -> str:
    """A string argument as mpi4py converts one: a str (numpy's too) or bytes."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        return value.decode()
    raise TypeError(f"expected bytes, {tp_name(value)} found")


def index(value: Any) -> int:
    """``value`` as mpi4py reads a count of a buffer spec: ``operator.index``."""
    return operator.index(value)


def unpacked(item: Any, n: int) -> tuple[Any, ...]:
    """``item``'s ``n`` values, unpacked with Cython's messages (``ValueError: need more
    than 1 value to unpack``), as mpi4py unpacks a pair or a range's triple."""
    items = tuple(item)
    if len(items) < n:
        raise ValueError(f"need more than {len(items)} value{'' if len(items) == 1 else 's'} "
                         "to unpack")
    if len(items) > n:
        raise ValueError(f"too many values to unpack (expected {n})")
    return items


def pair(item: Any) -> tuple[Any, Any]:
    """``a, b = item`` (a (key, value) or a (count, displacement) pair): see unpacked."""
    first, second = unpacked(item, 2)
    return first, second
