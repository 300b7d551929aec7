/* deadlock: rank 0 MPI_Ssend, rank 1 MPI_Recv (2 processes)
 * MPI_Ssend (tag 0) against MPI_Recv on another tag (1): the synchronous send completes
 * only when a matching receive starts (MPI 4.1 §3.4), so both wait. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Ssend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
