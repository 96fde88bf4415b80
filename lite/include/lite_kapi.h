/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LITE's kernel API, for other kernel modules (exported by lite.ko).
 * Handles belong to the kernel's own context: they live until freed or
 * until lite.ko is unloaded (which a user module's symbol references
 * prevent). Every call returns 0 (or a handle, an id) on success and a
 * negative errno on failure, as documented in include/uapi/lite.h.
 * Context: process context; calls may sleep.
 */
#ifndef LITE_KAPI_H
#define LITE_KAPI_H

#include <linux/types.h>

#include "uapi/lite.h"

int liteapi_establish_conn(const char *ip, int port, int ib_port);
int liteapi_establish_conn_key(const char *ip, int port, int ib_port,
			       const u8 *key);
int liteapi_get_node_id(void);
int liteapi_get_total_node(void);
int liteapi_alloc_remote_mem(unsigned int node_id, u64 size, bool atomic_flag,
			     int password);
int liteapi_rdma_write_offset(unsigned int lite_handler, const void *local_addr,
			      u64 size, int priority, u64 offset, int password);
int liteapi_rdma_read_offset(unsigned int lite_handler, void *local_addr,
			     u64 size, int priority, u64 offset, int password);
int liteapi_rdma_write_async(unsigned int lite_handler, const void *local_addr,
			     u64 size, u64 offset, int password, u64 id);
int liteapi_rdma_read_async(unsigned int lite_handler, void *local_addr,
			    u64 size, u64 offset, int password, u64 id);
int liteapi_poll(struct lite_completion *out, unsigned int max, int timeout_ms);
int liteapi_fence(int timeout_ms);
int liteapi_remote_memset(unsigned int lite_handler, u64 offset, int value,
			  u64 size);
int liteapi_rdma_mr_memcpy(unsigned int dst, u64 dst_offset, unsigned int src,
			   u64 src_offset, u64 size);
int liteapi_rdma_mr_memmov(unsigned int dst, u64 dst_offset, unsigned int src,
			   u64 src_offset, u64 size);
int liteapi_add_askmr_table(u64 identifier, unsigned int lite_handler,
			    u32 permission, int password);
int liteapi_ask_mr(unsigned int memory_node, u64 identifier, u32 permission,
		   int password);
int liteapi_deregister_mr(unsigned int lite_handler);
int liteapi_umap_lmr(unsigned int lite_handler);

int liteapi_register_application(unsigned int port,
				 unsigned int max_size_per_message,
				 const char *name);
int liteapi_query_port(unsigned int node, unsigned int port);
int liteapi_send_reply_imm(unsigned int node, unsigned int port,
			   const void *addr, unsigned int size, void *ret_addr,
			   unsigned int max_ret_size, int priority);
int liteapi_send_reply_imm_multicast(unsigned int nr_nodes,
				     const unsigned int *nodes,
				     unsigned int port, const void *addr,
				     unsigned int size, void *ret_addr,
				     unsigned int max_ret_size,
				     unsigned int *ret_len, int *status,
				     int priority);
int liteapi_send_message(unsigned int node, unsigned int port,
			 const void *addr, unsigned int size, int priority);
int liteapi_receive_message(unsigned int port, void *ret_addr,
			    unsigned int receive_size, u64 *descriptor,
			    int block_call);
int liteapi_reply_message(const void *addr, unsigned int size, u64 descriptor,
			  int priority);
int liteapi_rdma_fetch_and_add(unsigned int lite_handler, u64 input_value,
			       u64 *old, int password);
int liteapi_rdma_compare_and_swp(unsigned int lite_handler, u64 guess_value,
				 u64 set_value, u64 *old, int password);
int liteapi_rdma_swp(unsigned int lite_handler, u64 set_value, u64 *old,
		     int password);
int liteapi_create_lock(unsigned int node);
int liteapi_ask_lock(unsigned int node, unsigned int id);
int liteapi_lock(unsigned int node, unsigned int id);
int liteapi_unlock(unsigned int node, unsigned int id);
int liteapi_dist_barrier(unsigned int num);

#endif /* LITE_KAPI_H */
