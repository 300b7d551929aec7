/* An overflowing burst: rank 0 bsends MESSAGES messages of COUNT bytes to rank 1 into a
 * buffer that holds HELD of them, with MPI_ERRORS_RETURN, and counts the bsends that
 * succeed before the first MPI_ERR_BUFFER (then stops sending). Rank 1 receives what was
 * sent, after a barrier. usage: bsend_burst MESSAGES COUNT HELD */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, messages = argc > 1 ? atoi(argv[1]) : 10, count = argc > 2 ? atoi(argv[2]) : 20000;
    int held = argc > 3 ? atoi(argv[3]) : 3, pack, sent = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *data = calloc((size_t)count, 1);
    if (rank == 0) {
        MPI_Pack_size(count, MPI_BYTE, MPI_COMM_WORLD, &pack);
        int bytes = held * (pack + MPI_BSEND_OVERHEAD);
        void *buf = malloc((size_t)bytes);
        MPI_Buffer_attach(buf, bytes);
        for (int i = 0; i < messages; i++) {
            int rc = MPI_Bsend(data, count, MPI_BYTE, 1, i, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) {
                int cls;
                MPI_Error_class(rc, &cls);
                printf("bsend %d failed: %s\n", i, cls == MPI_ERR_BUFFER ? "MPI_ERR_BUFFER" : "other");
                break;
            }
            sent++;
        }
        printf("successful bsends: %d\n", sent);
    }
    MPI_Bcast(&sent, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < sent; i++)
            MPI_Recv(data, count, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) {
        void *b; int s;
        MPI_Buffer_detach(&b, &s);
    }
    MPI_Finalize();
    return 0;
}
