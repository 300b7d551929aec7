"""MPIPoolExecutor: two spawned workers run functions of this script (imported there as
__worker__), submit, map with chunks, unordered map, starmap, a task's exception re-raised
by result(), and shutdown. Run with `mpiexec -n 1`."""
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor, as_completed, wait


def square(x):
    return x * x


def where(x):
    comm = MPI.COMM_WORLD  # a worker's own world: the spawned workers
    return (x, comm.Get_size(), MPI.Comm.Get_parent() != MPI.COMM_NULL, __name__)


def fail(x):
    raise ValueError(f"bad input {x}")


if __name__ == "__main__":
    with MPIPoolExecutor(max_workers=2) as executor:
        print("workers", executor.num_workers)
        print("submit", executor.submit(square, 7).result())
        print("where", executor.submit(where, 1).result())
        print("map", list(executor.map(square, range(10))))
        print("chunks", list(executor.map(square, range(11), chunksize=3)))
        print("unordered", sorted(executor.map(square, range(6), unordered=True)))
        print("starmap", list(executor.starmap(pow, [(2, 5), (3, 2), (10, 3)])))
        futures = [executor.submit(square, x) for x in range(5)]
        print("as_completed", sorted(f.result() for f in as_completed(futures)))
        done, not_done = wait(futures)
        print("wait", len(done), len(not_done))
        future = executor.submit(fail, 3)
        try:
            future.result()
        except ValueError as e:
            print("error", type(e).__name__, e, type(e.__cause__).__name__)
        print("exception", repr(executor.submit(fail, 4).exception()))
    try:
        executor.submit(square, 1)
    except RuntimeError as e:
        print("after shutdown", e)
