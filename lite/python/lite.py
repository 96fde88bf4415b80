# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""LITE from Python: the calls of liblite (lite.h) through ctypes.

One function per C call, without the ``lite_`` prefix (``lite.alloc`` is
``lite_alloc``), taking Python ints and bytes-like objects and returning
Python values. The C library keeps /dev/lite open for the life of the
process, so handles, registered ports and held locks belong to the process,
as in C. Calls that block (RPC, locks, the barrier, data operations) release
the GIL, so other Python threads keep running.

Errors: a call that fails raises ``OSError(errno, strerror)``, which Python
turns into the matching subclass (``FileNotFoundError`` for ENOENT,
``PermissionError`` for EACCES/EPERM, ``ConnectionRefusedError``,
``BlockingIOError`` for EAGAIN, ``TimeoutError``...); the errno of every
call is documented in <uapi/lite.h>. An argument of the wrong type raises
``TypeError`` and one outside what the C type (or a documented limit such
as ``MAX_PORT``) allows raises ``ValueError``, before anything reaches the
library.

The library: ``$LITE_LIBRARY`` if set (a path, e.g. lite/lib/liblite.so.0
of a build tree), else ``liblite.so.0`` from the dynamic linker's path
(``lite-ae install`` puts it in /usr/local/lib), else pkg-config's libdir
for ``lite``. Importing this module raises ``ImportError`` if none loads.
"""

import collections
import ctypes
import os
import subprocess
import sys
import threading

__all__ = [
    "PERM_READ", "PERM_WRITE", "PERM_SHARE", "PERM_ADMIN", "PERM_ATOMIC",
    "PERM_ALL", "PRIO_NORMAL", "PRIO_HIGH", "PRIO_LOW", "ALLOC_ATOMIC",
    "LMR_MAX_SIZE", "RPC_MAX_MSG", "MAX_PORT", "NAME_MAX", "RECV_NONBLOCK",
    "DESC_NO_REPLY", "BARRIER_MAX", "KEY_FILE",
    "library_path", "join", "node_id", "nr_nodes", "cluster_info",
    "ClusterInfo", "alloc", "free", "unmap", "publish", "ask", "lmr_info",
    "LmrInfo", "read", "read_into", "write", "memset", "memcpy", "memmove",
    "rpc_register", "rpc_query_port", "rpc_call", "rpc_call_into",
    "rpc_send", "rpc_recv", "rpc_recv_into", "rpc_reply", "rpc_reply_recv",
    "fetch_add", "compare_swap", "lock_create", "lock_ask", "lock",
    "unlock", "lock_destroy", "Lock", "barrier", "Buffer",
]

# The constants of <uapi/lite.h> and lite.h.
PERM_READ = 0x01
PERM_WRITE = 0x02
PERM_SHARE = 0x04
PERM_ADMIN = 0x08
PERM_ATOMIC = 0x10
PERM_ALL = 0x1F
PRIO_NORMAL = 0
PRIO_HIGH = 1
PRIO_LOW = 2
ALLOC_ATOMIC = 0x1
LMR_MAX_SIZE = 1 << 30
RPC_MAX_MSG = 1 << 20
MAX_PORT = 64
NAME_MAX = 32
RECV_NONBLOCK = 0x1
DESC_NO_REPLY = (1 << 64) - 1
BARRIER_MAX = 1024
KEY_FILE = "/etc/lite/cluster.key"

_INT_MAX = (1 << 31) - 1
_INT_MIN = -(1 << 31)
_UINT_MAX = (1 << 32) - 1
_U64_MAX = (1 << 64) - 1
_PRIOS = (PRIO_NORMAL, PRIO_HIGH, PRIO_LOW)


# ---- finding and loading the library ---------------------------------------

def _pkg_config_libdir():
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "lite"],
                             capture_output=True, text=True, timeout=10,
                             check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


def _candidates(override):
    """Library names to try, in order; pkg-config only runs if needed."""
    if override:
        yield override
        return
    yield "liblite.so.0"
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, "liblite.so.0")


def _load():
    """The loaded library and where it came from, or ImportError."""
    override = os.environ.get("LITE_LIBRARY")
    errors = []
    for name in _candidates(override):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError as e:
            errors.append(str(e))
            continue
        if not hasattr(lib, "lite_node_id"):
            errors.append(f"{name}: not liblite (no lite_node_id)")
            continue
        return lib, name
    how = ("LITE_LIBRARY=" + override if override else
           "liblite.so.0 (dynamic linker path, then pkg-config lite)")
    raise ImportError(
        f"lite: cannot load liblite from {how}: {'; '.join(errors)}. "
        "Install it (ae-scripts/lite-ae install, or make -C lite/lib "
        "install) or point LITE_LIBRARY at liblite.so.0.",
        name="lite")


_lib, library_path = _load()

_c = ctypes
_u64p = _c.POINTER(_c.c_uint64)
_uintp = _c.POINTER(_c.c_uint)
_PROTOS = {
    "lite_join_key": (_c.c_int, [_c.c_char_p, _c.c_int, _c.c_int,
                                 _c.c_char_p]),
    "lite_node_id": (_c.c_int, []),
    "lite_nr_nodes": (_c.c_int, []),
    "lite_alloc": (_c.c_int, [_c.c_uint, _c.c_uint64, _c.c_uint, _c.c_int]),
    "lite_free": (_c.c_int, [_c.c_int]),
    "lite_unmap": (_c.c_int, [_c.c_int]),
    "lite_write": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_void_p,
                              _c.c_uint64, _c.c_int, _c.c_int]),
    "lite_read": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_void_p,
                             _c.c_uint64, _c.c_int, _c.c_int]),
    "lite_memset": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_int,
                               _c.c_uint64]),
    "lite_memcpy": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_int,
                               _c.c_uint64, _c.c_uint64]),
    "lite_memmove": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_int,
                                _c.c_uint64, _c.c_uint64]),
    "lite_publish": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_uint,
                                _c.c_int]),
    "lite_ask": (_c.c_int, [_c.c_uint, _c.c_uint64, _c.c_uint, _c.c_int]),
    "lite_lmr_info": (_c.c_int, [_c.c_int, _uintp, _u64p, _uintp]),
    "lite_alloc_buffer": (_c.c_void_p, [_c.c_size_t]),
    "lite_free_buffer": (_c.c_int, [_c.c_void_p, _c.c_size_t]),
    "lite_rpc_register": (_c.c_int, [_c.c_uint, _c.c_uint, _c.c_char_p]),
    "lite_rpc_query_port": (_c.c_int, [_c.c_uint, _c.c_uint]),
    "lite_rpc_call": (_c.c_int, [_c.c_uint, _c.c_uint, _c.c_void_p,
                                 _c.c_uint, _c.c_void_p, _c.c_uint,
                                 _c.c_int]),
    "lite_rpc_send": (_c.c_int, [_c.c_uint, _c.c_uint, _c.c_void_p,
                                 _c.c_uint, _c.c_int]),
    "lite_rpc_recv": (_c.c_int, [_c.c_uint, _c.c_void_p, _c.c_uint, _u64p,
                                 _uintp, _c.c_uint, _c.c_int]),
    "lite_rpc_reply": (_c.c_int, [_c.c_uint64, _c.c_void_p, _c.c_uint,
                                  _c.c_int]),
    "lite_rpc_reply_recv": (_c.c_int, [_c.c_uint64, _c.c_void_p, _c.c_uint,
                                       _c.c_uint, _c.c_void_p, _c.c_uint,
                                       _u64p, _uintp, _c.c_int]),
    "lite_fetch_add": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_uint64, _u64p,
                                  _c.c_int]),
    "lite_compare_swap": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_uint64,
                                     _c.c_uint64, _u64p, _c.c_int]),
    "lite_swap": (_c.c_int, [_c.c_int, _c.c_uint64, _c.c_uint64, _u64p,
                             _c.c_int]),
    "lite_lock_create": (_c.c_int, [_c.c_uint]),
    "lite_lock_ask": (_c.c_int, [_c.c_uint, _c.c_uint]),
    "lite_lock": (_c.c_int, [_c.c_uint, _c.c_uint]),
    "lite_unlock": (_c.c_int, [_c.c_uint, _c.c_uint]),
    "lite_lock_destroy": (_c.c_int, [_c.c_uint, _c.c_uint]),
    "lite_barrier": (_c.c_int, [_c.c_uint]),
}
# Optional: bound only when this liblite has it (lite_swap is newer).
_OPTIONAL = {"lite_swap"}

_f = {}
for _name, (_res, _args) in _PROTOS.items():
    try:
        _fn = getattr(_lib, _name)
    except AttributeError:
        if _name in _OPTIONAL:
            continue
        raise ImportError(f"lite: {library_path} lacks {_name}: an older "
                          "liblite than this module", name="lite") from None
    _fn.restype = _res
    _fn.argtypes = _args
    _f[_name] = _fn
del _name, _res, _args, _fn


# ---- argument checks and results --------------------------------------------

def _int(name, v, lo, hi):
    """@v as an int in lo..hi, else TypeError/ValueError naming @name."""
    if isinstance(v, bool) or not hasattr(type(v), "__index__"):
        raise TypeError(f"{name} must be an integer, not {type(v).__name__}")
    v = v.__index__()
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in {lo}..{hi}, got {v}")
    return v


def _uint(name, v):
    return _int(name, v, 0, _UINT_MAX)


def _u64(name, v):
    return _int(name, v, 0, _U64_MAX)


def _handle(lh):
    return _int("handle", lh, 0, _INT_MAX)


def _password(p):
    return _int("password", p, _INT_MIN, _INT_MAX)


def _prio(p):
    p = _int("prio", p, 0, _UINT_MAX)
    if p not in _PRIOS:
        raise ValueError(f"prio must be PRIO_NORMAL, PRIO_HIGH or PRIO_LOW, "
                         f"got {p}")
    return p


def _port(port):
    return _int("port", port, 0, MAX_PORT - 1)


def _perm(perm):
    return _int("perm", perm, 0, PERM_ALL)


def _check(ret):
    """A C result: >= 0 is returned, a negative errno raised as OSError."""
    if ret < 0:
        raise OSError(-ret, os.strerror(-ret))
    return ret


def _in(name, data):
    """(pointer argument, length) of a bytes-like object, for reading.

    bytes and writable buffers are passed without a copy; other read-only
    buffers (a memoryview of bytes with an offset...) are copied once.
    """
    if isinstance(data, bytes):
        return data, len(data)
    try:
        mv = memoryview(data)
    except TypeError:
        raise TypeError(f"{name} must be a bytes-like object, not "
                        f"{type(data).__name__}") from None
    if not mv.c_contiguous:
        raise ValueError(f"{name} must be a C-contiguous buffer")
    n = mv.nbytes
    if n == 0:
        return None, 0
    if mv.readonly:
        return bytes(mv.cast("B")), n
    return (ctypes.c_char * n).from_buffer(mv.cast("B")), n


def _out(name, buf):
    """(pointer argument, length) of a writable buffer, no copy."""
    try:
        mv = memoryview(buf)
    except TypeError:
        raise TypeError(f"{name} must be a writable bytes-like object, not "
                        f"{type(buf).__name__}") from None
    if mv.readonly:
        raise TypeError(f"{name} must be writable (a bytearray, a writable "
                        "memoryview, a Buffer's view...), not read-only")
    if not mv.c_contiguous:
        raise ValueError(f"{name} must be a C-contiguous buffer")
    n = mv.nbytes
    if n == 0:
        return None, 0
    return (ctypes.c_char * n).from_buffer(mv.cast("B")), n


# One scratch buffer per thread for replies and received messages, grown
# to the largest size asked for, so that a call does not allocate (and
# zero) up to 1 MiB each time; results are copied out of it.
_scratch = threading.local()


def _scratch_buf(size):
    buf = getattr(_scratch, "buf", None)
    if buf is None or len(buf) < size:
        buf = ctypes.create_string_buffer(max(size, 1))
        _scratch.buf = buf
    return buf


# ---- joining and the cluster ------------------------------------------------

def join(manager_ip, port, ib_port=0, key_file=None):
    """Join the cluster of lite-manager at manager_ip:port (needs
    CAP_NET_ADMIN and the cluster key, KEY_FILE by default); returns this
    node's id. The node stays joined after the process exits."""
    if not isinstance(manager_ip, str):
        raise TypeError("manager_ip must be a str")
    if key_file is not None and not isinstance(key_file, (str, bytes,
                                                          os.PathLike)):
        raise TypeError("key_file must be a path or None")
    port = _int("port", port, 0, _INT_MAX)
    ib_port = _int("ib_port", ib_port, 0, _INT_MAX)
    kf = None if key_file is None else os.fsencode(key_file)
    return _check(_f["lite_join_key"](manager_ip.encode(), port, ib_port,
                                      kf))


