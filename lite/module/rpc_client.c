// SPDX-License-Identifier: GPL-2.0
/*
 * LITE RPC, the calling side (docs/rpc.md): the ring this node owns on
 * (node, port), opened with RPC_OPEN on first use; one-way sends and calls
 * written into it; calls waiting for the reply the server writes straight
 * into their reply buffer; the acknowledgements that give ring space back.
 * A sender whose ring is full waits for them (up to rpc_timeout_ms).
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "rpc.h"
#include "wire.h"
#include "../include/uapi/lite.h"

/* How long RPC_CLOSE waits for our requests in flight to the ring. */
#define LITE_RPC_CLOSE_WAIT	(2 * HZ)

unsigned int lite_rpc_timeout_ms = 10000;
module_param_named(rpc_timeout_ms, lite_rpc_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rpc_timeout_ms, "how long an RPC waits for its reply or for ring space (default: 10000)");

struct lite_rpc_tx_ring {
	struct kref		ref;		/* the table's + users' */
	struct rcu_head		rcu;		/* lite_rpc_rx_ack() looks it up */
	u16			node;
	u32			gen;
	u8			port;
	u32			max_size;
	u64			dma;		/* the ring, on @node */
	u32			rkey;
	/* Reserve + post, in order; held across a wait only to resync. */
	struct mutex		lock;
	u64			head;		/* bytes spanned by our sends */
	u64			acked;		/* bytes the receiver gave back */
	/* Where each message not yet acknowledged ended (head after it): */
	u64			*ends;		/* LITE_RPC_RING_MSGS, a ring */
	u64			first;		/* messages forgotten */
	u64			next;		/* messages posted */
	atomic_t		inflight;	/* requests posted, not completed */
	bool			dead;		/* the node left */
	bool			closed;		/* the receiver took it back */
	bool			resync;		/* a request failed: see below */
	wait_queue_head_t	wq;		/* room, dead, closed, inflight 0 */
};

/* The tables below: held only to look up, add or remove, never to wait. */
static DEFINE_SPINLOCK(lite_rpc_tx_lock);
static struct lite_rpc_tx_ring *lite_rpc_tx[LITE_MAX_NODES][LITE_MAX_PORT];
/* Rings their receiver closed while requests to them were in flight. */
static struct lite_rpc_tx_ring *lite_rpc_tx_closed[LITE_MAX_NODES][LITE_MAX_PORT];
/* RPC_CLOSEs served: an RPC_OPEN answered before one is stale. */
static u32 lite_rpc_tx_closes[LITE_MAX_NODES][LITE_MAX_PORT];

void lite_rpc_rx_ack(struct lite_peer *peer, u32 imm)
{
	struct lite_rpc_tx_ring *tr;
	u64 acked, head;
	u32 delta;

	/* A ring closed by its receiver may be freed meanwhile: RCU. */
	rcu_read_lock();
	tr = READ_ONCE(lite_rpc_tx[peer->id][LITE_IMM_PORT(imm)]);
	if (!tr || tr->gen != peer->gen)
		goto out;
	acked = READ_ONCE(tr->acked);
	head = READ_ONCE(tr->head);
	delta = (LITE_IMM_LOW24(imm) - (u32)(acked / LITE_RPC_ALIGN)) & 0xffffff;
	if (acked + (u64)delta * LITE_RPC_ALIGN > head) {
		lite_peer_warn(peer, "RPC ack past what was sent dropped\n");
		goto out;
	}
	WRITE_ONCE(tr->acked, acked + (u64)delta * LITE_RPC_ALIGN);
	wake_up(&tr->wq);
out:
	rcu_read_unlock();
}

static void lite_rpc_tx_release(struct kref *ref)
{
	struct lite_rpc_tx_ring *tr = container_of(ref, struct lite_rpc_tx_ring, ref);

	kfree(tr->ends);	/* lite_rpc_rx_ack() does not read it */
	kfree_rcu(tr, rcu);
}

static void lite_rpc_tx_put(struct lite_rpc_tx_ring *tr)
{
	kref_put(&tr->ref, lite_rpc_tx_release);
}

