/* mbi: correct */
/* Two persistent sends started together, three times; the program writes the second one's
 * buffer only after the MPI_Waitall that completes it, before starting it again (MPI 4.1
 * §3.9: between a completion and the next MPI_Start the buffer is the program's). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(x, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Send_init(y, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &reqs[1]);
    } else if (rank == 1) {
        MPI_Recv_init(x, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Recv_init(y, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[1]);
    }
    for (int i = 0; i < 3 && rank < 2; i++) {
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        if (rank == 0) y[0] = 9 + i;
    }
    if (rank < 2) {
        MPI_Request_free(&reqs[0]);
        MPI_Request_free(&reqs[1]);
    }
    MPI_Finalize();
    return 0;
}
