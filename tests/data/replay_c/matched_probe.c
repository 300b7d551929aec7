/* Matched probes (MPI 4.1 §3.8.2): rank 0 takes each message with MPI_Mprobe or
 * MPI_Improbe from any source and receives exactly that one with MPI_Mrecv or MPI_Imrecv,
 * sized by the probe's status; the others send it messages of different sizes.
 * mpicc -o matched_probe matched_probe.c && mpiexec -n 3 ./matched_probe */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, flag = 0, count, got = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 0; k < 2 * (size - 1); k++) {
            MPI_Message msg;
            MPI_Status st;
            MPI_Request req;
            if (k % 2 == 0) {
                MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
            } else {
                do MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
                while (!flag);
            }
            MPI_Get_count(&st, MPI_INT, &count);
            int *buf = malloc(sizeof(int) * (size_t)count);
            if (k % 2 == 0) {
                MPI_Mrecv(buf, count, MPI_INT, &msg, MPI_STATUS_IGNORE);
            } else {
                MPI_Imrecv(buf, count, MPI_INT, &msg, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            got += count;
            free(buf);
        }
        MPI_Message none;
        MPI_Status st;
        MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &none, &st);
        MPI_Mrecv(NULL, 0, MPI_INT, &none, MPI_STATUS_IGNORE);
        printf("rank 0 received %d ints\n", got);
    } else {
        int data[64] = {0};
        MPI_Send(data, 10 * rank, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(data, 10 * rank + 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
