// SPDX-License-Identifier: GPL-2.0
/*
 * Atomics on atomic LMRs: fetch-and-add, compare-and-swap and swap of 8
 * aligned bytes.
 *
 * Where the device supports RDMA atomics and LITE memory is fast-registered
 * (pool.c), an owner runs its atomic LMRs' atomics on its NIC and says so
 * in their descriptions (LITE_DESC_NIC_ATOMIC). A mapper whose device has
 * atomics then posts IB_WR_ATOMIC_* work requests straight to the owner's
 * memory (rdma.c); the owner's CPU never sees them. The owner's own atomics,
 * and those a mapper without device atomics asks for (an ATOMIC control
 * message), go to the same memory through a pair of our own QPs connected
 * to each other. So
 * every atomic on one LMR is executed by the owner's device, and they are
 * atomic with respect to each other even where the device only promises
 * that among its own (IB_ATOMIC_HCA; rxe takes a lock that the CPU's
 * atomic instructions would not).
 *
 * Otherwise (no device atomics, unsafe_global_rkey, or nic_atomics=0 when
 * the LMR was created) the owner's CPU runs them for everyone: a local
 * caller itself, remote ones through ATOMIC control messages.
 *
 * The device has no plain swap: on the NIC it is a compare-and-swap loop.
 */
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "lmr.h"
#include "wire.h"
#include "../include/uapi/lite.h"

#define LITE_LOOP_DEPTH		2	/* one atomic, and a drain's */
#define LITE_LOOP_TIMEOUT	(10 * HZ)
#define LITE_SWAP_TRIES		1000	/* compare-and-swaps per swap */

static bool lite_nic_atomics = true;
module_param_named(nic_atomics, lite_nic_atomics, bool, 0644);
MODULE_PARM_DESC(nic_atomics, "run on the NIC, where the device supports RDMA atomics, the atomics of LMRs created from now on (default: Y)");

/* The loopback QPs, while joined on a device with atomics. */
static struct {
	struct mutex		lock;	/* one atomic at a time; the QPs */
	struct ib_qp		*qp;	/* posts; NULL: atomics on the CPU */
	struct ib_qp		*resp;	/* executes them, as a peer would */
	struct lite_dev		*dev;
} lite_loop = {
	.lock	= __MUTEX_INITIALIZER(lite_loop.lock),
};

/*
 * A loopback atomic. Its waiter frees it: it either saw the completion or,
 * after a timeout, drained the QP, which runs every earlier completion
 * handler of the QP first (one CQ, polled in order).
 */
struct lite_loop_op {
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
	u64			result;	/* DMA target: never on a stack */
};

static void lite_loop_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_loop_op *op = container_of(wc->wr_cqe, struct lite_loop_op,
					       cqe);

	op->status = wc->status;
	complete(&op->done);
}

/* Under lite_loop.lock: connect a pair of loopback QPs. */
static int lite_loop_open(void)
{
	struct ib_qp *qps[2];
	int ret;

	ret = lite_qp_create_loopback_pair(lite_loop.dev, LITE_LOOP_DEPTH, qps);
	if (ret)
		return ret;
	lite_loop.resp = qps[1];
	WRITE_ONCE(lite_loop.qp, qps[0]);
	return 0;
}

/* Under lite_loop.lock: flush (completing what was posted) and destroy. */
static void lite_loop_close(void)
{
	if (!lite_loop.qp)
		return;
	/* Not ib_drain_sq(): it would wait for good on a failed CQ. */
	lite_cq_drain_qp(lite_loop.dev, lite_loop.qp, false);
	ib_destroy_qp(lite_loop.qp);
	ib_destroy_qp(lite_loop.resp);
	WRITE_ONCE(lite_loop.qp, NULL);
	lite_loop.resp = NULL;
}

/* Under lite_loop.lock: the QPs failed or hang; take new ones. */
static void lite_loop_reset(void)
{
	int ret;

	lite_loop_close();	/* completes our atomic, flushed */
	ret = lite_loop_open();
	if (ret)
		pr_err("cannot recreate the loopback QPs for atomics: %d\n",
		       ret);
}

/*
 * Under lite_loop.lock: one atomic work request on the 8 bytes at
 * (@rkey, @addr) of this node's pool, through our own device.
 */