def node_id():
    """This node's id (> 0); ENOTCONN (ConnectionError) before joining."""
    return _check(_f["lite_node_id"]())


def nr_nodes():
    """This node plus the peers it reaches; ENOTCONN before joining."""
    return _check(_f["lite_nr_nodes"]())


ClusterInfo = collections.namedtuple(
    "ClusterInfo", "node_id nr_nodes qps_per_peer connected")
ClusterInfo.__doc__ = ("node_id: this node (0: not joined); nr_nodes: this "
                       "node plus reachable peers; connected: frozenset of "
                       "the reachable node ids.")

# LITE_IOC_CLUSTER, _IOWR(0xd1, 2, struct lite_ioc_cluster): lite.h has no
# call for the reachable set, so it is asked on a file of its own (the
# ioctl needs no state of the library's open file).
_IOC_CLUSTER = (3 << 30) | (24 << 16) | (0xD1 << 8) | 2


class _IocCluster(ctypes.Structure):
    _fields_ = [("node_id", ctypes.c_uint32), ("nr_nodes", ctypes.c_uint32),
                ("qps_per_peer", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32),
                ("connected", ctypes.c_uint64)]


def cluster_info():
    """The join status as a ClusterInfo; does not fail before joining
    (node_id 0), only when /dev/lite cannot be opened."""
    import fcntl  # only here: the rest of the module needs no fcntl

    c = _IocCluster()
    fd = os.open("/dev/lite", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, _IOC_CLUSTER, c, True)
    finally:
        os.close(fd)
    connected = frozenset(i for i in range(64) if c.connected >> i & 1)
    return ClusterInfo(c.node_id, c.nr_nodes, c.qps_per_peer, connected)


