"""mpi4py's MPI.Datatype in the stand-in.

A :class:`Datatype` wraps one of mpisim's datatypes with mpi4py's methods (``Get_size``,
``Get_extent``, ``Create_vector(...).Commit()``, ``Get_envelope``, ``decode``, ``tocode``,
pickling...); the predefined ones are :mod:`.predefined`'s table. The buffer specs that
name a datatype are read in :mod:`..msgbuffer.p2p` (point-to-point) and
:mod:`..msgbuffer.collective` (collectives); the reduction ops are :mod:`..MPI.op`'s.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ...handle.access import port_of
from ...mpi import datatypes as _dt
from ...mpi.errors import MPIError
from ..exceptions import Exception as MPIException
from ..exceptions import Unsupporting, as_exception, unsupported
from . import darray
from .integers import c_aint, c_int, converted, sized
from .objattrs import LocalAttributeMethods, copy_local_attributes, delete_local_attributes
from .predefined import ALIASES, NULL, TABLE, backing
from .typecodes import TABLE as _TYPECODES
from .typecodes import lookup
from .typecodes import typedict as _typedict

__all__ = ["COMBINERS", "CONSTANTS", "DATATYPES", "TYPEDICT", "Datatype", "lookup",
           "typealign", "typecode"]


COMBINERS = {
    "NAMED": 1, "DUP": 2, "CONTIGUOUS": 3, "VECTOR": 4, "HVECTOR": 6, "INDEXED": 7,
    "HINDEXED": 9, "INDEXED_BLOCK": 10, "STRUCT": 12, "SUBARRAY": 13, "DARRAY": 14,
    "F90_REAL": 15, "F90_COMPLEX": 16, "F90_INTEGER": 17, "RESIZED": 18,
    "HINDEXED_BLOCK": 19, "VALUE_INDEX": 20,
}
"""MPI_COMBINER_* (MPICH's values): how a datatype was made (MPI 4.1 §5.1.13)."""

CONSTANTS: dict[str, int] = {f"COMBINER_{name}": value for name, value in COMBINERS.items()}
CONSTANTS.update(TYPECLASS_REAL=1, TYPECLASS_INTEGER=2, TYPECLASS_COMPLEX=3,
                 TYPECLASS_LOGICAL=4, DISTRIBUTE_BLOCK=121, DISTRIBUTE_CYCLIC=122,
                 DISTRIBUTE_NONE=123, DISTRIBUTE_DFLT_DARG=-49767)
"""The datatype chapter's constants of ``mpi4py.MPI`` (MPICH's values)."""

_PREDEFINED = ("NAMED", "F90_INTEGER", "F90_REAL", "F90_COMPLEX", "VALUE_INDEX")


class _Handle:
    """One MPI datatype handle: what ``MPI.Datatype(x)`` copies share, and what
    MPI_Type_get_envelope/get_contents report of it."""

    __slots__ = ("combiner", "freed", "key", "name", "old", "params", "t")

    def __init__(self, t: _dt.Datatype | None, combiner: str,
                 params: dict[str, Any] | None = None, old: _Handle | None = None,
                 name: str = "", key: str | None = None) -> None:
        self.t = t                # the mpisim datatype
        self.combiner = combiner  # a key of COMBINERS
        self.params = params or {}  # decode()'s parameters (struct: with "datatypes")
        self.old = old            # the old type's handle (DUP, CONTIGUOUS, ...)
        self.name = name          # MPI_Type_get_name
        self.key = key            # MPI.<key> for a named type
        self.freed = False        # Free was called (a committed one never freed leaks)


_NULL = _Handle(None, "NAMED", name="MPI_DATATYPE_NULL", key="DATATYPE_NULL")


class Datatype(LocalAttributeMethods, metaclass=Unsupporting):
    """mpi4py's MPI.Datatype over an mpisim datatype.

    ``MPI.Datatype(other)`` is another reference to the same handle (equal, not the same
    object); ``Free`` makes this reference MPI_DATATYPE_NULL. Derived types keep how they
    were made, so ``Get_envelope``, ``Get_contents`` and ``decode`` answer as MPICH's large-
    count functions do (counts and displacements in the ``counts`` list), and a derived type
    pickles as its recipe. Named types pickle by name (``loads(dumps(MPI.INT)) is MPI.INT``).
    """

    _h: _Handle
    _ATTR_KIND = "type"

    def __init__(self, datatype: Datatype | None = None) -> None:
        if datatype is None:
            self._h = _NULL
        elif isinstance(datatype, Datatype):
            self._h = datatype._h
        else:
            raise TypeError(f"Argument 'datatype' has incorrect type (expected "
                            f"mpi4py.MPI.Datatype, got {type(datatype).__name__})")

    @classmethod
    def _of(cls, handle: _Handle) -> Datatype:
        obj = cls.__new__(cls)
        obj._h = handle
        return obj

    @property
    def _t(self) -> Any:
        """The mpisim datatype (None for MPI_DATATYPE_NULL)."""
        return self._h.t

    def _attr_handle(self) -> _Handle:
        """The handle its attributes are on (MPI_ERR_TYPE for MPI_DATATYPE_NULL)."""
        self._type()
        return self._h

    def _type(self) -> _dt.Datatype:
        t = self._h.t
        if t is None:
            raise MPIException("invalid datatype (MPI_DATATYPE_NULL)", None, "MPI_ERR_TYPE")
        return t

    # -- queries -------------------------------------------------------------------------
    def Get_size(self) -> int:
        return _dt.type_size_x(self._type())

    def Get_extent(self) -> tuple[int, int]:
        t = self._type()
        return t.lb, t.extent

    def Get_true_extent(self) -> tuple[int, int]:
        t = self._type()
        return t.true_lb, t.true_extent

    def Pack_size(self, count: int, comm: Any = None) -> int:
        return _call(_dt.pack_size, count, self._type())

    size = property(Get_size)
    extent = property(lambda self: self.Get_extent()[1])
    lb = property(lambda self: self.Get_extent()[0])
    ub = property(lambda self: sum(self.Get_extent()))
    true_extent = property(lambda self: self.Get_true_extent()[1])
    true_lb = property(lambda self: self.Get_true_extent()[0])
    true_ub = property(lambda self: sum(self.Get_true_extent()))

    def Get_name(self) -> str:
        return self._h.name

    def Set_name(self, name: str) -> None:
        self._type()
        self._h.name = str(name)

    name = property(Get_name, Set_name)

    # -- constructors --------------------------------------------------------------------
    def _derived(self, make: Any, combiner: str, params: dict[str, Any],
                 old: _Handle | None = None) -> Datatype:
        t = _call(make)
        return type(self)._of(_Handle(t, combiner, params, self._h if old is None else old))

    def Dup(self) -> Datatype:
        """A new handle of the same type map, committed if this one is (MPI_Type_dup):
        the mpisim type is copied, not rebuilt (its layout is the same)."""
        made = type(self)._of(_Handle(_copy(self._type()), "DUP", {}, self._h))
        copy_local_attributes(self, made)  # §7.7.4: MPI_Type_dup copies attributes
        return made

    Create_dup = Dup

    def Create_contiguous(self, count: int) -> Datatype:
        t, count = self._type(), c_aint(count)  # an MPI_Count (mpi4py 4: the _c forms)
        return self._derived(lambda: t.create_contiguous(count), "CONTIGUOUS",
                             {"count": count})

    def Create_vector(self, count: int, blocklength: int, stride: int) -> Datatype:
        t = self._type()
        count, blocklength, stride = c_aint(count), c_aint(blocklength), c_aint(stride)
        return self._derived(lambda: t.create_vector(count, blocklength, stride), "VECTOR",
                             {"count": count, "blocklength": blocklength, "stride": stride})

    def Create_hvector(self, count: int, blocklength: int, stride: int) -> Datatype:
        t = self._type()
        count, blocklength, stride = c_aint(count), c_aint(blocklength), c_aint(stride)
        return self._derived(lambda: t.create_hvector(count, blocklength, stride), "HVECTOR",
                             {"count": count, "blocklength": blocklength, "stride": stride})

    def Create_indexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        t = self._type()
        lengths, disps = _list(blocklengths), _list(displacements, len(_list(blocklengths)))
        return self._derived(lambda: t.create_indexed(lengths, disps), "INDEXED",
                             {"blocklengths": lengths, "displacements": disps})

    def Create_hindexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        t = self._type()
        lengths, disps = _list(blocklengths), _list(displacements, len(_list(blocklengths)))
        return self._derived(lambda: t.create_hindexed(lengths, disps), "HINDEXED",
                             {"blocklengths": lengths, "displacements": disps})

    def Create_indexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        t, blocklength = self._type(), c_aint(blocklength)
        disps = _list(displacements)
        return self._derived(lambda: t.create_indexed_block(blocklength, disps),
                             "INDEXED_BLOCK", {"blocklength": blocklength,
                                               "displacements": disps})

    def Create_hindexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        t, blocklength = self._type(), c_aint(blocklength)
        disps = _list(displacements)
        return self._derived(lambda: t.create_hindexed_block(blocklength, disps),
                             "HINDEXED_BLOCK", {"blocklength": blocklength,
                                                "displacements": disps})

    def Create_resized(self, lb: int, extent: int) -> Datatype:
        t, lb, extent = self._type(), c_aint(lb), c_aint(extent)
        return self._derived(lambda: _made(("resized", lb, extent), (t,),
                                           lambda: t.create_resized(lb, extent)),
                             "RESIZED", {"lb": lb, "extent": extent})

    def Create_subarray(self, sizes: Any, subsizes: Any, starts: Any,
                        order: int = _dt.ORDER_C) -> Datatype:
        t = self._type()
        sizes = _list(sizes)
        subsizes, starts = _list(subsizes, len(sizes)), _list(starts, len(sizes))
        order = c_int(order)
        return self._derived(lambda: t.create_subarray(sizes, subsizes, starts, order),
                             "SUBARRAY", {"sizes": sizes, "subsizes": subsizes,
                                          "starts": starts, "order": order})

    def Create_darray(self, size: int, rank: int, gsizes: Any, distribs: Any, dargs: Any,
                      psizes: Any, order: int = _dt.ORDER_C) -> Datatype:
        """MPI_Type_create_darray (5.1.4): the elements ``rank`` of a process grid owns
        (:mod:`.darray`), spanning the whole global array."""
        t = self._type()
        gsizes = _list(gsizes)
        distribs, dargs, psizes = (_list(x, len(gsizes)) for x in (distribs, dargs, psizes))
        disps = [d * t.extent for d in darray.offsets(size, rank, gsizes, distribs, dargs,
                                                      psizes, order)]
        whole = math.prod(gsizes) * t.extent
        return self._derived(
            lambda: t.create_hindexed_block(1, disps).create_resized(0, whole), "DARRAY",
            {"size": size, "rank": rank, "gsizes": gsizes, "distribs": distribs,
             "dargs": dargs, "psizes": psizes, "order": order})

    @classmethod
    def Create_struct(cls, blocklengths: Any, displacements: Any, datatypes: Any) -> Datatype:
        lengths = _list(blocklengths)
        disps = _list(displacements, len(lengths))
        types = [converted(d, Datatype) for d in _list(datatypes, len(lengths), convert=False)]
        ts = [d._type() for d in types]
        t = _call(lambda: _made(("struct", tuple(lengths), tuple(disps)), tuple(ts),
                                lambda: _dt.Datatype.create_struct(lengths, disps, ts)))
        return cls._of(_Handle(t, "STRUCT", {"blocklengths": lengths, "displacements": disps,
                                             "datatypes": [d._h for d in types]}))

    @classmethod
    def Create_f90_integer(cls, r: int) -> Datatype:
        """The predefined integer type of at least ``r`` decimal digits (MPICH's sizes)."""
        size = next((n for digits, n in ((2, 1), (4, 2), (9, 4), (18, 8)) if r <= digits),
                    None)
        return cls._f90("F90_INTEGER", {"r": r}, None if size is None else f"INTEGER{size}")

    @classmethod
    def Create_f90_real(cls, p: int, r: int) -> Datatype:
        base = "REAL4" if p <= 6 and r <= 37 else "REAL8" if p <= 15 and r <= 307 else \
            "REAL16" if p <= 33 and r <= 4931 else None
        return cls._f90("F90_REAL", {"p": p, "r": r}, base)

    @classmethod
    def Create_f90_complex(cls, p: int, r: int) -> Datatype:
        base = "COMPLEX8" if p <= 6 and r <= 37 else "COMPLEX16" if p <= 15 and r <= 307 \
            else "COMPLEX32" if p <= 33 and r <= 4931 else None
        return cls._f90("F90_COMPLEX", {"p": p, "r": r}, base)

    @classmethod
    def _f90(cls, combiner: str, params: dict[str, int], base: str | None) -> Datatype:
        """A parameterized predefined type (MPI 4.1 §19.1.9): one handle per parameters,
        not the named type of that size (as in MPICH)."""
        if base is None:
            raise MPIException(f"no {combiner} type for {params}", None, "MPI_ERR_ARG")
        key = (combiner, *params.values())
        handle = _F90.get(key)
        if handle is None:
            named = DATATYPES[base]._h
            t = DATATYPES[base]._type()  # (a named type: never null)
            copy = _dt.Datatype(t.name, t.size, t.numpy_dtype, t._align)
            handle = _F90[key] = _Handle(copy, combiner, params, None, "", named.key)
        return cls._of(handle)

    @classmethod
    def Match_size(cls, typeclass: int, size: int) -> Datatype:
        """The named Fortran type of a class and size (MPI_Type_match_size)."""
        name = _MATCH.get((typeclass, size))
        if name is None or not DATATYPES.get(name):
            raise MPIException(f"no type of class {typeclass} and size {size}", None,
                               "MPI_ERR_ARG")
        return DATATYPES[name]

    @classmethod
    def Get_value_index(cls, value: Datatype, index: Datatype) -> Datatype:
        """The (value, index) pair type of MINLOC/MAXLOC (MPI 4.1 §6.9.4): the predefined
        pair where there is one, else MPI_DATATYPE_NULL (as MPICH answers)."""
        value._type()
        index._type()
        pair = _PAIRS.get((value._h.key, index._h.key))
        return DATATYPES[pair] if pair else cls()

    def Commit(self) -> Datatype:
        t = self._type()
        if not t.committed and self._h.combiner not in _PREDEFINED:
            from ..bridge import current  # a derived type handed to MPI: a leak if never freed

            port_of(current().mpi).made("datatype", self._h, "MPI_Type_commit")
        t.commit()
        return self

    def Free(self) -> None:
        self._type()
        if self._h.combiner in _PREDEFINED:
            raise MPIException("cannot free a predefined datatype", None, "MPI_ERR_TYPE")
        delete_local_attributes(self)  # §7.7.4: the attributes are deleted first
        self._h.freed = True
        self._h = _NULL

    def free(self) -> None:
        """``Free`` unless it is null or predefined."""
        if self and not self.is_predefined:
            self.Free()

    # -- how it was made -----------------------------------------------------------------
    def Get_envelope(self) -> tuple[int, int, int, int, int]:
        """(integers, addresses, large counts, datatypes, combiner) as MPICH's
        MPI_Type_get_envelope_c reports them."""
        self._type()
        ints, counts, types = _contents(self._h)
        return len(ints), 0, len(counts), len(types), COMBINERS[self._h.combiner]

    def Get_contents(self) -> tuple[list[int], list[int], list[int], list[Datatype]]:
        h = self._h
        self._type()
        if h.combiner == "NAMED":
            raise MPIException("MPI_Type_get_contents of a named datatype", None,
                               "MPI_ERR_TYPE")
        ints, counts, types = _contents(h)
        return ints, [], counts, [Datatype._of(t) for t in types]

    envelope = property(Get_envelope)
    contents = property(Get_contents)
    combiner = property(lambda self: self.Get_envelope()[-1])
    is_named = property(lambda self: self.combiner == COMBINERS["NAMED"])

    @property
    def is_predefined(self) -> bool:
        return not self or self._h.combiner in _PREDEFINED

    def decode(self) -> tuple[Datatype, str, dict[str, Any]]:
        """(old type, combiner name, the constructor's arguments), as mpi4py's decode."""
        h = self._h
        self._type()
        if h.combiner == "NAMED":
            return self, "NAMED", {}
        params = dict(h.params)
        if "datatypes" in params:
            params["datatypes"] = [Datatype._of(t) for t in params["datatypes"]]
        old = Datatype._of(h.old) if h.old is not None else Datatype()
        return old, h.combiner, params

    # -- typecodes -----------------------------------------------------------------------
    def _named(self) -> Any:
        """The predefined type this one has the codes of (through DUPs), or None."""
        h = self._h
        while h.combiner == "DUP" and h.old is not None:
            h = h.old
        return TABLE.get(h.key) if h.key else None

    def tocode(self) -> str:
        named = self._named() if self else None
        if named is None or named.code is None:
            raise ValueError("cannot map to character code or type string")
        return named.code

    @classmethod
    def fromcode(cls, code: str) -> Datatype:
        try:
            return TYPEDICT[code]
        except (KeyError, TypeError):
            raise ValueError(f"cannot map code {code!r} to MPI datatype") from None

    @property
    def typechar(self) -> str:
        if not self:
            return ""
        named = self._named()
        return named.typechar if named is not None else "V"

    @property
    def typestr(self) -> str:
        if not self:
            return ""
        named = self._named()
        return named.typestr if named is not None else f"V{self.extent}"

    # -- identity ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Datatype):
            return NotImplemented
        return self._h is other._h

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Datatype):
            return NotImplemented
        return self._h is not other._h

    def __hash__(self) -> int:
        return id(self._h)

    def __bool__(self) -> bool:
        return self._h is not _NULL

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Datatype {self._h.name or self._h.combiner}>"

    def __reduce__(self) -> str | tuple[Any, ...]:
        h = self._h
        if h.key and h.combiner == "NAMED":
            if DATATYPES.get(h.key) is self:
                return h.key
            return Datatype, (DATATYPES[h.key],)
        if h.combiner in ("F90_INTEGER", "F90_REAL", "F90_COMPLEX"):
            return getattr(Datatype, f"Create_{h.combiner.lower()}"), tuple(h.params.values())
        old, combiner, params = self.decode()
        return _recreate, (old, combiner, params, self._type().committed)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Datatype", name)


