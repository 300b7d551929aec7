/* MPI_Comm_spawn (MPI 4.1 §11.8.2): the processes mpiexec started spawn one child together
 * (collective over MPI_COMM_WORLD, root 0: this program again, told by MPI_Comm_get_parent);
 * rank 0 sends it a message over the intercommunicator. The child writes its own log,
 * spawn.0.1.rank.0.log (spawn 0.1: the first rooted at rank 0), beside its parents'.
 * Usage: mpiexec -n 2 ./spawn_child */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Comm parent, children;
    int rank, v = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent == MPI_COMM_NULL) {
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                       MPI_ERRCODES_IGNORE);
        if (rank == 0) MPI_Send(&v, 1, MPI_INT, 0, 1, children);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_disconnect(&children);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
        printf("child got %d\n", v);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
