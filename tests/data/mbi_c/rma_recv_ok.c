/* mbi: correct */
/* Rank 0 puts into rank 1's window while rank 1 receives into other bytes of it, in one
 * fence epoch (MPI 4.1 §12.7); the twin of rma_recv_bad.c. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, mem[4] = {0, 0, 0, 0}, v = 5, w = 7;
    MPI_Win win;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Send(&w, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    if (rank == 1) {
        MPI_Irecv(&mem[2], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
