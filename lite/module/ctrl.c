// SPDX-License-Identifier: GPL-2.0
/*
 * Control messages between nodes (wire.h): a caller sends a request and
 * sleeps until the response with its id arrives, the peer leaves, or the
 * timeout passes. Requests are served on workqueues, never in the CQ's
 * context, because serving one may sleep (allocating a GiB, revoking a
 * mapping on other nodes).
 *
 * What a node does for others is bounded (docs/security.md): each node may
 * have ctrl_queue_max requests queued here; work on many bytes (a service's
 * cost hook says how many) runs on its own queue of ctrl_bulk_workers
 * workers, charged to the requesting (node, uid) against user_bulk, so
 * that revocations, locks and small requests never wait behind it. Every
 * request carries how long its requester waits; past that, or once the
 * requester sent CANCEL or left, the work stops (lite_ctrl_check_stop())
 * and what it made is undone (a service's undo hook).
 */
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
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

static unsigned int lite_ctrl_queue_max = 1024;
module_param_named(ctrl_queue_max, lite_ctrl_queue_max, uint, 0644);
MODULE_PARM_DESC(ctrl_queue_max, "control requests one node may have queued or in service here; more are dropped (default: 1024)");

static unsigned int lite_ctrl_bulk_workers = 2;
module_param_named(ctrl_bulk_workers, lite_ctrl_bulk_workers, uint, 0444);
MODULE_PARM_DESC(ctrl_bulk_workers, "how many requests of more than 1 MiB (MEMSET, MEMMOVE, ALLOC) this node serves at once (default: 2)");

/* A request received, queued for a workqueue until it is answered. */
struct lite_ctrl_work {
	struct work_struct	work;
	struct list_head	link;		/* queued or running list */
	struct hlist_node	hash;		/* lite_ctrl_active, by (src, id) */
	bool			again;		/* a copy of one answered: resend */
	struct task_struct	*task;		/* serving it, once running */
	struct lite_user	*user;		/* charged LITE_RES_BULK, or NULL */
	unsigned long		deadline;	/* jiffies: its requester gives up */
	bool			cancelled;	/* CANCEL came, or its node left */
	int			refuse;		/* answer this errno at once */
	u16			src;
	u32			src_gen;
	u16			type;
	u64			req_id;
	u32			len;
	u8			data[];
};

/*
 * CANCELs that found no request: the request may still be on its way (on
 * another QP of the pair). A few per node, the newest replacing the oldest.
 */
#define LITE_CTRL_EARLY_CANCELS	8

/*
 * A request answered lately, with its answer: a copy that comes again (its
 * sender saw the send fail after it had arrived) is answered again, not
 * served twice. Kept ctrl_timeout_ms (the copy's sender stops resending
 * then), at most LITE_CTRL_DONE_MAX of them, the oldest dropped first.
 */
struct lite_ctrl_done {
	struct hlist_node	hash;		/* lite_ctrl_done_hash */
	struct list_head	age;		/* lite_ctrl_done_age, oldest first */
	unsigned long		expires;
	u16			src;
	u32			src_gen;
	u64			req_id;
	int			status;
	u32			len;
	u8			resp[];
};

#define LITE_CTRL_DONE_MAX	4096
#define LITE_CTRL_HASH_BITS	10

static DEFINE_SPINLOCK(lite_ctrl_lock);	/* the lists, tables, counts below */
static LIST_HEAD(lite_ctrl_queued);
static LIST_HEAD(lite_ctrl_running);
static DEFINE_HASHTABLE(lite_ctrl_active, LITE_CTRL_HASH_BITS);
static DEFINE_HASHTABLE(lite_ctrl_done_hash, LITE_CTRL_HASH_BITS);
static LIST_HEAD(lite_ctrl_done_age);
static unsigned int lite_ctrl_nr_done;
static unsigned int lite_ctrl_nr_queued[LITE_MAX_NODES];
static struct {
	u64		id[LITE_CTRL_EARLY_CANCELS];
	unsigned int	next;
} lite_ctrl_early[LITE_MAX_NODES];

