/* mbi: error type-mismatch */
/* A vector of 2 blocks of 2 MPI_INT sent, received as 4 MPI_FLOAT: the signatures differ
 * (MPI 4.1 §3.3.1). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[8] = {0};
    float got[4];
    MPI_Datatype vec;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(2, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (rank == 0) MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(got, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
