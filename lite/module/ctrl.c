// SPDX-License-Identifier: GPL-2.0
/*
 * Control messages between nodes (wire.h): a caller sends a request and
 * sleeps until the response with its id arrives, the peer leaves, or the
 * timeout passes. Requests are served on a workqueue, never in the CQ's
 * context, because serving one may sleep (allocating a GiB, revoking a
 * mapping on other nodes).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "wire.h"
#include "wire_check.h"

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

/* A request received, queued for the workqueue. */
struct lite_ctrl_work {
	struct work_struct	work;
	u16			src;
	u32			src_gen;
	u16			type;
	u64			req_id;
	u32			len;
	u8			data[];
};

/* A message in flight, freed when its send completes. */
struct lite_ctrl_tx {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	u64			dma;
	u32			len;
	u8			data[];
};

static DEFINE_XARRAY_ALLOC(lite_ctrl_waits);
static u32 lite_ctrl_next_id;
static struct workqueue_struct *lite_ctrl_wq;
/* Who serves each request type (lite_ctrl_register()); read-only once loaded. */
static const struct lite_ctrl_service *lite_ctrl_services[LITE_CTRL_NR_TYPES] __ro_after_init;

static void lite_ctrl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_ctrl_tx *tx = container_of(wc->wr_cqe, struct lite_ctrl_tx, cqe);
	struct lite_peer *peer = tx->lqp->peer;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		lite_peer_warn(peer, "control message failed: %s\n",
			       ib_wc_status_msg(wc->status));
	ib_dma_unmap_single(peer->dev->ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	lite_qp_complete(tx->lqp, wc->status);
	kfree(tx);
	lite_peer_put(peer);
}

/* Send one message to @peer; consumes the caller's peer reference. */
static int lite_ctrl_send(struct lite_peer *peer, u16 type, u64 req_id,
			  int status, const void *payload, u32 len)
{
	struct ib_device *ibdev = peer->dev->ibdev;
	struct lite_ctrl_hdr *hdr;
	struct lite_ctrl_tx *tx;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};
	int ret = -ENOMEM;

	if (WARN_ON_ONCE(len > LITE_CTRL_MAX_PAYLOAD))
		goto err_put;
	tx = kmalloc(sizeof(*tx) + sizeof(*hdr) + len, GFP_KERNEL);
	if (!tx)
		goto err_put;
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
	memcpy(hdr + 1, payload, len);
	tx->len = sizeof(*hdr) + len;
	tx->lqp = lite_peer_pick_qp(peer);
	tx->cqe.done = lite_ctrl_tx_done;
	tx->dma = ib_dma_map_single(ibdev, tx->data, tx->len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, tx->dma))
		goto err_free;
	sge = (struct ib_sge) {
		.addr	= tx->dma,
		.length	= tx->len,
		.lkey	= peer->dev->pd->local_dma_lkey,
	};
	wr.wr_cqe = &tx->cqe;
	ret = lite_qp_post(tx->lqp, &wr);
	if (!ret)
		return 0;	/* lite_ctrl_tx_done() cleans up */
	ib_dma_unmap_single(ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
err_free:
	kfree(tx);
err_put:
	lite_peer_put(peer);
	return ret;
}

/**
 * lite_ctrl_register() - serve @svc's request types with @svc->serve
 * @svc: the service; lives as long as the module
 *
 * Context: module load, before the device is taken (no request can
 * arrive yet). A type served twice is a bug, and keeps its first server.
 */
void __init lite_ctrl_register(const struct lite_ctrl_service *svc)
{
	unsigned int i;
	u16 type;

	for (i = 0; i < svc->nr_types; i++) {
		type = svc->types[i];
		if (WARN_ON(!type || type >= LITE_CTRL_NR_TYPES ||
			    lite_ctrl_services[type]))
			continue;
		lite_ctrl_services[type] = svc;
	}
}

/*
 * Serve one request from @src by its type's service (struct
 * lite_ctrl_service says what @resp holds). Process context: it may sleep.
 */
static int lite_ctrl_dispatch(u16 src, u32 src_gen, u16 type, const void *req,
			      u32 len, void *resp, u32 *resp_len)
{
	const struct lite_ctrl_service *svc = NULL;
	int ret;

	*resp_len = 0;
	if (type < LITE_CTRL_NR_TYPES)
		svc = lite_ctrl_services[type];
	if (!svc)
		return -EOPNOTSUPP;
	ret = svc->serve(src, src_gen, type, req, len, resp, resp_len);
	if (ret)
		*resp_len = 0;
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
 * Context: process context; sleeps up to ctrl_timeout_ms.
 * Return: 0, the node's negative errno, -ENOTCONN when @node is not (or no
 * longer) reachable, -ETIMEDOUT, or -EPROTO for a malformed response.
 */
