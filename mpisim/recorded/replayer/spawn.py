"""Replaying dynamic processes (MPI 4.1 §11.8, §11.10.4): one function per recorded call, as
:mod:`.program`'s.

A recording of a spawning program holds the children's logs beside their parents'
(``spawn.ID.rank.N.log``, :attr:`.records.Trace.spawns`). The replay starts the children
with the simulated MPI_Comm_spawn when the parents' replay reaches the recorded call: each
child replays its own log (its rank in its own MPI_COMM_WORLD picks it), on its own
MPI_COMM_WORLD and on the intercommunicator that MPI_Comm_get_parent gives it, as the
recorded program did; the spawn's latency is the profile's ``spawn_latency``. A spawn that
failed in the recording is made as recorded: its arguments go to the simulated spawn, which
fails as the library did where it can (a maxprocs below 1 at the root: MPI_ERR_ARG, at
once, the other parents waiting in it as MPICH's did); a failure of the recorded machine the
replay cannot know (a command not found) is the recorded error class, raised at the call.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...mpi import errors
from ...mpi.dynamic import ErrSpawn
from ...mpi.errors import MPIError
from ..calls import Unsupported
from ..read.records import Call
from .comms import registered

__all__ = ["SPAWNED", "Child"]

Gen = Generator[Any, Any, None]


class Child:
    """A spawned process's program in the replay: the log of its spawn and rank (its rank
    in its own MPI_COMM_WORLD), replayed by the recording's program (``child``)."""

    def __init__(self, program: Any, spawn: str | None, scale: float, as_matched: bool) -> None:
        self.program, self.spawn = program, spawn
        self.scale, self.as_matched = scale, as_matched
        self.__name__ = f"spawn {spawn}"

    def __call__(self, mpi: Any) -> Any:
        return self.program.child(mpi, self.spawn, self.scale, self.as_matched)


def _counts(call: Call, logs: list[Any] | None) -> list[int]:
    """Each command's maxprocs: the children's logs by their MPI_APPNUM when the spawn
    started them, else the recorded arguments."""
    recorded = [int(n) for n in call.args.get("np", [])] or [1]
    if not logs:
        return recorded
    counts = [0] * len(recorded)
    for log in logs:
        app = int(log.header.get("appnum", 0) or 0)
        if app >= len(counts):
            counts.extend([0] * (app + 1 - len(counts)))
        counts[app] += 1
    return counts


def spawn(r: Any, call: Call) -> Gen:
    """MPI_Comm_spawn and MPI_Comm_spawn_multiple (collective over ``comm``, the root's
    arguments count): the simulated spawn, its children replaying their logs."""
    mpi, a = r.mpi, call.args
    parent = r.comm(call)
    sid = call.out.get("spawn")
    logs = r.program.spawned_logs(sid)
    at_root = "np" in a
    if at_root and call.returned and call.error is None and logs is None:
        raise Unsupported(f"{call.where()}: the recording holds no log of the processes this "
                          f"MPI_{call.name} started (spawn {sid or '?'}; recorded before "
                          "spawned processes were, or they never reached MPI_Init with the "
                          "recorder loaded)")
    counts = _counts(call, logs)
    child = Child(r.program, sid, r.scale, r.as_matched)
    if call.error is not None and (not at_root or min(counts) >= 1):
        _failed_as_recorded(r, call)  # (a failure the replay's spawn would not make)
    if call.name == "Comm_spawn":
        made = yield mpi.comm_spawn(child, maxprocs=counts[0], root=a.get("root", 0),
                                    comm=parent)
    else:
        made = yield mpi.comm_spawn_multiple([child] * len(counts), maxprocs=counts,
                                             root=a.get("root", 0), comm=parent)
    registered(r, call, made)


def _failed_as_recorded(r: Any, call: Call) -> None:
    """A spawn that failed in the recording for a reason of the recorded machine (a
    command not found, no resources): raised with the recorded error class."""
    name = str(call.error)
    cls = next((c for c in vars(errors).values() if isinstance(c, type)
                and issubclass(c, MPIError) and c.error_class == name), None)
    if cls is None:
        cls = ErrSpawn if name == "MPI_ERR_SPAWN" else errors.ErrOther
    raise cls(f"MPI_{call.name} failed with {name} in the recording (its processes never "
              "started); the replay fails it as recorded")


def get_parent(r: Any, call: Call) -> Gen:
    """MPI_Comm_get_parent: the intercommunicator to the parents under the recording's id
    (MPI_COMM_NULL, ``new=-1``, in a process mpiexec started)."""
    new = call.out.get("new", -1)
    made = r.mpi.comm_get_parent()
    if new >= 0 and made is not None:
        r.mpi.comm_set_name(made, f"comm{new}")
        r.comms[new] = made
    elif (new >= 0) != (made is not None):
        r.note(call, "the replay's process has " + ("no parent" if made is None else
                                                  "a parent") + "; the recorded one had "
               + ("one" if new >= 0 else "none"))
    return
    yield


def disconnect(r: Any, call: Call) -> Gen:
    """MPI_Comm_disconnect (collective over both groups, MPI 4.1 §11.10.4): the handle is
    freed once every member called it and its communication completed."""
    comm = r.comm(call)
    yield r.mpi.comm_disconnect(comm if comm is not None else r.mpi.comm_world)
    r.comms.pop(call.args.get("comm"), None)
    r.ops.clear()


SPAWNED: dict[str, Any] = {"Comm_spawn": spawn, "Comm_spawn_multiple": spawn,
                           "Comm_get_parent": get_parent, "Comm_disconnect": disconnect}
"""The recorded calls this module replays, by name."""
