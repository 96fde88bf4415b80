#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The Python binding on a running LITE cluster (tests/integration/lite-api.d/
40-python.sh runs it as an unprivileged user in group lite).

  check_cluster.py info NODES          join status: NODES nodes, all reachable
  check_cluster.py echo-server PORT CLIENTS
                                       echo every call on PORT until CLIENTS
                                       one-way "quit" messages came
  check_cluster.py echo-client NODE PORT
                                       byte-exact echo of several sizes
  check_cluster.py sync NODES ITER     on every node at once: fetch_add sum,
                                       lock-protected counter, one CAS winner,
                                       swap chain (if bound), remote LMR
                                       read/write/memcpy, barriers
  check_cluster.py errors              errno mapping and argument checks

Prints "ok ..." per passed check, "FAIL ..." per failed one (exit 1).
"""

import errno
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import lite  # noqa: E402  pylint: disable=wrong-import-position

failures = 0


def ok(msg):
    print(f"ok   {msg}", flush=True)


def fail(msg):
    global failures
    failures += 1
    print(f"FAIL {msg}", flush=True)


def check(cond, msg):
    (ok if cond else fail)(msg)
    return cond


def expect_raise(exc, code, msg, fn, *args):
    """fn(*args) must raise exc (with errno code unless None)."""
    try:
        fn(*args)
    except exc as e:
        if code is not None and getattr(e, "errno", None) != code:
            fail(f"{msg}: {type(e).__name__} errno {e.errno}, expected "
                 f"{errno.errorcode[code]}")
            return
        ok(f"{msg}: {type(e).__name__}: {e}")
        return
    except Exception as e:  # pylint: disable=broad-except
        fail(f"{msg}: {type(e).__name__}: {e}, expected {exc.__name__}")
        return
    fail(f"{msg}: no exception, expected {exc.__name__}")


def finish():
    print("result: " + ("FAIL" if failures else "all ok"), flush=True)
    sys.exit(1 if failures else 0)


def pattern(size, seed):
    """size bytes that differ at every position of a 251-byte cycle."""
    row = bytes((i * 7 + seed) % 251 for i in range(251))
    return (row * (size // 251 + 1))[:size]


def ask_retry(node, ident, perm, password, timeout=60):
    """Map a publication that its owner may not have made yet."""
    end = time.monotonic() + timeout
    while True:
        try:
            return lite.ask(node, ident, perm, password)
        except (PermissionError, BlockingIOError):
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


# ---- info -------------------------------------------------------------------

def cmd_info(nodes):
    me = lite.node_id()
    info = lite.cluster_info()
    check(1 <= me <= nodes, f"node_id() = {me}")
    check(lite.nr_nodes() == nodes, f"nr_nodes() = {lite.nr_nodes()}")
    check(info.node_id == me and info.nr_nodes == nodes and
          info.connected == frozenset(range(1, nodes + 1)) and
          info.qps_per_peer >= 1, f"cluster_info() = {info}")
    check(lite.library_path.endswith("liblite.so.0"),
          f"library {lite.library_path}")
    finish()


# ---- RPC echo ---------------------------------------------------------------

SIZES = [1, 2, 63, 4096, 4097, 65536, 300001, lite.RPC_MAX_MSG]
SMALL_PORT_MAX = 64


def cmd_echo_server(port, clients):
    lite.rpc_register(port, lite.RPC_MAX_MSG, "py-echo")
    lite.rpc_register(port + 1, SMALL_PORT_MAX, "py-small")
    print("ready", flush=True)
    calls, quits, senders = 0, 0, set()
    data, desc, src = lite.rpc_recv(port)
    while True:
        senders.add(src)
        if desc == lite.DESC_NO_REPLY:
            check(data == b"quit", f"one-way message from node {src}")
            quits += 1
            if quits == clients:
                break
            data, desc, src = lite.rpc_recv(port)
            continue
        calls += 1
        try:
            data, desc, src = lite.rpc_reply_recv(desc, data, port)
        except OSError as e:
            # The clients' reply_max check: the echo does not fit, nothing
            # was sent, and the next message is still to be received.
            if e.errno != errno.EMSGSIZE:
                raise
            ok(f"echo of {len(data)} bytes to node {src} above its "
               "reply_max: EMSGSIZE")
            data, desc, src = lite.rpc_recv(port)
    check(calls > 0, f"served {calls} calls from nodes {sorted(senders)}")
    finish()


def cmd_echo_client(node, port):
    end = time.monotonic() + 60
    while True:
        try:
            max_size = lite.rpc_query_port(node, port)
            break
        except ConnectionRefusedError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)
    check(max_size == lite.RPC_MAX_MSG, f"query_port({node}, {port}) = "
          f"{max_size}")
    me = lite.node_id()
    for size in SIZES:
        req = pattern(size, size + me)
        check(lite.rpc_call(node, port, req) == req,
              f"echo of {size} bytes (bytes in, bytes out)")
    # Zero-copy variants: a bytearray request, the reply into a memoryview.
    req = bytearray(pattern(70000, me))
    out = bytearray(100000)
    n = lite.rpc_call_into(node, port, req, memoryview(out)[10:])
    check(n == len(req) and out[10:10 + n] == req and out[:10] == bytes(10),
          "echo of 70000 bytes into a memoryview slice")
    with lite.Buffer(lite.RPC_MAX_MSG) as buf:
        view = buf.view
        view[:4096] = pattern(4096, 3)
        n = lite.rpc_call_into(node, port, view[:4096], view[4096:])
        good = n == 4096 and view[4096:8192] == view[:4096]
        del view
    check(good, "echo between two parts of a lite.Buffer")
    expect_raise(OSError, errno.EMSGSIZE, "reply longer than reply_max",
                 lite.rpc_call, node, port, pattern(100, 1), 99)
    expect_raise(OSError, errno.EMSGSIZE, "request above the port's max_size",
                 lite.rpc_call, node, port + 1, bytes(SMALL_PORT_MAX + 1))
    expect_raise(ConnectionRefusedError, errno.ECONNREFUSED,
                 "call to a port nobody registered",
                 lite.rpc_call, node, port + 2, b"x")
    lite.rpc_send(node, port, b"quit")
    finish()


# ---- sync: atomics, lock, barrier, remote LMRs ------------------------------

PW = 0x5079
ATOM_ID = 0x50790001    # atomic LMR on node 1
DATA_ID = 0x50790002    # plain LMR on node 2: lock number, counter, data
DATA_SIZE = 1 << 20
LOCK_HOME = 3
PATTERN_OFF, PATTERN_LEN = 4096, 65536
STAMP_OFF, STAMP_LEN = 1 << 19, 8192
SWAP_OLD_OFF = 64


def u64(b):
    return struct.unpack("<Q", b)[0]


def cmd_sync(nodes, iters):
    me = lite.node_id()
    shared = lite.PERM_ALL & ~lite.PERM_ADMIN
    if me == 1:
        atom = lite.alloc(1, 4096, lite.ALLOC_ATOMIC, PW)
        lite.publish(atom, ATOM_ID, shared, PW)
    else:
        atom = ask_retry(1, ATOM_ID, shared, PW)
    if me == 2:
        number = lite.lock_create(LOCK_HOME)
        data = lite.alloc(2, DATA_SIZE, 0, PW)
        lite.write(data, 0, struct.pack("<Q", number), PW)
        lite.write(data, PATTERN_OFF, pattern(PATTERN_LEN, 42), PW)
        lite.publish(data, DATA_ID, lite.PERM_READ | lite.PERM_WRITE |
                     lite.PERM_SHARE, PW)
    else:
        data = ask_retry(2, DATA_ID, lite.PERM_READ | lite.PERM_WRITE, PW)
        number = u64(lite.read(data, 0, 8, PW))
    info = lite.lmr_info(data)
    check(info.node == 2 and info.size == DATA_SIZE and
          info.perm & lite.PERM_READ, f"lmr_info of node 2's LMR: {info}")
    lock = lite.Lock(LOCK_HOME, number)
    lite.lock_ask(LOCK_HOME, number)
    ok(f"lock {number} on node {LOCK_HOME} exists")

    lite.barrier(nodes)
    ok(f"barrier({nodes}) before the rounds")
    t0 = time.monotonic()
    for _ in range(iters):
        lite.fetch_add(atom, 0, 1, PW)
    ok(f"{iters} fetch_adds in {time.monotonic() - t0:.2f} s")
    t0 = time.monotonic()
    for _ in range(iters):
        with lock:
            v = u64(lite.read(data, 8, 8, PW))
            lite.write(data, 8, struct.pack("<Q", v + 1), PW)
    ok(f"{iters} lock-protected increments in {time.monotonic() - t0:.2f} s")
    if lite.compare_swap(atom, 8, 0, me, PW) == 0:
        print("info cas won", flush=True)
    if hasattr(lite, "swap"):
        old = lite.swap(atom, 16, me, PW)
        lite.write(data, SWAP_OLD_OFF + 8 * me, struct.pack("<Q", old), PW)
    # Remote data: node 2's pattern, then this node's stamp in its slot.
    check(lite.read(data, PATTERN_OFF, PATTERN_LEN, PW) ==
          pattern(PATTERN_LEN, 42), "read of node 2's pattern")
    lite.write(data, STAMP_OFF + me * STAMP_LEN,
               bytearray(pattern(STAMP_LEN, me)), PW)

    lite.barrier(nodes)
    ok(f"barrier({nodes}) after the rounds")
    total = lite.fetch_add(atom, 0, 0, PW)
    check(total == nodes * iters, f"fetch_add sum {total} == {nodes} x "
          f"{iters}")
    counter = u64(lite.read(data, 8, 8, PW))
    check(counter == nodes * iters, f"lock-protected counter {counter} == "
          f"{nodes} x {iters}")
    winner = u64(lite.read(atom, 8, 8, PW))
    check(1 <= winner <= nodes, f"CAS value is a node id ({winner})")
    if hasattr(lite, "swap"):
        final = u64(lite.read(atom, 16, 8, PW))
        olds = [u64(lite.read(data, SWAP_OLD_OFF + 8 * n, 8, PW))
                for n in range(1, nodes + 1)]
        check(sorted(olds + [final]) == list(range(nodes + 1)),
              f"swap chain: olds {olds}, final {final}")
    else:
        ok("swap: lite_swap not in this liblite, not bound")
    # Every node's stamp, read three ways.
    for n in range(1, nodes + 1):
        want = pattern(STAMP_LEN, n)
        off = STAMP_OFF + n * STAMP_LEN
        ba = bytearray(STAMP_LEN + 8)
        lite.read_into(data, off, memoryview(ba)[8:], PW)
        with lite.Buffer(STAMP_LEN) as buf:
            lite.read_into(data, off, buf.view, PW)
            zc = bytes(buf.view)
        check(lite.read(data, off, STAMP_LEN, PW) == want and
              ba[8:] == want and zc == want,
              f"node {n}'s stamp (read, read_into, lite.Buffer)")
    # memcpy from node 2's LMR into a local one, memmove, memset.
    local = lite.alloc(me, 3 * PATTERN_LEN, 0, PW)
    lite.memcpy(local, 0, data, PATTERN_OFF, PATTERN_LEN)
    want = pattern(PATTERN_LEN, 42)
    check(lite.read(local, 0, PATTERN_LEN, PW) == want, "memcpy remote to "
          "local")
    lite.memmove(local, 100, local, 0, PATTERN_LEN)
    check(lite.read(local, 100, PATTERN_LEN, PW) == want,
          "memmove of an overlapping range")
    lite.memset(local, 7, 0xA5, 50)
    check(lite.read(local, 0, 200, PW) ==
          want[:7] + b"\xa5" * 50 + want[57:100] + want[:100],
          "memset")
    lite.free(local)

    lite.barrier(nodes)
    ok(f"barrier({nodes}) before the end")
    if me == 2:
        lock.destroy()
        expect_raise(FileNotFoundError, errno.ENOENT, "destroyed lock",
                     lite.lock_ask, LOCK_HOME, number)
    finish()


# ---- errors -----------------------------------------------------------------

def cmd_errors():
    me = lite.node_id()
    lh = lite.alloc(me, 4096, 0, PW)
    expect_raise(FileNotFoundError, errno.ENOENT, "read of a bad handle",
                 lite.read, lh + 1000000, 0, 8, PW)
    expect_raise(OSError, errno.ERANGE, "read past the end",
                 lite.read, lh, 4090, 8, PW)
    expect_raise(PermissionError, errno.EACCES, "read with a wrong password",
                 lite.read, lh, 0, 8, PW + 1)
    lite.publish(lh, 0x50790009, lite.PERM_READ, PW)
    expect_raise(FileExistsError, errno.EEXIST, "publish twice",
                 lite.publish, lh, 0x50790009, lite.PERM_READ, PW)
    expect_raise(PermissionError, errno.EACCES, "ask with a wrong password",
                 lite.ask, me, 0x50790009, lite.PERM_READ, PW + 1)
    ro = lite.ask(me, 0x50790009, lite.PERM_READ, PW)
    expect_raise(PermissionError, errno.EPERM, "write on a read-only handle",
                 lite.write, ro, 0, b"x", PW)
    lite.unmap(ro)
    atom = lite.alloc(me, 4096, lite.ALLOC_ATOMIC, PW)
    expect_raise(OSError, errno.EINVAL, "fetch_add at an odd offset",
                 lite.fetch_add, atom, 3, 1, PW)
    check(lite.fetch_add(atom, 8, -5, PW) == 0 and
          lite.fetch_add(atom, 8, 7, PW) == (1 << 64) - 5 and
          lite.compare_swap(atom, 8, 2, 9, PW) == 2 and
          lite.read(atom, 8, 8, PW) == (9).to_bytes(8, "little"),
          "fetch_add of -5 then 7, compare_swap 2 -> 9")
    lite.free(atom)
    expect_raise(PermissionError, errno.EPERM, "fetch_add on an LMR that is "
                 "not atomic", lite.fetch_add, lh, 0, 1, PW)
    expect_raise(FileNotFoundError, errno.ENOENT, "lock_ask of no lock",
                 lite.lock_ask, me, 1 << 30)
    number = lite.lock_create(me)
    expect_raise(PermissionError, errno.EPERM, "unlock of a lock not held",
                 lite.unlock, me, number)
    with lite.Lock(me, number):
        expect_raise(OSError, errno.EDEADLK, "lock taken twice",
                     lite.lock, me, number)
        expect_raise(OSError, errno.EBUSY, "destroy of a held lock",
                     lite.lock_destroy, me, number)
    lite.lock_destroy(me, number)
    port = 40
    lite.rpc_register(port, 128)
    expect_raise(OSError, errno.EADDRINUSE, "port registered twice",
                 lite.rpc_register, port, 128)
    expect_raise(BlockingIOError, errno.EAGAIN, "non-blocking recv, no "
                 "message", lite.rpc_recv, port, 128, True)
    # No RPC to this node itself (docs/rpc.md): a plain OSError.
    expect_raise(OSError, errno.ENOTCONN, "one-way message to this node",
                 lite.rpc_send, me, port, b"self")
    # Arguments caught in Python, before the library.
    expect_raise(TypeError, None, "a str handle", lite.read, "1", 0, 8)
    expect_raise(ValueError, None, "a negative offset", lite.read, lh, -1, 8)
    expect_raise(ValueError, None, "port MAX_PORT", lite.rpc_register,
                 lite.MAX_PORT, 1)
    expect_raise(ValueError, None, "barrier(0)", lite.barrier, 0)
    expect_raise(ValueError, None, "an empty request", lite.rpc_send, me,
                 port, b"")
    expect_raise(TypeError, None, "a str as data", lite.write, lh, 0, "x")
    expect_raise(TypeError, None, "read_into bytes", lite.read_into, lh, 0,
                 b"ro")
    expect_raise(ValueError, None, "prio 7", lite.read, lh, 0, 8, PW, 7)
    expect_raise(ValueError, None, "a 2**64 compare", lite.compare_swap, lh,
                 0, 1 << 64, 0)
    buf = lite.Buffer(100)
    view = buf.view
    expect_raise(BufferError, None, "close a Buffer with a live view",
                 buf.close)
    del view
    buf.close()
    check(buf.closed, "Buffer closed once its view is gone")
    lite.free(lh)
    expect_raise(FileNotFoundError, errno.ENOENT, "read after free",
                 lite.read, lh, 0, 8, PW)
    finish()


def main(argv):
    cmds = {"info": (cmd_info, 1), "echo-server": (cmd_echo_server, 2),
            "echo-client": (cmd_echo_client, 2), "sync": (cmd_sync, 2),
            "errors": (cmd_errors, 0)}
    if len(argv) < 2 or argv[1] not in cmds or \
            len(argv) - 2 != cmds[argv[1]][1]:
        sys.exit(__doc__)
    fn = cmds[argv[1]][0]
    try:
        fn(*(int(a) for a in argv[2:]))
    except OSError as e:
        print(f"FAIL {argv[1]}: {type(e).__name__}: {e}", flush=True)
        raise


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main(sys.argv)
