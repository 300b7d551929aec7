"""Where each call of the handle's table has its front doors: one call end to end.

mpisim has four ways in (the native handle, YAML scenarios, mpi4py scripts, recorded C and
Fortran runs), so a call of :data:`mpisim.handle.calltable.CALLS` has up to six more stops
than its handle method: the stand-in method that makes it, the recorder's C wrapper, its
Fortran binding, the replayer that replays its log line, the scenario op and the YAML
writer (``replay --to-yaml``). :func:`table` finds each from the code itself; a call a door
lacks must be named in :data:`EXCLUDED` with the reason, so a new call fails
``tests/architecture/test_call_coverage.py`` until every door answers.

``python tests/helpers/doors.py --write`` regenerates the contributors' page
(docs/contributing/calls.md) that a test holds to this table.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from mpisim.handle.calltable import CALLS, OPS, mpi_name

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mpisim"
SHIM = PACKAGE / "recorded" / "shim" / "mpisim_record.c"
PAGE = ROOT / "docs" / "contributing" / "calls.md"

DOORS = ("stand-in", "C wrapper", "Fortran", "replayer", "scenario op", "YAML writer")
"""The front doors, in the order a new call passes them (docs/contributing/architecture.md)."""


def recorded(name: str) -> str:
    """A handle call's name in a recording (``comm_idup`` -> ``Comm_idup``)."""
    return mpi_name(name).removeprefix("MPI_")


def _names(*names: str) -> tuple[str, ...]:
    unknown = [n for n in names if n not in CALLS]
    assert not unknown, f"not calls of the table: {unknown}"
    return names


