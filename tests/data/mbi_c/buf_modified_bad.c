/* mbi: error buffer-modified */
/* The isend's buffer is written before the wait that completes it (MPI 4.1 §3.7.2, MBI's
 * LocalConcurrency). MPICH completes the run; what rank 1 gets depends on timing. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(x, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        x[2] = 9;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == 1) MPI_Recv(x, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
