"""Collective operations (MPI 4.1 §6) over any communicator, built from point-to-point
messages (see :mod:`.channel`) by the algorithms of :mod:`.algorithms`.

:class:`Collectives` starts one process's part of a collective call: it checks the
arguments, picks the algorithm (the call's ``algorithm=``, else the run's
``mpi.collectives`` setting, else the profile's default), and runs the algorithm as a SimPy
process whose value is the call's result. Blocking calls yield that process; nonblocking
ones (``ibcast``...) return a Request that completes with it, its value in
``request.result``.

Data: a numpy array travels as its bytes (and arrives as a copy); any other Python object
travels as ``count`` elements of ``datatype`` (0 bytes when no count is given), as for
point-to-point calls. Reductions apply the op elementwise (numpy arrays, lists) or to the
values (numbers, or anything a user op takes). Each family's arguments (blocks of the v
forms, ``MPI_IN_PLACE``, receive buffers) are read by :mod:`.arguments`; the members' calls
of one collective are compared where they meet (:mod:`.meeting`), and a mismatch answered
as the profile's library answers it.
"""

from __future__ import annotations

from typing import Any

from ..engine.clock import done, failed
from ..engine.port import RankPort
from ..engine.sites import site_text
from ..engine.steps import steps
from ..mpi.errors import ErrArg, MPIError
from ..mpi.findings import Call
from ..p2p.requests import Request, Status
from ..values.readers import SettingError
from . import intercomm
from .algorithms import ALGORITHMS
from .arguments import _storing, check_root, nbytes_of, reduction
from .channel import Channel, Entered
from .meeting import Meetings, Signature, answer
from .ops import (
    BAND,
    BOR,
    BXOR,
    LAND,
    LOR,
    LXOR,
    MAX,
    MAXLOC,
    MIN,
    MINLOC,
    OPS,
    PROD,
    SUM,
    Op,
)

__all__ = ["ALGORITHMS", "BAND", "BOR", "BXOR", "DEFAULTS", "LAND", "LOR", "LXOR", "MAX",
           "MAXLOC", "MIN", "MINLOC", "OPS", "PROD", "SUM", "Collectives", "Op",
           "check_algorithms", "check_root", "nbytes_of", "reduction"]

DEFAULTS: dict[str, dict[str, str]] = {
    # the standard's profile: the first (textbook) algorithm of each collective
    "standard": {kind: next(iter(algs)) for kind, algs in ALGORITHMS.items()},
    # MPICH's choices for short messages (src/mpi/coll/*/ *_intra_auto: binomial bcast below
    # 12 KiB, recursive doubling allreduce below 2 KiB and allgather for powers of two,
    # dissemination barrier, pairwise alltoall above the Bruck range)
    "mpich": {"barrier": "dissemination", "bcast": "binomial", "reduce": "binomial",
              "allreduce": "recursive_doubling", "gather": "binomial", "scatter": "binomial",
              "allgather": "recursive_doubling", "alltoall": "pairwise",
              "scan": "recursive_doubling"},
    # Open MPI's coll/tuned fixed decisions for few processes and short messages
    # (coll_tuned_decision_fixed.c: linear alltoall and gather, ring allgather, recursive
    # doubling allreduce, binomial bcast)
    "openmpi": {"barrier": "dissemination", "bcast": "binomial", "reduce": "binomial",
                "allreduce": "recursive_doubling", "gather": "linear", "scatter": "binomial",
                "allgather": "ring", "alltoall": "linear", "scan": "linear"},
}
"""Each profile's algorithm per collective (collectives not named take the standard's)."""


def check_algorithms(chosen: dict[str, str]) -> dict[str, str]:
    """``chosen`` (collective -> algorithm) if every name is known; else SettingError naming
    ``mpi.collectives.<collective>``.

    Parameters
    ----------
    chosen
        Collective to algorithm, as the ``mpi.collectives`` setting takes them
        (``{"allreduce": "ring", "bcast": "binomial"}``; the table above lists them).

    Returns
    -------
    dict
        ``chosen`` itself.

    Raises
    ------
    ValueError
        A ``SettingError`` naming the unknown collective or algorithm and the valid ones.
    """
    for kind, alg in chosen.items():
        if kind not in ALGORITHMS:
            raise SettingError(f"mpi.collectives.{kind}", "unknown collective (valid: "
                               f"{', '.join(ALGORITHMS)})")
        if alg not in ALGORITHMS[kind]:
            raise SettingError(f"mpi.collectives.{kind}", f"unknown algorithm {alg!r} (one of "
                               f"{', '.join(ALGORITHMS[kind])})")
    return chosen


