/* MPI-IO (MPI 4.1 §14) for mpisim record and replay: each process's ints interleaved in one
 * file through a strided view (one int every `size`, from the process's own displacement),
 * written collectively, made durable (§14.6.1: sync, barrier, sync), then read back in every
 * way: the individual pointer after a seek, an explicit offset collectively, a nonblocking
 * read that reaches the end of the view's data, the whole file through a plain view with a
 * split collective, the shared pointer in rank order; a write past the end cut off again by
 * MPI_File_set_size; the file opened again read-only and read with the shared pointer, then
 * deleted. Rank 0 first deletes a file that is not there (MPI_ERR_NO_SUCH_FILE, returned:
 * a file's default error handler is MPI_ERRORS_RETURN). Any number of processes. */
#include <mpi.h>

#define N 8

int main(int argc, char **argv) {
    int rank, size, data[N], back[4 * N], mark;
    MPI_File fh;
    MPI_Datatype vec, strided;
    MPI_Status st;
    MPI_Request req;
    MPI_Offset where, bytes;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < N; i++) data[i] = rank * 100 + i;
    mark = rank;

    if (rank == 0) MPI_File_delete("view.dat", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, "view.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    MPI_File_preallocate(fh, (MPI_Offset)(N * size * sizeof(int)));
    MPI_Type_vector(N, 1, size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(N * size * sizeof(int)), &strided);
    MPI_Type_commit(&strided);
    MPI_File_set_view(fh, (MPI_Offset)(rank * sizeof(int)), MPI_INT, strided, "native",
                      MPI_INFO_NULL);
    MPI_File_write_all(fh, data, N, MPI_INT, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_get_size(fh, &bytes);

    MPI_File_seek(fh, 2, MPI_SEEK_SET);
    MPI_File_read(fh, back, 2, MPI_INT, &st);
    MPI_File_get_position(fh, &where);
    MPI_File_read_at_all(fh, 0, back, N, MPI_INT, &st);
    MPI_File_iread_at(fh, N - 2, back, 4, MPI_INT, &req);  /* 2 ints left in the view */
    MPI_Wait(&req, &st);

    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_all_begin(fh, back, N * size, MPI_INT);
    MPI_File_read_all_end(fh, back, &st);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered(fh, back, N, MPI_INT, &st);
    MPI_File_get_position_shared(fh, &where);
    MPI_File_write_at(fh, N * size + rank, &mark, 1, MPI_INT, &st);
    MPI_File_set_size(fh, (MPI_Offset)(N * size * sizeof(int)));
    MPI_File_close(&fh);

    MPI_File_open(MPI_COMM_WORLD, "view.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_shared(fh, back, 2, MPI_INT, &st);
    MPI_File_get_size(fh, &bytes);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_File_delete("view.dat", MPI_INFO_NULL);
    MPI_Type_free(&strided);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
