// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronisation: distributed locks and the barrier (docs/rpc.md,
 * "Synchronisation"); ATOMIC requests are passed on to atomic.c.
 *
 * A lock lives on its home node as a queue: LOCK either takes it at once
 * or queues a ticket and returns; the holder's UNLOCK hands the lock to the
 * first ticket with a WAKE message to the ticket's node, sent after the
 * sync lock is dropped (a WAKE may wait for another node). A lock belongs
 * to the user that created it: only that uid (or this node's root) may use
 * or destroy it; root on another node is not root here. The barrier works
 * the same way on the lowest-numbered member, one per (uid, count):
 * arrivals queue tickets, the last one wakes them all.
 *
 * Hand-offs and barrier wakes go out from work items (lite_sync_handoff()),
 * so that an UNLOCK or the last BARRIER is answered at once, whatever a
 * WAKE costs. A WAKE can be lost (its QP reset, its answer timed out). So a waiter
 * that heard nothing for ctrl_timeout_ms asks the home about its ticket
 * (LOCK_ASK or BARRIER with a ticket): still queued, made the holder (or
 * the barrier completed), or unknown (passed over: it fails). A holder
 * that asked is never passed over by a late WAKE that finds it gone.
 */
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "wire.h"
#include "../include/uapi/lite.h"

#define LITE_MAX_LOCKS		4096	/* per home node */
#define LITE_BARRIER_MAX	1024

/* A caller of this node waiting for a WAKE (lock hand-off or barrier). */
struct lite_sync_wait {
	struct completion	done;
	u16			home;
	int			status;
};

static DEFINE_XARRAY_ALLOC1(lite_sync_waits);
static u32 lite_sync_next_ticket;

/* A ticket queued on a home node. */
struct lite_ticket {
	struct list_head	link;
	u16			node;
	u32			gen;
	u64			ctx_id;	/* the open file's token */
	u32			ticket;
};

struct lite_lock {
	bool			held;
	bool			claimed;	/* the holder asked and knows */
	struct lite_ticket	holder;
	struct list_head	waiters;
	u32			uid;	/* the creator's */
	struct lite_user	*user;	/* charged for it (user_locks) */
	u16			node;	/* the creator's node, */
	u32			gen;	/* its generation */
	u64			create_req;	/* and its LOCK_CREATE's id (undo) */
};

/* The callers of one user that wait for the same count. */
struct lite_barrier {
	struct list_head	link;
	u32			uid;
	u32			nr;
	unsigned int		arrived;
	struct list_head	waiters;
};

static struct {
	struct mutex		lock;	/* everything below */
	struct idr		locks;
	struct list_head	barriers;
} lite_sync = {
	.lock		= __MUTEX_INITIALIZER(lite_sync.lock),
	.locks		= IDR_INIT(lite_sync.locks),
	.barriers	= LIST_HEAD_INIT(lite_sync.barriers),
};

/* ---- waiting for a WAKE ----------------------------------------------------- */

static struct lite_sync_wait *lite_wait_new(u16 home, u32 *ticket)
{
	struct lite_sync_wait *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	init_completion(&w->done);
	w->home = home;
	if (xa_alloc_cyclic_irq(&lite_sync_waits, ticket, w, xa_limit_31b,
				&lite_sync_next_ticket, GFP_KERNEL) < 0) {
		kfree(w);
		return NULL;
	}
	return w;
}

/* Wake @ticket of this node on behalf of @home; -ENOENT: nobody waits. */
static int lite_wake_local(u32 ticket, u16 home, int status)
{
	struct lite_sync_wait *w;
	unsigned long flags;
	int ret = -ENOENT;

	xa_lock_irqsave(&lite_sync_waits, flags);
	w = xa_load(&lite_sync_waits, ticket);
	if (w && w->home == home && !completion_done(&w->done)) {
		w->status = status;
		complete(&w->done);
		ret = 0;
	}
	xa_unlock_irqrestore(&lite_sync_waits, flags);
	return ret;
}

/*
 * Wake @t on its node. 0: woken; -ENOENT or -ENOTCONN: it is surely gone
 * (gave up, or its node left); anything else: unknown, it may have been
 * woken. Sleeps: never call under lite_sync.lock.
 */
static int lite_wake(const struct lite_ticket *t, int status)
{
	struct lite_ctrl_wake msg = {
		.ticket = cpu_to_le32(t->ticket), .status = cpu_to_le32(-status),
	};

	return lite_ctrl_call(t->node, t->gen, LITE_CTRL_WAKE, &msg,
			      sizeof(msg), NULL, NULL);
}

static bool lite_ticket_gone(int wake_ret)
{
	return wake_ret == -ENOENT || wake_ret == -ENOTCONN;
}

/*
 * Asks the home about a ticket whose WAKE has not come: 1 (its lock is
 * held, or its barrier completed: the WAKE was lost), 0 (still queued),
 * or a negative errno; -ESRCH: the home no longer knows the ticket.
 */
typedef int (*lite_ticket_ask_t)(const void *arg);

/*
 * A request to @home (generation @gen) answered with 0 or 1 (LOCK,
 * BARRIER and their asks): the answer, or a negative errno.
 */
static int lite_ticket_ask_call(u16 home, u32 gen, u16 type, const void *req,
				u32 len)
{
	struct lite_ctrl_u64 resp;
	u32 resp_len = sizeof(resp);
	int ret;

	ret = lite_ctrl_call(home, gen, type, req, len, &resp, &resp_len);
	if (!ret)
		ret = resp_len == sizeof(resp) && le64_to_cpu(resp.value) <= 1 ?
		      (int)le64_to_cpu(resp.value) : -EPROTO;
	return ret;
}

/*
 * Sleep until woken, asking the home every ctrl_timeout_ms whether the
 * WAKE was lost. Interrupted: -ERESTARTSYS (the caller withdraws the
 * ticket), unless the WAKE already came, which then counts (the caller
 * holds the lock).
 */
static int lite_wait_done(struct lite_sync_wait *w, u32 ticket,
			  lite_ticket_ask_t ask, const void *arg)
{
	long left;
	int ret;

	for (;;) {
		left = wait_for_completion_interruptible_timeout(&w->done,
					max(lite_ctrl_timeout(), HZ / 10UL));
		if (left)
			break;
		ret = ask(arg);
		/* No answer (the home is slow or reconnecting): wait on. */
		if (!ret || ret == -ETIMEDOUT || ret == -EBUSY ||
		    ret == -EAGAIN || ret == -EINTR || ret == -ERESTARTSYS)
			continue;
		if (ret == -ESRCH)
			ret = -ENOTCONN;	/* passed over: as if it left */
		else if (ret > 0)
			ret = 0;
		/* The WAKE may come meanwhile: the first word counts. */
		lite_wake_local(ticket, w->home, ret);
	}
	xa_erase_irq(&lite_sync_waits, ticket);
	ret = left < 0 && !completion_done(&w->done) ? -ERESTARTSYS : 0;
	if (!ret)
		ret = w->status;
	kfree(w);
	return ret;
}

/* ---- locks, on the home node ---------------------------------------------- */

/* Who asks: a user of a node. Only this node's root is root here. */
struct lite_sync_who {
	u16	node;
	u32	gen;
	u64	ctx_id;
	u32	uid;
};

/*
 * Under lite_sync.lock: lock @id, if @who may use it (its creator's uid,
 * or this node's root); else NULL and *@err is -ENOENT or -EACCES.
 */
static struct lite_lock *lite_lock_find(u32 id, const struct lite_sync_who *who,
					int *err)
{
	struct lite_lock *l = idr_find(&lite_sync.locks, id);
	bool root = !who->uid && who->node == lite_node_id();

	*err = !l ? -ENOENT : !root && l->uid != who->uid ? -EACCES : 0;
	return *err ? NULL : l;
}

static int lite_lock_create_local(u16 node, u32 gen, u32 uid, u32 *id)
{
	struct lite_lock *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int ret;

	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->waiters);
	l->uid = uid;
	l->node = node;
	l->gen = gen;
	l->create_req = lite_ctrl_req_id();
	l->user = lite_user_get(node, uid);
	ret = l->user ? lite_user_charge(l->user, LITE_RES_LOCKS, 1) : -ENOMEM;
	if (ret)
		goto err;
	mutex_lock(&lite_sync.lock);
	ret = idr_alloc(&lite_sync.locks, l, 0, LITE_MAX_LOCKS, GFP_KERNEL);
	mutex_unlock(&lite_sync.lock);
	if (ret < 0) {
		lite_user_uncharge(l->user, LITE_RES_LOCKS, 1);
		goto err;
	}
	*id = ret;
	return 0;
err:
	lite_user_put(l->user);
	kfree(l);
	return ret;
}