/*
 * A message in flight, freed when its send completes. A send that fails
 * (its QP broke, or was reset under it: flushed) is sent again on a QP
 * that is ready, until @deadline: the receiver drops a request it already
 * has and answers again one it already answered (lite_ctrl_recv()), and
 * a requester takes a response once. So a QP reset loses no message.
 */
struct lite_ctrl_tx {
	struct ib_cqe		cqe;
	struct work_struct	resend;
	struct lite_peer	*peer;		/* a reference, until freed */
	struct lite_qp		*lqp;		/* of the last post */
	unsigned long		deadline;	/* jiffies: resent until then */
	u64			dma;
	u32			len;
	u8			data[];
};

/* How often a sender looks for a QP ready again (reconnection takes s). */
#define LITE_CTRL_REPOST_MS	20

static DEFINE_XARRAY_ALLOC(lite_ctrl_waits);
static u32 lite_ctrl_next_id;
static struct workqueue_struct *lite_ctrl_wq;	/* everything but bulk */
static struct workqueue_struct *lite_ctrl_bulk_wq;
/* Who serves each request type (lite_ctrl_register()); read-only once loaded. */
static const struct lite_ctrl_service *lite_ctrl_services[LITE_CTRL_NR_TYPES] __ro_after_init;

static void lite_ctrl_tx_free(struct lite_ctrl_tx *tx)
{
	lite_peer_put(tx->peer);
	kfree(tx);
}

