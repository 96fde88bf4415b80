// SPDX-License-Identifier: GPL-2.0
/*
 * LITE RPC, a caller's calls (docs/rpc.md): each call registers a reply
 * buffer from the pool under an id the request carries; the server writes
 * the reply there with an immediate naming the call, and the caller waits
 * for it under the wait policy (wait.c). A caller that gives up leaves the
 * buffer registered until the reply lands, the server answers RPC_FORGET
 * (nothing can be written there any more) or the server leaves, so a late
 * reply never reaches freed memory. The request itself goes through the
 * caller's ring (rpc_client.c).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "rpc.h"
#include "wire.h"
#include "../include/uapi/lite.h"

/* Every call waiting for its reply, by the id its request carries. */
static DEFINE_XARRAY_ALLOC1(lite_rpc_calls);
static u32 lite_rpc_next_call;

/* Recent calls' time to their reply. */
static struct lite_wait_hist lite_rpc_reply_hist;

/* Asks the servers of abandoned calls to forget them (RPC_FORGET). */
static void lite_rpc_forget_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(lite_rpc_forgetter, lite_rpc_forget_work);
#define LITE_RPC_FORGET_BATCH	16
#define LITE_RPC_FORGET_MAX_WAIT	(30 * HZ)

/* Any context: the reply buffer, the device and the user's charge. */
static void lite_rpc_call_free(struct lite_rpc_call *call)
{
	lite_pool_free(&call->mem);
	if (call->dev)
		lite_dev_put(call->dev);
	lite_user_uncharge(call->user, LITE_RES_LMR_BYTES, call->charged);
	lite_user_uncharge(call->user, LITE_RES_CALLS, 1);
	lite_user_put(call->user);
	kfree(call);
}

void lite_rpc_rx_reply(struct lite_peer *peer, u32 imm, u32 byte_len,
		       bool with_data)
{
	static const int errs[] = { 0, -EMSGSIZE, -ECONNREFUSED, -EPROTO };
	struct lite_rpc_call *call;
	unsigned long flags;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	call = xa_load(&lite_rpc_calls, LITE_IMM_CALL(imm));
	if (!call || call->node != peer->id || completion_done(&call->done)) {
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		lite_peer_warn(peer, "reply to no waiting call dropped\n");
		return;
	}
	if (with_data && byte_len > call->max) {
		call->status = -EPROTO;	/* the server ignored reply_max */
	} else {
		call->status = errs[LITE_IMM_ERR(imm)];
		call->len = with_data ? byte_len : 0;
		/* Now, while the peer (so the pool's mapping) surely exists. */
		if (call->len)
			ib_dma_sync_single_for_cpu(peer->dev->ibdev, call->dma,
						   call->len, DMA_FROM_DEVICE);
	}
	if (call->abandoned) {
		/* Its buffer can go: nothing else will be written there. */
		__xa_erase(&lite_rpc_calls, LITE_IMM_CALL(imm));
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		lite_rpc_call_free(call);
		return;
	}
	complete(&call->done);
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
}

void lite_rpc_fail_call(u32 id, int status)
{
	struct lite_rpc_call *call;
	unsigned long flags;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	call = xa_load(&lite_rpc_calls, id);
	if (call && !call->abandoned && !completion_done(&call->done)) {
		call->status = status;
		complete(&call->done);
	}
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
}

/**
 * lite_rpc_call_posted() - @call's request went out
 * @call: the call
 * @gen: the receiver's generation
 * @port: the port
 * @end: where the request ended in our ring there (RPC_FORGET names it)
 *
 * Context: the calling thread, before it waits for the reply.
 */
void lite_rpc_call_posted(struct lite_rpc_call *call, u32 gen, u8 port,
			  u64 end)
{
	call->gen = gen;
	call->port = port;
	call->end = end;
}

/* Abandoned calls carry this mark in lite_rpc_calls. */
#define LITE_RPC_ABANDONED	XA_MARK_1

/*
 * Mark @call abandoned: the forget work asks its server a second from
 * now. Under the calls' lock.
 */
