"""The child of spawn_parent.py."""
import sys

from mpi4py import MPI

parent = MPI.Comm.Get_parent()
world = MPI.COMM_WORLD
x = parent.bcast(None, root=0)
parent.gather(world.Get_rank() * x + int(sys.argv[1]), root=0)
total = parent.allreduce(world.Get_rank())
print(f"child {world.Get_rank()} of {world.Get_size()}: remote {parent.Get_remote_size()} "
      f"allreduce {total} appnum {world.Get_attr(MPI.APPNUM)}", flush=True)
if world.Get_rank() == 0:
    port = MPI.Lookup_name("spawn-test")
    client = MPI.COMM_SELF.Connect(port)
    client.send("hello", dest=0, tag=5)
    client.Disconnect()
parent.Disconnect()
print(f"child {world.Get_rank()}: Get_parent after Disconnect is COMM_NULL:",
      MPI.Comm.Get_parent() == MPI.COMM_NULL, flush=True)
