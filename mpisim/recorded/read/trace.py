"""Reading a recorded run: the log the PMPI shim (``shim/mpisim_record.c``) writes.

**Format** (version 1). One log per process, UTF-8 text, one record a line, fields separated
by single spaces; ``mpisim record`` concatenates the processes' logs in rank order into one
``.trace`` file (a directory holding ``rank.N.log`` files is read the same way).

- ``#mpisim-trace 1`` starts a process's log; the header lines that follow are
  ``#rank R SIZE``, ``#pid``, ``#mpi V.S`` (the header's MPI version), ``#bsend-overhead N``
  (the library's MPI_BSEND_OVERHEAD), ``#exe PATH``, ``#host NAME`` (gethostname),
  ``#library TEXT`` (MPI_Get_library_version). ``# signal N`` and ``# exit`` say how the
  process ended when it did not return from MPI_Finalize (a fatal signal; exit() inside a
  call, e.g. a fatal MPI error). Other ``#`` lines are comments.
- ``T ID size=S extent=E lb=L kind=K [name=N]``: a datatype, described the first time a call
  uses it (K: ``named`` for predefined types, else the combiner: ``vector``, ``struct``...).
  Never expanded; a derived type gives its type signature (MPI 4.1 §3.3.1) as runs
  ``sig=MPI_INT*4,MPI_DOUBLE*1`` (left out beyond 32 runs or for a darray), which the
  replay's type-matching check compares. ``T=0`` in a call is MPI_DATATYPE_NULL.
- ``C ID size=S rank=R origin=unlogged``: a communicator made by a call the shim does not log.
- ``@ ID OBJECT OFFSET [SYMBOL+OFF]``: a call site (the caller's return address, its
  object file and offset in it, the symbol dladdr found). Reading looks up its source line
  (:mod:`.sources`).
- A call: ``NAME g=NS [t=N] [@=SITE] key=value...``, written when the call is entered.
  ``NAME`` is the MPI name without ``MPI_``; ``g`` is the wall time in nanoseconds spent
  outside MPI since the previous call of its thread returned; ``t`` the thread that made it
  (MPI 4.1 §11.6: left out for thread 0, the one that called MPI_Init; then 1, 2... in the
  order of each thread's first call). Under MPI_THREAD_MULTIPLE a call is written with its
  result when it returns, and a log ends with the calls still in progress, one per thread at
  most; a compact log's keys carry the same ``t=``. Peers are ranks of the call's
  communicator, ``A`` for MPI_ANY_SOURCE and ``N`` for MPI_PROC_NULL; tags ``A`` for
  MPI_ANY_TAG; ``comm`` is a communicator id (0 world, 1 self, then in creation order);
  ``n`` a count and ``T`` a datatype id; ``pk`` MPI_Pack_size (buffered sends); ``r``
  request ids; ``ns`` a count per rank of the communicator (the v forms' send or receive
  counts) and ``Ts`` a datatype id per rank (Alltoallw).
- The v and w collectives' blocks (MPI 4.1 §6.5 to §6.8): a rank that receives blocks (a
  ``Gatherv``'s root, every rank of an ``Allgatherv``, ``Alltoallv``, ``Alltoallw`` and their
  ``I`` and ``_init`` forms) adds its receive datatype ``rT`` (``rTs``: one per rank, the w
  form), counts ``rns`` and displacements ``rds`` (in elements of ``rT``; bytes for the w
  form), left out for communicators of more than 128 processes; a ``Scatterv``'s root adds
  its send displacements ``ds`` and its own receive ``rn``/``rT``; ``ip=1`` says the rank's
  own part is MPI_IN_PLACE (its block stays where it is). The replay checks the own block's
  type signature and overlapping receive blocks with them.
- ``= RC d=NS key=value...``: the result of the call on the line before it, written when it
  returns: RC is ``0`` or an MPI error class (``MPI_ERR_BUFFER``); ``d`` the nanoseconds it
  took; ``st=SOURCE:TAG:BYTES`` the status of each completed receive or probe (``-`` for a
  send request, comma-separated for several); ``r`` a new request's id; ``flag``, ``index``,
  ``done``, ``new`` (a new communicator's id, -1 for MPI_COMM_NULL), ``size``. A log
  that ends without it ended inside that call; one that goes on with another call line
  (the result never written: an error handler that never returned) is read up to the call
  in progress, as if it ended there (``RankLog.broken`` says why), never refused.
- A communicator made from a parent by a collective over it (``Cart_create``, ``Cart_sub``,
  ``Graph_create``, ``Dist_graph_create[_adjacent]``, ``Comm_create``,
  ``Comm_create_group``, ``Comm_split_type``): ``comm`` is the parent; its own arguments
  (``dims``/``periods``/``reorder``; ``remain``; ``index``/``edges``; ``ins``/``outs`` and
  weights ``sw``/``dw``; ``srcs``/``degs``/``dsts``/``wts``; ``grp``, the group's members
  as parent ranks, and ``tag``; ``type`` S for MPI_COMM_TYPE_SHARED, U for MPI_UNDEFINED,
  else the number), lists comma-separated, ``-`` for an empty one; the result's ``new
  color=C size=S rank=R`` is the split of the parent that makes the same communicator (C:
  the parent rank of its rank 0, ``U`` for MPI_COMM_NULL; the key is R), so a replay can
  make the communicator either way (older recordings carry only the split).
- ``Intercomm_create comm=LOCAL ll=LEADER [peer=PEER rl=REMOTE tag=T]`` (the leader's
  arguments at the leaders) and ``Intercomm_merge comm=INTER high=0|1``: the result's
  ``new=ID size=S rank=R`` and, for an intercommunicator, ``rsize=`` its remote size. On an
  intercommunicator, peers are ranks of the remote group.
- Dynamic processes (MPI 4.1 §11.8): ``Comm_spawn comm=C root=R [cmd=COMMAND np=N]`` and
  ``Comm_spawn_multiple comm=C root=R [cmds=A,B np=N,M]`` (the commands and maxprocs at the
  root only, where they are significant); the result's ``new=ID size=S rank=R rsize=K``
  (K the children), ``spawn=SPAWN`` and, when the program asked for them, ``errs=`` each
  child's error class (``0``: started). ``Comm_get_parent`` (the result's ``new=ID``, -1 for
  MPI_COMM_NULL) and ``Comm_disconnect comm=C``.
- A process MPI_Comm_spawn started writes its own log, ``spawn.SPAWN.rank.N.log`` (N its
  rank in its own MPI_COMM_WORLD; ``mpisim record`` joins them after the parents', spawn by
  spawn), whose header adds ``#spawn SPAWN``, ``#parent-world W`` (``0``: the processes
  mpiexec started; else the spawn that started the parents), ``#parents N`` (the parents'
  number) and ``#appnum K`` (its MPI_APPNUM). A spawn's ID is its root's rank in its own
  world and the root's count of spawns (``0.1``: the first rooted at rank 0), after the
  root's world's ID and ``-`` when the root was spawned itself (``0.1-1.2``). In a
  recording made before spawned processes were recorded, the spawn's intercommunicator is a
  ``C ... origin=unlogged`` line and no child has a log.
- Neighbourhood collectives (``Neighbor_allgather[v]``, ``Neighbor_alltoall[v|w]`` and the
  ``I`` forms): ``n``/``T`` what the process sends to each neighbour, or ``ns`` (and ``Ts``)
  a count (and type) per out-neighbour.
- Matched probes (``Mprobe``, ``Improbe``; MPI 4.1 §3.8.2): the result's ``m=ID`` names
  the message taken (``N`` for MPI_MESSAGE_NO_PROC); ``Mrecv``/``Imrecv`` give ``m=ID``,
  ``n`` and ``T``.
- Groups (MPI 4.1 §7.3: ``Comm_group``, ``Group_incl``, ``Group_excl``, ``Group_free``):
  ``gid`` a group id (0: MPI_GROUP_EMPTY), ``ranks`` the ranks given; the result of a call
  that makes a group gives its ``gid`` and its members as ranks of MPI_COMM_WORLD (``wr``),
  so that a replay makes the group whatever call made it.
- ``Comm_idup comm=C``: the result's ``new=ID r=R`` (the communicator is usable once the
  request completed). Sessions (§11.3): ``Session_init`` (the result's ``sid``),
  ``Session_finalize sid=S``, ``Group_from_session_pset sid=S pset=NAME`` (a group's
  result), ``Comm_create_from_group gid=G stag=TAG`` (the result's ``new size rank``);
  string arguments are one word (spaces, ``=`` and ``,`` written ``_``).
- One-sided communication (§12): ``Win_create``/``Win_allocate comm=C size=BYTES du=UNIT``
  (the result's ``win=ID``), ``Win_free win=W``; ``Put``, ``Get``, ``Accumulate``,
  ``Get_accumulate``, ``Fetch_and_op``, ``Compare_and_swap`` with ``win``, ``n``/``T`` (the
  origin's), ``tgt`` (a rank of the window's group), ``tdisp``, ``tn``/``tT`` (the
  target's), ``rn``/``rT`` (a get-accumulate's result), ``op`` (``SUM``... ``REPLACE``,
  ``NO_OP``; ``user`` for a user-defined operation); the synchronization calls
  (``Win_fence``, ``Win_lock``, ``Win_unlock``, ``Win_lock_all``, ``Win_unlock_all``,
  ``Win_flush[_local][_all]``, ``Win_sync``, ``Win_post``, ``Win_start``,
  ``Win_complete``, ``Win_wait``, ``Win_test``) with ``win``, ``tgt``, ``lt`` (``X``
  MPI_LOCK_EXCLUSIVE, ``S`` shared), ``assert`` (``0`` or names: ``nocheck``,
  ``nostore``, ``noput``, ``noprecede``, ``nosucceed``) and, for post and start, ``grp``:
  the group's members as ranks of the window's group.
- Request-based operations (§12.3.5: ``Rput``, ``Rget``, ``Raccumulate``,
  ``Rget_accumulate``): the arguments of their plain forms, the result's ``r=ID``.
- MPI-IO (§14): ``File_open comm=C name=NAME amode=RDWR,CREATE was=BYTES`` (the mode by
  name, a bit MPI does not name as its number; ``was`` the file's size before the open, -1
  for none; the result's ``fh=ID``), ``File_close fh=F``, ``File_delete name=NAME``,
  ``File_set_view fh disp eT fT rep [fmap=DISP+LEN,...]`` (the filetype's data as byte
  blocks from its origin), ``File_get_size fh`` (result ``size``), ``File_set_size``/
  ``File_preallocate fh size``, ``File_seek[_shared] fh off whence=SET|CUR|END``,
  ``File_get_position[_shared] fh`` (result ``pos``), ``File_sync fh``; the accesses
  ``File_[i]read|write[_at][_all|_shared|_ordered]`` and the split collectives'
  ``_begin`` with ``fh``, ``off`` (explicit offsets), ``n`` and ``T``; a blocking access's
  and an ``_end``'s result gives the bytes moved (``nb``), an ``i`` form's ``r=ID``.
- Buffers (MPI 4.1 §3.7.2, §12.7): each buffer argument as the memory its count and datatype
  span, ``ADDR:BYTES`` (hex address at the datatype's true lower bound, bytes to its true
  upper bound): ``sb`` a send or RMA origin buffer, ``rb`` a receive buffer (a collective's,
  a get's or a get-accumulate's result), ``wb`` a window's base and size (``Win_create``'s
  call, ``Win_allocate``'s result); absent for MPI_IN_PLACE, no data, and the v and w
  collectives. The header's ``#data-hash mix64`` (or ``off``: ``mpisim record --no-hash``)
  says whether data were hashed.
- ``H h=HEX w=HEX,...``: a data line, after the call it belongs to (after its result line):
  ``h`` the hash of the bytes a send's buffer held at the call (a contiguous datatype's
  only), ``w`` at a completion (a blocking receive, a wait or a test) one hash per completed
  request in the order of its ``st=`` (a send's buffer again, a receive's bytes received),
  ``-`` where none was taken. A 64-bit word-wise mix of the bytes; never part of a compact
  key.
- Handles as the program passed them, so that a replay raises the error class MPI names
  (§9.4): ``comm=-1`` is MPI_COMM_NULL, ``T=0`` MPI_DATATYPE_NULL, ``r=0``
  MPI_REQUEST_NULL, ``op=NULL`` MPI_OP_NULL. A reduction (``Reduce``, ``Allreduce``,
  ``Scan``, ``Exscan``, ``Reduce_scatter[_block]``, their ``I`` and ``_init`` forms) gives
  its ``op``: a predefined one by name (``SUM``...), a user one by the id its
  ``Op_create commute=0|1`` result gave (``op=u1``; ``user`` for one made before the log
  started); ``Op_free op=u1``.
- Objects' lives: ``Type_commit T=ID`` and ``Type_free T=ID`` (a derived type committed and
  freed, §5.1.9), ``Cancel r=ID`` (§3.8.4), ``Request_free r=ID``, and the persistent
  collectives (§6.13: ``Barrier_init``, ``Bcast_init``... ``Alltoallw_init``: the arguments of
  their nonblocking forms, the result's ``r=ID``), started by ``Start``/``Startall``.
- The large-count bindings (``MPI_Send_c``... ``MPI_Bcast_c``...) are logged as their int
  forms (``Send``, ``Bcast``), ``n`` an MPI_Count.
- ``# signal N g=NS`` / ``# exit g=NS`` (or ``in=NS``): how long the process had been
  outside MPI since its last call returned (or inside the call in progress) when it ended.

A call without a result line was still in progress when the process ended: a blocked call
of a deadlock that was killed, or the call in which the process died. A last line without
its newline (a process killed while writing) is ignored.

Problems are :class:`TraceError` naming the file, line and key.

Reading is ``mpisim.recorded.read.columns``' (each distinct line shape read once, the numbers
that vary in numpy columns) with the grammar of ``mpisim.recorded.read.lines``; what a
recording holds is ``mpisim.recorded.read.records``'.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from .columns import read_logs
from .compact import MAGIC as COMPACT_MAGIC
from .lines import MAGIC, VERSION
from .records import RankLog, Trace, TraceError
from .sources import locate, object_path
from .stream import read_streamed

__all__ = ["MADE_AS_SPLIT", "MAGIC", "VERSION", "is_trace", "locate_sources", "log_files",
           "read_trace", "spawn_key"]

_RANK_FILE = re.compile(r"^rank\.(\d+)\.log$")
_SPAWN_FILE = re.compile(r"^spawn\.(\d+\.\d+(?:-\d+\.\d+)*)\.rank\.(\d+)\.log$")
MADE_AS_SPLIT = ("Cart_create", "Cart_sub", "Graph_create", "Dist_graph_create",
                 "Dist_graph_create_adjacent", "Comm_create", "Comm_create_group",
                 "Comm_split_type")
"""Calls that make a communicator by a collective over a parent, logged with their own
arguments and, in the result, as the split of the parent that makes the same communicator
(a recording made before the arguments were logged is replayed as that split)."""


def is_trace(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a recording (a file starting with the magic line, or a directory
    of ``rank.N.log`` files).

    Parameters
    ----------
    path
        A file or directory (one that cannot be read is not a recording).

    Returns
    -------
    bool
        True for a recording.
    """
    p = Path(path)
    if p.is_dir():
        return bool(log_files(p))
    try:
        with open(p, "rb") as f:
            head = f.read(len(COMPACT_MAGIC))
        return head.startswith(MAGIC.encode()) or head.startswith(COMPACT_MAGIC)
    except OSError:
        return False


