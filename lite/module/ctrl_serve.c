// SPDX-License-Identifier: GPL-2.0
/*
 * Control messages between nodes, the serving side: requests from peers
 * are served on workqueues, never in the CQ's context, because serving
 * one may sleep (allocating a GiB, revoking a mapping on other nodes).
 *
 * What a node does for others is bounded (docs/security.md, "What a node
 * does for others"): each node may have ctrl_queue_max requests queued
 * here; work on many bytes (a service's cost hook says how many) runs on
 * its own queue of ctrl_bulk_workers workers, charged to the requesting
 * (node, uid) against user_bulk, so that revocations, locks and small
 * requests never wait behind it. Every request carries how long its
 * requester waits; past that, or once the requester sent CANCEL or left,
 * the work stops (lite_ctrl_check_stop()) and what it made is undone (a
 * service's undo hook).
 *
 * A request may come twice (its sender saw the send fail after it had
 * arrived, ctrl.c): a copy of one being served is dropped, and one
 * answered lately gets the same answer again, never a second serving.
 */
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lite_priv.h"
#include "ctrl_priv.h"
#include "wire_check.h"

static unsigned int lite_ctrl_queue_max = 1024;
module_param_named(ctrl_queue_max, lite_ctrl_queue_max, uint, 0644);
MODULE_PARM_DESC(ctrl_queue_max, "control requests one node may have queued or in service here; more are dropped (default: 1024)");

static unsigned int lite_ctrl_bulk_workers = 2;
module_param_named(ctrl_bulk_workers, lite_ctrl_bulk_workers, uint, 0444);
MODULE_PARM_DESC(ctrl_bulk_workers, "how many requests of 1 MiB or more (MEMSET, MEMMOVE, ALLOC) this node serves at once (default: 2)");

/* Bulk requests one node may have here, whatever uids it names. */
#define LITE_CTRL_BULK_PER_NODE	16
/* CANCELs of one node waiting to undo what an answered request made. */
#define LITE_CTRL_UNDO_PER_NODE	16
/*
 * CANCELs remembered per node: the request may still be on its way (on
 * another QP of the pair), or come again; the newest replace the oldest.
 */
#define LITE_CTRL_CANCELLED_IDS	8
/* Answers kept per node, for copies of their requests. */
#define LITE_CTRL_DONE_PER_NODE	256
#define LITE_CTRL_HASH_BITS	10

