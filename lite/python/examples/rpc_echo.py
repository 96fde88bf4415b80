#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""RPC with the Python binding: an echo server and its client.

  rpc_echo.py server PORT             answer every call on PORT of this node
                                      with its request, upper-cased; stop at
                                      a one-way "quit"
  rpc_echo.py client NODE PORT MSG... call (NODE, PORT) with each MSG, print
                                      the replies, then send "quit"

Run as a user in group lite on a joined node; lite.py must be importable
(next to this script's directory, on PYTHONPATH, or installed).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import lite  # noqa: E402  pylint: disable=wrong-import-position


def server(port):
    lite.rpc_register(port, 4096, "py-rpc-echo")
    print(f"node {lite.node_id()}: serving port {port}", flush=True)
    data, desc, src = lite.rpc_recv(port, 4096)
    while desc != lite.DESC_NO_REPLY or data != b"quit":
        if desc == lite.DESC_NO_REPLY:     # another one-way message
            data, desc, src = lite.rpc_recv(port, 4096)
            continue
        print(f"{len(data)} bytes from node {src}", flush=True)
        # Reply and wait for the next request in one system call.
        data, desc, src = lite.rpc_reply_recv(desc, data.upper(), port, 4096)
    print(f"quit from node {src}")


def client(node, port, msgs):
    for msg in msgs:
        print(lite.rpc_call(node, port, msg.encode()).decode())
    lite.rpc_send(node, port, b"quit")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "server":
        server(int(sys.argv[2]))
    elif len(sys.argv) >= 5 and sys.argv[1] == "client":
        client(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
