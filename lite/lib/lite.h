/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * liblite: user-space access to LITE memory regions (LMRs), RPC, atomics,
 * locks and the barrier through /dev/lite. The constants (LITE_PERM_*,
 * LITE_PRIO_*, LITE_ALLOC_ATOMIC, LITE_LMR_MAX_SIZE, LITE_RPC_MAX_MSG,
 * LITE_MAX_PORT, LITE_RECV_NONBLOCK, LITE_DESC_NO_REPLY) and the meaning of
 * each errno come from the ioctl ABI, <uapi/lite.h>, included below.
 *
 * The library opens /dev/lite on first use and keeps it open for the life
 * of the process. Handles ("lh") belong to that open file: they are valid
 * in every thread, vanish at exit (the LMRs this process allocated are
 * freed), and are shared with a child created by fork().
 *
 * Every int-returning call returns >= 0 on success and a negative errno on
 * failure, and then also sets errno to the positive value.
 */
#ifndef LITE_H
#define LITE_H

#include <stddef.h>
#include <stdint.h>

#include <uapi/lite.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where lite-ae install puts the cluster key (root-only, 64 hex digits). */
#define LITE_KEY_FILE "/etc/lite/cluster.key"

/*
 * Join the cluster whose lite-manager listens on manager_ip:port; ib_port 0
 * picks the module's default. Needs CAP_NET_ADMIN and the cluster key,
 * read from key_file (NULL: LITE_KEY_FILE); a key file others may read or
 * write is refused (EPERM), one that is not 64 hex digits too (EINVAL).
 * The node stays joined after the process exits. Returns this node's id;
 * EACCES when the manager has another key.
 */
int lite_join_key(const char *manager_ip, int port, int ib_port,
		  const char *key_file);

/* lite_join_key() with LITE_KEY_FILE. */
int lite_join(const char *manager_ip, int port, int ib_port);

/* This node's id (> 0), or -ENOTCONN before the node has joined. */
int lite_node_id(void);

/* This node plus the peers it reaches, or -ENOTCONN before joining. */
int lite_nr_nodes(void);

/*
 * Allocate @size bytes on @node (this node's id for local memory); flags
 * is 0 or LITE_ALLOC_ATOMIC. Data operations must present @password.
 * Returns a handle (> 0) with every permission bit.
 */
int lite_alloc(unsigned int node, uint64_t size, unsigned int flags,
	       int password);

/* Free the LMR (needs LITE_PERM_ADMIN); other handles on it are revoked. */
int lite_free(int lh);

/* Drop this handle only; the LMR stays. */
int lite_unmap(int lh);

/* Copy between @buf and the LMR at @offset; prio is a LITE_PRIO_* value. */
int lite_write(int lh, uint64_t offset, const void *buf, uint64_t size,
	       int password, int prio);
int lite_read(int lh, uint64_t offset, void *buf, uint64_t size,
	      int password, int prio);

/*
 * Reads and writes posted without waiting. lite_post_write/lite_post_read
 * start a transfer of 1 .. LITE_ASYNC_MAX_SIZE (1 MiB) bytes and return 0
 * at once; @id is the caller's, given back with the completion. At most
 * the module's async_max (default 1024) operations, of at most
 * async_max_mb (default 64) MiB in all, may be posted and not yet reaped
 * by this process: one more gets -EAGAIN (reap some, then retry).
 * On failure nothing was posted; errors as for lite_read/lite_write.
 *
 * A write's data is copied before lite_post_write returns: @buf may be
 * reused at once. A read's data is copied to @buf when its completion is
 * reaped (lite_poll or lite_fence), so @buf must stay valid and unused
 * until then; it is not touched before. Only the posting process (or its
 * threads) gets it: reaped by another (the descriptor passed on, a child
 * after fork) the completion's status is -EACCES and nothing is written.
 *
 * lite_poll waits up to @timeout_ms (0: not at all; negative: until a
 * signal, -EINTR) for a completion, then reaps up to @max into @out and
 * returns how many (0: none in time, or nothing posted). Each has the id
 * and a status: 0, or a negative errno: -EKEYREVOKED (the LMR was freed
 * before it was sent), -EIO (the transfer failed, e.g. the owner node
 * left), -ENOTCONN, -EFAULT (a read's @buf was not writable at reap),
 * -EACCES (a read reaped by another process than its poster).
 * Freeing an LMR waits until the operations already sent on it completed.
 *
 * lite_fence waits until nothing this process posted is in flight (at
 * most @timeout_ms, as above; -ETIMEDOUT then, with nothing reaped), then
 * reaps every completion without reporting their ids: it returns 0 or the
 * first failed operation's status.
 *
 * Exiting (or closing) with operations in flight is safe: the kernel
 * waits for them and drops their completions.
 */
