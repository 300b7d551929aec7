/* A halo exchange on a periodic 2-D process grid, over communicators made by topology and
 * group calls: MPI_Cart_create (reorder allowed), MPI_Cart_shift, MPI_Bsend to the four
 * neighbours into a buffer of exactly four entries, MPI_Cart_sub for the rows with an
 * MPI_Allreduce on each, MPI_Comm_create of the even ranks with an MPI_Barrier, and
 * MPI_Comm_split_type (shared memory) with an MPI_Barrier. With "ssend" each rank first
 * MPI_Ssends to its right neighbour before receiving anything: a cycle that deadlocks.
 * Each rank prints "rank R: ..." lines. usage: cart_halo [bsend|ssend] [COUNT] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int world, size, rank, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    int count = argc > 2 ? atoi(argv[2]) : 1000, deadlock = argc > 1 && !strcmp(argv[1], "ssend");
    MPI_Comm grid, row, evens, node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    int nb[4];  /* left, right, down, up */
    MPI_Cart_shift(grid, 1, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 0, 1, &nb[2], &nb[3]);
    double *halo = calloc((size_t)count * 5, sizeof(double));
    if (deadlock)
        MPI_Ssend(halo, count, MPI_DOUBLE, nb[1], 9, grid);
    int pack;
    MPI_Pack_size(count, MPI_DOUBLE, grid, &pack);
    int bytes = 4 * (pack + MPI_BSEND_OVERHEAD);
    void *buf = malloc((size_t)bytes);
    MPI_Buffer_attach(buf, bytes);
    for (int d = 0; d < 4; d++)
        MPI_Bsend(halo, count, MPI_DOUBLE, nb[d], d, grid);
    for (int d = 0; d < 4; d++)  /* what my neighbour d sent in direction d ^ 1 */
        MPI_Recv(halo + (size_t)(d + 1) * count, count, MPI_DOUBLE, nb[d], d ^ 1, grid,
                 MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&buf, &bytes);
    int remain[2] = {0, 1}, sum = 0;
    MPI_Cart_sub(grid, remain, &row);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    MPI_Group all, even;
    MPI_Comm_group(grid, &all);
    int ranks[64], n = 0;
    for (int r = 0; r < size && n < 64; r += 2) ranks[n++] = r;
    MPI_Group_incl(all, n, ranks, &even);
    MPI_Comm_create(grid, even, &evens);
    if (evens != MPI_COMM_NULL) {
        MPI_Barrier(evens);
        MPI_Comm_free(&evens);
    }
    MPI_Comm_split_type(grid, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Barrier(node);
    printf("rank %d: grid %d at (%d,%d), row sum %d, neighbours %d %d %d %d\n", world, rank,
           coords[0], coords[1], sum, nb[0], nb[1], nb[2], nb[3]);
    MPI_Comm_free(&node);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Group_free(&even);
    MPI_Group_free(&all);
    free(buf);
    free(halo);
    MPI_Finalize();
    return 0;
}
