"""A producer and a consumer thread over a bounded queue.Queue(2), the main thread joining
the queue (task_done). The producer puts 0..4, sleeping 1 ms after each put; the consumer
takes each and works 3 ms on it. The consumer sets the pace: it takes items at 0, 3, 6,
9 and 12 ms, and the queue is joined at 15 ms. Run it on 1 rank; producer_consumer.txt
beside it is what mpi4py 4.1.2 prints on MPICH 5.0.2.
"""

import queue
import sys
import threading
import time

from mpi4py import MPI

items = queue.Queue(maxsize=2)
consumed = []
start = MPI.Wtime()


def produce():
    for i in range(5):
        items.put(i)
        time.sleep(0.001)


def consume():
    while True:
        item = items.get()
        if item is None:
            items.task_done()
            return
        consumed.append((item, round((MPI.Wtime() - start) * 1000)))
        time.sleep(0.003)
        items.task_done()


producer = threading.Thread(target=produce, name="producer")
consumer = threading.Thread(target=consume, name="consumer", daemon=True)
producer.start()
consumer.start()
producer.join()
items.join()
print("consumed", [item for item, _ in consumed], "full", items.full(), flush=True)
if len(sys.argv) > 1:
    print("times ms", [at for _, at in consumed], "joined ms",
          round((MPI.Wtime() - start) * 1000), flush=True)
