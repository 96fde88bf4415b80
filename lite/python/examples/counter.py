#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Shared counters with the Python binding, run on every node at once:

  counter.py NODES ROUNDS

Node 1 allocates an atomic LMR and publishes it; the others map it. After
a barrier every node adds 1 ROUNDS times with fetch_add, and ROUNDS times
to a plain counter in the same LMR under a distributed lock (read, add,
write: only the lock keeps the updates from racing). After a second barrier
each node prints both totals, NODES * ROUNDS if all went well.
"""

import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import lite  # noqa: E402  pylint: disable=wrong-import-position

IDENT = 0x636F756E74   # "count"
PASSWORD = 1234
PERM = lite.PERM_READ | lite.PERM_WRITE | lite.PERM_ATOMIC


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    nodes, rounds = int(sys.argv[1]), int(sys.argv[2])
    me = lite.node_id()
    if me == 1:
        lh = lite.alloc(1, 4096, lite.ALLOC_ATOMIC, PASSWORD)
        number = lite.lock_create(1)
        lite.write(lh, 16, struct.pack("<Q", number), PASSWORD)
        lite.publish(lh, IDENT, PERM, PASSWORD)
    else:
        while True:     # until node 1 has published it
            try:
                lh = lite.ask(1, IDENT, PERM, PASSWORD)
                break
            except (PermissionError, BlockingIOError):
                time.sleep(0.1)
        number = struct.unpack("<Q", lite.read(lh, 16, 8, PASSWORD))[0]

    lite.barrier(nodes)
    for _ in range(rounds):
        lite.fetch_add(lh, 0, 1, PASSWORD)
        with lite.Lock(1, number):
            v = struct.unpack("<Q", lite.read(lh, 8, 8, PASSWORD))[0]
            lite.write(lh, 8, struct.pack("<Q", v + 1), PASSWORD)
    lite.barrier(nodes)

    atomic = lite.fetch_add(lh, 0, 0, PASSWORD)
    locked = struct.unpack("<Q", lite.read(lh, 8, 8, PASSWORD))[0]
    print(f"node {me}: fetch_add counter {atomic}, locked counter {locked}, "
          f"expected {nodes * rounds}")
    lite.barrier(nodes)     # node 1's exit frees the LMR: read first
    if me == 1:
        lite.lock_destroy(1, number)
    sys.exit(0 if atomic == locked == nodes * rounds else 1)


if __name__ == "__main__":
    main()