Datatype.__module__ = "mpi4py.MPI"  # as mpi4py's: pickles name mpi4py.MPI.Datatype / .INT


def typecode(datatype: Datatype) -> str | None:
    """mpi4py's ``MPI._typecode``: the typecode of a predefined datatype (through DUPs;
    a parameterized Fortran type's too), None for the pair types and derived ones."""
    try:
        return datatype.tocode()
    except ValueError:
        return None


def typealign(datatype: Datatype) -> int | None:
    """mpi4py's ``MPI._typealign``: the alignment of a predefined datatype (through DUPs),
    None for a derived one."""
    h = datatype._h
    while h.combiner == "DUP" and h.old is not None:
        h = h.old
    if h.t is None or h.combiner not in _PREDEFINED:
        return None
    return h.t._align


def _recreate(old: Datatype, combiner: str, params: dict[str, Any],
              committed: bool) -> Datatype:
    """A derived datatype made again from its recipe (unpickling)."""
    if combiner == "STRUCT":
        made = Datatype.Create_struct(**params)
    else:
        made = getattr(old, "Create_" + combiner.lower())(**params)
    return made.Commit() if committed else made


def _contents(h: _Handle) -> tuple[list[int], list[int], list[_Handle]]:
    """(integers, large counts, datatypes) of MPI_Type_get_contents_c (MPICH's layout)."""
    p, c = h.params, h.combiner
    old = [] if h.old is None else [h.old]
    if c == "NAMED":
        return [], [], []
    if c == "DUP":
        return [], [], old
    if c == "CONTIGUOUS":
        return [], [p["count"]], old
    if c in ("VECTOR", "HVECTOR"):
        return [], [p["count"], p["blocklength"], p["stride"]], old
    if c in ("INDEXED", "HINDEXED"):
        lengths = p["blocklengths"]
        return [], [len(lengths), *lengths, *p["displacements"]], old
    if c in ("INDEXED_BLOCK", "HINDEXED_BLOCK"):
        disps = p["displacements"]
        return [], [len(disps), p["blocklength"], *disps], old
    if c == "STRUCT":
        lengths = p["blocklengths"]
        return [], [len(lengths), *lengths, *p["displacements"]], list(p["datatypes"])
    if c == "SUBARRAY":
        return ([len(p["sizes"]), p["order"]], [*p["sizes"], *p["subsizes"], *p["starts"]],
                old)
    if c == "DARRAY":
        return ([p["size"], p["rank"], len(p["gsizes"]), *p["distribs"], *p["dargs"],
                 *p["psizes"], p["order"]], list(p["gsizes"]), old)
    if c == "RESIZED":
        return [], [p["lb"], p["extent"]], old
    return list(p.values()), [], []  # F90_*: the parameters as integers


