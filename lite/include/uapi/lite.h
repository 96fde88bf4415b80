/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * LITE user-space ABI: the ioctls and mmap of /dev/lite. Shared by the
 * kernel module and liblite; nothing else defines this interface.
 *
 * Handles ("lh") name a LITE memory region (LMR) and belong to the open
 * file that created them: closing it unmaps them and frees the LMRs it
 * allocated. New LMRs read as zeros. Every reserved field must be zero.
 * JOIN needs CAP_NET_ADMIN. memset/memcpy/memmove need the permission bits
 * but no password (the original API passes none).
 *
 * Errors (returned by ioctl() as -1 with errno):
 *   EINVAL       a malformed argument (reserved field set, unknown flag,
 *                node id out of range, zero-length where one is needed)
 *   ENOENT       no such handle
 *   EKEYREVOKED  the LMR behind the handle was freed by its owner
 *   EACCES       wrong password; for ASK also nothing published under the
 *                identifier (one answer: asking reveals nothing)
 *   EAGAIN       ASK: too many failed asks by this user this second
 *   EDQUOT       a per-user limit (module parameters user_*, see
 *                docs/security.md) is reached; mmap too
 *   EPERM        the handle or publication lacks the permission bit
 *   ERANGE       offset + size runs past the end of the LMR
 *   EFBIG        size above LITE_LMR_MAX_SIZE
 *   EFAULT       a user pointer that cannot be read or written
 *   ENOTCONN     this node has not joined, or the owner node is not (or no
 *                longer) a member
 *   ETIMEDOUT    the owner node did not answer in time
 *   EEXIST       the identifier is already published on that node
 *   ENOMEM       the owner node cannot allocate the memory
 *
 * RPC, atomics, locks and the barrier add:
 *   ECONNREFUSED no application registered that port on the node
 *   EADDRINUSE   the port is already registered on this node
 *   EMSGSIZE     a request above the port's max_size, a reply above the
 *                caller's reply_max, or a message above the receiver's size
 *                (the message is then consumed, and its caller gets EMSGSIZE)
 *   EAGAIN       LITE_RECV_NONBLOCK and no message is waiting
 *   EINTR        a signal interrupted the wait
 *   ETIMEDOUT    no reply within the module's rpc_timeout_ms
 *   EALREADY     the descriptor was already replied to (or is unknown)
 *   EDEADLK      this open file already holds the lock
 *   EPERM        unlock of a lock this open file does not hold
 *   EACCES       a lock created by another user (root may use any)
 *   EBUSY        destroy of a lock that is held or waited for
 *   ENOTCONN     also: the node left while the caller waited on it, or the
 *                module is going away (waiters are woken and fail)
 */
#ifndef _UAPI_LITE_H
#define _UAPI_LITE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LITE_DEV_NAME		"lite"
#define LITE_IOC_MAGIC		0xd1

/* Manager address as text ("198.18.0.1"), NUL-terminated. */
#define LITE_ADDR_LEN		64

/* Largest LMR. Chunked on the owner: no physically contiguous GiB needed. */
#define LITE_LMR_MAX_SIZE	(1ULL << 30)

/* Permission bits of a handle or publication (values of the original). */
#define LITE_PERM_READ		0x01
#define LITE_PERM_WRITE		0x02
#define LITE_PERM_SHARE		0x04	/* may publish it */
#define LITE_PERM_ADMIN		0x08	/* may free it */
#define LITE_PERM_ATOMIC	0x10	/* atomic LMR */
#define LITE_PERM_ALL		0x1f

/* Priority of a data operation or RPC (see docs/rpc.md for the policy). */
#define LITE_PRIO_NORMAL	0
#define LITE_PRIO_HIGH		1
#define LITE_PRIO_LOW		2

struct lite_ioc_join {
	char	manager[LITE_ADDR_LEN];
	__u32	port;		/* TCP port of the manager */
	__u32	ib_port;	/* 0: the module parameter */
	__u32	node_id;	/* out: this node's id */
	__u32	reserved;
	__u8	key[32];	/* the cluster key (/etc/lite/cluster.key) */
};

#define LITE_CLUSTER_NIC_ATOMICS	0x1	/* atomics run on the NIC */
/*
 * Joined, but the manager connection broke: the view is the last one it
 * sent, and no membership change reaches this node until it rejoins.
 */
