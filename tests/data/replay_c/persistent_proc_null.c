/* A persistent receive from MPI_PROC_NULL (MPI 4.1 §3.10: its status has source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0); MPICH 5.0.2 reports MPI_ANY_SOURCE. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int x = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Recv_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, &st);
    MPI_Request_free(&r);
    printf("source %d\n", st.MPI_SOURCE);
    MPI_Finalize();
    return 0;
}