_MADE: dict[tuple, tuple[Any, tuple]] = {}
_MADE_LIMIT = 4096


def _layout(t: Any) -> tuple:
    """What decides ``t``'s layout, hashable: its name (a predefined type's is unique),
    bounds, and its tree of members by identity (a copy shares its original's)."""
    return t.name, t.lb, t.extent, t._lb_marked, t._ub_marked, id(t._members)


def _made(recipe: tuple, members: tuple, make: Any) -> Any:
    """A new, uncommitted mpisim type: a copy of the one made before for the same recipe
    and members of the same layout, else made now. Building a struct's or a resized type's
    layout costs far more than copying it, and programs (and dtlib) build the same ones
    again and again. The cache keeps the members it was keyed on, so an id in a key never
    comes to name another tree."""
    key = (*recipe, *(_layout(m) for m in members))
    hit = _MADE.get(key)
    if hit is None:
        if len(_MADE) >= _MADE_LIMIT:
            _MADE.clear()
        hit = _MADE[key] = (make(), tuple(m._members for m in members))
    made = _copy(hit[0])
    made.committed = False
    return made


def _copy(t: Any) -> Any:
    """Another mpisim datatype with ``t``'s layout and committed state (its cached blocks
    shared: a type map never changes once built)."""
    made = object.__new__(type(t))
    for name in type(t).__slots__:
        setattr(made, name, getattr(t, name))
    return made


