"""The network model: when a message's bytes leave the sender and when they arrive.

Hockney's model per transfer: ``latency + bytes / bandwidth``. With ``contention="nic"``
(the default) a rank's sends serialise on its injection port: a transfer starts when the
port is free, and occupies it for ``bytes / bandwidth``; the bytes arrive ``latency`` after
they left. So with default settings an eager message of n bytes posted on an idle port is
received exactly ``latency + n / bandwidth`` after it was sent. Control messages (rendezvous
request-to-send, clear-to-send, synchronous acknowledgements) cost ``latency`` only and do
not occupy the port.

A message to oneself costs no latency and does not use the port (it is copied within the
process).

Two-level machines: with ``ranks_per_node`` set, ranks ``r // ranks_per_node`` share a node,
and transfers between ranks of one node use the ``intra`` latency and bandwidth.

Receiver progress (:mod:`mpisim.p2p.progress`; ``None``/false: the send completes when its
bytes have left, whatever the receiver does): ``eager_cells`` is how many eager messages of
one sender-receiver pair can complete before the receiver takes them (MPICH's shared-memory
cells, 64); ``eager_box`` adds a per-pair box of that many bytes (Open MPI's fast box);
``local_send_limit`` is the largest standard send that can complete before the receiver
takes it (Open MPI: 256 B); ``eager_waits_for_rendezvous``: an eager message behind an
unmatched rendezvous message of its pair waits for the receiver (MPICH over UCX);
``rendezvous_needs_progress``: a rendezvous request-to-send that arrives while its receiver
computes is answered (clear-to-send) only at the receiver's next MPI call, even if the
receive was posted before (MPICH 5.0.2 and Open MPI 5.0.11 without an asynchronous progress
thread); ``eager_release``: how the receiver's progress frees what those messages hold —
``progress``, every message that arrived while it computed at its next MPI call, or ``poll``,
one message per MPI call that does not block, and one after another while a call blocks
(MPICH 5.0.2, measured). The profiles set these; the receiver takes messages whenever it is
inside MPI.

``jitter`` adds a seeded uniform delay in ``[0, jitter)`` to every transfer's latency. Arrivals
between one sender and one receiver stay in sending order (a FIFO channel), so jitter never
lets a message overtake an earlier one on the same pair, as MPI's non-overtaking rule needs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..values.readers import SettingError, declare, entry, resolve_field, unknown_key

__all__ = ["Network", "NetworkModel"]

DEFAULT_LATENCY = 1e-6
DEFAULT_BANDWIDTH = 10e9


@dataclass(frozen=True)
class Network:
    """Network settings (scenario key ``network``); ``None`` takes the profile's default.

    Values accept unit strings: ``latency="1us"``, ``bandwidth="10 GB/s"``,
    ``eager_limit="4 KiB"``. Each field declares its setting (reader, kind, documentation):
    ``mpisim settings`` lists them. A transfer of n bytes takes ``latency + n / bandwidth``
    (Hockney's model); the guide's model page says more. Values are checked
    when a run starts (a ``SettingError``, a ValueError, names the key).

    Parameters
    ----------
    latency
        Time a transfer's first byte takes to arrive, in seconds (``1e-6``, ``"1us"``).
        Default: None, the profile's measured value if it has one, else 1 us.
    bandwidth
        Bytes per second of one transfer (``10e9``, ``"10 GB/s"``; ``"Gb/s"`` is bits).
        Default: None, the profile's measured value if it has one, else 10 GB/s.
    eager_limit
        Standard sends of 1..eager_limit bytes go eager (complete without the receiver),
        larger ones rendezvous (wait for the matching receive); 0: all rendezvous. Bytes
        (``4096``, ``"4 KiB"``). Default: None, the profile's (64 KiB under ``standard``).
    system_buffer
        Bytes of eager messages a receiver holds unmatched; a send that finds no room goes
        rendezvous. Default: None, no limit.
    overhead
        Time added to every MPI call, in seconds (default 0).
    contention
        ``"nic"`` (default): a rank's sends serialise on its injection port; ``"none"``:
        they overlap.
    intra
        ``{"latency": ..., "bandwidth": ...}`` between ranks of one node (with
        ``ranks_per_node``); a key left out is the value above. Default: None.
    ranks_per_node
        Ranks r // ranks_per_node share a node (and the ``intra`` link). Default: None,
        one rank per node.
    jitter
        A seeded uniform delay in [0, jitter) seconds added to every transfer; a pair's
        messages still never overtake (default 0: none).
    eager_cells
        Eager sends of one sender-receiver pair that complete before the receiver takes
        them (MPICH's shared-memory cells). Default: None, the profile's (no limit under
        ``standard``).
    eager_box
        Further bytes per pair of eager messages that complete before the receiver takes
        them (Open MPI's fast box). Default: None, the profile's.
    local_send_limit
        Bytes: the largest standard send that completes before the receiver takes it.
        Default: None, the profile's.
    eager_waits_for_rendezvous
        Whether an eager send behind an unmatched rendezvous message of its pair waits for
        the receiver. Default: None, the profile's.
    rendezvous_needs_progress
        Whether a rendezvous request-to-send that arrives while its receiver computes is
        answered only at the receiver's next MPI call (no asynchronous progress).
        Default: None, the profile's.
    eager_release
        How the receiver frees the eager messages that wait for it: ``"progress"``, all of
        them at its next MPI call; ``"poll"``, one per call, and one after another while a
        call blocks. Default: None, the profile's.

    Examples
    --------
    >>> import mpisim as ms
    >>> net = ms.Network(latency="2us", bandwidth="1 GB/s", eager_limit="4 KiB")
    >>> def program(mpi):
    ...     if mpi.rank == 0:
    ...         yield mpi.send(count=1000, datatype=ms.BYTE, dest=1, tag=0)
    ...     else:
    ...         yield mpi.recv(count=1000, datatype=ms.BYTE, source=0, tag=0)
    >>> ms.run(program, ranks=2, network=net).sim_time  # 2 us + 1000 B at 1 GB/s
    3e-06
    >>> ms.run(program, ranks=2, network={"latency": "2us"}).sim_time  # a dict works too
    2.1e-06
    """

    latency: float | str | None = declare(
        "time", "time a transfer's first byte takes to arrive (Hockney's alpha)", shown="1 us")
    bandwidth: float | str | None = declare(
        "bandwidth", "bytes per second of one transfer (``Gb/s``: bits)", shown="10 GB/s")
    eager_limit: int | str | None = declare(
        "size", "standard sends of 1..eager_limit bytes go eager, larger ones rendezvous "
        "(0: all rendezvous)", shown="the profile's")
    system_buffer: int | str | None = declare(
        "size", "bytes of eager messages a receiver holds unmatched; a send that finds no "
        "room goes rendezvous", shown="no limit")
    overhead: float | str = declare("time", "time added to every MPI call", default=0.0,
                                    shown="0 s")
    contention: str = declare(
        "choice", "nic: a rank's sends serialise on its injection port; none: they overlap",
        default="nic", choices=("nic", "none"), shown="nic")
    intra: dict[str, Any] | None = declare(
        "mapping", "latency and bandwidth between ranks of one node (with ranks_per_node)",
        shown="the values above", keys=(
            entry("latency", "time", "latency within a node", shown="network.latency"),
            entry("bandwidth", "bandwidth", "bandwidth within a node",
                  shown="network.bandwidth")))
    ranks_per_node: int | None = declare(
        "count", "ranks r // ranks_per_node share a node (and the intra link)",
        shown="one rank per node")
    jitter: float | str = declare(
        "time", "a seeded uniform delay in [0, jitter) added to every transfer (a pair's "
        "messages never overtake)", default=0.0, shown="0 s")
    eager_cells: int | None = declare(
        "count", "eager sends of one pair that complete before the receiver takes them "
        "(MPICH's shared-memory cells)", shown="the profile's")
    eager_box: int | str | None = declare(
        "size", "further per-pair bytes of eager messages before the receiver takes them "
        "(Open MPI's fast box)", shown="the profile's")
    local_send_limit: int | str | None = declare(
        "size", "the largest standard send that completes before the receiver takes it",
        shown="the profile's")
    eager_waits_for_rendezvous: bool | None = declare(
        "bool", "an eager send behind an unmatched rendezvous message of its pair waits for "
        "the receiver", shown="the profile's")
    rendezvous_needs_progress: bool | None = declare(
        "bool", "a rendezvous request-to-send that arrives while its receiver computes is "
        "answered only at the receiver's next MPI call (no asynchronous progress)",
        shown="the profile's")
    eager_release: str | None = declare(
        "choice", "progress: the receiver's next MPI call takes every message that waits for "
        "it; poll: each call takes one, a blocked call takes them until it can return",
        choices=("progress", "poll"), shown="the profile's")

    @classmethod
    def from_dict(cls, settings: dict[str, Any]) -> Network:
        """Build from a plain dict, refusing unknown keys with the list of valid ones.

        Parameters
        ----------
        settings
            Field names to values, as a scenario's ``network:`` mapping has them
            (``{"latency": "1us", "eager_limit": 4096}``).

        Raises
        ------
        ValueError
            A key that is not a field (a ``SettingError`` that names the nearest one).
        """
        valid = [f.name for f in fields(cls)]
        for key in settings:
            if key not in valid:
                raise SettingError(f"network.{key}", unknown_key(str(key), valid))
        return cls(**settings)

    @classmethod
    def coerce(cls, value: Network | dict[str, Any] | None) -> Network:
        """Accept a Network, a dict or None (all defaults)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            return cls.from_dict(value)
        raise ValueError(f"network: expected a Network or a dict, got {type(value).__name__}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as given (unit strings kept), as ``from_dict`` takes them back."""
        return asdict(self)

    def resolve(self, *, ranks: int, seed: int, defaults: Any) -> NetworkModel:
        """Parse and check every value; the engine's model of this network. ``defaults``
        (a profile) gives ``eager_limit`` and the receiver-progress settings left None."""
        return NetworkModel(self, ranks=ranks, seed=seed, defaults=defaults)


class NetworkModel:
    """Resolved network parameters and the per-rank injection-port state."""

    __slots__ = (
        "bandwidth",
        "eager_box",
        "eager_cells",
        "eager_limit",
        "eager_release",
        "eager_waits_for_rendezvous",
        "intra_inv_bw",
        "intra_latency",
        "inv_bw",
        "jitter",
        "latency",
        "local_send_limit",
        "nic",
        "overhead",
        "port_free",
        "ranks_per_node",
        "rendezvous_needs_progress",
        "rng",
        "system_buffer",
    )

    def __init__(self, net: Network, *, ranks: int, seed: int, defaults: Any) -> None:
        def read(name: str, default: Any = None) -> Any:
            value = resolve_field(net, "network", name)
            return default if value is None else value

        measured_latency = getattr(defaults, "latency", None)  # a calibrated profile's
        measured_bandwidth = getattr(defaults, "bandwidth", None)
        self.latency = read("latency", DEFAULT_LATENCY if measured_latency is None
                            else measured_latency)
        self.bandwidth = read("bandwidth", DEFAULT_BANDWIDTH if measured_bandwidth is None
                              else measured_bandwidth)
        self.inv_bw = 1.0 / self.bandwidth
        self.eager_limit = read("eager_limit", defaults.eager_limit)
        self.eager_cells = read("eager_cells", defaults.eager_cells)
        self.eager_box = read("eager_box", defaults.eager_box)
        self.local_send_limit = read("local_send_limit", defaults.local_send_limit)
        self.eager_waits_for_rendezvous = read("eager_waits_for_rendezvous",
                                               defaults.eager_waits_for_rendezvous)
        self.rendezvous_needs_progress = read("rendezvous_needs_progress",
                                              defaults.rendezvous_needs_progress)
        self.eager_release = read("eager_release", defaults.eager_release)
        self.system_buffer: float = read("system_buffer")  # bytes (inf: unbounded)
        self.overhead = read("overhead")
        self.nic = read("contention") == "nic"
        self.jitter = read("jitter")
        self.rng = np.random.default_rng(seed) if self.jitter > 0 else None
        self.ranks_per_node = read("ranks_per_node")
        intra = read("intra", {})
        latency, bandwidth = intra.get("latency"), intra.get("bandwidth")
        self.intra_latency = self.latency if latency is None else latency
        self.intra_inv_bw = 1.0 / (self.bandwidth if bandwidth is None else bandwidth)
        self.port_free = [0.0] * ranks

    def link(self, src: int, dst: int) -> tuple[float, float]:
        """(latency, seconds per byte) between two ranks.

        A message a rank sends to itself never leaves the process (MPICH's and Open MPI's
        ``self`` transport copy it in memory): no latency, the intra-node bandwidth, and
        :meth:`inject` does not queue it on the port.
        """
        if src == dst:
            return 0.0, self.intra_inv_bw
        rpn = self.ranks_per_node
        if rpn is not None and src // rpn == dst // rpn:
            return self.intra_latency, self.intra_inv_bw
        return self.latency, self.inv_bw

    def control_delay(self, src: int, dst: int) -> float:
        """Time a control message (RTS, CTS, ack) takes: latency only."""
        lat = self.link(src, dst)[0]
        if self.rng is not None:
            lat += float(self.rng.random()) * self.jitter
        return lat

    def inject(self, src: int, dst: int, nbytes: int, earliest: float) -> tuple[float, float]:
        """Reserve the sender's port for ``nbytes``: (time the bytes have left, arrival time)."""
        if src != dst and self.ranks_per_node is None:  # (link's common case, inlined)
            lat, inv_bw = self.latency, self.inv_bw
        else:
            lat, inv_bw = self.link(src, dst)
        if self.nic and src != dst:
            start = self.port_free[src]
            if start < earliest:
                start = earliest
            end = start + nbytes * inv_bw
            self.port_free[src] = end
        else:
            end = earliest + nbytes * inv_bw
        if self.rng is not None:
            lat += float(self.rng.random()) * self.jitter
        return end, end + lat