static void lite_rpc_call_abandon(struct lite_rpc_call *call)
{
	lockdep_assert_held(&lite_rpc_calls.xa_lock);
	call->abandoned = true;
	call->ask_at = jiffies + HZ;
	__xa_set_mark(&lite_rpc_calls, call->id, LITE_RPC_ABANDONED);
	queue_delayed_work(system_unbound_wq, &lite_rpc_forgetter, HZ);
}

/* A call the forget work asks about. */
struct lite_rpc_forget_due {
	struct lite_rpc_call		*call;
	u32				id;
	u16				node;
	u32				gen;
	struct lite_ctrl_rpc_forget	req;
};

/*
 * Up to LITE_RPC_FORGET_BATCH abandoned calls from id *@next on that are
 * due and whose node is not in @skip, into @due; *@next moves past the
 * last one looked at. Sets *@left if any abandoned call remains.
 */
static unsigned int lite_rpc_forget_collect(struct lite_rpc_forget_due *due,
					    unsigned long *next,
					    const unsigned long *skip,
					    bool *left)
{
	struct lite_rpc_call *call;
	unsigned long flags;
	unsigned int n = 0;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	for (call = xa_find(&lite_rpc_calls, next, ULONG_MAX, LITE_RPC_ABANDONED);
	     call;
	     call = xa_find_after(&lite_rpc_calls, next, ULONG_MAX,
				  LITE_RPC_ABANDONED)) {
		*left = true;
		if (time_before(jiffies, call->ask_at) ||
		    test_bit(call->node, skip))
			continue;
		/* Not again in this run. */
		call->ask_at = jiffies + LITE_RPC_FORGET_MAX_WAIT;
		due[n++] = (struct lite_rpc_forget_due) {
			.call = call, .id = call->id,
			.node = call->node, .gen = call->gen,
			.req = {
				.port = cpu_to_le32(call->port),
				.call_id = cpu_to_le32(call->id),
				.end = cpu_to_le64(call->end),
			},
		};
		if (n == LITE_RPC_FORGET_BATCH) {
			(*next)++;
			break;
		}
	}
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
	return n;
}

/*
 * Send RPC_FORGET for abandoned calls that are due, and free those their
 * servers answered: nothing can write into their buffers any more. Not
 * before our own QPs to the server are fenced either (a request flushed
 * by a reset may still be on its way and be answered). A server that
 * says "not yet" is asked again after 1 s, doubling to
 * LITE_RPC_FORGET_MAX_WAIT; one that does not answer is not asked again
 * in this run; one that leaves frees its calls (lite_rpc_calls_peer_down).
 */
static void lite_rpc_forget_work(struct work_struct *work)
{
	struct lite_rpc_forget_due due[LITE_RPC_FORGET_BATCH];
	DECLARE_BITMAP(skip, LITE_MAX_NODES);
	struct lite_rpc_call *call;
	unsigned long next = 0, flags;
	unsigned int i, n;
	bool left = false;
	int ret;

	bitmap_zero(skip, LITE_MAX_NODES);
	do {
		n = lite_rpc_forget_collect(due, &next, skip, &left);
		for (i = 0; i < n; i++) {
			ret = -EAGAIN;
			/* Not a server that timed out earlier in this batch. */
			if (!test_bit(due[i].node, skip) &&
			    lite_node_fenced(due[i].node, due[i].gen))
				ret = lite_ctrl_call(due[i].node, due[i].gen,
						     LITE_CTRL_RPC_FORGET,
						     &due[i].req,
						     sizeof(due[i].req),
						     NULL, NULL);
			if (ret == -ETIMEDOUT)
				set_bit(due[i].node, skip);
			xa_lock_irqsave(&lite_rpc_calls, flags);
			call = xa_load(&lite_rpc_calls, due[i].id);
			/* Else a late reply or the node leaving freed it. */
			if (call != due[i].call || !call->abandoned) {
				call = NULL;
			} else if (!ret) {
				__xa_erase(&lite_rpc_calls, due[i].id);
			} else {
				call->asks = min(call->asks + 1, 5U);
				call->ask_at = jiffies +
					min_t(unsigned long, HZ << call->asks,
					      LITE_RPC_FORGET_MAX_WAIT);
				call = NULL;
			}
			xa_unlock_irqrestore(&lite_rpc_calls, flags);
			if (call)
				lite_rpc_call_free(call);
		}
	} while (n == LITE_RPC_FORGET_BATCH);
	if (left)
		queue_delayed_work(system_unbound_wq, &lite_rpc_forgetter, HZ);
}

