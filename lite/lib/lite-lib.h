/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lite-lib.h: the user-space API of the original LITE (SOSP'17), so that a
 * program written for it compiles unchanged, links with liblite and sees
 * the return values the original library gave. Every call, its original
 * success and error values and ours: docs/lite-api-compat.md. In short,
 * success values are the original's; errors are -1 with errno set (the
 * original's calls returned raw syscall() results), except where noted at
 * the call. New programs should use lite.h directly.
 *
 * This header does not include lite.h or the kernel ABI, and defines none
 * of the original's names that could clash with a program's own (its max()
 * macro, PAGE_SHIFT, the __NR_lite_* syscall numbers, __ACTIVE_NODES).
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

/* Argument bundles the original declared for its programs' own use. */
struct reply_struct {
	void		*addr;
	int		size;
	uintptr_t	descriptor;
};

struct receive_struct {
	unsigned int	designed_port;
	void		*ret_addr;
	int		receive_size;
	void		*descriptor;
	int		block_call;
};

/* Permission bits (the values of LITE_PERM_*) and ask results. */
enum permission_mode {
	MR_READ_FLAG		= 0x01,
	MR_WRITE_FLAG		= 0x02,
	MR_SHARE_FLAG		= 0x04,
	MR_ADMIN_FLAG		= 0x08,
	MR_ATOMIC_FLAG		= 0x10,
	MR_ASK_SUCCESS		= 0,
	MR_ASK_REFUSE		= 1,
	MR_ASK_UNPERMITTED	= 2,
	MR_ASK_HANDLER_ERROR	= 3,
	MR_ASK_UNKNOWN		= 4,
};

/* Descriptor of a message that wants no reply (receive_message). */
#define IMM_SEND_ONLY_FLAG	0xffffffffffffffffULL
/* Requests and replies of send_reply_imm/send/reply_message must be below. */
#define LIMITATION		(1024 * 1024 * 4)
#define SEND_REPLY_WAIT		(-101)
#define CHECK_LENGTH		100000
#define BLOCK_CALL		1
#define USERSPACE_HIGH_PRIORITY	16
#define USERSPACE_LOW_PRIORITY	17
#define NULL_PRIORITY		0
#define IMM_MAX_PORT		64
#define IMM_MAX_PORT_BIT	6
#define IMM_MAX_PRIORITY	64
#define IMM_MAX_PRIORITY_BIT	6

/*
 * Cluster. join returns this node's id; on a node that has joined already
 * it returns that id too. It needs CAP_NET_ADMIN and the cluster key.
 * userspace_syscall_test: 0 when /dev/lite is usable by this process.
 */
int userspace_liteapi_join(char *ip, int eth_port, int ib_port);
int userspace_liteapi_get_node_id(void);
int userspace_liteapi_get_total_node(void);
int userspace_syscall_test(void);

/* LITE memory regions: alloc_remote_mem, wrap_alloc, ask_lmr return a handle. */
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
/* A local LMR holding @data, published readable, writable and shareable. */
int userspace_liteapi_wrap_alloc(void *data, int size, uint64_t identifier,
				 int password);
int userspace_liteapi_add_ask_mr_table(uint64_t identifier, uint64_t lmr,
				       uint64_t permission, int password);
/* Grants the asked bits that the publication allows, as the original did. */
int userspace_liteapi_ask_lmr(int memory_node, uint64_t identifier,
			      uint64_t permission, int password);
/* A zero-copy buffer (lite_alloc_buffer); NULL on failure. */
void *userspace_liteapi_alloc_memory(unsigned long size);

/* 0, or a positive errno (EINVAL for a core not online), as the original. */
int stick_this_thread_to_core(int core_id);

/*
 * Atomics on the first 8 bytes of an atomic LMR (alloc_remote_mem with
 * atomic_flag); the old value goes to the 8 bytes at @local_addr. fetch_add
 * returns 0; compare_swp returns 0 when it swapped and 1 when the value
 * differed (the old value is stored either way). The original passes no
 * password: the one the handle was made with through this API is used.
 */
int userspace_liteapi_fetch_add(unsigned long lite_handler, void *local_addr,
				unsigned long long input_value);
int userspace_liteapi_compare_swp(unsigned long lite_handler,
				  void *local_addr,
				  unsigned long long guess_value,
				  unsigned long long set_value);

/*
 * Locks: create_lock and ask_lock fill @input for lock and unlock and
 * return the lock's number (>= 0).
 */
int userspace_liteapi_create_lock(int target_node, remote_spinlock_t *input);
int userspace_liteapi_ask_lock(int target_node, int target_idx,
			       remote_spinlock_t *input);
int userspace_liteapi_lock(remote_spinlock_t *input);
int userspace_liteapi_unlock(remote_spinlock_t *input);

int userspace_liteapi_dist_barrier(unsigned int num);

/*
 * RPC. register_application returns @destined_port; a name longer than 32
 * bytes is refused. query_port returns 0 when the port is registered.
 */
int userspace_liteapi_register_application(unsigned int destined_port,
					   unsigned int max_size_per_message,
					   unsigned int max_user_per_node,
					   char *name, uint64_t name_len);
int userspace_liteapi_query_port(int target_node, int designed_port);

/* A request and its reply; return the reply's length. */
int userspace_liteapi_send_reply_imm(int target_node, unsigned int port,
				     void *addr, int size, void *ret_addr,
				     int max_ret_size);
int userspace_liteapi_send_reply_imm_high(int target_node, unsigned int port,
					  void *addr, int size, void *ret_addr,
					  int max_ret_size);
int userspace_liteapi_send_reply_imm_low(int target_node, unsigned int port,
					 void *addr, int size, void *ret_addr,
					 int max_ret_size);
/* The same; the reply's length is also stored in *@ret_length. */
int userspace_liteapi_send_reply_imm_fast(int target_node, unsigned int port,
					  void *addr, int size, void *ret_addr,
					  int *ret_length, int max_ret_size);
/* One way (returns 0): the receiver's descriptor is IMM_SEND_ONLY_FLAG. */
int userspace_liteapi_send(int target_node, unsigned int port, void *addr,
			   int size);

/*
 * The next message on @port; returns its length. With block_call 0 and no
 * message waiting, returns 0.
 */
int userspace_liteapi_receive_message(unsigned int port, void *ret_addr,
				      int receive_size, uintptr_t *descriptor,
				      int block_call);
int userspace_liteapi_receive_message_high(unsigned int port, void *ret_addr,
					   int receive_size,
					   uintptr_t *descriptor,
					   int block_call);
int userspace_liteapi_receive_message_low(unsigned int port, void *ret_addr,
					  int receive_size,
					  uintptr_t *descriptor,
					  int block_call);
/*
 * The same, the length also stored in *@ret_length; a one-way message's
 * descriptor is 0 here (not IMM_SEND_ONLY_FLAG). _record returns the same
 * value as a double.
 */
int userspace_liteapi_receive_message_fast(unsigned int port, void *ret_addr,
					   int receive_size,
					   uintptr_t *descriptor,
					   int *ret_length, int block_call);
double userspace_liteapi_receive_message_fast_record(unsigned int port,
						     void *ret_addr,
						     int receive_size,
						     uintptr_t *descriptor,
						     int *ret_length,
						     int block_call);
/* Reply to a received request; returns 0. */
int userspace_liteapi_reply_message(void *addr, int size,
				    uintptr_t descriptor);
int userspace_liteapi_reply_message_high(void *addr, int size,
					 uintptr_t descriptor);
int userspace_liteapi_reply_message_low(void *addr, int size,
					uintptr_t descriptor);
/*
 * Reply, then wait for the next message; returns 0 as the original did
 * (not the length: carry it in the message, or use lite.h).
 */
int userspace_liteapi_reply_and_receive_message(void *addr, int size,
						uintptr_t descriptor,
						unsigned int port,
						void *ret_addr,
						int receive_size,
						uintptr_t *receive_descriptor);

#ifdef __cplusplus
}
#endif

#endif /* LITE_LIB_H */
