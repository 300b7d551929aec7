"""Where each profile setting comes from: the standard's text, or what the library did.

Every setting of every profile in :data:`~mpisim.profiles.library.PROFILES` has a line here:
the section of MPI 4.1 it follows (``standard``) or the measurement on MPICH 4.0.2
(ch4:ucx) / Open MPI 4.1.4 (ob1, shared memory) and 5.0.11 it reproduces. :func:`table`
renders them; ``mpisim profiles`` prints it and the documentation shows it
(``docs/reference/profiles.md``; a test keeps the two equal).
"""

from __future__ import annotations

from .library import ALIASES, PROFILES, Profile, shipped_profiles
from .names import release
from .profilefile import READERS

__all__ = ["EVIDENCE", "table"]

_STD = {
    "bsend_overhead": "the standard fixes no value; MPICH's 64-bit value",
    "allocator": "3.6.1: the model implementation's circular queue",
    "sizing": "3.6.1: pack_size + MPI_BSEND_OVERHEAD",
    "alignment": "3.6.1: no rounding",
    "eager_limit": "a common default (Open MPI over TCP: 64 KiB)",
    "attach_min": "3.6: a zero-size buffer is valid",
    "detach_unattached_error": "3.6: with none attached MPI behaves as with a zero-size "
                               "buffer; returns (None, 0) as MPICH does",
    "bsend_direct_limit": "3.6.1: every bsend goes through the buffer",
    "zero_bsend_unattached_ok": "3.6.1: every entry needs MPI_BSEND_OVERHEAD bytes",
    "attach_twice_error_class": "3.6: one buffer attached at a time",
    "ibsend_completes_at_once": "3.6: buffered mode is local",
    "eager_cells": "no limit: a send completes when its bytes have left",
    "eager_box": "no limit",
    "local_send_limit": "no limit",
    "eager_waits_for_rendezvous": "no: the transport is ideal",
    "rendezvous_needs_progress": "no: the transport is ideal (a posted receive answers at "
                                 "once)",
    "eager_release": "progress (moot: the transport is ideal, nothing waits for the "
                     "receiver)",
    "failed_bsend_stalls_pair": "no: a failed call has no effect (3.6)",
    "mpi41_buffers": "MPI 4.1 §3.6",
    "refused_attach_stays": "a call that fails has no effect (3.6)",
    "bcast_root_mismatch": "6.1: roots that differ are erroneous; each rank's call is "
                           "carried out as it was made",
    "short_collective_message": "6.1: erroneous; a receive of fewer bytes than its count is "
                                "no error (3.2.4)",
    "rma_lock": "12.5.3: MPI_Win_lock may return before the lock is granted or wait for it; "
                "the profile waits for the grant (a round trip)",
    "rma_progress": "none: the ideal target serves every request when it arrives (12.7 "
                    "leaves progress to the implementation)",
    "rma_lock_progress": "no: the ideal target grants a lock when the request arrives",
    "finalize": "11.2.2: MPI_Finalize is collective over all connected processes; a "
                "process in it waits for the others",
    "latency": "not a profile value: the network's default (1 us)",
    "bandwidth": "not a profile value: the network's default (10 GB/s)",
    "spawn_latency": "11.8.2 fixes no time: the children start at once",
    "universe_limit": "11.10.1: MPI_UNIVERSE_SIZE is a hint; a spawn beyond it is not "
                      "refused",
}

