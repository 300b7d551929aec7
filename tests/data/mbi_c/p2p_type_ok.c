/* mbi: correct */
/* A send of 4 MPI_INT received as 4 MPI_INT (MPI 4.1 §3.3.1). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[4] = {1, 2, 3, 4};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
