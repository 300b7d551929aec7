/* deadlock: rank 0 MPI_Finalize, rank 1 MPI_Recv (2 processes)
 * A communicator mismatch: rank 0 sends on a duplicate of MPI_COMM_WORLD, rank 1 receives
 * on MPI_COMM_WORLD itself (another context: the message never matches, MPI 4.1 §3.5). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 1;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, dup);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
