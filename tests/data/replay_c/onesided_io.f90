! The calls of the one-sided, group, object, persistent and MPI-IO chapters from Fortran (the
! mpi module), for mpisim record and replay: a matched probe and its receive (MPI 4.1
! §3.8.2); a persistent send and receive around the ring, started plus with MPI_Startall
! (§3.9); a communicator of MPI_Comm_idup (§7.4.2) and a group of the left neighbour
! (§7.3); fence epochs over a created window with a put to the right and a request-based
! get (§12.3.5) from the left; a derived type committed and freed (§5.1.9) and a user
! reduction made and freed (§6.9.5); a file written collectively through a view of one
! block per process and read back at an explicit offset (§14), then deleted.
! Prints "rank R ok" or the first wrong result. Any number of processes (2).
! mpif90 -g -o onesided_io onesided_io.f90 && mpiexec -n 2 ./onesided_io
program onesided_io
  use mpi
  implicit none
  integer :: me, p, ierr, right, left, k, msg, req, win, dup, world, peers, pair, op
  integer :: fh, reqs(2), st(MPI_STATUS_SIZE), got, x, y
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer(kind=MPI_OFFSET_KIND) :: offset, fsize
  double precision :: mem(8), out(4), in(4)
  integer :: block(4), back(4), sent(1), recvd(1)
  character(len=32) :: bad
  external :: plus

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  right = mod(me + 1, p)
  left = mod(me + p - 1, p)
  bad = ''

  ! a matched probe: the message taken, then received by its handle
  call MPI_Send(me, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(left, 7, MPI_COMM_WORLD, msg, st, ierr)
  call MPI_Mrecv(got, 1, MPI_INTEGER, msg, st, ierr)
  if (got /= left) bad = 'mrecv'

  ! persistent requests around the ring, started plus
  call MPI_Send_init(sent, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv_init(recvd, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(2), ierr)
  do k = 1, 2
    sent(1) = 10 * me + k
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (recvd(1) /= 10 * left + k) bad = 'persistent'
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)

  ! a duplicate made in the background; a group of the left neighbour
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_group(dup, world, ierr)
  call MPI_Group_incl(world, 1, [left], peers, ierr)
  call MPI_Group_free(peers, ierr)
  call MPI_Group_free(world, ierr)

  ! fence epochs: a put to the right, a request-based get from the left
  mem = 0
  out = [1d0, 2d0, 3d0, 4d0] + me
  winsize = 8 * 8
  call MPI_Win_create(mem, winsize, 8, MPI_INFO_NULL, dup, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(out, 4, MPI_DOUBLE_PRECISION, right, disp, 4, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Rget(in, 4, MPI_DOUBLE_PRECISION, left, disp, 4, MPI_DOUBLE_PRECISION, win, req, &
                ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  if (in(1) /= 1d0 + mod(left + p - 1, p)) bad = 'rget'

  ! a derived type committed and freed; a user reduction made and freed
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Type_commit(pair, ierr)
  call MPI_Type_free(pair, ierr)
  call MPI_Op_create(plus, .true., op, ierr)
  x = me + 1
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, op, dup, ierr)
  call MPI_Op_free(op, ierr)
  if (y /= p * (p + 1) / 2) bad = 'op'

  ! a file: one block per process through a view, written collectively, read back
  block = [(100 * me + k, k = 1, 4)]
  call MPI_File_open(dup, 'blocks.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, &
                     ierr)
  offset = 16 * me
  call MPI_File_set_view(fh, offset, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  offset = 0
  call MPI_File_write_at_all(fh, offset, block, 4, MPI_INTEGER, st, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(dup, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
                         MPI_INFO_NULL, ierr)
  offset = 4 * right
  call MPI_File_read_at(fh, offset, back, 4, MPI_INTEGER, st, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call MPI_File_close(fh, ierr)
  if (back(1) /= 100 * right + 1 .or. fsize /= 16 * p) bad = 'file'
  call MPI_Barrier(dup, ierr)
  if (me == 0) call MPI_File_delete('blocks.dat', MPI_INFO_NULL, ierr)
  call MPI_Comm_free(dup, ierr)

  if (bad == '') then
    print '(a,i0,a)', 'rank ', me, ' ok'
  else
    print '(a,i0,a,a)', 'rank ', me, ' wrong: ', trim(bad)
  end if
  call MPI_Finalize(ierr)
end program onesided_io

subroutine plus(invec, inoutvec, n, datatype)
  implicit none
  integer :: n, datatype, i
  integer :: invec(n), inoutvec(n)
  do i = 1, n
    inoutvec(i) = invec(i) + inoutvec(i)
  end do
end subroutine plus
