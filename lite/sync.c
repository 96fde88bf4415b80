// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronisation: atomics on atomic LMRs, distributed locks and the
 * barrier (docs/rpc.md, "Synchronisation").
 *
 * Atomics run on the owner's CPU: a local caller does the operation itself,
 * a remote one asks the owner with a control message. Every requester thus
 * goes through the same atomic instruction, which NIC atomics on rxe (a
 * lock inside the driver) and CPU atomics on the owner would not give.
 *
 * A lock lives on its home node as a queue: LOCK either takes it at once
 * or queues a ticket and returns; the holder's UNLOCK hands the lock to the
 * first ticket with a WAKE message to the ticket's node. The barrier works
 * the same way on the lowest-numbered member: arrivals queue tickets, the
 * last one wakes them all.
 */
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "lite_handle.h"
#include "ctrl_msg.h"
#include "include/uapi/lite.h"

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
	u64			owner;	/* the open file's token */
	u32			ticket;
};

struct lite_lock {
	bool			held;
	struct lite_ticket	holder;
	struct list_head	waiters;
};

static struct {
	struct mutex		lock;	/* everything below */
	struct idr		locks;
	u32			barrier_nr;
	unsigned int		barrier_arrived;
	struct list_head	barrier_waiters;
} lite_sync = {
	.lock		= __MUTEX_INITIALIZER(lite_sync.lock),
	.locks		= IDR_INIT(lite_sync.locks),
	.barrier_waiters = LIST_HEAD_INIT(lite_sync.barrier_waiters),
};

/* ---- atomics -------------------------------------------------------------- */

/**
 * lite_atomic_local() - an atomic operation on an LMR this node owns
 * @lmr_id: the LMR
 * @op: LITE_ATOMIC_*
 * @off: 8-aligned offset
 * @value: addend, or the value to swap in
 * @compare: the expected value (CMP_SWP)
 * @old: out: the value before
 *
 * Return: 0, -ENOENT, -EPERM (not an atomic LMR), -EINVAL, -ERANGE.
 */
static int lite_atomic_local(u32 lmr_id, u32 op, u64 off, u64 value, u64 compare,
			     u64 *old)
{
	struct lite_lmr *lmr = lite_lmr_get(lmr_id);
	atomic64_t *p;
	int ret;

	if (!lmr)
		return -ENOENT;
	p = lite_lmr_atomic_ptr(lmr, off, &ret);
	if (p && op == LITE_ATOMIC_FETCH_ADD)
		*old = atomic64_fetch_add(value, p);
	else if (p && op == LITE_ATOMIC_CMP_SWP)
		*old = atomic64_cmpxchg(p, compare, value);
	else if (p)
		ret = -EINVAL;
	lite_lmr_put(lmr);
	return ret;
}

static int lite_serve_atomic(const struct lite_ctrl_atomic *a,
			     struct lite_ctrl_u64 *resp, u32 *resp_len)
{
	u64 old;
	int ret;

	ret = lite_atomic_local(le32_to_cpu(a->lmr_id), le32_to_cpu(a->op),
				le64_to_cpu(a->offset), le64_to_cpu(a->value),
				le64_to_cpu(a->compare), &old);
	if (!ret) {
		resp->value = cpu_to_le64(old);
		*resp_len = sizeof(*resp);
	}
	return ret;
}

/**
 * lite_atomic() - an atomic operation through a handle
 * @h: the handle (checked by the caller: READ, WRITE, ATOMIC, password)
 * @op: LITE_ATOMIC_*
 * @off: 8-aligned offset
 * @value: addend, or the value to swap in
 * @compare: the expected value (CMP_SWP)
 * @old: out: the value before
 *
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
	ret = lite_ctrl_call(h->node, h->gen, LITE_CTRL_ATOMIC, &req,
			     sizeof(req), &resp, &len);
	if (!ret && len != sizeof(resp))
		ret = -EPROTO;
	if (!ret)
		*old = le64_to_cpu(resp.value);
	return ret;
}

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

/* Wake @ticket of this node; false when nobody waits for it any more. */
static bool lite_wake_local(u32 ticket, int status)
{
	struct lite_sync_wait *w;
	unsigned long flags;
	bool woken = false;

	xa_lock_irqsave(&lite_sync_waits, flags);
	w = xa_load(&lite_sync_waits, ticket);
	if (w && !completion_done(&w->done)) {
		w->status = status;
		complete(&w->done);
		woken = true;
	}
	xa_unlock_irqrestore(&lite_sync_waits, flags);
	return woken;
}

