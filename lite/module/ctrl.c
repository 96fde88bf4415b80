// SPDX-License-Identifier: GPL-2.0
/*
 * Control messages between nodes (wire.h), the requester's side: a caller
 * sends a request and sleeps until the response with its id arrives, the
 * peer leaves, or the timeout passes; one that gives up sends CANCEL.
 * ctrl_serve.c serves what arrives.
 *
 * No message is lost to a QP reset: a send that fails (its QP broke, or
 * was reset and flushed it) is sent again on a QP of the pair that is
 * ready, until its deadline. The message may have arrived before its send
 * failed: the receiver drops a copy of a request it is serving and
 * answers again one it answered (ctrl_serve.c), and a requester takes the
 * first response with its id.
 */
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/wait_bit.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "ctrl_priv.h"

static unsigned int lite_ctrl_timeout_ms = 10000;
module_param_named(ctrl_timeout_ms, lite_ctrl_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ctrl_timeout_ms, "how long a request to another node may take (default: 10000)");

/* A caller waiting for its response. */
struct lite_ctrl_wait {
	struct completion	done;
	u16			node;
	int			status;
	void			*resp;
	u32			resp_len;
};

/* A message in flight, freed when its send completed or was given up. */
struct lite_ctrl_tx {
	struct ib_cqe		cqe;
	struct delayed_work	repost;		/* after a failed send */
	struct lite_peer	*peer;		/* a reference, until freed */
	struct lite_qp		*lqp;		/* of the last post */
	unsigned long		deadline;	/* jiffies: sent again until then */
	unsigned int		resends;
	u64			dma;
	u32			len;
	u8			data[];
};

/* How often a sender looks for a QP ready again (reconnection takes s). */
#define LITE_CTRL_REPOST_MS	20
/* Sends of one message that failed (each broke a QP of the pair). */
#define LITE_CTRL_MAX_RESENDS	8

static DEFINE_XARRAY_ALLOC(lite_ctrl_waits);
static u32 lite_ctrl_next_id;
/* Messages waiting to be posted again (lite_ctrl_tx_drain()). */
static atomic_t lite_ctrl_reposts = ATOMIC_INIT(0);

/**
 * lite_ctrl_timeout() - how long a caller waits for an answer
 *
 * Return: ctrl_timeout_ms, in jiffies.
 */
unsigned long lite_ctrl_timeout(void)
{
	return msecs_to_jiffies(READ_ONCE(lite_ctrl_timeout_ms));
}

static void lite_ctrl_tx_free(struct lite_ctrl_tx *tx)
{
	lite_peer_put(tx->peer);
	kfree(tx);
}

/* Is @tx a request whose caller stopped waiting? Then it goes no more. */
static bool lite_ctrl_tx_abandoned(const struct lite_ctrl_tx *tx)
{
	const struct lite_ctrl_hdr *hdr = (const void *)tx->data;
	u16 type = le16_to_cpu(hdr->type);

	if (type & LITE_CTRL_RESP || type == LITE_CTRL_CANCEL)
		return false;
	return !xa_load(&lite_ctrl_waits, le64_to_cpu(hdr->req_id));
}

/* Post @tx again @delay jiffies from now, from the control workqueue. */
static void lite_ctrl_tx_later(struct lite_ctrl_tx *tx, unsigned long delay)
{
	atomic_inc(&lite_ctrl_reposts);
	lite_ctrl_queue_delayed(&tx->repost, delay);
}

/*
 * Post @tx on a ready QP of its peer. While every QP of the pair is being
 * reconnected, it is posted later from the workqueue, never waited for
 * here: a caller may hold the membership lock that reconnection needs.
 * Return: 0 (posted, or to be), or the errno of a post that failed.
 */
static int lite_ctrl_tx_post(struct lite_ctrl_tx *tx)
{
	struct ib_device *ibdev = tx->peer->dev->ibdev;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.wr_cqe		= &tx->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED | IB_SEND_SOLICITED,
	};
	int ret;

	tx->dma = ib_dma_map_single(ibdev, tx->data, tx->len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, tx->dma))
		return -ENOMEM;
	sge = (struct ib_sge) {
		.addr	= tx->dma,
		.length	= tx->len,
		.lkey	= tx->peer->dev->pd->local_dma_lkey,
	};
	tx->lqp = lite_peer_pick_qp(tx->peer);
	ret = lite_qp_post(tx->lqp, &wr, true);
	if (!ret)
		return 0;	/* lite_ctrl_tx_done() takes it from here */
	ib_dma_unmap_single(ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	if (ret == -EAGAIN && time_before(jiffies, tx->deadline)) {
		lite_ctrl_tx_later(tx, msecs_to_jiffies(LITE_CTRL_REPOST_MS));
		return 0;
	}
	return ret;
}