# ---- LMRs -------------------------------------------------------------------

LmrInfo = collections.namedtuple("LmrInfo", "node size perm")


def alloc(node, size, flags=0, password=0):
    """Allocate size bytes on node (this node's id: local memory); flags 0
    or ALLOC_ATOMIC. Returns a handle with every permission."""
    node = _uint("node", node)
    size = _int("size", size, 0, _U64_MAX)
    flags = _uint("flags", flags)
    return _check(_f["lite_alloc"](node, size, flags, _password(password)))


def free(lh):
    """Free the LMR (needs PERM_ADMIN); every other handle is revoked."""
    _check(_f["lite_free"](_handle(lh)))


def unmap(lh):
    """Drop this handle only."""
    _check(_f["lite_unmap"](_handle(lh)))


def publish(lh, identifier, perm, password=0):
    """Publish the LMR under identifier on its owner node (needs SHARE)."""
    _check(_f["lite_publish"](_handle(lh), _u64("identifier", identifier),
                              _perm(perm), _password(password)))


def ask(node, identifier, perm, password=0):
    """Map what node published under identifier; returns the new handle.
    EACCES (PermissionError) for a wrong password or nothing published."""
    return _check(_f["lite_ask"](_uint("node", node),
                                 _u64("identifier", identifier), _perm(perm),
                                 _password(password)))


