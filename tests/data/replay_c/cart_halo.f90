! A halo exchange on a periodic 2-D process grid in Fortran (the mpi module): MPI_Cart_create,
! MPI_Cart_shift, MPI_Bsend to the right neighbour and MPI_Recv from the left, then barriers
! on the rows (MPI_Cart_sub), on the even ranks (MPI_Comm_create) and on the node
! (MPI_Comm_split_type).
program cart_halo
  use mpi
  implicit none
  integer, parameter :: n = 1000
  real :: out(n), in(n)
  integer :: size, rank, ierr, grid, row, evens, node, left, right, bytes, i, nev
  integer :: dims(2), world_group, even_group, ranks(64)
  logical :: periods(2), remain(2)
  character, allocatable :: buf(:)
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  dims = 0
  periods = .true.
  call MPI_Dims_create(size, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., grid, ierr)
  call MPI_Comm_rank(grid, rank, ierr)
  call MPI_Cart_shift(grid, 1, 1, left, right, ierr)
  call MPI_Pack_size(n, MPI_REAL, grid, bytes, ierr)
  bytes = bytes + MPI_BSEND_OVERHEAD
  allocate(buf(bytes))
  out = real(rank)
  call MPI_Buffer_attach(buf, bytes, ierr)
  call MPI_Bsend(out, n, MPI_REAL, right, 0, grid, ierr)
  call MPI_Recv(in, n, MPI_REAL, left, 0, grid, status, ierr)
  call MPI_Buffer_detach(buf, bytes, ierr)
  remain = (/ .false., .true. /)
  call MPI_Cart_sub(grid, remain, row, ierr)
  call MPI_Barrier(row, ierr)
  call MPI_Comm_group(grid, world_group, ierr)
  nev = 0
  do i = 0, size - 1, 2
    nev = nev + 1
    ranks(nev) = i
  end do
  call MPI_Group_incl(world_group, nev, ranks, even_group, ierr)
  call MPI_Comm_create(grid, even_group, evens, ierr)
  if (evens /= MPI_COMM_NULL) call MPI_Barrier(evens, ierr)
  call MPI_Comm_split_type(grid, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node, ierr)
  call MPI_Barrier(node, ierr)
  print '(a,i0,a,i0,a,i0)', 'rank ', rank, ': received from ', left, ' value ', int(in(1))
  call MPI_Finalize(ierr)
end program cart_halo
