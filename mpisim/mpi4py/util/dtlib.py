"""``mpi4py.util.dtlib`` for the stand-in: numpy dtypes to MPI datatypes and back.

``from_numpy_dtype(dtype)`` builds the MPI datatype of a numpy dtype as mpi4py 4.1's dtlib
does: a basic dtype is the predefined type of its character code (a duplicate of it), a
subarray dtype is a contiguous (1-d) or subarray datatype of its base, a structured dtype
a struct of its fields resized to the dtype's itemsize; object dtypes and non-native byte
orders are refused (ValueError). ``to_numpy_dtype(datatype)`` goes the other way through
``decode`` (named types by their typecode, the MINLOC/MAXLOC pairs as aligned two-field
structs, vectors and indexed types as structs of subarrays, a subarray only when it is the
whole array), ValueError for what numpy cannot describe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..datatypes.datatype import COMBINERS, DATATYPES, Datatype, typealign, typecode

_np_dtype: type[np.dtype[Any]] | None = np.dtype
"""NumPy's dtype; None as if NumPy were missing (mpi4py's own tests set it so)."""

__all__ = ["from_numpy_dtype", "to_numpy_dtype"]

_C = COMBINERS
_ORDER_FORTRAN = 57


def _is_aligned(datatype: Datatype, offset: int = 0) -> bool:
    """Whether every basic element of ``datatype`` placed at ``offset`` is aligned."""
    if datatype.is_predefined:
        return offset == 0 or offset % (typealign(datatype) or 0) == 0
    combiner = datatype.combiner
    basetype, _, info = datatype.decode()
    types, disps = [basetype], [0]
    if combiner == _C["RESIZED"]:
        disps = [info["extent"]]
    elif combiner == _C["STRUCT"]:
        types, disps = info["datatypes"], info["displacements"]
    elif combiner == _C["HVECTOR"]:
        disps = [info["stride"] if info["count"] > 1 else 0]
    elif combiner in (_C["HINDEXED"], _C["HINDEXED_BLOCK"]):
        disps = info["displacements"]
    return all(_is_aligned(t, offset + d) for t, d in zip(types, disps, strict=False))


def from_numpy_dtype(dtype: Any) -> Datatype:
    """The MPI datatype of a numpy dtype (see the module)."""
    if _np_dtype is None:
        raise RuntimeError("NumPy is not available") from None
    dtype = _np_dtype(dtype)
    if dtype.hasobject:
        raise ValueError("NumPy datatype with object entries")
    if not dtype.isnative:
        raise ValueError("NumPy datatype with non-native byteorder")
    if dtype.fields:
        types = [from_numpy_dtype(dtype.fields[name][0]) for name in dtype.names or ()]
        disps = [dtype.fields[name][1] for name in dtype.names or ()]
        struct = Datatype.Create_struct([1] * len(types), disps, types)
        return struct.Create_resized(0, dtype.itemsize)
    if dtype.subdtype:
        base, shape = dtype.subdtype
        inner = from_numpy_dtype(base)
        if len(shape) == 1:
            return inner.Create_contiguous(shape[0])
        return inner.Create_subarray(shape, shape, (0,) * len(shape))
    return Datatype.fromcode(dtype.char).Dup()


def to_numpy_dtype(datatype: Datatype) -> Any:
    """The numpy dtype of an MPI datatype (see the module)."""
    if not datatype:
        raise ValueError("cannot convert null MPI datatype to NumPy")
    combiner = datatype.combiner
    if combiner == _C["NAMED"]:
        return _named(datatype)
    basetype, _, info = datatype.decode()
    if combiner == _C["DUP"]:
        return to_numpy_dtype(basetype)
    if combiner == _C["CONTIGUOUS"]:
        return _np((to_numpy_dtype(basetype), (info["count"],)))
    if combiner == _C["SUBARRAY"]:
        sizes, subsizes, starts = info["sizes"], info["subsizes"], info["starts"]
        if subsizes == sizes and min(starts) == max(starts) == 0:
            if info["order"] == _ORDER_FORTRAN:
                sizes = sizes[::-1]
            return _np((to_numpy_dtype(basetype), tuple(sizes)))
        raise ValueError("cannot convert subarray MPI datatype to NumPy")
    aligned = True
    if combiner == _C["RESIZED"] and basetype.combiner == _C["STRUCT"]:
        aligned = _is_aligned(basetype, info["extent"])
        combiner, info = _C["STRUCT"], basetype.decode()[2]
    if combiner == _C["STRUCT"]:
        types, offsets = info["datatypes"], info["displacements"]
        formats = [_counted(t, n) for t, n in zip(types, info["blocklengths"], strict=True)]
        aligned &= all(_is_aligned(t, d) for t, d in zip(types, offsets, strict=True))
        return _np({"names": [f"f{i}" for i in range(len(types))], "formats": formats,
                    "offsets": offsets, "itemsize": datatype.extent, "aligned": aligned})
    if combiner in (_C["VECTOR"], _C["HVECTOR"]):
        return _vector(datatype, basetype, info, combiner == _C["VECTOR"])
    if combiner in (_C["INDEXED"], _C["HINDEXED"], _C["INDEXED_BLOCK"],
                    _C["HINDEXED_BLOCK"]):
        return _indexed(basetype, info, combiner)
    if combiner in (_C["F90_INTEGER"], _C["F90_REAL"], _C["F90_COMPLEX"]):
        return _np(typecode(datatype))
    raise ValueError("cannot convert MPI datatype to NumPy")


def _np(spec: Any, **kwargs: Any) -> Any:
    """A numpy dtype of ``spec`` (without NumPy: the spec itself, as mpi4py's dtlib)."""
    if _np_dtype is None:
        return spec if not kwargs else (spec, kwargs)
    return _np_dtype(spec, **kwargs)


def _counted(datatype: Datatype, count: int) -> Any:
    dtype = to_numpy_dtype(datatype)
    return dtype if count == 1 else (dtype, count)


def _named(datatype: Datatype) -> Any:
    """A named type: its typecode, or a MINLOC/MAXLOC pair as an aligned struct."""
    code = typecode(datatype)
    if code is not None:
        return _np(code)
    names = ("SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "LONG_DOUBLE")
    pairs = [DATATYPES[f"{name}_INT"] for name in names]
    value = DATATYPES[names[pairs.index(datatype)]]
    return _np(f"{typecode(value)},i", align=True)


def _vector(datatype: Datatype, basetype: Datatype, info: dict[str, Any],
            in_extents: bool) -> Any:
    count, stride = info["count"], info["stride"]
    if in_extents:
        stride *= basetype.extent
        aligned = _is_aligned(basetype)
    else:
        stride = stride if count > 1 else 0
        aligned = _is_aligned(basetype, stride)
    block = (to_numpy_dtype(basetype), (info["blocklength"],))
    return _np({"names": [f"f{i}" for i in range(count)], "formats": [block] * count,
                "offsets": [stride * i for i in range(count)],
                "itemsize": datatype.extent, "aligned": aligned})


def _indexed(basetype: Datatype, info: dict[str, Any], combiner: int) -> Any:
    dtype = to_numpy_dtype(basetype)
    disps = info["displacements"]
    lengths = info["blocklengths"] if "blocklengths" in info else \
        [info["blocklength"]] * len(disps)
    in_bytes = combiner in (_C["HINDEXED"], _C["HINDEXED_BLOCK"])
    stride = 1 if in_bytes else basetype.extent
    aligned = _is_aligned(basetype)
    if in_bytes:
        aligned &= all(_is_aligned(basetype, d) for d in disps)
    return _np({"names": [f"f{i}" for i in range(len(disps))],
                "formats": [(dtype, (n,)) for n in lengths],
                "offsets": [d * stride for d in disps], "aligned": aligned})

