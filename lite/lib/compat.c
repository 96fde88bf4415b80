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

#include "export.h"
#include "lite-lib.h"

/* For errors found here; the lite_* calls set errno themselves. */
static int compat_err(int err)
{
	errno = -err;
	return err;
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
	return lite_alloc(node_id, size, atomic_flag ? LITE_ALLOC_ATOMIC : 0,
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
	return lh;
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
	return lite_ask(memory_node, identifier, (unsigned int)permission,
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
