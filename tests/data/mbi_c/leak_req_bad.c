/* mbi: leak leak-request */
/* Persistent requests are never freed (MPI 4.1 §3.9: MPI_Request_free; a resource leak). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x = 7;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send_init(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    else MPI_Recv_init(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 2; i++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
