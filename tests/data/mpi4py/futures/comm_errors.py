"""MPICommExecutor on a communicator: root 1 submits, the others work; a task's exception
comes back through future.result(); shutdown(cancel_futures=True)."""
from mpi4py import MPI
from mpi4py.futures import MPICommExecutor


def rank_of(x):
    return x, MPI.COMM_WORLD.Get_rank() != 1


def fail(x):
    raise KeyError(x)


comm = MPI.COMM_WORLD
with MPICommExecutor(comm, root=1) as executor:
    if executor is None:
        print("worker", comm.Get_rank(), "served")
    else:
        print("root", comm.Get_rank(), [r for r in executor.map(rank_of, range(4))])
        try:
            executor.submit(fail, "missing").result()
        except KeyError as e:
            print("root got", repr(e))
        executor.shutdown(wait=True, cancel_futures=True)
        print("root shut down")
print("rank", comm.Get_rank(), "done")
