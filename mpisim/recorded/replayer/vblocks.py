"""The blocks of a recorded v or w collective checked as the program gave them (MPI 4.1 §6.5
to §6.8).

The recorder logs, at each rank that receives blocks (a gatherv's root, every rank of an
allgatherv, alltoallv, alltoallw), its receive counts ``rns``, displacements ``rds`` and
receive datatype ``rT`` (``rTs``: one per rank), and at a scatterv's root its own receive
``rn``/``rT``; ``ip=1`` says the rank's own part is MPI_IN_PLACE. A replay carries no data,
so these are checked here, at the call:

- the rank's own block: what it sends to itself (count and datatype) against what it
  receives from itself, as for any other pair (§6.5: "the type signature implied by
  sendcount, sendtype on process i must be equal to the type signature implied by
  recvcounts[i], recvtype at the root"; §6.6 likewise for a scatterv's root). A difference
  in bytes is a ``collective-count`` finding, the same bytes of other basic types a
  ``collective-type`` one;
- receive blocks that share a location (§6.5: "should not cause any location on the root to
  be written more than once. Such a call is erroneous"): ``collective-overlap``, checked for
  datatypes whose elements fill their extent (recorded size = extent, lb 0), as the handle
  checks a Python program's.

Recordings made before these keys were logged give nothing to check.
"""

from __future__ import annotations

from typing import Any

from ...collectives.arguments import overlapping
from ...engine.sites import site_text
from ...handle.access import lifecycle_of, port_of
from ...mpi.findings import Call as FindingCall
from ...mpi.signature import signatures_match
from ..read.records import Call

__all__ = ["check_blocks"]

_GATHERS = ("Gatherv", "Allgatherv")


def check_blocks(r: Any, call: Call) -> None:
    """The checks above for ``call`` at this rank (nothing when the recording has none of
    its blocks, or the run keeps no findings)."""
    a = call.args
    if lifecycle_of(r.mpi) is None or ("rns" not in a and "rn" not in a):
        return
    base = _base(call.name)
    me = r.mpi.comm_rank(r.comm(call))
    own = _own_parts(r, call, base, me)
    if own is not None:
        _own_block(r, call, *own)
    if "rns" in a and "rds" in a:
        _overlap(r, call, a)


def _base(name: str) -> str:
    """``Igatherv``, ``Gatherv_init`` -> ``Gatherv``."""
    name = name.removesuffix("_init")
    return name[1].upper() + name[2:] if name[:1] == "I" and name[1:2].islower() else name


def _own_parts(r: Any, call: Call, base: str, me: int) -> tuple[Any, ...] | None:
    """(sent count, sent type, received count, received type) of the rank's own block, or
    None (MPI_IN_PLACE: nothing moves; or not recorded)."""
    a = call.args
    if a.get("ip") == 1:
        return None
    if base == "Scatterv" and "rn" in a and "ns" in a:
        return a["ns"][me], r.datatype(call, a["T"]), a["rn"], r.datatype(call, a["rT"])
    rns = a.get("rns")
    if rns is None or me >= len(rns):
        return None
    if base in _GATHERS:
        return a.get("n", 0), r.datatype(call, a["T"]), rns[me], r.datatype(call, a["rT"])
    if base == "Alltoallv" and "ns" in a:
        return a["ns"][me], r.datatype(call, a["T"]), rns[me], r.datatype(call, a["rT"])
    if base == "Alltoallw" and "Ts" in a and "rTs" in a:
        return (a["ns"][me], r.datatype(call, a["Ts"][me]), rns[me],
                r.datatype(call, a["rTs"][me]))
    return None


def _own_block(r: Any, call: Call, n: int, sent: Any, m: int, received: Any) -> None:
    """§6.5, §6.6: the own block's signatures must be equal, as any pair's."""
    sent_b, recv_b = n * sent.size, m * received.size
    if sent_b != recv_b:
        rule = "collective-count"
    elif n and signatures_match(sent, n, received) is not None:
        rule = "collective-type"
    else:
        return
    what = (f"its own block: {n} x {sent.name} ({sent_b} B) sent to itself where its receive "
            f"takes {m} x {received.name} ({recv_b} B)")
    _found(r, call, rule, what + (" (type signatures differ)" if rule == "collective-type"
                                  else ""))


def _overlap(r: Any, call: Call, a: dict[str, Any]) -> None:
    """§6.5, §6.7, §6.8: two receive blocks that write one location."""
    if "rTs" in a:  # the w form: displacements in bytes, each block its type's
        infos = [r.log.types.get(t) for t in a["rTs"]]
        if not all(_gapless(i) for i in infos):
            return
        counts = [c * i.size for c, i in zip(a["rns"], infos, strict=False)]
    else:
        if not _gapless(r.log.types.get(a.get("rT"))):
            return
        counts = list(a["rns"])
    blocks = overlapping(counts, a["rds"])
    if blocks is not None:
        j, k = blocks
        _found(r, call, "collective-overlap", f"the blocks of ranks {j} and {k} overlap in its "
               "receive buffer (its counts and displacements write a location twice)")


def _gapless(info: Any) -> bool:
    """A recorded type whose elements fill their extent: blocks compare as intervals."""
    return info is not None and info.size == info.extent and info.lb == 0 and info.size > 0


def _found(r: Any, call: Call, rule: str, what: str) -> None:
    life = lifecycle_of(r.mpi)
    if life is None:
        return
    where = site_text(port_of(r.mpi).where)
    name = f"MPI_{call.name}"
    comm = call.args.get("comm", 0)
    on = "" if comm == 0 else f" on comm{comm}"
    life.findings.add(rule, f"rank {r.mpi.rank}'s {name}{on}: {what}",
                      (FindingCall(r.mpi.rank, name, where),))
