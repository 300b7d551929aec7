"""MPI-IO calls of the ``mpi`` handle (MPI 4.1 §14): files, views, data access.

Each call checks its arguments, then lets :mod:`mpisim.io` do the work. ``file_open``
(collective over ``comm``) yields the File; a File's accesses are named as in MPI:
``file_read_at`` / ``file_write_at`` (explicit offset), ``file_read`` / ``file_write``
(the individual file pointer), ``file_read_shared`` / ``file_write_shared`` (the shared
file pointer), each with its collective form (``_all``, ``_at_all``, ``_ordered``), its
nonblocking ``i`` form yielding a Request, and the split collectives (``_begin`` /
``_end``). Blocking accesses yield a Status whose ``count`` is the bytes moved.

The bytes go to real files: relative names are relative to the process's working
directory, as a real run's are. Buffers are numpy arrays (their dtype names the datatype
when none is given, their size the count), or None for an access of size only (``count``
x ``datatype``): a write of zero bytes of that size, a read into nothing. Offsets and
positions count etypes of the view in force. Times: :mod:`mpisim.io.runtime`.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..engine.clock import failed
from ..io import opening, operations
from ..io.access import AT, INDIVIDUAL, ORDERED, SHARED, access
from ..io.constants import DISPLACEMENT_CURRENT, MODE_RDONLY, MODE_SEQUENTIAL, SEEK_SET
from ..io.errors import ErrDupDatarep, ErrUnsupportedOperation
from ..io.file import check_amode, check_file, check_offset
from ..io.runtime import FileIO
from ..io.view import check as check_view
from ..mpi.datatypes import BYTE
from ..mpi.errors import ErrArg, MPIError
from ..mpi.group import Group
from ..mpi.info import Info
from ..p2p.calls import check_datatype
from .base import HandleBase

__all__ = ["FileCalls"]

_BLOCKING, _REQUEST, _COLLECTIVE, _ICOLLECTIVE, _BEGIN = range(5)


class FileCalls(HandleBase):
    """MPI 4.1 §14: files, views and data access."""

    __slots__ = ()

    @property
    def _io(self) -> FileIO:
        """The run's MPI-IO state, made with its first file call and kept in the run state
        every handle holds (a run without files adds nothing)."""
        run = self._run
        found = run.file_io
        if found is None:
            found = run.file_io = FileIO(self._env, self._comms, self._config)
        return found

    def _yielding(self, call: str, make: Any) -> Event:
        """The event of a call that may fail: its MPI error raised at the program's yield."""
        try:
            return make()
        except MPIError as e:
            self._proc.unyielded = False  # (make may have entered the call: still one call)
            self._enter(call)
            return failed(self._env, e)

    # -- opening and closing (§14.2) ------------------------------------------------------
    def file_open(self, filename: Any = None, amode: int = MODE_RDONLY, info: Any = None,
                  comm: Any = None) -> Event:
        """MPI_File_open (§14.2.1, collective over ``comm``): opens ``filename`` (relative
        to the working directory) with ``amode`` (ms.MODE_RDWR | ms.MODE_CREATE...).
        Yields the File.

        Parameters
        ----------
        filename
            The file's path (relative names: relative to the working directory).
        amode
            Access mode, an OR of ``mpisim.io.MODE_RDONLY``, ``MODE_RDWR``,
            ``MODE_WRONLY``, ``MODE_CREATE``, ``MODE_EXCL``,
            ``MODE_DELETE_ON_CLOSE``, ``MODE_UNIQUE_OPEN``, ``MODE_SEQUENTIAL``,
            ``MODE_APPEND``; ``MODE_RDONLY`` (2) by default.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.
        comm
            The communicator whose members open the file together;
            MPI_COMM_WORLD by default.
        """
        call = "MPI_File_open"
        return self._yielding(call, lambda: opening.open_(
            self._io, self._port, call, comm, filename, check_amode(call, amode), info))

    def file_close(self, fh: Any) -> Event:
        """MPI_File_close (§14.2.2, collective): the file is closed once every process
        that opened it has called (deleted with MPI_MODE_DELETE_ON_CLOSE).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_close"
        return self._yielding(call, lambda: opening.close(self._io, self._port,
                                                          check_file(fh, call), call))

    def file_delete(self, filename: Any, info: Any = None) -> Event:
        """MPI_File_delete (§14.2.3): deletes the file (MPI_ERR_NO_SUCH_FILE if there is
        none).

        Parameters
        ----------
        filename
            The file's path (relative names: relative to the working directory).
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_delete"
        return self._yielding(call, lambda: opening.delete(self._io, self._port, call, filename))

    # -- the file and its hints (§14.2.4 to §14.2.8) ------------------------------------
    def file_set_size(self, fh: Any, size: int) -> Event:
        """MPI_File_set_size (§14.2.4, collective, the same size everywhere): the file is
        cut or extended (with zeros) to ``size`` bytes.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        size
            The size in bytes.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sized("MPI_File_set_size", fh, size, False)

    def file_preallocate(self, fh: Any, size: int) -> Event:
        """MPI_File_preallocate (§14.2.5, collective): the file has at least ``size``
        bytes (never shrinks).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        size
            The size in bytes.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return self._sized("MPI_File_preallocate", fh, size, True)

    def _sized(self, call: str, fh: Any, size: Any, grow: bool) -> Event:
        def make() -> Event:
            f = check_file(fh, call)
            f.writable(call)
            if f.info.amode & MODE_SEQUENTIAL:
                raise ErrUnsupportedOperation(f"{call}: {f.info.describe()} was opened "
                                              "MPI_MODE_SEQUENTIAL")
            n = check_offset(call, size, "size")
            store = f.info.storage
            work = (lambda _, s: store.preallocate(call, s)) if grow else \
                (lambda _, s: store.truncate(call, s))
            return operations.housekeeping(self._io, self._port, f, call, n, True,
                                           _once(work), True)
        return self._yielding(call, make)

    def file_get_size(self, fh: Any) -> int:
        """MPI_File_get_size (§14.2.6): the file's size in bytes.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return check_file(fh, "MPI_File_get_size").info.storage.size()

    def file_get_amode(self, fh: Any) -> int:
        """MPI_File_get_amode (§14.2.7): the access mode it was opened with.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return check_file(fh, "MPI_File_get_amode").info.amode

    def file_get_group(self, fh: Any) -> Group:
        """MPI_File_get_group (§14.2.7): the group of the processes that opened it.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return Group(check_file(fh, "MPI_File_get_group").info.group, self.rank)

    def file_set_info(self, fh: Any, info: Any) -> Event:
        """MPI_File_set_info (§14.2.8, collective): the file's hints (none changes the
        simulation).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        info
            The new hints, an ``Info``; mpisim reads none of them.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_set_info"

        def keep(f: Any, hints: Any) -> None:
            f.info.hints = hints.dup() if hasattr(hints, "dup") else hints
        return self._yielding(call, lambda: operations.housekeeping(
            self._io, self._port, check_file(fh, call), call, info, False, keep, False))

    def file_get_info(self, fh: Any) -> Info:
        """MPI_File_get_info (§14.2.8): a new info object with the hints the program set.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        hints = check_file(fh, "MPI_File_get_info").info.hints
        return hints.dup() if isinstance(hints, Info) else Info()

    # -- views (§14.3) -------------------------------------------------------------------
    def file_set_view(self, fh: Any, disp: int = 0, etype: Any = BYTE, filetype: Any = None,
                      datarep: str = "native", info: Any = None) -> Event:
        """MPI_File_set_view (§14.3, collective): this process's view (``disp`` bytes,
        then ``filetype`` tiled; offsets count ``etype``\\ s; filetype None: the etype);
        resets the individual and shared file pointers to zero.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        disp
            Byte displacement of the view from the start of the file; 0 by
            default.
        etype
            Elementary datatype of the view (unit of offsets); ``ms.BYTE`` by
            default.
        filetype
            Datatype that tiles the file from ``disp`` (holes: other processes'
            data). Default: ``etype``.
        datarep
            Data representation: ``"native"`` (the default), ``"internal"``,
            ``"external32"`` or one registered with ``register_datarep``.
        info
            Hints, an ``Info`` (``mpi.info_create()``) or None (the default:
            none); mpisim reads none of them.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_set_view"

        def make() -> Event:
            f = check_file(fh, call)
            where = disp
            if disp == DISPLACEMENT_CURRENT:
                if not f.info.amode & MODE_SEQUENTIAL:
                    raise ErrArg(f"{call}: MPI_DISPLACEMENT_CURRENT is for files opened "
                                 "MPI_MODE_SEQUENTIAL (§14.3)")
                where = f.view.byte_offset(f.info.shared)
            view = check_view(call, where, etype, etype if filetype is None else filetype,
                              datarep)
            return operations.housekeeping(self._io, self._port, f, call, view, False, _viewed,
                                           False)
        return self._yielding(call, make)

    def file_get_view(self, fh: Any) -> tuple[int, Any, Any, str]:
        """MPI_File_get_view (§14.3): (disp, etype, filetype, datarep).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        view = check_file(fh, "MPI_File_get_view").view
        return view.disp, view.etype, view.filetype, view.datarep

    # -- data access with explicit offsets (§14.4.2) -----------------------------------------
    def file_read_at(self, fh: Any, offset: int, buf: Any = None, count: int | None = None,
                     datatype: Any = None) -> Event:
        """MPI_File_read_at: ``count`` x ``datatype`` from the view's etype ``offset``;
        yields the Status (count: bytes read, fewer at the end of file).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_read_at", fh, False, AT, _BLOCKING, buf, count,
                            datatype, offset)

    def file_write_at(self, fh: Any, offset: int, buf: Any = None, count: int | None = None,
                      datatype: Any = None) -> Event:
        """MPI_File_write_at: ``buf``'s data at the view's etype ``offset``; yields the
        Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_write_at", fh, True, AT, _BLOCKING, buf, count,
                            datatype, offset)

    def file_read_at_all(self, fh: Any, offset: int, buf: Any = None,
                         count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_read_at_all: MPI_File_read_at, collective.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_read_at_all", fh, False, AT, _COLLECTIVE, buf, count,
                            datatype, offset)

    def file_write_at_all(self, fh: Any, offset: int, buf: Any = None,
                          count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_write_at_all: MPI_File_write_at, collective.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_write_at_all", fh, True, AT, _COLLECTIVE, buf, count,
                            datatype, offset)

    def file_iread_at(self, fh: Any, offset: int, buf: Any = None, count: int | None = None,
                      datatype: Any = None) -> Event:
        """MPI_File_iread_at: MPI_File_read_at, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iread_at", fh, False, AT, _REQUEST, buf, count,
                            datatype, offset)

    def file_iwrite_at(self, fh: Any, offset: int, buf: Any = None, count: int | None = None,
                       datatype: Any = None) -> Event:
        """MPI_File_iwrite_at: MPI_File_write_at, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iwrite_at", fh, True, AT, _REQUEST, buf, count,
                            datatype, offset)

    def file_iread_at_all(self, fh: Any, offset: int, buf: Any = None,
                          count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_iread_at_all: MPI_File_read_at_all, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iread_at_all", fh, False, AT, _ICOLLECTIVE, buf,
                            count, datatype, offset)

    def file_iwrite_at_all(self, fh: Any, offset: int, buf: Any = None,
                           count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_iwrite_at_all: MPI_File_write_at_all, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iwrite_at_all", fh, True, AT, _ICOLLECTIVE, buf,
                            count, datatype, offset)

    # -- data access with the individual file pointer (§14.4.3) ----------------------------
    def file_read(self, fh: Any, buf: Any = None, count: int | None = None,
                  datatype: Any = None) -> Event:
        """MPI_File_read: from the individual file pointer, which moves past the data;
        yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_read", fh, False, INDIVIDUAL, _BLOCKING, buf, count,
                            datatype)

    def file_write(self, fh: Any, buf: Any = None, count: int | None = None,
                   datatype: Any = None) -> Event:
        """MPI_File_write: at the individual file pointer, which moves past the data.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_write", fh, True, INDIVIDUAL, _BLOCKING, buf, count,
                            datatype)

    def file_read_all(self, fh: Any, buf: Any = None, count: int | None = None,
                      datatype: Any = None) -> Event:
        """MPI_File_read_all: MPI_File_read, collective.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_read_all", fh, False, INDIVIDUAL, _COLLECTIVE, buf,
                            count, datatype)

    def file_write_all(self, fh: Any, buf: Any = None, count: int | None = None,
                       datatype: Any = None) -> Event:
        """MPI_File_write_all: MPI_File_write, collective.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_write_all", fh, True, INDIVIDUAL, _COLLECTIVE, buf,
                            count, datatype)

    def file_iread(self, fh: Any, buf: Any = None, count: int | None = None,
                   datatype: Any = None) -> Event:
        """MPI_File_iread: MPI_File_read, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iread", fh, False, INDIVIDUAL, _REQUEST, buf, count,
                            datatype)

    def file_iwrite(self, fh: Any, buf: Any = None, count: int | None = None,
                    datatype: Any = None) -> Event:
        """MPI_File_iwrite: MPI_File_write, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iwrite", fh, True, INDIVIDUAL, _REQUEST, buf, count,
                            datatype)

    def file_iread_all(self, fh: Any, buf: Any = None, count: int | None = None,
                       datatype: Any = None) -> Event:
        """MPI_File_iread_all: MPI_File_read_all, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iread_all", fh, False, INDIVIDUAL, _ICOLLECTIVE, buf,
                            count, datatype)

    def file_iwrite_all(self, fh: Any, buf: Any = None, count: int | None = None,
                        datatype: Any = None) -> Event:
        """MPI_File_iwrite_all: MPI_File_write_all, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iwrite_all", fh, True, INDIVIDUAL, _ICOLLECTIVE, buf,
                            count, datatype)

    def file_seek(self, fh: Any, offset: int, whence: int = SEEK_SET) -> None:
        """MPI_File_seek (§14.4.3): the individual file pointer to ``offset`` etypes from
        the start (ms.SEEK_SET), from where it is (SEEK_CUR) or from the end of file
        (SEEK_END).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        whence
            From where ``offset`` counts: ``mpisim.io.SEEK_SET`` (the default,
            the start), ``SEEK_CUR`` (the pointer) or ``SEEK_END`` (the end of
            file).
        """
        call = "MPI_File_seek"
        f = check_file(fh, call)
        f.not_sequential(call)
        f.pointer = operations.position_after(f, call, _integer(call, offset), whence,
                                              f.pointer)

    def file_get_position(self, fh: Any) -> int:
        """MPI_File_get_position (§14.4.3): the individual file pointer, in etypes.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return check_file(fh, "MPI_File_get_position").pointer

    def file_get_byte_offset(self, fh: Any, offset: int) -> int:
        """MPI_File_get_byte_offset (§14.4.3): the file byte of the view's etype
        ``offset``.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        """
        call = "MPI_File_get_byte_offset"
        return check_file(fh, call).view.byte_offset(check_offset(call, offset))

    # -- data access with the shared file pointer (§14.4.4) -------------------------------
    def file_read_shared(self, fh: Any, buf: Any = None, count: int | None = None,
                         datatype: Any = None) -> Event:
        """MPI_File_read_shared: from the shared file pointer, which moves past the data.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_read_shared", fh, False, SHARED, _BLOCKING, buf, count,
                            datatype)

    def file_write_shared(self, fh: Any, buf: Any = None, count: int | None = None,
                          datatype: Any = None) -> Event:
        """MPI_File_write_shared: at the shared file pointer, which moves past the data.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_write_shared", fh, True, SHARED, _BLOCKING, buf,
                            count, datatype)

    def file_iread_shared(self, fh: Any, buf: Any = None, count: int | None = None,
                          datatype: Any = None) -> Event:
        """MPI_File_iread_shared: MPI_File_read_shared, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iread_shared", fh, False, SHARED, _REQUEST, buf,
                            count, datatype)

    def file_iwrite_shared(self, fh: Any, buf: Any = None, count: int | None = None,
                           datatype: Any = None) -> Event:
        """MPI_File_iwrite_shared: MPI_File_write_shared, yielding a Request.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        """
        return self._access("MPI_File_iwrite_shared", fh, True, SHARED, _REQUEST, buf,
                            count, datatype)

    def file_read_ordered(self, fh: Any, buf: Any = None, count: int | None = None,
                          datatype: Any = None) -> Event:
        """MPI_File_read_ordered (collective): each process reads after the data of the
        processes of lower rank, from the shared file pointer on.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_read_ordered", fh, False, ORDERED, _COLLECTIVE, buf,
                            count, datatype)

    def file_write_ordered(self, fh: Any, buf: Any = None, count: int | None = None,
                           datatype: Any = None) -> Event:
        """MPI_File_write_ordered (collective): each process's data after the data of the
        processes of lower rank, from the shared file pointer on.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is the Status (``count``: the bytes moved).
        """
        return self._access("MPI_File_write_ordered", fh, True, ORDERED, _COLLECTIVE, buf,
                            count, datatype)

    def file_seek_shared(self, fh: Any, offset: int, whence: int = SEEK_SET) -> Event:
        """MPI_File_seek_shared (collective, the same arguments everywhere): the shared
        file pointer to ``offset`` etypes from ``whence``.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        whence
            From where ``offset`` counts: ``mpisim.io.SEEK_SET`` (the default,
            the start), ``SEEK_CUR`` (the pointer) or ``SEEK_END`` (the end of
            file).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_seek_shared"

        def make() -> Event:
            f = check_file(fh, call)
            f.not_sequential(call)
            new = operations.position_after(f, call, _integer(call, offset), whence,
                                            f.info.shared)

            def seek(member: Any, _: Any) -> None:
                member.info.shared = new
            return operations.housekeeping(self._io, self._port, f, call, (offset, whence), True,
                                           seek, False)
        return self._yielding(call, make)

    def file_get_position_shared(self, fh: Any) -> int:
        """MPI_File_get_position_shared (§14.4.4): the shared file pointer, in etypes.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return check_file(fh, "MPI_File_get_position_shared").info.shared

    # -- split collective data access (§14.4.5) -------------------------------------------
    def file_read_at_all_begin(self, fh: Any, offset: int, buf: Any = None,
                               count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_read_at_all_begin: starts MPI_File_read_at_all.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_read_at_all_begin", fh, False, AT, _BEGIN, buf, count,
                            datatype, offset)

    def file_read_at_all_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_read_at_all_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        """
        return self._end("MPI_File_read_at_all_end", fh)

    def file_write_at_all_begin(self, fh: Any, offset: int, buf: Any = None,
                                count: int | None = None, datatype: Any = None) -> Event:
        """MPI_File_write_at_all_begin: starts MPI_File_write_at_all.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        offset
            Position in the file, in etypes of the view in force (not bytes).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_write_at_all_begin", fh, True, AT, _BEGIN, buf, count,
                            datatype, offset)

    def file_write_at_all_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_write_at_all_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        """
        return self._end("MPI_File_write_at_all_end", fh)

    def file_read_all_begin(self, fh: Any, buf: Any = None, count: int | None = None,
                            datatype: Any = None) -> Event:
        """MPI_File_read_all_begin: starts MPI_File_read_all.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_read_all_begin", fh, False, INDIVIDUAL, _BEGIN, buf,
                            count, datatype)

    def file_read_all_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_read_all_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        """
        return self._end("MPI_File_read_all_end", fh)

    def file_write_all_begin(self, fh: Any, buf: Any = None, count: int | None = None,
                             datatype: Any = None) -> Event:
        """MPI_File_write_all_begin: starts MPI_File_write_all.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_write_all_begin", fh, True, INDIVIDUAL, _BEGIN, buf,
                            count, datatype)

    def file_write_all_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_write_all_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        """
        return self._end("MPI_File_write_all_end", fh)

    def file_read_ordered_begin(self, fh: Any, buf: Any = None, count: int | None = None,
                                datatype: Any = None) -> Event:
        """MPI_File_read_ordered_begin: starts MPI_File_read_ordered.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_read_ordered_begin", fh, False, ORDERED, _BEGIN, buf,
                            count, datatype)

    def file_read_ordered_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_read_ordered_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            A numpy array the data is read into (its dtype names the datatype
            when none is given, its size the count), or None: a read of size
            only, into nothing.
        """
        return self._end("MPI_File_read_ordered_end", fh)

    def file_write_ordered_begin(self, fh: Any, buf: Any = None, count: int | None = None,
                                 datatype: Any = None) -> Event:
        """MPI_File_write_ordered_begin: starts MPI_File_write_ordered.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        count
            Elements of ``datatype``. Default: the numpy ``buf``'s size.
        datatype
            MPI datatype of the elements in memory. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.

        Returns
        -------
        Event
            Yield it; its value is a Request; the matching ``_end`` call
            completes the access.
        """
        return self._access("MPI_File_write_ordered_begin", fh, True, ORDERED, _BEGIN, buf,
                            count, datatype)

    def file_write_ordered_end(self, fh: Any, buf: Any = None) -> Event:
        """MPI_File_write_ordered_end: completes it; yields the Status.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        buf
            The data: a numpy array (its dtype names the datatype when none is
            given, its size the count), or None: a write of size only (``count``
            x ``datatype`` zero bytes).
        """
        return self._end("MPI_File_write_ordered_end", fh)

    def _access(self, call: str, fh: Any, write: bool, how: str, form: int, buf: Any,
                count: Any, datatype: Any, offset: Any = None) -> Event:
        """One data access: checked, then made in its form (see the module)."""
        def make() -> Event:
            f = check_file(fh, call)
            where = None if offset is None else check_offset(call, offset)
            acc, etypes = access(f, call, write, how, buf, count, datatype, where)
            rt = self._io
            if form in (_BLOCKING, _REQUEST):
                return operations.independent(rt, self._port, f, call, acc, form == _REQUEST)
            if form == _BEGIN:
                return operations.split_begin(rt, self._port, f, call, acc, etypes)
            return operations.collective(rt, self._port, f, call, acc, etypes,
                                         form == _ICOLLECTIVE)
        return self._yielding(call, make)

    def _end(self, call: str, fh: Any) -> Event:
        return self._yielding(call, lambda: operations.split_end(self._port, check_file(fh, call),
                                                                 call))

    # -- consistency and semantics (§14.5, §14.6) ----------------------------------------
    def file_get_type_extent(self, fh: Any, datatype: Any) -> int:
        """MPI_File_get_type_extent (§14.5.2): the datatype's extent in the file's data
        representation (native: its extent in memory).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        datatype
            The datatype whose extent in the file's data representation is asked
            for.
        """
        check_file(fh, "MPI_File_get_type_extent")
        found = check_datatype(datatype)
        if found is None:
            raise ErrArg("MPI_File_get_type_extent: a datatype is needed")
        return found.extent

    def file_set_atomicity(self, fh: Any, flag: bool) -> Event:
        """MPI_File_set_atomicity (§14.6.1, collective, the same flag everywhere): the
        atomic mode (every access is atomic in the model; the flag is kept).

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        flag
            True for atomic mode, False for nonatomic.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_set_atomicity"

        def atomic(f: Any, value: bool) -> None:
            f.info.atomic = value
        return self._yielding(call, lambda: operations.housekeeping(
            self._io, self._port, check_file(fh, call), call, bool(flag), True, atomic, False))

    def file_get_atomicity(self, fh: Any) -> bool:
        """MPI_File_get_atomicity (§14.6.1): whether atomic mode is set.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).
        """
        return check_file(fh, "MPI_File_get_atomicity").info.atomic

    def file_sync(self, fh: Any) -> Event:
        """MPI_File_sync (§14.6.1, collective): the file's data reach the storage device
        (``fsync``); returns after the file system's latency.

        Parameters
        ----------
        fh
            The file, as ``file_open`` yielded it (MPI_File).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        call = "MPI_File_sync"

        def make() -> Event:
            f = check_file(fh, call)
            if f.info.amode & MODE_RDONLY:  # nothing to flush (as ROMIO)
                sync = _once(lambda member, _: None)
            else:
                sync = _once(lambda member, _: member.info.storage.sync(call))
            return operations.housekeeping(self._io, self._port, f, call, None, False, sync, True)
        return self._yielding(call, make)

    def register_datarep(self, datarep: str, read_conversion_fn: Any = None,
                         write_conversion_fn: Any = None, dtype_file_extent_fn: Any = None,
                         extra_state: Any = None) -> None:
        """MPI_Register_datarep (§14.5.3): names a data representation (a second
        registration of a name is MPI_ERR_DUP_DATAREP). mpisim writes native data only:
        a view with a registered representation is MPI_ERR_UNSUPPORTED_DATAREP.

        Parameters
        ----------
        datarep
            The new representation's name.
        read_conversion_fn
            Conversion called on reads (MPI_Datarep_conversion_function), or
            None.
        write_conversion_fn
            Conversion called on writes, or None.
        dtype_file_extent_fn
            Function giving a datatype's extent in the file, or None.
        extra_state
            Passed to the functions as given.
        """
        if not isinstance(datarep, str) or not datarep:
            raise ErrArg(f"MPI_Register_datarep: {datarep!r} is not a name")
        names = self._io.datareps.setdefault(self.rank, set())
        if datarep in names or datarep in ("native", "internal", "external32"):
            raise ErrDupDatarep(f"MPI_Register_datarep: {datarep!r} is already defined")
        names.add(datarep)


def _viewed(f: Any, view: Any) -> None:
    """What MPI_File_set_view does to a member's handle: its view; both pointers at 0."""
    f.view = view
    f.pointer = 0
    f.info.shared = 0


def _once(work: Any) -> Any:
    """``work`` for the first member only (a call on the file itself, made once)."""
    done: list[bool] = []

    def run(member: Any, arg: Any) -> None:
        if not done:
            done.append(True)
            work(member, arg)
    return run


def _integer(call: str, value: Any) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ErrArg(f"{call}: expected an integer offset, got {value!r}")
    return int(value)


