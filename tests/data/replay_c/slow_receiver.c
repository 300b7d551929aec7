#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank; double x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 100; i++) MPI_Send(&x, 1, MPI_DOUBLE, 1, i, MPI_COMM_WORLD);
    } else {
        usleep(300000);
        for (int i = 0; i < 100; i++) {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            usleep(20000);
        }
    }
    MPI_Finalize();
    return 0;
}
