"""Spawn three children of spawn_child.py, talk to them over the intercommunicator, meet
one again through a published port, disconnect (MPI 4.1 §11.8-§11.10)."""
import os
import sys

from mpi4py import MPI

here = os.path.dirname(os.path.abspath(__file__))
print("parent: Get_parent is COMM_NULL:", MPI.Comm.Get_parent() == MPI.COMM_NULL, flush=True)
print("parent: UNIVERSE_SIZE:", MPI.COMM_WORLD.Get_attr(MPI.UNIVERSE_SIZE), flush=True)
port = MPI.Open_port()
MPI.Publish_name("spawn-test", port)
inter = MPI.COMM_SELF.Spawn(sys.executable, args=[os.path.join(here, "spawn_child.py"), "7"],
                            maxprocs=3)
print("parent: inter", inter.Is_inter(), inter.Get_size(), inter.Get_remote_size(), flush=True)
inter.bcast(42, root=MPI.ROOT)
print("parent: gathered", inter.gather(None, root=MPI.ROOT), flush=True)
print("parent: allreduce", inter.allreduce(100), flush=True)
server = MPI.COMM_SELF.Accept(port)
print("parent: accepted", server.Get_remote_size(), server.recv(source=0, tag=5), flush=True)
server.Disconnect()
MPI.Unpublish_name("spawn-test", port)
MPI.Close_port(port)
inter.Disconnect()
print("parent: disconnected", inter == MPI.COMM_NULL, flush=True)
try:
    MPI.Lookup_name("spawn-test")
except MPI.Exception as e:
    print("parent: lookup after unpublish:", e.Get_error_class() == MPI.ERR_NAME, flush=True)