static void lite_lock_free(struct lite_lock *l)
{
	lite_user_uncharge(l->user, LITE_RES_LOCKS, 1);
	lite_user_put(l->user);
	kfree(l);
}

static bool lite_ticket_same(const struct lite_ticket *a,
			     const struct lite_ticket *b)
{
	return a->node == b->node && a->gen == b->gen &&
	       a->ctx_id == b->ctx_id && a->ticket == b->ticket;
}

/*
 * Under lite_sync.lock: make @l's first waiter the holder (true, in
 * *@next, to be woken unlocked) or free the lock (false).
 */
static bool lite_lock_next(struct lite_lock *l, struct lite_ticket *next)
{
	struct lite_ticket *t;

	t = list_first_entry_or_null(&l->waiters, struct lite_ticket, link);
	l->held = t != NULL;
	l->claimed = false;
	if (!t)
		return false;
	list_del(&t->link);
	l->holder = *t;
	*next = *t;
	kfree(t);
	return true;
}

/*
 * Wake the new holder @next of lock @id, not under lite_sync.lock (a WAKE
 * may wait for another node). Only a waiter known to be gone is passed
 * over, and not once it asked and learnt it holds the lock: one whose WAKE
 * timed out may have got it, and two holders must never exist. If it in
 * fact gave up, its UNLOCK-with-ticket, or its file or node going away,
 * hands the lock on; if it waits on, it asks (lite_wait_done()).
 */
