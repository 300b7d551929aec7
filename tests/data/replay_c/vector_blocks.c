/* The v and w collectives' blocks as a recording keeps them (MPI 4.1 §6.5 to §6.8): every
 * receiving rank's counts, displacements and datatypes, and the root's own part of a
 * scatterv and a gatherv (its own receive, or MPI_IN_PLACE).
 *
 *   vector_blocks correct   every form, blocks disjoint, the root's own block received
 *                           through a derived type of the same signature (no finding)
 *   vector_blocks overlap   a gatherv whose displacements step by 1 where each rank sends
 *                           2 ints: blocks overlap (§6.5: erroneous; MPICH completes)
 *   vector_blocks owntype   a scatterv whose root receives its own block of ints as floats
 *                           (§6.6: the signatures differ; MPICH completes)
 *
 * Run on 3 or 4 processes; each prints "rank R: ok" when its results are as expected. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8

static int check(int ok, int rank, const char *what) {
    if (!ok) printf("rank %d: wrong %s\n", rank, what);
    return ok;
}

static int correct(int rank, int size) {
    int ok = 1, counts[MAXP], displs[MAXP], send[4 * MAXP], recv[4 * MAXP];
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int k = 0; k < size; k++) { counts[k] = 2; displs[k] = 2 * (size - 1 - k); }
    for (int k = 0; k < 4 * MAXP; k++) send[k] = 100 + k;

    /* scatterv: the root (1) receives its block as one pair (same signature as 2 ints) */
    int mine[2] = {0, 0};
    if (rank == 1) MPI_Scatterv(send, counts, displs, MPI_INT, mine, 1, pair, 1, MPI_COMM_WORLD);
    else MPI_Scatterv(NULL, NULL, NULL, MPI_INT, mine, 2, MPI_INT, 1, MPI_COMM_WORLD);
    ok &= check(mine[0] == 100 + displs[rank], rank, "scatterv");

    /* scatterv with MPI_IN_PLACE at the root: its block stays where it is (§6.6) */
    if (rank == 0) MPI_Scatterv(send, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0,
                                MPI_COMM_WORLD);
    else MPI_Scatterv(NULL, NULL, NULL, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank) ok &= check(mine[0] == 100 + displs[rank], rank, "scatterv in place");

    /* gatherv: the root receives pairs; then in place at the root */
    int two[2] = {rank, rank};
    memset(recv, 0, sizeof recv);
    MPI_Gatherv(two, 2, MPI_INT, recv, (int[MAXP]){1, 1, 1, 1, 1, 1, 1, 1},
                (int[MAXP]){0, 1, 2, 3, 4, 5, 6, 7}, pair, 0, MPI_COMM_WORLD);
    if (rank == 0) ok &= check(recv[2 * (size - 1)] == size - 1, rank, "gatherv");
    if (rank == 0) {
        recv[displs[0]] = 0;
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
        ok &= check(recv[displs[1]] == 1, rank, "gatherv in place");
    } else {
        MPI_Gatherv(two, 2, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD);
    }

    /* allgatherv, in place too; alltoallv; alltoallw; their nonblocking forms */
    MPI_Allgatherv(two, 2, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    ok &= check(recv[displs[size - 1]] == size - 1, rank, "allgatherv");
    recv[displs[rank]] = rank;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Request req;
    MPI_Ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                   &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int bytes[MAXP];
    MPI_Datatype types[MAXP];
    for (int k = 0; k < size; k++) { bytes[k] = 4 * displs[k]; types[k] = MPI_INT; }
    MPI_Alltoallw(send, counts, bytes, types, recv, counts, bytes, types, MPI_COMM_WORLD);
    ok &= check(recv[displs[0]] == 100 + displs[rank], rank, "alltoallw");
    MPI_Type_free(&pair);
    return ok;
}

static int overlap(int rank, int size) {
    double mine[2] = {10.0 * rank, 10.0 * rank}, all[2 * MAXP];
    int counts[MAXP], displs[MAXP];
    for (int k = 0; k < size; k++) { counts[k] = 2; displs[k] = k; }  /* should be 2k */
    MPI_Gatherv(mine, 2, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return 1;
}

static int owntype(int rank, int size) {
    int send[2 * MAXP], counts[MAXP], displs[MAXP];
    float own[2];
    int mine[2];
    for (int k = 0; k < size; k++) { counts[k] = 2; displs[k] = 2 * k; send[2 * k] = k; }
    if (rank == 0) MPI_Scatterv(send, counts, displs, MPI_INT, own, 2, MPI_FLOAT, 0,
                                MPI_COMM_WORLD);
    else MPI_Scatterv(NULL, NULL, NULL, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD);
    return rank == 0 || mine[0] == rank;
}

int main(int argc, char **argv) {
    int rank, size, ok = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "correct";
    if (size > MAXP) MPI_Abort(MPI_COMM_WORLD, 2);
    if (!strcmp(mode, "correct")) ok = correct(rank, size);
    else if (!strcmp(mode, "overlap")) ok = overlap(rank, size);
    else if (!strcmp(mode, "owntype")) ok = owntype(rank, size);
    if (ok) printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return 0;
}
