/* mbi: leak leak-window */
/* A window is never freed (MPI 4.1 §12.2.5: a resource leak). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, buf[2] = {0}, x = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Finalize();
    return 0;
}
