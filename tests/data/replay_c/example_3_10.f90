! MPI 4.1 Example 3.10 in Fortran (the mpi module): both ranks bsend, then receive.
program example_3_10
  use mpi
  implicit none
  integer, parameter :: n = 1000
  real :: out(n), in(n)
  integer :: rank, ierr, size, peer
  character, allocatable :: buf(:)
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  call MPI_Pack_size(n, MPI_REAL, MPI_COMM_WORLD, size, ierr)
  size = size + MPI_BSEND_OVERHEAD
  allocate(buf(size))
  out = 1.0
  call MPI_Buffer_attach(buf, size, ierr)
  call MPI_Bsend(out, n, MPI_REAL, peer, 0, MPI_COMM_WORLD, ierr)
  call MPI_Recv(in, n, MPI_REAL, peer, 0, MPI_COMM_WORLD, status, ierr)
  call MPI_Buffer_detach(buf, size, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  print *, 'rank', rank, 'done'
  call MPI_Finalize(ierr)
end program example_3_10