static int lite_loop_post(u64 addr, u32 rkey, enum ib_wr_opcode opcode,
			  u64 compare_add, u64 swap, u64 *old)
{
	struct ib_device *ibdev = lite_loop.dev->ibdev;
	struct lite_loop_op *op;
	struct ib_sge sge;
	struct ib_atomic_wr wr = lite_atomic_wr(&sge, opcode, addr, rkey,
						compare_add, swap);
	unsigned long done;
	u64 dma;
	int ret;

	if (!lite_loop.qp)
		return -ENOTCONN;
	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	init_completion(&op->done);
	op->cqe.done = lite_loop_op_done;
	wr.wr.wr_cqe = &op->cqe;
	dma = ib_dma_map_single(ibdev, &op->result, sizeof(op->result),
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma)) {
		kfree(op);
		return -ENOMEM;
	}
	sge = (struct ib_sge) {
		.addr	= dma,
		.length	= sizeof(op->result),
		.lkey	= lite_loop.dev->pd->local_dma_lkey,
	};
	lite_cq_await_begin(lite_loop.dev);
	ret = ib_post_send(lite_loop.qp, &wr.wr, NULL);
	if (!ret) {
		lite_stat_inc(LITE_STAT_ATOMIC_LOOPBACK);
		done = wait_for_completion_timeout(&op->done, LITE_LOOP_TIMEOUT);
		if (!done) {
			pr_err("loopback atomic: no completion in %u s\n",
			       LITE_LOOP_TIMEOUT / HZ);
			lite_loop_reset();
			/* Late but successful (before the drain) counts. */
			done = completion_done(&op->done);
		} else if (op->status != IB_WC_SUCCESS) {
			pr_err("loopback atomic failed: %s\n",
			       ib_wc_status_msg(op->status));
			lite_loop_reset();
		}
		if (!done)
			ret = -ETIMEDOUT;
		else if (op->status != IB_WC_SUCCESS)
			ret = -EIO;
	}
	lite_cq_await_end(lite_loop.dev);
	ib_dma_unmap_single(ibdev, dma, sizeof(op->result), DMA_FROM_DEVICE);
	if (!ret)
		*old = op->result;
	kfree(op);
	return ret;
}

/* An atomic on @lmr's 8 bytes at @off, through our own device. */
static int lite_loop_atomic(struct lite_lmr *lmr, u64 off,
			    enum ib_wr_opcode opcode, u64 compare_add,
			    u64 swap, u64 *old)
{
	u64 addr;
	u32 rkey;
	int ret;

	ret = lite_lmr_atomic_addr(lmr, off, &addr, &rkey);
	if (ret)
		return ret;
	ret = mutex_lock_killable(&lite_loop.lock);
	if (ret)
		return ret;
	ret = lite_loop_post(addr, rkey, opcode, compare_add, swap, old);
	mutex_unlock(&lite_loop.lock);
	return ret;
}

/* A word a NIC atomic reaches: in our LMR @lmr (loopback) or through @h. */
struct lite_nic_word {
	struct lite_lmr		*lmr;
	struct lite_handle	*h;
	u64			off;
};

static int lite_nic_word_post(const struct lite_nic_word *w,
			      enum ib_wr_opcode opcode, u64 compare_add,
			      u64 swap, u64 *old)
{
	if (w->lmr)
		return lite_loop_atomic(w->lmr, w->off, opcode, compare_add,
					swap, old);
	return lite_rdma_atomic(w->h, w->off, opcode, compare_add, swap, old);
}

/*
 * LITE_ATOMIC_* @op on @w with the device's atomics. A NIC has no swap:
 * it is made of compare-and-swaps, retried with the value each one saw
 * until one finds what it expects. Every failed try means another atomic
 * got in first: give up after LITE_SWAP_TRIES of them (-EBUSY), or on a
 * signal (-EINTR), neither of which changed the word.
 */
