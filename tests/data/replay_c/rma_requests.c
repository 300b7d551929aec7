/* The request-based one-sided operations (MPI 4.1 §12.3.5) for mpisim record and replay:
 * in one passive-target epoch on all processes (lock_all) over a window of 12 doubles, a put
 * to the right (doubles 0-3) and a get from the left (4-7) completed together by
 * MPI_Waitall, then an accumulate at rank 0 (8-11) and an atomic read (get-accumulate with
 * MPI_NO_OP) of the right's double 4, each completed by MPI_Wait; MPI_Win_flush_all before
 * the epoch ends. No two accesses conflict (§12.7). Any number of processes. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size;
    double out[4] = {1, 2, 3, 4}, in[4], *base;
    MPI_Win win;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Win_allocate(12 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Win_lock_all(0, win);
    MPI_Rput(out, 4, MPI_DOUBLE, right, 0, 4, MPI_DOUBLE, win, &reqs[0]);
    MPI_Rget(in, 4, MPI_DOUBLE, left, 4, 4, MPI_DOUBLE, win, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Raccumulate(out, 4, MPI_DOUBLE, 0, 8, 4, MPI_DOUBLE, MPI_SUM, win, &reqs[0]);
    MPI_Rget_accumulate(out, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, right, 4, 1, MPI_DOUBLE,
                        MPI_NO_OP, win, &reqs[1]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