/**
 * lite_rpc_tx_sent() - a request written into @tr completed (or failed)
 * @tr: our ring on the receiver, referenced by the request
 * @ok: it completed successfully
 *
 * Context: any; the CQ's completion context included.
 */
void lite_rpc_tx_sent(struct lite_rpc_tx_ring *tr, bool ok)
{
	/* Before inflight drops: lite_rpc_tx_resync() waits for that. */
	if (!ok)
		WRITE_ONCE(tr->resync, true);
	if (atomic_dec_and_test(&tr->inflight))
		wake_up_all(&tr->wq);
	lite_rpc_tx_put(tr);
}

/* The table's ring on (@node, @port) for generation @gen, with a reference. */
static struct lite_rpc_tx_ring *lite_rpc_tx_find(u16 node, u32 port, u32 gen)
{
	struct lite_rpc_tx_ring *tr;

	spin_lock(&lite_rpc_tx_lock);
	tr = lite_rpc_tx[node][port];
	if (tr && tr->gen == gen)
		kref_get(&tr->ref);
	else if (tr)		/* an older incarnation's, going away */
		tr = ERR_PTR(-ENOTCONN);
	spin_unlock(&lite_rpc_tx_lock);
	return tr;
}

/*
 * Our ring on (@node, @port), with a reference: opened on first use,
 * -ECONNREFUSED if nobody listens there. The RPC_OPEN call (up to
 * ctrl_timeout_ms) runs with no lock held: the receiver answers the same
 * ring to every open, so two threads opening at once both get it and
 * the first to return installs it.
 */
static struct lite_rpc_tx_ring *lite_rpc_tx_get(u16 node, u32 port)
{
	struct lite_ctrl_rpc_open req = { .port = cpu_to_le32(port) };
	struct lite_ctrl_rpc_ring resp;
	struct lite_rpc_tx_ring *tr, *cur;
	struct lite_peer *peer;
	unsigned long deadline;
	u32 gen, len, closes;
	int ret;

	peer = lite_peer_get(node, 0);
	if (!peer)
		return ERR_PTR(-ENOTCONN);
	gen = peer->gen;
	lite_peer_put(peer);

	deadline = jiffies + msecs_to_jiffies(lite_rpc_timeout_ms);
again:
	tr = lite_rpc_tx_find(node, port, gen);
	if (tr)
		return tr;
	spin_lock(&lite_rpc_tx_lock);
	closes = lite_rpc_tx_closes[node][port];
	spin_unlock(&lite_rpc_tx_lock);
	for (;;) {
		len = sizeof(resp);
		ret = lite_ctrl_call(node, gen, LITE_CTRL_RPC_OPEN, &req,
				     sizeof(req), &resp, &len);
		/* EAGAIN: our ring of the port's last owner is being closed. */
		if (ret != -EAGAIN)
			break;
		if (time_after(jiffies, deadline))
			return ERR_PTR(-ETIMEDOUT);
		if (msleep_interruptible(2))
			return ERR_PTR(-EINTR);
	}
	if (!ret && (len != sizeof(resp) ||
		     le32_to_cpu(resp.size) != LITE_RPC_RING_SIZE ||
		     le32_to_cpu(resp.max_size) > LITE_RPC_MAX_MSG))
		ret = -EPROTO;
	if (ret)
		return ERR_PTR(ret);
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (tr)
		tr->ends = kcalloc(LITE_RPC_RING_MSGS, sizeof(*tr->ends),
				   GFP_KERNEL);
	if (!tr || !tr->ends) {
		kfree(tr);
		return ERR_PTR(-ENOMEM);
	}
	tr->node = node;
	tr->gen = gen;
	tr->port = port;
	tr->max_size = le32_to_cpu(resp.max_size);
	tr->dma = le64_to_cpu(resp.dma);
	tr->rkey = le32_to_cpu(resp.rkey);
	tr->head = tr->acked = le64_to_cpu(resp.head);
	mutex_init(&tr->lock);
	init_waitqueue_head(&tr->wq);
	atomic_set(&tr->inflight, 0);
	kref_init(&tr->ref);
	kref_get(&tr->ref);	/* the caller's */