static void lite_lock_pass(u32 id, struct lite_ticket next)
{
	struct lite_lock *l;

	while (lite_ticket_gone(lite_wake(&next, 0))) {
		mutex_lock(&lite_sync.lock);
		l = idr_find(&lite_sync.locks, id);
		if (!l || !l->held || l->claimed ||
		    !lite_ticket_same(&l->holder, &next) ||
		    !lite_lock_next(l, &next)) {
			mutex_unlock(&lite_sync.lock);
			return;
		}
		mutex_unlock(&lite_sync.lock);
	}
}

/*
 * WAKEs to send, off the request's path: lock @lock's hand-off to @next
 * (lite_lock_pass()), or with LITE_MAX_LOCKS a completed barrier's
 * @waiters, one after the other. On LITE's own queue, a few at a time:
 * WAKEs a peer never answers hold its workers, nobody else's.
 */
struct lite_sync_handoff {
	struct work_struct	work;
	u32			lock;
	struct lite_ticket	next;
	struct list_head	waiters;
};

static struct workqueue_struct *lite_sync_wq;

static void lite_sync_handoff_work(struct work_struct *work)
{
	struct lite_sync_handoff *h = container_of(work, typeof(*h), work);
	struct lite_ticket *t, *tmp;

	if (h->lock != LITE_MAX_LOCKS)
		lite_lock_pass(h->lock, h->next);
	list_for_each_entry_safe(t, tmp, &h->waiters, link) {
		lite_wake(t, 0);	/* lost: the waiter asks */
		list_del(&t->link);
		kfree(t);
	}
	kfree(h);
}

/*
 * Wake @next, the new holder of lock @lock; or with LITE_MAX_LOCKS the
 * tickets on @waiters (taken from there).
 */
static void lite_sync_handoff(u32 lock, const struct lite_ticket *next,
			      struct list_head *waiters)
{
	struct lite_sync_handoff *h;

	h = kmalloc(sizeof(*h), GFP_KERNEL | __GFP_NOFAIL);
	h->lock = lock;
	if (next)
		h->next = *next;
	INIT_LIST_HEAD(&h->waiters);
	if (waiters)
		list_splice_init(waiters, &h->waiters);
	INIT_WORK(&h->work, lite_sync_handoff_work);
	queue_work(lite_sync_wq, &h->work);
}

/*
 * LOCK on the home node: 1 when granted at once, 0 when @ticket is queued
 * (its node gets a WAKE when the lock is handed over).
 */
static int lite_lock_acquire_local(u32 id, const struct lite_sync_who *who,
				   u32 ticket)
{
	struct lite_ticket *t;
	struct lite_lock *l;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	*t = (struct lite_ticket) {
		.node = who->node, .gen = who->gen, .ctx_id = who->ctx_id,
		.ticket = ticket,
	};
	mutex_lock(&lite_sync.lock);
	l = lite_lock_find(id, who, &ret);
	if (!l) {
		/* ret says why */
	} else if (l->held && l->holder.node == who->node &&
		   l->holder.ctx_id == who->ctx_id) {
		ret = -EDEADLK;
	} else if (!l->held) {
		l->held = true;
		l->claimed = false;
		l->holder = *t;
		ret = 1;
	} else {
		list_add_tail(&t->link, &l->waiters);
		t = NULL;
		ret = 0;
	}
	mutex_unlock(&lite_sync.lock);
	kfree(t);
	return ret;
}

/*
 * UNLOCK on the home node. With @ticket: its waiter gave up; withdraw the
 * ticket, or release the lock if the ticket was already made the holder.
 */
static int lite_lock_release_local(u32 id, const struct lite_sync_who *who,
				   u32 ticket)
{
	struct lite_ticket next, *t, *tmp;
	u16 node = who->node;
	u64 ctx_id = who->ctx_id;
	struct lite_lock *l;
	bool pass = false;
	int ret;

	mutex_lock(&lite_sync.lock);
	l = lite_lock_find(id, who, &ret);
	if (!l) {
		/* ret says why */
	} else if (ticket) {
		list_for_each_entry_safe(t, tmp, &l->waiters, link) {
			if (t->node == node && t->gen == who->gen &&
			    t->ticket == ticket && t->ctx_id == ctx_id) {
				list_del(&t->link);
				kfree(t);
			}
		}
		if (l->held && l->holder.node == node &&
		    l->holder.gen == who->gen && l->holder.ticket == ticket &&
		    l->holder.ctx_id == ctx_id)
			pass = lite_lock_next(l, &next);
	} else if (!l->held || l->holder.node != node ||
		   l->holder.ctx_id != ctx_id) {
		ret = -EPERM;
	} else {
		pass = lite_lock_next(l, &next);
	}
	mutex_unlock(&lite_sync.lock);
	if (pass)
		lite_sync_handoff(id, &next, NULL);
	return ret;
}

