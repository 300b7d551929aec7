"""Replaying MPI-IO (MPI 4.1 §14): one function per recorded call, as :mod:`.program`'s.

A recording names files by ids (``fh=``, given when ``MPI_File_open`` returns), the file of
an open or delete by the name the program gave (``name=``), its access mode by name
(``amode=RDWR,CREATE``: the libraries' values differ), a view by its etype and filetype ids
and the filetype's layout (``fmap=DISP+LEN,...``: the byte blocks of its data), and each
access by its count, datatype and explicit offset (``off=``), with the bytes it moved
(``nb=``). The replay makes the same calls on the handle's ``file_*`` calls, sizes only
(buffers of None: a write writes zeros of its size, a read keeps only its status).

**Where the replay's files go.** Never over the user's files: each run of a replay has a
temporary directory of its own (``mpisim-replay-files-*`` in the system's temporary
directory), made at its first file call and removed when the run is over (when its engine
is collected, or at exit). A recorded name is placed under it: an absolute name made
relative (``/scratch/out.dat`` -> ``DIR/scratch/out.dat``), ``..`` and ``.`` dropped, a
ROMIO file-system prefix (``ufs:``) left out, so every rank's same name is the same file.
A file that existed before the program opened it (the recorder gives its size then,
``was=``) is made there as that many zero bytes before the open, so that reads of an input
file move the bytes they moved; a file the recording deleted is made empty before the
delete when the replay has none by that name.

Checked against the recording, as divergence notes: the bytes each blocking access (and
each split collective's ``_end``) moved, the sizes ``MPI_File_get_size`` returned and the
positions of ``MPI_File_get_position[_shared]``.
"""

from __future__ import annotations

import tempfile
import weakref
from collections.abc import Generator
from pathlib import Path
from typing import Any

from ...handle.access import port_of
from ...io.constants import AMODES, MODE_CREATE, SEEK_CUR, SEEK_END, SEEK_SET
from ...mpi import datatypes as _dt
from ..calls import Unsupported, handle_name, local_path
from ..read.records import Call

__all__ = ["FILES", "replay_directory"]

Gen = Generator[Any, Any, None]

_WHENCE = {"SET": SEEK_SET, "CUR": SEEK_CUR, "END": SEEK_END}
_DIRECTORIES: weakref.WeakKeyDictionary[Any, tempfile.TemporaryDirectory[str]] = \
    weakref.WeakKeyDictionary()
"""Each run's directory, by its engine: removed with it (see the module)."""


def replay_directory(mpi: Any) -> Path:
    """The directory of this run's files (made with the run's first file call)."""
    found = _DIRECTORIES.get(port_of(mpi).env)
    if found is None:
        found = _DIRECTORIES[port_of(mpi).env] = tempfile.TemporaryDirectory(
            prefix="mpisim-replay-files-")
    return Path(found.name)


def _amode(call: Call) -> int:
    bits = 0
    for word in str(call.args.get("amode", "RDONLY")).split(","):
        if f"MODE_{word}" in AMODES:
            bits |= AMODES[f"MODE_{word}"]
        elif word.lstrip("-").isdigit():
            bits |= int(word)
    return bits


def _file(r: Any, call: Call) -> Any:
    fid = call.args.get("fh", 0)
    if fid not in r.files:
        raise Unsupported(f"{call.where()}: MPI_{call.name}: file {fid} was not opened by a "
                          "recorded MPI_File_open")
    return r.files[fid]


def _check(r: Any, call: Call, what: str, got: Any, key: str) -> None:
    """A divergence note when the replay's ``got`` is not the recording's ``key``."""
    recorded = call.out.get(key)
    if recorded is not None and got is not None and int(got) != int(recorded):
        r.note(call, f"{what} {got}; the recording's was {recorded}")


# -- opening, closing, deleting (§14.2) ------------------------------------------------------
def open_(r: Any, call: Call) -> Gen:
    """MPI_File_open of the recorded name in the run's directory; a file that existed
    before the recorded open is made first (see the module)."""
    path = local_path(replay_directory(r.mpi), str(call.args.get("name", "")))
    amode, was = _amode(call), int(call.args.get("was", -1))
    opened = call.returned and call.error is None
    if opened and was >= 0 and not path.exists() and not (amode & MODE_CREATE and was == 0):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(was)
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = yield r.mpi.file_open(str(path), amode, comm=r.comm(call))
    if "fh" in call.out:
        r.files[call.out["fh"]] = fh


def close(r: Any, call: Call) -> Gen:
    yield r.mpi.file_close(_file(r, call))
    r.files.pop(call.args.get("fh", 0), None)