static void lite_ctrl_repost(struct work_struct *work)
{
	struct lite_ctrl_tx *tx = container_of(to_delayed_work(work),
					       struct lite_ctrl_tx, repost);

	if (lite_ctrl_tx_abandoned(tx) || lite_ctrl_tx_post(tx))
		lite_ctrl_tx_free(tx);
	if (atomic_dec_and_test(&lite_ctrl_reposts))
		wake_up_var(&lite_ctrl_reposts);
}

/**
 * lite_ctrl_tx_drain() - wait until no message waits to be posted again
 *
 * For leaving, after every peer was removed: each such message then fails
 * at its next post (its peer is closing) within LITE_CTRL_REPOST_MS, and
 * none is pending on a timer when the workqueue goes.
 */
void lite_ctrl_tx_drain(void)
{
	wait_var_event(&lite_ctrl_reposts, !atomic_read(&lite_ctrl_reposts));
}

/*
 * Failures that say nothing about the message, only that its QP went
 * (reset under it, or the path to the peer was lost): worth sending again.
 */
static bool lite_ctrl_resendable(enum ib_wc_status status)
{
	return status == IB_WC_WR_FLUSH_ERR || status == IB_WC_RETRY_EXC_ERR ||
	       status == IB_WC_RNR_RETRY_EXC_ERR;
}

static void lite_ctrl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_ctrl_tx *tx = container_of(wc->wr_cqe, struct lite_ctrl_tx, cqe);
	struct lite_peer *peer = tx->peer;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		lite_peer_warn(peer, "control message failed: %s\n",
			       ib_wc_status_msg(wc->status));
	ib_dma_unmap_single(peer->dev->ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	lite_qp_complete(tx->lqp, wc->status);
	/* Not once the peer goes: its QPs are drained, it is not coming back. */
	if (lite_ctrl_resendable(wc->status) && !READ_ONCE(peer->closing) &&
	    tx->resends < LITE_CTRL_MAX_RESENDS &&
	    time_before(jiffies, tx->deadline)) {
		tx->resends++;
		lite_stat_peer(peer->id, LITE_PSTAT_CTRL_RESENT, 1);
		lite_ctrl_tx_later(tx, 0);
		return;
	}
	lite_ctrl_tx_free(tx);
}

/**
 * lite_ctrl_send() - send one message to @peer
 * @peer: the peer; the caller's reference is consumed
 * @type: LITE_CTRL_*, with LITE_CTRL_RESP for a response
 * @req_id: the request's id
 * @status: a response's errno (0 or negative)
 * @payload: what follows the header
 * @len: its size
 *
 * Context: process context; does not wait for a QP.
 * Return: 0 (sent, or to be sent once a QP of the pair is ready again) or
 * a negative errno.
 */
int lite_ctrl_send(struct lite_peer *peer, u16 type, u64 req_id, int status,
		   const void *payload, u32 len)
{
	struct lite_ctrl_hdr *hdr;
	struct lite_ctrl_tx *tx;
	int ret;

	if (WARN_ON_ONCE(len > LITE_CTRL_MAX_PAYLOAD)) {
		lite_peer_put(peer);
		return -ENOMEM;
	}
	tx = kmalloc(sizeof(*tx) + sizeof(*hdr) + len, GFP_KERNEL);
	if (!tx) {
		lite_peer_put(peer);
		return -ENOMEM;
	}
	hdr = (void *)tx->data;
	*hdr = (struct lite_ctrl_hdr) {
		.magic		= cpu_to_le32(LITE_CTRL_MAGIC),
		.type		= cpu_to_le16(type),
		.src_node	= cpu_to_le16(lite_node_id()),
		.src_gen	= cpu_to_le32(lite_node_gen()),
		.status		= cpu_to_le32(-status),
		.req_id		= cpu_to_le64(req_id),
		.len		= cpu_to_le32(len),
	};
	if (!(type & LITE_CTRL_RESP) && type != LITE_CTRL_CANCEL)
		hdr->budget_ms = cpu_to_le32(min(READ_ONCE(lite_ctrl_timeout_ms),
						 LITE_CTRL_BUDGET_MAX_MS));
	memcpy(hdr + 1, payload, len);
	tx->len = sizeof(*hdr) + len;
	tx->peer = peer;
	tx->cqe.done = lite_ctrl_tx_done;
	tx->resends = 0;
	INIT_DELAYED_WORK(&tx->repost, lite_ctrl_repost);
	/* A response too: its requester waits at most about that long. */
	tx->deadline = jiffies + lite_ctrl_timeout();
	ret = lite_ctrl_tx_post(tx);
	if (ret)
		lite_ctrl_tx_free(tx);
	return ret;
}

