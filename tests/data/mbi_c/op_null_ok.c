/* mbi: correct */
/* A reduction with MPI_PROD, errors returned (MPI 4.1 §6.9.2, §9.3). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 2, out = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&x, &out, 1, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