static int lite_nic_atomic(const struct lite_nic_word *w, u32 op, u64 value,
			   u64 compare, u64 *old)
{
	u64 guess = 0, seen;
	unsigned int i;
	int ret;

	if (op == LITE_ATOMIC_FETCH_ADD)
		return lite_nic_word_post(w, IB_WR_ATOMIC_FETCH_AND_ADD, value,
					  0, old);
	if (op == LITE_ATOMIC_CMP_SWP)
		return lite_nic_word_post(w, IB_WR_ATOMIC_CMP_AND_SWP, compare,
					  value, old);
	for (i = 0; i < LITE_SWAP_TRIES; i++) {
		ret = lite_nic_word_post(w, IB_WR_ATOMIC_CMP_AND_SWP, guess,
					 value, &seen);
		if (ret)
			return ret;
		if (seen == guess) {
			*old = seen;
			return 0;
		}
		guess = seen;
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return -EBUSY;
}

/* On this CPU: no device atomics on the LMR to race with. */
static int lite_cpu_atomic(struct lite_lmr *lmr, u32 op, u64 off, u64 value,
			   u64 compare, u64 *old)
{
	atomic64_t *p;
	int ret;

	p = lite_lmr_atomic_ptr(lmr, off, &ret);
	if (!p)
		return ret;
	lite_stat_inc(LITE_STAT_ATOMIC_CPU);
	if (op == LITE_ATOMIC_FETCH_ADD)
		*old = atomic64_fetch_add(value, p);
	else if (op == LITE_ATOMIC_CMP_SWP)
		*old = atomic64_cmpxchg(p, compare, value);
	else
		*old = atomic64_xchg(p, value);
	return 0;
}

/*
 * An atomic operation on @lmr, which this node owns: @op (LITE_ATOMIC_*)
 * on the 8-aligned word at @off, with @value (addend, or the value to swap
 * in) and @compare (CMP_SWP); *@old is the value before.
 *
 * Context: process context.
 * Return: 0, -EPERM (not an atomic LMR), -EINVAL, -ERANGE, or for
 * one on the NIC -ENOTCONN (left the cluster), -ETIMEDOUT or -EIO (the
 * outcome is unknown), -EINTR, -EBUSY (a swap kept losing).
 */
static int lite_atomic_on(struct lite_lmr *lmr, u32 op, u64 off, u64 value,
			  u64 compare, u64 *old)
{
	struct lite_nic_word w = { .lmr = lmr, .off = off };

	if (op < LITE_ATOMIC_FETCH_ADD || op > LITE_ATOMIC_SWAP)
		return -EINVAL;
	if (!lite_lmr_nic_atomic(lmr))
		return lite_cpu_atomic(lmr, op, off, value, compare, old);
	return lite_nic_atomic(&w, op, value, compare, old);
}

/* lite_atomic_on() on LMR @lmr_id; -ENOENT when there is none. */
static int lite_atomic_local(u32 lmr_id, u32 op, u64 off, u64 value,
			     u64 compare, u64 *old)
{
	struct lite_lmr *lmr;
	int ret;

	lmr = lite_lmr_get(lmr_id);
	if (!lmr)
		return -ENOENT;
	ret = lite_atomic_on(lmr, op, off, value, compare, old);
	lite_lmr_put(lmr);
	return ret;
}

/**
 * lite_atomic_serve() - a peer's ATOMIC request, on an LMR we own
 * @src: the requesting node (its QP says so)
 * @req: the request, of the right length
 * @resp: the old value
 * @resp_len: set to its length
 *
 * The owner's record decides: @src must have been granted read, write and
 * atomic access to the LMR (lite_lmr_get_granted()).
 *
 * Return: 0 or a negative errno for the requester.
 */
int lite_atomic_serve(u16 src, const struct lite_ctrl_atomic *req,
		      struct lite_ctrl_u64 *resp, u32 *resp_len)
{
	struct lite_lmr *lmr;
	u64 old;
	int ret;

	lmr = lite_lmr_get_granted(le32_to_cpu(req->lmr_id), src,
				   LITE_PERM_READ | LITE_PERM_WRITE |
				   LITE_PERM_ATOMIC, &ret);
	if (!lmr)
		return ret;
	ret = lite_atomic_on(lmr, le32_to_cpu(req->op), le64_to_cpu(req->offset),
			     le64_to_cpu(req->value), le64_to_cpu(req->compare),
			     &old);
	lite_lmr_put(lmr);
	if (!ret) {
		resp->value = cpu_to_le64(old);
		*resp_len = sizeof(*resp);
	}
	return ret;
}

/**
 * lite_atomic() - an atomic operation through a handle
 * @h: the handle (checked by the caller: READ, WRITE, ATOMIC, password,
 *	8 bytes in bounds)
 * @op: LITE_ATOMIC_*
 * @off: 8-aligned offset
 * @value: addend, or the value to swap in
 * @compare: the expected value (CMP_SWP)
 * @old: out: the value before
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int lite_atomic(struct lite_handle *h, u32 op, u64 off, u64 value, u64 compare,
		u64 *old)
{
	struct lite_ctrl_atomic req = {
		.lmr_id = cpu_to_le32(h->lmr_id), .op = cpu_to_le32(op),
		.offset = cpu_to_le64(off), .value = cpu_to_le64(value),
		.compare = cpu_to_le64(compare),
	};
	struct lite_ctrl_u64 resp;
	u32 len = sizeof(resp);
	int ret;

	if (h->lmr)
		return lite_atomic_local(h->lmr_id, op, off, value, compare, old);
	if (h->nic_atomic && READ_ONCE(lite_loop.qp)) {
		/* On the owner's NIC, posted from here. */
		struct lite_nic_word w = { .h = h, .off = off };

		return lite_nic_atomic(&w, op, value, compare, old);
	}
	ret = lite_ctrl_call(h->node, h->gen, LITE_CTRL_ATOMIC, &req,
			     sizeof(req), &resp, &len);
	if (!ret && len != sizeof(resp))
		ret = -EPROTO;
	if (!ret)
		*old = le64_to_cpu(resp.value);
	return ret;
}

