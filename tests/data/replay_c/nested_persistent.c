/* Nested loops and persistent requests, for --to-yaml: an outer loop of steps, each a
 * halo swap with persistent requests started several times, and a barrier. */
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, size;
    double out[4] = {0}, in[4] = {0};
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Send_init(out, 4, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(in, 4, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, &rq[1]);
    for (int step = 0; step < 5; step++) {
        for (int k = 0; k < 3; k++) {
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        }
        for (int t = 0; t < 4; t++)
            MPI_Sendrecv(out, 1, MPI_DOUBLE, peer, t, in, 1, MPI_DOUBLE, from, t,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    MPI_Finalize();
    return 0;
}
