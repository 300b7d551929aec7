"""One rank's replay state: the recording's handles (communicators, requests, datatypes,
messages, windows, files, groups...) mapped to this replay's, and the checks every call
family makes against the recording (a matched status, a pinned wildcard, a divergence
noted). The loop that runs the calls is :mod:`.program`'s; the calls of each family
(:mod:`.p2p`, :mod:`.comms`, :mod:`.files`, :mod:`.onesided`, :mod:`.objects`) work on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...handle.access import driven
from ...mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from ..calls import Unsupported, handle_args
from ..read.records import Call, RankLog
from ..read.trace import MADE_AS_SPLIT
from .objects import NULL_COMM, NULL_TYPE, make_type, null_comm, null_type

__all__ = ["REPLAYED_MAKERS", "RankReplay"]

REPLAYED_MAKERS = ", ".join(f"MPI_{name}" for name in ("Comm_dup", "Comm_idup", "Comm_split",
                                                        *MADE_AS_SPLIT, "Intercomm_create",
                                                        "Intercomm_merge",
                                                        "Comm_create_from_group",
                                                        "Comm_spawn", "Comm_spawn_multiple",
                                                        "Comm_get_parent"))
"""The communicator makers the recorder logs (a communicator made otherwise is refused)."""


class RankReplay:
    """One rank's replay: the recorded handles (communicators, requests, types) mapped to
    mpisim's; ``notes`` collects its divergences from the recording, ``quirks`` what the
    recorded library did that MPI does not say."""

    def __init__(self, mpi: Any, log: RankLog, scale: float, as_matched: bool,
                 notes: list[str], quirks: list[str]) -> None:
        self.mpi, self.log, self.scale, self.as_matched = mpi, log, scale, as_matched
        driven(mpi)  # the replay takes some calls' events itself (a persistent
        # request's init): not a program's yield to check (mpisim.engine.yields)
        self.notes, self.quirks = notes, quirks
        self.comms: dict[int, Any] = {0: None, 1: mpi.comm_self}
        self.reqs: dict[int, Any] = {}
        self.types: dict[int, Any] = {}
        self.messages: dict[int, Any] = {}
        self.wins: dict[int, Any] = {}
        self.files: dict[int, Any] = {}
        """The open files (MPI-IO, :mod:`.files`) by the recording's ``fh``."""
        self.groups: dict[int, Any] = {}
        self.sessions: dict[int, Any] = {}
        self.pcolls: dict[int, Any] = {}
        """The persistent collectives (MPI 4.1 §6.13) by request id (:mod:`.objects`)."""
        self.type_objects: dict[int, Any] = {}
        """The derived datatypes the program committed and has not freed, by id."""
        self.user_ops: dict[str, Any] = {}
        """The user ops of MPI_Op_create by the recording's name (``u1``...)."""
        self.idups: dict[int, Any] = {}
        """The requests of MPI_Comm_idup by the new communicator's id: it is usable once
        its request completed (MPI 4.1 §7.4.2), and is taken from it then."""
        self.ops: dict[tuple[int, int], tuple[Any, Any]] = {}
        """Each (call shape, result shape)'s op (:meth:`op`); cleared when a communicator
        is freed (the recording's ids stay unique, the replay's communicator goes)."""

    # -- handles -------------------------------------------------------------------------
    def note(self, call: Call, text: str) -> None:
        """A divergence of this call from the recording (the replay's warnings)."""
        self.notes.append(f"rank {self.mpi.rank} {call.where()} MPI_{call.name}: {text}")

    def handle_kwargs(self, call: Call, params: Iterable[str] | None = None) -> dict[str, Any]:
        """The handle's keyword arguments of ``call`` (:func:`.calls.handle_args`), with the
        recording's datatypes and communicator made this replay's and a wildcard source
        pinned when ``as_matched``."""
        kwargs = handle_args(call, params)
        for param in ("datatype", "sendtype", "recvtype"):
            if param in kwargs:
                kwargs[param] = self.datatype(call, kwargs[param])
        if "source" in kwargs:
            kwargs["source"] = self.source(call, kwargs["source"])
        if "comm" in kwargs:
            kwargs["comm"] = self.comm(call, kwargs["comm"])
        return kwargs

    def comm(self, call: Call, cid: int | None = None) -> Any:
        """This replay's communicator of the recording's ``cid`` (default: the call's)."""
        cid = call.args.get("comm", 0) if cid is None else cid
        if cid == NULL_COMM:
            raise null_comm(self, call)
        made = getattr(self.idups.get(cid), "result", None)
        if cid not in self.comms and made is not None:
            self.mpi.comm_set_name(made, f"comm{cid}")
            self.comms[cid] = made
            del self.idups[cid]
        if cid not in self.comms:
            raise Unsupported(f"{call.where()}: communicator {cid} was made by a call the "
                              f"recorder does not log (it logs {REPLAYED_MAKERS})")
        return self.comms[cid]

    def datatype(self, call: Call, tid: int) -> Any:
        """This replay's datatype of the recording's ``tid`` (:func:`.objects.make_type`: of
        the recorded size and, where the recording gives it, type signature)."""
        found = self.types.get(tid)
        if found is None:
            if tid == NULL_TYPE:
                raise null_type(self, call)
            info = self.log.types.get(tid)
            if info is None:
                raise Unsupported(f"{call.where()}: datatype {tid} is not described in the log")
            found = self.types[tid] = make_type(info)
        return found

    def request(self, call: Call, rid: int | None) -> Any:
        if rid is None:
            raise Unsupported(f"{call.where()}: a request made by a call the recorder does not "
                              "log")
        return self.reqs.get(rid)

    def status_check(self, call: Call, got: Any, index: int = 0) -> None:
        recorded = call.statuses[index] if index < len(call.statuses) else None
        source = getattr(got, "source", None)
        if recorded is None or source is None or source == ANY_SOURCE:
            return  # a send's status, or an empty one (completed earlier by a poll)
        if source == PROC_NULL and recorded.source == ANY_SOURCE and recorded.count == 0 \
                and recorded.tag == ANY_TAG:
            self.quirks.append(
                f"rank {self.mpi.rank} {call.where()} MPI_{call.name}: the library gave "
                "MPI_SOURCE = MPI_ANY_SOURCE for a receive from MPI_PROC_NULL (MPICH does so "
                "for a persistent receive); MPI 4.1 §3.10 gives MPI_PROC_NULL, as the replay "
                "does")
            return
        if got.source != recorded.source or got.tag != recorded.tag:
            self.note(call, f"matched source {got.source} tag {got.tag}; the recording "
                            f"matched source {recorded.source} tag {recorded.tag}")

    def source(self, call: Call, source: int) -> int:
        """A receive's or probe's ``source``; with ``as_matched``, a wildcard is the source it
        matched in the recording."""
        if self.as_matched and source == ANY_SOURCE and call.statuses:
            matched = call.statuses[0]
            if matched is not None and matched.source != PROC_NULL:
                return matched.source
        return source


