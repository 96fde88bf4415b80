// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user limits (docs/security.md). A user is a uid of this node, or a
 * (node, uid) pair for what another node's users create here (locks,
 * publications). Each object that counts against a limit holds a
 * reference on its user's account and gives its charge back when it goes.
 * A context opened with CAP_SYS_RESOURCE has no account: like the
 * RLIMITs, the limits are for unprivileged users.
 */
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "../include/uapi/lite.h"

/*
 * One limit per resource, each a parameter writable at run time. Byte
 * resources are set in MiB; 0 for LMR and zero-copy bytes is a share of
 * RAM (lite_user_limit()).
 */
static unsigned int lite_user_max[LITE_RES_NR] = {
	[LITE_RES_HANDLES]	= 65536,
	[LITE_RES_CALLS]	= 1024,
	[LITE_RES_LOCKS]	= 1024,
	[LITE_RES_PUBS]		= 1024,
	[LITE_RES_ASYNC_BYTES]	= 256,
	[LITE_RES_PORTS]	= 8,
	[LITE_RES_RING_BYTES]	= 256,
	[LITE_RES_BULK]		= 4,
	[LITE_RES_REPLIES]	= 65536,
};

#define LITE_USER_PARAM(name, res, desc)				\
	module_param_named(name, lite_user_max[res], uint, 0644);	\
	MODULE_PARM_DESC(name, desc)

LITE_USER_PARAM(user_lmr_mb, LITE_RES_LMR_BYTES,
	"MiB of LMRs one user of this node may have allocated, on any node (default: a quarter of RAM)");
LITE_USER_PARAM(user_zc_mb, LITE_RES_ZC_BYTES,
	"MiB of zero-copy buffers (mmap of /dev/lite) one user may hold (default: an eighth of RAM)");
LITE_USER_PARAM(user_handles, LITE_RES_HANDLES,
	"LMR handles one user may hold (default: 65536)");
LITE_USER_PARAM(user_calls, LITE_RES_CALLS,
	"RPC calls of one user waiting for a reply, abandoned ones included (default: 1024)");
LITE_USER_PARAM(user_locks, LITE_RES_LOCKS,
	"locks one user of one node may have created on this node (default: 1024)");
LITE_USER_PARAM(user_async_mb, LITE_RES_ASYNC_BYTES,
	"MiB one user's posted, unreaped reads and writes may move, over all its open files (default: 256)");
LITE_USER_PARAM(user_pubs, LITE_RES_PUBS,
	"publications one user of one node may have on this node's LMRs (default: 1024)");
LITE_USER_PARAM(user_ports, LITE_RES_PORTS,
	"RPC ports one user may have registered on this node (default: 8)");
LITE_USER_PARAM(user_ring_mb, LITE_RES_RING_BYTES,
	"MiB of RPC rings (4 MiB per sending node and port) senders may open on one user's ports (default: 256)");
LITE_USER_PARAM(user_bulk, LITE_RES_BULK,
	"remote MEMSETs, MEMMOVEs and ALLOCs of 1 MiB or more one user may have in flight: its calls wait for a slot; an owner refuses more of one (node, uid) with EBUSY (default: 4)");
LITE_USER_PARAM(user_replies, LITE_RES_REPLIES,
	"RPC replies one user's receivers on this node may owe at once: a receive past it fails with EDQUOT, its caller with ECONNREFUSED (default: 65536)");
LITE_USER_PARAM(owner_lmr_mb, LITE_RES_HOSTED_BYTES,
	"MiB of LMRs one user of one node may have allocated on this node (default: half of RAM, at least 1088)");

struct lite_user {
	struct hlist_node	link;
	u16			node;	/* 0: a user of this node */
	u32			uid;
	refcount_t		refs;
	atomic64_t		used[LITE_RES_NR];
	wait_queue_head_t	room;	/* lite_user_charge_wait()'s, for BULK */
};

static DEFINE_HASHTABLE(lite_users, 8);
static DEFINE_SPINLOCK(lite_users_lock);

static u32 lite_user_key(u16 node, u32 uid)
{
	return uid ^ ((u32)node << 20);
}

static struct lite_user *lite_user_get_gfp(u16 node, u32 uid, gfp_t gfp)
{
	struct lite_user *u, *fresh = kzalloc(sizeof(*fresh), gfp);
	u32 key = lite_user_key(node, uid);
	unsigned long flags;

	spin_lock_irqsave(&lite_users_lock, flags);
	hash_for_each_possible(lite_users, u, link, key) {
		if (u->node == node && u->uid == uid) {
			refcount_inc(&u->refs);
			goto out;
		}
	}
	u = fresh;
	fresh = NULL;
	if (u) {
		u->node = node;
		u->uid = uid;
		refcount_set(&u->refs, 1);
		init_waitqueue_head(&u->room);
		hash_add(lite_users, &u->link, key);
	}
out:
	spin_unlock_irqrestore(&lite_users_lock, flags);
	kfree(fresh);
	return u;
}

