"""Type signatures and the type-matching rule of communication (MPI 4.1 §3.3.1).

A datatype's *type signature* is the sequence of basic datatypes its data is made of,
without the displacements. A matched send and receive must have matching signatures: the
sender's (``count`` copies of its type) must be a prefix of the receiver's, basic type by
basic type, each type matching only itself (MPI_INT is not MPI_FLOAT, even of the same
size; MPI_BYTE matches only MPI_BYTE). MPI_PACKED, the type of packed data, matches any
signature (§5.2: what was packed is what counts).

A signature is kept as runs ``((name, n), ...)``, built once per derived type and cached;
comparing two basic types is one identity test, so the check costs nothing per message
when sender and receiver use the same type. Derived types whose signatures would exceed
:data:`MAX_RUNS` runs are not compared (they are never reported), nor are types that say
their basic types are unknown (``signature_unknown``: a recording's derived type whose
signature the recorder did not give).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_RUNS", "signature", "signatures_match"]

MAX_RUNS = 4096
"""Runs a signature may have before it is left unchecked (None)."""

_cache: dict[int, tuple[Any, tuple[Any, ...] | None]] = {}  # id(datatype) -> (datatype, runs)


def signature(datatype: Any) -> tuple[tuple[str, int], ...] | None:
    """The runs ``((basic type name, copies), ...)`` of one element of ``datatype``; None
    when it is too long to compare."""
    hit = _cache.get(id(datatype))
    if hit is not None and hit[0] is datatype:
        return hit[1]
    runs = _runs(datatype)
    if len(_cache) > 10_000:
        _cache.clear()
    _cache[id(datatype)] = (datatype, runs)
    return runs


def _runs(datatype: Any) -> tuple[tuple[str, int], ...] | None:
    if getattr(datatype, "signature_unknown", False):  # a replay's type of unknown members
        return None
    if datatype._predefined or not datatype._members:
        return ((datatype.name, 1),) if datatype.size else ()
    out: list[list[Any]] = []
    for old, _disps, counts in datatype._members:
        inner = signature(old)
        if inner is None:
            return None
        for n in counts.tolist():
            if not _append(out, inner, n):
                return None
    return tuple((name, k) for name, k in out)


def _append(out: list[list[Any]], runs: tuple[Any, ...], times: int) -> bool:
    """Append ``times`` copies of ``runs`` to ``out`` (merging neighbours); False when the
    result would exceed MAX_RUNS."""
    if times <= 0 or not runs:
        return True
    if len(runs) == 1:  # one basic type: one run, whatever the copies
        name, k = runs[0]
        if out and out[-1][0] == name:
            out[-1][1] += k * times
        else:
            out.append([name, k * times])
        return len(out) <= MAX_RUNS
    if len(out) + len(runs) * times > MAX_RUNS:
        return False
    for _ in range(times):
        for name, k in runs:
            if out and out[-1][0] == name:
                out[-1][1] += k
            else:
                out.append([name, k])
    return True


def signatures_match(sent: Any, sent_count: int, received: Any) -> tuple[str, str] | None:
    """None when ``sent_count`` elements of ``sent`` may be received with ``received``
    (§3.3.1); else the first pair of basic types that differ (sender's, receiver's)."""
    if sent is received:
        return None
    if sent.name == received.name or "PACKED" in (sent.name, received.name):
        return None
    a, b = signature(sent), signature(received)
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:  # homogeneous: one basic type each
        return None if a[0][0] == b[0][0] else (a[0][0], b[0][0])
    return _prefix(a, sent_count, b)


def _prefix(a: tuple[Any, ...], count: int, b: tuple[Any, ...]) -> tuple[str, str] | None:
    """Whether ``count`` copies of ``a`` are a prefix of ``b`` repeated (runs compared, at
    most MAX_RUNS steps)."""
    i = j = 0
    left_a, left_b = a[0][1], b[0][1]
    done = 0
    for _ in range(MAX_RUNS):
        if a[i][0] != b[j][0]:
            return a[i][0], b[j][0]
        step = min(left_a, left_b)
        left_a -= step
        left_b -= step
        if left_a == 0:
            i += 1
            if i == len(a):
                i, done = 0, done + 1
                if done >= count:
                    return None
            left_a = a[i][1]
        if left_b == 0:
            j = (j + 1) % len(b)
            left_b = b[j][1]
    return None
