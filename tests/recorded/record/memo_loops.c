/* The calls a loop makes, each many times from the same call site, for the recorder's memo
 * (its keys made once, then looked up by their binary arguments): blocking, nonblocking and
 * buffered sends, waits and tests, Sendrecv, MPI_PROC_NULL, the counted collectives (with
 * MPI_IN_PLACE and a moving root), a datatype and a communicator made and freed every round
 * (their handles come back as other objects), errors returned, and with "all" the calls
 * whose order or count depends on timing (wildcard receives, a test polled until done);
 * with "stall" the last round's MPI_Ssend is left out: every process waits for ever in the
 * MPI_Wait its loop made every round (a run to stop).
 * usage: mpiexec -n 2..8 memo_loops ROUNDS [exact|all|stall] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANY 16

int main(int argc, char **argv) {
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 20;
    int timing = argc > 2 && strcmp(argv[2], "all") == 0;
    int stall = argc > 2 && strcmp(argv[2], "stall") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[64], in[64], all[8 * 64], *many_in = malloc(sizeof(int) * MANY * size);
    int pack = 0;
    MPI_Pack_size(64, MPI_INT, MPI_COMM_WORLD, &pack);
    int bsize = 4 * (pack + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int i = 0; i < rounds; i++) {
        MPI_Request rq[2 * MANY];
        MPI_Status st;
        for (int k = 0; k < 64; k++) out[k] = rank * 1000 + i * 7 + k;
        /* blocking, in every mode; the tag and count change with the round */
        int tag = i % 3, n = 8 + 8 * (i % 2);
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_INT, right, tag, MPI_COMM_WORLD);
            MPI_Recv(in, 64, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(in, 64, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
            MPI_Send(out, n, MPI_INT, right, tag, MPI_COMM_WORLD);
        }
        MPI_Irecv(in, 64, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]);
        if (!stall || i < rounds - 1) MPI_Ssend(out, 16, MPI_INT, right, 5, MPI_COMM_WORLD);
        MPI_Wait(&rq[0], &st);
        MPI_Irecv(in, 64, MPI_INT, left, 6, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Rsend(out, 4, MPI_INT, right, 6, MPI_COMM_WORLD);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Bsend(out, 64, MPI_INT, right, 7, MPI_COMM_WORLD);
        MPI_Recv(in, 64, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* nonblocking: a pair, then many at once (more than the memo keeps) */
        MPI_Irecv(in, 64, MPI_INT, left, 8, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, 32, MPI_INT, right, 8, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        for (int k = 0; k < MANY; k++) {
            MPI_Irecv(many_in + k * size, 1, MPI_INT, left, 100 + k, MPI_COMM_WORLD, &rq[2 * k]);
            MPI_Isend(out + k, 1, MPI_INT, right, 100 + k, MPI_COMM_WORLD, &rq[2 * k + 1]);
        }
        MPI_Waitall(2 * MANY, rq, MPI_STATUSES_IGNORE);
        MPI_Irecv(in, 64, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, 2, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        if (timing) {
            int done = 0;
            while (!done) MPI_Test(&rq[0], &done, &st);
        } else {
            MPI_Wait(&rq[0], &st);
        }
        MPI_Sendrecv(out, 3, MPI_INT, right, 10, in, 64, MPI_INT, left, 10, MPI_COMM_WORLD, &st);
        MPI_Send(out, 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD);
        MPI_Recv(in, 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD, &st);
        /* errors returned (MPI_ERRORS_RETURN): a rank that is not in the communicator */
        MPI_Send(out, 1, MPI_INT, size, 12, MPI_COMM_WORLD);
        /* wildcard receives: their sources arrive in any order */
        if (timing && rank == 0) {
            for (int k = 1; k < size; k++)
                MPI_Recv(in, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        } else if (timing) {
            MPI_Send(out, rank, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD);
        }
        /* collectives; the root moves, MPI_IN_PLACE every other round */
        int root = i % size;
        MPI_Bcast(out, 16, MPI_INT, root, MPI_COMM_WORLD);
        MPI_Reduce(out, in, 16, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (i % 2) MPI_Allreduce(MPI_IN_PLACE, out, 16, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        else MPI_Allreduce(out, in, 16, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Alltoall(all, 8, MPI_INT, all + 4 * 64, 8, MPI_INT, MPI_COMM_WORLD);
        if (rank == root) MPI_Gather(MPI_IN_PLACE, 4, MPI_INT, all, 4, MPI_INT, root, MPI_COMM_WORLD);
        else MPI_Gather(out, 4, MPI_INT, all, 4, MPI_INT, root, MPI_COMM_WORLD);
        MPI_Allgather(out, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
        MPI_Scatter(all, 3, MPI_INT, in, 3, MPI_INT, root, MPI_COMM_WORLD);
        MPI_Request c;
        MPI_Iallreduce(out, in, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &c);
        MPI_Wait(&c, MPI_STATUS_IGNORE);
        /* a datatype and a communicator made and freed: their handles come back */
        MPI_Datatype pair;
        MPI_Type_contiguous(2 + i % 2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Sendrecv(out, 2, pair, right, 13, in, 2, pair, left, 13, MPI_COMM_WORLD, &st);
        MPI_Type_free(&pair);
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Allreduce(out, in, 2, MPI_INT, MPI_SUM, dup);
        MPI_Comm_free(&dup);
    }
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    free(many_in);
    if (rank == 0) printf("memo_loops: %d rounds\n", rounds);
    MPI_Finalize();
    return 0;
}
