/* mbi: correct */
/* Two irecvs pending at once, each into its own element (MPI 4.1 §3.7.2); the twin of
 * recv_overlap_bad.c. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[2] = {0, 0}, a = 1, b = 2;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }
    if (rank == 1) {
        MPI_Irecv(&buf[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&buf[1], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