/**
 * lite_user_get() - the account of @uid of @node, created on first use
 * @node: 0 for this node's users, else the node the request came from
 * @uid: the user id (in the initial user namespace)
 *
 * Return: the account with a reference, or NULL when out of memory.
 */
struct lite_user *lite_user_get(u16 node, u32 uid)
{
	return lite_user_get_gfp(node, uid, GFP_KERNEL);
}

/* The same, from a context that cannot sleep (a request arriving). */
struct lite_user *lite_user_get_atomic(u16 node, u32 uid)
{
	return lite_user_get_gfp(node, uid, GFP_ATOMIC);
}

/* Another reference on @u, which the caller holds one on. */
void lite_user_hold(struct lite_user *u)
{
	refcount_inc(&u->refs);
}

/**
 * lite_user_put() - drop a reference from lite_user_get()
 * @u: the account, or NULL (no account: nothing to do)
 */
void lite_user_put(struct lite_user *u)
{
	unsigned long flags;

	/* Any context: an abandoned RPC call is freed by its late reply. */
	if (!u || !refcount_dec_and_lock_irqsave(&u->refs, &lite_users_lock,
						 &flags))
		return;
	__acquire(&lite_users_lock);	/* for sparse: taken when true */
	hash_del(&u->link);
	spin_unlock_irqrestore(&lite_users_lock, flags);
	kfree(u);
}

static u64 lite_user_limit(enum lite_res res)
{
	u64 v = READ_ONCE(lite_user_max[res]);	/* writable at run time */
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	switch (res) {
	case LITE_RES_LMR_BYTES:
		return v ? v << 20 : ram / 4;
	case LITE_RES_HOSTED_BYTES:
		/* Half of RAM, but room for one LMR of the largest size. */
		return v ? v << 20 : max(ram / 2, LITE_LMR_MAX_SIZE + SZ_64M);
	case LITE_RES_ZC_BYTES:
		return v ? v << 20 : ram / 8;
	case LITE_RES_ASYNC_BYTES:
	case LITE_RES_RING_BYTES:
		return v << 20;
	default:
		return v;
	}
}

/**
 * lite_user_charge() - count @n more of @res against @u's limit
 * @u: the account, or NULL (not limited)
 * @res: what
 * @n: how much
 *
 * Return: 0, or -EDQUOT (nothing charged) when the limit would be passed.
 */
int lite_user_charge(struct lite_user *u, enum lite_res res, u64 n)
{
	s64 old;

	if (!u)
		return 0;
	/* Never over, even for a moment: a waiter's recheck would see it. */
	old = atomic64_read(&u->used[res]);
	do {
		if (old + n > lite_user_limit(res))
			return -EDQUOT;
	} while (!atomic64_try_cmpxchg(&u->used[res], &old, old + n));
	return 0;
}

/**
 * lite_user_uncharge() - give back what lite_user_charge() counted
 * @u: the account, or NULL
 * @res: what
 * @n: how much
 */
void lite_user_uncharge(struct lite_user *u, enum lite_res res, u64 n)
{
	if (!u)
		return;
	atomic64_sub(n, &u->used[res]);
	/* One slot freed: one waiter of this user (they wait exclusively). */
	if (res == LITE_RES_BULK && wq_has_sleeper(&u->room))
		wake_up(&u->room);
}

/**
 * lite_user_charge_wait() - lite_user_charge(), waiting for room
 * @u: the account, or NULL (not limited)
 * @res: what; only LITE_RES_BULK is woken when room is made
 * @n: how much
 * @timeout: jiffies to wait at most
 *
 * A user at its limit sleeps here instead of spinning on EDQUOT, on its
 * own queue and exclusively: a slot freed wakes one of its waiters, not
 * every waiter of every user.
 *
 * Context: process context; killable.
 * Return: 0 (charged), -EBUSY (no room within @timeout) or -EINTR.
 */
int lite_user_charge_wait(struct lite_user *u, enum lite_res res, u64 n,
			  unsigned long timeout)
{
	long left = timeout;
	DEFINE_WAIT(wait);
	int ret = -EBUSY;

	if (!lite_user_charge(u, res, n))
		return 0;
	for (;;) {
		prepare_to_wait_exclusive(&u->room, &wait, TASK_KILLABLE);
		if (!lite_user_charge(u, res, n)) {
			ret = 0;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (!left)
			break;
		left = schedule_timeout(left);
	}
	finish_wait(&u->room, &wait);
	/* A wake-up this caller took and did not use goes to the next. */
	if (ret && wq_has_sleeper(&u->room))
		wake_up(&u->room);
	return ret;
}

/**
 * lite_user_exit() - the module goes away: every object that held an
 * account is gone, so is every account
 */
void lite_user_exit(void)
{
	WARN_ON_ONCE(!hash_empty(lite_users));
}
