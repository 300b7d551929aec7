/* A spawn that fails (MPI 4.1 §11.8.2): maxprocs is negative (MPICH 5.0.2: "Invalid value
 * for maxprocs, must be non-negative", MPI_ERR_ARG; a command that does not exist makes
 * it hang, not fail). Under MPI_ERRORS_RETURN the two processes mpiexec started get the
 * error class back from MPI_Comm_spawn, say so and go on to a barrier.
 * Usage: mpiexec -n 2 ./spawn_fail */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Comm children = MPI_COMM_NULL;
    int rank, rc, cls = 0, errs[2] = {0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, -1, MPI_INFO_NULL, 0,
                        MPI_COMM_WORLD, &children, errs);
    MPI_Error_class(rc, &cls);
    if (rank == 0) printf("spawn: %s\n", cls == MPI_ERR_ARG ? "MPI_ERR_ARG" : rc ? "another error" : "started");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
