// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The calls of the original LITE user-space library (lite-lib.h), mapped
 * onto lite.h. Where the old types are narrower or signed, the value is
 * checked here so that it cannot wrap into a different valid request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "lite-lib.h"

_Static_assert(IMM_SEND_ONLY_FLAG == LITE_DESC_NO_REPLY,
	       "one-way descriptors are passed through unchanged");

/* For errors found here; the lite_* calls set errno themselves. */
static int compat_err(int err)
{
	errno = -err;
	return err;
}

/*
 * The original atomics pass no password, but the ABI checks the one the
 * handle was made with: remember it for each handle made here, indexed by
 * handle (the kernel hands out the lowest free number). A handle it could
 * not be stored for (out of memory) or made through lite.h gets 0.
 */
static pthread_mutex_t compat_pw_lock = PTHREAD_MUTEX_INITIALIZER;
static int *compat_pw;
static size_t compat_pw_len;

/* Returns @lh, the result of the call that made the handle. */
static int compat_pw_note(int lh, int password)
{
	size_t len;
	int *pw;

	if (lh <= 0)
		return lh;
	pthread_mutex_lock(&compat_pw_lock);
	if ((size_t)lh >= compat_pw_len) {
		len = 2 * (size_t)lh;
		pw = realloc(compat_pw, len * sizeof(*pw));
		if (pw) {
			memset(pw + compat_pw_len, 0,
			       (len - compat_pw_len) * sizeof(*pw));
			compat_pw = pw;
			compat_pw_len = len;
		}
	}
	if ((size_t)lh < compat_pw_len)
		compat_pw[lh] = password;
	pthread_mutex_unlock(&compat_pw_lock);
	return lh;
}

static int compat_pw_of(unsigned long lh)
{
	int password = 0;

	pthread_mutex_lock(&compat_pw_lock);
	if (lh < compat_pw_len)
		password = compat_pw[lh];
	pthread_mutex_unlock(&compat_pw_lock);
	return password;
}

LITE_EXPORT int userspace_liteapi_join(char *ip, int eth_port, int ib_port)
{
	return lite_join(ip, eth_port, ib_port);
}

LITE_EXPORT int userspace_liteapi_get_node_id(void)
{
	return lite_node_id();
}

LITE_EXPORT int userspace_liteapi_get_total_node(void)
{
	return lite_nr_nodes();
}

LITE_EXPORT int userspace_liteapi_alloc_remote_mem(unsigned int node_id,
						   unsigned int size,
						   bool atomic_flag,
						   int password)
{
	return compat_pw_note(lite_alloc(node_id, size,
					 atomic_flag ? LITE_ALLOC_ATOMIC : 0,
					 password),
			      password);
}

LITE_EXPORT int userspace_liteapi_rdma_write(unsigned lite_handler,
					     void *local_addr,
					     unsigned int size,
					     unsigned int offset, int password)
{
	return lite_write(lite_handler, offset, local_addr, size, password,
			  LITE_PRIO_NORMAL);
}

LITE_EXPORT int userspace_liteapi_rdma_write_high(unsigned lite_handler,
						  void *local_addr,
						  unsigned int size,
						  unsigned int offset,
						  int password)
{
	return lite_write(lite_handler, offset, local_addr, size, password,
			  LITE_PRIO_HIGH);
}

LITE_EXPORT int userspace_liteapi_rdma_write_low(unsigned lite_handler,
						 void *local_addr,
						 unsigned int size,
						 unsigned int offset,
						 int password)
{
	return lite_write(lite_handler, offset, local_addr, size, password,
			  LITE_PRIO_LOW);
}

LITE_EXPORT int userspace_liteapi_rdma_read(unsigned lite_handler,
					    void *local_addr, unsigned int size,
					    unsigned int offset, int password)
{
	return lite_read(lite_handler, offset, local_addr, size, password,
			 LITE_PRIO_NORMAL);
}

LITE_EXPORT int userspace_liteapi_rdma_read_high(unsigned lite_handler,
						 void *local_addr,
						 unsigned int size,
						 unsigned int offset,
						 int password)
{
	return lite_read(lite_handler, offset, local_addr, size, password,
			 LITE_PRIO_HIGH);
}