/*
 * LOCK_ASK on the home node: 0 if @who may use lock @id. With @ticket, a
 * waiter asks what became of it: 1 (it holds the lock; a late WAKE that
 * finds it gone no longer passes it over), 0 (queued) or -ESRCH.
 */
static int lite_lock_ask_local(u32 id, const struct lite_sync_who *who,
			       u32 ticket)
{
	struct lite_ticket *t;
	struct lite_lock *l;
	int ret;

	mutex_lock(&lite_sync.lock);
	l = lite_lock_find(id, who, &ret);
	if (l && ticket) {
		ret = -ESRCH;
		if (l->held && l->holder.node == who->node &&
		    l->holder.gen == who->gen &&
		    l->holder.ctx_id == who->ctx_id &&
		    l->holder.ticket == ticket) {
			l->claimed = true;
			ret = 1;
		}
		list_for_each_entry(t, &l->waiters, link)
			if (t->node == who->node && t->gen == who->gen &&
			    t->ctx_id == who->ctx_id && t->ticket == ticket)
				ret = 0;
	}
	mutex_unlock(&lite_sync.lock);
	return ret;
}

static int lite_lock_destroy_local(u32 id, const struct lite_sync_who *who)
{
	struct lite_lock *l;
	int ret;

	mutex_lock(&lite_sync.lock);
	l = lite_lock_find(id, who, &ret);
	if (l && (l->held || !list_empty(&l->waiters)))
		ret = -EBUSY;
	else if (l)
		idr_remove(&lite_sync.locks, id);
	mutex_unlock(&lite_sync.lock);
	if (!ret)
		lite_lock_free(l);
	return ret;
}

/* ---- locks, the caller's side ------------------------------------------------ */

static int lite_sync_check_node(u32 node)
{
	if (!node || node >= LITE_MAX_NODES)
		return -EINVAL;
	return lite_node_id() ? 0 : -ENOTCONN;
}

/**
 * lite_lock_create() - create a lock on @node, owned by @ctx's user
 * @ctx: the caller
 * @node: its home
 * @id: out: its number there
 *
 * Return: 0, -EINVAL, -ENOTCONN, -ENOSPC (LITE_MAX_LOCKS), -EDQUOT
 * (user_locks), -ETIMEDOUT.
 */
int lite_lock_create(struct lite_ctx *ctx, u32 node, u32 *id)
{
	struct lite_ctrl_lock req = { .uid = cpu_to_le32(lite_ctx_uid(ctx)) };
	struct lite_ctrl_u64 resp;
	u32 len = sizeof(resp);
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	ret = lite_ctrl_call(node, 0, LITE_CTRL_LOCK_CREATE, &req, sizeof(req),
			     &resp, &len);
	if (!ret && (len != sizeof(resp) || le64_to_cpu(resp.value) >= LITE_MAX_LOCKS))
		ret = -EPROTO;
	if (!ret)
		*id = le64_to_cpu(resp.value);
	return ret;
}

/*
 * A lock request from @ctx that needs no waiting, to @node's generation
 * @gen (0: its current one).
 */
static int lite_lock_simple(struct lite_ctx *ctx, u32 node, u32 gen, u32 id,
			    u16 type, u32 ticket)
{
	struct lite_ctrl_lock req = {
		.lock = cpu_to_le32(id), .ticket = cpu_to_le32(ticket),
		.ctx_id = cpu_to_le64(lite_ctx_id(ctx)),
		.uid = cpu_to_le32(lite_ctx_uid(ctx)),
	};
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	return lite_ctrl_call(node, gen, type, &req, sizeof(req), NULL, NULL);
}

/**
 * lite_lock_ask() - may @ctx use lock @id of @node?
 * @ctx: the caller
 * @node: its home
 * @id: its number
 *
 * Return: 0, -ENOENT, -EACCES (another user's), or another negative errno.
 */
int lite_lock_ask(struct lite_ctx *ctx, u32 node, u32 id)
{
	return lite_lock_simple(ctx, node, 0, id, LITE_CTRL_LOCK_ASK, 0);
}

/* A lock waiter's ticket, for lite_lock_ask_ticket(). */
struct lite_lock_wait_arg {
	struct lite_ctx	*ctx;
	u32		node;
	u32		gen;	/* the home's, when the ticket was queued */
	u32		id;
	u32		ticket;
};

/* lite_ticket_ask_t for a lock: LOCK_ASK with the ticket. */
static int lite_lock_ask_ticket(const void *arg)
{
	const struct lite_lock_wait_arg *a = arg;
	struct lite_ctrl_lock req = {
		.lock = cpu_to_le32(a->id), .ticket = cpu_to_le32(a->ticket),
		.ctx_id = cpu_to_le64(lite_ctx_id(a->ctx)),
		.uid = cpu_to_le32(lite_ctx_uid(a->ctx)),
	};

	return lite_ticket_ask_call(a->node, a->gen, LITE_CTRL_LOCK_ASK, &req,
				    sizeof(req));
}