int lite_post_write(int lh, uint64_t offset, const void *buf, uint64_t size,
		    int password, uint64_t id);
int lite_post_read(int lh, uint64_t offset, void *buf, uint64_t size,
		   int password, uint64_t id);
int lite_poll(struct lite_completion *out, unsigned int max, int timeout_ms);
int lite_fence(int timeout_ms);

/* Set @size bytes at @offset to @byte, converted to unsigned char. */
int lite_memset(int lh, uint64_t offset, int byte, uint64_t size);

/*
 * Copy between two LMRs on any nodes (READ on @src, WRITE on @dst).
 * lite_memmove gives the result of a copy through a temporary buffer when
 * the ranges overlap; lite_memcpy does not promise that.
 */
int lite_memcpy(int dst, uint64_t dst_off, int src, uint64_t src_off,
		uint64_t size);
int lite_memmove(int dst, uint64_t dst_off, int src, uint64_t src_off,
		 uint64_t size);

/*
 * Publish the LMR under @identifier on its owner node (needs SHARE), so
 * that lite_ask() with @password can map it with at most @perm.
 */
int lite_publish(int lh, uint64_t identifier, unsigned int perm,
		 int password);

/* Map what @node published under @identifier; returns the new handle. */
int lite_ask(unsigned int node, uint64_t identifier, unsigned int perm,
	     int password);

/* Owner node, size and permission bits of a handle; any pointer may be NULL. */
int lite_lmr_info(int lh, unsigned int *node, uint64_t *size,
		  unsigned int *perm);

/*
 * Page-aligned memory the module reads and writes without a bounce buffer
 * (the zero-copy path of lite_read/lite_write). @size is rounded up to the
 * page size. Returns NULL and sets errno on failure. Release it with
 * lite_free_buffer() and the same @size.
 */
void *lite_alloc_buffer(size_t size);
int lite_free_buffer(void *buf, size_t size);

/*
 * RPC. A server registers a port (0 .. LITE_MAX_PORT - 1) on its node and
 * receives the requests sent there, each at most the port's max_size; a
 * request that wants an answer comes with a descriptor to reply to once.
 * Messages from one node to one port arrive in the order they were sent.
 * prio is a LITE_PRIO_* value.
 */

/*
 * Register @port on this node for requests of 1 .. @max_size bytes (at
 * most LITE_RPC_MAX_MSG). @name (NULL for none) shows up in the kernel's
 * logs; at most LITE_NAME_MAX - 1 characters. The port belongs to this
 * process until it exits.
 */
int lite_rpc_register(unsigned int port, unsigned int max_size,
		      const char *name);

/* The max_size of @port on @node; -ECONNREFUSED if nothing registered it. */
int lite_rpc_query_port(unsigned int node, unsigned int port);

/*
 * Send @size bytes to (@node, @port) and wait for the reply, copied to
 * @reply (room for @reply_max bytes). Returns the reply's length;
 * -EMSGSIZE when the request exceeds the port's max_size or the reply
 * exceeds @reply_max.
 */
int lite_rpc_call(unsigned int node, unsigned int port, const void *req,
		  unsigned int size, void *reply, unsigned int reply_max,
		  int prio);

