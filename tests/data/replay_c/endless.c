/* A run stopped mid-work: each rank computes, then swaps a value with its ring neighbours
 * (MPI_Sendrecv), round after round. `mpisim record --timeout T` stops it while most ranks
 * are computing outside MPI.
 * usage: endless ROUNDS WORK [SLOW_RANK]
 *   ROUNDS 0 runs for ever (endless); WORK is the computation per round (loop iterations);
 *   SLOW_RANK, if given, computes for ever at round 3 while the others wait for it (slow). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(long n) {
    double x = 0;
    for (long i = 0; i < n; i++) x += 1.0 / (double)(i + 1);
    sink += x;
}

int main(int argc, char **argv) {
    int rank, size;
    long rounds = argc > 1 ? atol(argv[1]) : 0, n = argc > 2 ? atol(argv[2]) : 100000;
    int slow = argc > 3 ? atoi(argv[3]) : -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double mine = rank, theirs = 0;
    for (long r = 0; rounds == 0 || r < rounds; r++) {
        work(rank == slow && r == 3 ? 1L << 62 : n);
        MPI_Sendrecv(&mine, 1, MPI_DOUBLE, right, 0, &theirs, 1, MPI_DOUBLE, left, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mine = theirs;
    }
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
