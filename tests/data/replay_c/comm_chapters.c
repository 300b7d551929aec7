/* The communicator chapters of MPI 4.1 in one program, for recording and replay: a periodic
 * 2-D Cartesian grid (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift, MPI_Cart_sub) with
 * a neighbourhood all-to-all and allgather on it (§8.6), a distributed graph (a ring) with
 * MPI_Ineighbor_allgather, a group of the even ranks made into a communicator
 * (MPI_Comm_create_group), MPI_Comm_split_type, and an intercommunicator between the lower
 * and upper halves of the ranks (MPI_Intercomm_create) with a send across it, a barrier and
 * an allreduce over it, then merged (MPI_Intercomm_merge). Each rank prints "rank R: ..."
 * lines with what it received. usage: comm_chapters (any number of ranks >= 2) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int world, size, dims[2] = {0, 0}, periods[2] = {1, 1}, remain[2] = {0, 1};
    MPI_Comm grid, row, ring, evens, node, half, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    int left, right, down, up, send[4], recv[4] = {-1, -1, -1, -1}, gathered[4];
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    MPI_Cart_shift(grid, 0, 1, &down, &up);
    for (int k = 0; k < 4; k++) send[k] = 10 * world + k;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, grid);
    MPI_Neighbor_allgather(&world, 1, MPI_INT, gathered, 1, MPI_INT, grid);
    printf("rank %d: grid %dx%d shifts %d %d %d %d alltoall %d %d %d %d allgather %d %d %d %d\n",
           world, dims[0], dims[1], down, up, left, right, recv[0], recv[1], recv[2], recv[3],
           gathered[0], gathered[1], gathered[2], gathered[3]);
    int rowsum = 0;
    MPI_Cart_sub(grid, remain, &row);
    MPI_Allreduce(&world, &rowsum, 1, MPI_INT, MPI_SUM, row);
    int src = (world + size - 1) % size, dst = (world + 1) % size, from = -1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    MPI_Request req;
    MPI_Ineighbor_allgather(&world, 1, MPI_INT, &from, 1, MPI_INT, ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Group all, even;
    int ranks[64], n = 0;
    for (int r = 0; r < size && n < 64; r += 2) ranks[n++] = r;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    MPI_Group_incl(all, n, ranks, &even);
    int evensize = 0;
    if (world % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, even, 7, &evens);
        MPI_Comm_size(evens, &evensize);
        MPI_Comm_free(&evens);
    }
    int nodesize = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nodesize);
    int low = world < size / 2, sum = 0, got = -1;
    MPI_Comm_split(MPI_COMM_WORLD, low, world, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 5, &inter);
    int remote = 0, me = 0;
    MPI_Comm_remote_size(inter, &remote);
    MPI_Comm_rank(inter, &me);
    if (low && me < remote) MPI_Send(&world, 1, MPI_INT, me, 3, inter);
    if (!low && me < remote) MPI_Recv(&got, 1, MPI_INT, me, 3, inter, MPI_STATUS_IGNORE);
    MPI_Barrier(inter);
    MPI_Allreduce(&world, &sum, 1, MPI_INT, MPI_SUM, inter);
    int mrank = -1;
    MPI_Intercomm_merge(inter, !low, &merged);
    MPI_Comm_rank(merged, &mrank);
    printf("rank %d: row sum %d ring from %d evens %d node %d inter got %d sum %d merged %d\n",
           world, rowsum, from, evensize, nodesize, got, sum, mrank);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&node);
    MPI_Group_free(&even);
    MPI_Group_free(&all);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
