/* A spawned process's buffers are judged as any process's (MPI 4.1 §11.8.2, §3.7.2): the
 * process mpiexec started spawns one child of this program; the child sends four ints to
 * its parent with MPI_Isend and, with "touch" as argument, writes the buffer before the
 * MPI_Wait that completes the send (erroneous: what the parent gets depends on timing);
 * without it, only after the wait.
 * Usage: mpiexec -n 1 ./spawn_buffer [touch] */
#include <mpi.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Comm parent, child;
    MPI_Request req;
    int x[4] = {1, 2, 3, 4};
    int touch = argc > 1 && strcmp(argv[1], "touch") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char *args[] = {touch ? "touch" : NULL, NULL};
        MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child,
                       MPI_ERRCODES_IGNORE);
        MPI_Recv(x, 4, MPI_INT, 0, 0, child, MPI_STATUS_IGNORE);
        MPI_Comm_disconnect(&child);
    } else {
        MPI_Isend(x, 4, MPI_INT, 0, 0, parent, &req);
        if (touch) x[2] = 9;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        x[3] = 0;  /* (after the wait: the program's) */
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