#define LITE_CLUSTER_MANAGER_LOST	0x2
struct lite_ioc_cluster {
	__u32	node_id;	/* out: 0 when not joined */
	__u32	nr_nodes;	/* out: this node + peers whose QPs are up */
	__u32	qps_per_peer;	/* out */
	__u32	flags;		/* out: LITE_CLUSTER_* */
	__u64	connected;	/* out: bit i set when node i is reachable */
};

/* Allocate an LMR of @size bytes on @node (this node's id: local). */
#define LITE_ALLOC_ATOMIC	0x1	/* for fetch_add/compare_swp */
struct lite_ioc_alloc {
	__u32	node;
	__u32	flags;		/* LITE_ALLOC_* */
	__u64	size;		/* 1 .. LITE_LMR_MAX_SIZE */
	__s32	password;	/* data operations must present it */
	__u32	handle;		/* out: handle with LITE_PERM_ALL */
};

/*
 * FREE: free the LMR (needs ADMIN); every handle on it, on every node, is
 * revoked. UNMAP: drop this handle; on the creator's (ADMIN) handle that
 * frees the LMR too, since nothing else could.
 */
struct lite_ioc_handle {
	__u32	handle;
	__u32	reserved;
};

/* Copy @size bytes between user memory at @addr and the LMR at @offset. */
struct lite_ioc_rw {
	__u32	handle;
	__s32	password;
	__u64	offset;
	__u64	size;
	__u64	addr;		/* user pointer */
	__u32	priority;	/* LITE_PRIO_* */
	__u32	reserved;
};

/* Set @size bytes at @offset to the byte @value (needs WRITE). */
struct lite_ioc_memset {
	__u32	handle;
	__u32	value;		/* 0..255 */
	__u64	offset;
	__u64	size;
};

/* Copy between two LMRs, on any nodes (needs READ on src, WRITE on dst). */
struct lite_ioc_memcpy {
	__u32	dst;
	__u32	src;
	__u64	dst_offset;
	__u64	src_offset;
	__u64	size;
};

/* Publish an LMR under @identifier on its owner node (needs SHARE). */
struct lite_ioc_publish {
	__u64	identifier;
	__u32	handle;
	__u32	perm;		/* at most the handle's own bits */
	__s32	password;	/* askers must present it */
	__u32	reserved;
};

/* Map what @node published under @identifier, with @perm. */
struct lite_ioc_ask {
	__u64	identifier;
	__u32	node;
	__u32	perm;		/* at most the published bits */
	__s32	password;	/* the publication's; also the new handle's */
	__u32	handle;		/* out */
};

/* What a handle refers to. */
struct lite_ioc_lmr_info {
	__u32	handle;
	__u32	node;		/* out: owner */
	__u64	size;		/* out */
	__u32	perm;		/* out */
	__u32	reserved;
};

/*
 * RPC: requests and replies are RDMA writes with immediate into rings the
 * receiver set up for each (port, sender) pair (docs/rpc.md).
 */
#define LITE_MAX_PORT		64	/* ports are 0 .. LITE_MAX_PORT - 1 */
#define LITE_RPC_MAX_MSG	(1U << 20)	/* largest request or reply */
#define LITE_NAME_MAX		32

/* Receive requests sent to @port on this node, each at most @max_size. */
struct lite_ioc_register {
	__u32	port;
	__u32	max_size;	/* 1 .. LITE_RPC_MAX_MSG */
	char	name[LITE_NAME_MAX];	/* for logs; NUL-terminated */
};

/* Is @port registered on @node? Sets up this node's ring there. */
struct lite_ioc_query_port {
	__u32	node;
	__u32	port;
	__u32	max_size;	/* out: the port's max_size */
	__u32	reserved;
};

/*
 * CALL: send @size bytes at @addr to (@node, @port) and wait for the
 * reply, copied to @reply_addr (at most @reply_max bytes; its length goes
 * to @reply_len). SEND: one-way, reply fields must be zero.
 */