def _list(values: Any, expected: int | None = None, convert: bool = True) -> list[Any]:
    """A sequence argument as mpi4py reads one: measured (``len``: a scalar is a TypeError),
    integers through ``operator.index``, and as many items as the first sequence gave
    (``ValueError: expecting N items, got M``)."""
    sized(values)
    items = [operator.index(v) for v in values] if convert else list(values)
    if expected is not None and len(items) != expected:
        raise ValueError(f"expecting {expected} items, got {len(items)}")
    return items


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except MPIError as e:
        raise as_exception(e) from None


_F90: dict[tuple, _Handle] = {}

_MATCH = {(4, 4): "LOGICAL", **{(2, n): f"INTEGER{n}" for n in (1, 2, 4, 8, 16)},
          **{(1, n): f"REAL{n}" for n in (2, 4, 8, 16)},
          **{(3, n): f"COMPLEX{n}" for n in (4, 8, 16, 32)}}
"""(typeclass, size) -> the named type MPI_Type_match_size gives."""

_PAIRS: dict[tuple[str | None, str | None], str] = {
    ("FLOAT", "INT"): "FLOAT_INT", ("DOUBLE", "INT"): "DOUBLE_INT",
    ("LONG", "INT"): "LONG_INT", ("SHORT", "INT"): "SHORT_INT",
    ("INT", "INT"): "INT_INT", ("LONG_DOUBLE", "INT"): "LONG_DOUBLE_INT"}
"""(value, index) -> the predefined pair type (Get_value_index)."""

_WRAPPED: dict[int, Datatype] = {}
DATATYPES: dict[str, Datatype] = {}
for _name, _row in TABLE.items():
    _t = backing(_name)
    DATATYPES[_name] = Datatype._of(_Handle(_t, "NAMED", name=_row.mpi_name, key=_name))
    _WRAPPED.setdefault(id(_t), DATATYPES[_name])
for _name, _target in ALIASES.items():
    DATATYPES[_name] = DATATYPES[_target]
for _name in NULL:
    DATATYPES[_name] = Datatype()


TYPEDICT: dict[str, Datatype] = _TYPECODES
"""Typecode -> predefined datatype (mpi4py's ``MPI._typedict``)."""
TYPEDICT.update(_typedict(DATATYPES))


def wrapped(t: Any) -> Datatype:
    """The stand-in datatype for an mpisim one (the predefined object when there is one)."""
    return _WRAPPED.get(id(t)) or Datatype._of(_Handle(t, "CONTIGUOUS", {"count": 1}))

