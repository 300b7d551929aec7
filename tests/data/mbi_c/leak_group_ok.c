/* mbi: correct */
/* The group of MPI_COMM_WORLD and a subgroup are freed (MPI 4.1 §7.3.3). */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Group world, first;
    int zero = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &first);
    MPI_Group_free(&first);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
