// SPDX-License-Identifier: GPL-2.0
/*
 * The handshake that connects a QP pair: at the join, and again whenever
 * an error took one out of use. Both ends say "here is my QP i of epoch e"
 * through the manager (a QP_INFO entry, include/lite_proto.h), so it works
 * when every RDMA path to the peer is broken:
 *
 *   IDLE ---- peer's entry, not RTR ----> connect, answer "RTR" -> CONNECTED
 *   IDLE ---- peer's entry, RTR --------> connect, hello --------> READY
 *   CONNECTED -- peer's "RTR", or any message from its QP -------> READY
 *   CONNECTED, READY -- a completion error, a QP event -----------> BROKEN
 *                       that found it in ERR, a stale hello
 *   BROKEN --- drained, reset, INIT, receives posted, epoch + 1 -> IDLE,
 *              sends its entry (or answers the peer's, if it came first)
 *
 * A QP sends only once it knows the peer's is connected to it (RTR), so
 * nothing depends on the transport retrying into a QP that is not ready
 * yet; a hello that fails anyway is one more error, and another reset.
 * Epochs tell a reconnection's entries from an earlier one's: an entry of
 * a later epoch makes a connected QP reset too (the peer's went), one of
 * an earlier epoch is stale. The hello carries the epoch too: one of
 * another epoch is an earlier connection's packet, and resets the QP
 * instead of making it READY (qp_pool.c). Resets of one QP back off (0.1 s
 * doubling to 10 s) while they keep failing within seconds.
 *
 * Everything but lite_qp_break() and lite_qp_hello_arrived() runs under
 * the membership lock (membership.c); a QP's state changes under its
 * peer's lock, which lite_qp_post() checks.
 */
#include <linux/jiffies.h>

#include "lite_priv.h"

#define LITE_BACKOFF_MIN	(HZ / 10)
#define LITE_BACKOFF_MAX	(10 * HZ)

static const char *const lite_qp_state_names[] = {
	[LITE_QP_IDLE]		= "idle",
	[LITE_QP_CONNECTED]	= "connected",
	[LITE_QP_READY]		= "ready",
	[LITE_QP_BROKEN]	= "broken",
};

const char *lite_qp_state_name(enum lite_qp_state state)
{
	return state < ARRAY_SIZE(lite_qp_state_names) ?
	       lite_qp_state_names[state] : "?";
}

/*
 * @from -> @to, unless another context moved @lqp meanwhile (an error to
 * BROKEN, a message to READY): every change of state goes through here.
 */
static bool lite_qp_move(struct lite_qp *lqp, enum lite_qp_state from,
			 enum lite_qp_state to)
{
	unsigned long flags;
	bool moved;

	spin_lock_irqsave(&lqp->peer->lock, flags);
	moved = lqp->state == from;
	if (moved)
		WRITE_ONCE(lqp->state, to);
	spin_unlock_irqrestore(&lqp->peer->lock, flags);
	return moved;
}

/* Queue @peer's reconnection with a reference; false if it is going away. */
static bool lite_peer_queue_recover(struct lite_peer *peer,
				    unsigned long delay)
{
	lockdep_assert_held(&peer->lock);
	if (peer->closing)
		return false;
	/* The table's reference is held until closing: never the last here. */
	refcount_inc(&peer->refs);
	if (!queue_delayed_work(lite_dev_wq, &peer->recover_work, delay))
		refcount_dec(&peer->refs);
	return true;
}

static void lite_qp_mark_broken(struct lite_qp *lqp, const char *why,
				bool from_idle)
{
	struct lite_peer *peer = lqp->peer;
	enum lite_qp_state state;
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&peer->lock, flags);
	state = lqp->state;
	if (state == LITE_QP_CONNECTED || state == LITE_QP_READY ||
	    (from_idle && state == LITE_QP_IDLE)) {
		queued = lite_peer_queue_recover(peer, READ_ONCE(lqp->backoff));
		if (queued)
			WRITE_ONCE(lqp->state, LITE_QP_BROKEN);
	}
	spin_unlock_irqrestore(&peer->lock, flags);
	if (queued)
		lite_peer_warn(peer, "QP %u (epoch %u, %s): %s; out of use until reconnected\n",
			       lqp->index, READ_ONCE(lqp->epoch),
			       lite_qp_state_name(state), why);
}

/**
 * lite_qp_break() - an error on @lqp: take it out of use and reconnect it
 * @lqp: a QP of a peer the caller holds (or a work request of @lqp holds)
 * @why: for the log
 *
 * Only a QP that was connected breaks; one being reset already, or whose
 * peer is going away, stays as it is.
 *
 * Context: any.
 */