/*
 * Multicast call (the original's send-reply to several nodes): send the
 * same @size-byte request to (@nodes[i], @port) for each of @n nodes
 * (1 .. LITE_MCAST_MAX, none twice) and wait for every reply. All
 * requests leave before any reply is waited for, so the calls overlap.
 * @replies holds @n slots of @reply_max bytes: the reply of @nodes[i]
 * goes to (char *)@replies + i * @reply_max, its length to @reply_len[i]
 * and its status to @status[i]: 0, or a negative errno of that node alone
 * (-ENOTCONN: not a member, gone, or this node itself; -ECONNREFUSED: the
 * port is not registered there; -ETIMEDOUT; -EMSGSIZE; ...). One node
 * failing does not fail or hold up the others (beyond the module's
 * rpc_timeout_ms). @reply_len may be NULL.
 * Returns how many nodes replied (status 0), or a negative errno for the
 * whole call, with @reply_len and @status untouched: -EINVAL for @n 0 or
 * above LITE_MCAST_MAX, a node id out of range or repeated; -EINTR.
 */
int lite_rpc_mcall(const unsigned int *nodes, unsigned int n,
		   unsigned int port, const void *req, unsigned int size,
		   void *replies, unsigned int reply_max,
		   unsigned int *reply_len, int *status, int prio);

/* One-way message: its receiver gets LITE_DESC_NO_REPLY as descriptor. */
int lite_rpc_send(unsigned int node, unsigned int port, const void *msg,
		  unsigned int size, int prio);

/*
 * Wait for the next message on @port, which this process registered, and
 * copy it to @buf (room for @size bytes). flags is 0 or LITE_RECV_NONBLOCK.
 * @descriptor (for lite_rpc_reply) and @src_node (the sender) may be NULL.
 * Returns the message's length. Several threads may receive on one port:
 * each message goes to one of them.
 */
int lite_rpc_recv(unsigned int port, void *buf, unsigned int size,
		  uint64_t *descriptor, unsigned int *src_node,
		  unsigned int flags, int prio);

/* Reply to the message behind @descriptor with @size bytes at @buf. */
int lite_rpc_reply(uint64_t descriptor, const void *buf, unsigned int size,
		   int prio);

/*
 * lite_rpc_reply(@descriptor, @rbuf, @rsize) then a blocking
 * lite_rpc_recv(@port, @buf, @size, ...) in one call. Returns the length
 * of the message received.
 */
int lite_rpc_reply_recv(uint64_t descriptor, const void *rbuf,
			unsigned int rsize, unsigned int port, void *buf,
			unsigned int size, uint64_t *next_descriptor,
			unsigned int *src_node, int prio);

/*
 * Atomics on the 8 bytes at @offset (a multiple of 8) of an LMR allocated
 * with LITE_ALLOC_ATOMIC; the handle needs READ, WRITE and ATOMIC. The
 * value before the operation goes to @old (may be NULL).
 */
int lite_fetch_add(int lh, uint64_t offset, uint64_t add, uint64_t *old,
		   int password);
/* Stores @swap if the value equals @compare. */
int lite_compare_swap(int lh, uint64_t offset, uint64_t compare,
		      uint64_t swap, uint64_t *old, int password);
/* Stores @value. */
int lite_swap(int lh, uint64_t offset, uint64_t value, uint64_t *old,
	      int password);

/*
 * Distributed locks live on a node and are numbered there. A lock belongs
 * to the user that created it (another user's calls get -EACCES; root may
 * use any). It is held by this process (any of its threads may unlock it)
 * and released when it exits; waiters get it in arrival order.
 */

/* Create a lock on @node; returns its number there (>= 0). */
int lite_lock_create(unsigned int node);

/* 0 if lock @lock exists on @node, else -ENOENT. */
int lite_lock_ask(unsigned int node, unsigned int lock);

/* -EDEADLK if this process holds it already. */
int lite_lock(unsigned int node, unsigned int lock);

/* -EPERM if this process does not hold it. */
int lite_unlock(unsigned int node, unsigned int lock);

/* Free a lock; -EBUSY while it is held or waited for. */
int lite_lock_destroy(unsigned int node, unsigned int lock);

/*
 * Wait until @nr callers (1 .. 1024) of this user, on any nodes, reached
 * the barrier. Every caller of one barrier must pass the same @nr.
 */
int lite_barrier(unsigned int nr);

#ifdef __cplusplus
}
#endif

#endif /* LITE_H */
