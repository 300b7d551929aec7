/* mbi: error request-not-completed */
/* A receive is cancelled but never completed nor freed (MPI 4.1 §3.8.4: MPI_Cancel marks it
 * for cancellation; a wait, a test or MPI_Request_free must still follow). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Finalize();
    return 0;
}
