/* One-sided communication (MPI 4.1 §12), groups (§7.3), MPI_Comm_idup (§7.4.2), a session
 * (§11.3) and the large-count bindings, for mpisim record and replay: fence epochs over a
 * created window (put to the right, get from the left, accumulate at rank 0); passive
 * target on an allocated window (lock, put, flush, fetch-and-op, unlock; lock_all,
 * get-accumulate, flush_all); post/start/complete/wait between partners (rank ^ 1) named by
 * groups; a communicator from MPI_Comm_idup used once its request completed; one from a
 * session's world process set; MPI_Send_c, MPI_Recv_c and MPI_Bcast_c.
 * Run with an even number of processes (4). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, one = 1, old = 0;
    double mem[16] = {0}, out[4] = {1, 2, 3, 4}, in[4];
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, partner = rank ^ 1;

    MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(out, 4, MPI_DOUBLE, right, 0, 4, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Get(in, 4, MPI_DOUBLE, left, 0, 4, MPI_DOUBLE, win);
    MPI_Accumulate(out, 4, MPI_DOUBLE, 0, 4, 4, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);

    int *base;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&one, 1, MPI_INT, 0, rank % 4, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Win_lock_all(0, win);
    MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_NO_OP,
                       win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    MPI_Group world, peers, others;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &partner, &peers);
    MPI_Group_excl(world, 1, &rank, &others);
    MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank % 2) {
        MPI_Win_post(peers, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(peers, 0, win);
        MPI_Put(out, 2, MPI_DOUBLE, partner, 0, 2, MPI_DOUBLE, win);
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&others);
    MPI_Group_free(&peers);
    MPI_Group_free(&world);

    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, dup);
    MPI_Comm_free(&dup);

    MPI_Session session;
    MPI_Group set;
    MPI_Comm from;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    MPI_Group_from_session_pset(session, "mpi://WORLD", &set);
    MPI_Comm_create_from_group(set, "org.mpisim.onesided", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                               &from);
    MPI_Barrier(from);
    MPI_Comm_free(&from);
    MPI_Group_free(&set);
    MPI_Session_finalize(&session);

    char buf[64] = {0};
    MPI_Count n = 64;
    if (rank == 0) MPI_Send_c(buf, n, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv_c(buf, n, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Bcast_c(buf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
