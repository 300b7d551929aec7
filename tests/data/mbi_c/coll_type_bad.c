/* mbi: error collective-type */
/* The root broadcasts MPI_INT, the others receive MPI_FLOAT: the same size, different type
 * signatures (MPI 4.1 §6.1, §3.3.1). MPICH completes it. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(&x, 1, rank == 0 ? MPI_INT : MPI_FLOAT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