/**
 * lite_lock() - take lock @id of @node for @ctx, in arrival order
 * @ctx: the caller, which will hold it
 * @node: its home
 * @id: its number
 *
 * Sleeps (interruptibly) until the lock is handed over. An interrupted
 * caller withdraws its ticket, so the lock never waits for it. A hand-off
 * lost on the way is found within ctrl_timeout_ms (lite_wait_done()).
 *
 * Return: 0, -EDEADLK (@ctx holds it), -ENOENT, -EACCES, -EINTR,
 * -ENOTCONN (the home node left, or passed this caller over).
 */
int lite_lock(struct lite_ctx *ctx, u32 node, u32 id)
{
	struct lite_ctrl_lock req = {
		.lock = cpu_to_le32(id), .ctx_id = cpu_to_le64(lite_ctx_id(ctx)),
		.uid = cpu_to_le32(lite_ctx_uid(ctx)),
	};
	struct lite_sync_wait *w;
	u32 ticket, gen;
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	/*
	 * The home's generation now: the waiter's questions go to that one
	 * only, so that a home that left and came back cannot answer for a
	 * ticket it never had.
	 */
	gen = lite_node_gen_of(node);
	if (!gen)
		return -ENOTCONN;
	w = lite_wait_new(node, &ticket);
	if (!w)
		return -ENOMEM;
	req.ticket = cpu_to_le32(ticket);
	ret = lite_ticket_ask_call(node, gen, LITE_CTRL_LOCK, &req, sizeof(req));
	if (ret) {	/* granted at once (1), or failed */
		xa_erase_irq(&lite_sync_waits, ticket);
		kfree(w);
		/* No answer: the home may have queued us or made us holder. */
		if (ret == -ETIMEDOUT || ret == -EINTR)
			lite_lock_simple(ctx, node, gen, id, LITE_CTRL_UNLOCK,
					 ticket);
		return ret < 0 ? ret : 0;
	}
	ret = lite_wait_done(w, ticket, lite_lock_ask_ticket,
			     &(struct lite_lock_wait_arg) {
				.ctx = ctx, .node = node, .gen = gen, .id = id,
				.ticket = ticket,
			     });
	if (ret) {
		/*
		 * Interrupted, passed over, or the ask failed: the home may
		 * still queue the ticket or have made it the holder. Give it
		 * up (an unknown ticket is ignored there).
		 */
		lite_lock_simple(ctx, node, gen, id, LITE_CTRL_UNLOCK, ticket);
		if (ret == -ERESTARTSYS)
			ret = -EINTR;
	}
	return ret;
}

/**
 * lite_unlock() - release lock @id of @node, held by @ctx
 * @ctx: the holder
 * @node: its home
 * @id: its number
 *
 * Return: 0, -EPERM (not held by @ctx), -EACCES, -ENOENT, -ENOTCONN.
 */
int lite_unlock(struct lite_ctx *ctx, u32 node, u32 id)
{
	return lite_lock_simple(ctx, node, 0, id, LITE_CTRL_UNLOCK, 0);
}

/**
 * lite_lock_destroy() - destroy lock @id of @node, which nobody holds
 * @ctx: a caller of the creator's user (or root)
 * @node: its home
 * @id: its number
 *
 * Return: 0, -EBUSY (held or waited for), -EACCES, -ENOENT, -ENOTCONN.
 */
int lite_lock_destroy(struct lite_ctx *ctx, u32 node, u32 id)
{
	return lite_lock_simple(ctx, node, 0, id, LITE_CTRL_LOCK_DESTROY, 0);
}

/* ---- barrier ------------------------------------------------------------------ */

/* Under lite_sync.lock: the barrier of (@uid, @nr), made on first arrival. */
static struct lite_barrier *lite_barrier_find(u32 uid, u32 nr, bool create)
{
	struct lite_barrier *b;

	list_for_each_entry(b, &lite_sync.barriers, link)
		if (b->uid == uid && b->nr == nr)
			return b;
	if (!create)
		return NULL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (b) {
		b->uid = uid;
		b->nr = nr;
		INIT_LIST_HEAD(&b->waiters);
		list_add(&b->link, &lite_sync.barriers);
	}
	return b;
}

/*
 * A waiter asks about its @ticket at the barrier of (@uid, @nr): 0 while
 * it is queued, 1 when it is not (the barrier completed and its WAKE was
 * lost; a node that left is failed by lite_sync_fail_waiters()).
 */
static int lite_barrier_ask_local(u32 nr, u32 uid, u16 node, u32 gen,
				  u32 ticket)
{
	struct lite_barrier *b;
	struct lite_ticket *t;
	int ret = 1;

	mutex_lock(&lite_sync.lock);
	b = lite_barrier_find(uid, nr, false);
	if (b) {
		list_for_each_entry(t, &b->waiters, link)
			if (t->node == node && t->gen == gen &&
			    t->ticket == ticket)
				ret = 0;
	}
	mutex_unlock(&lite_sync.lock);
	return ret;
}