struct lite_ioc_rpc_call {
	__u32	node;
	__u32	port;
	__u64	addr;
	__u32	size;		/* 1 .. LITE_RPC_MAX_MSG */
	__u32	priority;	/* LITE_PRIO_* */
	__u64	reply_addr;
	__u32	reply_max;
	__u32	reply_len;	/* out */
};

/*
 * MCALL: send one request (@size bytes at @addr) to port @port of each of
 * @nr nodes and wait for every reply (the original's multicast
 * send-reply). All requests are posted before any reply is waited for.
 * @dsts points to @nr entries; the reply of dsts[i] goes to @reply_addr +
 * i * @reply_max. The ioctl returns how many destinations succeeded
 * (status 0); each entry gets its own status:
 *   0             replied: reply_len bytes at its slot
 *   -ENOTCONN     not a member, left during the call, or this node itself
 *   -ECONNREFUSED the port is not registered there
 *   -ETIMEDOUT    no reply within rpc_timeout_ms (from the last post)
 *   -EMSGSIZE     the request exceeds the port's max_size there, or the
 *                 reply exceeds @reply_max
 *   -EDQUOT, -ENOMEM, -EIO, -EFAULT (the reply slot cannot be written)
 * Whole-call errors (entries untouched): EINVAL (@nr 0 or above
 * LITE_MCAST_MAX, a node id out of range or given twice, a reserved field
 * set, size 0, bad priority), EMSGSIZE (size above LITE_RPC_MAX_MSG),
 * EFAULT (the entries, the request or the reply slots), EINTR (a signal:
 * replies received are dropped). The request is read once: every node
 * gets the same bytes.
 */
#define LITE_MCAST_MAX		16	/* destinations of one MCALL */
struct lite_ioc_mcall_dst {
	__u32	node;
	__s32	status;		/* out: 0 or a negative errno */
	__u32	reply_len;	/* out */
	__u32	reserved;
};

struct lite_ioc_rpc_mcall {
	__u64	dsts;		/* user pointer: struct lite_ioc_mcall_dst[nr] */
	__u32	nr;		/* 1 .. LITE_MCAST_MAX */
	__u32	port;
	__u64	addr;
	__u32	size;		/* 1 .. LITE_RPC_MAX_MSG */
	__u32	priority;	/* LITE_PRIO_* */
	__u64	reply_addr;	/* nr x reply_max bytes */
	__u32	reply_max;	/* 0 .. LITE_RPC_MAX_MSG */
	__u32	reserved;
};

/* Wait for the next request on a port this open file registered. */
#define LITE_RECV_NONBLOCK	0x1
#define LITE_DESC_NO_REPLY	(~0ULL)	/* descriptor of a one-way message */
struct lite_ioc_rpc_recv {
	__u32	port;
	__u32	flags;		/* LITE_RECV_* */
	__u64	addr;
	__u32	size;		/* room at @addr */
	__u32	len;		/* out: the request's length */
	__u64	descriptor;	/* out: for REPLY, or LITE_DESC_NO_REPLY */
	__u32	src_node;	/* out: the sender */
	__u32	priority;	/* LITE_PRIO_* (the wait's, not the message's) */
};

/* Reply to a received request, once. */
struct lite_ioc_rpc_reply {
	__u64	descriptor;
	__u64	addr;
	__u32	size;		/* 0 .. the caller's reply_max */
	__u32	priority;
};

/* Reply, then receive the next request: the two structs in one call. */
struct lite_ioc_rpc_reply_recv {
	struct lite_ioc_rpc_reply	reply;
	struct lite_ioc_rpc_recv	recv;
};

/*
 * Atomics on the 8 bytes at @offset (8-aligned) of an atomic LMR. Where
 * the devices support RDMA atomics they run on the owner's NIC (RDMA
 * atomic work requests, never the owner's CPU); otherwise on the owner's
 * CPU. Every atomic on one LMR runs in the same place, so they are atomic
 * with respect to each other, not to plain writes of the same bytes.
 * ETIMEDOUT or EIO from an atomic leave its outcome unknown; a SWAP
 * that kept losing to other atomics fails with EBUSY, unchanged.
 */