void lite_qp_break(struct lite_qp *lqp, const char *why)
{
	lite_qp_mark_broken(lqp, why, false);
}

/* @from -> READY; the peer is UP once every QP was. */
static bool lite_qp_set_ready(struct lite_qp *lqp, enum lite_qp_state from)
{
	struct lite_peer *peer = lqp->peer;

	if (!lite_qp_move(lqp, from, LITE_QP_READY))
		return false;
	if (READ_ONCE(lqp->recoveries))
		lite_peer_info(peer, "QP %u reconnected (epoch %u)\n",
			       lqp->index, READ_ONCE(lqp->epoch));
	if (!test_and_set_bit(lqp->index, &peer->ready_seen) &&
	    bitmap_full(&peer->ready_seen, peer->nr_qps)) {
		lite_dev_ops.peer_ready(peer);
		lite_peer_info(peer, "%u QPs up (%s)\n", peer->nr_qps,
			       peer->name);
	}
	return true;
}

/**
 * lite_qp_hello_arrived() - a message came on a CONNECTED QP: it is READY
 * @lqp: the QP
 *
 * The peer sends only on a QP it knows is connected at both ends. A hello
 * of another epoch than @lqp's does not come here (qp_pool.c).
 *
 * Context: softirq (the CQ's handler).
 */
void lite_qp_hello_arrived(struct lite_qp *lqp)
{
	if (READ_ONCE(lqp->state) == LITE_QP_CONNECTED)
		lite_qp_set_ready(lqp, LITE_QP_CONNECTED);
}

static void lite_info_init(struct lite_peer *peer,
			   struct lite_msg_qp_info *info)
{
	memset(info, 0, sizeof(*info));
	info->dst_node = cpu_to_le16(peer->id);
	info->nr_qps = cpu_to_le16(peer->nr_qps);
}

/* Our end of @lqp, for the peer; @rtr: connected to its end. */
static void lite_info_add(struct lite_msg_qp_info *info,
			  const struct lite_qp *lqp, bool rtr)
{
	info->qp[lqp->index] = (struct lite_qp_endpoint) {
		.qpn	= cpu_to_le32(lqp->qpn),
		.psn	= cpu_to_le32(lqp->psn),
		.epoch	= cpu_to_le32(lqp->epoch),
		.flags	= LITE_QP_EP_SET | (rtr ? LITE_QP_EP_RTR : 0),
	};
}

/**
 * lite_peer_fill_qp_info() - our K QPs for @peer, as at the join
 * @peer: a peer just created (every QP IDLE, epoch 0)
 * @info: filled except src_node, src_gen and dst_gen
 */
void lite_peer_fill_qp_info(struct lite_peer *peer,
			    struct lite_msg_qp_info *info)
{
	unsigned int i;

	lite_info_init(peer, info);
	for (i = 0; i < peer->nr_qps; i++)
		lite_info_add(info, &peer->qps[i], false);
}

/*
 * The peer's end @r of @lqp arrived (or was kept while @lqp was BROKEN).
 * Returns whether @out got our answer.
 */
static bool lite_qp_take(struct lite_qp *lqp, const struct lite_qp_remote *r,
			 struct lite_msg_qp_info *out)
{
	enum lite_qp_state state = READ_ONCE(lqp->state);
	int ret;

	if (r->epoch < lqp->epoch)
		return false;		/* an earlier connection's */
	if (state == LITE_QP_BROKEN) {
		if (!lqp->pending.valid || r->epoch >= lqp->pending.epoch)
			lqp->pending = *r;	/* for after the reset */
		return false;
	}
	if (r->epoch > lqp->epoch) {
		if (state != LITE_QP_IDLE) {
			/* The peer reset its end: ours follows. */
			lqp->pending = *r;
			lite_qp_break(lqp, "the peer reconnects it");
			return false;
		}
		/* Not connected yet: any epoch. Read by lite_rx_done(). */
		WRITE_ONCE(lqp->epoch, r->epoch);
	}
	switch (state) {
	case LITE_QP_IDLE:
		/* Nothing is posted on it: no error can move it meanwhile. */
		ret = lite_qp_connect(lqp, r->qpn, r->psn);
		if (ret) {
			lite_peer_err(lqp->peer, "QP %u: connecting failed: %d\n",
				      lqp->index, ret);
			lite_qp_mark_broken(lqp, "cannot connect", true);
			return false;
		}
		if (!r->rtr) {
			if (!lite_qp_move(lqp, LITE_QP_IDLE, LITE_QP_CONNECTED))
				return false;
			lite_info_add(out, lqp, true);
			return true;
		}
		/*
		 * READY before the hello: the peer sends once it arrives, and
		 * its first message may be handled before this thread runs on.
		 * Whatever of ours arrives first is the hello to the peer.
		 */
		if (!lite_qp_set_ready(lqp, LITE_QP_IDLE))
			return false;
		ret = lite_qp_send_hello(lqp);
		if (ret)
			lite_qp_break(lqp, "cannot post the hello");
		return false;
	case LITE_QP_CONNECTED:
		if (r->rtr)
			lite_qp_set_ready(lqp, LITE_QP_CONNECTED);
		return false;
	default:
		return false;		/* READY: old news */
	}
}

