"""From what the probes observed to a profile's settings: pure functions, no MPI.

``fit(observations)`` takes the record of a calibration (the JSON that
:func:`mpisim.calibrate.suite.observe` writes, or one written by hand from published
measurements) and returns ``(settings, evidence)``: a value for every profile setting the
probes measure, and for each the probe, its parameters and what was observed. Settings no
probe measures are left to the profile the file is based on (``standard``), and say so.

Decisions (where the observations leave a choice):

* The entry rule: the minimal attach size B(k, m) for k pending entries of m bytes gives
  the per-entry step ``B(k+1, m) - B(k, m)`` = header + m rounded to the unit, and the last
  entry's size ``B(1, m) - start``. The header comes from sizes that are multiples of 4096
  (no rounding), the unit and direction from the others, the start offset and whether the
  last entry of a block is charged unrounded from B(1, m). The split threshold (a remainder
  too small to become a free block stays with the entry) only matters for messages of a
  few bytes, which no pending-entry probe can hold: it is taken as header + 8 when the last
  entry is unrounded (MPICH's rule), else 0.
* Receiver progress: the counts of sends a sleeping receiver absorbs are fitted to
  ``eager_cells + floor(eager_box / ceil16(n + 24))`` (mpisim's model); equal counts mean
  cells only. Of the boxes that reproduce every count, the largest multiple of 8 is taken.
* How that room is freed (``eager_release``): while the receiver only polls (MPI_Iprobe),
  one send per poll going on is ``poll``; more is ``progress``; none (the receiver's
  receives free it, in batches: Open MPI 5.0.11) is not modelled, and ``progress`` is kept
  with the observation in the evidence.
* An error class mpisim does not model (an implementation's internal code, or
  MPI_ERR_UNKNOWN) for attaching while attached is reported as MPI_ERR_BUFFER, as the
  ``openmpi-4.1`` profile does, with the observed class in the evidence.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FitError", "fit", "fit_entry_rule", "fit_progress", "fit_release",
           "predicted_attach", "released_by_polls"]

MODELLED_CLASSES = ("MPI_ERR_BUFFER", "MPI_ERR_OTHER", "MPI_ERR_ARG", "MPI_ERR_INTERN")
BOX_HEADER, BOX_ALIGN = 24, 16


class FitError(ValueError):
    """The observations do not fit the model (named setting: why)."""


def _ev(probe: str, parameters: dict[str, Any], observed: Any, library: str,
        note: str = "") -> dict[str, Any]:
    out = {"probe": probe, "parameters": parameters, "observed": observed, "library": library}
    if note:
        out["note"] = note
    return out


def fit(obs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every measured setting and its evidence, from one calibration's observations."""
    lib = " ".join(obs["library"].replace("\x00", " ").split())
    settings: dict[str, Any] = {}
    evidence: dict[str, Any] = {}

    def put(key: str, value: Any, ev: dict[str, Any]) -> None:
        settings[key], evidence[key] = value, ev

    put("bsend_overhead", obs["bsend_overhead"],
        _ev("info", {}, {"MPI_BSEND_OVERHEAD": obs["bsend_overhead"]}, lib))
    for key, (value, ev) in _errors(obs["errors"], lib).items():
        put(key, value, ev)
    for key, (value, ev) in _sends(obs, lib).items():
        put(key, value, ev)
    if "fit_entries" in obs:
        rule, ev = fit_entry_rule(obs["fit_entries"], lib)
        put("sizing", rule, ev)
        put("alignment", 1, _ev("fit_entries", {}, "see sizing", lib,
                                "the entry rule carries its own rounding"))
    if "holes" in obs:
        put(*_allocator(obs["holes"], lib))
    for key, (value, ev) in _waits(obs, lib).items():
        put(key, value, ev)
    if obs.get("rma_target") and "error" not in obs["rma_target"][0]:
        for key, (value, ev) in _one_sided(obs["rma_target"], lib).items():
            put(key, value, ev)
    if "pingpong" in obs:
        latency, bandwidth, ev = _hockney(obs["pingpong"], lib)
        put("latency", latency, ev)
        put("bandwidth", bandwidth, ev)
    if (obs.get("spawn") or {}).get("seconds") is not None:
        seconds = float(f"{obs['spawn']['seconds']:.3g}")
        put("spawn_latency", seconds, _ev(
            "spawn", {"maxprocs": 1, "child": "python with mpi4py"},
            {"best of 3": f"{seconds} s"}, lib,
            "MPI_Comm_spawn from MPI_COMM_SELF to its return (MPI 4.1 §11.8.2)"))
    return settings, evidence