/* 1 when this arrival completed the barrier of (@uid, @nr), else 0. */
static int lite_barrier_arrive_local(u32 nr, u32 uid, u16 node, u32 gen,
				     u32 ticket)
{
	struct lite_barrier *b;
	struct lite_ticket *t;
	LIST_HEAD(waiters);

	if (!nr || nr > LITE_BARRIER_MAX)
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	*t = (struct lite_ticket) { .node = node, .gen = gen, .ticket = ticket };
	mutex_lock(&lite_sync.lock);
	b = lite_barrier_find(uid, nr, true);
	if (!b) {
		mutex_unlock(&lite_sync.lock);
		kfree(t);
		return -ENOMEM;
	}
	if (++b->arrived < nr) {
		list_add_tail(&t->link, &b->waiters);
		mutex_unlock(&lite_sync.lock);
		return 0;
	}
	list_splice_init(&b->waiters, &waiters);
	list_del(&b->link);
	mutex_unlock(&lite_sync.lock);
	kfree(b);
	kfree(t);
	lite_sync_handoff(LITE_MAX_LOCKS, NULL, &waiters);
	return 1;
}

/* The barrier's coordinator: the lowest-numbered member. */
static u16 lite_barrier_home(void)
{
	u64 connected;
	u16 me = lite_node_id();

	lite_nr_nodes(&connected);
	connected |= BIT_ULL(me);
	connected &= ~1ULL;
	return connected ? __ffs64(connected) : me;
}

/* A barrier waiter's ticket, for lite_barrier_ask_ticket(). */
struct lite_barrier_wait_arg {
	u16				home;
	u32				gen;	/* the home's */
	struct lite_ctrl_barrier	req;
};

/* lite_ticket_ask_t for a barrier: its BARRIER again, with ASK. */
static int lite_barrier_ask_ticket(const void *arg)
{
	const struct lite_barrier_wait_arg *a = arg;
	struct lite_ctrl_barrier req = a->req;

	req.flags = cpu_to_le32(LITE_BARRIER_ASK);
	return lite_ticket_ask_call(a->home, a->gen, LITE_CTRL_BARRIER, &req,
				    sizeof(req));
}

/**
 * lite_barrier() - wait until @nr callers of @ctx's user, on any nodes,
 * reached it
 * @ctx: the caller
 * @nr: 1 .. 1024, the same for every caller
 *
 * Return: 0, -EINVAL, -EINTR, -ENOTCONN (the coordinator left).
 */
int lite_barrier(struct lite_ctx *ctx, u32 nr)
{
	struct lite_ctrl_barrier req = {
		.nr = cpu_to_le32(nr), .uid = cpu_to_le32(lite_ctx_uid(ctx)),
	};
	struct lite_sync_wait *w;
	u32 ticket, gen;
	u16 home;
	int ret;

	if (!nr || nr > LITE_BARRIER_MAX)
		return -EINVAL;
	if (!lite_node_id())
		return -ENOTCONN;
	home = lite_barrier_home();
	gen = lite_node_gen_of(home);
	if (!gen)
		return -ENOTCONN;
	w = lite_wait_new(home, &ticket);
	if (!w)
		return -ENOMEM;
	req.ticket = cpu_to_le32(ticket);
	ret = lite_ticket_ask_call(home, gen, LITE_CTRL_BARRIER, &req,
				   sizeof(req));
	if (ret) {
		xa_erase_irq(&lite_sync_waits, ticket);
		kfree(w);
		return ret < 0 ? ret : 0;
	}
	ret = lite_wait_done(w, ticket, lite_barrier_ask_ticket,
			     &(struct lite_barrier_wait_arg) {
				.home = home, .gen = gen, .req = req,
			     });
	if (ret == -ERESTARTSYS) {
		/*
		 * The arrival stays counted: taking it back races with the
		 * last arrival. An interrupted barrier is spent.
		 */
		ret = -EINTR;
	}
	return ret;
}

/* ---- requests from other nodes ------------------------------------------------- */

/* A request about a lock from (@src, @src_gen). */
static int lite_sync_serve_lock(u16 src, u32 src_gen, u16 type,
				const struct lite_ctrl_lock *l, u32 *id)
{
	const struct lite_sync_who who = {
		.node = src, .gen = src_gen, .ctx_id = le64_to_cpu(l->ctx_id),
		.uid = le32_to_cpu(l->uid),
	};
	u32 lock = le32_to_cpu(l->lock), ticket = le32_to_cpu(l->ticket);

	switch (type) {
	case LITE_CTRL_LOCK_CREATE:
		return lite_lock_create_local(src, src_gen, who.uid, id);
	case LITE_CTRL_LOCK_ASK:
		return lite_lock_ask_local(lock, &who, ticket);
	case LITE_CTRL_LOCK:
		return lite_lock_acquire_local(lock, &who, ticket);
	case LITE_CTRL_UNLOCK:
		return lite_lock_release_local(lock, &who, ticket);
	case LITE_CTRL_LOCK_DESTROY:
		return lite_lock_destroy_local(lock, &who);
	default:
		return -EPROTO;
	}
}