/* Module exit, after every node left: every call was freed. */
void lite_rpc_calls_exit(void)
{
	cancel_delayed_work_sync(&lite_rpc_forgetter);
}

/*
 * A call to @node with a reply buffer of @max bytes, registered under
 * *@id so that its reply finds it. Charged to @user (LITE_RES_CALLS).
 */
static struct lite_rpc_call *lite_rpc_call_new(struct lite_user *user,
					       u16 node, u32 max, u32 *id)
{
	struct lite_rpc_call *call;
	u64 size;
	int ret;

	ret = lite_user_charge(user, LITE_RES_CALLS, 1);
	if (ret)
		return ERR_PTR(ret);
	call = kzalloc(sizeof(*call), GFP_KERNEL);
	if (!call) {
		lite_user_uncharge(user, LITE_RES_CALLS, 1);
		return ERR_PTR(-ENOMEM);
	}
	if (user)
		lite_user_hold(user);
	call->user = user;	/* lite_rpc_call_free() uncharges */
	init_completion(&call->done);
	call->node = node;
	call->max = max;
	/* Held until the call is freed, maybe after the device went away. */
	call->dev = lite_peer_dev_hold(node);
	ret = -ENOTCONN;
	if (!call->dev)
		goto err;
	/* The reply space counts against user_lmr_mb, like an LMR. */
	size = max_t(u64, PAGE_SIZE, roundup_pow_of_two(max ?: 1));
	ret = lite_user_charge(user, LITE_RES_LMR_BYTES, size);
	if (ret)
		goto err;
	call->charged = size;
	ret = lite_pool_alloc(size, false, &call->mem);
	if (ret)
		goto err;
	call->buf = lite_piece_kaddr(&call->mem, 0);
	call->dma = lite_piece_dma(&call->mem, 0);
	ret = xa_alloc_cyclic_irq(&lite_rpc_calls, id, call,
				  XA_LIMIT(1, LITE_CALL_ID_MAX),
				  &lite_rpc_next_call, GFP_KERNEL);
	if (ret < 0)
		goto err;
	call->id = *id;
	return call;
err:
	lite_rpc_call_free(call);
	return ERR_PTR(ret);
}

/*
 * Wait for @call's reply until @deadline (jiffies), polling first as
 * @mode says (wait.c). 0: it completed (call->status says how). -ETIMEDOUT or -EINTR:
 * the call is abandoned, the reply, RPC_FORGET or the node leaving frees
 * it, and the caller must not touch it again.
 */
static int lite_rpc_call_wait(struct lite_rpc_call *call,
			      unsigned long deadline,
			      enum lite_wait_mode mode)
{
	u64 start = ktime_get_ns();
	unsigned long flags;
	long left;
	u16 node;

	left = (long)(deadline - jiffies);
	if (left > 0 &&
	    lite_spin(&lite_rpc_reply_hist, lite_spin_completion, &call->done,
		      start, start + jiffies_to_nsecs(left), mode)) {
		if (mode == LITE_WAIT_POLICY)
			lite_wait_learn(&lite_rpc_reply_hist,
					ktime_get_ns() - start);
		return 0;
	}
	left = (long)(deadline - jiffies);
	if (left > 0)
		left = wait_for_completion_interruptible_timeout(&call->done,
								 left);
	else
		left = completion_done(&call->done);
	if (left > 0) {
		if (mode == LITE_WAIT_POLICY)
			lite_wait_learn(&lite_rpc_reply_hist,
					ktime_get_ns() - start);
		return 0;
	}
	xa_lock_irqsave(&lite_rpc_calls, flags);
	if (completion_done(&call->done)) {
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		return 0;
	}
	node = call->node;	/* @call is not ours once abandoned */
	lite_rpc_call_abandon(call);
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
	if (left < 0)
		return -EINTR;
	lite_stat_peer(node, LITE_PSTAT_TIMEOUTS, 1);
	return -ETIMEDOUT;
}

