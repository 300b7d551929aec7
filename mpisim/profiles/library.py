"""Implementation profiles and the MPI settings of a run (scenario key ``mpi``).

A :class:`Profile` is a named preset of what the standard leaves to the implementation:
the value of MPI_BSEND_OVERHEAD, how the attached buffer is allocated and entries charged,
the default eager limit, and the edge cases where implementations differ (3.6 fixes the
behaviour only up to "MPI may signal an error whenever the simple buffering allocator
described below would run out of space"). The ``mpich-4.0`` and ``openmpi-4.1`` numbers were
read from their sources and checked by running small programs against MPICH 4.0.2 (ch4:ucx)
and Open MPI 4.1.4 (ob1, shared memory); ``mpich`` and ``openmpi`` are their old names, kept as
aliases (a run reports the name it was given). A profile can also be a file
(:mod:`mpisim.profiles.profilefile`, what ``mpisim calibrate`` writes): any name ending in
``.yaml``/``.yml`` or containing a path separator is read as one.

``standard`` is the standard's model (3.6.1). The standard fixes no number for
MPI_BSEND_OVERHEAD, so it takes MPICH's 96 (a common 64-bit value), and a network default
eager limit of 64 KiB. It detaches with no buffer attached like MPICH ((None, 0): with none
attached MPI behaves as with a zero-size buffer, 3.6).

:class:`MPIConfig` is what a user writes; :meth:`MPIConfig.resolve` fills what was left
``None`` from the profile, parses unit strings and checks every value, giving the
:class:`ResolvedMPIConfig` the engine uses. Errors are one line, naming the key
(``mpi.alignment: ...``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..buffered.allocators import KINDS
from ..rma.constants import LOCK_MODES, PROGRESS_MODES
from ..values.readers import (
    Invalid,
    SettingError,
    declare,
    describe,
    hint,
    read_power_of_two,
    resolve_field,
    unknown_key,
)
from .profilefile import is_profile_path, load_profile

__all__ = ["ALIASES", "PROFILES", "MPIConfig", "Profile", "ResolvedMPIConfig", "get_profile"]


@dataclass(frozen=True)
class Profile:
    """How one implementation (or the standard's model) does buffered mode."""

    name: str
    bsend_overhead: int           # MPI_BSEND_OVERHEAD as programs see it
    allocator: str                # "circular" | "first-fit" | "unbounded"
    sizing: str                   # how an entry is charged: "standard" | "mpich" | "openmpi"
    alignment: int                # entry size rounding under "standard" sizing
    eager_limit: int              # network default: messages of at most this many bytes are eager
    attach_min: int               # attaching fewer bytes is MPI_ERR_BUFFER
    detach_unattached_error: bool  # detach with no buffer attached is an error
    bsend_direct_limit: int | None  # bsends of at most this many bytes bypass the buffer
    zero_bsend_unattached_ok: bool  # a 0-byte bsend with no buffer attached succeeds
    attach_twice_error_class: str  # error class of attaching while attached
    ibsend_completes_at_once: bool  # MPI_Ibsend's request is complete when it returns
    description: str
    # network defaults for receiver progress (mpisim.p2p.progress)
    eager_cells: int | None = None  # eager sends per pair complete before the receiver takes them
    eager_box: int | None = None    # further per-pair box bytes (Open MPI's fast box)
    local_send_limit: int | None = None  # larger standard sends wait for the receiver
    eager_waits_for_rendezvous: bool = False  # eager behind an unmatched rendezvous waits
    rendezvous_needs_progress: bool = False  # an RTS is answered only while the receiver is in MPI
    eager_release: str = "progress"  # or "poll": one held message per MPI call (MPICH 5.0.2)
    failed_bsend_stalls_pair: bool = False  # later messages of the pair never match
    mpi41_buffers: bool = True  # communicator/session buffers, flush, MPI_BUFFER_AUTOMATIC
    refused_attach_stays: bool = False  # a refused attach leaves 0 usable bytes attached
    # a mismatched collective call (MPI 4.1 §6.1; mpisim.collectives.meeting)
    bcast_root_mismatch: str = "own_root"  # or "lowest_self_root": every rank gets its data
    short_collective_message: str = "completes"  # or "MPI_ERR_OTHER" at the receiver
    # one-sided communication (MPI 4.1 §12.5; mpisim.rma.progress and mpisim.rma.passive)
    rma_lock: str = "eager"  # or "lazy": the lock is asked with the epoch's first operation
    rma_progress: str = "none"  # windows whose requests wait for the target to be in MPI
    rma_lock_progress: bool = False  # a lock is granted only while the target is in MPI
    # MPI_Finalize (MPI 4.1 §11.2.2): "collective", a process in it waits until every
    # process has called it (a deadlock report names it, waiting for the ones that never
    # do); "local", it returns without waiting for them (a library observed to do so)
    finalize: str = "collective"
    # network defaults a calibration measures (Hockney ping-pong); None: the Network's own
    latency: float | None = None    # seconds
    bandwidth: float | None = None  # bytes per second
    # dynamic processes (MPI 4.1 §11.8): seconds from MPI_Comm_spawn's call to the children's
    # start (and the parents' return); whether a spawn beyond the universe size fails
    # (MPI_ERR_SPAWN: Open MPI's slots) or starts them anyway (MPICH oversubscribes)
    spawn_latency: float = 0.0
    universe_limit: bool = False
    family: str = ""  # the built-in profile whose collective algorithms it uses ("": its name)
    library: str = field(default="", compare=False)  # MPI_Get_library_version, measured ones
    source: str = field(default="", compare=False)   # the file it was read from
    evidence: tuple[tuple[str, Any], ...] = field(default=(), compare=False)  # per setting

    @property
    def collectives_family(self) -> str:
        """The name under which its collective algorithm choices are kept."""
        return self.family or self.name

    def bypasses_buffer(self, nbytes: int, attached: bool) -> bool:
        """Whether a bsend of ``nbytes`` goes straight to the transport instead of into the
        attached buffer: Open MPI sends small ones at once, and accepts an empty one with no
        buffer attached. The only place this is decided."""
        direct = self.bsend_direct_limit
        return (direct is not None and nbytes <= direct) or (
            nbytes == 0 and not attached and self.zero_bsend_unattached_ok)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile(
        name="standard", bsend_overhead=96, allocator="circular", sizing="standard",
        alignment=1, eager_limit=65536, attach_min=0, detach_unattached_error=False,
        bsend_direct_limit=None, zero_bsend_unattached_ok=False,
        attach_twice_error_class="MPI_ERR_BUFFER", ibsend_completes_at_once=True,
        description="The standard's model (3.6.1): circular queue reclaimed from its head; "
                    "entry = pack_size + MPI_BSEND_OVERHEAD (96)."),
    Profile(
        name="mpich-4.0", family="mpich", bsend_overhead=96, allocator="first-fit",
        sizing="mpich",
        alignment=1, eager_limit=8255, attach_min=96, detach_unattached_error=False,
        bsend_direct_limit=None, zero_bsend_unattached_ok=False,
        attach_twice_error_class="MPI_ERR_BUFFER", ibsend_completes_at_once=True,
        # spawn: 0.078-0.110 s for MPI_Comm_spawn of 1 or 2 C processes from mpiexec -n 1
        # (MPICH 5.0.2, 2 cores; a Python child with mpi4py: 0.19 s)
        spawn_latency=0.09,
        description="MPICH 4.0 (ch4:ucx): first fit, every completed entry freed at each "
                    "bsend, 88-byte header, 16-byte cut; attach below 96 B refused; "
                    "eager up to 8255 B; 64 eager cells per pair freed by the receiver's "
                    "progress; an eager send behind an unmatched rendezvous one waits.",
        eager_cells=64, eager_waits_for_rendezvous=True),
    Profile(
        name="openmpi-4.1", family="openmpi", bsend_overhead=128, allocator="first-fit",
        sizing="openmpi",
        alignment=1, eager_limit=4040, attach_min=1, detach_unattached_error=True,
        bsend_direct_limit=4040, zero_bsend_unattached_ok=True,
        attach_twice_error_class="MPI_ERR_BUFFER", ibsend_completes_at_once=True,
        description="Open MPI 4.1 (ob1, shared memory): first fit from offset 8, entry "
                    "8*floor(m/8) + 16; bsends up to the 4040 B eager limit bypass the "
                    "buffer; detach with none attached is an error; standard sends above "
                    "256 B, or beyond 16 messages and a 4088-byte box per pair, wait for "
                    "the receiver; after a failed bsend the pair's later messages never "
                    "match.",
        eager_cells=16, eager_box=4088, local_send_limit=256, failed_bsend_stalls_pair=True,
        mpi41_buffers=False,
        # spawn: 0.24 s for MPI_Comm_spawn of 1 C process from mpiexec -n 1 (Open MPI 4.1.4,
        # 2 cores); beyond its slots (2): MPI_ERR_SPAWN, "All nodes which are allocated for
        # this job are already filled"
        spawn_latency=0.24, universe_limit=True),
)}