/*
 * A request to this node (@me, generation @my_gen): served here, in the
 * caller's context, by the handler a peer's request reaches, so that local
 * and remote callers take one path and get the same checks. Only ALLOC and
 * ASK answer with more than a few bytes (an LMR description), and their
 * callers pass room for a whole message; the other answers fit @small.
 */
static int lite_ctrl_call_local(u16 me, u32 my_gen, u32 gen, u16 type,
				const void *req, u32 req_len, void *resp,
				u32 *resp_len)
{
	union {
		struct lite_ctrl_u64		value;
		struct lite_ctrl_rpc_ring	ring;
	} small;
	bool desc = type == LITE_CTRL_ALLOC || type == LITE_CTRL_ASK;
	u32 room = resp ? *resp_len : 0, len;
	void *out = desc ? resp : &small;
	int ret;

	if (!my_gen || (gen && gen != my_gen))
		return -ENOTCONN;	/* left, or a generation of ours that did */
	if (desc && room < LITE_CTRL_MAX_PAYLOAD)
		return -EINVAL;
	ret = lite_ctrl_dispatch(me, my_gen, type, req, req_len, out, &len);
	if (!ret && len > room)
		ret = -EPROTO;
	if (!ret && resp) {
		if (out != resp)
			memcpy(resp, out, len);
		*resp_len = len;
	}
	return ret;
}

/* Tell @node (generation @gen) that we gave up on request @id. */
static void lite_ctrl_cancel_on(u16 node, u32 gen, u32 id)
{
	struct lite_ctrl_cancel msg = { .req_id = cpu_to_le64(id) };
	struct lite_peer *peer = lite_peer_get(node, gen);

	if (peer)
		lite_ctrl_send(peer, LITE_CTRL_CANCEL, 0, 0, &msg, sizeof(msg));
}

/*
 * A user's own requests, which end with its process: a fatal signal stops
 * the wait (and the work on the owner). Other requests (revocation, lock
 * hand-offs, closing) run while a dying process releases its files.
 */
static bool lite_ctrl_killable(u16 type)
{
	return (type == LITE_CTRL_ALLOC || type == LITE_CTRL_MEMSET ||
		type == LITE_CTRL_MEMMOVE) && !(current->flags & PF_KTHREAD);
}

/*
 * Tests only (debugfs lite/ctrl_drop, with rdma_probe=1): the next
 * lite_ctrl_drops requests of type lite_ctrl_drop_type to other nodes are
 * not sent, as if lost on the way; their callers time out.
 */
static atomic_t lite_ctrl_drops = ATOMIC_INIT(0);
static u16 lite_ctrl_drop_type;

/**
 * lite_ctrl_drop_next() - lose the next @count requests of @type
 * @type: LITE_CTRL_*
 * @count: how many; 0 stops
 */
void lite_ctrl_drop_next(u16 type, unsigned int count)
{
	WRITE_ONCE(lite_ctrl_drop_type, type);
	atomic_set(&lite_ctrl_drops, count);
}

static bool lite_ctrl_dropped(u16 type)
{
	if (type != READ_ONCE(lite_ctrl_drop_type) ||
	    !atomic_add_unless(&lite_ctrl_drops, -1, 0))
		return false;
	pr_info("request of type %u not sent (debugfs ctrl_drop)\n", type);
	return true;
}

/**
 * lite_ctrl_call() - send a request to a node and wait for its response
 * @node: the node; this node's own requests are served at once
 * @gen: its generation as the caller knows it; 0 for the current one
 * @type: LITE_CTRL_*
 * @req: the request payload
 * @req_len: its size
 * @resp: where the response payload goes, or NULL when none is expected
 * @resp_len: in: room at @resp; out: the response's length
 *
 * A caller that gives up on an ALLOC, MEMSET, MEMMOVE or LOCK_CREATE (a
 * timeout, or a fatal signal during the first three) sends CANCEL: the
 * node stops serving the request and undoes what it made (an LMR, a lock),
 * so nothing is left that nobody owns. Other requests are carried out.
 *
 * Context: process context; sleeps up to ctrl_timeout_ms.
 * Return: 0, the node's negative errno, -ENOTCONN when @node is not (or no
 * longer) reachable, -ETIMEDOUT, -EINTR (killed), or -EPROTO for a
 * malformed response.
 */
