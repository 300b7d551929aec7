/* Mismatched collective calls (MPI 4.1 §6.1: every process of a communicator must make the
 * same collective calls in the same order, with the same root, op and matching type
 * signatures). What a real library does with each kind, for docs/guide/facts-collectives.md.
 * mpicc -o mismatch mismatch.c && mpiexec -n 3 ./mismatch MODE [N] [ROOTS]
 * (bcast-roots takes each rank's root as a digit of ROOTS: mpiexec -n 4 ./mismatch bcast-roots 4 0011)
 * Each rank prints "rank R: done <value>" or "rank R: error <class>"; a hang is a hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(int me, int rc, const char *what, double value) {
    if (rc == MPI_SUCCESS) {
        printf("rank %d: done %s %g\n", me, what, value);
    } else {
        int cls = 0, len = 0;
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_class(rc, &cls);
        MPI_Error_string(cls, text, &len);
        printf("rank %d: error %s (%s)\n", me, text, what);
    }
    fflush(stdout);
}

int main(int argc, char **argv) {
    int me, p, rc = MPI_SUCCESS;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mode = argc > 1 ? argv[1] : "none";
    int n = argc > 2 ? atoi(argv[2]) : 4;
    double *buf = calloc((size_t)(2 * n * p + 8), sizeof(double));
    double *out = calloc((size_t)(2 * n * p + 8), sizeof(double));
    for (int i = 0; i < 2 * n; i++) buf[i] = me + 1;
    double value = 0;

    if (!strcmp(mode, "bcast-roots") && argc > 3) {  /* each rank's root from ROOTS */
        int root = argv[3][me] - '0';
        if (me == root) buf[0] = 100 + me;
        rc = MPI_Bcast(buf, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "bcast-root")) {   /* the last rank names another root */
        int root = me == p - 1 ? 1 : 0;
        if (me == root) buf[0] = 100 + me;
        rc = MPI_Bcast(buf, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "bcast-count-root-more")) {  /* root sends 2n, others take n */
        rc = MPI_Bcast(buf, me == 0 ? 2 * n : n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "bcast-count-root-less")) {  /* root sends n, others take 2n */
        rc = MPI_Bcast(buf, me == 0 ? n : 2 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "bcast-type-same-bytes")) {  /* n doubles vs 2n floats */
        rc = me == 0 ? MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                     : MPI_Bcast(buf, 2 * n, MPI_FLOAT, 0, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "allreduce-op")) {  /* rank 0 sums, the others take the max */
        rc = MPI_Allreduce(buf, out, n, MPI_DOUBLE, me == 0 ? MPI_SUM : MPI_MAX,
                           MPI_COMM_WORLD);
        value = out[0];
    } else if (!strcmp(mode, "allreduce-count")) {  /* rank 0 reduces 2n, the others n */
        rc = MPI_Allreduce(buf, out, me == 0 ? 2 * n : n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        value = out[0];
    } else if (!strcmp(mode, "reduce-root")) {  /* the last rank names another root */
        rc = MPI_Reduce(buf, out, n, MPI_DOUBLE, MPI_SUM, me == p - 1 ? 1 : 0, MPI_COMM_WORLD);
        value = out[0];
    } else if (!strcmp(mode, "gather-count")) {  /* rank 1 sends 2n where the root takes n */
        rc = MPI_Gather(buf, me == 1 ? 2 * n : n, MPI_DOUBLE, out, n, MPI_DOUBLE, 0,
                        MPI_COMM_WORLD);
        value = out[n];
    } else if (!strcmp(mode, "bcast-vs-barrier")) {  /* a different collective on rank 0 */
        rc = me == 0 ? MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                     : MPI_Barrier(MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "bcast-vs-reduce")) {  /* rank 0 broadcasts, the others reduce */
        rc = me == 0 ? MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                     : MPI_Reduce(buf, out, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        value = buf[0];
    } else if (!strcmp(mode, "allreduce-vs-bcast")) {  /* the last rank broadcasts */
        rc = me == p - 1 ? MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD)
                         : MPI_Allreduce(buf, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        value = me == p - 1 ? buf[0] : out[0];
    } else if (!strcmp(mode, "missing")) {  /* the last rank never calls the collective */
        if (me != p - 1) rc = MPI_Allreduce(buf, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        value = out[0];
    }
    report(me, rc, mode, value);
    MPI_Barrier(MPI_COMM_WORLD);  /* a hang here: an earlier mismatch left messages behind */
    if (me == 0) printf("all: finalized\n");
    MPI_Finalize();
    return 0;
}
