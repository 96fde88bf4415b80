/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rdma.c (an operation: bounce buffer or zero-copy pages, posting,
 * completion, waiting) and rdma_async.c (the queue of operations posted
 * without waiting) share.
 */
#ifndef LITE_RDMA_H
#define LITE_RDMA_H

#include "lite_priv.h"

#define LITE_ZC_MAX_WRS		16	/* work requests per zero-copy step */

struct lite_rdma_op {
	struct ib_cqe		cqe;
	struct work_struct	release;	/* a release the CQ handler started */
	refcount_t		refs;	/* the waiter's + one per posted WR */
	atomic_t		pending;
	bool			begun;	/* counted in flight on @h */
	bool			atomic;	/* an atomic, into buf */
	bool			detached; /* posted by a queue that closed */
	bool			flushed; /* a WR was flushed by a QP reset */
	bool			failed;	/* a WR failed otherwise */
	struct completion	done;
	int			status;
	struct lite_qp		*lqp;
	struct lite_peer	*peer;	/* attached: posted, not yet complete */
	u16			node;	/* the peer's, for messages after */
	u32			gen;
	struct lite_handle	*h;
	void			*buf;	/* bounce buffer ... */
	u64			dma;
	u32			len;
	struct lite_ubuf	*ub;	/* ... or zero-copy pages */
	enum dma_data_direction	dir;
	unsigned int		nr_maps;
	struct {
		u64		dma;
		u32		len;
	} maps[LITE_ZC_MAX_WRS];
	/* Posted without waiting (lite_rdma_post): its queue holds @refs' first. */
	struct lite_async	*as;
	struct list_head	alink;	/* on as->busy, then as->done */
	u64			cookie;
	u64			addr;	/* a read's destination, copied at reap */
	u32			alen;	/* bytes at @addr */
	/*
	 * A read to a user @addr: the address space it was posted from
	 * (mmgrab: the structure, not the memory), the only one @addr may be
	 * copied into; dropped at reap or when the queue is destroyed.
	 */
	struct mm_struct	*mm;
	bool			kernel;	/* @addr is kernel memory */
	bool			write;
};

/*
 * A context's queue of operations posted without waiting. Each operation
 * holds a reference on it, so that a completion arriving after the context
 * closed finds the lock alive; the context holds one more.
 */
struct lite_async {
	struct kref		ref;
	spinlock_t		lock;	/* the lists, @nr; taken from the CQ */
	struct list_head	busy;	/* posted, not complete */
	struct list_head	done;	/* complete, not reaped */
	unsigned int		nr;	/* busy + done */
	u64			bytes;	/* their lengths */
	struct lite_user	*user;	/* charged for @bytes, or NULL */
	wait_queue_head_t	wq;
};

extern unsigned int lite_op_timeout_ms;

void lite_async_release(struct kref *ref);
void lite_op_put(struct lite_rdma_op *op);
void lite_async_finish(struct lite_rdma_op *op);
void lite_op_done(struct ib_cq *cq, struct ib_wc *wc);
struct lite_rdma_op *lite_op_alloc(struct lite_handle *h, u64 len);
int lite_op_attach(struct lite_rdma_op *op, struct lite_peer *peer);
void lite_op_posted(struct lite_rdma_op *op);
int lite_op_post(struct lite_rdma_op *op, bool write, u64 off, u32 len);

#endif /* LITE_RDMA_H */
