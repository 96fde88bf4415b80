// SPDX-License-Identifier: GPL-2.0
/*
 * The exported kernel API (include/lite_kapi.h): thin wrappers over api.c
 * with the kernel's own context, named after the original LITE's calls.
 */
#include <linux/module.h>
#include <linux/uio.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "../include/lite_kapi.h"

/**
 * liteapi_establish_conn_key() - join the cluster whose manager is at
 * @ip:@port
 * @ip: the manager's IPv4 address, as text
 * @port: its TCP port
 * @ib_port: the RDMA port; 0 for the module parameter
 * @key: the cluster key, LITE_KEY_LEN (32) bytes
 *
 * Return: this node's id, or a negative errno (-EISCONN when joined,
 * -EACCES when the manager has another key).
 */
int liteapi_establish_conn_key(const char *ip, int port, int ib_port,
			       const u8 *key)
{
	u32 id;
	int ret;

	if (!ip || !key || port <= 0 || port > U16_MAX || ib_port < 0)
		return -EINVAL;
	ret = lite_membership_join(ip, port, ib_port, key, &id);
	return ret ? ret : id;
}
EXPORT_SYMBOL_GPL(liteapi_establish_conn_key);

/**
 * liteapi_establish_conn() - the original call, which has no key
 * @ip: the manager's IPv4 address, as text
 * @port: its TCP port
 * @ib_port: the RDMA port
 *
 * The manager admits only nodes that know the cluster key: use
 * liteapi_establish_conn_key(), or join from user space (lite-join).
 *
 * Return: -ENOKEY.
 */
int liteapi_establish_conn(const char *ip, int port, int ib_port)
{
	return -ENOKEY;
}
EXPORT_SYMBOL_GPL(liteapi_establish_conn);

/**
 * liteapi_get_node_id() - this node's id
 *
 * Return: the id (1..63), or 0 when not joined.
 */
int liteapi_get_node_id(void)
{
	return lite_node_id();
}
EXPORT_SYMBOL_GPL(liteapi_get_node_id);

/**
 * liteapi_get_total_node() - nodes this one reaches, itself included
 *
 * Return: the count, 0 when not joined.
 */
int liteapi_get_total_node(void)
{
	u64 connected;

	return lite_nr_nodes(&connected);
}
EXPORT_SYMBOL_GPL(liteapi_get_total_node);

/**
 * liteapi_alloc_remote_mem() - allocate an LMR on a node
 * @node_id: the node (this node's id: local memory)
 * @size: 1..LITE_LMR_MAX_SIZE bytes
 * @atomic_flag: for atomic operations
 * @password: what data operations on the handle must present
 *
 * Return: the handle (> 0), or a negative errno.
 */
int liteapi_alloc_remote_mem(unsigned int node_id, u64 size, bool atomic_flag,
			     int password)
{
	u32 id;
	int ret;

	ret = lite_api_alloc(lite_kernel_ctx, node_id, size,
			     atomic_flag ? LITE_ALLOC_ATOMIC : 0, password, &id);
	return ret ? ret : id;
}
EXPORT_SYMBOL_GPL(liteapi_alloc_remote_mem);

static int lite_kapi_rw(unsigned int lh, void *buf, u64 size, int priority,
			u64 offset, int password, bool write)
{
	struct kvec kv = { .iov_base = buf, .iov_len = size };
	struct iov_iter iter;

	if (priority < LITE_PRIO_NORMAL || priority > LITE_PRIO_LOW)
		return -EINVAL;
	if (size > LITE_LMR_MAX_SIZE)
		return -ERANGE;
	iov_iter_kvec(&iter, write ? ITER_SOURCE : ITER_DEST, &kv, 1, size);
	return lite_api_rw(lite_kernel_ctx, lh, password, offset, &iter, size,
			   write, priority);
}

