/* mbi: leak leak-comm */
/* A duplicated communicator is never freed (MPI 4.1 §7.4.3: a resource leak). */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Finalize();
    return 0;
}
