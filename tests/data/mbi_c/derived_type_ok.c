/* mbi: correct */
/* A vector of 2 blocks of 2 MPI_INT sent, received as 4 MPI_INT: the same type signature
 * (MPI 4.1 §3.3.1, §5.1.11); the type is freed. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[8] = {0}, got[4];
    MPI_Datatype vec;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(2, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (rank == 0) MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(got, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