/* A request received, queued for a workqueue until it is answered. */
struct lite_ctrl_work {
	struct work_struct	work;
	struct list_head	link;		/* queued or running list */
	struct hlist_node	hash;		/* lite_ctrl_active, by (src, id) */
	struct task_struct	*task;		/* serving it, once running */
	struct lite_user	*user;		/* charged LITE_RES_BULK, or NULL */
	unsigned long		deadline;	/* jiffies: its requester gives up */
	bool			bulk;		/* counted in lite_ctrl_nr_bulk */
	bool			again;		/* a copy of one answered: resend */
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
 * A request answered lately, and its answer: kept as long as its sender
 * may send a copy (its budget, never longer than our own timeout).
 */
struct lite_ctrl_done {
	struct hlist_node	hash;		/* lite_ctrl_done_hash */
	struct list_head	age;		/* its node's, oldest first */
	unsigned long		expires;
	u16			src;
	u32			src_gen;
	u64			req_id;
	int			status;
	u32			len;
	u8			resp[];
};

static DEFINE_SPINLOCK(lite_ctrl_lock);	/* the lists, tables, counts below */
static LIST_HEAD(lite_ctrl_queued);
static LIST_HEAD(lite_ctrl_running);
static DEFINE_HASHTABLE(lite_ctrl_active, LITE_CTRL_HASH_BITS);
static DEFINE_HASHTABLE(lite_ctrl_done_hash, LITE_CTRL_HASH_BITS);
static struct lite_ctrl_node {
	unsigned int		queued;		/* requests here, CANCELs included */
	unsigned int		bulk;
	unsigned int		undos;
	unsigned int		nr_done;
	struct list_head	done;		/* lite_ctrl_done, oldest first */
	u64			cancelled[LITE_CTRL_CANCELLED_IDS];
	unsigned int		next_cancelled;
} lite_ctrl_nodes[LITE_MAX_NODES];
/* Peers choose request ids: keep them from choosing hash buckets. */
static u64 lite_ctrl_hash_seed __ro_after_init;

static struct workqueue_struct *lite_ctrl_wq;	/* everything but bulk */
static struct workqueue_struct *lite_ctrl_bulk_wq;
/* Who serves each request type (lite_ctrl_register()); read-only once loaded. */
static const struct lite_ctrl_service *lite_ctrl_services[LITE_CTRL_NR_TYPES] __ro_after_init;

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

/**
 * lite_ctrl_dispatch() - serve one request by its type's service
 * @src: the requesting node (this node's id for its own requests)
 * @src_gen: its generation
 * @type: LITE_CTRL_*
 * @req: the payload
 * @len: its size
 * @resp: room for the answer (struct lite_ctrl_service says how much)
 * @resp_len: set to the answer's length
 *
 * Context: process context; it may sleep.
 * Return: 0 or the negative errno the requester gets.
 */
int lite_ctrl_dispatch(u16 src, u32 src_gen, u16 type, const void *req,
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

static u64 lite_ctrl_key(u16 src, u64 req_id)
{
	return (req_id ^ lite_ctrl_hash_seed) + src;
}

/* Under lite_ctrl_lock: request @req_id of (@src, @gen), queued or running. */
static struct lite_ctrl_work *lite_ctrl_find_active(u16 src, u32 gen,
						    u64 req_id)
{
	struct lite_ctrl_work *w;

	hash_for_each_possible(lite_ctrl_active, w, hash,
			       lite_ctrl_key(src, req_id))
		if (w->src == src && w->src_gen == gen && w->req_id == req_id &&
		    w->type != LITE_CTRL_CANCEL)
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

/* Under lite_ctrl_lock: was @req_id of @src given up on (CANCEL came)? */
static bool lite_ctrl_was_cancelled(u16 src, u64 req_id)
{
	const struct lite_ctrl_node *n = &lite_ctrl_nodes[src];
	unsigned int i;

	for (i = 0; i < LITE_CTRL_CANCELLED_IDS; i++)
		if (n->cancelled[i] == req_id)
			return true;
	return false;
}

/*
 * Under lite_ctrl_lock: forget @node's answers past their time, and the
 * oldest beyond what a node may keep (@room more to come).
 */
static void lite_ctrl_done_trim(u16 node, unsigned int room,
				struct list_head *gone)
{
	struct lite_ctrl_node *n = &lite_ctrl_nodes[node];
	struct lite_ctrl_done *d, *tmp;

	list_for_each_entry_safe(d, tmp, &n->done, age) {
		if (n->nr_done + room <= LITE_CTRL_DONE_PER_NODE &&
		    time_before(jiffies, d->expires))
			break;
		hash_del(&d->hash);
		list_move(&d->age, gone);
		n->nr_done--;
	}
}

static void lite_ctrl_done_free(struct list_head *gone)
{
	struct lite_ctrl_done *d, *tmp;

	list_for_each_entry_safe(d, tmp, gone, age)
		kfree(d);
}

/* @w's answer, to keep; NULL if there is no memory. */
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
 * lite_ctrl_serve_peer_down() - stop every request of @node's served here
 * and forget what it asked before
 * @node: a node that left
 */
void lite_ctrl_serve_peer_down(u16 node)
{
	struct lite_ctrl_node *n = &lite_ctrl_nodes[node];
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	lite_ctrl_cancel_all(node, false);
	memset(n->cancelled, 0, sizeof(n->cancelled));
	lite_ctrl_done_trim(node, LITE_CTRL_DONE_PER_NODE, &gone);
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	lite_ctrl_done_free(&gone);
}

/* Under lite_ctrl_lock: the request the current task serves, if any. */
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
	/* A caller's own memset or memmove: no lock taken per chunk. */
	if (!(current->flags & PF_WQ_WORKER))
		return 0;
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

/* Take @w off the lists, keep its answer @done; true if it was cancelled. */
static bool lite_ctrl_finish(struct lite_ctrl_work *w,
			     struct lite_ctrl_done *done)
{
	struct lite_ctrl_node *n = &lite_ctrl_nodes[w->src];
	bool cancelled;
	LIST_HEAD(gone);

	spin_lock_irq(&lite_ctrl_lock);
	list_del(&w->link);
	hash_del(&w->hash);
	n->queued--;
	if (w->bulk)
		n->bulk--;
	if (w->type == LITE_CTRL_CANCEL)
		n->undos--;
	cancelled = w->cancelled;
	if (done) {
		/* A cancelled one too: a later copy must not run it again. */
		if (cancelled) {
			done->status = -ECANCELED;
			done->len = 0;
		}
		lite_ctrl_done_trim(w->src, 1, &gone);
		hash_add(lite_ctrl_done_hash, &done->hash,
			 lite_ctrl_key(done->src, done->req_id));
		list_add_tail(&done->age, &n->done);
		n->nr_done++;
	}
	spin_unlock_irq(&lite_ctrl_lock);
	lite_ctrl_done_free(&gone);
	if (w->user) {
		lite_user_uncharge(w->user, LITE_RES_BULK, 1);
		lite_user_put(w->user);
	}
	return cancelled;
}

static void lite_ctrl_serve(struct work_struct *work)
{
	struct lite_ctrl_work *w = container_of(work, struct lite_ctrl_work, work);
	struct lite_ctrl_done *done = NULL;
	struct lite_peer *peer;
	bool answer = false;
	u32 resp_len = 0;
	void *resp = NULL;
	int ret = 0;

	spin_lock_irq(&lite_ctrl_lock);
	w->task = current;
	list_move(&w->link, &lite_ctrl_running);
	spin_unlock_irq(&lite_ctrl_lock);

	if (w->type == LITE_CTRL_CANCEL) {
		/* Its request was answered before the CANCEL came. */
		lite_ctrl_undo(w->src, w->src_gen, 0, w->req_id);
		lite_ctrl_finish(w, NULL);
		kfree(w);
		return;
	}
	resp = kzalloc(LITE_CTRL_MAX_PAYLOAD, GFP_KERNEL);
	if (!resp) {
		/* A copy gets nothing (its first answer stands), others this. */
		ret = -ENOMEM;
		answer = !w->again;
	} else if (w->again) {
		/* Forgotten meanwhile: its sender times out. */
		answer = lite_ctrl_answer_again(w, &ret, resp, &resp_len);
	} else {
		lite_stat_ctrl(w->type, true);
		/* Work nobody waits for any more is not started. */
		ret = w->refuse ?: lite_ctrl_check_stop();
		if (!ret) {
			/* The handlers and the answer want the requester UP. */
			lite_peer_wait_up(w->src, w->src_gen, HZ);
			ret = lite_ctrl_dispatch(w->src, w->src_gen, w->type,
						 w->data, w->len, resp,
						 &resp_len);
		}
		answer = true;
		done = lite_ctrl_done_new(w, ret, resp, resp_len);
	}
	if (lite_ctrl_finish(w, done)) {
		/* Made for a requester that gave up: nobody takes it. */
		if (answer && !ret)
			lite_ctrl_undo(w->src, w->src_gen, w->type, w->req_id);
		answer = false;
	}
	peer = answer ? lite_peer_get(w->src, w->src_gen) : NULL;
	if (peer)	/* else the requester left: nobody to answer */
		lite_ctrl_send(peer, w->type | LITE_CTRL_RESP, w->req_id, ret,
			       resp, resp_len);
	kfree(resp);
	kfree(w);
}

/*
 * Under lite_ctrl_lock: @src gave up on @req_id. Remembered (a copy may
 * come later, or the request itself); true when the request is here and
 * will stop (and be undone if it made something), false when it was
 * answered already or has not come yet.
 */
static bool lite_ctrl_mark_cancelled(u16 src, u32 gen, u64 req_id)
{
	struct lite_ctrl_node *n = &lite_ctrl_nodes[src];
	struct lite_ctrl_work *w = lite_ctrl_find_active(src, gen, req_id);

	n->cancelled[n->next_cancelled++ % LITE_CTRL_CANCELLED_IDS] = req_id;
	if (!w)
		return false;
	/* lite_ctrl_serve() undoes what it made. Not a FREE, a REVOKE... */
	if (lite_ctrl_abandonable(w->type))
		w->cancelled = true;
	return true;
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

/*
 * Under lite_ctrl_lock: may @w, from a node with @n here, be queued?
 * 0, or -EBUSY (its node is at a bound: dropped, its sender times out).
 */
static int lite_ctrl_admit(struct lite_ctrl_work *w, struct lite_ctrl_node *n)
{
	if (w->type == LITE_CTRL_CANCEL) {
		if (n->undos >= LITE_CTRL_UNDO_PER_NODE)
			return -EBUSY;
		n->undos++;
	} else if (n->queued >= READ_ONCE(lite_ctrl_queue_max)) {
		return -EBUSY;
	}
	n->queued++;
	list_add_tail(&w->link, &lite_ctrl_queued);
	hash_add(lite_ctrl_active, &w->hash, lite_ctrl_key(w->src, w->req_id));
	return 0;
}

/*
 * Bulk work goes on its own queue, within its user's share and its node's;
 * past either it is refused with EBUSY at once.
 */
static struct workqueue_struct *lite_ctrl_pick_wq(struct lite_ctrl_work *w)
{
	struct lite_ctrl_node *n = &lite_ctrl_nodes[w->src];
	unsigned long flags;
	bool room;
	u32 uid;

	if (w->type == LITE_CTRL_CANCEL || w->again || w->cancelled ||
	    lite_ctrl_cost(w->type, w->data, w->len, &uid) < LITE_CTRL_BULK_BYTES)
		return lite_ctrl_wq;
	spin_lock_irqsave(&lite_ctrl_lock, flags);
	room = n->bulk < LITE_CTRL_BULK_PER_NODE;
	if (room) {
		n->bulk++;
		w->bulk = true;
	}
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	w->user = room ? lite_user_get_atomic(w->src, uid) : NULL;
	if (w->user && lite_user_charge(w->user, LITE_RES_BULK, 1)) {
		lite_user_put(w->user);
		w->user = NULL;
	}
	if (!w->user) {
		w->refuse = -EBUSY;
		return lite_ctrl_wq;	/* answered at once */
	}
	return lite_ctrl_bulk_wq;
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
	struct lite_ctrl_node *n = &lite_ctrl_nodes[peer->id];
	const struct lite_ctrl_hdr *hdr = buf;
	unsigned long flags, budget;
	struct lite_ctrl_work *w;
	u32 plen;
	u16 type;
	int ret;

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
	/* Never longer than we would wait ourselves. */
	budget = msecs_to_jiffies(le32_to_cpu(hdr->budget_ms));
	budget = min(budget ?: lite_ctrl_timeout(), lite_ctrl_timeout());
	/* The rest are carried out whatever their requester does. */
	w->deadline = jiffies + (lite_ctrl_abandonable(type) ? budget :
				 MAX_JIFFY_OFFSET);
	w->len = plen;
	memcpy(w->data, hdr + 1, plen);
	if (type == LITE_CTRL_CANCEL)
		w->req_id = le64_to_cpu(((struct lite_ctrl_cancel *)w->data)->req_id);

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	if (type == LITE_CTRL_CANCEL) {
		/* Here: it stops. Not here: answered (undo it) or to come. */
		if (lite_ctrl_mark_cancelled(w->src, w->src_gen, w->req_id))
			goto drop_quietly;
	} else if (lite_ctrl_find_active(w->src, w->src_gen, w->req_id)) {
		goto drop_quietly;	/* a copy of one being served */
	} else if (lite_ctrl_find_done(w->src, w->src_gen, w->req_id)) {
		w->again = true;
	} else if (lite_ctrl_abandonable(type) &&
		   lite_ctrl_was_cancelled(w->src, w->req_id)) {
		w->cancelled = true;	/* given up before it came */
	}
	ret = lite_ctrl_admit(w, n);
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	if (ret) {
		kfree(w);
		goto dropped;
	}
	queue_work(lite_ctrl_pick_wq(w), &w->work);
	return;
drop_quietly:
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	kfree(w);
	return;
dropped:
	lite_stat_peer(peer->id, LITE_PSTAT_CTRL_DROPPED, 1);
	pr_warn_ratelimited("node %u gen %u: control message dropped: %u queued here (ctrl_queue_max)\n",
			    peer->id, peer->gen, READ_ONCE(n->queued));
	return;
bad:
	lite_peer_warn(peer, "malformed control message (%u bytes) dropped\n",
		       len);
}

int __init lite_ctrl_init(void)
{
	unsigned int i;
	u16 type;

	/* Every type wire_check.c lets in has a server (main.c registers). */
	for (type = 1; type < LITE_CTRL_NR_TYPES; type++)
		WARN(!lite_ctrl_services[type] && type != LITE_CTRL_CANCEL,
		     "no server for control type %u\n", type);
	for (i = 0; i < LITE_MAX_NODES; i++)
		INIT_LIST_HEAD(&lite_ctrl_nodes[i].done);
	lite_ctrl_hash_seed = get_random_u64();
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
	unsigned int i;
	LIST_HEAD(gone);

	destroy_workqueue(lite_ctrl_bulk_wq);
	destroy_workqueue(lite_ctrl_wq);
	for (i = 0; i < LITE_MAX_NODES; i++)
		list_splice_init(&lite_ctrl_nodes[i].done, &gone);
	lite_ctrl_done_free(&gone);
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
 * asked for stops at its next chunk (every peer was removed first: this
 * node leaves), and what waits to be sent again fails at its next post.
 */
void lite_ctrl_flush(void)
{
	unsigned long flags;

	spin_lock_irqsave(&lite_ctrl_lock, flags);
	lite_ctrl_cancel_all(0, true);
	spin_unlock_irqrestore(&lite_ctrl_lock, flags);
	lite_ctrl_tx_drain();
	flush_workqueue(lite_ctrl_bulk_wq);
	flush_workqueue(lite_ctrl_wq);
}