_MPICH = {
    "bsend_overhead": "MPI_BSEND_OVERHEAD = 96 (the header it writes is 88 B)",
    "allocator": "bsendutil.c: first fit over an address-ordered free list, freeing every "
                 "completed entry; holes reused anywhere (measured)",
    "sizing": "88-byte header, block cut at 88 + ceil16(m): 9000-byte entries fit 9088, "
              "18184, 27280 B (measured)",
    "alignment": "(the sizing rounds)",
    "eager_limit": "Example 3.10 completes up to 8255 B, deadlocks from 8256 B",
    "attach_min": "attach below 96 B (0 included): MPI_ERR_BUFFER",
    "detach_unattached_error": "detach with none attached: success, NULL and 0",
    "bsend_direct_limit": "every bsend goes through the buffer",
    "zero_bsend_unattached_ok": "0-byte bsend with no buffer: MPI_ERR_BUFFER",
    "attach_twice_error_class": "attach while attached: MPI_ERR_BUFFER (4.0-4.1)",
    "ibsend_completes_at_once": "MPI_Ibsend request complete when returned",
    "eager_cells": "64 cells per pair freed by the receiver's progress: 65 8-byte bsends "
                   "through a 104-byte buffer; 64, 65, 200, 1000 sends to a sleeping "
                   "receiver complete, the 65th waiting as long as it slept",
    "eager_box": "none",
    "local_send_limit": "none: every eager send can use a cell",
    "eager_waits_for_rendezvous": "a 4-byte MPI_Send behind a pending rendezvous message "
                                  "takes 1.0 s (receiver asleep 1 s); detach then 0.0001 s",
    "rendezvous_needs_progress": "not measured on 4.0.2: the ideal transport kept "
                                 "(5.0.2 measured: see mpich-5.0)",
    "eager_release": "not measured on 4.0.2: every held message at the next call kept "
                     "(5.0.2 measured one per call: see mpich-5.0)",
    "failed_bsend_stalls_pair": "after MPI_ERR_BUFFER later sends match (falls back to "
                                "MPI_Send and completes)",
    "mpi41_buffers": "MPICH 5.0.2: Comm.Attach_buffer, Flush_buffer, BUFFER_AUTOMATIC work",
    "refused_attach_stays": "not measured on 4.0.2: nothing attached (5.0.2 measured: see "
                            "mpich-5.0)",
    "bcast_root_mismatch": "not measured on 4.0.2: each rank's own root (5.0.2 measured: "
                           "see mpich-5.0)",
    "short_collective_message": "not measured on 4.0.2: completes (5.0.2 measured: see "
                                "mpich-5.0)",
    "rma_lock": "not measured on 4.0.2: the standard's (5.0.2 measured: see mpich-5.0)",
    "rma_progress": "not measured on 4.0.2: the ideal target kept (5.0.2 measured: see "
                    "mpich-5.0)",
    "rma_lock_progress": "not measured on 4.0.2: the ideal target kept (5.0.2 measured: see "
                         "mpich-5.0)",
    "finalize": "not measured on 4.0.2: collective kept (5.0.2 measured: see mpich-5.0)",
    "latency": "not measured: the network's default",
    "bandwidth": "not measured: the network's default",
    "spawn_latency": "MPI_Comm_spawn of 1-2 C processes from mpiexec -n 1: 0.078-0.110 s "
                     "on MPICH 5.0.2 (a Python child with mpi4py: 0.19 s)",
    "universe_limit": "no: mpiexec -usize 1 started 2 children (MPICH 5.0.2)",
}

_OMPI = {
    "bsend_overhead": "MPI_BSEND_OVERHEAD = 128",
    "allocator": "pml_base_bsend.c with allocator/basic: first fit, splitting and "
                 "coalescing; holes reused anywhere (measured)",
    "sizing": "start at offset 8, entry 8*floor(m/8) + 16: 9000-byte entries fit 9024, "
              "18040, 27056 B (measured)",
    "alignment": "(the sizing rounds)",
    "eager_limit": "shared memory: Example 3.10 completes up to 4040 B (4096 - 56-byte "
                   "header), deadlocks from 4041 B",
    "attach_min": "small sizes accepted; 0 returns an invalid raw error code (reported "
                  "here as MPI_ERR_BUFFER)",
    "detach_unattached_error": "detach with none attached: error",
    "bsend_direct_limit": "bsends up to the eager limit go straight to transport memory: "
                          "MPI_Bsend of 1024 and 4040 B return at once, with no buffer too",
    "zero_bsend_unattached_ok": "0-byte bsend with no buffer: succeeds",
    "attach_twice_error_class": "attach while attached: an internal error code with no "
                                "handler (reported here as MPI_ERR_BUFFER)",
    "ibsend_completes_at_once": "MPI_Test flag 1 at once, also for 100000 B to a receiver "
                                "asleep 1.5 s (5.0.11 and 4.1.4)",
    "eager_cells": "fitted with eager_box and local_send_limit to the sends that return "
                   "before a sleeping receiver wakes: 143 of 8 B, 58 of 64 B, 30 of 256 B, "
                   "none from 300 B = 16 + floor(4088 / ceil16(n + 24)); an approximation",
    "eager_box": "(see eager_cells)",
    "local_send_limit": "(see eager_cells)",
    "eager_waits_for_rendezvous": "not observed",
    "rendezvous_needs_progress": "not measured on 4.1.4: the ideal transport kept "
                                 "(5.0.11 measured: see openmpi-5.0)",
    "eager_release": "not measured on 4.1.4: every held message at the next call (5.0.11 "
                     "measured: see openmpi-5.0)",
    "failed_bsend_stalls_pair": "5.0.11 and 4.1.4: after MPI_ERR_BUFFER the pair's later "
                                "MPI_Send is never matched; the fallback program hangs",
    "mpi41_buffers": "5.0.11: Comm.Attach_buffer and Flush_buffer raise NotImplementedError, "
                     "BUFFER_AUTOMATIC is MPI_ERR_ARG",
    "refused_attach_stays": "not measured on 4.1.4: nothing attached (5.0.11: after the "
                            "refused 0-byte attach, detach finds none attached)",
    "bcast_root_mismatch": "4.1.4 and 5.0.11 (tests/data/real/mismatch.c): roots 0, 0, 1 on "
                           "3 ranks: ranks 0 and 1 get the data, rank 2 hangs; roots 0, 1, "
                           "1, 1: rank 0 keeps its own, the others get rank 1's",
    "short_collective_message": "4.1.4 and 5.0.11 (mismatch.c): MPI_Bcast of 4 doubles at "
                                "the root, 8 elsewhere: every rank completes",
    "rma_lock": "not measured on 4.1.4: the standard's (5.0.11 measured: see openmpi-5.0)",
    "rma_progress": "not measured on 4.1.4: the ideal target kept (5.0.11 measured: see "
                    "openmpi-5.0)",
    "rma_lock_progress": "not measured on 4.1.4: the ideal target kept (5.0.11 measured: "
                         "see openmpi-5.0)",
    "finalize": "not measured on 4.1.4: collective kept (5.0.11 measured: see "
                "openmpi-5.0)",
    "latency": "not measured: the network's default",
    "bandwidth": "not measured: the network's default",
    "spawn_latency": "MPI_Comm_spawn of 1 C process from mpiexec -n 1: 0.24 s on Open MPI "
                     "4.1.4 (0.41-0.46 s on a loaded machine)",
    "universe_limit": "yes: beyond its slots (2 on 2 cores) MPI_ERR_SPAWN, \"All nodes "
                      "which are allocated for this job are already filled\"",
}