/**
 * lite_sync_serve() - serve an ATOMIC, LOCK_*, UNLOCK, BARRIER or WAKE request
 * @src: the requester
 * @src_gen: its generation
 * @type: LITE_CTRL_*
 * @req: the payload, not yet checked
 * @len: its length
 * @resp: room for the response (LITE_CTRL_MAX_PAYLOAD)
 * @resp_len: out: the response's length
 *
 * Context: the control workqueue; may sleep.
 * Return: 0 or a negative errno for the requester.
 */
static int lite_sync_serve(u16 src, u32 src_gen, u16 type, const void *req,
			   u32 len, void *resp, u32 *resp_len)
{
	const struct lite_ctrl_lock *l = req;
	const struct lite_ctrl_barrier *b = req;
	const struct lite_ctrl_wake *wk = req;
	struct lite_ctrl_u64 *out = resp;
	u32 id;
	int ret;

	switch (type) {
	case LITE_CTRL_ATOMIC:
		if (len != sizeof(struct lite_ctrl_atomic))
			return -EPROTO;
		return lite_atomic_serve(src, req, resp, resp_len);
	case LITE_CTRL_WAKE:
		if (len != sizeof(*wk) || le32_to_cpu(wk->status) >= MAX_ERRNO)
			return -EPROTO;
		/* Only the home the ticket waits on may wake it. */
		return lite_wake_local(le32_to_cpu(wk->ticket), src,
				       -(int)le32_to_cpu(wk->status));
	case LITE_CTRL_BARRIER:
		if (len != sizeof(*b) || b->flags & ~cpu_to_le32(LITE_BARRIER_ASK))
			return -EPROTO;
		ret = (b->flags ? lite_barrier_ask_local :
		       lite_barrier_arrive_local)(le32_to_cpu(b->nr),
						  le32_to_cpu(b->uid), src,
						  src_gen,
						  le32_to_cpu(b->ticket));
		break;
	default:
		if (len != sizeof(*l) || l->reserved)
			return -EPROTO;
		ret = lite_sync_serve_lock(src, src_gen, type, l, &id);
		if (type != LITE_CTRL_LOCK_CREATE || ret)
			break;
		out->value = cpu_to_le64(id);
		*resp_len = sizeof(*out);
		return 0;
	}
	if (ret >= 0 && (type == LITE_CTRL_LOCK || type == LITE_CTRL_BARRIER ||
			 (type == LITE_CTRL_LOCK_ASK && l->ticket))) {
		out->value = cpu_to_le64(ret);
		*resp_len = sizeof(*out);
		ret = 0;
	}
	return ret;
}

/* ---- leaving --------------------------------------------------------------------- */

/*
 * Drop @node's tickets (only @ctx_id's unless @any_ctx) and hand on the
 * locks they hold (lite_sync_handoff()). Barrier arrivals of @node go too when @any_ctx.
 */
static void lite_sync_forget(u16 node, u64 ctx_id, bool any_ctx)
{
	struct lite_barrier *b, *btmp;
	struct lite_ticket *t, *tmp, next;
	struct lite_lock *l;
	int id;

	mutex_lock(&lite_sync.lock);
	idr_for_each_entry(&lite_sync.locks, l, id) {
		list_for_each_entry_safe(t, tmp, &l->waiters, link) {
			if (t->node == node && (any_ctx || t->ctx_id == ctx_id)) {
				list_del(&t->link);
				kfree(t);
			}
		}
		if (!l->held || l->holder.node != node ||
		    (!any_ctx && l->holder.ctx_id != ctx_id))
			continue;
		if (lite_lock_next(l, &next))
			lite_sync_handoff(id, &next, NULL);
	}
	list_for_each_entry_safe(b, btmp, &lite_sync.barriers, link) {
		list_for_each_entry_safe(t, tmp, &b->waiters, link) {
			if (t->node == node && any_ctx) {
				list_del(&t->link);
				kfree(t);
				b->arrived--;
			}
		}
		if (!b->arrived) {
			list_del(&b->link);
			kfree(b);
		}
	}
	mutex_unlock(&lite_sync.lock);
}

/**
 * lite_sync_ctx_gone() - an open file of this node closed: release the
 * locks it holds on this node and on every other, drop its tickets
 * @ctx_id: its token
 */
void lite_sync_ctx_gone(u64 ctx_id)
{
	struct lite_ctrl_lock req = { .ctx_id = cpu_to_le64(ctx_id) };
	u64 connected;
	unsigned int n;

	/* This node among them: lite_ctrl_call serves it here. */
	lite_nr_nodes(&connected);
	for (n = 1; n < LITE_MAX_NODES; n++)
		if (connected & BIT_ULL(n))
			lite_ctrl_call(n, 0, LITE_CTRL_CTX_GONE, &req,
				       sizeof(req), NULL, NULL);
}