	spin_lock(&lite_rpc_tx_lock);
	cur = lite_rpc_tx[node][port];
	if (lite_rpc_tx_closes[node][port] != closes) {
		/*
		 * The receiver closed a ring meanwhile, maybe the one it
		 * answered: that memory may be back in its pool. Ask again.
		 */
		cur = NULL;
	} else if (cur) {
		/* Opened meanwhile (or an older incarnation's, going away). */
		if (cur->gen == gen)
			kref_get(&cur->ref);
		else
			cur = ERR_PTR(-ENOTCONN);
	} else if (!lite_peer_alive(node, gen)) {
		/*
		 * It left while we opened: its peer-down hook, which takes
		 * this lock after the node left the table, has run or will
		 * find nothing; a ring added now would stay for good.
		 */
		cur = ERR_PTR(-ENOTCONN);
	} else {
		smp_store_release(&lite_rpc_tx[node][port], tr);	/* to rx_ack */
		tr = NULL;	/* the table's now */
		cur = lite_rpc_tx[node][port];
	}
	spin_unlock(&lite_rpc_tx_lock);
	if (tr) {	/* not installed */
		kfree(tr->ends);
		kfree(tr);
	}
	if (cur)
		return cur;
	if (time_after(jiffies, deadline))
		return ERR_PTR(-ETIMEDOUT);
	goto again;
}

/**
 * lite_rpc_query_port() - is @port registered on @node? Opens our ring there.
 * @node: the node
 * @port: the port
 * @max_size: out: the largest request the port takes
 *
 * Return: 0, -EINVAL, -ECONNREFUSED, -ENOTCONN, -ETIMEDOUT.
 */
int lite_rpc_query_port(u32 node, u32 port, u32 *max_size)
{
	struct lite_rpc_tx_ring *tr;

	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT)
		return -EINVAL;
	if (!lite_node_id())
		return -ENOTCONN;
	tr = lite_rpc_tx_get(node, port);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	*max_size = tr->max_size;
	lite_rpc_tx_put(tr);
	return 0;
}

/**
 * lite_rpc_serve_close() - RPC_CLOSE: the receiver takes our ring back
 * @src: the receiver
 * @src_gen: its generation
 * @req: the port
 *
 * The port was unregistered there. Our ring goes out of the table (the
 * next send opens a new one, or fails with ECONNREFUSED), senders waiting
 * for room fail, and the answer waits until every request we wrote into
 * the ring has completed: once the receiver has it, nothing of ours lands
 * in that memory any more and it can go back to its pool. A ring with
 * requests still in flight is kept aside for the receiver's next ask.
 *
 * Context: process context (the control workqueue); sleeps up to
 * LITE_RPC_CLOSE_WAIT, well inside the receiver's ctrl_timeout_ms.
 * Return: 0, -EINVAL, or -ETIMEDOUT (the receiver asks again).
 */
