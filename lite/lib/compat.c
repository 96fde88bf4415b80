// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The calls of the original LITE user-space library (lite-lib.h), mapped
 * onto lite.h, with the original's return values: its success values, and
 * -1 with errno for errors (its calls returned raw syscall() results).
 * Every decision, call by call: docs/lite-api-compat.md. Where the old
 * types are narrower or signed, the value is checked here so that it
 * cannot wrap into a different valid request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "lite.h"
#include "lite-lib.h"

/* lite-lib.h spells these out so that it need not include lite.h. */
_Static_assert(IMM_SEND_ONLY_FLAG == LITE_DESC_NO_REPLY,
	       "one-way descriptors are passed through unchanged");
_Static_assert(MR_READ_FLAG == LITE_PERM_READ &&
	       MR_WRITE_FLAG == LITE_PERM_WRITE &&
	       MR_SHARE_FLAG == LITE_PERM_SHARE &&
	       MR_ADMIN_FLAG == LITE_PERM_ADMIN &&
	       MR_ATOMIC_FLAG == LITE_PERM_ATOMIC,
	       "permission bits are passed through unchanged");
_Static_assert(IMM_MAX_PORT == LITE_MAX_PORT, "the same ports");

/* What the original's register_application accepted. */
#define COMPAT_NAME_MAX		32
#define COMPAT_MSG_MAX		(LIMITATION / 2)

/*
 * The original's NAME, NAME_high and NAME_low: one call at three
 * priorities, IMPL(ARGS..., priority) each. PARAMS, in parentheses, is
 * lite-lib.h's parameter list.
 */
#define COMPAT_PRIO_CALLS(name, params, impl, ...)			\
	LITE_EXPORT int name params					\
	{								\
		return impl(__VA_ARGS__, LITE_PRIO_NORMAL);		\
	}								\
	LITE_EXPORT int name##_high params				\
	{								\
		return impl(__VA_ARGS__, LITE_PRIO_HIGH);		\
	}								\
	LITE_EXPORT int name##_low params				\
	{								\
		return impl(__VA_ARGS__, LITE_PRIO_LOW);		\
	}

/* An error found here: -1 with errno, as a failed syscall() returned. */
static int compat_fail(int err)
{
	errno = err;
	return -1;
}