def lmr_info(lh):
    """LmrInfo(node, size, perm) of a handle."""
    node, size, perm = ctypes.c_uint(), ctypes.c_uint64(), ctypes.c_uint()
    _check(_f["lite_lmr_info"](_handle(lh), ctypes.byref(node),
                               ctypes.byref(size), ctypes.byref(perm)))
    return LmrInfo(node.value, size.value, perm.value)


def write(lh, offset, data, password=0, prio=PRIO_NORMAL):
    """Write the bytes-like data to the LMR at offset."""
    ptr, n = _in("data", data)
    _check(_f["lite_write"](_handle(lh), _u64("offset", offset), ptr, n,
                            _password(password), _prio(prio)))


def read_into(lh, offset, buf, password=0, prio=PRIO_NORMAL):
    """Read len(buf) bytes at offset into the writable buffer buf (no copy
    in Python; a Buffer's view also skips the module's bounce buffer).
    Returns the number of bytes read."""
    ptr, n = _out("buf", buf)
    _check(_f["lite_read"](_handle(lh), _u64("offset", offset), ptr, n,
                           _password(password), _prio(prio)))
    return n


def read(lh, offset, size, password=0, prio=PRIO_NORMAL):
    """size bytes of the LMR at offset, as bytes."""
    size = _int("size", size, 0, LMR_MAX_SIZE)
    buf = bytearray(size)
    read_into(lh, offset, buf, password, prio)
    return bytes(buf)