int lite_ctrl_call(u16 node, u32 gen, u16 type, const void *req, u32 req_len,
		   void *resp, u32 *resp_len)
{
	struct lite_ctrl_wait wait = {
		.node		= node,
		.resp		= resp,
		.resp_len	= resp ? *resp_len : 0,
	};
	struct lite_peer *peer;
	unsigned long left;
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
	ret = xa_alloc_cyclic_irq(&lite_ctrl_waits, &id, &wait, xa_limit_32b,
				  &lite_ctrl_next_id, GFP_KERNEL);
	if (ret < 0) {
		lite_peer_put(peer);
		return ret;
	}
	lite_stat_ctrl(type, false);
	lite_stat_peer(node, LITE_PSTAT_CTRL_SENT, 1);
	ret = lite_ctrl_send(peer, type, id, 0, req, req_len);
	if (!ret) {
		left = wait_for_completion_timeout(&wait.done,
				msecs_to_jiffies(lite_ctrl_timeout_ms));
		ret = left ? 0 : -ETIMEDOUT;
	}
	/* After the erase no receive can touch @wait. */
	xa_erase_irq(&lite_ctrl_waits, id);
	if (ret == -ETIMEDOUT && completion_done(&wait.done))
		ret = 0;
	if (!ret)
		ret = wait.status;
	if (!ret && resp)
		*resp_len = wait.resp_len;
	if (ret == -ETIMEDOUT) {
		lite_node_warn(node, gen, "no response to request type %u within %u ms\n",
			       type, lite_ctrl_timeout_ms);
		lite_stat_peer(node, LITE_PSTAT_TIMEOUTS, 1);
	}
	return ret;
}

static void lite_ctrl_complete(u16 src, u64 req_id, int status,
			       const void *payload, u32 len)
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
 * lite_ctrl_peer_down() - fail every request waiting on @node
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
}

static void lite_ctrl_serve(struct work_struct *work)
{
	struct lite_ctrl_work *w = container_of(work, struct lite_ctrl_work, work);
	struct lite_peer *peer;
	u32 resp_len = 0;
	void *resp;
	int ret;

	lite_stat_ctrl(w->type, true);
	/* The handlers and the answer want the requester UP here. */
	lite_peer_wait_up(w->src, w->src_gen, HZ);
	resp = kzalloc(LITE_CTRL_MAX_PAYLOAD, GFP_KERNEL);
	if (!resp)
		ret = -ENOMEM;
	else
		ret = lite_ctrl_dispatch(w->src, w->src_gen, w->type, w->data,
					 w->len, resp, &resp_len);
	peer = lite_peer_get(w->src, w->src_gen);
	if (peer)	/* else the requester left: nobody to answer */
		lite_ctrl_send(peer, w->type | LITE_CTRL_RESP, w->req_id, ret,
			       resp, resp_len);
	kfree(resp);
	kfree(w);
}

/**
 * lite_ctrl_recv() - handle a control message from @peer
 * @peer: the sender, whose QPs are up
 * @buf: the message as received
 * @len: its length
 *
 * Context: the CQ's completion context; does not sleep.
 */
void lite_ctrl_recv(struct lite_peer *peer, const void *buf, u32 len)
{
	const struct lite_ctrl_hdr *hdr = buf;
	struct lite_ctrl_work *w;
	u16 type;
	u32 plen;

	if (lite_check_ctrl_hdr(buf, len, peer->id, peer->gen, &type, &plen))
		goto bad;
	if (lite_check_ctrl_len(type, plen)) {
		/* Fail its caller now rather than at its timeout. */
		if (type & LITE_CTRL_RESP)
			lite_ctrl_complete(peer->id, le64_to_cpu(hdr->req_id),
					   -EPROTO, NULL, 0);
		goto bad;
	}
	if (type & LITE_CTRL_RESP) {
		lite_ctrl_complete(peer->id, le64_to_cpu(hdr->req_id),
				   -(int)le32_to_cpu(hdr->status), hdr + 1, plen);
		return;
	}
	w = kmalloc(sizeof(*w) + plen, GFP_ATOMIC);
	if (!w)
		return;	/* the requester times out */
	INIT_WORK(&w->work, lite_ctrl_serve);
	w->src = peer->id;
	w->src_gen = peer->gen;
	w->type = type;
	w->req_id = le64_to_cpu(hdr->req_id);
	w->len = plen;
	memcpy(w->data, hdr + 1, plen);
	queue_work(lite_ctrl_wq, &w->work);
	return;
bad:
	lite_peer_warn(peer, "malformed control message (%u bytes) dropped\n",
		       len);
}

int __init lite_ctrl_init(void)
{
	u16 type;

	/* Every type wire_check.c lets in has a server (main.c registers). */
	for (type = 1; type < LITE_CTRL_NR_TYPES; type++)
		WARN(!lite_ctrl_services[type], "no server for control type %u\n",
		     type);
	lite_ctrl_wq = alloc_workqueue("lite_ctrl", WQ_UNBOUND, 0);
	return lite_ctrl_wq ? 0 : -ENOMEM;
}

void lite_ctrl_exit(void)
{
	destroy_workqueue(lite_ctrl_wq);
}

/* Queue work that may sleep on other nodes (orphaned LMRs). */
void lite_ctrl_queue(struct work_struct *work)
{
	queue_work(lite_ctrl_wq, work);
}

/* The same, @delay jiffies from now (a pending one is moved to then). */
void lite_ctrl_queue_delayed(struct delayed_work *dwork, unsigned long delay)
{
	mod_delayed_work(lite_ctrl_wq, dwork, delay);
}

/* Wait for every request being served and every queued work. */
void lite_ctrl_flush(void)
{
	flush_workqueue(lite_ctrl_wq);
}
