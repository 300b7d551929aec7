/* mbi: correct */
/* A persistent MPI_Allreduce_init started three times; rank 0 writes its send buffer only
 * between a completion and the next MPI_Start (MPI 4.1 §6.13, §3.7.2). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce_init(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int i = 0; i < 3; i++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == 0) x[1] = 7 + i;
    }
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
