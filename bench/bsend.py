"""Buffered-mode benchmark: what the attached buffer adds to the per-message cost.

Each rank bsends a burst of messages to each neighbour, then receives the bursts sent to
it, repeatedly. The same pattern with isend/waitall instead of bsend is the baseline:
the difference is the cost of buffered mode (entry placement, reclaim, completion,
recording). A bare SimPy ring in the same run gives the machine's speed, as in ring.py.

    python bench/bsend.py
"""

from __future__ import annotations

import argparse

from ring import bare_simpy, measure

import mpisim as ms

NBYTES = 64


def bursts(mpi, rounds: int, burst: int, mode: str):
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    if mode == "bsend":
        yield mpi.buffer_attach(2 * burst * (NBYTES + mpi.BSEND_OVERHEAD))
    call = getattr(mpi, mode)
    for _ in range(rounds):
        reqs = []
        for _ in range(burst):
            for peer in (right, left):
                if mode == "isend":
                    reqs.append((yield call(count=NBYTES, dest=peer, tag=0)))
                else:
                    yield call(count=NBYTES, dest=peer, tag=0)
        for _ in range(2 * burst):
            yield mpi.recv(count=NBYTES, source=ms.ANY_SOURCE, tag=0)
        if reqs:
            yield mpi.waitall(reqs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--burst", type=int, default=8)
    args = ap.parse_args()
    rounds = max(1, args.messages // (args.ranks * 2 * args.burst))
    total = rounds * args.ranks * 2 * args.burst
    t_bare = measure(lambda: bare_simpy(args.ranks, total // args.ranks))
    times = {}
    for mode, allocator in (("send", "circular"), ("isend", "circular"), ("bsend", "circular"),
                            ("bsend", "first-fit"), ("bsend", "unbounded")):
        def sim(mode=mode, allocator=allocator):
            r = ms.run(bursts, ranks=args.ranks, mpi={"allocator": allocator},
                       params={"rounds": rounds, "burst": args.burst, "mode": mode})
            assert r.outcome is ms.Outcome.COMPLETED, r.report()
        times[(mode, allocator)] = measure(sim)
    base = times[("send", "circular")]
    print(f"{args.ranks} ranks, {total} messages, bursts of {args.burst} per neighbour")
    print(f"{'send mode':>22} {'msg/s':>10} {'vs bare SimPy':>14} {'time vs send':>13}")
    print(f"{'bare SimPy ring':>22} {total / t_bare:>10.0f} {1.0:>14.2f}")
    for (mode, allocator), t in times.items():
        name = f"bsend, {allocator}" if mode == "bsend" else mode
        print(f"{name:>22} {total / t:>10.0f} {t_bare / t:>14.2f} {t / base:>13.2f}")


if __name__ == "__main__":
    main()