ALIASES: dict[str, str] = {"mpich": "mpich-4.0", "openmpi": "openmpi-4.1"}
"""Old names of built-in profiles: a run under one reports the old name."""


def get_profile(name: str | os.PathLike[str]) -> Profile:
    """The profile called ``name`` (a built-in one, an alias, or a profile file's path);
    ValueError listing the valid names otherwise (ProfileFileError for a bad file)."""
    if isinstance(name, str) and name in PROFILES:
        return PROFILES[name]
    if isinstance(name, str) and name in ALIASES:
        return _alias(name)
    if isinstance(name, str) and name in SHIPPED:
        return _shipped(name)
    if is_profile_path(name):
        return load_profile(name, {**PROFILES, **{a: _alias(a) for a in ALIASES}})
    close = hint(name, names()) if isinstance(name, str) else ""
    raise ValueError(f"unknown profile {name!r}{close} (valid: {', '.join(names())}, or a "
                     "profile file .yaml)") from None


SHIPPED = ("mpich-5.0", "openmpi-5.0")
"""Profiles measured by ``mpisim calibrate`` with pip's MPICH 5.0.2 and Open MPI 5.0.11,
shipped as profile files (``mpisim/profiles/data``), read when first named."""


def names() -> list[str]:
    """Every built-in profile name and alias, in the order a user meets them."""
    return [*PROFILES, *SHIPPED, *ALIASES]


