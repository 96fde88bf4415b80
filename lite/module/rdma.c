// SPDX-License-Identifier: GPL-2.0
/*
 * One-sided data operations on a remote LMR: RDMA READ and WRITE into the
 * owner's memory pool on a QP of the shared pool. The caller's memory goes
 * through a DMA-mapped bounce buffer (user memory is never assumed to be
 * contiguous or resident), unless it is a zero-copy buffer (ubuf.c), whose
 * pages are mapped for the operation instead. The transfer is cut at the
 * owner's chunk boundaries and at the local buffer's.
 *
 * An operation owns its bounce buffer and a reference on the handle until
 * it is freed, even when the caller stopped waiting: a late completion
 * never touches freed memory. It holds the peer (and so its device) only
 * while it is attached to it: from just before it posts, after
 * the caller's memory was copied in, until its last work request completed
 * (or was flushed), when its DMA mappings go too (lite_op_detach). So no
 * user copy, no stalled page fault and no operation left unreaped holds a
 * peer or a device. It counts as in flight on the handle
 * (lite_handle_begin) over the same span: revocation (lite_handles_revoke)
 * waits for posted work, never for a stalled page fault of the caller's.
 *
 * DMA: the bounce buffer is mapped only after the CPU wrote it and
 * unmapped before the CPU reads it (the unmap syncs for the CPU), so no
 * explicit sync is needed and none is missed on a bounce-buffered
 * (swiotlb) or non-coherent platform. Zero-copy pages are mapped for one
 * operation the same way.
 */
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "../include/uapi/lite.h"

#define LITE_BOUNCE_MAX		(1U << 20)
#define LITE_ZC_MAX_WRS		16	/* work requests per zero-copy step */

