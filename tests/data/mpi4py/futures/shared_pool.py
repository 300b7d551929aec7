"""Run with `mpiexec -n 4 python -m mpi4py.futures shared_pool.py`: rank 0 runs this
script, the other ranks are the pool's workers."""
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor, get_comm_workers


def square(x):
    return x * x


def team(_):
    comm = get_comm_workers()
    return comm.Get_size(), MPI.COMM_WORLD.Get_size()


if __name__ == "__main__":
    print("main rank", MPI.COMM_WORLD.Get_rank(), "of", MPI.COMM_WORLD.Get_size())
    with MPIPoolExecutor() as executor:
        print("workers", executor.num_workers)
        print("map", list(executor.map(square, range(8), chunksize=2)))
        print("team", executor.submit(team, 0).result())
    with MPIPoolExecutor() as executor:
        print("again", list(executor.starmap(pow, [(2, 3), (3, 3)])))
