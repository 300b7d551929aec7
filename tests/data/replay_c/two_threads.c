/* Two pthreads per process under MPI_THREAD_MULTIPLE (MPI 4.1 §11.6), each exchanging
 * messages with the same thread of the other rank on a tag of its own: thread 1 sends then
 * receives on tag 1, thread 2 receives then sends on tag 2 (rank 0) or the reverse (rank 1),
 * ROUNDS times. Every message is matched on its tag, whatever the threads' interleaving.
 * Usage: mpiexec -n 2 ./two_threads [ROUNDS] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, rounds = 3;

static void *exchange(void *arg) {
    int tag = (int)(long)arg, peer = 1 - rank, out = rank * 100 + tag, in = -1;
    for (int i = 0; i < rounds; i++) {
        if ((rank == 0) == (tag == 1)) {
            MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
        }
    }
    return (void *)(long)in;
}

int main(int argc, char **argv) {
    int provided;
    pthread_t t[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1) rounds = atoi(argv[1]);
    for (long tag = 1; tag <= 2; tag++) pthread_create(&t[tag - 1], NULL, exchange, (void *)tag);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
