"""The end of a script as a real process ends: atexit handlers (the last registered first),
then __main__'s objects finalized, then MPI_Finalize; handlers and finalizers may call MPI.
Each rank prints what it did, ``rank R: ...``; ``sys.argv[1] == "exit"`` ends with
sys.exit(0), ``"raise"`` makes a handler raise (the others still run)."""

import atexit
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()


class Closer:
    """An object whose finalizer makes a collective call."""

    def __del__(self):
        total = comm.allreduce(1)
        print(f"rank {rank}: finalizer saw {total} ranks", flush=True)


def first():
    print(f"rank {rank}: atexit first registered, runs last", flush=True)


def second(word):
    comm.Barrier()
    print(f"rank {rank}: atexit {word} after a barrier", flush=True)


def broken():
    raise RuntimeError("a handler that fails")


atexit.register(first)
atexit.register(second, "second")
if sys.argv[1:] == ["raise"]:
    atexit.register(broken)
closer = Closer()
print(f"rank {rank}: end of script", flush=True)
if sys.argv[1:] == ["exit"]:
    sys.exit(0)
