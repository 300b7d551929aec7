/* mbi: correct */
/* Every rank reduces with MPI_SUM (MPI 4.1 §6.9.1). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = rank + 1;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
