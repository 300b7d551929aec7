/* mbi: error buffer-modified */
/* Two persistent sends started together, three times; in the second round the program
 * writes the second one's buffer before the MPI_Waitall that completes it (MPI 4.1 §3.9:
 * a started persistent send is pending as an MPI_Isend is; §3.7.2). MPICH completes the run;
 * what rank 1 gets depends on timing. */
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
        if (rank == 0 && i == 1) y[0] = 9;
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    if (rank < 2) {
        MPI_Request_free(&reqs[0]);
        MPI_Request_free(&reqs[1]);
    }
    MPI_Finalize();
    return 0;
}