/* Wake @t on its node; false when it is gone (left, or gave up). */
static bool lite_wake(const struct lite_ticket *t, int status)
{
	struct lite_ctrl_wake msg = {
		.ticket = cpu_to_le32(t->ticket), .status = cpu_to_le32(-status),
	};

	if (t->node == lite_node_id())
		return lite_wake_local(t->ticket, status);
	return !lite_ctrl_call(t->node, t->gen, LITE_CTRL_WAKE, &msg,
			       sizeof(msg), NULL, NULL);
}

/*
 * Sleep until woken. Interrupted: the ticket is withdrawn, unless the WAKE
 * already came, which then counts (the caller holds the lock).
 */
static int lite_wait_done(struct lite_sync_wait *w, u32 ticket)
{
	int ret = wait_for_completion_interruptible(&w->done);

	xa_erase_irq(&lite_sync_waits, ticket);
	if (ret && completion_done(&w->done))
		ret = 0;
	if (!ret)
		ret = w->status;
	kfree(w);
	return ret ? ret : 0;
}

/* ---- locks, on the home node ---------------------------------------------- */

static int lite_lock_create_local(u32 *id)
{
	struct lite_lock *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int ret;

	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->waiters);
	mutex_lock(&lite_sync.lock);
	ret = idr_alloc(&lite_sync.locks, l, 0, LITE_MAX_LOCKS, GFP_KERNEL);
	mutex_unlock(&lite_sync.lock);
	if (ret < 0) {
		kfree(l);
		return ret == -ENOSPC ? -ENOSPC : ret;
	}
	*id = ret;
	return 0;
}

/* Hand @l to its first waiter that is still there. Under lite_sync.lock. */
static void lite_lock_handoff(struct lite_lock *l)
{
	struct lite_ticket *t;

	l->held = false;
	while ((t = list_first_entry_or_null(&l->waiters, struct lite_ticket,
					     link))) {
		list_del(&t->link);
		l->holder = *t;
		l->held = true;
		kfree(t);
		if (lite_wake(&l->holder, 0))
			return;
		l->held = false;
	}
}

/*
 * LOCK on the home node: 1 when granted at once, 0 when @ticket is queued
 * (its node gets a WAKE when the lock is handed over).
 */
