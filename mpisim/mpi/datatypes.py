"""MPI datatypes: basic and derived types, their sizes and bounds, packing numpy data.

Buffered mode sizes every entry with ``pack_size``, so these numbers decide when an
attached buffer overflows. Basic sizes are those of a 64-bit Linux ABI (LP64), as MPICH and
Open MPI report them there.

Size, bounds and extent, as the standard defines them (4.1 derived datatypes, 4.1.2
constructors, 4.1.6 markers, 4.1.7 extent, 4.1.8 true extent, 4.1.5 type size):

- ``size`` counts the bytes of data, each entry of the type map with its multiplicity;
  ``true_lb``/``true_extent`` bound the data alone.
- Every constructor other than struct places copies of its old type; each copy carries the
  old type's ``lb`` and ``ub`` (padding included), and the new ``lb``/``ub`` are the least lb
  and the largest ub of the copies (``vector(2, 1, 3)`` of DOUBLE: extent 32, not 48).
- ``create_resized`` and ``create_subarray`` (lb 0, extent of the whole array) set explicit
  lb/ub *markers*. Markers are sticky: once any member carries one, lb (ub) is decided by
  the markers alone (4.1.6).
- The epsilon rule (4.1): a struct with no markers has its extent rounded up to a multiple
  of the largest alignment among its basic types (LP64: alignment = size, complex = half
  its size, long double 16), so ``struct {double; char}`` has size 9 and extent 16, like
  the C struct. MPICH and Open MPI apply it at struct construction only; so does mpisim.

``type_size`` answers as a C ``int`` (``UNDEFINED`` above ``INT_MAX``, 4.1.5) and
``type_size_x`` as an ``MPI_Count``. ``pack_size`` adds nothing: packing is header-free, so
the bound is exactly ``count * size``; buffered-mode overhead is ``BSEND_OVERHEAD``'s job.

``pack``/``unpack`` read and write a contiguous numpy array through the type map (byte
``i * extent + displacement`` from its start); a type map that reaches outside the array is
MPI_ERR_ARG, never a stray memory access. A message may fill fewer elements than the
receive names, even part of one element, as long as it ends between two basic elements
(3.3.1 type matching: the sent signature is a prefix of the received one); ending inside a
basic element is MPI_ERR_TYPE, and more bytes than the receive holds is MPI_ERR_TRUNCATE
(3.2.4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .constants import INT_MAX, UNDEFINED
from .errors import ErrArg, ErrType
from .typemap import (
    Blocks,
    basic_blocks,
    check_message_size,
    count_arg,
    datatype_arg,
    merge,
    pack,
    replicate,
    unpack,
)

__all__ = ["BASIC_TYPES", "ORDER_C", "ORDER_FORTRAN", "Datatype", "check_committed",
           "check_message_size", "datatype_of", "pack", "pack_size", "type_size", "type_size_x",
           "unpack"]

ORDER_C = 56
"""Row-major storage for ``create_subarray`` (MPI_ORDER_C; value as in MPICH)."""
ORDER_FORTRAN = 57
"""Column-major storage for ``create_subarray`` (MPI_ORDER_FORTRAN; value as in MPICH)."""

COUNT_MAX = 2**63 - 1
"""Largest MPI_Count (int64)."""
AINT_LIMIT = 2**63
"""Displacements, bounds and sizes of a type stay in [-2**63, 2**63): MPI_Aint, MPI_Count."""


class Datatype:
    """An MPI datatype: a type map with size, extent and lower bound.

    Predefined types are committed from the start; derived types must be committed before
    they are used in communication, as in MPI. Derived types keep the tree they were built
    from (``_members``: old type, byte displacement of each run of copies, copies per run)
    and flatten it into byte blocks once, on first use. A program uses the predefined ones
    (``ms.INT``, ``ms.DOUBLE``...) and derives others with the ``create_*`` methods
    (sizes and displacements in bytes unless said otherwise).

    Parameters
    ----------
    name
        The name reports show (``"INT"``, ``"vector(4, 1, 8, DOUBLE)"``).
    size
        Its size in bytes.
    numpy_dtype
        The numpy dtype of one element, or None (a derived type: its data are packed
        through its type map).
    align
        Its alignment in bytes, for the padding of structs. Default: None, its size.
    """

    __slots__ = ("_align", "_blocks", "_lb_marked", "_members", "_predefined", "_ub_marked",
                 "committed", "extent", "lb", "name", "numpy_dtype", "size", "true_extent",
                 "true_lb")

    def __init__(self, name: str, size: int, numpy_dtype: np.dtype | None,
                 align: int | None = None) -> None:
        self.name = name
        self.size = size
        self.lb = 0
        self.extent = size
        self.true_lb = 0
        self.true_extent = size
        self.numpy_dtype = numpy_dtype
        self.committed = True
        self._predefined = True
        self._members: tuple[Any, ...] = ()
        self._align = align or max(size, 1)
        self._lb_marked = self._ub_marked = False
        self._blocks: Blocks | None = None

    @property
    def ub(self) -> int:
        """Upper bound: ``lb + extent``."""
        return self.lb + self.extent

    def commit(self) -> Datatype:
        """Commit the type for use in communication (MPI_Type_commit); returns it."""
        self.committed = True
        return self

    def typemap(self) -> Blocks:
        """The data of one element as byte blocks ``(offsets, lengths)`` in type-map order,
        computed once and cached."""
        if self._blocks is None:
            if not self._members:
                self._blocks = basic_blocks(self.size)
            else:
                parts = [replicate(old.typemap(), disps, counts, old.extent)
                         for old, disps, counts in self._members]
                self._blocks = merge(np.concatenate([p[0] for p in parts]),
                                     np.concatenate([p[1] for p in parts]))
        return self._blocks

    # -- constructors, named after MPI_Type_create_* -------------------------------------

    def create_contiguous(self, count: int) -> Datatype:
        """``count`` copies of this type, one after another (MPI_Type_contiguous).

        Parameters
        ----------
        count
            Number of copies, >= 0.
        """
        n = count_arg(count)
        return _derive(f"contiguous({n}, {self.name})", [(self, _arr([0]), _arr([n]))])

    def create_vector(self, count: int, blocklength: int, stride: int) -> Datatype:
        """``count`` blocks of ``blocklength`` copies, ``stride`` extents apart.

        Parameters
        ----------
        count
            Number of blocks, >= 0.
        blocklength
            Copies of this type in each block, >= 0.
        stride
            Distance between the starts of two blocks, in extents of this type (MPI_Type_vector).
        """
        return self._vector("vector", count, blocklength, stride, self.extent)

    def create_hvector(self, count: int, blocklength: int, stride: int) -> Datatype:
        """As ``create_vector``, with the stride in bytes.

        Parameters
        ----------
        count
            Number of blocks, >= 0.
        blocklength
            Copies of this type in each block, >= 0.
        stride
            Distance between the starts of two blocks, in bytes (MPI_Type_create_hvector).
        """
        return self._vector("hvector", count, blocklength, stride, 1)

    def create_indexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        """Blocks of copies at displacements counted in extents of this type.

        Parameters
        ----------
        blocklengths
            Copies of this type in each block, >= 0.
        displacements
            Where each block starts, in extents of this type (MPI_Type_indexed).
        """
        return self._indexed("indexed", _ints(blocklengths, "blocklengths", 0),
                             displacements, self.extent)

    def create_hindexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        """As ``create_indexed``, with displacements in bytes.

        Parameters
        ----------
        blocklengths
            Copies of this type in each block, >= 0.
        displacements
            Where each block starts, in bytes (MPI_Type_create_hindexed).
        """
        return self._indexed("hindexed", _ints(blocklengths, "blocklengths", 0),
                             displacements, 1)

    def create_indexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        """Blocks of one length at displacements counted in extents.

        Parameters
        ----------
        blocklength
            Copies of this type in every block, >= 0.
        displacements
            Where each block starts, in extents of this type (MPI_Type_create_indexed_block).
        """
        return self._indexed("indexed_block", _int(blocklength, "blocklength", 0),
                             displacements, self.extent)

    def create_hindexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        """Blocks of one length at displacements in bytes.

        Parameters
        ----------
        blocklength
            Copies of this type in every block, >= 0.
        displacements
            Where each block starts, in bytes (MPI_Type_create_hindexed_block).
        """
        return self._indexed("hindexed_block", _int(blocklength, "blocklength", 0),
                             displacements, 1)

    def create_resized(self, lb: int, extent: int) -> Datatype:
        """The same data with lower bound ``lb`` and extent ``extent`` set by markers.

        Parameters
        ----------
        lb
            The new lower bound, in bytes (MPI_Type_create_resized).
        extent
            The new extent, in bytes.
        """
        lb, extent = _int(lb, "lb"), _int(extent, "extent")
        t = _derive(f"resized({self.name}, {lb}, {extent})", [(self, _arr([0]), _arr([1]))])
        return _set_bounds(t, lb, extent)

    def create_subarray(self, sizes: Any, subsizes: Any, starts: Any,
                        order: int = ORDER_C) -> Datatype:
        """A block of a multidimensional array of this type: lb 0, extent the whole array.

        Parameters
        ----------
        sizes
            Elements of the whole array along each dimension (MPI_Type_create_subarray).
        subsizes
            Elements of the block along each dimension.
        starts
            Where the block starts along each dimension, from 0.
        order
            ``ms.ORDER_C`` (the default: the last dimension varies fastest) or
            ``ms.ORDER_FORTRAN`` (the first does).
        """
        full, sub, start = (_ints(sizes, "sizes", 1), _ints(subsizes, "subsizes", 1),
                            _ints(starts, "starts", 0))
        if not full.size == sub.size == start.size > 0:
            raise ErrArg("sizes, subsizes and starts must have the same length, at least 1")
        if np.any(start + sub > full):
            raise ErrArg(f"subarray {sub.tolist()} at {start.tolist()} does not fit in "
                         f"array {full.tolist()}")
        if order not in (ORDER_C, ORDER_FORTRAN):
            raise ErrArg(f"order must be ORDER_C or ORDER_FORTRAN, got {order!r}")
        if order == ORDER_FORTRAN:  # the first dimension varies fastest
            full, sub, start = full[::-1], sub[::-1], start[::-1]
        strides = np.ones(full.size, dtype=np.int64)  # in elements, C order
        strides[:-1] = np.cumprod(full[::-1])[::-1][1:]
        inner = self.create_contiguous(int(sub[-1]))
        for dim in range(full.size - 2, -1, -1):
            inner = inner.create_hvector(int(sub[dim]), 1, int(strides[dim]) * self.extent)
        offset = int(start @ strides) * self.extent
        name = (f"subarray({full.tolist()}, {sub.tolist()}, {start.tolist()}, "
                f"{'C' if order == ORDER_C else 'FORTRAN'}, {self.name})")
        t = _derive(name, [(inner, _arr([offset]), _arr([1]))])
        return _set_bounds(t, 0, int(np.prod(full)) * self.extent)

    @staticmethod
    def create_struct(blocklengths: Any, displacements: Any, types: Any) -> Datatype:
        """Blocks of different types at byte displacements (MPI_Type_create_struct); the
        extent is padded to the largest alignment (the epsilon rule, see the module doc).

        Parameters
        ----------
        blocklengths
            Elements in each block, >= 0.
        displacements
            Where each block starts, in bytes.
        types
            The datatype of each block.
        """
        counts = _ints(blocklengths, "blocklengths", 0)
        disps = _ints(displacements, "displacements")
        types = list(types)
        if not counts.size == disps.size == len(types):
            raise ErrArg(f"struct needs as many blocklengths ({counts.size}), displacements "
                         f"({disps.size}) and types ({len(types)})")
        for t in types:
            datatype_arg(t)
        members = [(t, disps[i:i + 1], counts[i:i + 1]) for i, t in enumerate(types)]
        name = f"struct({_seq(counts)}, {_seq(disps)}, [{', '.join(t.name for t in types)}])"
        return _derive(name, members, pad=True)

    def _vector(self, kind: str, count: int, blocklength: int, stride: int,
                unit: int) -> Datatype:
        n, bl, st = count_arg(count), _int(blocklength, "blocklength", 0), _int(stride, "stride")
        _aint(max(n - 1, 0) * st * unit, f"{kind}'s last displacement")
        # (a stride beyond 64 bits is harmless with fewer than two blocks: never a displacement)
        disps = np.arange(n, dtype=np.int64) * (st * unit) if n > 1 else _arr([0] * n)
        return _derive(f"{kind}({n}, {bl}, {st}, {self.name})",
                       [(self, disps, np.full(n, bl, dtype=np.int64))])

    def _indexed(self, kind: str, blocklengths: np.ndarray | int, displacements: Any,
                 unit: int) -> Datatype:
        disps = _ints(displacements, "displacements")
        counts = (np.full(disps.size, blocklengths, dtype=np.int64)
                  if isinstance(blocklengths, int) else blocklengths)
        if counts.size != disps.size:
            raise ErrArg(f"{kind} needs as many blocklengths ({counts.size}) as "
                         f"displacements ({disps.size})")
        if disps.size:
            _aint(max(abs(int(disps.min())), abs(int(disps.max()))) * unit,
                  f"{kind}'s displacement in bytes")
        return _derive(f"{kind}({_seq(counts)}, {_seq(disps)}, {self.name})",
                       [(self, disps * unit, counts)])

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str | tuple[Any, ...]:
        if self._predefined:  # pickled by name: the receiving process has the same object
            return self.name
        state = {k: getattr(self, k) for k in self.__slots__ if k != "_blocks"}
        return _restore, (state,)


def _restore(state: dict[str, Any]) -> Datatype:
    t = Datatype.__new__(Datatype)
    for key, value in state.items():
        setattr(t, key, value)
    t._blocks = None
    return t


def _derive(name: str, members: list[tuple[Datatype, np.ndarray, np.ndarray]], *,
            pad: bool = False) -> Datatype:
    """A new uncommitted type made of runs of copies of old types (see ``Datatype``)."""
    t = Datatype.__new__(Datatype)
    t.name, t.numpy_dtype, t.committed, t._predefined = name, None, False, False
    t._members, t._blocks = tuple(members), None
    size, data_lo, data_hi, align = 0, [], [], 1
    lbs: dict[bool, list[int]] = {False: [], True: []}
    ubs: dict[bool, list[int]] = {False: [], True: []}
    for old, disps, counts in members:
        span = (_span_small if disps.size <= _SMALL_RUNS else _span)(disps, counts, old.extent,
                                                                     name)
        if span is None:
            continue
        lo, hi, copies = span
        size += old.size * copies
        if old.size:
            data_lo.append(lo + old.true_lb)
            data_hi.append(hi + old.true_lb + old.true_extent)
        if old.size or old._lb_marked or old._ub_marked:
            lbs[old._lb_marked].append(lo + old.lb)
            ubs[old._ub_marked].append(hi + old.ub)
            align = max(align, old._align)
    t.size, t._align = size, align
    t.true_lb = min(data_lo, default=0)
    t.true_extent = max(data_hi, default=0) - t.true_lb
    t._lb_marked, t._ub_marked = bool(lbs[True]), bool(ubs[True])
    lb = min(lbs[True] or lbs[False], default=0)
    ub = max(ubs[True] or ubs[False], default=0)
    if pad and not (t._lb_marked or t._ub_marked) and ub > lb:
        ub += -(ub - lb) % align  # the epsilon rule
    t.lb, t.extent = lb, ub - lb
    for value, what in ((size, "size"), (lb, "lower bound"), (ub, "upper bound"),
                        (t.extent, "extent"), (t.true_lb, "true lower bound"),
                        (t.true_lb + t.true_extent, "true upper bound")):
        _aint(value, f"{name}'s {what}")
    return t


_SMALL_RUNS = 64
"""Members of at most this many runs are measured in plain Python: numpy's fixed cost a
call outweighs its speed on a handful of numbers (mpi4py.util.dtlib builds its types from
one- to few-run members); larger ones, as a long indexed type, with numpy."""


def _span(disps: np.ndarray, counts: np.ndarray, extent: int,
          name: str) -> tuple[int, int, int] | None:
    """Where the non-empty runs of copies of a member start (the least and the largest
    displacement of a copy, in bytes) and how many copies they hold; None if all are empty.
    The numpy path, for members of many runs."""
    live = counts > 0
    if not live.any():
        return None
    first = disps[live]
    reach = max(abs(int(first.min())), abs(int(first.max())))
    _aint(reach + (int(counts[live].max()) - 1) * abs(extent), f"{name}'s bounds")
    last = first + (counts[live] - 1) * extent
    return (int(min(first.min(), last.min())), int(max(first.max(), last.max())),
            int(counts[live].sum()))


def _span_small(disps: np.ndarray, counts: np.ndarray, extent: int,
                name: str) -> tuple[int, int, int] | None:
    """As ``_span``, in plain Python (the same numbers: tests/mpi/test_datatypes_paths.py)."""
    live = [(d, n) for d, n in zip(disps.tolist(), counts.tolist(), strict=True) if n > 0]
    if not live:
        return None
    firsts = [d for d, _ in live]
    first_lo, first_hi = min(firsts), max(firsts)
    reach = max(abs(first_lo), abs(first_hi))
    _aint(reach + (max(n for _, n in live) - 1) * abs(extent), f"{name}'s bounds")
    lasts = [d + (n - 1) * extent for d, n in live]
    return (min(first_lo, min(lasts)), max(first_hi, max(lasts)), sum(n for _, n in live))


def _aint(value: int, what: str) -> int:
    """``value`` if it fits an MPI_Aint / MPI_Count (64 bits, signed); else MPI_ERR_ARG.
    Sizes and bounds are computed from a type's description, never by expanding it, and no
    wider value reaches numpy (whose int64 arithmetic would wrap silently)."""
    if not -AINT_LIMIT <= value < AINT_LIMIT:
        raise ErrArg(f"{what} ({value}) does not fit in 64 bits (MPI_Aint)")
    return value


def _set_bounds(t: Datatype, lb: int, extent: int) -> Datatype:
    t.lb, t.extent = lb, extent
    t._lb_marked = t._ub_marked = True
    return t


def _arr(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _int(value: Any, what: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ErrArg(f"{what} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ErrArg(f"{what} must be at least {minimum}, got {value}")
    return int(value)


def _ints(values: Any, what: str, minimum: int | None = None) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1:
        out = values.astype(np.int64)
    else:
        try:
            out = _arr([_aint(_int(v, what), f"every entry of {what}") for v in values])
        except TypeError:
            raise ErrArg(f"{what} must be a sequence of integers, got {values!r}") from None
    if minimum is not None and out.size and out.min() < minimum:
        raise ErrArg(f"every entry of {what} must be at least {minimum}, got {out.min()}")
    return out


def _seq(values: np.ndarray) -> str:
    shown = ", ".join(str(v) for v in values[:4].tolist())
    return f"[{shown}{', ...' if values.size > 4 else ''}]"


# -- predefined types ---------------------------------------------------------------------

def _basic(name: str, size: int, dtype: str | None, align: int | None = None) -> Datatype:
    return Datatype(name, size, np.dtype(dtype) if dtype else None, align)


_LONG_DOUBLE = "longdouble" if np.dtype("longdouble").itemsize == 16 else None
_C_LONG_DOUBLE_COMPLEX = "clongdouble" if np.dtype("clongdouble").itemsize == 32 else None

BYTE = _basic("BYTE", 1, "u1")
PACKED = _basic("PACKED", 1, "u1")
CHAR = _basic("CHAR", 1, "S1")
SIGNED_CHAR = _basic("SIGNED_CHAR", 1, "i1")
UNSIGNED_CHAR = _basic("UNSIGNED_CHAR", 1, "u1")
WCHAR = _basic("WCHAR", 4, "U1")
SHORT = _basic("SHORT", 2, "i2")
UNSIGNED_SHORT = _basic("UNSIGNED_SHORT", 2, "u2")
INT = _basic("INT", 4, "i4")
UNSIGNED = _basic("UNSIGNED", 4, "u4")
LONG = _basic("LONG", 8, "i8")
UNSIGNED_LONG = _basic("UNSIGNED_LONG", 8, "u8")
LONG_LONG = _basic("LONG_LONG", 8, "i8")
UNSIGNED_LONG_LONG = _basic("UNSIGNED_LONG_LONG", 8, "u8")
FLOAT = _basic("FLOAT", 4, "f4")
DOUBLE = _basic("DOUBLE", 8, "f8")
LONG_DOUBLE = _basic("LONG_DOUBLE", 16, _LONG_DOUBLE)
C_BOOL = _basic("C_BOOL", 1, "?")
INT8_T = _basic("INT8_T", 1, "i1")
INT16_T = _basic("INT16_T", 2, "i2")
INT32_T = _basic("INT32_T", 4, "i4")
INT64_T = _basic("INT64_T", 8, "i8")
UINT8_T = _basic("UINT8_T", 1, "u1")
UINT16_T = _basic("UINT16_T", 2, "u2")
UINT32_T = _basic("UINT32_T", 4, "u4")
UINT64_T = _basic("UINT64_T", 8, "u8")
C_COMPLEX = _basic("C_COMPLEX", 8, "c8", 4)
C_FLOAT_COMPLEX = _basic("C_FLOAT_COMPLEX", 8, "c8", 4)
C_DOUBLE_COMPLEX = _basic("C_DOUBLE_COMPLEX", 16, "c16", 8)
C_LONG_DOUBLE_COMPLEX = _basic("C_LONG_DOUBLE_COMPLEX", 32, _C_LONG_DOUBLE_COMPLEX, 16)
AINT = _basic("AINT", 8, "i8")
OFFSET = _basic("OFFSET", 8, "i8")
COUNT = _basic("COUNT", 8, "i8")
INTEGER = _basic("INTEGER", 4, "i4")
REAL = _basic("REAL", 4, "f4")
DOUBLE_PRECISION = _basic("DOUBLE_PRECISION", 8, "f8")
COMPLEX = _basic("COMPLEX", 8, "c8", 4)
DOUBLE_COMPLEX = _basic("DOUBLE_COMPLEX", 16, "c16", 8)
LOGICAL = _basic("LOGICAL", 4, "i4")
CHARACTER = _basic("CHARACTER", 1, "S1")
INTEGER1 = _basic("INTEGER1", 1, "i1")
INTEGER2 = _basic("INTEGER2", 2, "i2")
INTEGER4 = _basic("INTEGER4", 4, "i4")
INTEGER8 = _basic("INTEGER8", 8, "i8")
REAL2 = _basic("REAL2", 2, "f2")
REAL4 = _basic("REAL4", 4, "f4")
REAL8 = _basic("REAL8", 8, "f8")
COMPLEX8 = _basic("COMPLEX8", 8, "c8", 4)
COMPLEX16 = _basic("COMPLEX16", 16, "c16", 8)
CXX_BOOL = _basic("CXX_BOOL", 1, "?")
CXX_FLOAT_COMPLEX = _basic("CXX_FLOAT_COMPLEX", 8, "c8", 4)
CXX_DOUBLE_COMPLEX = _basic("CXX_DOUBLE_COMPLEX", 16, "c16", 8)


def _pair(name: str, first: Datatype, second: Datatype, offset: int) -> Datatype:
    """A predefined value-index pair type (MINLOC/MAXLOC), laid out like its C struct."""
    t = Datatype.create_struct([1, 1], [0, offset], [first, second]).commit()
    t.name, t._predefined = name, True
    t.numpy_dtype = np.dtype({"names": ["value", "index"],
                              "formats": [first.numpy_dtype, second.numpy_dtype],
                              "offsets": [0, offset], "itemsize": t.extent})
    return t


FLOAT_INT = _pair("FLOAT_INT", FLOAT, INT, 4)
DOUBLE_INT = _pair("DOUBLE_INT", DOUBLE, INT, 8)
LONG_INT = _pair("LONG_INT", LONG, INT, 8)
SHORT_INT = _pair("SHORT_INT", SHORT, INT, 4)
TWOINT = _pair("TWOINT", INT, INT, 4)
TWOREAL = _pair("TWOREAL", REAL, REAL, 4)
TWODOUBLE_PRECISION = _pair("TWODOUBLE_PRECISION", DOUBLE_PRECISION, DOUBLE_PRECISION, 8)
TWOINTEGER = _pair("TWOINTEGER", INTEGER, INTEGER, 4)

BASIC_TYPES: dict[str, Datatype] = {
    name: t for name, t in globals().items()
    if isinstance(t, Datatype) and t._predefined and name == t.name
}
"""Every predefined datatype by its MPI name without the prefix (``MPI_2INT``: TWOINT)."""
__all__ += list(BASIC_TYPES)

# numpy dtype -> the datatype a C program would use for it (first match wins).
_FROM_NUMPY: dict[np.dtype, Datatype] = {}
for _t in (BYTE, SHORT, INT, LONG, UNSIGNED_SHORT, UNSIGNED, UNSIGNED_LONG, FLOAT, DOUBLE,
           LONG_DOUBLE, C_BOOL, INT8_T, C_FLOAT_COMPLEX, C_DOUBLE_COMPLEX,
           C_LONG_DOUBLE_COMPLEX, CHAR, WCHAR, REAL2, FLOAT_INT, DOUBLE_INT, SHORT_INT, TWOINT):
    if _t.numpy_dtype is not None:
        _FROM_NUMPY.setdefault(_t.numpy_dtype, _t)


def datatype_of(dtype: np.dtype | type | str) -> Datatype:
    """The MPI datatype for a numpy dtype (``np.float64`` -> DOUBLE).

    Parameters
    ----------
    dtype
        A numpy dtype, or what ``np.dtype`` takes (``np.int32``, ``"f8"``).

    Returns
    -------
    Datatype
        The predefined MPI datatype of that dtype (``ms.INT``, ``ms.DOUBLE``...).

    Raises
    ------
    ErrType
        A dtype with no MPI datatype.
    """
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise ErrType(f"{dtype!r} is not a numpy dtype") from None
    key = dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt
    try:
        return _FROM_NUMPY[key]
    except KeyError:
        raise ErrType(f"no MPI datatype for numpy dtype {dt}") from None


# -- sizes ---------------------------------------------------------------------------------

def type_size(datatype: Datatype) -> int:
    """Bytes of data in one element, as a C int: UNDEFINED above INT_MAX (4.1.5)."""
    size = datatype_arg(datatype).size
    return size if size <= INT_MAX else UNDEFINED


def type_size_x(datatype: Datatype) -> int:
    """Bytes of data in one element, as an MPI_Count (4.1.5)."""
    size = datatype_arg(datatype).size
    return size if size <= COUNT_MAX else UNDEFINED


def pack_size(count: int, datatype: Datatype) -> int:
    """Upper bound in bytes of ``count`` elements packed (MPI_Pack_size).

    mpisim packs without a header, so the bound is exact: ``count * datatype.size``.
    """
    return count_arg(count) * datatype_arg(datatype).size


def check_committed(datatype: Any) -> Datatype:
    """The datatype, if it may be used in communication; else MPI_ERR_TYPE."""
    if not datatype_arg(datatype).committed:
        raise ErrType(f"datatype {datatype.name} is not committed; call .commit() before "
                      "using it in communication")
    checked: Datatype = datatype
    return checked
