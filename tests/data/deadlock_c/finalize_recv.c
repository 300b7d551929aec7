/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Recv (2 processes)
 * Rank 1 waits for a message rank 0 never sends; rank 0 stays in MPI_Finalize (MPICH 5.0.2
 * and Open MPI 5.0.11 both wait there: MPI 4.1 §11.2.2 makes it collective). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