static int lite_lock_acquire_local(u32 id, u16 node, u32 gen, u64 owner,
				   u32 ticket)
{
	struct lite_ticket *t;
	struct lite_lock *l;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	*t = (struct lite_ticket) {
		.node = node, .gen = gen, .owner = owner, .ticket = ticket,
	};
	mutex_lock(&lite_sync.lock);
	l = idr_find(&lite_sync.locks, id);
	if (!l) {
		ret = -ENOENT;
	} else if (l->held && l->holder.node == node &&
		   l->holder.owner == owner) {
		ret = -EDEADLK;
	} else if (!l->held) {
		l->held = true;
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

static int lite_lock_release_local(u32 id, u16 node, u64 owner)
{
	struct lite_lock *l;
	int ret = 0;

	mutex_lock(&lite_sync.lock);
	l = idr_find(&lite_sync.locks, id);
	if (!l)
		ret = -ENOENT;
	else if (!l->held || l->holder.node != node || l->holder.owner != owner)
		ret = -EPERM;
	else
		lite_lock_handoff(l);
	mutex_unlock(&lite_sync.lock);
	return ret;
}

static int lite_lock_exists_local(u32 id)
{
	int ret;

	mutex_lock(&lite_sync.lock);
	ret = idr_find(&lite_sync.locks, id) ? 0 : -ENOENT;
	mutex_unlock(&lite_sync.lock);
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
 * lite_lock_create() - create a lock on @node
 * @node: its home
 * @id: out: its number there
 *
 * Return: 0, -EINVAL, -ENOTCONN, -ENOSPC (LITE_MAX_LOCKS), -ETIMEDOUT.
 */
int lite_lock_create(u32 node, u32 *id)
{
	struct lite_ctrl_u64 resp;
	u32 len = sizeof(resp);
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	if (node == lite_node_id())
		return lite_lock_create_local(id);
	ret = lite_ctrl_call(node, 0, LITE_CTRL_LOCK_CREATE, NULL, 0, &resp, &len);
	if (!ret && (len != sizeof(resp) || le64_to_cpu(resp.value) >= LITE_MAX_LOCKS))
		ret = -EPROTO;
	if (!ret)
		*id = le64_to_cpu(resp.value);
	return ret;
}

/**
 * lite_lock_ask() - does lock @id exist on @node?
 * @node: its home
 * @id: its number
 *
 * Return: 0, -ENOENT, or another negative errno.
 */
int lite_lock_ask(u32 node, u32 id)
{
	struct lite_ctrl_lock req = { .lock = cpu_to_le32(id) };
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	if (node == lite_node_id())
		return lite_lock_exists_local(id);
	return lite_ctrl_call(node, 0, LITE_CTRL_LOCK_ASK, &req, sizeof(req),
			      NULL, NULL);
}

/**
 * lite_lock() - take lock @id of @node for @owner, in arrival order
 * @node: its home
 * @id: its number
 * @owner: the open file's token
 *
 * Sleeps (interruptibly) until the lock is handed over.
 *
 * Return: 0, -EDEADLK (@owner holds it), -ENOENT, -EINTR, -ENOTCONN (the
 * home node left).
 */
int lite_lock(u32 node, u32 id, u64 owner)
{
	struct lite_ctrl_lock req = {
		.lock = cpu_to_le32(id), .owner = cpu_to_le64(owner),
	};
	struct lite_ctrl_u64 resp;
	struct lite_sync_wait *w;
	u32 ticket, len = sizeof(resp);
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	w = lite_wait_new(node, &ticket);
	if (!w)
		return -ENOMEM;
	req.ticket = cpu_to_le32(ticket);
	if (node == lite_node_id()) {
		ret = lite_lock_acquire_local(id, node, lite_node_gen(), owner,
					      ticket);
	} else {
		ret = lite_ctrl_call(node, 0, LITE_CTRL_LOCK, &req, sizeof(req),
				     &resp, &len);
		if (!ret)
			ret = len == sizeof(resp) ? le64_to_cpu(resp.value) : -EPROTO;
	}
	if (ret) {	/* granted at once (1), or failed */
		xa_erase_irq(&lite_sync_waits, ticket);
		kfree(w);
		return ret < 0 ? ret : 0;
	}
	ret = lite_wait_done(w, ticket);
	if (ret == -ERESTARTSYS)
		ret = -EINTR;
	return ret;
}

/**
 * lite_unlock() - release lock @id of @node, held by @owner
 * @node: its home
 * @id: its number
 * @owner: the open file's token
 *
 * Return: 0, -EPERM (not held by @owner), -ENOENT, -ENOTCONN.
 */
int lite_unlock(u32 node, u32 id, u64 owner)
{
	struct lite_ctrl_lock req = {
		.lock = cpu_to_le32(id), .owner = cpu_to_le64(owner),
	};
	int ret = lite_sync_check_node(node);

	if (ret)
		return ret;
	if (node == lite_node_id())
		return lite_lock_release_local(id, node, owner);
	return lite_ctrl_call(node, 0, LITE_CTRL_UNLOCK, &req, sizeof(req),
			      NULL, NULL);
}

/* ---- barrier ------------------------------------------------------------------ */

/* Under lite_sync.lock: 1 when this arrival completed the barrier. */
static int lite_barrier_arrive_local(u32 nr, u16 node, u32 gen, u32 ticket)
{
	struct lite_ticket *t, *tmp;

	if (!nr || nr > LITE_BARRIER_MAX)
		return -EINVAL;
	mutex_lock(&lite_sync.lock);
	if (lite_sync.barrier_arrived && lite_sync.barrier_nr != nr) {
		mutex_unlock(&lite_sync.lock);
		return -EINVAL;	/* callers disagree on the count */
	}
	lite_sync.barrier_nr = nr;
	if (++lite_sync.barrier_arrived < nr) {
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t) {
			lite_sync.barrier_arrived--;
			mutex_unlock(&lite_sync.lock);
			return -ENOMEM;
		}
		*t = (struct lite_ticket) { .node = node, .gen = gen, .ticket = ticket };
		list_add_tail(&t->link, &lite_sync.barrier_waiters);
		mutex_unlock(&lite_sync.lock);
		return 0;
	}
	list_for_each_entry_safe(t, tmp, &lite_sync.barrier_waiters, link) {
		lite_wake(t, 0);
		list_del(&t->link);
		kfree(t);
	}
	lite_sync.barrier_arrived = 0;
	mutex_unlock(&lite_sync.lock);
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

/**
 * lite_barrier() - wait until @nr callers, on any nodes, reached it
 * @nr: 1 .. 1024, the same for every caller
 *
 * Return: 0, -EINVAL, -EINTR, -ENOTCONN (the coordinator left).
 */
int lite_barrier(u32 nr)
{
	struct lite_ctrl_barrier req = { .nr = cpu_to_le32(nr) };
	struct lite_ctrl_u64 resp;
	struct lite_sync_wait *w;
	u32 ticket, len = sizeof(resp);
	u16 home;
	int ret;

	if (!nr || nr > LITE_BARRIER_MAX)
		return -EINVAL;
	if (!lite_node_id())
		return -ENOTCONN;
	home = lite_barrier_home();
	w = lite_wait_new(home, &ticket);
	if (!w)
		return -ENOMEM;
	req.ticket = cpu_to_le32(ticket);
	if (home == lite_node_id()) {
		ret = lite_barrier_arrive_local(nr, home, lite_node_gen(), ticket);
	} else {
		ret = lite_ctrl_call(home, 0, LITE_CTRL_BARRIER, &req,
				     sizeof(req), &resp, &len);
		if (!ret)
			ret = len == sizeof(resp) ? le64_to_cpu(resp.value) : -EPROTO;
	}
	if (ret) {
		xa_erase_irq(&lite_sync_waits, ticket);
		kfree(w);
		return ret < 0 ? ret : 0;
	}
	ret = lite_wait_done(w, ticket);
	if (ret == -ERESTARTSYS) {
		/*
		 * The arrival stays counted: taking it back races with the
		 * last arrival. Document: an interrupted barrier is spent.
		 */
		ret = -EINTR;
	}
	return ret;
}

/* ---- requests from other nodes ------------------------------------------------- */

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
int lite_sync_serve(u16 src, u32 src_gen, u16 type, const void *req, u32 len,
		    void *resp, u32 *resp_len)
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
		return lite_serve_atomic(req, resp, resp_len);
	case LITE_CTRL_LOCK_CREATE:
		if (len)
			return -EPROTO;
		ret = lite_lock_create_local(&id);
		if (!ret) {
			out->value = cpu_to_le64(id);
			*resp_len = sizeof(*out);
		}
		return ret;
	case LITE_CTRL_LOCK_ASK:
		if (len != sizeof(*l))
			return -EPROTO;
		return lite_lock_exists_local(le32_to_cpu(l->lock));
	case LITE_CTRL_LOCK:
		if (len != sizeof(*l))
			return -EPROTO;
		ret = lite_lock_acquire_local(le32_to_cpu(l->lock), src, src_gen,
					      le64_to_cpu(l->owner),
					      le32_to_cpu(l->ticket));
		break;
	case LITE_CTRL_UNLOCK:
		if (len != sizeof(*l))
			return -EPROTO;
		return lite_lock_release_local(le32_to_cpu(l->lock), src,
					       le64_to_cpu(l->owner));
	case LITE_CTRL_BARRIER:
		if (len != sizeof(*b))
			return -EPROTO;
		ret = lite_barrier_arrive_local(le32_to_cpu(b->nr), src, src_gen,
						le32_to_cpu(b->ticket));
		break;
	case LITE_CTRL_WAKE:
		if (len != sizeof(*wk) || le32_to_cpu(wk->status) >= MAX_ERRNO)
			return -EPROTO;
		return lite_wake_local(le32_to_cpu(wk->ticket),
				       -(int)le32_to_cpu(wk->status)) ? 0 : -ENOENT;
	default:
		return -EPROTO;
	}
	if (ret >= 0) {
		out->value = cpu_to_le64(ret);
		*resp_len = sizeof(*out);
		ret = 0;
	}
	return ret;
}

/* ---- leaving --------------------------------------------------------------------- */

/* Under lite_sync.lock: drop @node's tickets and hand on its locks. */
static void lite_sync_forget(u16 node, u64 owner, bool any_owner)
{
	struct lite_ticket *t, *tmp;
	struct lite_lock *l;
	int id;

	idr_for_each_entry(&lite_sync.locks, l, id) {
		list_for_each_entry_safe(t, tmp, &l->waiters, link) {
			if (t->node == node && (any_owner || t->owner == owner)) {
				list_del(&t->link);
				kfree(t);
			}
		}
		if (l->held && l->holder.node == node &&
		    (any_owner || l->holder.owner == owner))
			lite_lock_handoff(l);
	}
	if (!any_owner)
		return;
	list_for_each_entry_safe(t, tmp, &lite_sync.barrier_waiters, link) {
		if (t->node == node) {
			list_del(&t->link);
			kfree(t);
			lite_sync.barrier_arrived--;
		}
	}
}

/**
 * lite_sync_owner_gone() - an open file of this node closed: release the
 * locks it holds on this node and on every other, drop its tickets
 * @owner: its token
 */
void lite_sync_owner_gone(u64 owner)
{
	struct lite_ctrl_lock req = { .owner = cpu_to_le64(owner) };
	u64 connected;
	u16 me = lite_node_id();
	unsigned int n;

	if (!me)
		return;
	mutex_lock(&lite_sync.lock);
	lite_sync_forget(me, owner, false);
	mutex_unlock(&lite_sync.lock);
	lite_nr_nodes(&connected);
	for (n = 1; n < LITE_MAX_NODES; n++)
		if (n != me && connected & BIT_ULL(n))
			lite_ctrl_call(n, 0, LITE_CTRL_OWNER_GONE, &req,
				       sizeof(req), NULL, NULL);
}

/* OWNER_GONE from @src. */
int lite_sync_serve_owner_gone(u16 src, const void *req, u32 len)
{
	const struct lite_ctrl_lock *l = req;

	if (len != sizeof(*l))
		return -EPROTO;
	mutex_lock(&lite_sync.lock);
	lite_sync_forget(src, le64_to_cpu(l->owner), false);
	mutex_unlock(&lite_sync.lock);
	return 0;
}

/**
 * lite_sync_peer_down() - @node left: its locks are handed on, its tickets
 * and barrier arrivals dropped, and this node's waiters on it fail
 * @node: the node
 */
void lite_sync_peer_down(u16 node)
{
	struct lite_sync_wait *w;
	unsigned long id, flags;

	mutex_lock(&lite_sync.lock);
	lite_sync_forget(node, 0, true);
	mutex_unlock(&lite_sync.lock);

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
 * lite_sync_exit() - this node left: fail every waiter, free every lock
 */
void lite_sync_exit(void)
{
	struct lite_ticket *t, *tmp;
	struct lite_lock *l;
	int id;

	lite_sync_peer_down(0);
	mutex_lock(&lite_sync.lock);
	idr_for_each_entry(&lite_sync.locks, l, id) {
		list_for_each_entry_safe(t, tmp, &l->waiters, link)
			kfree(t);
		kfree(l);
	}
	idr_destroy(&lite_sync.locks);
	list_for_each_entry_safe(t, tmp, &lite_sync.barrier_waiters, link)
		kfree(t);
	INIT_LIST_HEAD(&lite_sync.barrier_waiters);
	lite_sync.barrier_arrived = 0;
	mutex_unlock(&lite_sync.lock);
}