/**
 * lite_atomic_on_nic() - will the next atomic LMR created here run its
 * atomics on the NIC?
 *
 * Return: true while joined on a device with RDMA atomics and LITE memory
 * behind the pool's keys, unless nic_atomics=0.
 */
bool lite_atomic_on_nic(void)
{
	return READ_ONCE(lite_nic_atomics) && READ_ONCE(lite_loop.qp);
}

/*
 * Under lite_loop.lock: does the device hand back the old value as the CPU
 * reads it (ConnectX-3 answers big-endian), and store the new one? A
 * compare-and-swap through the loopback QPs on a word of the pool says.
 */
static int lite_loop_selftest(void)
{
	const u64 before = 0x0123456789abcdefULL, after = 0xfedcba9876543210ULL;
	struct lite_piece piece;
	u64 *word, old = 0;
	int ret;

	ret = lite_pool_alloc(PAGE_SIZE, true, &piece);
	if (ret)
		return ret;
	word = lite_piece_kaddr(&piece, 0);
	WRITE_ONCE(*word, before);
	ret = lite_loop_post(lite_piece_addr(&piece, 0), lite_piece_rkey(&piece),
			     IB_WR_ATOMIC_CMP_AND_SWP, before, after, &old);
	if (!ret && (old != before || READ_ONCE(*word) != after))
		ret = -EPROTO;
	lite_pool_free(&piece);
	return ret;
}

/**
 * lite_atomic_start() - atomics on @dev, from joining on
 * @dev: the device; the pool started on it
 *
 * Chooses where atomics run: on the NIC if the device supports RDMA
 * atomics, LITE's memory is fast-registered (the unsafe global key grants
 * no atomic access) and a compare-and-swap on our own memory behaves; else
 * on the CPU.
 *
 * Context: process context, membership lock held.
 */
static void lite_atomic_start(struct lite_dev *dev)
{
	int ret;

	mutex_lock(&lite_loop.lock);
	WARN_ON_ONCE(lite_loop.qp);
	lite_loop.dev = dev;
	if (!lite_dev_atomics(dev)) {
		pr_info("atomics run on the CPU: the device has no RDMA atomics\n");
	} else if (lite_param_unsafe_global_rkey) {
		pr_info("atomics run on the CPU: unsafe_global_rkey=1\n");
	} else {
		ret = lite_loop_open() ?: lite_loop_selftest();
		if (ret && lite_pool_atomic_refused()) {
			pr_info("atomics run on the CPU: LITE memory is registered without remote atomic access\n");
			lite_loop_close();
		} else if (ret) {
			pr_warn("atomics run on the CPU: a compare-and-swap through the device failed its check: %d\n",
				ret);
			lite_loop_close();
		} else {
			pr_info("atomics run on the NIC\n");
		}
	}
	mutex_unlock(&lite_loop.lock);
}

/**
 * lite_atomic_stop() - no more atomics on the device
 *
 * Context: process context, before the pool stops. Safe when not started.
 */
static void lite_atomic_stop(void)
{
	mutex_lock(&lite_loop.lock);
	lite_loop_close();
	lite_loop.dev = NULL;
	mutex_unlock(&lite_loop.lock);
}

const struct lite_member_ops lite_atomic_member_ops = {
	.start	= lite_atomic_start,
	.leave	= lite_atomic_stop,
};
