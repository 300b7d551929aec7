/* mbi: error buffer-modified */
/* An MPI_Isendrecv's send buffer is written before the MPI_Wait that completes it (MPI 4.1
 * §3.10: its send part is pending as an MPI_Isend is; §3.7.2). MPICH completes the run;
 * what the peer gets depends on timing. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4];
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Isendrecv(x, 4, MPI_INT, 1 - rank, 0, y, 4, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD,
                  &req);
    if (rank == 0) x[3] = 8;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
