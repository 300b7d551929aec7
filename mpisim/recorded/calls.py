"""A recorded call in the ``mpi`` handle's terms, for the replay (:mod:`.program`) and for
``--to-yaml`` (:mod:`.toyaml`): which call of the handle it is, and its arguments by the
handle's parameter names.

A recording names a call as MPI does, without ``MPI_`` (``Bsend``, ``Comm_attach_buffer``).
The handle's call of that MPI name (:func:`~mpisim.handle.calltable.mpi_name`) is the one a
replay makes and the op ``--to-yaml`` writes, so the families of calls below are read from
the handle's table (:data:`~mpisim.handle.calltable.CALLS`), as the scenario language reads
its own. The recorder also logs calls the handle has none for (``Init``, ``Finalize``,
``Abort``, ``Comm_set_errhandler``, ``Testany``, ``Testsome``, and the communicator makers
of :data:`.read.trace.MADE_AS_SPLIT`): those are the readers' own.

:func:`handle_args` reads a recorded call's arguments (the recorder's keys: ``n``, ``T``,
``src``...) as the handle's keyword arguments, once for both readers;
:data:`DATATYPES_BY_MPI_NAME` and :func:`local_path` name a recorded datatype and file as
both do.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from ..handle.calltable import CALLS, mpi_name
from ..handle.calltable import Call as HandleCall
from ..mpi import datatypes as _dt
from ..mpi.constants import ANY_SOURCE, ANY_TAG
from ..mpi.errors import MPIError
from .read.records import Call

__all__ = ["BUFFERS", "COLLECTIVES", "COMMS", "COMM_BUFFERS", "COMPLETIONS",
           "DATATYPES_BY_MPI_NAME", "DATA_ARGS", "HANDLE", "ISENDRECVS", "PERSISTENT", "PROBES",
           "RECEIVES", "RECV_ARGS", "SENDRECVS", "SENDS", "SEND_ARGS", "SPLIT", "VECTORS",
           "Unsupported", "handle_args", "handle_name", "local_path"]


class Unsupported(MPIError):
    """A recorded call mpisim does not model (or a handle made by a call not recorded)."""

    error_class = "MPI_ERR_OTHER"


HANDLE: dict[str, HandleCall] = {mpi_name(c.name).removeprefix("MPI_"): c
                                 for c in CALLS.values()}
"""Every call of the handle by the name a recording gives it (``Bsend``: ``bsend``)."""


def handle_name(recorded: str) -> str:
    """The handle's call of a recorded call: ``Reduce_scatter_block`` -> ``reduce_scatter_block``
    (KeyError for a call the handle has none for)."""
    return HANDLE[recorded].name


def _of(*ops: str) -> tuple[str, ...]:
    """The recorded names of the handle's calls a scenario op of these kinds makes."""
    return tuple(name for name, c in HANDLE.items() if c.op in ops)


SENDS = _of("send")
"""``Send``, ``Bsend``, ``Ssend``, ``Rsend`` and their nonblocking forms."""
RECEIVES = _of("recv")
PROBES = _of("probe")
COLLECTIVES = _of("collective", "split", "vector")
"""The collectives a scenario has an op for, blocking and nonblocking (``Barrier`` is a
local op there)."""
SPLIT = _of("split")
"""The collectives whose send buffer holds one item per rank (``Scatter``, ``Alltoall``...)."""
VECTORS = _of("vector")
"""The collectives that give a count per rank (``Scatterv``, ``Alltoallv``, ``Alltoallw``,
``Reduce_scatter`` and their nonblocking forms): the recording's ``ns`` (and ``Ts``)."""
COMMS = _of("comm")
"""``Comm_dup``, ``Comm_split``, ``Comm_free``."""
COMPLETIONS = tuple(name for name in _of("request", "requests") if name != "Request_free")
"""The waits and tests of the handle (``Testany``, ``Testsome``: the recorder's own)."""
BUFFERS = _of("buffer")
"""``Buffer_attach``, ``Buffer_detach``, ``Buffer_flush``: the process's buffer."""
COMM_BUFFERS = {comm: name for name in (*BUFFERS, "Buffer_iflush")
                if (comm := f"Comm_{name.removeprefix('Buffer_')}_buffer") in HANDLE}
