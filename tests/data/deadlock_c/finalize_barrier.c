/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Barrier (2 processes)
 * Rank 0 skips the barrier rank 1 enters: rank 0 waits in MPI_Finalize, rank 1 in
 * MPI_Barrier (MPI 4.1 §6.1: every member must call a collective). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