#define LITE_ATOMIC_FETCH_ADD	1	/* *p += value */
#define LITE_ATOMIC_CMP_SWP	2	/* if (*p == compare) *p = value */
#define LITE_ATOMIC_SWAP	3	/* *p = value */
struct lite_ioc_atomic {
	__u32	handle;		/* needs READ, WRITE and ATOMIC */
	__u32	op;		/* LITE_ATOMIC_* */
	__u64	offset;
	__u64	value;
	__u64	compare;
	__u64	old;		/* out: the value before */
	__s32	password;
	__u32	reserved;
};

/*
 * Distributed locks live on a node and are numbered there. A lock belongs
 * to the user that created it; it is held by an open file, and closing it
 * (or its node leaving) releases its locks. Waiters are served in arrival
 * order. LOCK_DESTROY frees a lock nobody holds or waits for.
 */
struct lite_ioc_lock {
	__u32	node;
	__u32	lock;		/* CREATE: out; the others: in */
	__u32	reserved[2];
};

/* Block until @nr callers of this user (on any nodes) reached the barrier. */
struct lite_ioc_barrier {
	__u32	nr;		/* 1 .. 1024 */
	__u32	reserved;
};

/*
 * Reads and writes posted without waiting (POST), reaped later (POLL). An
 * open file may have LITE_IOC_POST'ed at most the module's async_max
 * (default 1024) operations, moving at most async_max_mb (default 64) MiB,
 * not yet reaped; one more gets EAGAIN (reap, then retry). Over all its
 * open files a user may have user_async_mb (default 256) MiB posted and
 * unreaped; past that POST fails with EDQUOT. POST
 * checks the handle, password, permission and range like READ/WRITE (same
 * errnos), and fails with EINVAL for size 0 or above LITE_ASYNC_MAX_SIZE
 * or an unknown op; on failure nothing is queued.
 *
 * Memory: a write's data is copied when it is posted (the buffer is free
 * at once). A read's data lands in a kernel buffer and is copied to @addr
 * when its completion is reaped, by POLL or the fence, only by a process
 * with the poster's address space: @addr must still be writable then
 * (else that completion's status is EFAULT). Reaped by any other process
 * (the file passed on, a child after fork, the poster after exec) its
 * status is EACCES and nothing is written. Until then @addr is not
 * touched.
 *
 * Completion status: 0, or EKEYREVOKED (revoked before it was sent),
 * ENOTCONN, EIO (the transfer failed, e.g. the owner left meanwhile),
 * EFAULT (a read's destination was not writable at reap), EACCES (a read
 * reaped by another process than its poster), ENOMEM. An
 * owner that frees the LMR waits until the operations already sent
 * completed; later POSTs get EKEYREVOKED. Closing the file waits (bounded
 * by op_timeout_ms) for what is in flight and drops unreaped completions.
 */
#define LITE_ASYNC_MAX_SIZE	(1U << 20)
#define LITE_POST_READ		1
#define LITE_POST_WRITE		2
struct lite_ioc_post {
	__u32	handle;
	__s32	password;
	__u64	offset;
	__u64	size;		/* 1 .. LITE_ASYNC_MAX_SIZE */
	__u64	addr;		/* user pointer */
	__u64	id;		/* the caller's cookie, given back by POLL */
	__u32	op;		/* LITE_POST_* */
	__u32	reserved;
};

struct lite_completion {
	__u64	id;		/* as posted */
	__s32	status;		/* 0 or a negative errno */
	__u32	reserved;
};

/*
 * POLL: wait until a completion can be reaped (or nothing is in flight),
 * at most @timeout_ms (0: do not wait, negative: until a signal, EINTR),
 * then reap up to @max into the array at @addr; @nr says how many (0 when
 * the time ran out). With LITE_POLL_FENCE (and @max 0): wait until
 * nothing this file posted is in flight, then reap every completion; the
 * ioctl then fails with the first failed operation's errno, if any, or
 * ETIMEDOUT when the time ran out first (nothing reaped). @outstanding:
 * posted and not yet reaped, after the call.
 */
#define LITE_POLL_FENCE		0x1
struct lite_ioc_poll {
	__u64	addr;		/* struct lite_completion[@max] */
	__u32	max;		/* 0 .. 4096 */
	__s32	timeout_ms;
	__u32	flags;		/* LITE_POLL_* */
	__u32	nr;		/* out */
	__u32	outstanding;	/* out */
	__u32	reserved;
};