/*
 * Post @tx on a ready QP of its peer, waiting (up to its deadline) while
 * every QP of the pair is being reconnected.
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
		.send_flags	= IB_SEND_SIGNALED,
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
	for (;;) {
		tx->lqp = lite_peer_pick_qp(tx->peer);
		ret = lite_qp_post(tx->lqp, &wr);
		if (ret != -EAGAIN || time_after(jiffies, tx->deadline))
			break;
		msleep(LITE_CTRL_REPOST_MS);
	}
	if (ret)
		ib_dma_unmap_single(ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	return ret;
}

static void lite_ctrl_resend(struct work_struct *work)
{
	struct lite_ctrl_tx *tx = container_of(work, struct lite_ctrl_tx, resend);

	lite_stat_peer(tx->peer->id, LITE_PSTAT_CTRL_RESENT, 1);
	if (lite_ctrl_tx_post(tx))
		lite_ctrl_tx_free(tx);
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
	if (wc->status != IB_WC_SUCCESS && !READ_ONCE(peer->closing) &&
	    time_before(jiffies, tx->deadline)) {
		INIT_WORK(&tx->resend, lite_ctrl_resend);
		queue_work(lite_ctrl_wq, &tx->resend);
		return;
	}
	lite_ctrl_tx_free(tx);
}

/* Send one message to @peer; consumes the caller's peer reference. */
static int lite_ctrl_send(struct lite_peer *peer, u16 type, u64 req_id,
			  int status, const void *payload, u32 len)
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
		hdr->budget_ms = cpu_to_le32(min(lite_ctrl_timeout_ms,
						 LITE_CTRL_BUDGET_MAX_MS));
	memcpy(hdr + 1, payload, len);
	tx->len = sizeof(*hdr) + len;
	tx->peer = peer;
	tx->cqe.done = lite_ctrl_tx_done;
	/* A response too: its requester waits at most that long. */
	tx->deadline = jiffies + lite_ctrl_timeout();
	ret = lite_ctrl_tx_post(tx);
	if (ret)
		lite_ctrl_tx_free(tx);
	return ret;	/* else lite_ctrl_tx_done() cleans up */
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
 * A caller that gives up (timeout, or a fatal signal during ALLOC, MEMSET
 * or MEMMOVE) sends CANCEL: the node stops serving the request and undoes
 * what it made (an LMR, a lock), so nothing is left that nobody owns.
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
	ret = xa_alloc_cyclic_irq(&lite_ctrl_waits, &id, &wait,
				  XA_LIMIT(1, U32_MAX),
				  &lite_ctrl_next_id, GFP_KERNEL);
	if (ret < 0) {
		lite_peer_put(peer);
		return ret;
	}
	lite_stat_ctrl(type, false);
	lite_stat_peer(node, LITE_PSTAT_CTRL_SENT, 1);
	ret = lite_ctrl_send(peer, type, id, 0, req, req_len);
	if (!ret) {
		if (lite_ctrl_killable(type))
			left = wait_for_completion_killable_timeout(&wait.done, tmo);
		else
			left = wait_for_completion_timeout(&wait.done, tmo);
		ret = left > 0 ? 0 : left ? -EINTR : -ETIMEDOUT;
	}
	/* After the erase no receive can touch @wait. */
	xa_erase_irq(&lite_ctrl_waits, id);
	if (ret && completion_done(&wait.done))
		ret = 0;
	gave_up = ret == -ETIMEDOUT || ret == -EINTR;
	if (gave_up)
		lite_ctrl_cancel_on(node, gen, id);
	if (!ret)
		ret = wait.status;
	if (!ret && resp)
		*resp_len = wait.resp_len;
	if (gave_up && ret == -ETIMEDOUT) {
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

static u64 lite_ctrl_key(u16 src, u64 req_id)
{
	return req_id ^ ((u64)src << 48);
}

/* Under lite_ctrl_lock: request @req_id of (@src, @gen), queued or running. */
static struct lite_ctrl_work *lite_ctrl_find_active(u16 src, u32 gen,
						    u64 req_id)
{
	struct lite_ctrl_work *w;

	hash_for_each_possible(lite_ctrl_active, w, hash,
			       lite_ctrl_key(src, req_id))
		if (w->src == src && w->src_gen == gen && w->req_id == req_id)
			return w;
	return NULL;
}

/* Under lite_ctrl_lock: its answer, if it was answered lately. */
static struct lite_ctrl_done *lite_ctrl_find_done(u16 src, u32 gen, u64 req_id)
{
	struct lite_ctrl_done *d;

	hash_for_each_possible(lite_ctrl_done_hash, d, hash,
			       lite_ctrl_key(src, req_id))
		if (d->src == src && d->src_gen == gen && d->req_id == req_id)
			return d;
	return NULL;
}

/* Under lite_ctrl_lock: forget answers past their time, or too many. */
static void lite_ctrl_done_trim(struct list_head *gone)
{
	struct lite_ctrl_done *d, *tmp;

	list_for_each_entry_safe(d, tmp, &lite_ctrl_done_age, age) {
		if (lite_ctrl_nr_done <= LITE_CTRL_DONE_MAX &&
		    time_before(jiffies, d->expires))
			break;
		hash_del(&d->hash);
		list_move(&d->age, gone);
		lite_ctrl_nr_done--;
	}
}

static void lite_ctrl_done_free(struct list_head *gone)
{
	struct lite_ctrl_done *d, *tmp;

	list_for_each_entry_safe(d, tmp, gone, age)
		kfree(d);
}

/* @w's answer, to keep; NULL if there is no memory (a copy is served). */
static struct lite_ctrl_done *lite_ctrl_done_new(const struct lite_ctrl_work *w,
						 int status, const void *resp,
						 u32 len)
{
	struct lite_ctrl_done *d = kmalloc(struct_size(d, resp, len),
					   GFP_KERNEL);

	if (!d)
		return NULL;
	*d = (struct lite_ctrl_done) {
		.expires	= jiffies + lite_ctrl_timeout(),
		.src		= w->src,
		.src_gen	= w->src_gen,
		.req_id		= w->req_id,
		.status		= status,
		.len		= len,
	};
	memcpy(d->resp, resp, len);
	return d;
}

/* Under lite_ctrl_lock: stop every request of @node's (or of all). */
static void lite_ctrl_cancel_all(u16 node, bool all)
{
	struct lite_ctrl_work *w;

	list_for_each_entry(w, &lite_ctrl_queued, link)
		if (all || w->src == node)
			w->cancelled = true;
	list_for_each_entry(w, &lite_ctrl_running, link)
		if (all || w->src == node)
			w->cancelled = true;
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
	spin_lock_irqsave(&lite_ctrl_lock, flags);
	lite_ctrl_cancel_all(node, false);
	memset(&lite_ctrl_early[node], 0, sizeof(lite_ctrl_early[node]));
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
}

/* The request the current task serves, if it is a control worker. */
static struct lite_ctrl_work *lite_ctrl_current(void)
{
	struct lite_ctrl_work *w;

	lockdep_assert_held(&lite_ctrl_lock);
	if (!(current->flags & PF_WQ_WORKER))
		return NULL;
	list_for_each_entry(w, &lite_ctrl_running, link)
		if (w->task == current)
			return w;
	return NULL;
}

/**
 * lite_ctrl_check_stop() - should long work for a request stop now?
 *
 * For a peer's request: its requester gave up (its budget passed, it sent
 * CANCEL, or it left). For this node's own callers: a fatal signal. Long
 * loops (memset, memmove, zeroing an LMR) ask between chunks.
 *
 * Return: 0 to go on, or -ETIMEDOUT, -ECANCELED or -EINTR.
 */
int lite_ctrl_check_stop(void)
{
	struct lite_ctrl_work *w;
	unsigned long flags;
	int ret = 0;

	if (fatal_signal_pending(current))
		return -EINTR;
	spin_lock_irqsave(&lite_ctrl_lock, flags);
	w = lite_ctrl_current();
	if (w && w->cancelled)
		ret = -ECANCELED;
	else if (w && time_after(jiffies, w->deadline))
		ret = -ETIMEDOUT;
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	return ret;
}

/**
 * lite_ctrl_req_id() - the id of the peer's request being served
 *
 * A service that creates something remembers it, so that a CANCEL for the
 * request can find and undo it (struct lite_ctrl_service's undo).
 *
 * Return: the requester's id, or 0 outside a control worker (this node's
 * own calls, which cannot be abandoned).
 */
u64 lite_ctrl_req_id(void)
{
	struct lite_ctrl_work *w;
	unsigned long flags;
	u64 id;

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	w = lite_ctrl_current();
	id = w ? w->req_id : 0;
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	return id;
}

/*
 * Undo what request @req_id of @src made: its @type's service does, or
 * (@type 0: a CANCEL that came after the answer) every service that makes
 * things, each once.
 */
static void lite_ctrl_undo(u16 src, u32 src_gen, u16 type, u64 req_id)
{
	const struct lite_ctrl_service *svc;
	u16 t;

	for (t = type ?: 1; t < LITE_CTRL_NR_TYPES; t++) {
		svc = lite_ctrl_services[t];
		if (svc && svc->undo && (type || svc->types[0] == t))
			svc->undo(src, src_gen, req_id);
		if (type)
			break;
	}
}

/*
 * The answer to a request answered lately (a copy of it came), into
 * @status, @resp and @resp_len; false if it was forgotten meanwhile.
 */
static bool lite_ctrl_answer_again(const struct lite_ctrl_work *w, int *status,
				   void *resp, u32 *resp_len)
{
	struct lite_ctrl_done *d;

	spin_lock_irq(&lite_ctrl_lock);
	d = lite_ctrl_find_done(w->src, w->src_gen, w->req_id);
	if (d) {
		*status = d->status;
		*resp_len = d->len;
		memcpy(resp, d->resp, d->len);
	}
	spin_unlock_irq(&lite_ctrl_lock);
	return d;
}

static void lite_ctrl_serve(struct work_struct *work)
{
	struct lite_ctrl_work *w = container_of(work, struct lite_ctrl_work, work);
	struct lite_ctrl_done *done = NULL;
	struct lite_peer *peer;
	bool cancelled, answer = true;
	LIST_HEAD(gone);
	u32 resp_len = 0;
	void *resp = NULL;
	int ret;

	spin_lock_irq(&lite_ctrl_lock);
	w->task = current;
	list_move(&w->link, &lite_ctrl_running);
	spin_unlock_irq(&lite_ctrl_lock);

	if (w->type == LITE_CTRL_CANCEL) {
		/* Its request was answered before the CANCEL came. */
		lite_ctrl_undo(w->src, w->src_gen, 0, w->req_id);
		ret = 0;
		answer = false;
		goto done;
	}
	resp = kzalloc(LITE_CTRL_MAX_PAYLOAD, GFP_KERNEL);
	if (!resp) {
		ret = -ENOMEM;
		goto done;
	}
	if (w->again) {
		/* Forgotten meanwhile: its sender times out. */
		answer = lite_ctrl_answer_again(w, &ret, resp, &resp_len);
		goto done;
	}
	lite_stat_ctrl(w->type, true);
	/* Work nobody waits for any more is not started. */
	ret = w->refuse ?: lite_ctrl_check_stop();
	if (!ret) {
		/* The handlers and the answer want the requester UP here. */
		lite_peer_wait_up(w->src, w->src_gen, HZ);
		ret = lite_ctrl_dispatch(w->src, w->src_gen, w->type, w->data,
					 w->len, resp, &resp_len);
	}
	done = lite_ctrl_done_new(w, ret, resp, resp_len);
done:
	spin_lock_irq(&lite_ctrl_lock);
	list_del(&w->link);
	hash_del(&w->hash);
	lite_ctrl_nr_queued[w->src]--;
	cancelled = w->cancelled;
	if (done && !cancelled) {
		hash_add(lite_ctrl_done_hash, &done->hash,
			 lite_ctrl_key(done->src, done->req_id));
		list_add_tail(&done->age, &lite_ctrl_done_age);
		lite_ctrl_nr_done++;
		done = NULL;
	}
	lite_ctrl_done_trim(&gone);
	spin_unlock_irq(&lite_ctrl_lock);
	lite_ctrl_done_free(&gone);
	kfree(done);
	if (w->user) {
		lite_user_uncharge(w->user, LITE_RES_BULK, 1);
		lite_user_put(w->user);
	}
	if (!answer)
		goto out;
	if (cancelled) {
		/* Made for a requester that gave up: nobody takes it. */
		if (!ret && !w->again)
			lite_ctrl_undo(w->src, w->src_gen, w->type, w->req_id);
		goto out;
	}
	peer = lite_peer_get(w->src, w->src_gen);
	if (peer)	/* else the requester left: nobody to answer */
		lite_ctrl_send(peer, w->type | LITE_CTRL_RESP, w->req_id, ret,
			       resp, resp_len);
out:
	kfree(resp);
	kfree(w);
}

/*
 * Under lite_ctrl_lock: @src gave up on @req_id. True when the request is
 * here (it stops, and is undone if it made something); else it may still
 * be on its way, and is remembered.
 */
static bool lite_ctrl_mark_cancelled(u16 src, u32 gen, u64 req_id)
{
	struct lite_ctrl_work *w = lite_ctrl_find_active(src, gen, req_id);

	if (w)
		return w->cancelled = true;
	lite_ctrl_early[src].id[lite_ctrl_early[src].next++ %
				LITE_CTRL_EARLY_CANCELS] = req_id;
	return false;
}

/* Under lite_ctrl_lock: was @req_id of @src cancelled before it came? */
static bool lite_ctrl_cancelled_early(u16 src, u64 req_id)
{
	unsigned int i;

	for (i = 0; i < LITE_CTRL_EARLY_CANCELS; i++)
		if (lite_ctrl_early[src].id[i] == req_id)
			return true;
	return false;
}

/*
 * How many bytes a request makes this node touch, by its service's cost
 * hook, and which user of its node asks (0: cheap, or not known).
 */
static u64 lite_ctrl_cost(u16 type, const void *req, u32 len, u32 *uid)
{
	const struct lite_ctrl_service *svc = lite_ctrl_services[type];

	*uid = 0;
	return svc && svc->cost ? svc->cost(type, req, len, uid) : 0;
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
	struct workqueue_struct *wq = lite_ctrl_wq;
	struct lite_ctrl_work *w;
	unsigned long flags;
	bool found, full;
	u32 plen, uid;
	u16 type;

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
	w = kzalloc(sizeof(*w) + plen, GFP_ATOMIC);
	if (!w)
		goto dropped;	/* the requester times out */
	INIT_WORK(&w->work, lite_ctrl_serve);
	w->src = peer->id;
	w->src_gen = peer->gen;
	w->type = type;
	w->req_id = le64_to_cpu(hdr->req_id);
	w->deadline = jiffies + msecs_to_jiffies(le32_to_cpu(hdr->budget_ms) ?:
						 lite_ctrl_timeout_ms);
	w->len = plen;
	memcpy(w->data, hdr + 1, plen);
	if (type == LITE_CTRL_CANCEL)
		w->req_id = le64_to_cpu(((struct lite_ctrl_cancel *)w->data)->req_id);

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	full = lite_ctrl_nr_queued[w->src] >= READ_ONCE(lite_ctrl_queue_max);
	if (type == LITE_CTRL_CANCEL) {
		found = lite_ctrl_mark_cancelled(w->src, w->src_gen, w->req_id);
		/* Not here: answered already (undo it, in process context). */
		if (found || full) {
			spin_unlock_irqrestore(&lite_ctrl_lock, flags);
			kfree(w);
			return;
		}
	} else if (lite_ctrl_find_active(w->src, w->src_gen, w->req_id)) {
		/* A copy of one being served: its answer is to come. */
		spin_unlock_irqrestore(&lite_ctrl_lock, flags);
		kfree(w);
		return;
	} else if (full) {
		spin_unlock_irqrestore(&lite_ctrl_lock, flags);
		kfree(w);
		goto dropped;
	} else if (lite_ctrl_find_done(w->src, w->src_gen, w->req_id)) {
		w->again = true;
	} else if (lite_ctrl_cancelled_early(w->src, w->req_id)) {
		w->cancelled = true;
	}
	lite_ctrl_nr_queued[w->src]++;
	list_add_tail(&w->link, &lite_ctrl_queued);
	hash_add(lite_ctrl_active, &w->hash, lite_ctrl_key(w->src, w->req_id));
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);

	/* Bulk work: on its own queue, within its user's share. */
	if (type != LITE_CTRL_CANCEL && !w->again &&
	    lite_ctrl_cost(type, w->data, plen, &uid) >= LITE_CTRL_BULK_BYTES) {
		w->user = lite_user_get_atomic(w->src, uid);
		if (!w->user) {
			w->refuse = -ENOMEM;
		} else if (lite_user_charge(w->user, LITE_RES_BULK, 1)) {
			lite_user_put(w->user);
			w->user = NULL;
			w->refuse = -EBUSY;
		} else {
			wq = lite_ctrl_bulk_wq;
		}
	}
	queue_work(wq, &w->work);
	return;
dropped:
	lite_stat_peer(peer->id, LITE_PSTAT_CTRL_DROPPED, 1);
	pr_warn_ratelimited("node %u gen %u: control request dropped: %u queued here (ctrl_queue_max)\n",
			    peer->id, peer->gen,
			    READ_ONCE(lite_ctrl_nr_queued[peer->id]));
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
		WARN(!lite_ctrl_services[type] && type != LITE_CTRL_CANCEL,
		     "no server for control type %u\n", type);
	/* High priority: bulk work's CPU use must not delay the rest. */
	lite_ctrl_wq = alloc_workqueue("lite_ctrl", WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!lite_ctrl_wq)
		return -ENOMEM;
	lite_ctrl_bulk_wq = alloc_workqueue("lite_ctrl_bulk", WQ_UNBOUND,
					    clamp(lite_ctrl_bulk_workers, 1U, 64U));
	if (!lite_ctrl_bulk_wq) {
		destroy_workqueue(lite_ctrl_wq);
		return -ENOMEM;
	}
	return 0;
}

void lite_ctrl_exit(void)
{
	struct lite_ctrl_done *d, *tmp;

	destroy_workqueue(lite_ctrl_bulk_wq);
	destroy_workqueue(lite_ctrl_wq);
	list_for_each_entry_safe(d, tmp, &lite_ctrl_done_age, age)
		kfree(d);
}

/* How long a caller waits for an answer (ctrl_timeout_ms), in jiffies. */
unsigned long lite_ctrl_timeout(void)
{
	return msecs_to_jiffies(READ_ONCE(lite_ctrl_timeout_ms));
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

/*
 * Wait for every request being served and every queued work; what peers
 * asked for stops at its next chunk (its node was removed first, or this
 * node leaves).
 */
void lite_ctrl_flush(void)
{
	unsigned long flags;

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	lite_ctrl_cancel_all(0, true);
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	flush_workqueue(lite_ctrl_bulk_wq);
	flush_workqueue(lite_ctrl_wq);
}
