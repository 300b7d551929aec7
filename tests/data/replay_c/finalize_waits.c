/* Rank 1 waits for a message rank 0 never sends; rank 0 goes on to MPI_Finalize, which is
 * collective (MPI 4.1 §11.2.2) and waits there for rank 1: a deadlock with one process in
 * MPI_Finalize, for mpisim record's stall watch.  usage: finalize_waits */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
