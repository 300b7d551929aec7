/* mbi: correct */
/* A receive nobody sends to is cancelled, then completed by MPI_Wait (MPI 4.1 §3.8.4: a
 * cancelled request must still be completed or freed). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
