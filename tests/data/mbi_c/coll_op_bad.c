/* mbi: error collective-op */
/* Rank 0 reduces with MPI_MAX, the others with MPI_SUM (MPI 4.1 §6.9.1: every rank gives
 * the same op). MPICH completes it, each rank with its own wrong result. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank + 1;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, rank == 0 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