def _family(prefix: str, *, but: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(n for n in CALLS if n.startswith(prefix) and n not in but)


_QUERIES = _names("comm_rank", "comm_size", "type_size", "type_size_x", "pack_size",
                  "get_address", "aint_add", "aint_diff", "comm_remote_size",
                  "comm_test_inter", "comm_compare", "dims_create", "topo_test",
                  "cartdim_get", "cart_get", "cart_coords", "cart_rank", "cart_map",
                  "graphdims_get", "graph_get", "graph_neighbors_count", "graph_neighbors",
                  "graph_map", "dist_graph_neighbors_count", "dist_graph_neighbors",
                  "group_size", "group_rank", "group_translate_ranks", "group_compare",
                  "cart_shift", "reduce_local")
_OBJECTS = _names("comm_set_name", "comm_create_keyval", "comm_free_keyval", "comm_set_attr",
                  "comm_get_attr", "comm_delete_attr", "comm_set_info", "comm_get_info",
                  "win_get_attr", "win_get_group", "win_set_name", "win_get_name",
                  "win_set_info", "win_get_info", "file_set_info", "file_get_byte_offset",
                  "file_get_amode", "file_get_group", "file_get_info", "file_get_view",
                  "file_get_type_extent", "file_get_atomicity", "register_datarep",
                  "file_set_atomicity", *(n for n in CALLS if n.startswith("info_")))
_GROUPS = _names("group_range_incl", "group_range_excl", "group_union", "group_intersection",
                 "group_difference", "comm_remote_group")
_SESSIONS = tuple(n for n in CALLS if n.startswith("session_"))
_NEIGHBOR = tuple(n for n in CALLS if n.startswith(("neighbor_", "ineighbor_")))
_BUFFERS_41 = _names("buffer_flush", "buffer_iflush", "comm_attach_buffer",
                     "comm_detach_buffer", "comm_flush_buffer", "comm_iflush_buffer")

_NOT_RECORDED: list[tuple[tuple[str, ...], str]] = [
    (_QUERIES, "a local query: it moves nothing and changes no state a replay needs"),
    (_OBJECTS, "names, attributes, hints and file metadata: nothing a replay times"),
    (_GROUPS, "not recorded yet (a replay refuses a communicator made of such a group, "
              "naming the call)"),
    (tuple(n for n in _SESSIONS if n != "session_init"),
     "MPI 4.1 session buffers: not recorded yet"),
    (_names("comm_dup_with_info", "comm_idup_with_info"), "not recorded yet"),
    (_names("intercomm_create_from_groups"), "needs sessions' process sets: not recorded"),
    (_names("win_allocate_shared", "win_create_dynamic", "win_shared_query", "win_attach",
            "win_detach"), "shared-memory and dynamic windows: not recorded yet"),
    (_names("compute"), "not an MPI function: the simulated computation between calls"),
    (_names("query_thread", "is_thread_main"),
     "a local query of the thread level: the recording's Init line holds the level given"),
    (_names("spawn_thread", "current_thread"),
     "not an MPI function: a program's own threads (pthreads, OpenMP) are recorded as the "
     "thread of each call (t=), and replayed as simulated threads"),
    (_names("comm_accept", "comm_connect", "comm_join", "open_port", "close_port",
            "publish_name", "unpublish_name", "lookup_name"),
     "ports and names (MPI 4.1 §11.9): not recorded yet (the processes that connect are "
     "started apart, so their logs would need a numbering across the runs; a spawn's "
     "children are recorded)"),
]
"""Calls the recorder does not log, so neither its Fortran binding, the replayer nor the
YAML writer can have them."""

EXCLUDED: dict[str, list[tuple[tuple[str, ...], str]]] = {
    "stand-in": [
        (_names("comm_rank", "comm_size", "type_size", "type_size_x", "pack_size",
                "get_address", "aint_add", "aint_diff", "comm_test_inter", "dims_create",
                "reduce_local"),
         "answered by the stand-in's own objects (Comm.Get_rank, Datatype.Get_size, "
         "MPI.Compute_dims, Op.Reduce_local...) with no handle call, as mpi4py answers them"),
        (tuple(n for n in CALLS if n.startswith("info_")),
         "MPI.Info is the stand-in's own object (a dict of strings), as mpi4py's"),
        (_SESSIONS, "mpi4py's MPI.Session is not in the stand-in yet"),
        (_names("sendrecv_replace"), "Comm.Sendrecv_replace copies the buffer and makes "
                                     "MPI_Sendrecv (the call §3.10 defines it by)"),
    ],
    "C wrapper": _NOT_RECORDED,
    "Fortran": [
        (_names("waitany", "waitsome", "testall", "sendrecv_replace", *_BUFFERS_41,
                "comm_create_from_group", "comm_create_group", "intercomm_create",
                "intercomm_merge", "graph_create", "dist_graph_create_adjacent",
                "dist_graph_create", "session_init", *_NEIGHBOR, "comm_spawn",
                "comm_spawn_multiple", "comm_get_parent", "comm_disconnect"),
         "no binding of its own: MPICH's Fortran calls reach the C wrapper; under Open MPI, "
         "whose Fortran calls PMPI directly, its time counts as time outside MPI"),
    ],
    "replayer": [
        (_names("init_thread"), "replayed as the recording's Init line, whose thread= "
                                "(the level MPI_Init_thread provided) the replay asks for; "
                                "each recorded thread (t=) runs as a simulated thread"),
    ],
    "scenario op": [
        (tuple(n for n in _QUERIES if n != "cart_shift"),
         "local: a scenario computes with rank, size and its own expressions"),
        (_OBJECTS, "objects without communication: a scenario names communicators, windows "
                   "and files with as:"),
        (_names("group_incl", "group_excl", "group_free", "comm_group", *_GROUPS,
                "comm_create", "comm_create_group", "comm_create_from_group", "cart_sub",
                "comm_split_type", "comm_idup", "comm_dup_with_info", "comm_idup_with_info",
                "intercomm_create", "intercomm_create_from_groups", "intercomm_merge",
                "graph_create", "dist_graph_create_adjacent", "dist_graph_create"),
         "communicators made from groups, intercommunicators and graph topologies: not in "
         "the grammar yet (comm_dup, comm_split and cart_create are)"),
        (_names("sendrecv", "sendrecv_replace", "recv_init", "send_init", "bsend_init",
                "ssend_init", "rsend_init", "start", "startall", "mprobe", "improbe", "mrecv",
                "imrecv", "buffer_iflush", "comm_iflush_buffer", *_SESSIONS, *_NEIGHBOR),
         "not in the grammar yet: write it as a Python rank program or an mpi4py script"),
        (_names("current_thread"), "not an MPI function: a scenario's thread is named by "
                                   "its thread op"),
        (_names("comm_spawn", "comm_spawn_multiple", "comm_get_parent", "comm_disconnect",
                "comm_accept", "comm_connect", "comm_join", "open_port", "close_port",
                "publish_name", "unpublish_name", "lookup_name"),
         "dynamic processes: a scenario's programs are fixed at its start (a spawned "
         "program is a Python rank program or an mpi4py script)"),
        (_names("win_allocate_shared", "win_create_dynamic", "get_accumulate", "fetch_and_op",
                "compare_and_swap", "rput", "rget", "raccumulate", "rget_accumulate",
                "win_start", "win_complete", "win_post", "win_wait", "win_test",
                "win_flush_all", "win_flush_local", "win_flush_local_all", "win_sync",
                "win_shared_query", "win_attach", "win_detach"),
         "one-sided beyond put/get/accumulate, fences and locks: not in the grammar yet"),
        (tuple(n for n in CALLS if n.startswith("file_") and n.endswith(("_begin", "_end"))) +
         _names("file_seek", "file_get_position", "file_get_position_shared",
                "file_get_size"),
         "split collectives and file positions: not in the grammar yet"),
    ],
    "YAML writer": [
        (_names("init_thread"), "not replayed as a call (the level is the recording's Init "
                                "line's), so not written as an op"),
    ],
}
"""Door -> (calls, reason): each call a door does not have, and why. A door after the C
wrapper inherits its gaps (:data:`_NOT_RECORDED`), and the YAML writer the scenario op's:
see :func:`excluded`."""


# -- the doors, read from the code ------------------------------------------------------------
@cache
def _standin_names() -> frozenset[str]:
    """Handle calls the stand-in makes: string constants (``self._p2p("comm_idup", ...)``)
    and attributes read off a handle (``mpi.comm_free(...)``) in mpisim/mpi4py, and the
    buffer calls that mpi4py/MPI/buffers.py composes from a verb."""
    found: set[str] = set()
    for path in (PACKAGE / "mpi4py").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
            elif isinstance(node, ast.Attribute) and ast.unparse(node.value).endswith("mpi"):
                found.add(node.attr)
    buffers = (PACKAGE / "mpi4py" / "MPI" / "buffers.py").read_text()
    if 'f"buffer_{name}"' in buffers and 'f"comm_{name}_buffer"' in buffers:
        for verb in ("attach", "detach", "flush", "iflush"):
            found |= {f"buffer_{verb}", f"comm_{verb}_buffer"}
    return frozenset(found & set(CALLS))


@cache
def _composed_ops() -> frozenset[str]:
    """The communicator buffer calls a buffer op makes with ``comm:`` (scenario/ops/p2p.py
    composes ``comm_<verb>_buffer`` from the op's name)."""
    text = (PACKAGE / "scenario" / "ops" / "p2p.py").read_text()
    if "f\"comm_{op.call[len('buffer_'):]}_buffer\"" not in text:
        return frozenset()
    return frozenset(f"comm_{n.removeprefix('buffer_')}_buffer" for n, c in OPS.items()
                     if c.op == "buffer") & frozenset(CALLS)


@cache
def _thread_op_calls() -> frozenset[str]:
    """The handle calls a thread family op makes under another name (``thread:`` is
    spawn_thread: scenario/ops/threads.py's MAKES)."""
    from mpisim.scenario.ops.threads import MAKES
    return frozenset(MAKES.values()) & frozenset(CALLS)


_FAKE_MPI_H = "#define MPI_VERSION 4\n#define MPI_SUBVERSION 1\n#define MPI_BUFFER_AUTOMATIC 0\n"


@cache
def _expanded_shim() -> str | None:
    """The recorder's C file as its preprocessor expands it (against an empty mpi.h of
    version 4.1, so no wrapper is left out by a version test); None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "mpi.h").write_text(_FAKE_MPI_H)
        return subprocess.run([cc, "-E", "-P", "-I", scratch, str(SHIM)], capture_output=True,
                              text=True, check=True).stdout


def _c_wrappers() -> frozenset[str] | None:
    """The MPI functions the recorder defines in C (``int MPI_Send(...)``)."""
    text = _expanded_shim()
    return None if text is None else frozenset(re.findall(r"\bint MPI_(\w+)\s*\(", text))


def _fortran() -> frozenset[str] | None:
    """The gfortran symbols the recorder defines (``void mpi_send_(...)``), lower case:
    written by hand or generated from :data:`mpisim.recorded.record.fortran.BINDINGS`."""
    text = _expanded_shim()
    return None if text is None else frozenset(re.findall(r"\bvoid mpi_(\w+)_\s*\(", text))


def _replayed() -> frozenset[str]:
    from mpisim.recorded.replayer import program
    return frozenset(program._CALLS)


def _written() -> frozenset[str]:
    from mpisim.recorded.toyaml import write as toyaml
    return frozenset(toyaml._WRITERS)


def has(door: str, name: str) -> bool | None:
    """Whether ``door`` has the handle call ``name`` (None: cannot be told here)."""
    if door == "stand-in":
        return name in _standin_names()
    if door == "C wrapper":
        wrappers = _c_wrappers()
        return None if wrappers is None else recorded(name) in wrappers
    if door == "Fortran":
        symbols = _fortran()
        return None if symbols is None else recorded(name).lower() in symbols
    if door == "replayer":
        return recorded(name) in _replayed()
    if door == "scenario op":
        return name in OPS or name in _composed_ops() or name in _thread_op_calls()
    return recorded(name) in _written()


def excluded(door: str, name: str) -> str | None:
    """The reason ``door`` does not have ``name``: from :data:`EXCLUDED`, or derived (a call
    the recorder does not log is in no later recorded door; a call with no scenario op is
    not written as one)."""
    for names, reason in EXCLUDED[door]:
        if name in names:
            return reason
    if door in ("Fortran", "replayer", "YAML writer") and \
            (why := excluded("C wrapper", name)) is not None:
        return f"not recorded: {why}"
    if door == "YAML writer" and (why := excluded("scenario op", name)) is not None:
        return f"no scenario op to write it as: {why}"
    return None


def table() -> dict[str, dict[str, str]]:
    """Call -> door -> ``yes``, ``no`` (and not excluded: a gap), a reason, or ``?``."""
    rows: dict[str, dict[str, str]] = {}
    for name in CALLS:
        row = {}
        for door in DOORS:
            there = has(door, name)
            row[door] = "?" if there is None else "yes" if there else \
                (excluded(door, name) or "no")
        rows[name] = row
    return rows


def markdown() -> str:
    """The contributors' page: every call, every door."""
    reasons: dict[str, int] = {}
    lines = ["# Calls and their front doors", "",
             "*Generated by `python tests/helpers/doors.py --write` from the code: do not edit.*",
             "", "Every call of the handle's table (`mpisim/handle/calltable.py`) and, for each "
             "front door, whether it has the call. A dash is a door that does not have "
             "it, with the reason numbered below the table. "
             "`tests/architecture/test_call_coverage.py` fails on a gap.", "",
             "| call | " + " | ".join(DOORS) + " |", "|---|" + "---|" * len(DOORS)]
    for name, row in table().items():
        cells = []
        for door in DOORS:
            value = row[door]
            if value == "yes":
                cells.append("yes")
            elif value in ("no", "?"):
                cells.append(value)
            else:
                cells.append(f"— ({reasons.setdefault(value, len(reasons) + 1)})")
        lines.append(f"| `{mpi_name(name)}` | " + " | ".join(cells) + " |")
    lines += ["", "Reasons:", ""]
    lines += [f"{k}. {reason}" for reason, k in reasons.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(markdown())
        print(f"wrote {PAGE.relative_to(ROOT)}")
    else:
        sys.stdout.write(markdown())