/* CTX_GONE from @src. */
static int lite_sync_serve_ctx_gone(u16 src, const void *req, u32 len)
{
	const struct lite_ctrl_lock *l = req;

	if (len != sizeof(*l))
		return -EPROTO;
	lite_sync_forget(src, le64_to_cpu(l->ctx_id), false);
	return 0;
}

/* Fail this node's waiters on @node (every waiter when @node is 0). */
static void lite_sync_fail_waiters(u16 node)
{
	struct lite_sync_wait *w;
	unsigned long id, flags;

	xa_lock_irqsave(&lite_sync_waits, flags);
	xa_for_each(&lite_sync_waits, id, w) {
		if ((w->home == node || !node) && !completion_done(&w->done)) {
			w->status = -ENOTCONN;
			complete(&w->done);
		}
	}
	xa_unlock_irqrestore(&lite_sync_waits, flags);
}

/**
 * lite_sync_peer_down() - @node left: its locks are handed on, its tickets
 * and barrier arrivals dropped, and this node's waiters on it fail
 * @node: the node
 * @gen: its generation that left
 */
static void lite_sync_peer_down(u16 node, u32 gen)
{
	lite_sync_forget(node, 0, true);
	lite_sync_fail_waiters(node);
}

/**
 * lite_sync_exit() - this node left: fail every waiter, free every lock
 */
static void lite_sync_exit(void)
{
	struct lite_barrier *b, *btmp;
	struct lite_ticket *t, *tmp;
	struct lite_lock *l;
	int id;

	lite_sync_fail_waiters(0);
	/* Each WAKE ends within ctrl_timeout_ms; the peers are gone already. */
	flush_workqueue(lite_sync_wq);
	mutex_lock(&lite_sync.lock);
	idr_for_each_entry(&lite_sync.locks, l, id) {
		list_for_each_entry_safe(t, tmp, &l->waiters, link)
			kfree(t);
		lite_lock_free(l);
	}
	idr_destroy(&lite_sync.locks);
	list_for_each_entry_safe(b, btmp, &lite_sync.barriers, link) {
		list_for_each_entry_safe(t, tmp, &b->waiters, link)
			kfree(t);
		kfree(b);
	}
	INIT_LIST_HEAD(&lite_sync.barriers);
	mutex_unlock(&lite_sync.lock);
}

/* ATOMIC, the locks', BARRIER, WAKE and CTX_GONE requests. */
static int lite_sync_serve_any(u16 src, u32 src_gen, u16 type,
			       const void *req, u32 len, void *resp,
			       u32 *resp_len)
{
	if (type == LITE_CTRL_CTX_GONE)
		return lite_sync_serve_ctx_gone(src, req, len);
	return lite_sync_serve(src, src_gen, type, req, len, resp, resp_len);
}

/* @src gave up on its LOCK_CREATE @req_id: destroy the lock it made. */
static void lite_sync_undo(u16 src, u32 src_gen, u64 req_id)
{
	struct lite_lock *l;
	int id;

	mutex_lock(&lite_sync.lock);
	idr_for_each_entry(&lite_sync.locks, l, id) {
		/* Nobody knows its number: nobody can hold or wait for it. */
		if (l->node == src && l->gen == src_gen &&
		    l->create_req == req_id && !l->held &&
		    list_empty(&l->waiters)) {
			idr_remove(&lite_sync.locks, id);
			break;
		}
	}
	mutex_unlock(&lite_sync.lock);
	if (l)
		lite_lock_free(l);
}

LITE_CTRL_SERVICE_HOOKS(lite_sync_ctrl_service, lite_sync_serve_any, NULL,
			lite_sync_undo, LITE_CTRL_ATOMIC, LITE_CTRL_LOCK_CREATE,
			LITE_CTRL_LOCK_ASK, LITE_CTRL_LOCK, LITE_CTRL_UNLOCK,
			LITE_CTRL_BARRIER, LITE_CTRL_WAKE, LITE_CTRL_CTX_GONE,
			LITE_CTRL_LOCK_DESTROY);

/**
 * lite_sync_init() - at module load: the queue hand-offs go out on
 *
 * Return: 0 or -ENOMEM.
 */
int lite_sync_init(void)
{
	lite_sync_wq = alloc_workqueue("lite_sync", WQ_UNBOUND, 16);
	return lite_sync_wq ? 0 : -ENOMEM;
}

/**
 * lite_sync_module_exit() - at module unload, once nothing serves
 * requests any more: the hand-offs still queued end, then their queue
 */
void lite_sync_module_exit(void)
{
	destroy_workqueue(lite_sync_wq);
}

const struct lite_member_ops lite_sync_member_ops = {
	.peer_down	= lite_sync_peer_down,
	.leave		= lite_sync_exit,
};
