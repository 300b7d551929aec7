/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.1 §3.10) around a ring: each process sends
 * to its right and receives from its left under one request, completed by MPI_Waitall with
 * other requests and by MPI_Wait alone; the received values are checked (not the statuses:
 * MPICH 5.0.2 gives an MPI_Isendrecv's request a status that is not its receive's).
 *   mpiexec -n 4 ./isendrecv */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[100], in[100], token = rank, extra = 0;
    for (int i = 0; i < 100; i++) out[i] = rank * 1000 + i;

    MPI_Request reqs[3];
    MPI_Status sts[3];
    MPI_Isendrecv(out, 100, MPI_INT, right, 1, in, 100, MPI_INT, left, 1, MPI_COMM_WORLD,
                  &reqs[0]);
    MPI_Irecv(&extra, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(&rank, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[2]);
    MPI_Waitall(3, reqs, sts);
    if (in[7] != left * 1000 + 7 || extra != right) errors++;

    for (int step = 0; step < 3; step++) {
        MPI_Request req;
        MPI_Isendrecv_replace(&token, 1, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (token != ((rank - 3) % size + size) % size) errors++;
    printf("rank %d: %s\n", rank, errors ? "WRONG" : "ok");
    MPI_Finalize();
    return errors != 0;
}
