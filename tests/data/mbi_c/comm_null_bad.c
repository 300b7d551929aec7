/* mbi: error invalid-argument */
/* MPI_Comm_split with MPI_UNDEFINED gives MPI_COMM_NULL, on which rank 0 then sends:
 * MPI_ERR_COMM (MPI 4.1 §9.4). MPICH aborts the run there. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &half);
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, half);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