/**
 * liteapi_rdma_write_offset() - write into an LMR
 * @lite_handler: the handle
 * @local_addr: the data (any kernel memory: it is copied)
 * @size: bytes
 * @priority: LITE_PRIO_*
 * @offset: where in the LMR
 * @password: the handle's password
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_write_offset(unsigned int lite_handler, const void *local_addr,
			      u64 size, int priority, u64 offset, int password)
{
	return lite_kapi_rw(lite_handler, (void *)local_addr, size, priority,
			    offset, password, true);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_write_offset);

/**
 * liteapi_rdma_read_offset() - read from an LMR
 * @lite_handler: the handle
 * @local_addr: where the data goes
 * @size: bytes
 * @priority: LITE_PRIO_*
 * @offset: where in the LMR
 * @password: the handle's password
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_read_offset(unsigned int lite_handler, void *local_addr,
			     u64 size, int priority, u64 offset, int password)
{
	return lite_kapi_rw(lite_handler, local_addr, size, priority, offset,
			    password, false);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_read_offset);

/* A posted read or write of the kernel's context; @addr is kernel memory. */
static int lite_kapi_post(unsigned int handle, void *addr, u64 size,
			  u64 offset, int password, u64 id, bool write)
{
	if (!addr)
		return -EINVAL;
	return lite_api_post(lite_kernel_ctx, handle, password, offset,
			     (uintptr_t)addr, true, size, write, id);
}

/**
 * liteapi_rdma_write_async() - post a write into an LMR without waiting
 * (the original's liteapi_rdma_asywrite_offset)
 * @lite_handler: the handle (needs WRITE)
 * @local_addr: the data, copied before this returns
 * @size: 1..LITE_ASYNC_MAX_SIZE bytes
 * @offset: where in the LMR
 * @password: the handle's password
 * @id: the caller's cookie, reported with the completion
 *
 * The kernel API has one queue for every module using it (like its
 * handles): liteapi_poll() may return another module's completions, which
 * the cookies tell apart. At most the module's async_max operations may be
 * posted and not yet reaped.
 *
 * Return: 0 (the completion will be queued) or a negative errno (nothing
 * queued; -EAGAIN when the queue is full).
 */
int liteapi_rdma_write_async(unsigned int lite_handler, const void *local_addr,
			     u64 size, u64 offset, int password, u64 id)
{
	return lite_kapi_post(lite_handler, (void *)local_addr, size, offset,
			      password, id, true);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_write_async);

/**
 * liteapi_rdma_read_async() - post a read from an LMR without waiting
 * (the original's liteapi_rdma_asyread_offset)
 * @lite_handler: the handle (needs READ)
 * @local_addr: where the data goes, when the completion is reaped by
 *	liteapi_poll() or liteapi_fence(): it must stay valid until then
 * @size: 1..LITE_ASYNC_MAX_SIZE bytes
 * @offset: where in the LMR
 * @password: the handle's password
 * @id: the caller's cookie, reported with the completion
 *
 * Return: 0 (the completion will be queued) or a negative errno (nothing
 * queued; -EAGAIN when the queue is full).
 */
int liteapi_rdma_read_async(unsigned int lite_handler, void *local_addr,
			    u64 size, u64 offset, int password, u64 id)
{
	return lite_kapi_post(lite_handler, local_addr, size, offset, password,
			      id, false);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_read_async);

/**
 * liteapi_poll() - reap completions of posted reads and writes
 * @out: room for @max completions (id, status: 0 or a negative errno)
 * @max: at most this many
 * @timeout_ms: wait at most this long for the first (0: not at all;
 *	negative: until a signal)
 *
 * A read's data is copied to its destination here.
 *
 * Return: how many were reaped (0 when none came in time), or -EINTR.
 */
int liteapi_poll(struct lite_completion *out, unsigned int max, int timeout_ms)
{
	if (!out && max)
		return -EINVAL;
	return lite_api_poll(lite_kernel_ctx, out, max, timeout_ms);
}
EXPORT_SYMBOL_GPL(liteapi_poll);

