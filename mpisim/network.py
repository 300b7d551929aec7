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
unmatched rendezvous message of its pair waits for the receiver (MPICH over UCX). The
profiles set these; the receiver takes messages whenever it is inside MPI.

``jitter`` adds a seeded uniform delay in ``[0, jitter)`` to every transfer's latency. Arrivals
between one sender and one receiver stay in sending order (a FIFO channel), so jitter never
lets a message overtake an earlier one on the same pair, as MPI's non-overtaking rule needs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from .units import UnitError, parse_bandwidth, parse_size, parse_time

__all__ = ["Network", "NetworkModel"]

DEFAULT_LATENCY = 1e-6
DEFAULT_BANDWIDTH = 10e9


@dataclass(frozen=True)
class Network:
    """Network settings (scenario key ``network``); ``None`` takes the profile's default.

    Values accept unit strings: ``latency="1us"``, ``bandwidth="10 GB/s"``,
    ``eager_limit="4 KiB"``.
    """

    latency: float | str | None = None
    bandwidth: float | str | None = None
    eager_limit: int | str | None = None
    system_buffer: int | str | None = None
    overhead: float | str = 0.0
    contention: str = "nic"
    intra: dict[str, Any] | None = None
    ranks_per_node: int | None = None
    jitter: float | str = 0.0
    eager_cells: int | None = None
    eager_box: int | str | None = None
    local_send_limit: int | str | None = None
    eager_waits_for_rendezvous: bool | None = None

    @classmethod
    def from_dict(cls, settings: dict[str, Any]) -> Network:
        """Build from a plain dict, refusing unknown keys with the list of valid ones."""
        valid = [f.name for f in fields(cls)]
        for key in settings:
            if key not in valid:
                raise ValueError(f"network.{key}: unknown setting (valid: {', '.join(valid)})")
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
        return asdict(self)

    def resolve(self, *, ranks: int, seed: int, defaults: Any) -> NetworkModel:
        """Parse and check every value; the engine's model of this network. ``defaults``
        (a profile) gives ``eager_limit`` and the receiver-progress settings left None."""
        return NetworkModel(self, ranks=ranks, seed=seed, defaults=defaults)


def _get(key: str, parser, value):
    try:
        return parser(value)
    except UnitError as e:
        raise ValueError(f"network.{key}: {e}") from None


def _optional_size(key: str, value: Any, default: Any) -> int | None:
    value = default if value is None else value
    return None if value is None else _get(key, parse_size, value)


class NetworkModel:
    """Resolved network parameters and the per-rank injection-port state."""

    __slots__ = (
        "bandwidth",
        "eager_box",
        "eager_cells",
        "eager_limit",
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
        "rng",
        "system_buffer",
    )

    def __init__(self, net: Network, *, ranks: int, seed: int, defaults: Any) -> None:
        self.latency = _get("latency", parse_time,
                            DEFAULT_LATENCY if net.latency is None else net.latency)
        self.bandwidth = _get("bandwidth", parse_bandwidth,
                              DEFAULT_BANDWIDTH if net.bandwidth is None else net.bandwidth)
        self.inv_bw = 1.0 / self.bandwidth
        self.eager_limit = _get("eager_limit", parse_size, defaults.eager_limit
                                if net.eager_limit is None else net.eager_limit)
        cells = defaults.eager_cells if net.eager_cells is None else net.eager_cells
        if cells is not None and (isinstance(cells, bool) or not isinstance(cells, int)
                                  or cells < 1):
            raise ValueError(f"network.eager_cells: expected a positive integer, got {cells!r}")
        self.eager_cells = cells
        self.eager_box = _optional_size("eager_box", net.eager_box, defaults.eager_box)
        self.local_send_limit = _optional_size("local_send_limit", net.local_send_limit,
                                               defaults.local_send_limit)
        waits = (defaults.eager_waits_for_rendezvous if net.eager_waits_for_rendezvous is None
                 else net.eager_waits_for_rendezvous)
        if not isinstance(waits, bool):
            raise ValueError("network.eager_waits_for_rendezvous: expected true or false, "
                             f"got {waits!r}")
        self.eager_waits_for_rendezvous = waits
        self.system_buffer = (None if net.system_buffer is None
                              else _get("system_buffer", parse_size, net.system_buffer))
        self.overhead = _get("overhead", parse_time, net.overhead)
        if net.contention not in ("nic", "none"):
            raise ValueError(f"network.contention: {net.contention!r} is not 'nic' or 'none'")
        self.nic = net.contention == "nic"
        self.jitter = _get("jitter", parse_time, net.jitter)
        self.rng = np.random.default_rng(seed) if self.jitter > 0 else None
        self.ranks_per_node = self._ranks_per_node(net.ranks_per_node)
        intra = net.intra or {}
        if not isinstance(intra, dict):
            raise ValueError("network.intra: expected a mapping with latency and bandwidth")
        for key in intra:
            if key not in ("latency", "bandwidth"):
                raise ValueError(f"network.intra.{key}: unknown setting "
                                 "(valid: latency, bandwidth)")
        self.intra_latency = _get("intra.latency", parse_time, intra.get("latency", self.latency))
        self.intra_inv_bw = 1.0 / _get("intra.bandwidth", parse_bandwidth,
                                       intra.get("bandwidth", self.bandwidth))
        self.port_free = [0.0] * ranks

    @staticmethod
    def _ranks_per_node(value: int | None) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"network.ranks_per_node: expected a positive integer, got {value!r}")
        return value

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