/* A lite.h result: errno is set already; the value becomes -1. */
static int compat_ret(int ret)
{
	return ret < 0 ? -1 : ret;
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

/* ---- cluster ------------------------------------------------------------ */

LITE_EXPORT int userspace_liteapi_join(char *ip, int eth_port, int ib_port)
{
	int ret = lite_join(ip, eth_port, ib_port);

	/*
	 * Joined already: the node is a member, which is what the call asks
	 * for, so report its id as a join would (the original joined again).
	 */
	if (ret == -EISCONN)
		ret = lite_node_id();
	return compat_ret(ret);
}

LITE_EXPORT int userspace_liteapi_get_node_id(void)
{
	return compat_ret(lite_node_id());
}

LITE_EXPORT int userspace_liteapi_get_total_node(void)
{
	return compat_ret(lite_nr_nodes());
}

/*
 * The original called a test syscall that returned 0 once the module was
 * loaded; here: 0 when this process can use /dev/lite, joined or not.
 */
LITE_EXPORT int userspace_syscall_test(void)
{
	int saved = errno;
	int ret = lite_node_id();

	if (ret >= 0 || ret == -ENOTCONN) {
		errno = saved;
		return 0;
	}
	return -1;
}

/* ---- LITE memory regions --------------------------------------------------- */

LITE_EXPORT int userspace_liteapi_alloc_remote_mem(unsigned int node_id,
						   unsigned int size,
						   bool atomic_flag,
						   int password)
{
	return compat_ret(compat_pw_note(lite_alloc(node_id, size,
						    atomic_flag ?
						    LITE_ALLOC_ATOMIC : 0,
						    password),
					 password));
}

static int compat_write(unsigned int lite_handler, void *local_addr,
			unsigned int size, unsigned int offset, int password,
			int prio)
{
	return compat_ret(lite_write(lite_handler, offset, local_addr, size,
				     password, prio));
}

static int compat_read(unsigned int lite_handler, void *local_addr,
		       unsigned int size, unsigned int offset, int password,
		       int prio)
{
	return compat_ret(lite_read(lite_handler, offset, local_addr, size,
				    password, prio));
}

COMPAT_PRIO_CALLS(userspace_liteapi_rdma_write,
		  (unsigned lite_handler, void *local_addr, unsigned int size,
		   unsigned int offset, int password),
		  compat_write, lite_handler, local_addr, size, offset,
		  password)

COMPAT_PRIO_CALLS(userspace_liteapi_rdma_read,
		  (unsigned lite_handler, void *local_addr, unsigned int size,
		   unsigned int offset, int password),
		  compat_read, lite_handler, local_addr, size, offset,
		  password)

LITE_EXPORT int userspace_liteapi_memset(unsigned lite_handler, int offset,
					 int size)
{
	/* A negative int would become an offset near 2^64, not an error. */
	if (offset < 0 || size < 0)
		return compat_fail(EINVAL);
	return compat_ret(lite_memset(lite_handler, offset, 0, size));
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
		return compat_fail(EINVAL);
	node = lite_node_id();
	if (node < 0)
		return -1;
	lh = lite_alloc(node, size, 0, password);
	if (lh < 0)
		return -1;
	ret = lite_write(lh, 0, data, size, password, LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_publish(lh, identifier, MR_READ_FLAG |
				   MR_WRITE_FLAG | MR_SHARE_FLAG, password);
	if (ret < 0) {
		lite_free(lh);
		return compat_fail(-ret);
	}
	return compat_pw_note(lh, password);
}

LITE_EXPORT int userspace_liteapi_add_ask_mr_table(uint64_t identifier,
						   uint64_t lmr,
						   uint64_t permission,
						   int password)
{
	unsigned int perm;
	int ret;

	/* Handles are 32-bit: a wider value names no handle. */
	if (lmr > INT_MAX)
		return compat_fail(ENOENT);
	/*
	 * The original offered what was asked for of the bits the LMR has
	 * (ADMIN is never given away): publish that intersection.
	 */
	ret = lite_lmr_info((int)lmr, NULL, NULL, &perm);
	if (ret < 0)
		return -1;
	perm &= permission & (LITE_PERM_ALL & ~LITE_PERM_ADMIN);
	if (!perm)
		return compat_fail(EPERM);
	return compat_ret(lite_publish((int)lmr, identifier, perm, password));
}

static int compat_bits(unsigned int v)
{
	return __builtin_popcount(v);
}

/*
 * The original granted the asked bits the publication allows; the ABI
 * refuses (EPERM) a request beyond it, without revealing more than the
 * right password already does. So try the largest subsets of @perm first:
 * the first one granted is that intersection.
 */
static int compat_ask(unsigned int node, uint64_t identifier,
		      unsigned int perm, int password)
{
	unsigned int sub;
	int lh, bits;

	lh = lite_ask(node, identifier, perm, password);
	for (bits = compat_bits(perm) - 1; lh == -EPERM && bits > 0; bits--)
		for (sub = (perm - 1) & perm; sub && lh == -EPERM;
		     sub = (sub - 1) & perm)
			if (compat_bits(sub) == bits)
				lh = lite_ask(node, identifier, sub, password);
	return lh;
}

LITE_EXPORT int userspace_liteapi_ask_lmr(int memory_node, uint64_t identifier,
					  uint64_t permission, int password)
{
	unsigned int perm = permission & LITE_PERM_ALL;

	if (memory_node < 0 || !perm)
		return compat_fail(EINVAL);
	return compat_ret(compat_pw_note(compat_ask(memory_node, identifier,
						    perm, password),
					 password));
}

LITE_EXPORT void *userspace_liteapi_alloc_memory(unsigned long size)
{
	return lite_alloc_buffer(size);
}

/* As the original: a positive error number, errno untouched. */
LITE_EXPORT int stick_this_thread_to_core(int core_id)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (core_id < 0 || core_id >= online || core_id >= CPU_SETSIZE)
		return EINVAL;
	CPU_ZERO(&set);
	CPU_SET(core_id, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---- atomics, locks, barrier ----------------------------------------- */

/*
 * The old value goes to @local_addr, which need not be aligned. Returns 0,
 * or 1 when a compare-and-swap found another value than @compare.
 */
static int compat_atomic(unsigned long lite_handler, void *local_addr,
			 bool cmp_swp, uint64_t value, uint64_t compare)
{
	uint64_t old;
	int password, ret;

	/* Handles are 32-bit: a wider value names no handle. */
	if (lite_handler > INT_MAX)
		return compat_fail(ENOENT);
	password = compat_pw_of(lite_handler);
	if (cmp_swp)
		ret = lite_compare_swap((int)lite_handler, 0, compare, value,
					&old, password);
	else
		ret = lite_fetch_add((int)lite_handler, 0, value, &old,
				     password);
	if (ret < 0)
		return -1;
	if (local_addr)
		memcpy(local_addr, &old, sizeof(old));
	return cmp_swp && old != compare;
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
	return lock;
}

LITE_EXPORT int userspace_liteapi_create_lock(int target_node,
					      remote_spinlock_t *input)
{
	int lock;

	if (target_node < 0)
		return compat_fail(EINVAL);
	/* Checked first: a lock nobody knows the number of stays forever. */
	if (!input)
		return compat_fail(EFAULT);
	lock = lite_lock_create(target_node);
	if (lock < 0)
		return -1;
	return compat_lock_fill(input, target_node, lock);
}

LITE_EXPORT int userspace_liteapi_ask_lock(int target_node, int target_idx,
					   remote_spinlock_t *input)
{
	if (target_node < 0 || target_idx < 0)
		return compat_fail(EINVAL);
	if (!input)
		return compat_fail(EFAULT);
	if (lite_lock_ask(target_node, target_idx) < 0)
		return -1;
	return compat_lock_fill(input, target_node, target_idx);
}

LITE_EXPORT int userspace_liteapi_lock(remote_spinlock_t *input)
{
	if (!input)
		return compat_fail(EFAULT);
	if (input->lock_num < 0)
		return compat_fail(EINVAL);
	return compat_ret(lite_lock(input->lock_mr.node_id, input->lock_num));
}

LITE_EXPORT int userspace_liteapi_unlock(remote_spinlock_t *input)
{
	if (!input)
		return compat_fail(EFAULT);
	if (input->lock_num < 0)
		return compat_fail(EINVAL);
	return compat_ret(lite_unlock(input->lock_mr.node_id,
				      input->lock_num));
}

LITE_EXPORT int userspace_liteapi_dist_barrier(unsigned int num)
{
	return compat_ret(lite_barrier(num));
}

/* ---- RPC ----------------------------------------------------------------- */

LITE_EXPORT int userspace_liteapi_register_application(
	unsigned int destined_port, unsigned int max_size_per_message,
	unsigned int max_user_per_node, char *name, uint64_t name_len)
{
	char buf[LITE_NAME_MAX] = "";
	size_t len = 0;

	(void)max_user_per_node;	/* any number of threads may receive */
	/* The original's limits; it never held messages to the size given. */
	if (name_len > COMPAT_NAME_MAX)
		return compat_fail(ENAMETOOLONG);
	if (max_size_per_message > COMPAT_MSG_MAX)
		return compat_fail(EINVAL);
	if (name) {
		len = name_len < sizeof(buf) - 1 ? name_len : sizeof(buf) - 1;
		len = strnlen(name, len);
		memcpy(buf, name, len);
	}
	if (lite_rpc_register(destined_port, LITE_RPC_MAX_MSG, buf) < 0)
		return -1;
	return destined_port;
}

LITE_EXPORT int userspace_liteapi_query_port(int target_node,
					     int designed_port)
{
	if (target_node < 0 || designed_port < 0)
		return compat_fail(EINVAL);
	if (lite_rpc_query_port(target_node, designed_port) < 0)
		return -1;
	return 0;
}

static int compat_call(int target_node, unsigned int port, void *addr,
		       int size, void *ret_addr, int max_ret_size, int prio)
{
	if (size >= LIMITATION || max_ret_size >= LIMITATION)
		return compat_fail(EMSGSIZE);
	if (target_node < 0 || size < 0 || max_ret_size < 0)
		return compat_fail(EINVAL);
	return compat_ret(lite_rpc_call(target_node, port, addr, size,
					ret_addr, max_ret_size, prio));
}

COMPAT_PRIO_CALLS(userspace_liteapi_send_reply_imm,
		  (int target_node, unsigned int port, void *addr, int size,
		   void *ret_addr, int max_ret_size),
		  compat_call, target_node, port, addr, size, ret_addr,
		  max_ret_size)

LITE_EXPORT int userspace_liteapi_send_reply_imm_fast(int target_node,
						      unsigned int port,
						      void *addr, int size,
						      void *ret_addr,
						      int *ret_length,
						      int max_ret_size)
{
	int ret = compat_call(target_node, port, addr, size, ret_addr,
			      max_ret_size, LITE_PRIO_NORMAL);

	if (ret_length)
		*ret_length = ret;
	return ret;
}

LITE_EXPORT int userspace_liteapi_send(int target_node, unsigned int port,
				       void *addr, int size)
{
	if (size >= LIMITATION)
		return compat_fail(EMSGSIZE);
	if (target_node < 0 || size < 0)
		return compat_fail(EINVAL);
	return compat_ret(lite_rpc_send(target_node, port, addr, size,
					LITE_PRIO_NORMAL));
}

/* The length, or 0 when !@block_call and nothing waits (as the original). */
static int compat_recv(unsigned int port, void *ret_addr, int receive_size,
		       uintptr_t *descriptor, int block_call, int prio)
{
	uint64_t desc;
	int ret;

	if (receive_size < 0)
		return compat_fail(EINVAL);
	ret = lite_rpc_recv(port, ret_addr, receive_size, &desc, NULL,
			    block_call ? 0 : LITE_RECV_NONBLOCK, prio);
	if (ret == -EAGAIN && !block_call)
		return 0;
	if (ret < 0)
		return -1;
	if (descriptor)
		*descriptor = desc;
	return ret;
}

COMPAT_PRIO_CALLS(userspace_liteapi_receive_message,
		  (unsigned int port, void *ret_addr, int receive_size,
		   uintptr_t *descriptor, int block_call),
		  compat_recv, port, ret_addr, receive_size, descriptor,
		  block_call)

/*
 * The original cleared *@descriptor first and turned a one-way message's
 * IMM_SEND_ONLY_FLAG into 0; the length goes to *@ret_length too.
 */
LITE_EXPORT int userspace_liteapi_receive_message_fast(unsigned int port,
						       void *ret_addr,
						       int receive_size,
						       uintptr_t *descriptor,
						       int *ret_length,
						       int block_call)
{
	int ret;

	if (descriptor)
		*descriptor = 0;
	ret = compat_recv(port, ret_addr, receive_size, descriptor,
			  block_call, LITE_PRIO_NORMAL);
	if (descriptor && *descriptor == IMM_SEND_ONLY_FLAG)
		*descriptor = 0;
	if (ret_length)
		*ret_length = ret;
	return ret;
}

LITE_EXPORT double userspace_liteapi_receive_message_fast_record(
	unsigned int port, void *ret_addr, int receive_size,
	uintptr_t *descriptor, int *ret_length, int block_call)
{
	return userspace_liteapi_receive_message_fast(port, ret_addr,
						      receive_size, descriptor,
						      ret_length, block_call);
}

/* 0 and IMM_SEND_ONLY_FLAG (one-way messages) have nobody to reply to. */
static bool compat_no_reply(uintptr_t descriptor)
{
	return !descriptor || descriptor == IMM_SEND_ONLY_FLAG;
}

static int compat_reply(void *addr, int size, uintptr_t descriptor, int prio)
{
	if (size >= LIMITATION)
		return compat_fail(EMSGSIZE);
	if (size < 0 || compat_no_reply(descriptor))
		return compat_fail(EINVAL);
	return compat_ret(lite_rpc_reply(descriptor, addr, size, prio));
}

COMPAT_PRIO_CALLS(userspace_liteapi_reply_message,
		  (void *addr, int size, uintptr_t descriptor),
		  compat_reply, addr, size, descriptor)

/*
 * Returns 0 as the original did. After a one-way message there is nothing
 * to reply to (the original dereferenced the descriptor): only receive.
 */
LITE_EXPORT int userspace_liteapi_reply_and_receive_message(
	void *addr, int size, uintptr_t descriptor, unsigned int port,
	void *ret_addr, int receive_size, uintptr_t *receive_descriptor)
{
	uint64_t desc;
	int ret;

	if (size < 0 || receive_size < 0)
		return compat_fail(EINVAL);
	if (compat_no_reply(descriptor))
		return compat_recv(port, ret_addr, receive_size,
				   receive_descriptor, 1, LITE_PRIO_NORMAL) < 0 ?
			-1 : 0;
	ret = lite_rpc_reply_recv(descriptor, addr, size, port, ret_addr,
				  receive_size, &desc, NULL, LITE_PRIO_NORMAL);
	if (ret < 0)
		return -1;
	if (receive_descriptor)
		*receive_descriptor = desc;
	return 0;
}