def memset(lh, offset, byte, size):
    """Set size bytes at offset to byte (0..255)."""
    _check(_f["lite_memset"](_handle(lh), _u64("offset", offset),
                             _int("byte", byte, 0, 255), _u64("size", size)))


def memcpy(dst, dst_off, src, src_off, size):
    """Copy between two LMRs on any nodes (undefined for overlaps)."""
    _check(_f["lite_memcpy"](_handle(dst), _u64("dst_off", dst_off),
                             _handle(src), _u64("src_off", src_off),
                             _u64("size", size)))


def memmove(dst, dst_off, src, src_off, size):
    """memcpy that handles overlapping ranges."""
    _check(_f["lite_memmove"](_handle(dst), _u64("dst_off", dst_off),
                              _handle(src), _u64("src_off", src_off),
                              _u64("size", size)))


# ---- RPC --------------------------------------------------------------------

def rpc_register(port, max_size, name=None):
    """Receive requests of 1..max_size bytes on port (0..MAX_PORT-1) of this
    node; name (at most NAME_MAX - 1 bytes) shows in the kernel's logs."""
    port = _port(port)
    max_size = _int("max_size", max_size, 1, RPC_MAX_MSG)
    cname = None
    if name is not None:
        if not isinstance(name, str):
            raise TypeError("name must be a str or None")
        cname = name.encode()
        if len(cname) > NAME_MAX - 1 or b"\0" in cname:
            raise ValueError(f"name must be at most {NAME_MAX - 1} bytes "
                             "without NUL")
    _check(_f["lite_rpc_register"](port, max_size, cname))


def rpc_query_port(node, port):
    """The max_size of port on node; ECONNREFUSED if nobody registered it."""
    return _check(_f["lite_rpc_query_port"](_uint("node", node),
                                            _port(port)))


def _req(data):
    ptr, n = _in("data", data)
    if not 1 <= n <= RPC_MAX_MSG:
        raise ValueError(f"a message must be 1..{RPC_MAX_MSG} bytes, "
                         f"got {n}")
    return ptr, n


def rpc_call_into(node, port, data, reply, prio=PRIO_NORMAL):
    """Call (node, port) with data, the reply going into the writable buffer
    reply (room for len(reply) bytes, at most RPC_MAX_MSG are used).
    Returns the reply's length; EMSGSIZE if it does not fit."""
    node, port, prio = _uint("node", node), _port(port), _prio(prio)
    ptr, n = _req(data)
    rptr, rmax = _out("reply", reply)
    return _check(_f["lite_rpc_call"](node, port, ptr, n, rptr,
                                      min(rmax, RPC_MAX_MSG), prio))


def rpc_call(node, port, data, reply_max=RPC_MAX_MSG, prio=PRIO_NORMAL):
    """Call (node, port) with the bytes-like data; returns the reply (bytes,
    at most reply_max long, else EMSGSIZE)."""
    node, port, prio = _uint("node", node), _port(port), _prio(prio)
    reply_max = _int("reply_max", reply_max, 0, RPC_MAX_MSG)
    ptr, n = _req(data)
    buf = _scratch_buf(reply_max)
    got = _check(_f["lite_rpc_call"](node, port, ptr, n, buf, reply_max,
                                     prio))
    return ctypes.string_at(buf, got)