/**
 * liteapi_fence() - wait until no posted read or write is in flight, and
 * reap them all (the original's liteapi_rdma_asyfence)
 * @timeout_ms: as for liteapi_poll()
 *
 * Return: 0, the first failed operation's status, -ETIMEDOUT (nothing
 * reaped) or -EINTR.
 */
int liteapi_fence(int timeout_ms)
{
	return lite_api_fence(lite_kernel_ctx, timeout_ms);
}
EXPORT_SYMBOL_GPL(liteapi_fence);

/**
 * liteapi_remote_memset() - set a range of an LMR to a byte value
 * @lite_handler: the handle (needs WRITE)
 * @offset: first byte
 * @value: 0..255
 * @size: bytes
 *
 * Return: 0 or a negative errno.
 */
int liteapi_remote_memset(unsigned int lite_handler, u64 offset, int value,
			  u64 size)
{
	if (value < 0)
		return -EINVAL;
	return lite_api_memset(lite_kernel_ctx, lite_handler, offset, value, size);
}
EXPORT_SYMBOL_GPL(liteapi_remote_memset);

/**
 * liteapi_rdma_mr_memcpy() - copy between two LMRs, on any nodes
 * @dst: destination handle (needs WRITE)
 * @dst_offset: where in it
 * @src: source handle (needs READ)
 * @src_offset: where in it
 * @size: bytes
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_mr_memcpy(unsigned int dst, u64 dst_offset, unsigned int src,
			   u64 src_offset, u64 size)
{
	return lite_api_memcpy(lite_kernel_ctx, dst, dst_offset, src, src_offset,
			       size);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_mr_memcpy);

/**
 * liteapi_rdma_mr_memmov() - liteapi_rdma_mr_memcpy() for overlapping
 * ranges of one LMR (the same call: both handle overlap)
 * @dst: destination handle (needs WRITE)
 * @dst_offset: where in it
 * @src: source handle (needs READ)
 * @src_offset: where in it
 * @size: bytes
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_mr_memmov(unsigned int dst, u64 dst_offset, unsigned int src,
			   u64 src_offset, u64 size)
{
	return lite_api_memcpy(lite_kernel_ctx, dst, dst_offset, src, src_offset,
			       size);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_mr_memmov);

/**
 * liteapi_add_askmr_table() - publish an LMR under @identifier
 * @identifier: the name askers use, unique on the LMR's node
 * @lite_handler: the handle (needs SHARE)
 * @permission: the most an asker gets (READ, WRITE, SHARE, ATOMIC bits)
 * @password: what askers must present
 *
 * Return: 0 or a negative errno.
 */
int liteapi_add_askmr_table(u64 identifier, unsigned int lite_handler,
			    u32 permission, int password)
{
	return lite_api_publish(lite_kernel_ctx, lite_handler, identifier,
				permission, password);
}
EXPORT_SYMBOL_GPL(liteapi_add_askmr_table);

/**
 * liteapi_ask_mr() - map an LMR that @memory_node published
 * @memory_node: the node
 * @identifier: the name it was published under
 * @permission: the permissions wanted
 * @password: the publication's password
 *
 * Return: a handle (> 0), or a negative errno.
 */
int liteapi_ask_mr(unsigned int memory_node, u64 identifier, u32 permission,
		   int password)
{
	u32 id;
	int ret;

	ret = lite_api_ask(lite_kernel_ctx, memory_node, identifier, permission,
			   password, &id);
	return ret ? ret : id;
}
EXPORT_SYMBOL_GPL(liteapi_ask_mr);

/**
 * liteapi_deregister_mr() - free an LMR (needs ADMIN): every mapping of it,
 * on every node, is revoked
 * @lite_handler: the handle
 *
 * Return: 0 or a negative errno.
 */
int liteapi_deregister_mr(unsigned int lite_handler)
{
	return lite_api_free(lite_kernel_ctx, lite_handler);
}
EXPORT_SYMBOL_GPL(liteapi_deregister_mr);

/**
 * liteapi_umap_lmr() - drop a handle; the LMR stays
 * @lite_handler: the handle
 *
 * Return: 0 or a negative errno.
 */
