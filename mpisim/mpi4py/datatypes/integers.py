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
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["INT_MAX", "INT_MIN", "c_int", "index"]

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
"""A C int's range."""
_INT_MIN, _INT_MAX = INT_MIN, INT_MAX


def c_int(value: Any) -> int:
    """``value`` as mpi4py passes it to a C ``int`` parameter (see the module)."""
    if not isinstance(value, int):
        convert = getattr(type(value), "__int__", None)
        if convert is None or isinstance(value, str | bytes | bytearray):
            raise TypeError("an integer is required")
        value = convert(value)
        if not isinstance(value, int):
            raise TypeError("an integer is required")
    value = int(value)
    if not _INT_MIN <= value <= _INT_MAX:
        raise OverflowError("value too large to convert to int")
    return value


def index(value: Any) -> int:
    """``value`` as mpi4py reads a count of a buffer spec: ``operator.index``."""
    return operator.index(value)
