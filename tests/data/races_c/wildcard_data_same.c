/* Rank 0 receives twice from MPI_ANY_SOURCE; ranks 1 and 2 send the same value, so the
 * order of arrival changes nothing rank 0 can see (MPI 4.1 §3.5): race-free; the twin of
 * wildcard_data_differ.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, x, got[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 2; i++)
            MPI_Recv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("first %d\n", got[0]);
    } else {
        x = 42;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