def shipped_profiles() -> list[Profile]:
    """The measured profiles shipped with mpisim (reads their files)."""
    return [_shipped(n) for n in SHIPPED]


@cache
def _shipped(name: str) -> Profile:
    path = Path(__file__).with_name("data") / f"{name}.yaml"
    return replace(load_profile(path, {**PROFILES, **{a: _alias(a) for a in ALIASES}}),
                   source="")


@cache
def _alias(name: str) -> Profile:
    return replace(PROFILES[ALIASES[name]], name=name)


@dataclass(frozen=True)
class ResolvedMPIConfig:
    """Every MPI setting of a run, checked, with the profile's defaults filled in."""

    profile: Profile
    bsend_overhead: int
    allocator: str
    sizing: str
    alignment: int
    copy_bandwidth: float | None  # bytes/s for packing into the buffer; None: free
    force_ssend: bool
    collectives: dict[str, str] | None = None  # algorithm per collective, over the profile's
    sync_collectives: bool = False  # see MPIConfig
    buffer_policy: str = "as_written"  # see MPIConfig
    rma_lock: str = "eager"       # one-sided communication (see MPIConfig)
    rma_progress: str = "none"
    rma_lock_progress: bool = False
    io_latency: float = 1e-4      # the file system of MPI-IO (see MPIConfig)
    io_bandwidth: float = 1e9
    universe: int | None = None   # MPI_UNIVERSE_SIZE (see MPIConfig); None: the profile's


