! MPI 4.1 §6 collectives from Fortran (the mpi module), with MPI_IN_PLACE and the
! nonblocking forms: each result is checked; prints "rank R ok" or the first wrong one.
! mpif90 -o collectives collectives.f90 && mpiexec -n 4 ./collectives
program collectives
  use mpi
  implicit none
  integer :: me, p, ierr, k, x, y, req, total, bad
  integer, allocatable :: counts(:), displs(:), ones(:), steps(:), bytes(:), types(:)
  integer, allocatable :: all(:), mine(:)
  character(len=32) :: first
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  allocate(counts(p), displs(p), ones(p), steps(p), bytes(p), types(p))
  total = 0
  do k = 1, p
    counts(k) = k
    displs(k) = total
    total = total + k
    ones(k) = 1
    steps(k) = k - 1
    bytes(k) = 4 * (k - 1)
    types(k) = MPI_INTEGER
  end do
  allocate(all(total + 4 * p), mine(total + 4 * p))
  bad = 0
  x = me + 1

  y = x
  call MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Allreduce IN_PLACE', y == p * (p + 1) / 2)
  y = x
  if (me == 0) then
    call MPI_Reduce(MPI_IN_PLACE, y, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(y, k, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  call check('Reduce IN_PLACE', me /= 0 .or. y == p)
  call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check('Iallreduce', y == p * (p + 1) / 2)
  call MPI_Scan(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Scan', y == (me + 1) * (me + 2) / 2)
  y = -1
  call MPI_Exscan(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Exscan', me == 0 .or. y == me * (me + 1) / 2)

  all = 0
  all(me + 1) = x
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call check('Allgather IN_PLACE', all(1) == 1 .and. all(p) == p)
  all(1) = 1
  if (me == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Gather(x, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call check('Gather IN_PLACE', me /= 0 .or. all(p) == p)
  mine(1:me + 1) = me
  call MPI_Gatherv(mine, me + 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD, ierr)
  call check('Gatherv', me /= 0 .or. all(total) == p - 1)
  call MPI_Allgatherv(mine, me + 1, MPI_INTEGER, all, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  call check('Allgatherv', all(total) == p - 1)

  do k = 1, total
    all(k) = k - 1
  end do
  call MPI_Scatter(all, 1, MPI_INTEGER, y, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check('Scatter', y == me)
  call MPI_Scatterv(all, counts, displs, MPI_INTEGER, mine, me + 1, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  call check('Scatterv', mine(me + 1) == displs(me + 1) + me)
  call MPI_Ibcast(y, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check('Ibcast', y == 0)

  do k = 1, p
    mine(k) = 10 * me + k - 1
  end do
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, 1, MPI_INTEGER, &
                    MPI_COMM_WORLD, ierr)
  call check('Alltoall IN_PLACE', mine(p) == 10 * (p - 1) + me)
  call MPI_Alltoallv(mine, ones, steps, MPI_INTEGER, all, ones, steps, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call check('Alltoallv', all(p) == 10 * me + p - 1)
  call MPI_Alltoallw(mine, ones, bytes, types, all, ones, bytes, types, MPI_COMM_WORLD, ierr)
  call check('Alltoallw', all(p) == 10 * me + p - 1)
  do k = 1, total
    mine(k) = 1
  end do
  call MPI_Reduce_scatter(MPI_IN_PLACE, mine, counts, MPI_INTEGER, MPI_SUM, &
                          MPI_COMM_WORLD, ierr)
  call check('Reduce_scatter IN_PLACE', mine(1) == p)
  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  if (bad == 0) then
    print '(a,i0,a)', 'rank ', me, ' ok'
  else
    print '(a,i0,a,a)', 'rank ', me, ' BAD ', trim(first)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine check(what, ok)
    character(len=*), intent(in) :: what
    logical, intent(in) :: ok
    if (.not. ok .and. bad == 0) first = what
    if (.not. ok) bad = bad + 1
  end subroutine check

end program collectives
