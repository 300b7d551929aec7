/* mbi: error collective-root */
/* Each rank names itself as the root (MPI 4.1 §6.1: the root must be the same). MPICH
 * completes it: each root sends, nobody receives. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(&x, 1, MPI_INT, rank, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