EVIDENCE: dict[str, dict[str, str]] = {"standard": _STD, "mpich-4.0": _MPICH, "openmpi-4.1": _OMPI}
"""Per profile, per setting: the text or measurement the value comes from."""

SETTINGS = list(READERS)
"""The settings of a profile, in the order tables show them."""


def evidence_of(profile: Profile) -> dict[str, str]:
    """Per setting, where ``profile``'s value comes from: the table above for the
    hand-made profiles, the recorded evidence for a measured one (a file's settings without
    evidence come from the profile it is based on)."""
    name = ALIASES.get(profile.name, profile.name)  # a short name: its profile's evidence
    if not profile.evidence and name in EVIDENCE:
        return EVIDENCE[name]
    base = EVIDENCE.get(profile.family, {}) if profile.family != profile.name else {}
    recorded = dict(profile.evidence)
    out = {}
    for key in SETTINGS:
        if key in recorded:
            out[key] = _evidence_text(recorded[key])
        else:
            out[key] = base.get(key) or "given in the file, without evidence"
    return out


def _named(name: str) -> str:
    """A profile's name with its short one (``mpich-4.0 (short name mpich)``), or a short
    name with what it stands for (``mpich (short name of mpich-4.0, MPICH 4.0)``)."""
    if name in ALIASES:
        return f"{name} (short name of {ALIASES[name]}, {release(name)})"
    short = [a for a, full in ALIASES.items() if full == name]
    return f"{name} (short name {', '.join(short)})" if short else name


def _evidence_text(ev: object) -> str:
    """One line from a recorded evidence mapping: probe, parameters and what was seen."""
    if not isinstance(ev, dict):
        return "given in the file, without evidence" if ev is None else str(ev)
    parts = [f"probe {ev.get('probe', '?')}"]
    params = ev.get("parameters")
    if params:
        parts.append(", ".join(f"{k}={v}" for k, v in params.items()))
    if "observed" in ev:
        parts.append(f"observed {_compact(ev['observed'])}")
    if ev.get("note"):
        parts.append(str(ev["note"]))
    return "; ".join(parts)


def _compact(value: object) -> str:
    """A recorded value in one short line (the profile file keeps all of it)."""
    if isinstance(value, dict) and len(value) > 6:
        shown = list(value.items())[:6]
        return ("{" + ", ".join(f"{k}: {_compact(v)}" for k, v in shown)
                + f", ... {len(value)} in all}}")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and len(value) > 8:
        return "[" + ", ".join(_compact(v) for v in value[:8]) + f", ... {len(value)} in all]"
    if isinstance(value, list):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return str(value)


def _value(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def table(markdown: bool = True, profiles: list[Profile] | None = None) -> str:
    """Every setting of every profile (the built-in ones unless ``profiles`` are given), its
    value and where it comes from."""
    chosen = [*PROFILES.values(), *shipped_profiles()] if profiles is None else profiles
    evidence = [evidence_of(p) for p in chosen]
    if markdown:
        lines = ["| setting | " + " | ".join(f"`{p.name}`" for p in chosen) + " |",
                 "|---" * (len(chosen) + 1) + "|"]
        for key in SETTINGS:
            cells = [f"{_value(getattr(p, key))}: {ev[key]}"
                     for p, ev in zip(chosen, evidence, strict=True)]
            lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
        return "\n".join(lines)
    out = []
    for p, ev in zip(chosen, evidence, strict=True):
        out.append(f"{_named(p.name)}: {p.description}")
        if p.library:
            out.append(f"  measured on: {p.library}")
        for key in SETTINGS:
            out.append(f"  {key:<28} {_value(getattr(p, key)):<16} {ev[key]}")
        out.append("")
    return "\n".join(out).rstrip()
