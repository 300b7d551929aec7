/* mbi: error invalid-argument */
/* A send of MPI_DATATYPE_NULL: MPI_ERR_TYPE (MPI 4.1 §9.4). MPICH aborts the run there. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(&x, 1, t, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