def read_trace(path: str | os.PathLike[str], sources: bool = True) -> Trace:
    """Read a recording (a ``.trace`` file or a directory of ``rank.N.log``); ``sources``:
    look up the call sites' source lines (:func:`locate_sources`).

    Parameters
    ----------
    path
        The recording: a ``.trace`` file (``mpisim record`` writes it) or a directory of
        ``rank.N.log`` files.
    sources
        Whether to look up each call site's ``file:line`` in the program's debug
        information (default True; False is faster and leaves addresses).

    Returns
    -------
    Trace
        Every process's log: ``size``, ``library``, ``outcome``.

    Raises
    ------
    ValueError
        A ``TraceError`` naming the file, line and key of what cannot be read.
    """
    p = Path(path)
    try:
        if p.is_dir():
            files = log_files(p)
            if not files:
                raise TraceError(f"{p}: no rank.N.log files (not a recording)")
            logs = [log for f in files for log in _read_file(f)]
        else:
            logs = _read_file(p)
    except OSError as e:
        raise TraceError(f"{p}: cannot read the recording: {e.strerror or e}") from None
    trace = _assemble(str(p), logs)
    if sources:
        locate_sources(trace)
    return trace


def log_files(directory: str | os.PathLike[str]) -> list[Path]:
    """A recording directory's logs in the order a recording holds them: ``rank.N.log`` by
    rank, then each spawn's ``spawn.ID.rank.N.log`` (MPI 4.1 §11.8.2), by spawn and rank."""
    ranks, spawned = [], []
    for f in Path(directory).iterdir():
        if m := _RANK_FILE.match(f.name):
            ranks.append((int(m.group(1)), f))
        elif m := _SPAWN_FILE.match(f.name):
            spawned.append((spawn_key(m.group(1)), int(m.group(2)), f))
    return [f for _, f in sorted(ranks)] + [f for _, _, f in sorted(spawned)]