/**
 * lite_peer_take_qp_info() - act on the entries of the peer's QP_INFO
 * @peer: the sender
 * @in: its QP_INFO, validated (lite_check_mgr_qp_info())
 * @out: our answer, filled except src_node, src_gen and dst_gen
 *
 * Context: process context, membership lock held.
 * Return: whether @out has entries to send.
 */
bool lite_peer_take_qp_info(struct lite_peer *peer,
			    const struct lite_msg_qp_info *in,
			    struct lite_msg_qp_info *out)
{
	bool answer = false;
	unsigned int i;

	cmpxchg(&peer->state, LITE_PEER_CREATED, LITE_PEER_CONNECTING);
	lite_info_init(peer, out);
	for (i = 0; i < peer->nr_qps; i++) {
		const struct lite_qp_endpoint *e = &in->qp[i];
		struct lite_qp_remote r = {
			.qpn	= le32_to_cpu(e->qpn),
			.psn	= le32_to_cpu(e->psn),
			.epoch	= le32_to_cpu(e->epoch),
			.rtr	= e->flags & LITE_QP_EP_RTR,
			.valid	= true,
		};

		if (e->flags & LITE_QP_EP_SET)
			answer |= lite_qp_take(&peer->qps[i], &r, out);
	}
	return answer;
}

/**
 * lite_peer_recover() - reset @peer's BROKEN QPs and start reconnecting
 * @peer: a peer in the table
 * @out: our entries for the peer, filled except src_node, src_gen and
 *	dst_gen
 *
 * A QP whose reset failed stays BROKEN and is tried again later.
 *
 * Context: process context (the drain sleeps), membership lock held.
 * Return: whether @out has entries to send.
 */
bool lite_peer_recover(struct lite_peer *peer, struct lite_msg_qp_info *out)
{
	unsigned long retry = 0;
	bool answer = false;
	unsigned int i;

	lite_info_init(peer, out);
	for (i = 0; i < peer->nr_qps; i++) {
		struct lite_qp *lqp = &peer->qps[i];
		struct lite_qp_remote r = lqp->pending;
		int ret;

		if (READ_ONCE(lqp->state) != LITE_QP_BROKEN)
			continue;
		/* Failing again within seconds: wait longer next time. */
		if (lqp->recoveries &&
		    time_before(jiffies, lqp->last_reset + LITE_BACKOFF_MAX))
			WRITE_ONCE(lqp->backoff,
				   clamp(lqp->backoff * 2, LITE_BACKOFF_MIN,
					 LITE_BACKOFF_MAX));
		else
			WRITE_ONCE(lqp->backoff, 0);
		lqp->last_reset = jiffies;
		ret = lite_qp_reset(lqp);
		if (ret) {
			lite_peer_err(peer, "QP %u: reset failed: %d\n",
				      lqp->index, ret);
			retry = max3(retry, lqp->backoff, LITE_BACKOFF_MIN);
			continue;
		}
		WRITE_ONCE(lqp->epoch,
			   max(lqp->epoch + 1, r.valid ? r.epoch : 0));
		lqp->pending.valid = false;
		WRITE_ONCE(lqp->recoveries, lqp->recoveries + 1);
		lite_qp_move(lqp, LITE_QP_BROKEN, LITE_QP_IDLE);
		/* The peer's end of this epoch came first: answer it. */
		if (r.valid && r.epoch == lqp->epoch)
			answer |= lite_qp_take(lqp, &r, out);
		if (READ_ONCE(lqp->state) == LITE_QP_IDLE) {
			lite_info_add(out, lqp, false);
			answer = true;
		}
	}
	if (retry)
		lite_peer_recover_later(peer, retry);
	return answer;
}

/**
 * lite_peer_recover_later() - run @peer's reconnection again in a while
 * @peer: a peer in the table (its reconnection could not run now)
 * @delay: in jiffies; 0 for the longest backoff
 *
 * Context: any.
 */
void lite_peer_recover_later(struct lite_peer *peer, unsigned long delay)
{
	unsigned long flags;

	spin_lock_irqsave(&peer->lock, flags);
	lite_peer_queue_recover(peer, delay ?: LITE_BACKOFF_MAX);
	spin_unlock_irqrestore(&peer->lock, flags);
}
