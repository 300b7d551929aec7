"""Ring benchmark: simulated messages per wall-clock second, as a ratio to bare SimPy.

Each rank sends to rank+1 and receives from rank-1, repeatedly (eager messages). The
baseline is a bare SimPy loop doing the same events in the same run: per message one
timeout for the send's injection, one arrival event, one wake-up of the receiver. The
machine is shared and noisy, so the figure that counts is the ratio, not the rate.

    python bench/ring.py                 # 2, 64, 1024, 16384 ranks
    python bench/ring.py --ranks 64 --messages 200000 --no-trace
"""

from __future__ import annotations

import argparse
import time

import simpy

import mpisim as ms

LATENCY, BANDWIDTH, NBYTES = 1e-6, 1e10, 64


def ring(mpi, iterations: int):
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    for _ in range(iterations):
        yield mpi.send(count=NBYTES, datatype=ms.BYTE, dest=right, tag=0)
        yield mpi.recv(count=NBYTES, datatype=ms.BYTE, source=left, tag=0)


def bare_simpy(ranks: int, iterations: int) -> int:
    """The same events with nothing but SimPy: returns messages delivered."""
    env = simpy.Environment()
    mailbox = [0] * ranks
    waiting: list[simpy.Event | None] = [None] * ranks
    delivered = [0]

    def arrive(ev):
        dst = ev.value
        delivered[0] += 1
        if waiting[dst] is not None:
            w, waiting[dst] = waiting[dst], None
            w.succeed()
        else:
            mailbox[dst] += 1

    def proc(r):
        right = (r + 1) % ranks
        wire = NBYTES / BANDWIDTH
        for _ in range(iterations):
            env.timeout(wire + LATENCY, right).callbacks.append(arrive)
            yield env.timeout(wire)
            if mailbox[r]:
                mailbox[r] -= 1
            else:
                waiting[r] = env.event()
                yield waiting[r]

    for r in range(ranks):
        env.process(proc(r))
    env.run()
    return delivered[0]


def measure(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="*", default=[2, 64, 1024, 16384])
    ap.add_argument("--messages", type=int, default=100_000, help="messages per size")
    ap.add_argument("--no-trace", action="store_true", help="switch the recorder off")
    args = ap.parse_args()
    net = {"latency": LATENCY, "bandwidth": BANDWIDTH, "eager_limit": 4096}
    print(f"{'ranks':>6} {'messages':>9} {'bare SimPy msg/s':>17} {'mpisim msg/s':>13} "
          f"{'ratio':>6}")
    for ranks in args.ranks:
        iterations = max(1, args.messages // ranks)
        total = ranks * iterations
        n = bare_simpy(ranks, iterations)
        assert n == total, (n, total)
        t_bare = measure(lambda: bare_simpy(ranks, iterations))  # noqa: B023

        def sim():
            res = ms.run(ring, ranks=ranks, network=net, params={"iterations": iterations},  # noqa: B023
                         trace=not args.no_trace)
            assert res.outcome == ms.Outcome.COMPLETED and res.messages["received"] == total  # noqa: B023
        t_sim = measure(sim)
        print(f"{ranks:>6} {total:>9} {total / t_bare:>17.0f} {total / t_sim:>13.0f} "
              f"{t_bare / t_sim:>6.2f}")


if __name__ == "__main__":
    main()
