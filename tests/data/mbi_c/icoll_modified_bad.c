/* mbi: error buffer-modified */
/* An MPI_Iallreduce's send buffer is written before the MPI_Wait that completes it (MPI 4.1
 * §6.12: the buffers of a nonblocking collective are the library's until it completes;
 * §3.7.2). MPICH completes the run; what the others get depends on timing. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Iallreduce(x, y, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    if (rank == 0) x[1] = 7;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