/*
 * @call (registered under @id) completed: take its reply out of the pool
 * into a copy of ours (*@reply, kvfree() it; NULL when empty) and free
 * the call, with the device it holds (which removal waits for). The copy
 * to the caller comes after (lite_rpc_reply_out): it may stall for ever
 * on a userfaultfd- or FUSE-backed page. Return: the reply's length or a
 * negative errno.
 */
static int lite_rpc_call_take(struct lite_rpc_call *call, u32 id,
			      void **reply)
{
	unsigned long flags;
	int ret;

	*reply = NULL;
	if (call->status == -EIO) {
		/*
		 * Our send failed, yet the request may have arrived: the reply
		 * buffer stays out of the pool until the server forgets the
		 * call or leaves.
		 */
		xa_lock_irqsave(&lite_rpc_calls, flags);
		lite_rpc_call_abandon(call);
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		return -EIO;
	}
	xa_erase_irq(&lite_rpc_calls, id);
	ret = call->status ?: call->len;
	if (ret > 0) {
		*reply = kvmalloc(ret, GFP_KERNEL);
		if (*reply)
			memcpy(*reply, call->buf, ret);
		else
			ret = -ENOMEM;
	}
	lite_rpc_call_free(call);
	return ret;
}

/* What lite_rpc_call_take() gave, @ret, to @dst; frees @reply. */
static int lite_rpc_reply_out(int ret, void *reply, struct iov_iter *dst)
{
	if (ret > 0 && copy_to_iter(reply, ret, dst) != ret)
		ret = -EFAULT;
	kvfree(reply);
	return ret;
}

/* A call that never reached the wire: nothing can write to its buffer. */
static void lite_rpc_call_drop(struct lite_rpc_call *call, u32 id)
{
	xa_erase_irq(&lite_rpc_calls, id);
	lite_rpc_call_free(call);
}

/**
 * lite_rpc_call() - send a request to (@node, @port) and wait for the reply
 * @user: the caller's account (user_calls), or NULL
 * @node: the receiver
 * @port: its port
 * @src: the request
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @dst: where the reply goes
 * @max: room at @dst, 0 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Waits at most rpc_timeout_ms for ring space and as long again for the
 * reply. The reply buffer stays allocated until the reply comes, the
 * server forgets the call (RPC_FORGET) or the node leaves, even when the
 * caller gave up.
 *
 * Return: the reply's length, or a negative errno (uapi/lite.h); -EDQUOT
 * when @user has user_calls calls waiting (abandoned ones included).
 */
int lite_rpc_call(struct lite_user *user, u32 node, u32 port,
		  struct iov_iter *src, u32 len, struct iov_iter *dst, u32 max,
		  int prio)
{
	struct lite_rpc_call *call;
	void *reply;
	u32 id;
	int ret;

	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT ||
	    !len || prio > LITE_PRIO_LOW || max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	call = lite_rpc_call_new(user, node, max, &id);
	if (IS_ERR(call))
		return PTR_ERR(call);

	lite_prio_begin(prio);
	ret = lite_rpc_send_msg(node, port, src, len, call, id,
				LITE_PRIO_NORMAL);
	if (ret) {
		lite_prio_end(prio);
		lite_rpc_call_drop(call, id);
		return ret;
	}
	ret = lite_rpc_call_wait(call, jiffies +
				 msecs_to_jiffies(lite_rpc_timeout_ms),
				 lite_wait_mode(prio));
	lite_prio_end(prio);
	if (ret)
		return ret;
	ret = lite_rpc_call_take(call, id, &reply);
	return lite_rpc_reply_out(ret, reply, dst);
}

/**
 * lite_rpc_mcall() - send one request to several nodes, gather every reply
 * @user: the caller's account (user_calls: one call per destination), or
 *	NULL
 * @dsts: the destinations: node in, status and len out, reply to dst
 * @nr: how many, 1 .. LITE_MCAST_MAX, no node twice
 * @port: the port, the same on every node
 * @src: the request
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @max: room at each destination's dst, 0 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Every request is posted before any reply is waited for, so the calls
 * overlap. A destination that fails (not a member, this node itself, port
 * not registered, no reply) gets its own status and does not fail the
 * others; all replies are waited for until one rpc_timeout_ms after the
 * last request was posted. Lifetimes are those of lite_rpc_call().
 *
 * Return: how many destinations replied (status 0), or a negative errno
 * for the whole call (-EINVAL, -EMSGSIZE, -EFAULT: @src cannot be read,
 * -ENOMEM, -EINTR); then no status is meaningful.
 */
