/* MPI_Comm_spawn_multiple (MPI 4.1 §11.8.3): the two processes mpiexec started spawn two
 * commands together (this program twice, 1 and 2 processes: one MPI_COMM_WORLD of 3, the
 * second command's after the first's). Each child adds its MPI_APPNUM over its world
 * (0 + 1 + 1) and sends the sum to the parent of the same rank when there is one (ranks 0
 * and 1); the parents print what they got. Both sides disconnect (§11.10.4).
 * Usage: mpiexec -n 2 ./spawn_multiple */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Comm parent, children;
    int rank, sum, *appnum, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent == MPI_COMM_NULL) {
        char *commands[] = {argv[0], argv[0]};
        int counts[] = {1, 2}, errs[3];
        MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
        MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, counts, infos, 0, MPI_COMM_WORLD,
                                &children, errs);
        MPI_Recv(&sum, 1, MPI_INT, rank, 5, children, MPI_STATUS_IGNORE);
        printf("parent %d got %d\n", rank, sum);
        MPI_Comm_disconnect(&children);
    } else {
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        MPI_Allreduce(appnum, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank < 2) MPI_Send(&sum, 1, MPI_INT, rank, 5, parent);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
