// SPDX-License-Identifier: GPL-2.0
/*
 * Operations posted without waiting. The caller's memory is copied into
 * the operation's bounce buffer when a write is posted; a read's data stays
 * in the bounce buffer until the caller reaps the completion (POLL or the
 * fence), which copies it to the address given at post time. So nothing
 * ever DMAs to caller memory that may have gone, and an operation nobody
 * reaps costs only its queue slot.
 *
 * That address means something only in the address space it was posted
 * from, and an open file is not tied to one: it can be passed to another
 * process (SCM_RIGHTS), inherited by a child of fork(), or kept across
 * exec(). So a read to user memory records its poster's mm (mmgrab: the
 * structure stays, so no other mm can take its place at the same pointer,
 * but the memory of an exited poster is freed as usual) and is copied out
 * only by a reaper running in that same mm; reaped anywhere else it
 * completes with -EACCES and nothing is written, in the reaper's memory
 * or the poster's.
 * The reference goes at reap or when the queue is destroyed, never later:
 * an operation left in flight by a closed queue holds no mm.
 */
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "rdma.h"
#include "../include/uapi/lite.h"

/* Per open file: bounce buffers are kernel memory, held until reaped. */
static unsigned int lite_async_max = 1024;
module_param_named(async_max, lite_async_max, uint, 0644);
MODULE_PARM_DESC(async_max, "operations one open /dev/lite (or the kernel API) may have posted and not yet reaped (default: 1024)");

static unsigned int lite_async_max_mb = 64;
module_param_named(async_max_mb, lite_async_max_mb, uint, 0644);
MODULE_PARM_DESC(async_max_mb, "MiB those operations may move in all (default: 64; and per user, user_async_mb)");

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

/* A user read's poster's mm, once it may no longer be copied to. */
static void lite_async_drop_mm(struct lite_rdma_op *op)
{
	if (op->mm) {
		mmdrop(op->mm);
		op->mm = NULL;
	}
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
 * @addr when the completion is reaped (lite_async_reap()), a user @addr
 * only by a reaper in the caller's address space (the read holds its mm
 * until then). The operation holds the peer only until it completes: one
 * never reaped holds nothing but its queue slot, buffer and that mm.
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
	} else if (!kernel) {
		/* @addr is an address in this mm, and only in this one. */
		if (!current->mm) {
			ret = -EFAULT;
			goto err;
		}
		op->mm = current->mm;
		mmgrab(op->mm);
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
	lite_async_drop_mm(op);
	lite_op_posted(op);	/* drops the guard: not queued, so only done */
	lite_op_put(op);
	return ret;
}

/*
 * Reap one completion: a read's data goes to its destination now. A user
 * address is written only in the mm the read was posted from; a reaper in
 * any other (the file was passed on, a forked child, after an exec) gets
 * -EACCES for it, whatever its transfer's status, and nothing is written.
 * Returns the operation's status.
 */
static int lite_async_reap_one(struct lite_rdma_op *op)
{
	int status = READ_ONCE(op->status);

	if (op->write)
		return status;
	if (op->kernel) {
		if (!status)
			memcpy((void *)(uintptr_t)op->addr, op->buf, op->alen);
		return status;
	}
	if (op->mm != current->mm)
		status = -EACCES;
	else if (!status && copy_to_user(u64_to_user_ptr(op->addr), op->buf,
					 op->alen))
		status = -EFAULT;
	lite_async_drop_mm(op);
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
 * A read to user memory that another process posted is taken too, with
 * status -EACCES and nothing written (lite_async_reap_one()).
 *
 * Context: process context.
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
		lite_async_drop_mm(op);	/* never reaped now */
		lite_op_put(op);
	}
	kref_put(&as->ref, lite_async_release);
}