BUFFER_POLICIES = ("as_written", "process", "communicator", "automatic")


def _profile(value: Any) -> str | Profile:
    """A profile's name, a profile file's path (read here, so that a bad file is refused
    where the setting is given), or a :class:`Profile` (Python only)."""
    if isinstance(value, Profile):
        return value
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str) and is_profile_path(value):
        try:
            get_profile(value)
        except ValueError as e:
            raise Invalid(str(e)) from None
        return value
    if isinstance(value, str) and value in names():
        return value
    close = hint(value, names()) if isinstance(value, str) else ""
    raise Invalid(f"{describe(value) if not isinstance(value, str) else repr(value)} is not "
                  f"one of {', '.join(names())} or a profile file .yaml{close}")


def _collectives(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise Invalid("expected a mapping of collective to algorithm, e.g. "
                      f"{{allreduce: ring}}, got {describe(value)}")
    return dict(value)


@dataclass(frozen=True)
class MPIConfig:
    """MPI settings (scenario key ``mpi``); ``None`` takes the profile's value.

    The profile models one MPI library (its buffer sizing, allocator, limits and network
    defaults: ``mpisim profiles`` lists them); the other fields override one of its values.
    Sizes are bytes and take unit strings (``"4 KiB"``), times seconds (``"100us"``),
    bandwidths bytes per second (``"1 GB/s"``). Each field declares its setting (reader,
    kind, documentation): ``mpisim settings``. Values are checked when a run starts (a
    ``SettingError``, a ValueError, names the key and what it accepts).

    Parameters
    ----------
    profile
        The MPI library modelled: a built-in profile's name (``"standard"``, the default,
        the MPI standard's own model; ``"mpich-4.0"``, ``"openmpi-4.1"``, ``"mpich-5.0"``,
        ``"openmpi-5.0"``; ``"mpich"`` and ``"openmpi"`` are aliases of the 4.x ones), the
        path of a profile file (``mpisim calibrate`` writes them), or a :class:`Profile`.
    bsend_overhead
        MPI_BSEND_OVERHEAD in bytes, as programs see it (``mpi.BSEND_OVERHEAD``); the
        standard sizing charges it per buffer entry, the mpich and openmpi sizings charge
        their own rule. Default: None, the profile's (96 under ``standard``).
    allocator
        How entries are placed in the attached buffer: ``"circular"``, the standard's model
        (a queue reclaimed from its head, MPI 4.1 §3.6.1); ``"first-fit"``, the first free
        block; ``"unbounded"``, never full. Default: None, the profile's.
    alignment
        Entry sizes round up to this power of two, in bytes (standard sizing). Default:
        None, the profile's (1: no rounding, under ``standard``).
    copy_bandwidth
        Bytes per second of packing a message into the attached buffer (``"10 GB/s"``).
        Default: None, free.
    force_ssend
        Every send, of any mode, becomes synchronous: what ``check_safe`` runs (default
        False).
    sync_collectives
        Every collective synchronizes: no member leaves it before every member has entered
        it, whatever its algorithm would allow (default False). MPI 4.1 §6.1 asks a correct
        program to complete "whether collective communications are synchronizing or not";
        ``check_safe`` runs with it on.
    collectives
        The algorithm of each collective, e.g. ``{"allreduce": "ring"}`` (see
        ``mpisim.collectives.ALGORITHMS``); the others follow the profile. Default: None.
    buffer_policy
        MPI 4.1 buffers, to compare the memory each way needs: ``"as_written"`` (default),
        the attaches the program makes; ``"process"``, communicator and session attaches
        do nothing and every bsend shares the process buffer; ``"communicator"``, every
        communicator without a buffer of its own gets an automatic one at its first bsend;
        ``"automatic"``, every attach attaches MPI_BUFFER_AUTOMATIC (nothing overflows, and
        the peaks are what the program needs).
    rma_lock
        When MPI_Win_lock asks the target for its lock: ``"eager"``, the call waits for
        the grant; ``"lazy"``, with the epoch's first operation (MPI 4.1 §12.5.3).
        Default: None, the profile's.
    rma_progress
        The windows whose one-sided requests a target serves only while inside MPI:
        none, those made by MPI_Win_create and create_dynamic, or all (see
        ``mpisim.rma.progress``). Default: None, the profile's.
    rma_lock_progress
        Whether a target grants a window lock only while inside MPI. Default: None, the
        profile's.
    io_latency
        Seconds every MPI-IO call that reaches the file system takes before its first
        byte moves (open, close, sync, each access; MPI 4.1 §14): an access of n bytes
        takes ``io_latency + n / io_bandwidth``. Default: 100 us.
    io_bandwidth
        Bytes per second one process reads or writes a file with (MPI-IO). Default:
        1 GB/s.
    universe
        MPI_UNIVERSE_SIZE (MPI 4.1 §11.10.1), the processes the run's universe holds
        (``8``, as ``mpiexec -usize 8``; ``mpisim mpi4py --universe 8``): the attribute's
        value on
        MPI_COMM_WORLD, and, under a profile with ``universe_limit`` (Open MPI's slots), the
        most processes alive at once, a spawn beyond it failing with MPI_ERR_SPAWN.
        Default: None, the library's: MPICH's mpiexec sets no universe size and spawns
        without limit; Open MPI's universe is its slots (here the run's ranks); the
        standard profile gives the run's ranks and spawns without limit.

    Examples
    --------
    Example 3.10's exchange, which completes on the standard's model, deadlocks once every
    send must wait for its receive (what ``check_safe`` tries):

    >>> import mpisim as ms
    >>> def program(mpi):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.send(count=100, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=100, datatype=ms.INT, source=peer, tag=0)
    >>> ms.run(program, ranks=2, mpi=ms.MPIConfig()).outcome
    <Outcome.COMPLETED: 'completed'>
    >>> ms.run(program, ranks=2, mpi=ms.MPIConfig(force_ssend=True)).outcome
    <Outcome.DEADLOCK: 'deadlock'>
    >>> config = ms.MPIConfig(profile="mpich-4.0", allocator="first-fit")
    >>> ms.run(program, ranks=2, mpi=config).settings["network.eager_limit"]
    {'value': 8255, 'from': 'profile'}
    """

    profile: str | os.PathLike[str] | Profile = declare(
        "choice", "the MPI library modelled: its buffer sizing, allocator, limits and "
        "network defaults (mpisim profiles), or a profile file .yaml (mpisim calibrate)",
        _profile, default="standard",
        choices=tuple(names()), shown="standard")
    bsend_overhead: int | str | None = declare(
        "size", "MPI_BSEND_OVERHEAD as programs see it (the standard sizing charges it per "
        "entry)", shown="the profile's")
    allocator: str | None = declare(
        "choice", "how entries are placed in the attached buffer", choices=KINDS,
        shown="the profile's")
    alignment: int | str | None = declare(
        "size", "entry sizes round up to this power of two (standard sizing)",
        read_power_of_two, shown="the profile's")
    copy_bandwidth: float | str | None = declare(
        "bandwidth", "cost of packing a message into the attached buffer",
        shown="free")
    force_ssend: bool = declare(
        "bool", "every send, of any mode, becomes synchronous (what check uses)",
        default=False, shown="false")
    sync_collectives: bool = declare(
        "bool", "every collective synchronizes: no member leaves before all have entered "
        "(what check uses, MPI 4.1 §6.1)", default=False, shown="false")
    collectives: dict[str, str] | None = declare(
        "algorithms", "the algorithm of each collective, e.g. {allreduce: ring}; the others "
        "follow the profile", _collectives, shown="the profile's")
    buffer_policy: str = declare(
        "choice", "as_written: the program's attaches; process: one process buffer; "
        "communicator: an automatic buffer per communicator; automatic: every attach "
        "automatic", default="as_written", choices=BUFFER_POLICIES, shown="as_written")
    rma_lock: str | None = declare(
        "choice", "when MPI_Win_lock asks the target for its lock: eager (the call waits for "
        "the grant) or lazy (with the epoch's first operation)", choices=LOCK_MODES,
        shown="the profile's")
    rma_progress: str | None = declare(
        "choice", "the windows whose one-sided requests a target serves only inside MPI: "
        "none, created (MPI_Win_create, create_dynamic) or all", choices=PROGRESS_MODES,
        shown="the profile's")
    rma_lock_progress: bool | None = declare(
        "bool", "a target grants a window lock only while inside MPI",
        shown="the profile's")
    io_latency: float | str = declare(
        "time", "time every MPI-IO call that reaches the file system takes before its "
        "first byte moves (open, close, sync, each access)", default=1e-4, shown="100 us")
    io_bandwidth: float | str = declare(
        "bandwidth", "bytes per second one process reads or writes a file with (MPI-IO)",
        default=1e9, shown="1 GB/s")
    universe: int | None = declare(
        "count", "MPI_UNIVERSE_SIZE: the processes the universe holds, for MPI_Comm_spawn "
        "(a spawn beyond it fails under a profile with universe_limit)",
        shown="the library's")

    @classmethod
    def from_dict(cls, settings: dict[str, Any]) -> MPIConfig:
        """Build from a plain dict, refusing unknown keys with the list of valid ones.

        Parameters
        ----------
        settings
            Field names to values, as a scenario's ``mpi:`` mapping has them
            (``{"profile": "mpich-4.0", "bsend_overhead": 128}``).
        """
        if not isinstance(settings, dict):
            raise ValueError(f"mpi: expected a mapping, got {type(settings).__name__}")
        valid = [f.name for f in fields(cls)]
        for key in settings:
            if key not in valid:
                raise SettingError(f"mpi.{key}", unknown_key(str(key), valid))
        return cls(**settings)

    def to_dict(self) -> dict[str, Any]:
        """The settings as given (None where the profile decides), as ``from_dict`` takes
        them back."""
        return asdict(self)

    def resolve(self) -> ResolvedMPIConfig:
        """Fill defaults from the profile, read every value by its declaration
        (SettingError naming the key)."""
        def read(name: str, default: Any = None) -> Any:
            value = resolve_field(self, "mpi", name)
            return default if value is None else value

        profile = read("profile")
        if not isinstance(profile, Profile):
            profile = get_profile(profile)
        return ResolvedMPIConfig(profile=profile,
                                 bsend_overhead=read("bsend_overhead", profile.bsend_overhead),
                                 allocator=read("allocator", profile.allocator),
                                 sizing=profile.sizing,
                                 alignment=read("alignment", profile.alignment),
                                 copy_bandwidth=read("copy_bandwidth"),
                                 force_ssend=read("force_ssend"),
                                 sync_collectives=read("sync_collectives"),
                                 collectives=read("collectives"),
                                 buffer_policy=read("buffer_policy"),
                                 rma_lock=read("rma_lock", profile.rma_lock),
                                 rma_progress=read("rma_progress", profile.rma_progress),
                                 rma_lock_progress=read("rma_lock_progress",
                                                        profile.rma_lock_progress),
                                 io_latency=read("io_latency"),
                                 io_bandwidth=read("io_bandwidth"),
                                 universe=read("universe"))