int liteapi_umap_lmr(unsigned int lite_handler)
{
	return lite_api_unmap(lite_kernel_ctx, lite_handler);
}
EXPORT_SYMBOL_GPL(liteapi_umap_lmr);

static struct iov_iter *lite_kvec_iter(struct iov_iter *iter, struct kvec *kv,
				       const void *buf, u32 size, bool source)
{
	kv->iov_base = (void *)buf;
	kv->iov_len = size;
	iov_iter_kvec(iter, source ? ITER_SOURCE : ITER_DEST, kv, 1, size);
	return iter;
}

/**
 * liteapi_register_application() - receive RPCs sent to @port on this node
 * @port: 0 .. LITE_MAX_PORT - 1
 * @max_size_per_message: largest request accepted (at most LITE_RPC_MAX_MSG)
 * @name: for logs
 *
 * The kernel's context owns the port until lite.ko is unloaded.
 * Return: 0, -EINVAL, or -EADDRINUSE.
 */
int liteapi_register_application(unsigned int port,
				 unsigned int max_size_per_message,
				 const char *name)
{
	return lite_rpc_register(lite_kernel_ctx, port, max_size_per_message,
				 name);
}
EXPORT_SYMBOL_GPL(liteapi_register_application);

/**
 * liteapi_query_port() - is @port registered on @node?
 * @node: the node
 * @port: the port
 *
 * Return: the port's largest request size, or a negative errno.
 */
int liteapi_query_port(unsigned int node, unsigned int port)
{
	u32 max_size;
	int ret = lite_rpc_query_port(node, port, &max_size);

	return ret ? ret : max_size;
}
EXPORT_SYMBOL_GPL(liteapi_query_port);

/**
 * liteapi_send_reply_imm() - RPC: send a request and wait for the reply
 * @node: the receiver
 * @port: its port
 * @addr: the request
 * @size: its length, 1 .. LITE_RPC_MAX_MSG
 * @ret_addr: where the reply goes
 * @max_ret_size: room at @ret_addr
 * @priority: LITE_PRIO_*
 *
 * Return: the reply's length, or a negative errno (-ETIMEDOUT after
 * rpc_timeout_ms, -ENOTCONN when @node leaves, -EMSGSIZE, -ECONNREFUSED).
 */
int liteapi_send_reply_imm(unsigned int node, unsigned int port,
			   const void *addr, unsigned int size, void *ret_addr,
			   unsigned int max_ret_size, int priority)
{
	struct iov_iter src, dst;
	struct kvec ks, kd;

	return lite_rpc_call(NULL, node, port,
			     lite_kvec_iter(&src, &ks, addr, size, true), size,
			     lite_kvec_iter(&dst, &kd, ret_addr, max_ret_size,
					    false),
			     max_ret_size, priority);
}
EXPORT_SYMBOL_GPL(liteapi_send_reply_imm);

/**
 * liteapi_send_reply_imm_multicast() - RPC to several nodes at once
 * @nr_nodes: how many, 1 .. LITE_MCAST_MAX
 * @nodes: their ids, none twice
 * @port: the port, the same on every node
 * @addr: the request, sent to each
 * @size: its length, 1 .. LITE_RPC_MAX_MSG
 * @ret_addr: @nr_nodes slots of @max_ret_size bytes: node i's reply goes
 *	to @ret_addr + i * @max_ret_size
 * @max_ret_size: room in each slot
 * @ret_len: out: the length of each reply (0 where it failed)
 * @status: out: 0 or a negative errno for each node (-ENOTCONN,
 *	-ECONNREFUSED, -ETIMEDOUT, -EMSGSIZE, ...)
 * @priority: LITE_PRIO_*
 *
 * The original's liteapi_send_reply_imm_multisge(), with one request for
 * all. Every request is posted before any reply is waited for; one node
 * failing does not fail the others. @ret_len and @status are written only
 * when the call returns >= 0.
 *
 * Return: how many nodes replied, or a negative errno for the whole call
 * (-EINVAL: @nr_nodes out of range, a node id out of range or repeated).
 */
