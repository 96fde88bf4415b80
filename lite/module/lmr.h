/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lmr.c (the table, sharing, revocation) and lmr_data.c (the bytes)
 * share: an LMR as the owner keeps it.
 */
#ifndef LITE_LMR_H
#define LITE_LMR_H

#include "lite_priv.h"

#define LITE_CHUNK_SHIFT_MAX	22	/* 4 MiB: the pool's largest piece */

struct lite_lmr {
	struct kref		ref;
	u32			id;
	u64			size;
	u32			flags;		/* LITE_ALLOC_* */
	bool			nic_atomic;	/* atomics on the NIC (atomic.c) */
	u8			chunk_shift;
	u32			nr_chunks;
	u16			creator;	/* node that may free it */
	u32			creator_gen;
	struct lite_user	*user;		/* (creator, uid): LITE_RES_HOSTED_BYTES */
	u64			alloc_req;	/* the creator's ALLOC id (undo), or 0 */
	struct list_head	all;		/* lite_lmrs.all, until released */
	struct list_head	quarantine;	/* freed, mappers not all done */
	struct list_head	released;	/* on a caller's list to put */
	bool			quarantined;	/* under lite_lmrs.lock */
	/* under lite_lmrs.lock: */
	DECLARE_BITMAP(mappers, LITE_MAX_NODES);	/* may have a handle */
	DECLARE_BITMAP(unconfirmed, LITE_MAX_NODES);	/* in quarantine */
	u8			granted[LITE_MAX_NODES];	/* LITE_PERM_* per mapper */
	struct lite_piece	chunks[];
};

struct lite_ctrl_memset;
struct lite_ctrl_memmove;
struct lite_lmr *lite_lmr_get_granted(u32 id, u16 node, u32 perm, int *err);
int lite_lmr_serve_memset(u16 src, const struct lite_ctrl_memset *m);
int lite_lmr_serve_memmove(u16 src, const struct lite_ctrl_memmove *m);

#endif /* LITE_LMR_H */