int lite_ctrl_call(u16 node, u32 gen, u16 type, const void *req, u32 req_len,
		   void *resp, u32 *resp_len)
{
	struct lite_ctrl_wait wait = {
		.node		= node,
		.resp		= resp,
		.resp_len	= resp ? *resp_len : 0,
	};
	unsigned long tmo = lite_ctrl_timeout();
	struct lite_peer *peer;
	bool gave_up;
	long left;
	u16 me;
	u32 id;
	int ret;

	me = lite_node_id();
	if (me && node == me)
		return lite_ctrl_call_local(me, lite_node_gen(), gen, type, req,
					    req_len, resp, resp_len);
	peer = lite_peer_get(node, gen);
	if (!peer)
		return -ENOTCONN;
	gen = peer->gen;	/* for the messages below */
	init_completion(&wait.done);
	/* From 1: 0 means "none" to the receiver's cancel records. */
	ret = xa_alloc_cyclic_irq(&lite_ctrl_waits, &id, &wait,
				  XA_LIMIT(1, U32_MAX), &lite_ctrl_next_id,
				  GFP_KERNEL);
	if (ret < 0) {
		lite_peer_put(peer);
		return ret;
	}
	lite_stat_ctrl(type, false);
	lite_stat_peer(node, LITE_PSTAT_CTRL_SENT, 1);
	if (lite_ctrl_dropped(type)) {
		lite_peer_put(peer);
		ret = 0;
	} else {
		ret = lite_ctrl_send(peer, type, id, 0, req, req_len);
	}
	if (!ret) {
		if (lite_ctrl_killable(type))
			left = wait_for_completion_killable_timeout(&wait.done, tmo);
		else
			left = wait_for_completion_timeout(&wait.done, tmo);
		ret = left > 0 ? 0 : left ? -EINTR : -ETIMEDOUT;
	}
	/* After the erase no receive can touch @wait, and no resend goes. */
	xa_erase_irq(&lite_ctrl_waits, id);
	if (ret && completion_done(&wait.done))
		ret = 0;
	gave_up = ret == -ETIMEDOUT || ret == -EINTR;
	if (gave_up && lite_ctrl_abandonable(type))
		lite_ctrl_cancel_on(node, gen, id);
	if (!ret)
		ret = wait.status;
	if (!ret && resp)
		*resp_len = wait.resp_len;
	if (gave_up && ret == -ETIMEDOUT) {
		pr_warn_ratelimited("node %u gen %u: no response to request type %u within %u ms\n",
				    node, gen, type, lite_ctrl_timeout_ms);
		lite_stat_peer(node, LITE_PSTAT_TIMEOUTS, 1);
	}
	return ret;
}

/**
 * lite_ctrl_complete() - a response from @src to our request @req_id
 * @src: the node it came from
 * @req_id: the request's id
 * @status: its errno (0 or negative)
 * @payload: the response payload (checked for its type's size)
 * @len: its size
 *
 * Only the first response counts; later copies find nobody waiting.
 *
 * Context: the CQ's completion context.
 */
void lite_ctrl_complete(u16 src, u64 req_id, int status, const void *payload,
			u32 len)
{
	struct lite_ctrl_wait *wait;
	unsigned long flags;

	if (req_id > U32_MAX)
		return;
	xa_lock_irqsave(&lite_ctrl_waits, flags);
	wait = xa_load(&lite_ctrl_waits, req_id);
	if (wait && wait->node == src && !completion_done(&wait->done)) {
		if (status) {
			wait->status = status;
		} else if (len > wait->resp_len) {
			wait->status = -EPROTO;
		} else {
			memcpy(wait->resp, payload, len);
			wait->resp_len = len;
			wait->status = 0;
		}
		complete(&wait->done);
	}
	xa_unlock_irqrestore(&lite_ctrl_waits, flags);
}

/**
 * lite_ctrl_peer_down() - fail every request waiting on @node, stop every
 * request of its being served here
 * @node: a node that left
 */
void lite_ctrl_peer_down(u16 node)
{
	struct lite_ctrl_wait *wait;
	unsigned long id, flags;

	xa_lock_irqsave(&lite_ctrl_waits, flags);
	xa_for_each(&lite_ctrl_waits, id, wait) {
		if (wait->node == node && !completion_done(&wait->done)) {
			wait->status = -ENOTCONN;
			complete(&wait->done);
		}
	}
	xa_unlock_irqrestore(&lite_ctrl_waits, flags);
	lite_ctrl_serve_peer_down(node);
}
