/* A deadlock between threads (MPI 4.1 §11.6: a blocking call blocks only its thread): under
 * MPI_THREAD_MULTIPLE each process runs two pthreads; thread 1 receives on tag 1 then
 * sends on tag 2, thread 2 receives on tag 2 then sends on tag 1. Every thread of both ranks
 * waits in MPI_Recv for a message that the other rank's other thread sends only after its
 * own receive: nobody sends. Usage: mpiexec -n 2 ./two_threads_deadlock */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int rank;

static void *wait_then_send(void *arg) {
    int tag = (int)(long)arg, peer = 1 - rank, v = rank;
    MPI_Recv(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, peer, 3 - tag, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    pthread_t t[2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long tag = 1; tag <= 2; tag++)
        pthread_create(&t[tag - 1], NULL, wait_then_send, (void *)tag);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
