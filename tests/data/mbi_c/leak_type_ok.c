/* mbi: correct */
/* A committed derived datatype is used and freed (MPI 4.1 §5.1.9). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[4] = {0};
    MPI_Datatype four;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    if (rank == 0) MPI_Send(buf, 1, four, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(buf, 1, four, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&four);
    MPI_Finalize();
    return 0;
}
