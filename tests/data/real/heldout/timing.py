"""Which call waited: a held-out program times its calls of interest with MPI.Wtime (wall
time under a real library, simulated time under mpisim) and prints, per call, ``waited``
when it took more than half the sleeping rank's sleep, ``at once`` otherwise."""

from mpi4py import MPI


class Timer:
    """Times calls by name, in the order made; ``line()`` says which waited."""

    def __init__(self, sleep: float) -> None:
        self.sleep = sleep
        self.calls: list[str] = []

    def __call__(self, name, call, *args, **kwargs):
        t0 = MPI.Wtime()
        try:
            return call(*args, **kwargs)
        finally:
            took = MPI.Wtime() - t0
            self.calls.append(f"{name} {'waited' if took > self.sleep / 2 else 'at once'}")

    def line(self) -> str:
        return ", ".join(self.calls)
