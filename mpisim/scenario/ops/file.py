"""MPI-IO ops of a scenario (MPI 4.1 §14): reading them, and running them.

A file is opened with ``as`` and named by ``fh`` afterwards::

    - file_open: {filename: out.dat, amode: [RDWR, CREATE], as: f}   # comm optional
    - file_set_view: {fh: f, disp: 0, etype: INT, filetype: INT}
    - file_write_at_all: {fh: f, offset: rank * 4, count: 4, datatype: INT}
    - file_read: {fh: f, bytes: 1 KiB, status: {count: n}}
    - file_iwrite_shared: {fh: f, count: 2, datatype: DOUBLE, request: r}
    - file_seek_shared: {fh: f, offset: 0, whence: SET}
    - file_sync: f
    - file_close: f
    - file_delete: out.dat

``amode`` is one flag or a list (RDONLY, WRONLY, RDWR, CREATE, EXCL, DELETE_ON_CLOSE,
UNIQUE_OPEN, SEQUENTIAL, APPEND; ``MODE_`` may be written; RDONLY by default); ``whence``
is SET, CUR or END. Accesses take ``count`` + ``datatype`` or ``bytes`` (a scenario moves no
data of its own: a write writes zero bytes of its size, a read keeps nothing but its
status); ``offset`` for the ``_at`` forms; ``request`` for the ``i`` forms; ``status`` for
the blocking ones. File names are relative to the working directory of the run.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...handle.calltable import OPS
from ...io.constants import AMODES, SEEK_CUR, SEEK_END, SEEK_SET
from ...mpi.datatypes import BASIC_TYPES
from ..expr import constant
from ..values import describe, hint
from ..yamlload import line_of
from .reader import ReaderBase
from .running import RankState, bind, call, kwargs_of
from .step import Op

__all__ = ["RUNNERS", "FileOps"]

_WHENCE = {"SET": SEEK_SET, "CUR": SEEK_CUR, "END": SEEK_END}
_ACCESS_ARGS = ("fh", "count", "bytes", "datatype")


class FileOps(ReaderBase):
    """The readers of the MPI-IO ops."""

    def _file_open(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("filename", "amode", "comm", "as"),
                          ("filename", "as"))
        self._comm(op, m, path, line)
        self._filename(op, m, path, line)
        op.args["amode"] = ("any", constant(self._amode(m, path, line)))
        if "as" in m:
            name = self._name(m["as"], f"{path}.as", line_of(m, "as", line))
            if name:
                op.binds["as"] = name
                self.file_names.add(name)

    def _file_delete(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("filename",), ("filename",), short="filename")
        self._filename(op, m, path, line)

    def _file_close(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("fh",), ("fh",), short="fh")
        self._fh(op, m, path, line)

    _file_sync = _file_close

    def _file_set_size(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("fh", "size"), ("fh", "size"))
        self._fh(op, m, path, line)
        self._arg(op, m, "size", "size", path, line)

    _file_preallocate = _file_set_size

    def _file_set_view(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("fh", "disp", "etype", "filetype"), ("fh",))
        self._fh(op, m, path, line)
        self._arg(op, m, "disp", "size", path, line, default=0)
        for key in ("etype", "filetype"):
            if key in m:
                found = self._datatype(m[key], f"{path}.{key}", line_of(m, key, line))
                if found is not None:
                    op.args[key] = ("any", found)

    def _file_seek_shared(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("fh", "offset", "whence"), ("fh", "offset"))
        self._fh(op, m, path, line)
        self._arg(op, m, "offset", "int", path, line)
        whence = str(m.get("whence", "SET")).upper().removeprefix("SEEK_")
        if whence not in _WHENCE:
            self._problem(line_of(m, "whence", line), f"{path}.whence",
                          f"expected SET, CUR or END, got {describe(m.get('whence'))}")
        else:
            op.args["whence"] = ("int", constant(_WHENCE[whence]))

    def _file_access(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        """A data access: ``fh``, the size, ``offset`` (the _at forms), ``request`` (the i
        forms) or ``status`` (the blocking ones)."""
        explicit = "offset" in OPS[op.call].args
        stores = "request" in OPS[op.call].binds
        allowed = (*_ACCESS_ARGS, *(("offset",) if explicit else ()),
                   "request" if stores else "status")
        m = self._mapping(value, path, line, allowed,
                          ("fh", *(("offset",) if explicit else ()),
                           *(("request",) if stores else ())))
        self._fh(op, m, path, line)
        if explicit:
            self._arg(op, m, "offset", "int", path, line)
        self._size(op, m, path, line)
        if stores:
            self._store_request(op, m, path, line)
        else:
            self._status(op, m, path, line)

    def _fh(self, op: Op, m: dict, path: str, line: int) -> None:
        if "fh" not in m:
            return
        name = m["fh"]
        if not isinstance(name, str) or name not in self.file_names:
            shown = name if isinstance(name, str) else describe(name)
            self._problem(line_of(m, "fh", line), f"{path}.fh",
                          f"unknown file {shown!r}{hint(str(shown), self.file_names)} (a name "
                          "an earlier file_open gives with as:)")
            return
        op.args["fh"] = ("any", constant(name))

    def _filename(self, op: Op, m: dict, path: str, line: int) -> None:
        name = m.get("filename")
        if name is None:
            return
        if not isinstance(name, str) or not name:
            self._problem(line_of(m, "filename", line), f"{path}.filename",
                          f"expected a file name, got {describe(name)}")
            return
        op.args["filename"] = ("any", constant(name))

    def _amode(self, m: dict, path: str, line: int) -> int:
        given = m.get("amode", "RDONLY")
        flags = given if isinstance(given, list) else [given]
        amode = 0
        for flag in flags:
            key = "MODE_" + str(flag).upper().removeprefix("MODE_")
            if not isinstance(flag, str) or key not in AMODES:
                names = [n[5:] for n in AMODES]
                self._problem(line_of(m, "amode", line), f"{path}.amode",
                              f"unknown access mode {flag!r}"
                              f"{hint(str(flag).upper(), names)} (one of {', '.join(names)})")
                continue
            amode |= AMODES[key]
        return amode


for _name, _op in OPS.items():  # every access is read by one reader
    if _op.op == "file" and not hasattr(FileOps, "_" + _name):
        setattr(FileOps, "_" + _name, FileOps._file_access)


def _file(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """Run a file op: its ``fh`` is the file this rank opened under that name."""
    kwargs = kwargs_of(st, op)
    name: Any = None
    if "fh" in kwargs:
        name = kwargs["fh"]
        files = st.files
        if name not in files:
            raise st.error(op, f"{op.call}.fh: {name!r} is not open on this rank (its "
                           "file_open did not run here, or it was closed)")
        kwargs["fh"] = files[name]
    for key in ("etype", "filetype"):
        if key in kwargs:
            kwargs[key] = BASIC_TYPES[kwargs[key]]
    result = yield call(st, op, op.call, kwargs)
    if op.call == "file_open":
        st.files[op.binds["as"]] = result
    elif op.call == "file_close":
        del st.files[name]
    else:
        bind(st, op, result)


RUNNERS = {"file": _file}
"""How the file ops run (the call table's ``op``)."""