def delete(r: Any, call: Call) -> Gen:
    """MPI_File_delete of the recorded name in the run's directory (a file the recording
    deleted is made first if the replay has none: its contents were never read)."""
    path = local_path(replay_directory(r.mpi), str(call.args.get("name", "")))
    if call.returned and call.error is None and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    yield r.mpi.file_delete(str(path))


# -- the file and its view (§14.2.4 to §14.3) ---------------------------------------------
def view_filetype(r: Any, call: Call) -> Any:
    """The view's filetype: a predefined one as itself; a derived one of the recorded
    layout (``fmap``: bytes at those displacements, the recorded lower bound and extent),
    else its data at its lower bound, then a hole to its extent."""
    tid = call.args.get("fT", 0)
    info = r.log.types.get(tid)
    if info is None or info.kind == "named":
        return r.datatype(call, tid)
    blocks = [part.split("+") for part in str(call.args.get("fmap", "")).split(",") if part]
    if blocks:
        disps, lengths = [int(d) for d, _ in blocks], [int(n) for _, n in blocks]
    else:
        disps, lengths = [info.lb], [info.size]
    made = _dt.BYTE.create_hindexed(lengths, disps).create_resized(info.lb, info.extent)
    return made.commit()


def set_view(r: Any, call: Call) -> Gen:
    a = call.args
    yield r.mpi.file_set_view(_file(r, call), int(a.get("disp", 0)),
                              r.datatype(call, a.get("eT", 0)), view_filetype(r, call),
                              str(a.get("rep", "native")))


def sized(r: Any, call: Call) -> Gen:
    """MPI_File_set_size, MPI_File_preallocate."""
    yield getattr(r.mpi, handle_name(call.name))(_file(r, call), int(call.args.get("size", 0)))


def sync(r: Any, call: Call) -> Gen:
    yield r.mpi.file_sync(_file(r, call))


def seek(r: Any, call: Call) -> Gen:
    """MPI_File_seek (local) and MPI_File_seek_shared (collective)."""
    whence = _WHENCE.get(str(call.args.get("whence", "SET")), SEEK_SET)
    made = getattr(r.mpi, handle_name(call.name))(_file(r, call), int(call.args.get("off", 0)),
                                                   whence)
    if made is not None:
        yield made


def query(r: Any, call: Call) -> Gen:
    """MPI_File_get_size, MPI_File_get_position[_shared]: local; the value compared with the
    recording's."""
    got = getattr(r.mpi, handle_name(call.name))(_file(r, call))
    if call.name == "File_get_size":
        _check(r, call, "the file has size", got, "size")
    else:
        _check(r, call, "the file pointer is at", got, "pos")
    return
    yield


# -- data access (§14.4) --------------------------------------------------------------------
def access(r: Any, call: Call) -> Gen:
    """A read or write of ``n`` elements of ``T`` (at ``off`` for the explicit-offset forms),
    in its recorded form: blocking (the bytes moved compared), nonblocking (its request
    kept), or a split collective's ``_begin``."""
    a = call.args
    kwargs = {"count": a.get("n", 0), "datatype": r.datatype(call, a.get("T", 0))}
    if "off" in a:
        kwargs["offset"] = int(a["off"])
    made = yield getattr(r.mpi, handle_name(call.name))(_file(r, call), **kwargs)
    if "r" in call.out:
        r.reqs[call.out["r"]] = made
    elif made is not None:
        _check(r, call, "moved", getattr(made, "count", None), "nb")


def access_end(r: Any, call: Call) -> Gen:
    """A split collective's ``_end``: the bytes moved compared."""
    status = yield getattr(r.mpi, handle_name(call.name))(_file(r, call))
    _check(r, call, "moved", getattr(status, "count", None), "nb")


_ACCESSES = tuple(f"File_{i}{verb}{form}" for i in ("", "i") for verb in ("read", "write")
                  for form in ("", "_at", "_all", "_at_all", "_shared"))
_ORDERED = ("File_read_ordered", "File_write_ordered")
_SPLIT = tuple(f"File_{verb}{form}" for verb in ("read", "write")
               for form in ("_all", "_at_all", "_ordered"))

FILES: dict[str, Any] = {
    "File_open": open_, "File_close": close, "File_delete": delete,
    "File_set_view": set_view, "File_set_size": sized, "File_preallocate": sized,
    "File_sync": sync, "File_seek": seek, "File_seek_shared": seek,
    **dict.fromkeys(("File_get_size", "File_get_position", "File_get_position_shared"),
                    query),
    **dict.fromkeys((*_ACCESSES, *_ORDERED, *(f"{s}_begin" for s in _SPLIT)), access),
    **dict.fromkeys((f"{s}_end" for s in _SPLIT), access_end),
}
"""The recorded calls this module replays, by name."""
