/* mbi: error request-not-completed */
/* The isend's request is never waited for (MPI 4.1 §3.7.3, §11.2.2: MissingWait). MPICH
 * completes the run. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
