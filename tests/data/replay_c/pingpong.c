/* Ping-pong of N messages of BYTES bytes between ranks 0 and 1; prints the time per round
 * trip. On one process: N calls of MPI_Iprobe (a call that costs the library little), the
 * time per call. Used to measure the recorder's overhead: run it with and without
 * mpisim record.  usage: pingpong N BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, n = argc > 1 ? atoi(argv[1]) : 100000, bytes = argc > 2 ? atoi(argv[2]) : 8;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size, flag;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size == 1) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) MPI_Iprobe(0, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        printf("iprobe: %.3f us per call (%d calls)\n", 1e6 * (MPI_Wtime() - t0) / n, n);
        MPI_Finalize();
        return 0;
    }
    char *buf = calloc((size_t)bytes + 1, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t;
    if (rank == 0) printf("round trip: %.3f us (%d round trips of %d B)\n", 1e6 * t / n, n, bytes);
    MPI_Finalize();
    return 0;
}