int lite_rpc_serve_close(u16 src, u32 src_gen,
			 const struct lite_ctrl_rpc_open *req)
{
	u32 port = le32_to_cpu(req->port);
	struct lite_rpc_tx_ring *tr, *slot, *stale = NULL;
	long left;

	if (port >= LITE_MAX_PORT || req->reserved)
		return -EINVAL;
	spin_lock(&lite_rpc_tx_lock);
	lite_rpc_tx_closes[src][port]++;
	tr = lite_rpc_tx[src][port];
	if (tr && tr->gen == src_gen) {
		WRITE_ONCE(lite_rpc_tx[src][port], NULL);
		/*
		 * Empty: while a ring of ours closes, the receiver hands out
		 * no new one (EAGAIN), so ours cannot be behind another here.
		 */
		stale = lite_rpc_tx_closed[src][port];
		lite_rpc_tx_closed[src][port] = tr;	/* the table's ref */
	}
	tr = lite_rpc_tx_closed[src][port];
	if (tr && tr->gen == src_gen)
		kref_get(&tr->ref);
	else
		tr = NULL;	/* never opened, or already answered */
	spin_unlock(&lite_rpc_tx_lock);
	if (stale)
		lite_rpc_tx_put(stale);
	if (!tr)
		return 0;

	WRITE_ONCE(tr->closed, true);
	smp_mb();	/* @closed before @inflight: lite_rpc_send_msg() */
	wake_up_all(&tr->wq);
	left = wait_event_timeout(tr->wq, !atomic_read(&tr->inflight),
				  LITE_RPC_CLOSE_WAIT);
	if (left) {
		spin_lock(&lite_rpc_tx_lock);
		slot = lite_rpc_tx_closed[src][port];
		if (slot == tr)
			lite_rpc_tx_closed[src][port] = NULL;
		else
			slot = NULL;	/* a concurrent ask answered */
		spin_unlock(&lite_rpc_tx_lock);
		if (slot)
			lite_rpc_tx_put(slot);
	}
	lite_rpc_tx_put(tr);
	return left ? 0 : -ETIMEDOUT;
}

/* ---- calls -------------------------------------------------------------- */

/*
 * Room for @need more bytes and one more message: the receiver holds at
 * most LITE_RPC_RING_MSGS of ours, so the oldest must be acknowledged when
 * that many are out. Also read without the lock, to wait.
 */
static bool lite_rpc_has_room(struct lite_rpc_tx_ring *tr, u32 need)
{
	u64 acked = READ_ONCE(tr->acked);
	u64 first = READ_ONCE(tr->first);

	if (READ_ONCE(tr->dead) || READ_ONCE(tr->closed))
		return true;
	if (READ_ONCE(tr->head) + need - acked > LITE_RPC_RING_SIZE)
		return false;
	return READ_ONCE(tr->next) - first < LITE_RPC_RING_MSGS ||
	       READ_ONCE(tr->ends[first % LITE_RPC_RING_MSGS]) <= acked;
}

/* Forget the messages the receiver has acknowledged. */
static void lite_rpc_tx_forget(struct lite_rpc_tx_ring *tr)
{
	u64 acked = READ_ONCE(tr->acked);

	lockdep_assert_held(&tr->lock);
	while (tr->first != tr->next &&
	       tr->ends[tr->first % LITE_RPC_RING_MSGS] <= acked)
		WRITE_ONCE(tr->first, tr->first + 1);
}

/*
 * A request to @tr failed (its QP broke, qp_conn.c reconnects it): the
 * receiver never saw it, or saw it and only the completion was lost, and
 * it checks that each request starts where the last one it saw ended.
 * Once nothing is in flight, take the receiver's count again (RPC_OPEN
 * answers the open ring's) and go on from there. Under @tr's lock, which
 * it holds across these waits (other senders wait for it, killably).
 */
static int lite_rpc_tx_resync(struct lite_rpc_tx_ring *tr)
{
	struct lite_ctrl_rpc_open req = { .port = cpu_to_le32(tr->port) };
	struct lite_ctrl_rpc_ring resp;
	u32 len = sizeof(resp);
	u64 head;
	long left;
	int ret;

	lockdep_assert_held(&tr->lock);
	/* Under the lock nothing new is posted: what is in flight ends. */
	left = wait_event_killable_timeout(tr->wq, !atomic_read(&tr->inflight),
					   msecs_to_jiffies(lite_rpc_timeout_ms));
	if (left <= 0)
		return left ? -EINTR : -ETIMEDOUT;
	ret = lite_ctrl_call(tr->node, tr->gen, LITE_CTRL_RPC_OPEN, &req,
			     sizeof(req), &resp, &len);
	if (ret)
		return ret;
	head = le64_to_cpu(resp.head);
	/* Another ring (the receiver closed ours), or a count out of range. */
	if (len != sizeof(resp) || le64_to_cpu(resp.dma) != tr->dma ||
	    le32_to_cpu(resp.rkey) != tr->rkey || head < tr->acked ||
	    head > tr->head)
		return -ECONNRESET;
	WRITE_ONCE(tr->head, head);
	/* The messages that never arrived are not out either. */
	while (tr->next != tr->first &&
	       tr->ends[(tr->next - 1) % LITE_RPC_RING_MSGS] > head)
		WRITE_ONCE(tr->next, tr->next - 1);
	WRITE_ONCE(tr->resync, false);
	return 0;
}