int liteapi_send_reply_imm_multicast(unsigned int nr_nodes,
				     const unsigned int *nodes,
				     unsigned int port, const void *addr,
				     unsigned int size, void *ret_addr,
				     unsigned int max_ret_size,
				     unsigned int *ret_len, int *status,
				     int priority)
{
	struct lite_rpc_mdst *dsts;
	struct iov_iter src;
	struct kvec ks;
	unsigned int i;
	int ret;

	if (!nr_nodes || nr_nodes > LITE_MCAST_MAX)
		return -EINVAL;
	dsts = kcalloc(nr_nodes, sizeof(*dsts), GFP_KERNEL);
	if (!dsts)
		return -ENOMEM;
	for (i = 0; i < nr_nodes; i++) {
		dsts[i].node = nodes[i];
		lite_kvec_iter(&dsts[i].dst, &dsts[i].kv,
			       ret_addr + (size_t)i * max_ret_size,
			       max_ret_size, false);
	}
	ret = lite_rpc_mcall(NULL, dsts, nr_nodes, port,
			     lite_kvec_iter(&src, &ks, addr, size, true), size,
			     max_ret_size, priority);
	for (i = 0; ret >= 0 && i < nr_nodes; i++) {
		status[i] = dsts[i].status;
		ret_len[i] = dsts[i].len;
	}
	kfree(dsts);
	return ret;
}
EXPORT_SYMBOL_GPL(liteapi_send_reply_imm_multicast);

/**
 * liteapi_send_message() - one-way RPC message
 * @node: the receiver
 * @port: its port
 * @addr: the message
 * @size: its length, 1 .. LITE_RPC_MAX_MSG
 * @priority: LITE_PRIO_*
 *
 * Return: 0 once it is sent, or a negative errno.
 */
int liteapi_send_message(unsigned int node, unsigned int port,
			 const void *addr, unsigned int size, int priority)
{
	struct iov_iter src;
	struct kvec ks;

	return lite_rpc_send(node, port, lite_kvec_iter(&src, &ks, addr, size, true),
			     size, priority);
}
EXPORT_SYMBOL_GPL(liteapi_send_message);

/**
 * liteapi_receive_message() - take the next request on @port
 * @port: a port the kernel registered
 * @ret_addr: where the request goes
 * @receive_size: room at @ret_addr
 * @descriptor: out: for liteapi_reply_message(), or LITE_DESC_NO_REPLY
 * @block_call: wait for a request (else -EAGAIN when none is queued)
 *
 * Return: the request's length, or a negative errno.
 */
int liteapi_receive_message(unsigned int port, void *ret_addr,
			    unsigned int receive_size, u64 *descriptor,
			    int block_call)
{
	struct iov_iter dst;
	struct kvec kd;
	u32 src_node;

	return lite_rpc_recv(lite_kernel_ctx, port,
			     lite_kvec_iter(&dst, &kd, ret_addr, receive_size,
					    false),
			     receive_size, !block_call, descriptor, &src_node);
}
EXPORT_SYMBOL_GPL(liteapi_receive_message);

/**
 * liteapi_reply_message() - reply to a request, once
 * @addr: the reply
 * @size: its length, at most the caller's room
 * @descriptor: from liteapi_receive_message()
 * @priority: LITE_PRIO_*
 *
 * Return: 0, -EALREADY, -EMSGSIZE, or another negative errno.
 */
int liteapi_reply_message(const void *addr, unsigned int size, u64 descriptor,
			  int priority)
{
	struct iov_iter src;
	struct kvec ks;

	return lite_rpc_reply(lite_kernel_ctx, descriptor,
			      lite_kvec_iter(&src, &ks, addr, size, true), size,
			      priority);
}
EXPORT_SYMBOL_GPL(liteapi_reply_message);

static int lite_kapi_atomic(unsigned int lh, u32 op, u64 value, u64 compare,
			    u64 *old, int password)
{
	return lite_api_atomic(lite_kernel_ctx, lh, password, op, 0, value,
			       compare, old);
}