static unsigned int lite_op_timeout_ms = 10000;
module_param_named(op_timeout_ms, lite_op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(op_timeout_ms, "how long an RDMA read or write may take (default: 10000)");

/* Recent operations' time to completion (wait.c). */
static struct lite_wait_hist lite_op_hist;

struct lite_rdma_op {
	struct ib_cqe		cqe;
	struct work_struct	release;	/* a release the CQ handler started */
	refcount_t		refs;	/* the waiter's + one per posted WR */
	atomic_t		pending;
	bool			begun;	/* counted in flight on @h */
	bool			atomic;	/* an atomic, into buf */
	bool			detached; /* posted by a queue that closed */
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

/* Per open file: bounce buffers are kernel memory, held until reaped. */
static unsigned int lite_async_max = 1024;
module_param_named(async_max, lite_async_max, uint, 0644);
MODULE_PARM_DESC(async_max, "operations one open /dev/lite (or the kernel API) may have posted and not yet reaped (default: 1024)");

static unsigned int lite_async_max_mb = 64;
module_param_named(async_max_mb, lite_async_max_mb, uint, 0644);
MODULE_PARM_DESC(async_max_mb, "MiB those operations may move in all (default: 64; and per user, user_async_mb)");

static void lite_async_release(struct kref *ref)
{
	kfree(container_of(ref, struct lite_async, ref));
}

/*
 * Every work request of @op completed, or it never posted: unmap its
 * memory (for the CPU) and drop its peer. Any context.
 */
static void lite_op_detach(struct lite_rdma_op *op)
{
	struct lite_peer *peer = op->peer;
	struct ib_device *ibdev;
	unsigned int i;

	if (!peer)
		return;
	ibdev = peer->dev->ibdev;
	if (op->dma)
		ib_dma_unmap_single(ibdev, op->dma, op->len, DMA_BIDIRECTIONAL);
	op->dma = 0;
	for (i = 0; i < op->nr_maps; i++)
		ib_dma_unmap_page(ibdev, op->maps[i].dma, op->maps[i].len,
				  op->dir);
	op->nr_maps = 0;
	op->peer = NULL;
	lite_peer_put(peer);
}

static void lite_op_release(struct lite_rdma_op *op)
{
	lite_op_detach(op);	/* attached, but never posted */
	kfree(op->buf);
	if (op->ub)
		lite_ubuf_put(op->ub);
	if (op->h)
		lite_handle_put(op->h);
	if (op->as)
		kref_put(&op->as->ref, lite_async_release);
	kfree(op);
}

static void lite_op_release_work(struct work_struct *work)
{
	lite_op_release(container_of(work, struct lite_rdma_op, release));
}

/* Process context: the waiter's reference, or an operation never posted. */
static void lite_op_put(struct lite_rdma_op *op)
{
	if (refcount_dec_and_test(&op->refs))
		lite_op_release(op);
}

/* A posted operation is complete: on to its queue's done list. */
static void lite_async_finish(struct lite_rdma_op *op)
{
	struct lite_async *as = op->as;
	unsigned long flags;

	spin_lock_irqsave(&as->lock, flags);
	if (!op->detached)
		list_move_tail(&op->alink, &as->done);
	spin_unlock_irqrestore(&as->lock, flags);
	/*
	 * @op may be reaped and gone now, @as not: a work request's reference
	 * on @op holds it, or else the context our caller posts for.
	 */
	wake_up(&as->wq);
}

/* Every posted WR completed: the LMR is out of reach, wake the waiter. */
static void lite_op_finish(struct lite_rdma_op *op)
{
	lite_op_detach(op);
	if (op->begun)
		lite_handle_end(op->h);
	complete(&op->done);
	/*
	 * Last: once on the done list, a reaper may free @op unless our
	 * caller holds a reference of a work request's (lite_op_posted's
	 * caller holds only the queue's).
	 */
	if (op->as)
		lite_async_finish(op);
}

static void lite_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rdma_op *op = container_of(wc->wr_cqe, struct lite_rdma_op, cqe);

	lite_qp_complete(op->lqp, wc->status);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			lite_node_warn(op->node, op->gen, "RDMA %s failed: %s\n",
				       op->atomic ? "atomic" :
				       wc->opcode == IB_WC_RDMA_READ ? "read" : "write",
				       ib_wc_status_msg(wc->status));
		WRITE_ONCE(op->status, -EIO);
	}
	if (atomic_dec_and_test(&op->pending))
		lite_op_finish(op);
	/*
	 * The CQ handler runs in softirq context; the waiter normally drops
	 * the last reference. Only after it gave up (a timeout) does a late
	 * completion release here, and that may sleep: defer it, to a
	 * workqueue that module unload drains.
	 */
	if (refcount_dec_and_test(&op->refs)) {
		INIT_WORK(&op->release, lite_op_release_work);
		lite_ctrl_queue(&op->release);
	}
}

/* An operation on @h, not yet attached to a peer (lite_op_attach). */
static struct lite_rdma_op *lite_op_new(struct lite_handle *h)
{
	struct lite_rdma_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	if (!op)
		return ERR_PTR(-ENOMEM);
	op->cqe.done = lite_op_done;
	refcount_set(&op->refs, 1);
	atomic_set(&op->pending, 1);
	init_completion(&op->done);
	INIT_LIST_HEAD(&op->alink);
	kref_get(&h->ref);
	op->h = h;
	return op;
}

/*
 * With a bounce buffer of up to @len bytes (op->len says how many):
 * physically contiguous, halving on failure. Not mapped yet.
 */
static struct lite_rdma_op *lite_op_alloc(struct lite_handle *h, u64 len)
{
	struct lite_rdma_op *op = lite_op_new(h);
	u32 n = min_t(u64, len, LITE_BOUNCE_MAX);

	if (IS_ERR(op))
		return op;
	for (; n; n = n > PAGE_SIZE ? n / 2 : 0) {
		op->buf = kmalloc(n, GFP_KERNEL | __GFP_NOWARN);
		if (op->buf)
			break;
	}
	if (!op->buf) {
		lite_op_put(op);
		return ERR_PTR(-ENOMEM);
	}
	op->len = n;
	return op;
}

