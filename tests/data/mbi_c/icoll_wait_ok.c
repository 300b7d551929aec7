/* mbi: correct */
/* A nonblocking allreduce completed by MPI_Wait (MPI 4.1 §6.12). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x, sum;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank;
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