def rpc_send(node, port, data, prio=PRIO_NORMAL):
    """One-way message; its receiver gets DESC_NO_REPLY as descriptor."""
    node, port, prio = _uint("node", node), _port(port), _prio(prio)
    ptr, n = _req(data)
    _check(_f["lite_rpc_send"](node, port, ptr, n, prio))


def rpc_recv_into(port, buf, nonblock=False, prio=PRIO_NORMAL):
    """Wait for the next message on port (registered by this process) and
    put it into the writable buffer buf. Returns (length, descriptor,
    src_node). nonblock: BlockingIOError (EAGAIN) if none is waiting."""
    port, prio = _port(port), _prio(prio)
    ptr, n = _out("buf", buf)
    desc, src = ctypes.c_uint64(), ctypes.c_uint()
    got = _check(_f["lite_rpc_recv"](port, ptr, min(n, _UINT_MAX),
                                     ctypes.byref(desc), ctypes.byref(src),
                                     RECV_NONBLOCK if nonblock else 0, prio))
    return got, desc.value, src.value


def rpc_recv(port, size=RPC_MAX_MSG, nonblock=False, prio=PRIO_NORMAL):
    """Wait for the next message on port; returns (data, descriptor,
    src_node). size is the room for it: a longer message is consumed and
    fails with EMSGSIZE here and for its caller."""
    size = _int("size", size, 1, RPC_MAX_MSG)
    buf = _scratch_buf(size)
    got, desc, src = rpc_recv_into(port, memoryview(buf)[:size], nonblock,
                                   prio)
    return ctypes.string_at(buf, got), desc, src


def rpc_reply(descriptor, data, prio=PRIO_NORMAL):
    """Reply once to the message behind descriptor (data may be empty)."""
    desc = _u64("descriptor", descriptor)
    ptr, n = _in("data", data)
    if n > RPC_MAX_MSG:
        raise ValueError(f"a reply must be at most {RPC_MAX_MSG} bytes")
    _check(_f["lite_rpc_reply"](desc, ptr, n, _prio(prio)))


def rpc_reply_recv(descriptor, data, port, size=RPC_MAX_MSG,
                   prio=PRIO_NORMAL):
    """rpc_reply(descriptor, data) then a blocking rpc_recv(port, size) in
    one call; returns (data, descriptor, src_node) of the next message."""
    desc = _u64("descriptor", descriptor)
    ptr, n = _in("data", data)
    if n > RPC_MAX_MSG:
        raise ValueError(f"a reply must be at most {RPC_MAX_MSG} bytes")
    port, prio = _port(port), _prio(prio)
    size = _int("size", size, 1, RPC_MAX_MSG)
    buf = _scratch_buf(size)
    ndesc, src = ctypes.c_uint64(), ctypes.c_uint()
    got = _check(_f["lite_rpc_reply_recv"](desc, ptr, n, port, buf, size,
                                           ctypes.byref(ndesc),
                                           ctypes.byref(src), prio))
    return ctypes.string_at(buf, got), ndesc.value, src.value


# ---- atomics ----------------------------------------------------------------

def fetch_add(lh, offset, add, password=0):
    """Add to the 8 bytes at offset (a multiple of 8) of an ALLOC_ATOMIC
    LMR; returns the value before. A negative add subtracts (modulo
    2**64)."""
    add = _int("add", add, -(1 << 63), _U64_MAX) & _U64_MAX
    old = ctypes.c_uint64()
    _check(_f["lite_fetch_add"](_handle(lh), _u64("offset", offset), add,
                                ctypes.byref(old), _password(password)))
    return old.value


def compare_swap(lh, offset, compare, swap, password=0):
    """Store swap at offset if the value there equals compare; returns the
    value before (the swap happened if it equals compare)."""
    old = ctypes.c_uint64()
    _check(_f["lite_compare_swap"](_handle(lh), _u64("offset", offset),
                                   _u64("compare", compare),
                                   _u64("swap", swap), ctypes.byref(old),
                                   _password(password)))
    return old.value


