/* mbi: leak leak-group */
/* A subgroup is never freed (MPI 4.1 §7.3.3: a resource leak). */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Group world, first;
    int zero = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &first);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
