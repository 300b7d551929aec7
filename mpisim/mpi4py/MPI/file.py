"""``MPI.File`` of the stand-in (MPI 4.1 §14): mpi4py's file object over the handle's
MPI-IO calls (:mod:`mpisim.handle.io`).

As in mpi4py: ``MPI.File()`` is a null file equal to ``MPI.FILE_NULL``; ``File.Open(comm,
filename, amode, info)`` opens a real file (relative names from the working directory)
collectively and ``Close`` makes the object null again; data accesses take mpi4py's
buffer specs (``buf``, ``[buf, datatype]``, ``[buf, count, datatype]``...) and fill an
optional ``MPI.Status`` (``Get_count`` gives what was read); the ``I`` forms return an
``MPI.Request``; the split collectives pair a ``_begin`` with its ``_end``. A file cannot be
pickled (ValueError).

Errors are raised as ``MPI.Exception`` (MPI_ERR_AMODE, MPI_ERR_NO_SUCH_FILE...): a file's
error handler is MPI_ERRORS_RETURN by default (§14.7), as is ``FILE_NULL``'s, which
``File.Open`` and ``File.Delete`` use; ``Set_errhandler(MPI.ERRORS_ARE_FATAL)`` makes them
end the run.
"""

from __future__ import annotations

from typing import Any

from ...io import constants as _c
from ...mpi.errors import MPIError
from ..bridge import current
from ..datatypes.datatype import DATATYPES, Datatype, wrapped
from ..datatypes.integers import c_aint, c_int, typed
from ..datatypes.typecodes import lookup
from ..exceptions import Exception as MPIException
from ..exceptions import Unsupporting, as_exception
from ..msgbuffer.p2p import p2p
from .errhandler import ErrhandlerMethods
from .group import Group
from .held import Held
from .info import Info, handle_info
from .request import Request
from .status import Status, fill

__all__ = ["FILE_NULL", "NAMES", "File", "Register_datarep"]

_NULL_KEY = ("file", 0)
"""MPI_FILE_NULL in the rank's table of error handlers (what open and delete use)."""


def _local(call: str, *args: Any) -> Any:
    """A local call of the handle; its MPI error raised as MPI.Exception."""
    try:
        return getattr(current().plain(), call)(*args)
    except MPIError as e:
        raise as_exception(e) from None


_BYTE_DEFAULT = object()
"""Set_view's etype when none is given (MPI.BYTE)."""


def _datatype(dt: Any) -> Any:
    if isinstance(dt, Datatype):
        return dt._type()
    if isinstance(dt, str):
        return lookup(dt)._type()
    raise TypeError(f"expecting a datatype, got {type(dt).__name__}")


