/* mbi: leak leak-datatype */
/* A committed derived datatype is never freed (MPI 4.1 §5.1.9: a resource leak). */
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
    MPI_Finalize();
    return 0;
}
