/* mbi: error buffer-modified */
/* A persistent MPI_Allreduce_init started three times; in the second round rank 0 writes
 * its send buffer before the MPI_Wait that completes it (MPI 4.1 §6.13: a started persistent
 * collective is pending as a nonblocking one is, §6.12; §3.7.2). MPICH completes the run. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce_init(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int i = 0; i < 3; i++) {
        MPI_Start(&req);
        if (rank == 0 && i == 1) x[1] = 7;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