/**
 * liteapi_rdma_fetch_and_add() - atomically add to the first 8 bytes of an
 * atomic LMR
 * @lite_handler: a handle with READ, WRITE and ATOMIC
 * @input_value: the addend
 * @old: out: the value before
 * @password: the handle's password
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_fetch_and_add(unsigned int lite_handler, u64 input_value,
			       u64 *old, int password)
{
	return lite_kapi_atomic(lite_handler, LITE_ATOMIC_FETCH_ADD,
				input_value, 0, old, password);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_fetch_and_add);

/**
 * liteapi_rdma_compare_and_swp() - atomic compare-and-swap on the first 8
 * bytes of an atomic LMR
 * @lite_handler: a handle with READ, WRITE and ATOMIC
 * @guess_value: the expected value
 * @set_value: stored when the expected value is there
 * @old: out: the value before (== @guess_value when it was swapped)
 * @password: the handle's password
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_compare_and_swp(unsigned int lite_handler, u64 guess_value,
				 u64 set_value, u64 *old, int password)
{
	return lite_kapi_atomic(lite_handler, LITE_ATOMIC_CMP_SWP, set_value,
				guess_value, old, password);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_compare_and_swp);

/**
 * liteapi_rdma_swp() - atomically exchange the first 8 bytes of an atomic
 * LMR
 * @lite_handler: a handle with READ, WRITE and ATOMIC
 * @set_value: the value to store
 * @old: out: the value before
 * @password: the handle's password
 *
 * Return: 0 or a negative errno.
 */
int liteapi_rdma_swp(unsigned int lite_handler, u64 set_value, u64 *old,
		     int password)
{
	return lite_kapi_atomic(lite_handler, LITE_ATOMIC_SWAP, set_value, 0,
				old, password);
}
EXPORT_SYMBOL_GPL(liteapi_rdma_swp);

/**
 * liteapi_create_lock() - create a distributed lock on @node
 * @node: its home
 *
 * Return: the lock's number on @node, or a negative errno.
 */
int liteapi_create_lock(unsigned int node)
{
	u32 id;
	int ret = lite_lock_create(lite_kernel_ctx, node, &id);

	return ret ? ret : id;
}
EXPORT_SYMBOL_GPL(liteapi_create_lock);

/**
 * liteapi_ask_lock() - check that lock @id exists on @node
 * @node: its home
 * @id: its number
 *
 * Return: 0 or a negative errno (-ENOENT).
 */
int liteapi_ask_lock(unsigned int node, unsigned int id)
{
	return lite_lock_ask(lite_kernel_ctx, node, id);
}
EXPORT_SYMBOL_GPL(liteapi_ask_lock);

/**
 * liteapi_lock() - take a lock, in arrival order, for the kernel's context
 * @node: its home
 * @id: its number
 *
 * Return: 0, -EDEADLK, -EINTR, -ENOTCONN (the home left), or -ENOENT.
 */
int liteapi_lock(unsigned int node, unsigned int id)
{
	return lite_lock(lite_kernel_ctx, node, id);
}
EXPORT_SYMBOL_GPL(liteapi_lock);

/**
 * liteapi_unlock() - release a lock the kernel's context holds
 * @node: its home
 * @id: its number
 *
 * Return: 0, -EPERM (not held), or another negative errno.
 */
int liteapi_unlock(unsigned int node, unsigned int id)
{
	return lite_unlock(lite_kernel_ctx, node, id);
}
EXPORT_SYMBOL_GPL(liteapi_unlock);

/**
 * liteapi_dist_barrier() - wait until @num callers reached the barrier
 * @num: 1 .. 1024, the same on every caller
 *
 * Return: 0 or a negative errno.
 */
int liteapi_dist_barrier(unsigned int num)
{
	return lite_barrier(lite_kernel_ctx, num);
}
EXPORT_SYMBOL_GPL(liteapi_dist_barrier);