/*
 * Write header + @len bytes from @src into our ring on (@node, @port).
 * The ring's QP is fixed (port % K): order on the wire is ring order.
 */
int lite_rpc_send_msg(u16 node, u32 port, struct iov_iter *src, u32 len,
		      struct lite_rpc_call *call, u32 call_id, int prio)
{
	u32 span = ALIGN(sizeof(struct lite_rpc_hdr) + len, LITE_RPC_ALIGN);
	struct lite_rpc_tx_ring *tr;
	struct lite_qp_credit cr;
	struct lite_rpc_hdr *hdr;
	struct lite_rpc_tx *tx;
	struct lite_peer *peer;
	unsigned long deadline;
	struct lite_qp *lqp;
	u32 pos, need, imm;
	bool full = false;
	long left;
	int ret;

	tr = lite_rpc_tx_get(node, port);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	ret = -EMSGSIZE;
	if (len > tr->max_size)
		goto out_put;
	ret = -ENOMEM;
	tx = kmalloc(sizeof(*tx) + sizeof(*hdr) + len, GFP_KERNEL);
	if (!tx)
		goto out_put;
	hdr = (void *)tx->data;
	*hdr = (struct lite_rpc_hdr) {
		.magic		= cpu_to_le32(LITE_RPC_MAGIC),
		.len		= cpu_to_le32(len),
		.call_id	= cpu_to_le32(call_id),
	};
	if (call) {
		hdr->reply_max = cpu_to_le32(call->max);
		hdr->reply_addr = cpu_to_le64(lite_piece_addr(&call->mem, 0));
		hdr->reply_rkey = cpu_to_le32(lite_piece_rkey(&call->mem));
	}
	if (copy_from_iter((void *)(hdr + 1), len, src) != len) {
		kfree(tx);
		ret = -EFAULT;
		goto out_put;
	}
	tx->call_id = call_id;
	tx->ring = NULL;
	tx->reply_node = 0;
	tx->reply_call = 0;
	peer = lite_peer_get(node, tr->gen);
	if (!peer) {
		kfree(tx);
		ret = -ENOTCONN;
		goto out_put;
	}
	lqp = &peer->qps[port % peer->nr_qps];