LITE_EXPORT int userspace_liteapi_rdma_read_low(unsigned lite_handler,
						void *local_addr,
						unsigned int size,
						unsigned int offset,
						int password)
{
	return lite_read(lite_handler, offset, local_addr, size, password,
			 LITE_PRIO_LOW);
}

LITE_EXPORT int userspace_liteapi_memset(unsigned lite_handler, int offset,
					 int size)
{
	/* A negative int would become an offset near 2^64, not an error. */
	if (offset < 0 || size < 0)
		return compat_err(-EINVAL);
	return lite_memset(lite_handler, offset, 0, size);
}

LITE_EXPORT int userspace_liteapi_remote_memset(unsigned lite_handler,
						int offset, int size)
{
	return userspace_liteapi_memset(lite_handler, offset, size);
}

LITE_EXPORT int userspace_liteapi_wrap_alloc(void *data, int size,
					     uint64_t identifier, int password)
{
	int node, lh, ret;

	if (size <= 0)
		return compat_err(-EINVAL);
	node = lite_node_id();
	if (node < 0)
		return node;
	lh = lite_alloc(node, size, 0, password);
	if (lh < 0)
		return lh;
	ret = lite_write(lh, 0, data, size, password, LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_publish(lh, identifier,
				   MR_READ_FLAG | MR_WRITE_FLAG, password);
	if (ret < 0) {
		lite_free(lh);
		return compat_err(ret);
	}
	return compat_pw_note(lh, password);
}

LITE_EXPORT int userspace_liteapi_add_ask_mr_table(uint64_t identifier,
						   uint64_t lmr,
						   uint64_t permission,
						   int password)
{
	/* Handles are 32-bit: a wider value names no handle. */
	if (lmr > UINT32_MAX)
		return compat_err(-ENOENT);
	if (permission > UINT_MAX)
		return compat_err(-EINVAL);
	return lite_publish((int)lmr, identifier, (unsigned int)permission,
			    password);
}

LITE_EXPORT int userspace_liteapi_ask_lmr(int memory_node, uint64_t identifier,
					  uint64_t permission, int password)
{
	if (memory_node < 0 || permission > UINT_MAX)
		return compat_err(-EINVAL);
	return compat_pw_note(lite_ask(memory_node, identifier,
				       (unsigned int)permission, password),
			      password);
}

LITE_EXPORT void *userspace_liteapi_alloc_memory(unsigned long size)
{
	return lite_alloc_buffer(size);
}

LITE_EXPORT int stick_this_thread_to_core(int core_id)
{
	cpu_set_t set;
	int ret;

	if (core_id < 0 || core_id >= CPU_SETSIZE)
		return compat_err(-EINVAL);
	CPU_ZERO(&set);
	CPU_SET(core_id, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return ret ? compat_err(-ret) : 0;
}

/* ---- atomics, locks, barrier ----------------------------------------- */

/* The old value goes to @local_addr, which need not be aligned. */
static int compat_atomic(unsigned long lite_handler, void *local_addr,
			 bool cmp_swp, uint64_t value, uint64_t compare)
{
	uint64_t old;
	int password, ret;

	/* Handles are 32-bit: a wider value names no handle. */
	if (lite_handler > UINT32_MAX)
		return compat_err(-ENOENT);
	password = compat_pw_of(lite_handler);
	if (cmp_swp)
		ret = lite_compare_swap((int)lite_handler, 0, compare, value,
					&old, password);
	else
		ret = lite_fetch_add((int)lite_handler, 0, value, &old,
				     password);
	if (!ret && local_addr)
		memcpy(local_addr, &old, sizeof(old));
	return ret;
}

LITE_EXPORT int userspace_liteapi_fetch_add(unsigned long lite_handler,
					    void *local_addr,
					    unsigned long long input_value)
{
	return compat_atomic(lite_handler, local_addr, false, input_value, 0);
}

LITE_EXPORT int userspace_liteapi_compare_swp(unsigned long lite_handler,
					      void *local_addr,
					      unsigned long long guess_value,
					      unsigned long long set_value)
{
	return compat_atomic(lite_handler, local_addr, true, set_value,
			     guess_value);
}

/* What lock and unlock read: the lock's number and its home node. */
static int compat_lock_fill(remote_spinlock_t *input, int node, int lock)
{
	*input = (remote_spinlock_t) {
		.lock_num = lock,
		.lock_mr.node_id = node,
	};
	return 0;
}

LITE_EXPORT int userspace_liteapi_create_lock(int target_node,
					      remote_spinlock_t *input)
{
	int lock;

	if (target_node < 0)
		return compat_err(-EINVAL);
	/* Checked first: a lock nobody knows the number of stays forever. */
	if (!input)
		return compat_err(-EFAULT);
	lock = lite_lock_create(target_node);
	if (lock < 0)
		return lock;
	return compat_lock_fill(input, target_node, lock);
}

LITE_EXPORT int userspace_liteapi_ask_lock(int target_node, int target_idx,
					   remote_spinlock_t *input)
{
	int ret;

	if (target_node < 0 || target_idx < 0)
		return compat_err(-EINVAL);
	if (!input)
		return compat_err(-EFAULT);
	ret = lite_lock_ask(target_node, target_idx);
	if (ret < 0)
		return ret;
	return compat_lock_fill(input, target_node, target_idx);
}

LITE_EXPORT int userspace_liteapi_lock(remote_spinlock_t *input)
{
	if (!input)
		return compat_err(-EFAULT);
	if (input->lock_num < 0)
		return compat_err(-EINVAL);
	return lite_lock(input->lock_mr.node_id, input->lock_num);
}

LITE_EXPORT int userspace_liteapi_unlock(remote_spinlock_t *input)
{
	if (!input)
		return compat_err(-EFAULT);
	if (input->lock_num < 0)
		return compat_err(-EINVAL);
	return lite_unlock(input->lock_mr.node_id, input->lock_num);
}

LITE_EXPORT int userspace_liteapi_dist_barrier(unsigned int num)
{
	return lite_barrier(num);
}

/* ---- RPC ----------------------------------------------------------------- */

LITE_EXPORT int userspace_liteapi_register_application(
	unsigned int destined_port, unsigned int max_size_per_message,
	unsigned int max_user_per_node, char *name, uint64_t name_len)
{
	char buf[LITE_NAME_MAX] = "";
	size_t len = 0;

	(void)max_user_per_node;	/* any number of threads may receive */
	if (name) {
		len = name_len < sizeof(buf) - 1 ? name_len : sizeof(buf) - 1;
		len = strnlen(name, len);
		memcpy(buf, name, len);
	}
	return lite_rpc_register(destined_port, max_size_per_message, buf);
}

LITE_EXPORT int userspace_liteapi_query_port(int target_node,
					     int designed_port)
{
	if (target_node < 0 || designed_port < 0)
		return compat_err(-EINVAL);
	return lite_rpc_query_port(target_node, designed_port);
}

static int compat_call(int target_node, unsigned int port, void *addr,
		       int size, void *ret_addr, int max_ret_size, int prio)
{
	if (target_node < 0 || size < 0 || max_ret_size < 0)
		return compat_err(-EINVAL);
	return lite_rpc_call(target_node, port, addr, size, ret_addr,
			     max_ret_size, prio);
}

LITE_EXPORT int userspace_liteapi_send_reply_imm(int target_node,
						 unsigned int port, void *addr,
						 int size, void *ret_addr,
						 int max_ret_size)
{
	return compat_call(target_node, port, addr, size, ret_addr,
			   max_ret_size, LITE_PRIO_NORMAL);
}

LITE_EXPORT int userspace_liteapi_send_reply_imm_high(int target_node,
						      unsigned int port,
						      void *addr, int size,
						      void *ret_addr,
						      int max_ret_size)
{
	return compat_call(target_node, port, addr, size, ret_addr,
			   max_ret_size, LITE_PRIO_HIGH);
}

LITE_EXPORT int userspace_liteapi_send_reply_imm_low(int target_node,
						     unsigned int port,
						     void *addr, int size,
						     void *ret_addr,
						     int max_ret_size)
{
	return compat_call(target_node, port, addr, size, ret_addr,
			   max_ret_size, LITE_PRIO_LOW);
}

LITE_EXPORT int userspace_liteapi_send_reply_imm_fast(int target_node,
						      unsigned int port,
						      void *addr, int size,
						      void *ret_addr,
						      int *ret_length,
						      int max_ret_size)
{
	int ret = compat_call(target_node, port, addr, size, ret_addr,
			      max_ret_size, LITE_PRIO_NORMAL);

	if (ret < 0)
		return ret;
	if (ret_length)
		*ret_length = ret;
	return 0;
}

LITE_EXPORT int userspace_liteapi_send(int target_node, unsigned int port,
				       void *addr, int size)
{
	if (target_node < 0 || size < 0)
		return compat_err(-EINVAL);
	return lite_rpc_send(target_node, port, addr, size, LITE_PRIO_NORMAL);
}

static int compat_recv(unsigned int port, void *ret_addr, int receive_size,
		       uintptr_t *descriptor, int block_call, int prio)
{
	uint64_t desc;
	int ret;

	if (receive_size < 0)
		return compat_err(-EINVAL);
	ret = lite_rpc_recv(port, ret_addr, receive_size, &desc, NULL,
			    block_call ? 0 : LITE_RECV_NONBLOCK, prio);
	if (ret >= 0 && descriptor)
		*descriptor = desc;
	return ret;
}

LITE_EXPORT int userspace_liteapi_receive_message(unsigned int port,
						  void *ret_addr,
						  int receive_size,
						  uintptr_t *descriptor,
						  int block_call)
{
	return compat_recv(port, ret_addr, receive_size, descriptor,
			   block_call, LITE_PRIO_NORMAL);
}

LITE_EXPORT int userspace_liteapi_receive_message_high(unsigned int port,
						       void *ret_addr,
						       int receive_size,
						       uintptr_t *descriptor,
						       int block_call)
{
	return compat_recv(port, ret_addr, receive_size, descriptor,
			   block_call, LITE_PRIO_HIGH);
}

LITE_EXPORT int userspace_liteapi_receive_message_low(unsigned int port,
						      void *ret_addr,
						      int receive_size,
						      uintptr_t *descriptor,
						      int block_call)
{
	return compat_recv(port, ret_addr, receive_size, descriptor,
			   block_call, LITE_PRIO_LOW);
}

LITE_EXPORT int userspace_liteapi_receive_message_fast(unsigned int port,
						       void *ret_addr,
						       int receive_size,
						       uintptr_t *descriptor,
						       int *ret_length,
						       int block_call)
{
	int ret = compat_recv(port, ret_addr, receive_size, descriptor,
			      block_call, LITE_PRIO_NORMAL);

	if (ret < 0)
		return ret;
	if (ret_length)
		*ret_length = ret;
	return 0;
}

static int compat_reply(void *addr, int size, uintptr_t descriptor, int prio)
{
	if (size < 0)
		return compat_err(-EINVAL);
	return lite_rpc_reply(descriptor, addr, size, prio);
}

LITE_EXPORT int userspace_liteapi_reply_message(void *addr, int size,
						uintptr_t descriptor)
{
	return compat_reply(addr, size, descriptor, LITE_PRIO_NORMAL);
}

LITE_EXPORT int userspace_liteapi_reply_message_high(void *addr, int size,
						     uintptr_t descriptor)
{
	return compat_reply(addr, size, descriptor, LITE_PRIO_HIGH);
}

LITE_EXPORT int userspace_liteapi_reply_message_low(void *addr, int size,
						    uintptr_t descriptor)
{
	return compat_reply(addr, size, descriptor, LITE_PRIO_LOW);
}

LITE_EXPORT int userspace_liteapi_reply_and_receive_message(
	void *addr, int size, uintptr_t descriptor, unsigned int port,
	void *ret_addr, int receive_size, uintptr_t *receive_descriptor)
{
	uint64_t desc;
	int ret;

	if (size < 0 || receive_size < 0)
		return compat_err(-EINVAL);
	ret = lite_rpc_reply_recv(descriptor, addr, size, port, ret_addr,
				  receive_size, &desc, NULL, LITE_PRIO_NORMAL);
	if (ret >= 0 && receive_descriptor)
		*receive_descriptor = desc;
	return ret;
}