class File(Held, ErrhandlerMethods, metaclass=Unsupporting):
    """mpi4py's MPI.File (see the module)."""

    _NULL = "FILE_NULL"
    _held = property(lambda self: self._f)

    _f: Any = None        # the handle's File (None: MPI_FILE_NULL)
    _types: Any = None    # (etype, filetype) as the script gave them to Set_view

    def __init__(self, file: Any = None) -> None:
        if file is None:
            return
        if not isinstance(file, File):
            raise TypeError(f"expecting a file, got {type(file).__name__}")
        self._f, self._types = file._f, file._types

    @classmethod
    def _of(cls, f: Any) -> File:
        made = cls.__new__(cls)
        made._f = f
        return made

    def _file(self) -> Any:
        if self._f is None:
            raise MPIException("invalid file (MPI_FILE_NULL)", None, "MPI_ERR_FILE")
        return self._f

    def _key(self) -> Any:
        return ("file", self._f.info.number) if self._f is not None else _NULL_KEY

    def _call(self, method: str, *args: Any) -> Any:
        """A blocking call of the handle on this file (the rank waits in simulated time)."""
        ctx = current()
        f = self._file()
        return ctx.call(lambda: getattr(ctx.mpi, method)(f, *args), self._key())

    def __repr__(self) -> str:
        if self._f is None:
            return "<mpi4py.MPI.File FILE_NULL>"
        return f"<mpi4py.MPI.File {self._f.name!r}>"

    def free(self) -> None:
        """Close if not null."""
        if self:
            self.Close()

    # -- opening and closing (§14.2) -------------------------------------------------------
    @classmethod
    def Open(cls, comm: Any, filename: Any, amode: int = _c.MODE_RDONLY,
             info: Any = None) -> File:
        """MPI_File_open (collective over ``comm``)."""
        ctx, mode = current(), c_int(amode)
        mpi = ctx.mpi
        handle = comm._c(mpi)
        hints = handle_info(info)
        f = ctx.call(lambda: mpi.file_open(filename, mode, hints, handle), _NULL_KEY)
        return cls._of(f)

    def Close(self) -> None:
        """MPI_File_close (collective); the object becomes MPI.FILE_NULL."""
        self._call("file_close")
        self._f = self._types = None

    @classmethod
    def Delete(cls, filename: Any, info: Any = None) -> None:
        """MPI_File_delete."""
        ctx = current()
        ctx.call(lambda: ctx.mpi.file_delete(filename, handle_info(info)), _NULL_KEY)

    # -- the file (§14.2.4 to §14.2.8) -----------------------------------------------------
    def Set_size(self, size: int) -> None:
        self._call("file_set_size", c_aint(size))

    def Preallocate(self, size: int) -> None:
        self._call("file_preallocate", c_aint(size))

    def Get_size(self) -> int:
        return _local("file_get_size", self._file())

    size = property(Get_size)

    def Get_amode(self) -> int:
        return _local("file_get_amode", self._file())

    amode = property(Get_amode)

    def Get_group(self) -> Group:
        return Group._of(_local("file_get_group", self._file()))

    group = property(Get_group)

    @property
    def group_size(self) -> int:
        return self._file().size

    @property
    def group_rank(self) -> int:
        return self._file().rank

    def Set_info(self, info: Any) -> None:
        self._call("file_set_info", handle_info(info))

    def Get_info(self) -> Info:
        return Info._of(_local("file_get_info", self._file()))

    info = property(Get_info, Set_info)

    # -- views (§14.3) ---------------------------------------------------------------------
    def Set_view(self, disp: int = 0, etype: Any = _BYTE_DEFAULT, filetype: Any = None,
                 datarep: str = "native", info: Any = None) -> None:
        """MPI_File_set_view (collective); filetype None: the etype. Each is an MPI.Datatype,
        as mpi4py's typed arguments (an etype of None or a typecode is a TypeError)."""
        etype = DATATYPES["BYTE"] if etype is _BYTE_DEFAULT else typed(etype, Datatype, "etype")
        filetype = etype if filetype is None else typed(filetype, Datatype, "filetype")
        self._call("file_set_view", c_aint(disp), _datatype(etype), _datatype(filetype),
                   str(datarep), handle_info(info))
        self._types = (etype, filetype)

    def Get_view(self) -> tuple[int, Datatype, Datatype, str]:
        disp, etype, filetype, datarep = _local("file_get_view", self._file())
        given = self._types or (wrapped(etype), wrapped(filetype))
        return disp, Datatype(given[0]), Datatype(given[1]), datarep

    def Get_type_extent(self, datatype: Any) -> int:
        return _local("file_get_type_extent", self._file(), _datatype(datatype))

    # -- data access -----------------------------------------------------------------------
    def _io(self, method: str, buf: Any, readonly: bool, status: Any = None,
            *before: Any) -> Any:
        data, count, datatype = p2p(buf, 0, readonly)
        st = self._call(method, *before, data, count, datatype)
        fill(status, st)
        return st

    def _ireq(self, method: str, buf: Any, readonly: bool, *before: Any) -> Request:
        return Request(self._io(method, buf, readonly, None, *before))

    def Read_at(self, offset: int, buf: Any, status: Status | None = None) -> None:
        self._io("file_read_at", buf, False, status, c_aint(offset))

    def Read_at_all(self, offset: int, buf: Any, status: Status | None = None) -> None:
        self._io("file_read_at_all", buf, False, status, c_aint(offset))

    def Write_at(self, offset: int, buf: Any, status: Status | None = None) -> None:
        self._io("file_write_at", buf, True, status, c_aint(offset))

    def Write_at_all(self, offset: int, buf: Any, status: Status | None = None) -> None:
        self._io("file_write_at_all", buf, True, status, c_aint(offset))

    def Iread_at(self, offset: int, buf: Any) -> Request:
        return self._ireq("file_iread_at", buf, False, c_aint(offset))

    def Iread_at_all(self, offset: int, buf: Any) -> Request:
        return self._ireq("file_iread_at_all", buf, False, c_aint(offset))

    def Iwrite_at(self, offset: int, buf: Any) -> Request:
        return self._ireq("file_iwrite_at", buf, True, c_aint(offset))

    def Iwrite_at_all(self, offset: int, buf: Any) -> Request:
        return self._ireq("file_iwrite_at_all", buf, True, c_aint(offset))

    def Read(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_read", buf, False, status)

    def Read_all(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_read_all", buf, False, status)

    def Write(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_write", buf, True, status)

    def Write_all(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_write_all", buf, True, status)

    def Iread(self, buf: Any) -> Request:
        return self._ireq("file_iread", buf, False)

    def Iread_all(self, buf: Any) -> Request:
        return self._ireq("file_iread_all", buf, False)

    def Iwrite(self, buf: Any) -> Request:
        return self._ireq("file_iwrite", buf, True)

    def Iwrite_all(self, buf: Any) -> Request:
        return self._ireq("file_iwrite_all", buf, True)

    def Seek(self, offset: int, whence: int = _c.SEEK_SET) -> None:
        _local("file_seek", self._file(), c_aint(offset), c_int(whence))

    def Get_position(self) -> int:
        return _local("file_get_position", self._file())

    def Get_byte_offset(self, offset: int) -> int:
        return _local("file_get_byte_offset", self._file(), c_aint(offset))

    def Read_shared(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_read_shared", buf, False, status)

    def Write_shared(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_write_shared", buf, True, status)

    def Iread_shared(self, buf: Any) -> Request:
        return self._ireq("file_iread_shared", buf, False)

    def Iwrite_shared(self, buf: Any) -> Request:
        return self._ireq("file_iwrite_shared", buf, True)

    def Read_ordered(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_read_ordered", buf, False, status)

    def Write_ordered(self, buf: Any, status: Status | None = None) -> None:
        self._io("file_write_ordered", buf, True, status)

    def Seek_shared(self, offset: int, whence: int = _c.SEEK_SET) -> None:
        self._call("file_seek_shared", c_aint(offset), c_int(whence))

    def Get_position_shared(self) -> int:
        return _local("file_get_position_shared", self._file())

    # -- split collectives (§14.4.5) ---------------------------------------------------------
    def _end(self, method: str, status: Any) -> None:
        fill(status, self._call(method))

    def Read_at_all_begin(self, offset: int, buf: Any) -> None:
        self._io("file_read_at_all_begin", buf, False, None, c_aint(offset))

    def Read_at_all_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_read_at_all_end", status)

    def Write_at_all_begin(self, offset: int, buf: Any) -> None:
        self._io("file_write_at_all_begin", buf, True, None, c_aint(offset))

    def Write_at_all_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_write_at_all_end", status)

    def Read_all_begin(self, buf: Any) -> None:
        self._io("file_read_all_begin", buf, False)

    def Read_all_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_read_all_end", status)

    def Write_all_begin(self, buf: Any) -> None:
        self._io("file_write_all_begin", buf, True)

    def Write_all_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_write_all_end", status)

    def Read_ordered_begin(self, buf: Any) -> None:
        self._io("file_read_ordered_begin", buf, False)

    def Read_ordered_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_read_ordered_end", status)

    def Write_ordered_begin(self, buf: Any) -> None:
        self._io("file_write_ordered_begin", buf, True)

    def Write_ordered_end(self, buf: Any, status: Status | None = None) -> None:
        self._end("file_write_ordered_end", status)

    # -- consistency (§14.6) -----------------------------------------------------------------
    def Set_atomicity(self, flag: bool) -> None:
        self._call("file_set_atomicity", bool(flag))

    def Get_atomicity(self) -> bool:
        return _local("file_get_atomicity", self._file())

    atomicity = property(Get_atomicity, Set_atomicity)

    def Sync(self) -> None:
        self._call("file_sync")


def Register_datarep(datarep: str, read_fn: Any, write_fn: Any, extent_fn: Any) -> None:
    """MPI_Register_datarep: the name is registered (MPI.ERR_DUP_DATAREP the second time);
    the stand-in writes native data only (a view with it: MPI.ERR_UNSUPPORTED_DATAREP)."""
    _local("register_datarep", str(datarep), read_fn, write_fn, extent_fn)


FILE_NULL = File()

NAMES: dict[str, Any] = {
    "File": File, "FILE_NULL": FILE_NULL, "Register_datarep": Register_datarep,
    **_c.AMODES, "SEEK_SET": _c.SEEK_SET, "SEEK_CUR": _c.SEEK_CUR, "SEEK_END": _c.SEEK_END,
    "DISPLACEMENT_CURRENT": _c.DISPLACEMENT_CURRENT,
}
"""What the stand-in's ``MPI`` namespace gets from this module (:mod:`..run.module`)."""