def spawn_key(spawn: str) -> tuple[tuple[int, ...], ...]:
    """A spawn ID (``0.1``, ``0.1-1.2``: the root's world rank and its count of spawns,
    after its own world's ID) as numbers, for sorting."""
    try:
        return tuple(tuple(int(x) for x in part.split(".")) for part in spawn.split("-"))
    except ValueError:
        return ((1 << 30,),)


def locate_sources(trace: Trace) -> None:
    """Give every call site of ``trace`` its source line where one can be found (once per
    site: the calls made there read their site from the log's table)."""
    placed = [(log, site, object_path(site.obj, log.header.get("exe")))
              for log in trace.processes for site in log.sites.values()]
    found = locate((path, site.offset) for _log, site, path in placed)
    for log, site, path in placed:
        where = found.get((path, site.offset))
        if where is not None:
            log.sites[site.id] = replace(site, source=where[0], function=where[1])


def _read_file(path: Path) -> list[RankLog]:
    """A file's logs, in the text format or the compact one (:mod:`.compact`), told by
    their first bytes."""
    with open(path, "rb") as f:
        if f.read(len(COMPACT_MAGIC)) == COMPACT_MAGIC:  # read as it is replayed
            return read_streamed(str(path))
        f.seek(0)
        return read_logs(str(path), f)