int lite_rpc_mcall(struct lite_user *user, struct lite_rpc_mdst *dsts,
		   unsigned int nr, u32 port, struct iov_iter *src, u32 len,
		   u32 max, int prio)
{
	struct lite_rpc_call *calls[LITE_MCAST_MAX] = {};
	void *replies[LITE_MCAST_MAX];
	int got[LITE_MCAST_MAX];
	u32 ids[LITE_MCAST_MAX];
	unsigned long deadline;
	struct iov_iter req;
	unsigned int i, j;
	int ret = 0, ok = 0;
	struct kvec kv;
	void *buf;

	if (!nr || nr > LITE_MCAST_MAX || port >= LITE_MAX_PORT || !len ||
	    prio > LITE_PRIO_LOW || max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!dsts[i].node || dsts[i].node >= LITE_MAX_NODES)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (dsts[j].node == dsts[i].node)
				return -EINVAL;
	}
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	/* Read once: every node gets the same bytes, a fault fails all. */
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_iter(buf, len, src) != len) {
		kvfree(buf);
		return -EFAULT;
	}

	lite_prio_begin(prio);
	for (i = 0; i < nr; i++) {
		struct lite_rpc_call *call;

		dsts[i].len = 0;
		call = lite_rpc_call_new(user, dsts[i].node, max, &ids[i]);
		if (IS_ERR(call)) {
			dsts[i].status = PTR_ERR(call);
			continue;
		}
		kv = (struct kvec) { .iov_base = buf, .iov_len = len };
		iov_iter_kvec(&req, ITER_SOURCE, &kv, 1, len);
		dsts[i].status = lite_rpc_send_msg(dsts[i].node, port, &req,
						   len, call, ids[i],
						   LITE_PRIO_NORMAL);
		if (dsts[i].status) {
			lite_rpc_call_drop(call, ids[i]);
			continue;
		}
		calls[i] = call;
	}
	kvfree(buf);	/* each send copied it */

	deadline = jiffies + msecs_to_jiffies(lite_rpc_timeout_ms);
	for (i = 0; i < nr; i++) {
		if (!calls[i])
			continue;
		/* After a signal: take what is there, abandon the rest. */
		dsts[i].status = lite_rpc_call_wait(calls[i],
						    ret ? jiffies : deadline,
						    !ok && !ret ?
						    lite_wait_mode(prio) :
						    LITE_WAIT_SLEEP);
		if (dsts[i].status == -EINTR)
			ret = -EINTR;
		if (dsts[i].status) {
			calls[i] = NULL;	/* abandoned */
			continue;
		}
		ok++;
	}
	lite_prio_end(prio);

	/* Every call freed (its device with it) before any copy out. */
	for (i = 0; i < nr; i++)
		if (calls[i])
			got[i] = lite_rpc_call_take(calls[i], ids[i],
						    &replies[i]);
	ok = 0;
	for (i = 0; i < nr; i++) {
		int r;

		if (!calls[i])
			continue;
		r = lite_rpc_reply_out(got[i], replies[i], &dsts[i].dst);
		dsts[i].status = r < 0 ? r : 0;
		dsts[i].len = r < 0 ? 0 : r;
		if (r >= 0)
			ok++;
	}
	return ret ? ret : ok;
}

/* @node left: fail the calls waiting for its replies. */
void lite_rpc_calls_peer_down(u16 node)
{
	struct lite_rpc_call *call;
	unsigned long id, flags;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	xa_for_each(&lite_rpc_calls, id, call) {
		if (call->node != node)
			continue;
		if (call->abandoned) {
			__xa_erase(&lite_rpc_calls, id);
			lite_rpc_call_free(call);
		} else if (!completion_done(&call->done)) {
			call->status = -ENOTCONN;
			complete(&call->done);
		}
	}
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
}