#define LITE_IOC_JOIN		_IOWR(LITE_IOC_MAGIC, 1, struct lite_ioc_join)
#define LITE_IOC_CLUSTER	_IOWR(LITE_IOC_MAGIC, 2, struct lite_ioc_cluster)
#define LITE_IOC_ALLOC		_IOWR(LITE_IOC_MAGIC, 3, struct lite_ioc_alloc)
#define LITE_IOC_FREE		_IOW(LITE_IOC_MAGIC, 4, struct lite_ioc_handle)
#define LITE_IOC_UNMAP		_IOW(LITE_IOC_MAGIC, 5, struct lite_ioc_handle)
#define LITE_IOC_WRITE		_IOW(LITE_IOC_MAGIC, 6, struct lite_ioc_rw)
#define LITE_IOC_READ		_IOW(LITE_IOC_MAGIC, 7, struct lite_ioc_rw)
#define LITE_IOC_MEMSET		_IOW(LITE_IOC_MAGIC, 8, struct lite_ioc_memset)
#define LITE_IOC_MEMCPY		_IOW(LITE_IOC_MAGIC, 9, struct lite_ioc_memcpy)
#define LITE_IOC_MEMMOVE	_IOW(LITE_IOC_MAGIC, 10, struct lite_ioc_memcpy)
#define LITE_IOC_PUBLISH	_IOW(LITE_IOC_MAGIC, 11, struct lite_ioc_publish)
#define LITE_IOC_ASK		_IOWR(LITE_IOC_MAGIC, 12, struct lite_ioc_ask)
#define LITE_IOC_LMR_INFO	_IOWR(LITE_IOC_MAGIC, 13, struct lite_ioc_lmr_info)
#define LITE_IOC_REGISTER	_IOW(LITE_IOC_MAGIC, 14, struct lite_ioc_register)
#define LITE_IOC_QUERY_PORT	_IOWR(LITE_IOC_MAGIC, 15, struct lite_ioc_query_port)
#define LITE_IOC_CALL		_IOWR(LITE_IOC_MAGIC, 16, struct lite_ioc_rpc_call)
#define LITE_IOC_SEND		_IOW(LITE_IOC_MAGIC, 17, struct lite_ioc_rpc_call)
#define LITE_IOC_RECV		_IOWR(LITE_IOC_MAGIC, 18, struct lite_ioc_rpc_recv)
#define LITE_IOC_REPLY		_IOW(LITE_IOC_MAGIC, 19, struct lite_ioc_rpc_reply)
#define LITE_IOC_REPLY_RECV	_IOWR(LITE_IOC_MAGIC, 20, struct lite_ioc_rpc_reply_recv)
#define LITE_IOC_ATOMIC		_IOWR(LITE_IOC_MAGIC, 21, struct lite_ioc_atomic)
#define LITE_IOC_LOCK_CREATE	_IOWR(LITE_IOC_MAGIC, 22, struct lite_ioc_lock)
#define LITE_IOC_LOCK_ASK	_IOW(LITE_IOC_MAGIC, 23, struct lite_ioc_lock)
#define LITE_IOC_LOCK		_IOW(LITE_IOC_MAGIC, 24, struct lite_ioc_lock)
#define LITE_IOC_UNLOCK		_IOW(LITE_IOC_MAGIC, 25, struct lite_ioc_lock)
#define LITE_IOC_BARRIER	_IOW(LITE_IOC_MAGIC, 26, struct lite_ioc_barrier)
#define LITE_IOC_LOCK_DESTROY	_IOW(LITE_IOC_MAGIC, 27, struct lite_ioc_lock)
#define LITE_IOC_POST		_IOW(LITE_IOC_MAGIC, 28, struct lite_ioc_post)
#define LITE_IOC_POLL		_IOWR(LITE_IOC_MAGIC, 29, struct lite_ioc_poll)
#define LITE_IOC_MCALL		_IOW(LITE_IOC_MAGIC, 30, struct lite_ioc_rpc_mcall)

/*
 * mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) gives
 * page-aligned memory the module can DMA to and from without copying
 * (alloc_memory); READ/WRITE on it skip the bounce buffer.
 */

#endif /* _UAPI_LITE_H */
