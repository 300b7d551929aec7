/* MPI_Comm_spawn (MPI 4.1 §11.8.2) with messages both ways: the two processes mpiexec
 * started spawn two children of this program together (root 0 of MPI_COMM_WORLD). Each
 * parent sends its rank to the child of the same rank over the intercommunicator; the
 * children add what they got along a ring of their own MPI_COMM_WORLD (a Sendrecv) and
 * an Allreduce, then each child sends the sum back to its parent. Both sides disconnect
 * (§11.10.4). With "deadlock" as argument, each child first waits for a second message
 * its parent never sends, while the parent waits for the sum: a deadlock across the
 * intercommunicator.
 * Usage: mpiexec -n 2 ./spawn_pair [deadlock] */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Comm parent, children;
    int rank, size, v, got, sum;
    int lock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent == MPI_COMM_NULL) {
        char *args[] = {lock ? "deadlock" : NULL, NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                       MPI_ERRCODES_IGNORE);
        v = 10 + rank;
        MPI_Send(&v, 1, MPI_INT, rank, 1, children);
        MPI_Recv(&sum, 1, MPI_INT, rank, 2, children, MPI_STATUS_IGNORE);
        printf("parent %d got %d\n", rank, sum);
        MPI_Comm_disconnect(&children);
    } else {
        if (lock) MPI_Recv(&v, 1, MPI_INT, rank, 3, parent, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, rank, 1, parent, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&got, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Send(&sum, 1, MPI_INT, rank, 2, parent);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