if "lite_swap" in _f:
    def swap(lh, offset, value, password=0):
        """Store value at offset unconditionally; returns the value
        before. Present only when the loaded liblite has lite_swap."""
        old = ctypes.c_uint64()
        _check(_f["lite_swap"](_handle(lh), _u64("offset", offset),
                               _u64("value", value), ctypes.byref(old),
                               _password(password)))
        return old.value

    __all__.append("swap")


# ---- locks and the barrier --------------------------------------------------

def lock_create(node):
    """Create a lock on node; returns its number there."""
    return _check(_f["lite_lock_create"](_uint("node", node)))


def lock_ask(node, lock):
    """Nothing if lock exists on node; FileNotFoundError (ENOENT) if not."""
    _check(_f["lite_lock_ask"](_uint("node", node), _uint("lock", lock)))


def lock(node, lock):  # pylint: disable=redefined-outer-name
    """Take the lock (waiters are served in order); EDEADLK if this process
    holds it already."""
    _check(_f["lite_lock"](_uint("node", node), _uint("lock", lock)))


def unlock(node, lock):  # pylint: disable=redefined-outer-name
    """Release the lock; EPERM if this process does not hold it."""
    _check(_f["lite_unlock"](_uint("node", node), _uint("lock", lock)))


def lock_destroy(node, lock):  # pylint: disable=redefined-outer-name
    """Free a lock; EBUSY while it is held or waited for."""
    _check(_f["lite_lock_destroy"](_uint("node", node), _uint("lock", lock)))


_lock = lock
_unlock = unlock


class Lock:
    """A distributed lock (node, number) as a context manager:

        with lite.Lock(node, n):
            ...  # held here, released on the way out, even on an exception
    """

    def __init__(self, node, number):
        self.node = _uint("node", node)
        self.number = _uint("number", number)

    @classmethod
    def create(cls, node):
        """A new lock on node."""
        return cls(node, lock_create(node))

    def acquire(self):
        _lock(self.node, self.number)

    def release(self):
        _unlock(self.node, self.number)

    def destroy(self):
        lock_destroy(self.node, self.number)

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __repr__(self):
        return f"lite.Lock(node={self.node}, number={self.number})"


def barrier(nr):
    """Wait until nr (1..BARRIER_MAX) callers of this user reached it."""
    _check(_f["lite_barrier"](_int("nr", nr, 1, BARRIER_MAX)))


# ---- zero-copy buffers ------------------------------------------------------

class Buffer:
    """Page-aligned memory from lite_alloc_buffer: read_into()/write() with
    a view of it skip the module's bounce buffer.

        with lite.Buffer(1 << 20) as b:
            lite.read_into(lh, 0, b.view)
            data = bytes(b.view[:16])

    close() (or leaving the with block) unmaps it, and refuses with
    BufferError while a memoryview of it is still alive, since touching an
    unmapped view would crash the interpreter. An unclosed Buffer whose
    views are all gone is unmapped when it is collected.
    """

    def __init__(self, size):
        self.size = _int("size", size, 1, sys.maxsize)
        addr = _f["lite_alloc_buffer"](self.size)
        if not addr:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        self._addr = addr
        self._arr = (ctypes.c_char * self.size).from_address(addr)

    @property
    def closed(self):
        return self._arr is None

    @property
    def view(self):
        """A writable memoryview of the whole buffer."""
        if self._arr is None:
            raise ValueError("operation on a closed lite.Buffer")
        return memoryview(self._arr).cast("B")

    def _views_alive(self):
        # Every memoryview (and its slices) holds one reference to _arr
        # through its managed buffer; ours and getrefcount's make two.
        return sys.getrefcount(self._arr) > 2

    def close(self):
        if self._arr is None:
            return
        if self._views_alive():
            raise BufferError("lite.Buffer: release its memoryviews "
                              "before closing it")
        self._arr = None
        _check(_f["lite_free_buffer"](self._addr, self.size))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __len__(self):
        return self.size

    def __del__(self):
        # With views alive the mapping stays until exit: safe, not leaked
        # for long.
        if getattr(self, "_arr", None) is not None and \
                not self._views_alive():
            self._arr = None
            _f["lite_free_buffer"](self._addr, self.size)
