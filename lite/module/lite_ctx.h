/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A LITE context and what it reaches: the context (ctx.c), its handles on
 * LMRs of any node (handle.c), zero-copy user buffers (ubuf.c), the
 * operations on them (api.c, rdma.c), for chardev.c and the exported
 * kernel API (kapi.c). Functions return 0 or a negative errno
 * (see uapi/lite.h).
 */
#ifndef LITE_CTX_H
#define LITE_CTX_H

#include <linux/kref.h>
#include <linux/uio.h>
#include <linux/xarray.h>

#include "lite_priv.h"

/*
 * ctx.c: one open /dev/lite, or the kernel API's. Services are handed a
 * context; ctx.c, which makes and ends them (and so calls every service),
 * is in the layer above them. A service keeps its own state in one:
 * @replies is RPC's (rpc_server.c), which also empties it at the end.
 */
struct lite_handle;
struct lite_async;

struct lite_ctx {
	struct xarray		handles;	/* id -> struct lite_handle */
	struct list_head	replies;	/* RPC tokens it owes (RPC's) */
	u64			id;		/* names it to lock homes */
	u32			uid;		/* of the opener; 0: the kernel */
	struct lite_user	*user;		/* its limits, or NULL */
	struct lite_async	*async;		/* posted reads and writes */
};

static inline u64 lite_ctx_id(const struct lite_ctx *ctx)
{
	return ctx->id;
}

static inline u32 lite_ctx_uid(const struct lite_ctx *ctx)
{
	return ctx->uid;
}

static inline struct lite_user *lite_ctx_user(const struct lite_ctx *ctx)
{
	return ctx->user;
}

static inline struct lite_async *lite_ctx_async(const struct lite_ctx *ctx)
{
	return ctx->async;
}

extern struct lite_ctx *lite_kernel_ctx;
struct lite_ctx *lite_ctx_create(bool limited);
void lite_ctx_destroy(struct lite_ctx *ctx);
int lite_ctx_init(void);
void lite_ctx_exit(void);
struct lite_handle *lite_ctx_handle(struct lite_ctx *ctx, u32 id);
int lite_ctx_add_handle(struct lite_ctx *ctx, struct lite_handle *h, u32 *id);
bool lite_ctx_remove_handle(struct lite_ctx *ctx, u32 id,
			    struct lite_handle *h);

/* handle.c: one context's view of an LMR on some node */
struct lite_map;

struct lite_handle {
	struct kref		ref;
	u16			node;		/* owner */
	u32			gen;		/* owner's generation */
	u32			lmr_id;		/* on the owner */
	u64			size;
	u32			perm;		/* LITE_PERM_* granted */
	s32			password;
	u32			rkey;		/* 0: per chunk, see below */
	u8			chunk_shift;
	bool			nic_atomic;	/* LITE_DESC_NIC_ATOMIC */
	u32			nr_chunks;
	struct lite_map		*map;		/* revocation, shared per LMR */
	struct lite_user	*user;		/* charged for it, or NULL */
	u64			charged;	/* LMR bytes charged (creator) */
	struct lite_lmr		*lmr;		/* when the owner is this node */
	u64			chunk[];	/* otherwise: chunk addresses */
};

/* The key that reaches byte @off: one for all, or the address's top half. */
static inline u32 lite_handle_rkey(const struct lite_handle *h, u64 off)
{
	return h->rkey ?: upper_32_bits(h->chunk[off >> h->chunk_shift]);
}

struct lite_lmr_desc;

void lite_map_pending_begin(u16 node);
void lite_map_pending_end(u16 node);
struct lite_handle *lite_handle_new(u16 node, u32 gen,
				    const struct lite_lmr_desc *d, u32 len,
				    s32 password);
void lite_handle_put(struct lite_handle *h);
bool lite_handle_revoked(const struct lite_handle *h);
int lite_handle_begin(struct lite_handle *h);
void lite_handle_end(struct lite_handle *h);
void lite_handle_mark_revoked(struct lite_handle *h);
int lite_handle_free_lmr(struct lite_handle *h);
int lite_handles_revoke(u16 node, u32 gen, u32 lmr_id);
extern const struct lite_ctrl_service lite_handle_ctrl_service;

/*
 * rdma.c: one-sided operations on a remote LMR, and a context's queue of
 * operations posted without waiting
 */
struct lite_completion;

int lite_rdma_rw(struct lite_handle *h, u64 off, struct iov_iter *iter,
		 struct lite_ubuf *ub, u64 uoff, u64 len, bool write, int prio);
int lite_rdma_atomic(struct lite_handle *h, u64 off, enum ib_wr_opcode opcode,
		     u64 compare_add, u64 swap, u64 *old);
int lite_rdma_post(struct lite_async *as, struct lite_handle *h, u64 off,
		   u64 addr, bool kernel, u32 len, bool write, u64 cookie);
struct lite_async *lite_async_create(struct lite_user *user);
void lite_async_destroy(struct lite_async *as);
int lite_async_post_local(struct lite_async *as, struct lite_lmr *lmr, u64 off,
			  struct iov_iter *iter, u64 len, bool write,
			  u64 cookie);
unsigned int lite_async_reap(struct lite_async *as,
			     struct lite_completion *out, unsigned int max,
			     int *first_err);
int lite_async_wait(struct lite_async *as, bool all, int timeout_ms);
unsigned int lite_async_outstanding(struct lite_async *as);

/* api.c: the operations of a context */
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

#endif /* LITE_CTX_H */
