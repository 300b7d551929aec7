/* mbi: correct */
/* A send on the communicator MPI_Comm_split gave every rank (MPI 4.1 §7.4.2). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &half);
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, half);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, half, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
