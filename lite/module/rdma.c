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
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "rdma.h"
#include "../include/uapi/lite.h"

#define LITE_BOUNCE_MAX		(1U << 20)

/*
 * The largest bounce buffer for the device in use: LITE_BOUNCE_MAX, or
 * less where one streaming mapping cannot be that long (swiotlb bounces
 * at most 256 KiB at once: SEV and TDX guests, swiotlb=force).
 */
static unsigned int lite_bounce_max = LITE_BOUNCE_MAX;

static void lite_rdma_start(struct lite_dev *dev)
{
	size_t max = LITE_BOUNCE_MAX;

	if (!ib_uses_virt_dma(dev->ibdev))
		max = min(max, dma_max_mapping_size(dev->ibdev->dma_device));
	max = max_t(size_t, rounddown_pow_of_two(max), PAGE_SIZE);
	if (max < LITE_BOUNCE_MAX)
		pr_info("%s: one DMA mapping takes at most %zu KiB: reads and writes go in steps of that\n",
			dev_name(&dev->ibdev->dev), max >> 10);
	WRITE_ONCE(lite_bounce_max, max);
}

const struct lite_member_ops lite_rdma_member_ops = {
	.start	= lite_rdma_start,
};

unsigned int lite_op_timeout_ms = 10000;
module_param_named(op_timeout_ms, lite_op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(op_timeout_ms, "how long an RDMA read or write may take (default: 10000)");

/* Recent operations' time to completion (wait.c). */
static struct lite_wait_hist lite_op_hist;

void lite_async_release(struct kref *ref)
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
void lite_op_put(struct lite_rdma_op *op)
{
	if (refcount_dec_and_test(&op->refs))
		lite_op_release(op);
}

/* A posted operation is complete: on to its queue's done list. */
void lite_async_finish(struct lite_rdma_op *op)
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

void lite_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rdma_op *op = container_of(wc->wr_cqe, struct lite_rdma_op, cqe);

	lite_qp_complete(op->lqp, wc->status);
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		WRITE_ONCE(op->flushed, true);
		WRITE_ONCE(op->status, -EIO);
	} else if (wc->status != IB_WC_SUCCESS) {
		lite_node_warn(op->node, op->gen, "RDMA %s failed: %s\n",
			       op->atomic ? "atomic" :
			       wc->opcode == IB_WC_RDMA_READ ? "read" : "write",
			       ib_wc_status_msg(wc->status));
		WRITE_ONCE(op->failed, true);
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
struct lite_rdma_op *lite_op_alloc(struct lite_handle *h, u64 len)
{
	struct lite_rdma_op *op = lite_op_new(h);
	u32 n = min_t(u64, len, READ_ONCE(lite_bounce_max));

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
int lite_op_attach(struct lite_rdma_op *op, struct lite_peer *peer)
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
	ret = lite_qp_post(op->lqp, wr, true);
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
void lite_op_posted(struct lite_rdma_op *op)
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
int lite_op_post(struct lite_rdma_op *op, bool write, u64 off, u32 len)
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
		n = min_t(u64, n, READ_ONCE(lite_bounce_max));	/* one mapping */
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
 * Wait for @op at most op_timeout_ms, polling first as a caller of
 * priority @prio does (wait.c); only normal priority's waits are recorded.
 */
static int lite_op_wait(struct lite_rdma_op *op, int prio)
{
	enum lite_wait_mode mode = lite_wait_mode(prio);
	u64 start = ktime_get_ns();
	u64 deadline = start + (u64)lite_op_timeout_ms * NSEC_PER_MSEC;
	u64 now;

	if (lite_spin(&lite_op_hist, lite_spin_completion, &op->done, start,
		      deadline, mode)) {
		lite_stat_inc(LITE_STAT_OP_WAIT_SPUN);
	} else {
		lite_stat_inc(LITE_STAT_OP_WAIT_SLEPT);
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
	if (mode == LITE_WAIT_POLICY)
		lite_wait_learn(&lite_op_hist, ktime_get_ns() - start);
	return READ_ONCE(op->status);
}

/* How often a read or write looks for a QP ready again. */
#define LITE_OP_RETRY_MS	20

/*
 * Should a step of a read or write that failed with @ret be posted again?
 * Yes when it failed only because its QP broke under another's error
 * (every failed WR of it flushed) or was being reconnected, before
 * @deadline (jiffies), so the caller sees no error from a QP reset. A
 * flushed write may have landed: it lands again, the same bytes at the
 * same place (a write racing another writer without a lock may see its
 * bytes overwritten by the retry). A step that reached a revoked LMR
 * fails at lite_op_begin(); one that failed itself (a remote access
 * error) is not retried, and breaks no further QP.
 */
static bool lite_op_retry(const struct lite_rdma_op *op, int ret,
			  unsigned long deadline)
{
	if (ret != -EAGAIN &&
	    !(ret == -EIO && READ_ONCE(op->flushed) && !READ_ONCE(op->failed)))
		return false;
	if (time_after(jiffies, deadline) || fatal_signal_pending(current))
		return false;
	lite_stat_peer(op->node, LITE_PSTAT_RDMA_RETRIED, 1);
	msleep(LITE_OP_RETRY_MS);
	return true;
}

/*
 * Through the bounce buffer, a step of up to lite_bounce_max at a time.
 * The peer is held from after the caller's memory was copied in until
 * the step completed, never across a copy to or from it.
 */
static int lite_rdma_rw_copy(struct lite_handle *h, u64 off,
			     struct iov_iter *iter, u64 len, bool write,
			     int prio)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(lite_op_timeout_ms);
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
		ret = lite_op_wait(op, prio) ?: ret;
		lite_prio_low_done(peer, prio, step);
		lite_peer_put(peer);
		if (lite_op_retry(op, ret, deadline)) {
			lite_op_put(op);
			if (write)
				iov_iter_revert(iter, n);
			ret = 0;
			continue;
		}
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
	unsigned long deadline = jiffies + msecs_to_jiffies(lite_op_timeout_ms);
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
		ret = lite_op_wait(op, prio) ?: ret;
		lite_prio_low_done(peer, prio, step);
		lite_peer_put(peer);
		if (lite_op_retry(op, ret, deadline)) {
			lite_op_put(op);
			ret = 0;
			continue;
		}
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
	ret = lite_op_wait(op, LITE_PRIO_NORMAL) ?: ret;
	lite_peer_put(peer);
	if (!ret)	/* unmapped when it completed: the CPU's now */
		*old = *(u64 *)op->buf;
	lite_op_put(op);
	return ret;
}
