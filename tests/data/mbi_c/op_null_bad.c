/* mbi: error invalid-argument */
/* A reduction with MPI_OP_NULL: MPI_ERR_OP (MPI 4.1 §9.4). The program returns errors
 * (MPI_ERRORS_RETURN) and goes on; the error is still the program's. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 2, out = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&x, &out, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
