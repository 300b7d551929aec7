/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Wait (2 processes)
 * A tag mismatch: rank 0's eager MPI_Send (tag 0) completes, rank 1's MPI_Irecv waits for
 * tag 1, so rank 0 waits in MPI_Finalize (collective, MPI 4.1 §11.2.2) and rank 1 in
 * MPI_Wait, each for the other. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Irecv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
