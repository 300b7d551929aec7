/* Every collective of MPI 4.1 §6, blocking and nonblocking, plain, v and w forms, with
 * MPI_IN_PLACE where it is allowed: recorded by mpisim record and replayed.
 * Each result is checked against its definition; the program prints "rank R: N ok" or the
 * first wrong one. mpicc -o collectives collectives.c && mpiexec -n 4 ./collectives */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int me, p, bad;
static const char *first_bad;

static void check(const char *what, int ok) {
    if (!ok && !bad++) first_bad = what;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
    int *ones = malloc(sizeof(int) * p), *steps = malloc(sizeof(int) * p);
    int *bytes = malloc(sizeof(int) * p);
    MPI_Datatype *ints = malloc(sizeof(MPI_Datatype) * p);
    int total = 0;
    for (int k = 0; k < p; k++) {
        counts[k] = k + 1;
        displs[k] = total;
        total += k + 1;
        ones[k] = 1;
        steps[k] = k;
        bytes[k] = (int)sizeof(int) * k;
        ints[k] = MPI_INT;
    }
    int *all = calloc((size_t)(total + 4 * p), sizeof(int));
    int *mine = calloc((size_t)(total + 4 * p), sizeof(int));
    MPI_Request req[4];
    int x = me + 1, y = 0, sum = p * (p + 1) / 2;

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    y = me == 0 ? 42 : 0;
    MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    check("Bcast", y == 42);
    MPI_Ibcast(&y, 1, MPI_INT, p - 1, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    y = 0;
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    check("Reduce", me != 0 || y == sum);
    y = x;
    if (me == 0) MPI_Reduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    else MPI_Reduce(&y, NULL, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    check("Reduce IN_PLACE", me != 0 || y == p);
    MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Allreduce", y == sum);
    y = x;
    MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Allreduce IN_PLACE", y == sum);
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Scan", y == (me + 1) * (me + 2) / 2);
    MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    y = -1;
    MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Exscan", me == 0 || y == me * (me + 1) / 2);
    MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    for (int k = 0; k < p; k++) mine[k] = k + me;
    MPI_Reduce_scatter_block(mine, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Reduce_scatter_block", y == p * me + p * (p - 1) / 2);
    MPI_Ireduce_scatter_block(mine, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    for (int k = 0; k < total; k++) mine[k] = 1;
    MPI_Reduce_scatter(mine, all, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("Reduce_scatter", all[0] == p && all[me] == p);
    MPI_Ireduce_scatter(MPI_IN_PLACE, mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    check("Ireduce_scatter IN_PLACE", mine[0] == p);

    MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    check("Gather", me != 0 || all[p - 1] == p);
    all[0] = 1;
    if (me == 0) MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Gather(&x, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Igather(&x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    for (int k = 0; k <= me; k++) mine[k] = me;
    MPI_Gatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    check("Gatherv", me != 0 || all[total - 1] == p - 1);
    MPI_Igatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD,
                 &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    check("Allgather", all[p - 1] == p);
    all[me] = x;
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD,
                   &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    check("Iallgather IN_PLACE", all[0] == 1 && all[p - 1] == p);
    MPI_Allgatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    check("Allgatherv", all[total - 1] == p - 1);
    MPI_Iallgatherv(mine, me + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD,
                    &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    for (int k = 0; k < total; k++) all[k] = k;
    MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    check("Scatter", y == me);
    MPI_Iscatter(all, 1, MPI_INT, me == 0 ? MPI_IN_PLACE : &y, 1, MPI_INT, 0, MPI_COMM_WORLD,
                 &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Scatterv(all, counts, displs, MPI_INT, mine, me + 1, MPI_INT, 0, MPI_COMM_WORLD);
    check("Scatterv", mine[me] == displs[me] + me);
    MPI_Iscatterv(all, counts, displs, MPI_INT, mine, me + 1, MPI_INT, 0, MPI_COMM_WORLD,
                  &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    for (int k = 0; k < p; k++) mine[k] = 10 * me + k;
    MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    check("Alltoall", all[p - 1] == 10 * (p - 1) + me);
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, 1, MPI_INT, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    check("Ialltoall IN_PLACE", mine[p - 1] == 10 * (p - 1) + me);
    MPI_Alltoallv(mine, ones, steps, MPI_INT, all, ones, steps, MPI_INT, MPI_COMM_WORLD);
    MPI_Ialltoallv(mine, ones, steps, MPI_INT, all, ones, steps, MPI_INT, MPI_COMM_WORLD,
                   &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    for (int k = 0; k < p; k++) mine[k] = 10 * me + k;
    MPI_Alltoallw(mine, ones, bytes, ints, all, ones, bytes, ints, MPI_COMM_WORLD);
    check("Alltoallw", all[p - 1] == 10 * (p - 1) + me);
    MPI_Ialltoallw(mine, ones, bytes, ints, all, ones, bytes, ints, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    if (bad) printf("rank %d: BAD %s\n", me, first_bad);
    else printf("rank %d: ok\n", me);
    MPI_Finalize();
    return bad != 0;
}