def _waits(obs: dict[str, Any], lib: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    """What waits for whom: whether an ibsend completes at once, a failed bsend stalls its
    pair, an eager send waits behind a rendezvous one, a posted rendezvous needs the
    receiver's progress (the timing probes)."""
    out: dict[str, tuple[Any, dict[str, Any]]] = {}

    def put(key: str, value: Any, ev: dict[str, Any]) -> None:
        out[key] = (value, ev)

    if "ibsend" in obs:
        rec = obs["ibsend"]
        put("ibsend_completes_at_once", bool(rec["complete_at_once"]),
            _ev("ibsend", {"size": rec["size"], "receiver_sleeps_s": rec["sleep"]},
                {"complete_at_once": rec["complete_at_once"],
                 "detach_waited_s": rec["detach_seconds"]}, lib))
    if "fallback" in obs:
        rec = obs["fallback"]
        stalls = rec["bsend"] != "ok" and not rec["matched"]
        put("failed_bsend_stalls_pair", stalls,
            _ev("fallback", {"size": rec["size"]},
                {"bsend": rec["bsend"], "later_send_matched": rec["matched"],
                 "timed_out": rec.get("timed_out", False)}, lib))
    if "behind_rendezvous" in obs:
        rec = obs["behind_rendezvous"]
        waits = rec["seconds"] > rec["sleep"] / 2
        put("eager_waits_for_rendezvous", waits,
            _ev("behind_rendezvous", {"large": rec["large"], "small": rec["small"],
                                      "receiver_sleeps_s": rec["sleep"]},
                {"small_send_s": rec["seconds"]}, lib))
    if "posted_rendezvous" in obs:
        rec = obs["posted_rendezvous"]
        put("rendezvous_needs_progress", rec["seconds"] > rec["sleep"] / 2,
            _ev("posted_rendezvous", {"size": rec["size"], "receiver_sleeps_s": rec["sleep"]},
                {"send_s": rec["seconds"]}, lib,
                "the receiver posted its receive, then slept; the send began a quarter of "
                "the sleep in"))
    return out


# -- one-sided communication ---------------------------------------------------------------
def _one_sided(recs: list[dict[str, Any]], lib: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    """``rma_lock``, ``rma_progress``, ``rma_lock_progress`` from the ``rma_target``
    probe: which of Lock, Put, Unlock waited for the sleeping target (over half its sleep),
    per window flavor, with and without MPI_MODE_NOCHECK."""
    by = {(r["flavor"], r["nocheck"]): r for r in recs}
    sleep = recs[0]["sleep"]

    def waited(flavor: str, nocheck: bool, call: str) -> bool:
        return by[(flavor, nocheck)][call] > sleep / 2

    def any_op(flavor: str) -> bool:  # a put or unlock waited though no lock was asked
        return waited(flavor, True, "put") or waited(flavor, True, "unlock")

    created, allocated = any_op("create"), any_op("allocate")
    progress = "all" if created and allocated else "created" if created else "none"
    lazy = not waited("create", False, "lock") and (
        waited("create", False, "put") or waited("create", False, "unlock"))
    params = {"target_sleeps_s": sleep}
    observed = {f"{f}{', NOCHECK' if n else ''}": f"lock {r['lock']}, put {r['put']}, "
                f"unlock {r['unlock']}" for (f, n), r in by.items()}
    return {
        "rma_lock": ("lazy" if lazy else "eager", _ev(
            "rma_target", params, observed, lib,
            "MPI_Win_lock returned at once and a later call waited: the lock is asked with "
            "the epoch's first operation" if lazy else
            "MPI_Win_lock waited for the grant, or no call waited (eager assumed)")),
        "rma_progress": (progress, _ev(
            "rma_target", params, observed, lib,
            "with MODE_NOCHECK, a put or unlock waited for the target's next MPI call: "
            + {"all": "every window", "created": "a created window only",
               "none": "no window"}[progress])),
        "rma_lock_progress": (waited("allocate", False, "lock"), _ev(
            "rma_target", params, observed, lib,
            "MPI_Win_lock of an allocated window "
            + ("waited for the target's next MPI call" if waited("allocate", False, "lock")
               else "returned at once")))}


# -- errors ----------------------------------------------------------------------------------
def _errors(rec: dict[str, Any], lib: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    out: dict[str, tuple[Any, dict[str, Any]]] = {}
    sizes = sorted(int(k.split("_")[1]) for k in rec if k.startswith("attach_")
                   and k.split("_")[1].isdigit() and not k.endswith("_left_attached"))
    ok = [n for n in sizes if rec[f"attach_{n}"] == "ok"]
    refused = [n for n in sizes if rec[f"attach_{n}"] != "ok"]
    if not ok or (refused and max(refused) > min(ok)):
        raise FitError(f"attach_min: attaches of {sizes} B gave "
                       f"{[rec[f'attach_{n}'] for n in sizes]}, not refused below a size")
    left = [n for n in refused if rec.get(f"attach_{n}_left_attached")]
    out["attach_min"] = (min(ok), _ev(
        "errors", {"attach_sizes": sizes}, {f"attach {n}": rec[f"attach_{n}"] for n in sizes},
        lib))
    if refused:
        out["refused_attach_stays"] = (bool(left), _ev(
            "errors", {"refused_sizes": refused},
            {f"after attach {n}": "a buffer attached" if n in left else "none attached"
             for n in refused}, lib,
            "a refused attach left a buffer attached: another attach fails until it is "
            "detached" if left else ""))
    out["detach_unattached_error"] = (rec["detach_none"] != "ok", _ev(
        "errors", {}, {"detach with none attached": rec["detach_none"]}, lib))
    out["zero_bsend_unattached_ok"] = (rec["bsend_none_0"] == "ok", _ev(
        "errors", {"size": 0}, {"bsend with none attached": rec["bsend_none_0"]}, lib))
    twice = rec["attach_twice"]
    out["attach_twice_error_class"] = (twice if twice in MODELLED_CLASSES else "MPI_ERR_BUFFER",
                                       _ev("errors", {}, {"attach while attached": twice}, lib,
                                           "" if twice in MODELLED_CLASSES else
                                           "not a class mpisim models: MPI_ERR_BUFFER"))
    if "comm_attach_buffer" in rec:
        has = rec["comm_attach_buffer"] == "ok"
        out["mpi41_buffers"] = (has, _ev("errors", {}, {
            "Comm.Attach_buffer": rec["comm_attach_buffer"]}, lib))
    return out


# -- standard sends: eager limit, local sends, receiver progress -------------------------------
def _sends(obs: dict[str, Any], lib: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    out: dict[str, tuple[Any, dict[str, Any]]] = {}
    sleep = obs["sleep"]
    timed = {int(r["size"]): float(r["seconds"]) for r in obs.get("sleeping_send", [])}
    if timed:
        eager = _largest(timed, lambda s: s < 1.5 * sleep, "eager_limit")
        local = _largest(timed, lambda s: s < 0.5 * sleep, "local_send_limit")
        shown = _around(timed, [eager, local])
        out["eager_limit"] = (eager, _ev(
            "sleeping_send", {"receiver_sleeps_s": sleep, "sizes_tried": len(timed)}, shown,
            lib, f"largest send completed before the receiver matched it: {eager} B"))
        local_value = None if local >= eager else local
        out["local_send_limit"] = (local_value, _ev(
            "sleeping_send", {"receiver_sleeps_s": sleep}, shown, lib,
            f"largest send that returned before the receiver woke: {local} B"
            + (" (every eager send)" if local_value is None else "")))
    floods = [r for r in obs.get("flood", []) if r["mode"] == "send"]
    if floods:
        counts = {int(r["size"]): int(r["returned_at_once"]) for r in floods}
        cells, box, note = fit_progress(counts)
        ev = _ev("flood", {"receiver_sleeps_s": floods[0].get("sleep", sleep),
                           "sends": floods[0]["count"]},
                 {f"{n} B": c for n, c in sorted(counts.items())}, lib, note)
        out["eager_cells"] = (cells, ev)
        out["eager_box"] = (box, ev)
    if obs.get("release"):
        out["eager_release"] = fit_release(obs["release"], lib)
    direct = obs.get("direct")
    if direct:
        sizes = {int(r["size"]): r["result"] == "ok" for r in direct}
        limit = _largest(sizes, bool, "bsend_direct_limit", allow_none=True)
        out["bsend_direct_limit"] = (limit, _ev(
            "direct", {"attached": 0}, _around({n: ok for n, ok in sizes.items()},
                                               [limit or 0]), lib,
            "bsends with no buffer attached that succeed go straight to the transport"))
    return out


def released_by_polls(rec: dict[str, Any]) -> int:
    """How many sends went on while the receiver only polled: from the first that waited
    to the first that waited past the polls (or the last send)."""
    waited = rec["waited"]
    if not waited:
        return 0
    first = waited[0][0]
    end = rec["polls"] * rec["gap"] - rec["gap"] / 2
    later = [i for i, t in waited if t >= end]
    return (later[0] if later else rec["count"]) - first


def fit_release(rec: dict[str, Any], lib: str) -> tuple[str, dict[str, Any]]:
    """``eager_release`` and its evidence, from the ``release`` probe (see the module)."""
    polls, freed = rec["polls"], released_by_polls(rec)
    if abs(freed - polls) <= 1:
        value, note = "poll", (f"{freed} sends went on during {polls} MPI_Iprobe calls: one "
                               "per call")
    elif freed > polls + 1:
        value, note = "progress", (f"{freed} sends went on during {polls} MPI_Iprobe calls: "
                                   "the first call freed every cell")
    else:
        value, note = "progress", (f"{freed} sends went on during {polls} MPI_Iprobe calls: "
                                   "polling frees no room, the receives do (in batches; not "
                                   "modelled, the receiver's next call frees it here)")
    shown = {"first waiting send": rec["waited"][0][0] if rec["waited"] else None,
             "went on while polling": freed}
    return value, _ev("release", {"receiver_sleeps_s": rec["sleep"], "gap_s": rec["gap"],
                                  "polls": polls, "sends": rec["count"]}, shown, lib, note)


def _largest(results: dict[int, Any], good: Any, key: str, allow_none: bool = False) -> Any:
    """The largest good size below the smallest bad one. A good size above it (a timing
    outlier on a busy machine) does not move the boundary."""
    yes = [n for n, r in results.items() if good(r)]
    no = [n for n, r in results.items() if not good(r)]
    if not no:
        raise FitError(f"{key}: every size tried passed, up to {max(yes)} B")
    below = [n for n in yes if n < min(no)]
    if not below:
        if allow_none:
            return None
        raise FitError(f"{key}: no size tried was small enough ({sorted(results)[:4]}...)")
    return max(below)


def _around(results: dict[int, Any], marks: list[int]) -> dict[str, Any]:
    """The results next to each boundary, as evidence."""
    keep = set()
    ordered = sorted(results)
    for mark in marks:
        i = ordered.index(mark) if mark in ordered else 0
        keep.update(ordered[max(i - 1, 0):i + 2])
    return {f"{n} B": results[n] for n in sorted(keep)}


def box_slot(n: int) -> int:
    return -(-(n + BOX_HEADER) // BOX_ALIGN) * BOX_ALIGN


def fit_progress(counts: dict[int, int]) -> tuple[int | None, int | None, str]:
    """(eager_cells, eager_box, note) reproducing how many sends of each size a sleeping
    receiver absorbed: cells + floor(box / ceil16(n + 24))."""
    values = set(counts.values())
    if len(values) == 1:
        (c,) = values
        return (c if c else None), None, f"{c} sends of every size returned at once"
    for cells in range(min(values), -1, -1):
        lo, hi = 0, 1 << 40
        for n, c in counts.items():
            slot = box_slot(n)
            lo, hi = max(lo, (c - cells) * slot), min(hi, (c - cells + 1) * slot - 1)
        if lo <= hi:
            box = hi // 8 * 8 if hi // 8 * 8 >= lo else hi
            return cells or None, box, (f"cells + floor(box / ceil16(n + 24)) fits with "
                                        f"{cells} cells and any box of {lo}..{hi} B")
    return _closest_progress(counts)


def _closest_progress(counts: dict[int, int]) -> tuple[int | None, int, str]:
    """No cells + box reproduces every count (a library whose model differs, or a busy
    machine): the pair with the smallest total error, which the note states."""
    best: tuple[int, int, int] | None = None
    top = max(c * box_slot(n) for n, c in counts.items()) * 2
    for cells in range(min(counts.values()) + 1):
        for box in range(0, top + 8, 8):
            err = sum(abs(cells + box // box_slot(n) - c) for n, c in counts.items())
            if best is None or err < best[0]:
                best = (err, cells, box)
    err, cells, box = best  # type: ignore[misc]
    predicted = {n: cells + box // box_slot(n) for n in sorted(counts)}
    return cells or None, box, (f"an approximation: no cells + floor(box / ceil16(n + 24)) gives "
                        f"every count; {cells} cells and a {box}-byte box predict "
                        f"{predicted} (off by {err} in all)")


# -- the attached buffer -------------------------------------------------------------------------
def minimal_attach(trials: list[dict[str, Any]]) -> dict[tuple[int, int], int]:
    """B(k, m): the smallest attach size that accepted k entries of m bytes, checked against
    the largest that refused (one byte less)."""
    best: dict[tuple[int, int], int] = {}
    refused: dict[tuple[int, int], int] = {}
    for t in trials:
        key = (int(t["k"]), int(t["size"]))
        if t["accepted"] >= t["k"]:
            best[key] = min(best.get(key, 1 << 62), int(t["attach"]))
        else:
            refused[key] = max(refused.get(key, -1), int(t["attach"]))
    out = {}
    for key, b in best.items():
        if refused.get(key, -1) != b - 1:
            raise FitError(f"sizing: the search for {key[0]} entries of {key[1]} B did not "
                           f"end on adjacent sizes (accepted {b}, refused "
                           f"{refused.get(key)})")
        out[key] = b
    return out


def fit_entry_rule(trials: list[dict[str, Any]], lib: str = "") -> tuple[str, dict[str, Any]]:
    """The entry rule (a sizing string) that explains every minimal attach size."""
    from ..buffered.allocators import EntryRule

    b = minimal_attach(trials)
    sizes = sorted({m for _, m in b})
    step = {}
    for m in sizes:
        ks = sorted(k for k, mm in b if mm == m)
        steps = {b[(k + 1, m)] - b[(k, m)] for k in ks if (k + 1, m) in b}
        if len(steps) != 1:
            raise FitError(f"sizing: entries of {m} B do not take a constant step: {steps}")
        step[m] = steps.pop()
    aligned = [m for m in sizes if m % 4096 == 0]
    if not aligned:
        raise FitError("sizing: needs a message size that is a multiple of 4096")
    header = step[aligned[0]] - aligned[0]
    body = {m: step[m] - header for m in sizes}
    up = all(body[m] >= m for m in sizes)
    down = all(body[m] <= m for m in sizes)
    if not (up or down):
        raise FitError(f"sizing: rounding neither up nor down: {body}")
    up = up or all(body[m] == m for m in sizes)  # no rounding at all: written as up
    unit = next((u for u in (1 << i for i in range(13))
                 if all(_round(m, u, up) == body[m] for m in sizes)), None)
    if unit is None:
        raise FitError(f"sizing: no power-of-two unit rounds {sizes} to {body}")
    exact = {b[(1, m)] - header - m for m in sizes if (1, m) in b}
    rounded = {b[(1, m)] - header - body[m] for m in sizes if (1, m) in b}
    if len(rounded) == 1 and (len(exact) > 1 or rounded == exact):
        last_exact, start = False, rounded.pop()
    elif len(exact) == 1:
        last_exact, start = True, exact.pop()
    else:
        raise FitError(f"sizing: B(1, m) is neither start + header + m nor start + entry: "
                       f"{ {m: b[(1, m)] for m in sizes if (1, m) in b} }")
    rule = EntryRule(start=start, header=header, unit=unit, round_up=up,
                     last_exact=last_exact, split=header + 8 if last_exact else 0)
    observed = {f"{k} x {m} B": v for (k, m), v in sorted(b.items())}
    return str(rule), _ev("fit_entries", {"sizes": sizes, "entries": sorted({k for k, _ in b})},
                          observed, lib, "smallest attach that accepted k pending entries "
                          f"(one byte less refused); split {rule.split} B not measured")


def predicted_attach(rule: str, k: int, m: int) -> int:
    """The smallest attach that holds k pending entries of m bytes under ``rule``."""
    from ..buffered.allocators import EntryRule

    r = EntryRule.parse(rule)
    entry = r.header + _round(m, r.unit, r.round_up)
    last = r.header + m if r.last_exact else entry
    return r.start + (k - 1) * entry + last


def _round(m: int, unit: int, up: bool) -> int:
    return -(-m // unit) * unit if up else m // unit * unit


def _allocator(holes: list[dict[str, Any]], lib: str) -> tuple[str, str, dict[str, Any]]:
    middle = [h for h in holes if sorted(h["receive"]) == [1, 2]]
    if not middle or any(p != "ok" for p in middle[0]["placed"]):
        raise FitError("allocator: the four-entries probe did not place four entries")
    reused = middle[0]["result"] == "ok"
    observed = {f"received {h['receive']}, then bsend {h['then']} B": h["result"]
                for h in holes}
    return "allocator", "first-fit" if reused else "circular", _ev(
        "holes", {"size": middle[0]["size"], "attach": middle[0]["attach"]}, observed, lib,
        "a hole between pending entries reused: first fit" if reused else
        "freed only from the head: the standard's circular queue")


# -- network ---------------------------------------------------------------------------------
def _hockney(records: list[dict[str, Any]], lib: str) -> tuple[float, float, dict[str, Any]]:
    """Hockney's latency + size / bandwidth: the bandwidth from the slope between the two
    largest sizes (where the size term dominates), the latency from the smallest one-way
    time less its size term (least squares would let the large sizes' noise set it)."""
    pts = sorted((int(r["size"]), float(r["one_way"])) for r in records)
    how = "bandwidth from the two largest sizes"
    slope = _slope(pts[-2:])
    if slope is None:  # a noisy machine: the largest two crossed; the widest span instead
        slope, how = _slope([pts[0], pts[-1]]), "bandwidth from the smallest and largest sizes"
    if slope is None:
        raise FitError(f"bandwidth: the ping-pong times do not grow with size: {pts}")
    bandwidth = 1.0 / slope
    latency = max(min(y - x / bandwidth for x, y in pts[:2]), 0.0)
    observed = {f"{x} B": f"{y * 1e6:.2f} us" for x, y in pts}
    return float(f"{latency:.3g}"), float(f"{bandwidth:.3g}"), _ev(
        "pingpong", {"sizes": [x for x, _ in pts]}, observed, lib,
        f"one-way time = half the best round trip; {how}, latency from the smallest")


def _slope(pair: list[tuple[int, float]]) -> float | None:
    """Seconds per byte between two (size, time) points; None unless time grows with size."""
    (x1, y1), (x2, y2) = pair
    return (y2 - y1) / (x2 - x1) if x2 > x1 and y2 > y1 else None
