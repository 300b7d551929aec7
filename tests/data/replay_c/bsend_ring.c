/* A ring: each rank bsends ROUNDS messages of COUNT doubles to its right neighbour, then
 * receives as many from its left (ANY_SOURCE), with a little computation between rounds.
 * usage: bsend_ring ROUNDS COUNT MESSAGES_OF_BUFFER */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n) {
    double x = 0;
    for (int i = 0; i < n; i++) x += 1.0 / (i + 1);
    return x;
}

int main(int argc, char **argv) {
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 4, count = argc > 2 ? atoi(argv[2]) : 100;
    int held = argc > 3 ? atoi(argv[3]) : rounds, pack;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Pack_size(count, MPI_DOUBLE, MPI_COMM_WORLD, &pack);
    int bytes = held * (pack + MPI_BSEND_OVERHEAD);
    void *buf = malloc((size_t)bytes);
    double *data = calloc((size_t)count, sizeof(double)), sink = 0;
    MPI_Buffer_attach(buf, bytes);
    for (int r = 0; r < rounds; r++) {
        sink += work(20000);
        MPI_Bsend(data, count, MPI_DOUBLE, (rank + 1) % size, r, MPI_COMM_WORLD);
    }
    for (int r = 0; r < rounds; r++)
        MPI_Recv(data, count, MPI_DOUBLE, MPI_ANY_SOURCE, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Buffer_detach(&buf, &bytes);
    printf("rank %d done %g\n", rank, sink > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
