/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Recv (2 processes)
 * A tag mismatch: rank 0's eager MPI_Send (tag 0) completes, rank 1's MPI_Recv waits for
 * tag 1 forever while rank 0 waits in MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
