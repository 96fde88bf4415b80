// SPDX-License-Identifier: GPL-2.0
/*
 * One-sided data operations on a remote LMR: RDMA READ and WRITE with the
 * owner's global rkey on a QP of the shared pool. The caller's memory goes
 * through a DMA-mapped bounce buffer (user memory is never assumed to be
 * contiguous or resident); the transfer is cut at the owner's chunk
 * boundaries and at the bounce buffer's size.
 *
 * An operation owns its bounce buffer and a reference on the handle and the
 * peer until its last work request completes, even when the caller stopped
 * waiting: a late completion never touches freed memory, and revocation
 * (lite_handles_revoke) waits for it.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_handle.h"

#define LITE_BOUNCE_MAX		(1U << 20)

static unsigned int lite_op_timeout_ms = 10000;
module_param_named(op_timeout_ms, lite_op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(op_timeout_ms, "how long an RDMA read or write may take (default: 10000)");

struct lite_rdma_op {
	struct ib_cqe		cqe;
	refcount_t		refs;	/* the waiter's + one per posted WR */
	atomic_t		pending;
	struct completion	done;
	int			status;
	struct lite_qp		*lqp;
	struct lite_peer	*peer;
	struct lite_handle	*h;
	void			*buf;
	u64			dma;
	u32			len;
};

static void lite_op_put(struct lite_rdma_op *op)
{
	if (!refcount_dec_and_test(&op->refs))
		return;
	if (op->dma)
		ib_dma_unmap_single(op->peer->dev->ibdev, op->dma, op->len,
				    DMA_BIDIRECTIONAL);
	kvfree(op->buf);
	lite_handle_end(op->h);
	lite_handle_put(op->h);
	lite_peer_put(op->peer);
	kfree(op);
}

static void lite_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rdma_op *op = container_of(wc->wr_cqe, struct lite_rdma_op, cqe);

	lite_qp_complete(op->lqp);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			lite_warn("node %u: RDMA %s failed: %s\n", op->peer->id,
				  wc->opcode == IB_WC_RDMA_READ ? "read" : "write",
				  ib_wc_status_msg(wc->status));
		WRITE_ONCE(op->status, -EIO);
	}
	if (atomic_dec_and_test(&op->pending))
		complete(&op->done);
	lite_op_put(op);
}

/* A bounce buffer: physically contiguous, halving the size on failure. */
static struct lite_rdma_op *lite_op_alloc(struct lite_handle *h,
					  struct lite_peer *peer, u64 len)
{
	struct ib_device *ibdev = peer->dev->ibdev;
	struct lite_rdma_op *op;
	u32 n = min_t(u64, len, LITE_BOUNCE_MAX);

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	for (; n; n = n > PAGE_SIZE ? n / 2 : 0) {
		op->buf = kmalloc(n, GFP_KERNEL | __GFP_NOWARN);
		if (op->buf)
			break;
	}
	if (!op->buf)
		goto err;
	op->len = n;
	op->dma = ib_dma_map_single(ibdev, op->buf, n, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, op->dma))
		goto err;
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
err:
	kfree(op->buf);
	kfree(op);
	return NULL;
}

/* Post the WRs moving @len bytes between the bounce buffer and @off. */
static int lite_op_post(struct lite_rdma_op *op, bool write, u64 off, u32 len)
{
	struct lite_handle *h = op->h;
	u64 mask = (1ULL << h->chunk_shift) - 1;
	u32 done = 0, n;
	int ret = 0;

	while (done < len) {
		struct ib_sge sge;
		struct ib_rdma_wr wr = {
			.wr = {
				.wr_cqe		= &op->cqe,
				.sg_list	= &sge,
				.num_sge	= 1,
				.opcode		= write ? IB_WR_RDMA_WRITE :
							  IB_WR_RDMA_READ,
				.send_flags	= IB_SEND_SIGNALED,
			},
			.rkey = h->rkey,
		};
		u64 pos = off + done;

		n = min_t(u64, len - done, mask + 1 - (pos & mask));
		wr.remote_addr = h->chunk[pos >> h->chunk_shift] + (pos & mask);
		sge = (struct ib_sge) {
			.addr	= op->dma + done,
			.length	= n,
			.lkey	= op->peer->dev->pd->local_dma_lkey,
		};
		atomic_inc(&op->pending);
		refcount_inc(&op->refs);
		ret = lite_qp_post(op->lqp, &wr.wr);
		if (ret) {
			atomic_dec(&op->pending);
			refcount_dec(&op->refs);
			break;
		}
		done += n;
	}
	/* Drop the guard: done fires once every posted WR completed. */
	if (atomic_dec_and_test(&op->pending))
		complete(&op->done);
	return ret;
}

static int lite_op_wait(struct lite_rdma_op *op)
{
	if (!wait_for_completion_timeout(&op->done,
					 msecs_to_jiffies(lite_op_timeout_ms))) {
		lite_warn("node %u: RDMA operation timed out after %u ms\n",
			  op->peer->id, lite_op_timeout_ms);
		return -ETIMEDOUT;
	}
	return READ_ONCE(op->status);
}

/**
 * lite_rdma_rw() - read or write a range of a remote LMR
 * @h: a handle on a remote LMR; the caller checked permission and bounds
 * @off: offset in the LMR
 * @iter: the caller's memory
 * @len: bytes
 * @write: from @iter to the LMR, else from the LMR to @iter
 *
 * Context: process context.
 * Return: 0, -EKEYREVOKED, -ENOTCONN (the owner left), -EFAULT, -ENOMEM,
 * -EIO or -ETIMEDOUT.
 */
int lite_rdma_rw(struct lite_handle *h, u64 off, struct iov_iter *iter,
		 u64 len, bool write)
{
	struct lite_rdma_op *op;
	struct lite_peer *peer;
	int ret = 0;
	u32 n;

	peer = lite_peer_get(h->node, h->gen);
	if (!peer)
		return -ENOTCONN;
	while (len && !ret) {
		ret = lite_handle_begin(h);
		if (ret)
			break;
		op = lite_op_alloc(h, peer, len);
		if (!op) {
			lite_handle_end(h);
			ret = -ENOMEM;
			break;
		}
		n = min_t(u64, len, op->len);
		if (write && copy_from_iter(op->buf, n, iter) != n)
			ret = -EFAULT;
		if (!ret)
			ret = lite_op_post(op, write, off, n);
		if (!ret || atomic_read(&op->pending))
			ret = lite_op_wait(op) ?: ret;
		if (!ret && !write && copy_to_iter(op->buf, n, iter) != n)
			ret = -EFAULT;
		lite_op_put(op);
		off += n;
		len -= n;
	}
	lite_peer_put(peer);
	return ret;
}