	lite_prio_begin(prio);
	/*
	 * A send credit first, then ring space under the ring's lock; wait
	 * for room with neither. So the lock is held across no wait for a
	 * credit of the ring's QP or for a slow receiver (only a resync's
	 * control message, which has credits of its own, and its answer),
	 * and no credit sits idle while its sender waits for room. Every
	 * wait is killable and ends at one rpc_timeout_ms.
	 */
	deadline = jiffies + msecs_to_jiffies(lite_rpc_timeout_ms);
	for (;;) {
		ret = lite_qp_reserve(lqp, &cr, &tx->cqe, deadline);
		if (ret) {
			kfree(tx);
			goto out_unlocked;
		}
		if (mutex_lock_killable(&tr->lock)) {
			ret = -EINTR;
			kfree(tx);
			goto out_unreserve;
		}
		ret = READ_ONCE(tr->resync) ? lite_rpc_tx_resync(tr) : 0;
		if (ret) {
			mutex_unlock(&tr->lock);
			kfree(tx);
			goto out_unreserve;
		}
		lite_rpc_tx_forget(tr);
		pos = tr->head % LITE_RPC_RING_SIZE;
		need = LITE_RPC_RING_SIZE - pos < span ?
		       LITE_RPC_RING_SIZE - pos + span : span;
		if (lite_rpc_has_room(tr, need))
			break;
		mutex_unlock(&tr->lock);
		lite_qp_unreserve(lqp, &cr);
		if (!full) {
			lite_stat_peer(node, LITE_PSTAT_RING_FULL, 1);
			full = true;
		}
		left = (long)(deadline - jiffies);
		if (left > 0)
			left = wait_event_interruptible_timeout(tr->wq,
					lite_rpc_has_room(tr, need), left);
		if (left <= 0) {
			ret = left < 0 ? -EINTR : -ETIMEDOUT;
			if (ret == -ETIMEDOUT)
				lite_stat_peer(node, LITE_PSTAT_TIMEOUTS, 1);
			kfree(tx);
			goto out_unlocked;
		}
	}
	/*
	 * In flight before the check: lite_rpc_serve_close() sets @closed,
	 * then waits for no request in flight, so it sees this one or this
	 * sees @closed.
	 */
	kref_get(&tr->ref);
	atomic_inc(&tr->inflight);
	smp_mb__after_atomic();	/* @inflight before @closed */
	tx->ring = tr;
	if (READ_ONCE(tr->closed) || READ_ONCE(tr->dead)) {
		/* The port went away, or the node did. */
		ret = READ_ONCE(tr->dead) ? -ENOTCONN : -ECONNREFUSED;
		lite_rpc_tx_sent(tr, true);
		kfree(tx);
		goto out;
	}
	if (need != span)
		pos = 0;	/* the tail is too short: start over */
	imm = LITE_IMM_REQ << 30 | port << 24 | pos / LITE_RPC_ALIGN;
	refcount_inc(&peer->refs);	/* lite_rpc_post()'s; ours keeps @lqp */
	ret = lite_rpc_post(lqp, tx, sizeof(*hdr) + len, imm,
			    tr->dma + pos, tr->rkey, true);
	if (!ret) {
		WRITE_ONCE(tr->head, tr->head + need);
		WRITE_ONCE(tr->ends[tr->next % LITE_RPC_RING_MSGS], tr->head);
		WRITE_ONCE(tr->next, tr->next + 1);
		if (call)	/* what RPC_FORGET names, if it is given up */
			lite_rpc_call_posted(call, tr->gen, port, tr->head);
		lite_stat_peer(node, LITE_PSTAT_RPC_SENT, 1);
		lite_stat_peer(node, LITE_PSTAT_RPC_BYTES, len);
	}
out:
	mutex_unlock(&tr->lock);
out_unreserve:
	lite_qp_unreserve(lqp, &cr);	/* unless the post used it */
out_unlocked:
	lite_prio_end(prio);
	lite_peer_put(peer);
out_put:
	lite_rpc_tx_put(tr);
	return ret;
}

/**
 * lite_rpc_send() - one-way message to (@node, @port)
 * @node: the receiver
 * @port: its port
 * @src: the payload
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Return: 0 once it is on the wire, or a negative errno (uapi/lite.h).
 */
int lite_rpc_send(u32 node, u32 port, struct iov_iter *src, u32 len, int prio)
{
	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT ||
	    !len || prio > LITE_PRIO_LOW)
		return -EINVAL;
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	if (!lite_node_id())
		return -ENOTCONN;
	return lite_rpc_send_msg(node, port, src, len, NULL, 0, prio);
}

/* @node left: fail its calls and the senders waiting for room there. */
void lite_rpc_client_peer_down(u16 node)
{
	struct lite_rpc_tx_ring *tr;
	unsigned int i;

	lite_rpc_calls_peer_down(node);
	spin_lock(&lite_rpc_tx_lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		tr = lite_rpc_tx[node][i];
		if (!tr)
			continue;
		/* Senders waiting for room fail; the last one frees it. */
		WRITE_ONCE(tr->dead, true);
		wake_up_all(&tr->wq);
		WRITE_ONCE(lite_rpc_tx[node][i], NULL);
		lite_rpc_tx_put(tr);
	}
	for (i = 0; i < LITE_MAX_PORT; i++) {
		tr = lite_rpc_tx_closed[node][i];
		lite_rpc_tx_closed[node][i] = NULL;
		if (tr)
			lite_rpc_tx_put(tr);
	}
	spin_unlock(&lite_rpc_tx_lock);
}
