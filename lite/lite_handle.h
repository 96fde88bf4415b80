/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A LITE handle (handle.c): one context's view of an LMR on some node.
 */
#ifndef LITE_HANDLE_H
#define LITE_HANDLE_H

#include <linux/kref.h>

#include "lite_priv.h"

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

/* rdma.c: one-sided operations on a remote LMR */
struct lite_ubuf;
int lite_rdma_rw(struct lite_handle *h, u64 off, struct iov_iter *iter,
		 struct lite_ubuf *ub, u64 uoff, u64 len, bool write, int prio);
int lite_rdma_atomic(struct lite_handle *h, u64 off, enum ib_wr_opcode opcode,
		     u64 compare_add, u64 swap, u64 *old);
struct lite_async;
int lite_rdma_post(struct lite_async *as, struct lite_handle *h, u64 off,
		   u64 addr, bool kernel, u32 len, bool write, u64 cookie);

#endif /* LITE_HANDLE_H */
