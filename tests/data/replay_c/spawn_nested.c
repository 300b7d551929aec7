/* Spawns within spawns (MPI 4.1 §11.8.2): each process mpiexec started spawns one child
 * from MPI_COMM_SELF and sends it its depth (1); that child spawns a grandchild the same way
 * (depth 2), which spawns none. Every process disconnects from its parent and children
 * (§11.10.4) and prints its depth. The grandchildren's spawns are named after their
 * parents' world: 0.1-0.1 is the first spawn rooted at rank 0 of spawn 0.1.
 * Usage: mpiexec -n 2 ./spawn_nested */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Comm parent, kids;
    int depth = 0, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) MPI_Recv(&depth, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
    if (depth < 2) {
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &kids, MPI_ERRCODES_IGNORE);
        v = depth + 1;
        MPI_Send(&v, 1, MPI_INT, 0, 0, kids);
        MPI_Comm_disconnect(&kids);
    }
    if (parent != MPI_COMM_NULL) MPI_Comm_disconnect(&parent);
    printf("depth %d\n", depth);
    MPI_Finalize();
    return 0;
}
