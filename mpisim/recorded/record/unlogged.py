"""The MPI calls a program makes that the recorder does not log, found at record time.

The recorder logs the calls it defines (``int MPI_Send(...)`` in ``shim/mpisim_record.c``);
a call it does not define goes straight to the library, so the recording does not show it
and a replay cannot make it: a request it made is unknown to the replay's later wait, its
time counts as time outside MPI. So that a user hears of it when recording rather than from
a replay that fails further on, ``mpisim record`` compares the MPI functions the program's
executable imports (its dynamic symbol table: ``MPI_*`` from C, ``mpi_*_`` from Fortran)
with those the recorder defines, and names each one it does not log, leaving out the local
calls a replay does not need (:data:`LOCAL`: queries, datatype constructors, attributes,
names, info objects, packing, error strings, timers).

Read with ``readelf`` (binutils, which every ``mpicc`` toolchain has); without it, or for a
statically linked program, nothing is said. Only the executable is read: calls made from a
shared library of the program's own (or from Python) are not seen here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

__all__ = ["LOCAL", "defined_calls", "imported_calls", "note", "unlogged_calls"]

LOCAL = re.compile(
    r"MPI_(?:"
    r"Comm_(?:rank|size|remote_size|test_inter|compare|get_name|set_name|get_attr|set_attr"
    r"|delete_attr|create_keyval|free_keyval|get_info|set_info|get_errhandler"
    r"|call_errhandler|create_errhandler|get_parent)"
    r"|Group_(?:size|rank|translate_ranks|compare)"
    r"|Type_(?!commit$|free$).*|Get_.*|Wtime|Wtick|Initialized|Finalized|Error_.*"
    r"|Query_thread|Is_thread_main|Pack.*|Unpack.*|Aint_.*|Status_.*|Info_.*"
    r"|Dims_create|Cartdim_get|Cart_(?:get|coords|rank|map|shift)"
    r"|Graph(?:dims_get|_get|_neighbors_count|_neighbors|_map)"
    r"|Dist_graph_neighbors(?:_count)?|Topo_test|Op_commutative|Reduce_local"
    r"|Win_(?:get|set)_(?:name|attr|info|group|errhandler)|Win_(?:create|free)_keyval"
    r"|File_(?:get|set)_(?:info|atomicity|group|amode|byte_offset|type_extent|errhandler)"
    r"|File_get_view|Errhandler_free|Add_error_.*|Alloc_mem|Free_mem"
    r"|Register_datarep|Pcontrol|Address|Abort"
    r")$")
"""Calls a replay does not need: they move no data, wait for nothing and make no object a
later logged call names without describing it (a datatype is described where it is used)."""


def _symbols(path: str | Path, undefined: bool) -> set[str] | None:
    """The function names of ``path``'s dynamic symbol table, imported (``undefined``) or
    defined; None when it cannot be read."""
    try:
        run = subprocess.run(["readelf", "-W", "--dyn-syms", str(path)], capture_output=True,
                             text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if run.returncode != 0:
        return None
    names = set()
    for line in run.stdout.splitlines():
        parts = line.split()  # Num: Value Size Type Bind Vis Ndx Name
        if len(parts) >= 8 and parts[3] == "FUNC" and (parts[6] == "UND") == undefined:
            names.add(parts[7].split("@")[0])
    return names


def _mpi_name(symbol: str) -> str | None:
    """A symbol's MPI function: ``MPI_Send`` as is, gfortran's ``mpi_send_`` as ``MPI_Send``."""
    if symbol.startswith("MPI_"):
        return symbol
    fortran = re.fullmatch(r"mpi_([a-z0-9_]+?)_", symbol)
    if fortran is None:
        return None
    name = fortran.group(1)
    return f"MPI_{name[0].upper()}{name[1:]}"


def _calls(symbols: set[str]) -> set[str]:
    return {name for s in symbols if (name := _mpi_name(s)) is not None}


def imported_calls(program: str | Path) -> set[str] | None:
    """The MPI functions ``program`` imports (C and Fortran names, as ``MPI_Send``)."""
    symbols = _symbols(program, undefined=True)
    return None if symbols is None else _calls(symbols)


def defined_calls(shim: str | Path) -> set[str] | None:
    """The MPI functions the built recorder defines, lower-cased: Fortran's ``mpi_send_``
    and C's ``MPI_Send`` meet as ``mpi_send``."""
    symbols = _symbols(shim, undefined=False)
    return None if symbols is None else {name.lower() for name in _calls(symbols)}


def unlogged_calls(program: str | Path | None, shim: str | Path) -> list[str]:
    """The MPI calls ``program`` imports that the recorder ``shim`` does not log and a
    replay would need, sorted (empty when either cannot be read)."""
    if not program:
        return []
    imported, defined = imported_calls(program), defined_calls(shim)
    if not imported or defined is None:
        return []
    return sorted(name for name in imported
                  if name.lower() not in defined and not LOCAL.match(name)
                  and not name.startswith(("MPI_T_", "MPI_Session_get_")))


def note(program: str | Path | None, shim: str | Path) -> str | None:
    """What ``mpisim record`` says of the calls :func:`unlogged_calls` finds (None: none)."""
    missing = unlogged_calls(program, shim)
    if not missing:
        return None
    return (f"mpisim record: {Path(str(program)).name} calls MPI functions the recorder does "
            f"not log: {', '.join(missing)} (not in the recording: a replay does not make "
            "them, their time counts as time outside MPI, and a later call that names a "
            "request or object they made fails to replay)")