/*
 * Just before posting, once the CPU is done writing the bounce buffer:
 * take a reference on @peer (the caller holds one) and a QP of it, and
 * map the buffer for the device. lite_op_detach() undoes it.
 */
static int lite_op_attach(struct lite_rdma_op *op, struct lite_peer *peer)
{
	struct ib_device *ibdev = peer->dev->ibdev;

	refcount_inc(&peer->refs);
	op->peer = peer;
	op->node = peer->id;
	op->gen = peer->gen;
	op->lqp = lite_peer_pick_qp(peer);
	if (!op->buf)
		return 0;
	op->dma = ib_dma_map_single(ibdev, op->buf, op->len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, op->dma)) {
		op->dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Post @wr for @op: done fires only once it completed too. Every one-sided
 * WR (read, write, atomic; one SGE each) goes through here: counted here.
 */
static int lite_op_post_wr(struct lite_rdma_op *op, const struct ib_send_wr *wr)
{
	int ret;

	atomic_inc(&op->pending);
	refcount_inc(&op->refs);
	ret = lite_qp_post(op->lqp, wr);
	if (ret) {
		atomic_dec(&op->pending);
		refcount_dec(&op->refs);
		return ret;
	}
	lite_stat_peer(op->node, LITE_PSTAT_RDMA_OPS, 1);
	lite_stat_peer(op->node, LITE_PSTAT_RDMA_BYTES,
		       wr->sg_list[0].length);
	return 0;
}

/* Post one WR moving @len bytes between local @dma and LMR offset @off. */
static int lite_op_post_one(struct lite_rdma_op *op, bool write, u64 off,
			    u64 dma, u32 len)
{
	struct lite_handle *h = op->h;
	u64 mask = (1ULL << h->chunk_shift) - 1;
	struct ib_sge sge = {
		.addr	= dma,
		.length	= len,
		.lkey	= op->peer->dev->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe		= &op->cqe,
			.sg_list	= &sge,
			.num_sge	= 1,
			.opcode		= write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.remote_addr	= h->chunk[off >> h->chunk_shift] + (off & mask),
		.rkey		= lite_handle_rkey(h, off),
	};

	return lite_op_post_wr(op, &wr.wr);
}

/* Bytes from LMR offset @off to the end of its chunk. */
static u64 lite_chunk_left(const struct lite_handle *h, u64 off)
{
	u64 mask = (1ULL << h->chunk_shift) - 1;

	return mask + 1 - (off & mask);
}

/* Drop the guard: done fires once every posted WR completed. */
static void lite_op_posted(struct lite_rdma_op *op)
{
	if (atomic_dec_and_test(&op->pending))
		lite_op_finish(op);
}

/*
 * Right before the first post: is the handle still good? After this a
 * revocation waits for the operation's completions.
 */
static int lite_op_begin(struct lite_rdma_op *op)
{
	int ret = lite_handle_begin(op->h);

	op->begun = !ret;
	return ret;
}

/* The bounce buffer's first @len bytes to or from LMR offset @off. */
static int lite_op_post(struct lite_rdma_op *op, bool write, u64 off, u32 len)
{
	u32 done = 0, n;
	int ret = lite_op_begin(op);

	while (done < len && !ret) {
		n = min_t(u64, len - done, lite_chunk_left(op->h, off + done));
		ret = lite_op_post_one(op, write, off + done, op->dma + done, n);
		done += n;
	}
	if (ret)	/* before the guard drops: a queued op reports it */
		WRITE_ONCE(op->status, ret);
	lite_op_posted(op);
	return ret;
}

/*
 * Zero copy: up to LITE_ZC_MAX_WRS pieces of the user buffer, each mapped
 * for this operation. Sets *@len to the bytes it covers.
 */
static int lite_op_post_zc(struct lite_rdma_op *op, bool write, u64 off,
			   u64 uoff, u64 *len)
{
	struct ib_device *ibdev = op->peer->dev->ibdev;
	u64 done = 0, avail, n;
	struct page *page;
	u32 in_chunk;
	u64 dma;
	int ret = lite_op_begin(op);

	op->dir = write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	while (done < *len && op->nr_maps < LITE_ZC_MAX_WRS && !ret) {
		page = lite_ubuf_page(op->ub, uoff + done, &in_chunk, &avail);
		n = min3(*len - done, avail, lite_chunk_left(op->h, off + done));
		dma = ib_dma_map_page(ibdev, page, in_chunk, n, op->dir);
		if (ib_dma_mapping_error(ibdev, dma)) {
			ret = -ENOMEM;
			break;
		}
		op->maps[op->nr_maps].dma = dma;
		op->maps[op->nr_maps++].len = n;
		ret = lite_op_post_one(op, write, off + done, dma, n);
		done += n;
	}
	*len = done;
	lite_op_posted(op);
	return ret;
}

/*
 * Wait for @op at most op_timeout_ms: as the wait policy says (wait.c) if
 * @spin, else sleeping at once and unrecorded (low priority, as for RPC).
 */
static int lite_op_wait(struct lite_rdma_op *op, bool spin)
{
	u64 start = ktime_get_ns();
	u64 deadline = start + (u64)lite_op_timeout_ms * NSEC_PER_MSEC;
	u64 now;

	if (!spin ||
	    !lite_spin(&lite_op_hist, lite_spin_completion, &op->done, start,
		       deadline)) {
		now = ktime_get_ns();
		if (!wait_for_completion_timeout(&op->done, now < deadline ?
						 nsecs_to_jiffies(deadline - now) : 0)) {
			/* op->peer may go any moment: a late completion. */
			lite_node_warn(op->node, op->gen,
				       "RDMA operation timed out after %u ms\n",
				       lite_op_timeout_ms);
			lite_stat_peer(op->node, LITE_PSTAT_TIMEOUTS, 1);
			return -ETIMEDOUT;
		}
	}
	if (spin)
		lite_wait_learn(&lite_op_hist, ktime_get_ns() - start);
	return READ_ONCE(op->status);
}

/*
 * Through the bounce buffer, a step of up to LITE_BOUNCE_MAX at a time.
 * The peer is held from after the caller's memory was copied in until
 * the step completed, never across a copy to or from it.
 */
static int lite_rdma_rw_copy(struct lite_handle *h, u64 off,
			     struct iov_iter *iter, u64 len, bool write,
			     int prio)
{
	struct lite_rdma_op *op;
	struct lite_peer *peer;
	u64 step;
	int ret = 0;
	u32 n;

	while (len && !ret) {
		/* A killed caller stops between steps (a long transfer). */
		if (fatal_signal_pending(current))
			return -EINTR;
		op = lite_op_alloc(h, lite_prio_low_cap(prio, len));
		if (IS_ERR(op))
			return PTR_ERR(op);
		n = op->len;
		if (write && copy_from_iter(op->buf, n, iter) != n) {
			lite_op_put(op);
			return -EFAULT;
		}
		peer = lite_peer_get(h->node, h->gen);
		if (!peer) {
			lite_op_put(op);
			return -ENOTCONN;
		}
		step = lite_prio_low_step(peer, prio, n);
		if (step < n) {	/* low priority: the rest in later steps */
			if (write)
				iov_iter_revert(iter, n - step);
			n = step;
		}
		ret = lite_op_attach(op, peer);
		if (!ret)
			ret = lite_op_post(op, write, off, n);
		else
			lite_op_posted(op);
		ret = lite_op_wait(op, prio != LITE_PRIO_LOW) ?: ret;
		lite_prio_low_done(peer, prio, step);
		lite_peer_put(peer);
		if (!ret && !write && copy_to_iter(op->buf, n, iter) != n)
			ret = -EFAULT;
		lite_op_put(op);
		off += n;
		len -= n;
	}
	return ret;
}

static int lite_rdma_rw_zc(struct lite_handle *h, u64 off,
			   struct lite_ubuf *ub, u64 uoff, u64 len,
			   bool write, int prio)
{
	struct lite_rdma_op *op;
	struct lite_peer *peer;
	u64 n, step;
	int ret = 0;

	while (len && !ret) {
		if (fatal_signal_pending(current))
			return -EINTR;
		peer = lite_peer_get(h->node, h->gen);
		if (!peer)
			return -ENOTCONN;
		step = lite_prio_low_step(peer, prio, len);
		op = lite_op_new(h);
		if (IS_ERR(op)) {
			lite_prio_low_done(peer, prio, step);
			lite_peer_put(peer);
			return PTR_ERR(op);
		}
		kref_get(&ub->ref);
		op->ub = ub;
		n = step;
		lite_op_attach(op, peer);	/* no bounce buffer: cannot fail */
		ret = lite_op_post_zc(op, write, off, uoff, &n);
		ret = lite_op_wait(op, prio != LITE_PRIO_LOW) ?: ret;
		lite_prio_low_done(peer, prio, step);
		lite_peer_put(peer);
		lite_op_put(op);
		off += n;
		uoff += n;
		len -= n;
	}
	return ret;
}

/**
 * lite_rdma_rw() - read or write a range of a remote LMR
 * @h: a handle on a remote LMR; the caller checked permission and bounds
 * @off: offset in the LMR
 * @iter: the caller's memory
 * @ub: the zero-copy buffer holding that memory, or NULL
 * @uoff: the memory's offset in @ub
 * @len: bytes
 * @write: from the caller's memory to the LMR, else the other way
 * @prio: LITE_PRIO_*: low priority goes in bounded steps (prio.c)
 *
 * Context: process context.
 * Return: 0, -EKEYREVOKED, -ENOTCONN (the owner left), -EFAULT, -ENOMEM,
 * -EIO, -ETIMEDOUT, or -EINTR (the caller was killed between steps).
 */
int lite_rdma_rw(struct lite_handle *h, u64 off, struct iov_iter *iter,
		 struct lite_ubuf *ub, u64 uoff, u64 len, bool write, int prio)
{
	if (ub)
		return lite_rdma_rw_zc(h, off, ub, uoff, len, write, prio);
	return lite_rdma_rw_copy(h, off, iter, len, write, prio);
}

/**
 * lite_rdma_atomic() - an RDMA atomic on 8 bytes of a remote LMR
 * @h: a handle on a remote LMR whose owner runs atomics on its NIC; the
 *	caller checked permission, alignment and bounds
 * @off: offset in the LMR, 8-aligned
 * @opcode: IB_WR_ATOMIC_FETCH_AND_ADD or IB_WR_ATOMIC_CMP_AND_SWP
 * @compare_add: the addend, or the expected value
 * @swap: the new value (CMP_AND_SWP)
 * @old: out: the value before
 *
 * Context: process context.
 * Return: 0, -EKEYREVOKED, -ENOTCONN (the owner left), -ENOMEM, -EIO or
 * -ETIMEDOUT.
 */
int lite_rdma_atomic(struct lite_handle *h, u64 off, enum ib_wr_opcode opcode,
		     u64 compare_add, u64 swap, u64 *old)
{
	u64 mask = (1ULL << h->chunk_shift) - 1;
	struct lite_rdma_op *op;
	struct lite_peer *peer;
	struct ib_sge sge;
	struct ib_atomic_wr wr = lite_atomic_wr(&sge, opcode,
			h->chunk[off >> h->chunk_shift] + (off & mask),
			lite_handle_rkey(h, off), compare_add, swap);
	int ret;

	op = lite_op_alloc(h, sizeof(u64));
	if (IS_ERR(op))
		return PTR_ERR(op);
	peer = lite_peer_get(h->node, h->gen);
	if (!peer) {
		lite_op_put(op);
		return -ENOTCONN;
	}
	op->atomic = true;
	wr.wr.wr_cqe = &op->cqe;
	ret = lite_op_attach(op, peer);
	sge = (struct ib_sge) {
		.addr	= op->dma,
		.length	= sizeof(u64),
		.lkey	= peer->dev->pd->local_dma_lkey,
	};
	if (!ret)
		ret = lite_op_begin(op);
	if (!ret)
		ret = lite_op_post_wr(op, &wr.wr);
	lite_op_posted(op);
	if (!ret)
		lite_stat_inc(LITE_STAT_ATOMIC_NIC);
	ret = lite_op_wait(op, true) ?: ret;
	lite_peer_put(peer);
	if (!ret)	/* unmapped when it completed: the CPU's now */
		*old = *(u64 *)op->buf;
	lite_op_put(op);
	return ret;
}
/*
 * Operations posted without waiting. The caller's memory is copied into
 * the operation's bounce buffer when a write is posted; a read's data stays
 * in the bounce buffer until the caller reaps the completion (POLL or the
 * fence), which copies it to the address given at post time, in the memory
 * of the process that reaps. So nothing ever DMAs to caller memory that
 * may have gone, and an operation nobody reaps costs only its queue slot.
 */

/**
 * lite_async_create() - an empty queue of posted operations
 * @user: the account the bytes in flight are charged to (user_async_mb),
 *	or NULL (the kernel API); it must outlive the queue's destroy
 *
 * Return: the queue, or NULL when out of memory.
 */
struct lite_async *lite_async_create(struct lite_user *user)
{
	struct lite_async *as = kzalloc(sizeof(*as), GFP_KERNEL);

	if (!as)
		return NULL;
	kref_init(&as->ref);
	as->user = user;
	spin_lock_init(&as->lock);
	INIT_LIST_HEAD(&as->busy);
	INIT_LIST_HEAD(&as->done);
	init_waitqueue_head(&as->wq);
	return as;
}

/* Take a slot for @op on @as: -EAGAIN when the context has too many. */
static int lite_async_add(struct lite_async *as, struct lite_rdma_op *op,
			  u64 cookie)
{
	int ret;

	/* Per user too: a user may open /dev/lite many times. */
	ret = lite_user_charge(as->user, LITE_RES_ASYNC_BYTES, op->alen);
	if (ret)
		return ret;
	op->cookie = cookie;
	spin_lock_irq(&as->lock);
	if (as->nr >= READ_ONCE(lite_async_max) ||
	    as->bytes + op->alen > (u64)READ_ONCE(lite_async_max_mb) << 20) {
		lite_user_uncharge(as->user, LITE_RES_ASYNC_BYTES, op->alen);
		ret = -EAGAIN;
	} else {
		as->nr++;
		as->bytes += op->alen;
		kref_get(&as->ref);
		op->as = as;
		list_add_tail(&op->alink, &as->busy);
	}
	spin_unlock_irq(&as->lock);
	return ret;
}

/**
 * lite_async_post_local() - a posted operation on an LMR of this node: the
 * CPU copies at once, and its completion is queued
 * @as: the caller's queue
 * @lmr: the LMR
 * @off: offset in it
 * @iter: the caller's memory
 * @len: bytes
 * @write: to the LMR, else from it
 * @cookie: the caller's id for it
 *
 * Return: 0 (queued, the copy's result is its status), -EAGAIN (the queue
 * is full: nothing copied) or -ENOMEM.
 */
int lite_async_post_local(struct lite_async *as, struct lite_lmr *lmr, u64 off,
			  struct iov_iter *iter, u64 len, bool write,
			  u64 cookie)
{
	struct lite_rdma_op *op = kzalloc(sizeof(*op), GFP_KERNEL);
	int ret;

	if (!op)
		return -ENOMEM;
	refcount_set(&op->refs, 1);
	INIT_LIST_HEAD(&op->alink);
	op->write = true;	/* nothing to copy at reap */
	op->alen = len;
	ret = lite_async_add(as, op, cookie);
	if (ret) {
		kfree(op);
		return ret;
	}
	op->status = lite_lmr_copy(lmr, off, iter, len, write);
	lite_async_finish(op);
	return 0;
}

/**
 * lite_rdma_post() - post a read or write of a remote LMR without waiting
 * @as: the caller's queue, where the completion goes
 * @h: a handle on a remote LMR; the caller checked permission and bounds
 * @off: offset in the LMR
 * @addr: the caller's memory: a user address, or kernel memory if @kernel
 * @kernel: @addr is a kernel pointer
 * @len: 1..LITE_ASYNC_MAX_SIZE bytes
 * @write: from the caller's memory to the LMR, else the other way
 * @cookie: the caller's id for it, reported with its completion
 *
 * A write's data is copied before this returns; a read's is copied to
 * @addr when the completion is reaped (lite_async_reap()). The operation
 * holds the peer only until it completes: one never reaped holds
 * nothing but its queue slot and buffer.
 *
 * Context: process context.
 * Return: 0 when posted (its completion will be queued), or -EAGAIN (the
 * queue is full), -EKEYREVOKED, -ENOTCONN, -EFAULT, -ENOMEM; then nothing
 * is queued. A failure after the first work request was posted is the
 * completion's status instead.
 */
int lite_rdma_post(struct lite_async *as, struct lite_handle *h, u64 off,
		   u64 addr, bool kernel, u32 len, bool write, u64 cookie)
{
	struct lite_rdma_op *op;
	struct lite_peer *peer;
	int ret;

	if (!len || len > LITE_ASYNC_MAX_SIZE)
		return -EINVAL;
	if (!lite_peer_alive(h->node, h->gen))
		return -ENOTCONN;	/* before copying anything */
	op = lite_op_alloc(h, len);
	if (IS_ERR(op))
		return PTR_ERR(op);
	if (op->len < len) {	/* no contiguous bounce buffer that long */
		ret = -ENOMEM;
		goto err;
	}
	op->addr = addr;
	op->kernel = kernel;
	op->write = write;
	op->alen = len;
	if (write) {
		if (kernel)
			memcpy(op->buf, (void *)(uintptr_t)addr, len);
		else if (copy_from_user(op->buf, u64_to_user_ptr(addr), len)) {
			ret = -EFAULT;
			goto err;
		}
	}
	/*
	 * Fail early on a revoked handle (nothing queued); after the slot is
	 * taken, lite_op_post() checks again, and then the completion carries
	 * what went wrong.
	 */
	if (lite_handle_revoked(h)) {
		ret = -EKEYREVOKED;
		goto err;
	}
	peer = lite_peer_get(h->node, h->gen);
	if (!peer) {
		ret = -ENOTCONN;
		goto err;
	}
	ret = lite_op_attach(op, peer);	/* the operation holds its own */
	lite_peer_put(peer);
	if (ret)
		goto err;
	ret = lite_async_add(as, op, cookie);
	if (ret)
		goto err;
	lite_op_post(op, write, off, len);
	return 0;
err:
	lite_op_posted(op);	/* drops the guard: not queued, so only done */
	lite_op_put(op);
	return ret;
}

/*
 * Reap one completion: a read's data goes to its destination now, in the
 * reaping process's memory. Returns the operation's status.
 */
static int lite_async_reap_one(struct lite_rdma_op *op)
{
	int status = READ_ONCE(op->status);
	void __user *dst = u64_to_user_ptr(op->addr);

	if (!status && !op->write) {
		if (op->kernel)
			memcpy((void *)(uintptr_t)op->addr, op->buf, op->alen);
		else if (copy_to_user(dst, op->buf, op->alen))
			status = -EFAULT;
	}
	return status;
}

/**
 * lite_async_reap() - take completed operations off a queue
 * @as: the queue
 * @out: room for @max completions, or NULL to discard them
 * @max: how many to take at most
 * @first_err: if not NULL, set to the first failed status seen (kept when
 *	already nonzero)
 *
 * Context: process context, in the memory of the process that posted
 * reads with user addresses.
 * Return: how many were taken.
 */
unsigned int lite_async_reap(struct lite_async *as,
			     struct lite_completion *out, unsigned int max,
			     int *first_err)
{
	struct lite_rdma_op *op;
	unsigned int n = 0;
	int status;

	while (n < max) {
		spin_lock_irq(&as->lock);
		op = list_first_entry_or_null(&as->done, struct lite_rdma_op,
					      alink);
		if (op) {
			list_del_init(&op->alink);
			as->nr--;
			as->bytes -= op->alen;
			lite_user_uncharge(as->user, LITE_RES_ASYNC_BYTES,
					   op->alen);
		}
		spin_unlock_irq(&as->lock);
		if (!op)
			break;
		status = lite_async_reap_one(op);
		if (out)
			out[n] = (struct lite_completion) {
				.id = op->cookie, .status = status,
			};
		if (first_err && !*first_err)
			*first_err = status;
		lite_op_put(op);
		n++;
	}
	return n;
}

static bool lite_async_ready(struct lite_async *as, bool all)
{
	bool ready;

	spin_lock_irq(&as->lock);
	ready = all ? list_empty(&as->busy) :
		      !list_empty(&as->done) || list_empty(&as->busy);
	spin_unlock_irq(&as->lock);
	return ready;
}

/**
 * lite_async_wait() - wait until a queue has a completion to reap, or
 * nothing in flight
 * @as: the queue
 * @all: wait until nothing is in flight at all (the fence)
 * @timeout_ms: 0: do not wait; negative: no bound but a signal
 *
 * Context: process context.
 * Return: 0 when ready, -ETIMEDOUT, or -EINTR on a signal.
 */
int lite_async_wait(struct lite_async *as, bool all, int timeout_ms)
{
	long ret;

	if (lite_async_ready(as, all))
		return 0;
	if (!timeout_ms)
		return -ETIMEDOUT;
	if (timeout_ms < 0) {
		ret = wait_event_interruptible(as->wq,
					       lite_async_ready(as, all));
		return ret ? -EINTR : 0;
	}
	ret = wait_event_interruptible_timeout(as->wq,
					       lite_async_ready(as, all),
					       msecs_to_jiffies(timeout_ms));
	if (ret < 0)
		return -EINTR;
	return ret ? 0 : -ETIMEDOUT;
}

/**
 * lite_async_outstanding() - operations posted on a queue and not reaped
 * @as: the queue
 *
 * Return: the count.
 */
unsigned int lite_async_outstanding(struct lite_async *as)
{
	return READ_ONCE(as->nr);
}

/**
 * lite_async_destroy() - a context closes: end its posted operations
 * @as: the queue
 *
 * Waits (up to op_timeout_ms, ignoring signals: the process may be dying)
 * for what is in flight, then drops every completion unreaped. An
 * operation still in flight after that is detached: it keeps its bounce
 * buffer, handle and peer until its last completion, like a synchronous
 * one whose caller timed out, and then goes (lite_op_done).
 *
 * Context: process context.
 */
void lite_async_destroy(struct lite_async *as)
{
	struct lite_rdma_op *op, *tmp;
	LIST_HEAD(drop);

	if (!wait_event_timeout(as->wq, lite_async_ready(as, true),
				msecs_to_jiffies(lite_op_timeout_ms)))
		pr_warn("closing with RDMA operations in flight after %u ms\n",
			lite_op_timeout_ms);
	spin_lock_irq(&as->lock);
	list_for_each_entry_safe(op, tmp, &as->busy, alink) {
		op->detached = true;
		list_move_tail(&op->alink, &drop);
	}
	list_splice_tail_init(&as->done, &drop);
	as->nr = 0;
	lite_user_uncharge(as->user, LITE_RES_ASYNC_BYTES, as->bytes);
	as->bytes = 0;
	spin_unlock_irq(&as->lock);
	list_for_each_entry_safe(op, tmp, &drop, alink) {
		list_del_init(&op->alink);
		lite_op_put(op);
	}
	kref_put(&as->ref, lite_async_release);
}