def _assemble(path: str, logs: list[RankLog]) -> Trace:
    """The logs as one run: mpiexec's processes (every rank of their world) and each
    spawn's (every rank of its own world, MPI 4.1 §11.8.2), by spawn ID."""
    first = [log for log in logs if log.spawn is None]
    if not first:
        raise TraceError(f"{path}: no process logs in the recording" if not logs else
                         f"{path}: only spawned processes' logs (#spawn), none of the "
                         "processes mpiexec started")
    spawned: dict[str, list[RankLog]] = {}
    for log in logs:
        if log.spawn is not None:
            spawned.setdefault(log.spawn, []).append(log)
    return Trace(path, _world(path, first, "every process must have reached MPI_Init with "
                              "the recorder loaded"),
                 {sid: _world(path, spawned[sid], f"every process of spawn {sid} must have "
                              "reached MPI_Init with the recorder loaded")
                  for sid in sorted(spawned, key=spawn_key)})


def _world(path: str, logs: list[RankLog], why: str) -> list[RankLog]:
    """One MPI_COMM_WORLD's logs by rank: they agree on its size and none is missing."""
    size = logs[0].size
    by_rank: dict[int, RankLog] = {}
    for log in logs:
        if log.size != size:
            raise TraceError(f"{log.path}: #rank: rank {log.rank} says {log.size} processes, "
                             f"rank {logs[0].rank} says {size}")
        if log.rank in by_rank:
            raise TraceError(f"{log.path}: #rank: two logs of rank {log.rank}"
                             + (f" of spawn {log.spawn}" if log.spawn else ""))
        by_rank[log.rank] = log
    missing = [r for r in range(size) if r not in by_rank]
    if missing:
        spawn = f" of spawn {logs[0].spawn}" if logs[0].spawn else ""
        raise TraceError(f"{path}: no log of rank {missing[0]}{spawn} (of {size}): {why}")
    return [by_rank[r] for r in range(size)]
