/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Recv, rank 2 MPI_Finalize (3 processes)
 * A source mismatch: rank 0 sends to rank 1, which receives from rank 2; rank 2 sends
 * nothing. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