class Collectives:
    """Starts collective calls for every process of one run."""

    def __init__(self, env: Any, transport: Any, profile: str,
                 chosen: dict[str, str] | None = None, library: Any = None,
                 synchronizing: bool = False) -> None:
        self.env = env
        self.synchronizing = synchronizing  # mpi.sync_collectives: no early leaver (§6.1)
        self.tp = transport
        self.choice = {**DEFAULTS["standard"], **DEFAULTS.get(profile, {}),
                       **check_algorithms(chosen or {})}
        self.library = library  # the Profile: how a mismatched call is answered
        self.entered = Entered()
        self.meetings = Meetings()
        self.entered.mismatches = self.meetings.mismatches

    def start(self, port: RankPort, call: str, kind: str, comm: Any, algorithm: str | None,
              blocking: bool, make_args: Any, recvbuf: Any = None, sendbuf: Any = None,
              sendroot: Any = None) -> Any:
        """One process's part of ``call``: an event (blocking) or a Request. The Args'
        ``deliver`` (or a numpy ``recvbuf``) receives the value too; a nonblocking call's
        numpy ``sendbuf`` is watched until its completion (§6.12, §3.7.2), at the rank
        ``sendroot`` of the communicator only when given (a broadcast's, a scatter's)."""
        env = self.env
        try:
            comm = port.comm(comm)
            args = make_args(comm)
            if comm.is_inter:  # MPI 4.1 §6.2.2: two groups (mpisim.collectives.intercomm)
                deliver = args.deliver or (_storing(recvbuf) if recvbuf is not None else None)
                return intercomm.start(self, port, call, kind, comm, blocking, args, deliver)
            alg = ALGORITHMS[kind].get(algorithm or self.choice[kind])
            if alg is None:
                raise ErrArg(f"{call}: unknown algorithm {algorithm!r} (one of "
                             f"{', '.join(ALGORITHMS[kind])})")
        except MPIError as e:
            port.enter(call)
            return failed(env, e)
        tag = comm.colls
        comm.colls += 1
        ch = Channel(env, self.tp, comm, call, tag, self.entered)
        port.enter(call, nbytes=args.nbytes, obj=ch)
        if args.overlap is not None:
            self._overlap(port, call, comm, args.overlap)
        key = (ch.ctx, tag)
        how = self._meet(port, call, comm, ch, key, args)
        if how == "hang":  # as the libraries do: never completes (a deadlock's report)
            proc = env.event()
        else:
            if how != "run":  # a broadcast run from another root (bcast_root_mismatch)
                args.root = int(how.split()[1])
            deliver = args.deliver or (_storing(recvbuf) if recvbuf is not None else None)
            gen = _finished(alg(ch, args), deliver, self.meetings, key, ch.me)
            if self.synchronizing:
                gen = _synchronized(gen, self.entered, env, ch)
            proc = steps(env, gen)
        if blocking:
            return proc
        req = Request("coll", call, ch.me, -1, -1, args.nbytes)
        req.channel = ch  # a wait on it waits for the members its channel names
        req.where = port.site()
        if sendroot is not None and comm.rank != sendroot:
            sendbuf = None  # (significant at the root only)
        port.issued(req, sendbuf)  # to be completed before MPI_Finalize (correctness checks)
        proc.callbacks.append(lambda p: _complete(req, p, env))
        return done(env, req)


    def _overlap(self, port: RankPort, call: str, comm: Any, blocks: tuple[int, int]) -> None:
        """An erroneous call (MPI 4.1 §6.5): two blocks of its receive buffer overlap; the
        call goes on (as the libraries do, the later block's data wins), the finding says
        so."""
        findings = self.tp.findings
        if findings is None:
            return
        j, k = blocks
        where = "" if comm.context == 0 else f" on {comm.name}"
        findings.add("collective-overlap", (
            f"rank {comm.world(comm.rank)}'s {call}{where}: the blocks of ranks {j} and {k} "
            "overlap in its receive buffer (its counts and displacements write a location "
            "twice)"), (Call(comm.world(comm.rank), call, site_text(port.site())),))

    def _meet(self, port: RankPort, call: str, comm: Any, ch: Channel, key: tuple[int, int],
              args: Any) -> str:
        """Compare this member's call with the others' of the same meeting (6.1); how it
        goes on (see :func:`.meeting.answer`)."""
        sig = args.sig or Signature()
        sig.call, sig.rank, sig.world, sig.where = call, comm.rank, ch.me, port.site()
        found = self.meetings.meet(key, sig, comm.size, comm.name)
        if not found and self.meetings.mismatch(key) is None:
            return "run"
        return answer(self.meetings, key, sig, found, self.library)


def _finished(gen: Any, deliver: Any, meetings: Meetings, key: tuple[int, int],
              me: int) -> Any:
    """The collective's value, delivered into the call's receive buffer too (a numpy scalar
    value as well as an array: a 0-d buffer receives a scalar); or the error a mismatched
    call ends with at this rank (MPI_ERR_TRUNCATE...)."""
    value = yield from gen
    error = meetings.errors.pop((*key, me), None) if meetings.errors else None
    if error is not None:
        raise error
    return value if deliver is None else deliver(value)


def _synchronized(gen: Any, entered: Entered, env: Any, ch: Channel) -> Any:
    """The call's value once its algorithm is done and every member has entered it: a
    collective as synchronizing as a barrier (``mpi.sync_collectives``; MPI 4.1 §6.1: a
    correct program completes "whether collective communications are synchronizing or
    not"). A member still missing is what the deadlock report names."""
    value = yield from gen
    waited = entered.all_in(env, ch.ctx, ch.tag)
    if waited is not None:
        yield waited
    return value


def _complete(req: Request, proc: Any, env: Any) -> None:
    if proc._ok:
        req.result = proc._value
    else:
        proc._defused = True
        req.error = proc._value
    req.status = Status(-1, -1, 0)
    req.known(env._now)
