/* MPI 4.1 Example 3.10: both ranks send, then receive.
 * usage: example_3_10 send|bsend COUNT   (COUNT floats; bsend attaches exactly
 * pack_size + MPI_BSEND_OVERHEAD). Prints "done" on each rank when it completes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, count = argc > 2 ? atoi(argv[2]) : 1000, bsend = argc > 1 && !strcmp(argv[1], "bsend");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    float *out = calloc((size_t)count, sizeof(float)), *in = calloc((size_t)count, sizeof(float));
    int peer = 1 - rank, size = 0;
    void *buf = NULL;
    if (bsend) {
        MPI_Pack_size(count, MPI_FLOAT, MPI_COMM_WORLD, &size);
        size += MPI_BSEND_OVERHEAD;
        buf = malloc((size_t)size);
        MPI_Buffer_attach(buf, size);
        MPI_Bsend(out, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD);
    } else {
        MPI_Send(out, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD);
    }
    MPI_Recv(in, count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (bsend) MPI_Buffer_detach(&buf, &size);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
