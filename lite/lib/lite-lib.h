/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lite-lib.h: the user-space API of the original LITE (SOSP'17), so that a
 * program written for it compiles unchanged and links with liblite. The
 * calls are thin wrappers over lite.h (see docs: lite-api.md). They return
 * >= 0 on success and a negative errno on failure, which they also store
 * in errno. New programs should use lite.h directly.
 */
#ifndef LITE_LIB_H
#define LITE_LIB_H

/*
 * The original header defined _GNU_SOURCE and pulled in the headers below;
 * programs that include it first rely on both (CPU_SET, memalign, ...).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "lite.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lmr_info {
	void		*addr;
	size_t		length;
	uint32_t	lkey;
	uint32_t	rkey;
	uint32_t	node_id;
};

struct lite_lock_form {
	int		lock_num;
	struct lmr_info	lock_mr;
	uint64_t	ticket_num;
};
typedef struct lite_lock_form remote_spinlock_t;

/* Permission bits (the same values as LITE_PERM_*) and ask results. */
enum permission_mode {
	MR_READ_FLAG		= LITE_PERM_READ,
	MR_WRITE_FLAG		= LITE_PERM_WRITE,
	MR_SHARE_FLAG		= LITE_PERM_SHARE,
	MR_ADMIN_FLAG		= LITE_PERM_ADMIN,
	MR_ATOMIC_FLAG		= LITE_PERM_ATOMIC,
	MR_ASK_SUCCESS		= 0,
	MR_ASK_REFUSE		= 1,
	MR_ASK_UNPERMITTED	= 2,
	MR_ASK_HANDLER_ERROR	= 3,
	MR_ASK_UNKNOWN		= 4,
};

/* Descriptor of a message that wants no reply. */
#define IMM_SEND_ONLY_FLAG	0xffffffffffffffffULL
#define SEND_REPLY_WAIT		(-101)
#define BLOCK_CALL		1
#define USERSPACE_HIGH_PRIORITY	16
#define USERSPACE_LOW_PRIORITY	17
#define NULL_PRIORITY		0
#define IMM_MAX_PORT		64

/* Cluster */
int userspace_liteapi_join(char *ip, int eth_port, int ib_port);
int userspace_liteapi_get_node_id(void);
int userspace_liteapi_get_total_node(void);

/* LITE memory regions */
int userspace_liteapi_alloc_remote_mem(unsigned int node_id, unsigned int size,
				       bool atomic_flag, int password);
int userspace_liteapi_rdma_write(unsigned lite_handler, void *local_addr,
				 unsigned int size, unsigned int offset,
				 int password);
int userspace_liteapi_rdma_write_high(unsigned lite_handler, void *local_addr,
				      unsigned int size, unsigned int offset,
				      int password);
int userspace_liteapi_rdma_write_low(unsigned lite_handler, void *local_addr,
				     unsigned int size, unsigned int offset,
				     int password);
int userspace_liteapi_rdma_read(unsigned lite_handler, void *local_addr,
				unsigned int size, unsigned int offset,
				int password);
int userspace_liteapi_rdma_read_high(unsigned lite_handler, void *local_addr,
				     unsigned int size, unsigned int offset,
				     int password);
int userspace_liteapi_rdma_read_low(unsigned lite_handler, void *local_addr,
				    unsigned int size, unsigned int offset,
				    int password);
/* Both zero the range (the original could only zero). */
int userspace_liteapi_memset(unsigned lite_handler, int offset, int size);
int userspace_liteapi_remote_memset(unsigned lite_handler, int offset,
				    int size);
/* A local LMR holding @data, published readable and writable. */
int userspace_liteapi_wrap_alloc(void *data, int size, uint64_t identifier,
				 int password);
int userspace_liteapi_add_ask_mr_table(uint64_t identifier, uint64_t lmr,
				       uint64_t permission, int password);
int userspace_liteapi_ask_lmr(int memory_node, uint64_t identifier,
			      uint64_t permission, int password);
/* A zero-copy buffer (lite_alloc_buffer); NULL on failure. */
void *userspace_liteapi_alloc_memory(unsigned long size);

int stick_this_thread_to_core(int core_id);

/*
 * RPC, atomics, locks and barrier (dist_barrier, fetch_add, compare_swp,
 * create_lock, ask_lock, lock, unlock, register_application, query_port,
 * send*, receive_message*, reply_message*, reply_and_receive_message)
 * arrive with RPC support; they are declared here only once implemented.
 */

#ifdef __cplusplus
}
#endif

#endif /* LITE_LIB_H */
