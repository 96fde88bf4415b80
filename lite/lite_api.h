/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Operations of a LITE context (api.c), for chardev.c and the exported
 * kernel API (kapi.c). Return 0 or a negative errno (see uapi/lite.h).
 */
#ifndef LITE_API_H
#define LITE_API_H

#include <linux/uio.h>

struct lite_ctx;
struct vm_area_struct;
struct lite_completion;

int lite_api_alloc(struct lite_ctx *ctx, u32 node, u64 size, u32 flags,
		   s32 password, u32 *id);
int lite_api_mmap(struct lite_ctx *ctx, struct vm_area_struct *vma);
int lite_api_free(struct lite_ctx *ctx, u32 id);
int lite_api_unmap(struct lite_ctx *ctx, u32 id);
int lite_api_rw(struct lite_ctx *ctx, u32 id, s32 password, u64 off,
		struct iov_iter *iter, u64 len, bool write, int prio);
int lite_api_memset(struct lite_ctx *ctx, u32 id, u64 off, u32 value,
		    u64 len);
int lite_api_memcpy(struct lite_ctx *ctx, u32 dst_id, u64 doff, u32 src_id,
		    u64 soff, u64 len);
int lite_api_publish(struct lite_ctx *ctx, u32 id, u64 identifier, u32 perm,
		     s32 password);
int lite_api_ask(struct lite_ctx *ctx, u32 node, u64 identifier, u32 perm,
		 s32 password, u32 *id);
int lite_api_lmr_info(struct lite_ctx *ctx, u32 id, u32 *node, u64 *size,
		      u32 *perm);
int lite_api_atomic(struct lite_ctx *ctx, u32 id, s32 password, u32 op,
		    u64 off, u64 value, u64 compare, u64 *old);
int lite_api_post(struct lite_ctx *ctx, u32 id, s32 password, u64 off,
		  u64 addr, bool kernel, u64 len, bool write, u64 cookie);
int lite_api_poll(struct lite_ctx *ctx, struct lite_completion *out,
		  unsigned int max, int timeout_ms);
int lite_api_fence(struct lite_ctx *ctx, int timeout_ms);
unsigned int lite_api_outstanding(struct lite_ctx *ctx);

#endif /* LITE_API_H */