"""A communicator's buffer (MPI 4.1), as the scenario interpreter names it
(``comm_<verb>_buffer``): ``Comm_attach_buffer`` -> ``Buffer_attach``..."""
PERSISTENT = tuple(f"{name}_init" for name in (*SENDS, *RECEIVES) if f"{name}_init" in HANDLE)
"""``Send_init``, ``Bsend_init``, ``Ssend_init``, ``Rsend_init``, ``Recv_init``."""

_RECORDED = {"dest": "dest", "source": "src", "tag": "tag", "sendtag": "tag",
             "recvtag": "rtag", "count": "n", "sendcount": "n", "recvcount": "rn",
             "datatype": "T", "sendtype": "T", "recvtype": "rT", "root": "root",
             "comm": "comm"}
"""The recording's key of each handle parameter (:mod:`.trace`), in the order a scenario op
writes them."""

_DEFAULTS = {"source": ANY_SOURCE, "sendtag": 0, "recvtag": ANY_TAG, "count": 0,
             "sendcount": 0, "recvcount": 0, "datatype": 0, "sendtype": 0, "recvtype": 0,
             "comm": 0}
"""A parameter the recording leaves out: MPI's wildcard, no elements, id 0 (the predefined
datatype 0, MPI_COMM_WORLD). ``tag``: MPI_ANY_TAG where the call matches a source, else 0;
``root``: left to the handle; ``dest``: always recorded."""

SEND_ARGS = CALLS["send"].args
RECV_ARGS = CALLS["recv"].args
SENDRECVS = {"Sendrecv": ("dest", "sendtag", "sendcount", "sendtype", "source", "recvtag",
                          "recvcount", "recvtype", "comm"),
             "Sendrecv_replace": ("dest", "sendtag", "source", "recvtag", "count", "datatype",
                                  "comm")}
"""The handle's send-receives, and the parameters of each that a recording gives."""
ISENDRECVS = {"Isendrecv": "Sendrecv", "Isendrecv_replace": "Sendrecv_replace"}
"""The nonblocking send-receives (MPI 4.1 §3.10), which the handle has no call for: each is
replayed as the standard defines it, an irecv and an isend under one request; by the
blocking form whose parameters (:data:`SENDRECVS`) its recording gives."""
DATA_ARGS = ("count", "datatype", "root", "comm")
"""A collective's parameters that a recording gives (its buffers are the replay's own)."""


def handle_args(call: Call, params: Iterable[str] | None = None) -> dict[str, Any]:
    """The handle's keyword arguments ``params`` of a recorded call (default: those the handle's
    table lists for its call's op), in the order a scenario op writes them. The values are
    the recording's: peers and tags as recorded (MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ANY_TAG),
    ``count`` in elements, ``datatype`` and ``comm`` the recording's ids (the replay makes them
    its own, ``--to-yaml`` names them); a key left out takes its default (``_DEFAULTS``)."""
    wanted = set(HANDLE[call.name].args if params is None else params)
    given = call.args
    out: dict[str, Any] = {}
    for param, key in _RECORDED.items():
        if param not in wanted:
            continue
        if key in given:
            out[param] = given[key]
        elif param == "dest":  # a send's destination is always recorded
            raise Unsupported(f"{call.where()}: MPI_{call.name} without its destination "
                              "(dest=): a damaged recording?")
        elif param == "tag":
            out[param] = ANY_TAG if "source" in wanted else 0
        elif param in _DEFAULTS:
            out[param] = _DEFAULTS[param]
    return out


DATATYPES_BY_MPI_NAME = {f"MPI_{name}": dt for name, dt in _dt.BASIC_TYPES.items()}
"""mpisim's predefined datatypes by their MPI names: a recorded ``MPI_DOUBLE`` is ``DOUBLE``
(``--to-yaml`` writes it by name when its recorded size agrees)."""


def local_path(directory: Path, name: str) -> Path:
    """Where a replay keeps the file the program named ``name``, under ``directory``: an
    absolute name made relative, ``..`` and ``.`` dropped, a ROMIO file-system prefix
    (``ufs:``) left out (:mod:`.replayer.files`); ``--to-yaml`` names the file the same way."""
    prefix, colon, rest = name.partition(":")
    if colon and len(prefix) > 1 and prefix.isalpha() and rest:
        name = rest  # a ROMIO file-system prefix (ufs:, nfs:...)
    parts = [p for p in PurePosixPath(name).parts if p not in ("/", "..", ".")]
    return directory.joinpath(*parts) if parts else directory / "unnamed"
