// SPDX-License-Identifier: GPL-2.0
/*
 * One-sided data operations on a remote LMR: RDMA READ and WRITE into the
 * owner's memory pool on a QP of the shared pool. The caller's memory goes
 * through a DMA-mapped bounce buffer (user memory is never assumed to be
 * contiguous or resident), unless it is a zero-copy buffer (ubuf.c), whose
 * pages are mapped for the operation instead. The transfer is cut at the
 * owner's chunk boundaries and at the local buffer's.
 *
 * An operation owns its bounce buffer and a reference on the handle and the
 * peer until its last work request completes, even when the caller stopped
 * waiting: a late completion never touches freed memory. It counts as in
 * flight on the handle (lite_handle_begin) only from just before it posts,
 * after the caller's memory was copied, until that last completion:
 * revocation (lite_handles_revoke) waits for posted work, never for a
 * stalled page fault of the caller's.
 */
#include <linux/module.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_handle.h"
#include "lite_ubuf.h"

#define LITE_BOUNCE_MAX		(1U << 20)
#define LITE_ZC_MAX_WRS		16	/* work requests per zero-copy step */

static unsigned int lite_op_timeout_ms = 10000;
module_param_named(op_timeout_ms, lite_op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(op_timeout_ms, "how long an RDMA read or write may take (default: 10000)");

static unsigned int lite_op_spin_max_us = 1000;
module_param_named(op_spin_max_us, lite_op_spin_max_us, uint, 0644);
MODULE_PARM_DESC(op_spin_max_us, "longest a read or write polls for its completion before it sleeps (default: 1000; 0: sleep at once)");

/* Recent operations' time to completion, ns: an EWMA with weight 1/8. */
static u64 lite_op_avg_ns;
/* Threads waiting for a read or write to complete (lite_op_wait). */
static atomic_t lite_op_waiters = ATOMIC_INIT(0);

struct lite_rdma_op {
	struct ib_cqe		cqe;
	struct work_struct	release;	/* a release the CQ handler started */
	refcount_t		refs;	/* the waiter's + one per posted WR */
	atomic_t		pending;
	bool			begun;	/* counted in flight on @h */
	bool			atomic;	/* an atomic, into buf */
	struct completion	done;
	int			status;
	struct lite_qp		*lqp;
	struct lite_peer	*peer;
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
};

static void lite_op_release(struct lite_rdma_op *op)
{
	struct ib_device *ibdev = op->peer->dev->ibdev;
	unsigned int i;

	if (op->dma)
		ib_dma_unmap_single(ibdev, op->dma, op->len, DMA_BIDIRECTIONAL);
	kfree(op->buf);
	for (i = 0; i < op->nr_maps; i++)
		ib_dma_unmap_page(ibdev, op->maps[i].dma, op->maps[i].len, op->dir);
	if (op->ub)
		lite_ubuf_put(op->ub);
	lite_handle_put(op->h);
	lite_peer_put(op->peer);
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

/* Every posted WR completed: the LMR is out of reach, wake the waiter. */
static void lite_op_finish(struct lite_rdma_op *op)
{
	if (op->begun)
		lite_handle_end(op->h);
	complete(&op->done);
}

static void lite_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rdma_op *op = container_of(wc->wr_cqe, struct lite_rdma_op, cqe);

	lite_qp_complete(op->lqp);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			lite_warn("node %u: RDMA %s failed: %s\n", op->peer->id,
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

/* An operation on @h, not yet in flight (lite_op_begin). */
static struct lite_rdma_op *lite_op_new(struct lite_handle *h,
					struct lite_peer *peer)
{
	struct lite_rdma_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	if (!op)
		return ERR_PTR(-ENOMEM);
	op->cqe.done = lite_op_done;
	refcount_set(&op->refs, 1);
	atomic_set(&op->pending, 1);
	init_completion(&op->done);
	op->lqp = lite_peer_pick_qp(peer);
	kref_get(&h->ref);
	op->h = h;
	refcount_inc(&peer->refs);
	op->peer = peer;
	return op;
}

/* With a bounce buffer: physically contiguous, halving on failure. */
static struct lite_rdma_op *lite_op_alloc(struct lite_handle *h,
					  struct lite_peer *peer, u64 len)
{
	struct ib_device *ibdev = peer->dev->ibdev;
	struct lite_rdma_op *op = lite_op_new(h, peer);
	u32 n = min_t(u64, len, LITE_BOUNCE_MAX);

	if (IS_ERR(op))
		return op;
	for (; n; n = n > PAGE_SIZE ? n / 2 : 0) {
		op->buf = kmalloc(n, GFP_KERNEL | __GFP_NOWARN);
		if (op->buf)
			break;
	}
	if (!op->buf)
		goto err;
	op->dma = ib_dma_map_single(ibdev, op->buf, n, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, op->dma)) {
		op->dma = 0;
		goto err;
	}
	op->len = n;
	return op;
err:
	lite_op_put(op);
	return ERR_PTR(-ENOMEM);
}

/* Post @wr for @op: done fires only once it completed too. */
static int lite_op_post_wr(struct lite_rdma_op *op, const struct ib_send_wr *wr)
{
	int ret;

	atomic_inc(&op->pending);
	refcount_inc(&op->refs);
	ret = lite_qp_post(op->lqp, wr);
	if (ret) {
		atomic_dec(&op->pending);
		refcount_dec(&op->refs);
	}
	return ret;
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
 * Adaptive wait: poll for up to twice the recent time to completion
 * (bounded by op_spin_max_us), then sleep. An operation that completes as
 * usual is seen without a sleep and a wake-up, which cost more than the
 * whole operation on fast hardware; a slow one soon stops burning the CPU.
 * Only while no more operations are waiting than there are CPUs: with many
 * in flight, completions keep the CPU busy anyway and a poller only takes
 * it from the threads that post (16 writer threads on one CPU: 2x fewer
 * writes per second). A poller yields to anything else runnable: rxe
 * transmits from ksoftirqd.
 */
static int lite_op_wait(struct lite_rdma_op *op)
{
	u64 start = ktime_get_ns(), avg = READ_ONCE(lite_op_avg_ns);
	u64 spin = min_t(u64, 2 * avg,
			 (u64)READ_ONCE(lite_op_spin_max_us) * NSEC_PER_USEC);
	bool done = false;
	long left = 1;

	if (atomic_inc_return(&lite_op_waiters) > num_online_cpus())
		spin = 0;
	while (!(done = completion_done(&op->done)) &&
	       ktime_get_ns() - start < spin) {
		if (need_resched() || !single_task_running())
			yield();
		else
			cpu_relax();
	}
	if (!done)
		left = wait_for_completion_timeout(&op->done,
					msecs_to_jiffies(lite_op_timeout_ms));
	atomic_dec(&lite_op_waiters);
	if (!left) {
		lite_warn("node %u: RDMA operation timed out after %u ms\n",
			  op->peer->id, lite_op_timeout_ms);
		return -ETIMEDOUT;
	}
	/* Racy on purpose: a lost update only skews a heuristic. */
	WRITE_ONCE(lite_op_avg_ns, avg - avg / 8 + (ktime_get_ns() - start) / 8);
	return READ_ONCE(op->status);
}

/* Through the bounce buffer, a step of up to LITE_BOUNCE_MAX at a time. */
static int lite_rdma_rw_copy(struct lite_handle *h, struct lite_peer *peer,
			     u64 off, struct iov_iter *iter, u64 len, bool write)
{
	struct lite_rdma_op *op;
	int ret = 0;
	u32 n;

	while (len && !ret) {
		op = lite_op_alloc(h, peer, len);
		if (IS_ERR(op))
			return PTR_ERR(op);
		n = min_t(u64, len, op->len);
		if (write && copy_from_iter(op->buf, n, iter) != n)
			ret = -EFAULT;
		if (!ret) {
			ib_dma_sync_single_for_device(peer->dev->ibdev, op->dma,
						      n, DMA_BIDIRECTIONAL);
			ret = lite_op_post(op, write, off, n);
		} else {
			lite_op_posted(op);
		}
		ret = lite_op_wait(op) ?: ret;
		if (!ret && !write) {
			ib_dma_sync_single_for_cpu(peer->dev->ibdev, op->dma,
						   n, DMA_BIDIRECTIONAL);
			if (copy_to_iter(op->buf, n, iter) != n)
				ret = -EFAULT;
		}
		lite_op_put(op);
		off += n;
		len -= n;
	}
	return ret;
}

static int lite_rdma_rw_zc(struct lite_handle *h, struct lite_peer *peer,
			   u64 off, struct lite_ubuf *ub, u64 uoff, u64 len,
			   bool write)
{
	struct lite_rdma_op *op;
	int ret = 0;
	u64 n;

	while (len && !ret) {
		op = lite_op_new(h, peer);
		if (IS_ERR(op))
			return PTR_ERR(op);
		kref_get(&ub->ref);
		op->ub = ub;
		n = len;
		ret = lite_op_post_zc(op, write, off, uoff, &n);
		ret = lite_op_wait(op) ?: ret;
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
 *
 * Context: process context.
 * Return: 0, -EKEYREVOKED, -ENOTCONN (the owner left), -EFAULT, -ENOMEM,
 * -EIO or -ETIMEDOUT.
 */
int lite_rdma_rw(struct lite_handle *h, u64 off, struct iov_iter *iter,
		 struct lite_ubuf *ub, u64 uoff, u64 len, bool write)
{
	struct lite_peer *peer;
	int ret;

	peer = lite_peer_get(h->node, h->gen);
	if (!peer)
		return -ENOTCONN;
	if (ub)
		ret = lite_rdma_rw_zc(h, peer, off, ub, uoff, len, write);
	else
		ret = lite_rdma_rw_copy(h, peer, off, iter, len, write);
	lite_peer_put(peer);
	return ret;
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
	struct ib_atomic_wr wr = {
		.wr = {
			.sg_list	= &sge,
			.num_sge	= 1,
			.opcode		= opcode,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.remote_addr	= h->chunk[off >> h->chunk_shift] + (off & mask),
		.compare_add	= compare_add,
		.swap		= swap,
		.rkey		= lite_handle_rkey(h, off),
	};
	int ret;

	peer = lite_peer_get(h->node, h->gen);
	if (!peer)
		return -ENOTCONN;
	op = lite_op_alloc(h, peer, sizeof(u64));
	if (IS_ERR(op)) {
		lite_peer_put(peer);
		return PTR_ERR(op);
	}
	op->atomic = true;
	wr.wr.wr_cqe = &op->cqe;
	sge = (struct ib_sge) {
		.addr	= op->dma,
		.length	= sizeof(u64),
		.lkey	= peer->dev->pd->local_dma_lkey,
	};
	ret = lite_op_begin(op);
	if (!ret)
		ret = lite_op_post_wr(op, &wr.wr);
	lite_op_posted(op);
	if (!ret)
		lite_stat_inc(LITE_STAT_ATOMIC_NIC);
	ret = lite_op_wait(op) ?: ret;
	if (!ret) {
		ib_dma_sync_single_for_cpu(peer->dev->ibdev, op->dma,
					   sizeof(u64), DMA_BIDIRECTIONAL);
		*old = *(u64 *)op->buf;
	}
	lite_op_put(op);
	lite_peer_put(peer);
	return ret;
}
