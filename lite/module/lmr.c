// SPDX-License-Identifier: GPL-2.0
/*
 * The LMRs this node owns. An LMR is a table entry: chunks carved from the
 * memory pool (pool.c), which is registered with the device already, so
 * creating one registers nothing. Chunks are min(4 MiB, size rounded up to
 * a power of two): a 1 GiB LMR needs no contiguous GiB, and a 64-byte one
 * costs one page.
 *
 * Peers name an LMR by its id, never by address: every request is checked
 * against the LMR's bounds here. The owner remembers which nodes mapped an
 * LMR. Freeing it unlinks it at once, then asks every mapper to revoke;
 * the pages go back only when each mapper confirmed (nothing of it is
 * posted any more) or left (its QPs were drained). Until then the LMR waits
 * in quarantine and the owner asks again every few seconds.
 */
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "wire.h"
#include "lmr.h"
#include "../include/uapi/lite.h"

/* An LMR published under an identifier (add_ask_mr_table). */
struct lite_pub {
	struct list_head	link;
	u64			identifier;
	u32			lmr_id;
	u32			perm;
	s32			password;
	struct lite_user	*user;	/* the publisher, charged for it */
};

static struct {
	struct mutex		lock;	/* everything here, every lmr->mappers */
	struct idr		ids;
	struct list_head	pubs;
	struct list_head	all;		/* every LMR not yet released */
	struct list_head	quarantine;
} lite_lmrs = {
	.lock		= __MUTEX_INITIALIZER(lite_lmrs.lock),
	.ids		= IDR_INIT(lite_lmrs.ids),
	.pubs		= LIST_HEAD_INIT(lite_lmrs.pubs),
	.all		= LIST_HEAD_INIT(lite_lmrs.all),
	.quarantine	= LIST_HEAD_INIT(lite_lmrs.quarantine),
};

#define LITE_QUARANTINE_RETRY	(5 * HZ)
static void lite_lmr_retry_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(lite_lmr_retry, lite_lmr_retry_work);

/*
 * Failed ASKs per (node, uid) in the current second: an identifier is no
 * password. A small open-addressed table; an entry idle for a second may
 * be taken by another (node, uid). When every entry is busy (256 users
 * failing at once, or one node sending made-up uids: a uid is only the
 * sender's word, its node is its QP) a newcomer counts against its node.
 */
#define LITE_ASK_SLOTS		256
#define LITE_ASK_FAIL_MAX	64	/* per second: 2^32 passwords take years */
static struct lite_ask_slot {
	u16		node;
	u32		uid;
	unsigned long	window;		/* jiffies when its second began */
	unsigned int	fails;
} lite_ask_slots[LITE_ASK_SLOTS], lite_ask_nodes[LITE_MAX_NODES];
static DEFINE_SPINLOCK(lite_ask_lock);

/* The device new LMRs are mapped for; set while joined. */
static struct lite_dev *lite_lmr_dev;	/* under lite_lmrs.lock */

static void lite_lmr_release(struct kref *ref)
{
	struct lite_lmr *lmr = container_of(ref, struct lite_lmr, ref);
	u32 i;

	mutex_lock(&lite_lmrs.lock);
	list_del_init(&lmr->all);
	mutex_unlock(&lite_lmrs.lock);
	for (i = 0; i < lmr->nr_chunks; i++)
		lite_pool_free(&lmr->chunks[i]);
	lite_user_uncharge(lmr->user, LITE_RES_HOSTED_BYTES,
			   (u64)lmr->nr_chunks << lmr->chunk_shift);
	lite_user_put(lmr->user);
	kvfree(lmr);
}

void lite_lmr_put(struct lite_lmr *lmr)
{
	kref_put(&lmr->ref, lite_lmr_release);
}

/* A reference on LMR @id, or NULL. */
struct lite_lmr *lite_lmr_get(u32 id)
{
	struct lite_lmr *lmr;

	mutex_lock(&lite_lmrs.lock);
	lmr = idr_find(&lite_lmrs.ids, id);
	if (lmr)
		kref_get(&lmr->ref);
	mutex_unlock(&lite_lmrs.lock);
	return lmr;
}

/**
 * lite_lmr_get_granted() - a reference on LMR @id for @node, which the
 * owner granted @perm
 * @id: the LMR
 * @node: the node asking (its QP says so)
 * @perm: LITE_PERM_* it needs
 * @err: out: -EKEYREVOKED (no such LMR) or -EPERM, when NULL is returned
 *
 * The owner's own record decides, not the node's word: a node that never
 * mapped the LMR, or mapped it read-only, is refused.
 */
struct lite_lmr *lite_lmr_get_granted(u32 id, u16 node, u32 perm, int *err)
{
	struct lite_lmr *lmr;

	mutex_lock(&lite_lmrs.lock);
	lmr = idr_find(&lite_lmrs.ids, id);
	*err = lmr ? 0 : -EKEYREVOKED;
	if (lmr && (node >= LITE_MAX_NODES || !test_bit(node, lmr->mappers) ||
		    (lmr->granted[node] & perm) != perm)) {
		*err = -EPERM;
		lmr = NULL;
	}
	if (lmr)
		kref_get(&lmr->ref);
	mutex_unlock(&lite_lmrs.lock);
	return lmr;
}

static unsigned int lite_chunk_shift(u64 size)
{
	return clamp_t(unsigned int, order_base_2(size), PAGE_SHIFT,
		       LITE_CHUNK_SHIFT_MAX);
}

/* Allocate the chunks, zeroed, from the pool; the LMR is not yet visible. */
static struct lite_lmr *lite_lmr_alloc(u64 size, u32 flags, u16 creator,
				       u32 creator_gen)
{
	unsigned int shift = lite_chunk_shift(size);
	struct lite_lmr *lmr;
	u32 i, n;
	int ret;

	if (!size || flags & ~LITE_ALLOC_ATOMIC)
		return ERR_PTR(-EINVAL);
	if (size > LITE_LMR_MAX_SIZE)
		return ERR_PTR(-EFBIG);
	n = DIV_ROUND_UP_ULL(size, 1ULL << shift);
	if (n > LITE_LMR_MAX_CHUNKS)
		return ERR_PTR(-EFBIG);
	lmr = kvzalloc(struct_size(lmr, chunks, n), GFP_KERNEL);
	if (!lmr)
		return ERR_PTR(-ENOMEM);
	kref_init(&lmr->ref);
	lmr->size = size;
	lmr->flags = flags;
	lmr->nic_atomic = (flags & LITE_ALLOC_ATOMIC) && lite_atomic_on_nic();
	lmr->chunk_shift = shift;
	lmr->nr_chunks = n;
	lmr->creator = creator;
	lmr->creator_gen = creator_gen;
	INIT_LIST_HEAD(&lmr->all);
	INIT_LIST_HEAD(&lmr->quarantine);
	INIT_LIST_HEAD(&lmr->released);
	for (i = 0; i < n; i++) {
		ret = lite_pool_alloc(1ULL << shift, true, &lmr->chunks[i]);
		if (!ret)
			cond_resched();
		/* Zeroing a GiB: not for a requester that gave up. */
		if (!ret && i + 1 < n)
			ret = lite_ctrl_check_stop();
		if (ret) {
			lite_lmr_put(lmr);
			return ERR_PTR(ret);
		}
	}
	return lmr;
}

/*
 * Under lite_lmrs.lock: make @lmr, mapped for @dev, visible. Refused once
 * this node left or its device goes (lite_lmr_destroy_all() ran), or once
 * the creator left (lite_lmr_peer_down() would not see it).
 */
static int lite_lmr_insert(struct lite_lmr *lmr, struct lite_dev *dev)
{
	int id;

	/*
	 * This node's generation too: a creation that spans a leave and a
	 * rejoin on the same device (with the same id) would belong to a
	 * generation nobody can FREE it from.
	 */
	if (lite_lmr_dev != dev ||
	    (lmr->creator == lite_node_id() ?
	     lmr->creator_gen != lite_node_gen() :
	     !lite_peer_alive(lmr->creator, lmr->creator_gen)))
		return -ENOTCONN;
	/* Cyclic: a stale id does not name a new LMR soon after. */
	id = idr_alloc_cyclic(&lite_lmrs.ids, lmr, 1, INT_MAX, GFP_KERNEL);
	if (id < 0)
		return id;
	lmr->id = id;
	list_add(&lmr->all, &lite_lmrs.all);
	return 0;
}

static void lite_pub_free(struct lite_pub *pub)
{
	lite_user_uncharge(pub->user, LITE_RES_PUBS, 1);
	lite_user_put(pub->user);
	kfree(pub);
}

/*
 * Under lite_lmrs.lock: @node confirmed or left. The last one releases a
 * quarantined LMR; returns it for the caller to put, unlocked.
 */
static struct lite_lmr *lite_lmr_confirmed(struct lite_lmr *lmr, u16 node)
{
	clear_bit(node, lmr->unconfirmed);
	if (!lmr->quarantined ||
	    !bitmap_empty(lmr->unconfirmed, LITE_MAX_NODES))
		return NULL;
	lmr->quarantined = false;	/* exactly one caller gets it */
	list_del_init(&lmr->quarantine);
	return lmr;
}

/* Ask @node to revoke @lmr; true when it confirmed. */
static bool lite_lmr_revoke_on(struct lite_lmr *lmr, u16 node)
{
	struct lite_ctrl_lmr msg = { .lmr_id = cpu_to_le32(lmr->id) };
	int ret = lite_ctrl_call(node, 0, LITE_CTRL_REVOKE, &msg, sizeof(msg),
				 NULL, NULL);

	if (ret && ret != -ENOTCONN)
		lite_node_warn(node, lite_node_gen_of(node),
			       "did not confirm revocation of LMR %u (%d); its pages stay until it does or leaves\n",
			       lmr->id, ret);
	return !ret;
}

/*
 * Unlink LMR @id (if @requester may free it: its creator, or 0 for this
 * node's own teardown), revoke every mapping, drop the table's reference.
 * With @remote false, mappings on other nodes are not asked (they are
 * gone: every peer's QPs were drained).
 */
static int lite_lmr_destroy(u32 id, u16 requester, u32 requester_gen,
			    bool remote)
{
	DECLARE_BITMAP(ask, LITE_MAX_NODES);
	struct lite_pub *pub, *tmp;
	struct lite_lmr *lmr, *done;
	u16 self = lite_node_id();
	unsigned int n;

	mutex_lock(&lite_lmrs.lock);
	lmr = idr_find(&lite_lmrs.ids, id);
	if (!lmr) {
		mutex_unlock(&lite_lmrs.lock);
		return -ENOENT;
	}
	if (requester && (lmr->creator != requester ||
			  lmr->creator_gen != requester_gen)) {
		mutex_unlock(&lite_lmrs.lock);
		return -EPERM;
	}
	idr_remove(&lite_lmrs.ids, id);
	list_for_each_entry_safe(pub, tmp, &lite_lmrs.pubs, link) {
		if (pub->lmr_id == id) {
			list_del(&pub->link);
			lite_pub_free(pub);
		}
	}
	/* In quarantine before any REVOKE: a mapper leaving meanwhile counts. */
	if (remote) {
		bitmap_copy(lmr->unconfirmed, lmr->mappers, LITE_MAX_NODES);
		clear_bit(self, lmr->unconfirmed);
	}
	bitmap_copy(ask, lmr->unconfirmed, LITE_MAX_NODES);
	list_add(&lmr->quarantine, &lite_lmrs.quarantine);
	lmr->quarantined = true;
	kref_get(&lmr->ref);	/* ours, over the calls below */
	done = lite_lmr_confirmed(lmr, self);
	mutex_unlock(&lite_lmrs.lock);

	/* Handles on this node hold the LMR: marking them is enough. */
	lite_handles_revoke(self, lite_node_gen(), id);
	for_each_set_bit(n, ask, LITE_MAX_NODES) {
		if (!lite_lmr_revoke_on(lmr, n))
			continue;
		mutex_lock(&lite_lmrs.lock);
		done = lite_lmr_confirmed(lmr, n) ?: done;
		mutex_unlock(&lite_lmrs.lock);
	}
	if (done)
		lite_lmr_put(done);	/* the table's */
	else
		queue_delayed_work(system_long_wq, &lite_lmr_retry,
				   LITE_QUARANTINE_RETRY);
	lite_lmr_put(lmr);
	return 0;
}

/* Ask each quarantined LMR's first unconfirmed mapper again. */
static void lite_lmr_retry_work(struct work_struct *work)
{
	struct lite_lmr *lmr, *done;
	unsigned int i, n = 0;
	bool more;
	u16 node;

	mutex_lock(&lite_lmrs.lock);
	list_for_each_entry(lmr, &lite_lmrs.quarantine, quarantine)
		n++;
	mutex_unlock(&lite_lmrs.lock);
	for (i = 0; i < n; i++) {
		/* The lock is not held over a call: take one, move it last. */
		mutex_lock(&lite_lmrs.lock);
		lmr = list_first_entry_or_null(&lite_lmrs.quarantine,
					       struct lite_lmr, quarantine);
		if (lmr) {
			list_move_tail(&lmr->quarantine, &lite_lmrs.quarantine);
			node = find_first_bit(lmr->unconfirmed, LITE_MAX_NODES);
			kref_get(&lmr->ref);
		}
		mutex_unlock(&lite_lmrs.lock);
		if (!lmr)
			break;
		done = NULL;
		if (node < LITE_MAX_NODES && lite_lmr_revoke_on(lmr, node)) {
			mutex_lock(&lite_lmrs.lock);
			done = lite_lmr_confirmed(lmr, node);
			mutex_unlock(&lite_lmrs.lock);
		}
		if (done)
			lite_lmr_put(done);
		lite_lmr_put(lmr);
	}
	mutex_lock(&lite_lmrs.lock);
	more = !list_empty(&lite_lmrs.quarantine);
	mutex_unlock(&lite_lmrs.lock);
	if (more)
		queue_delayed_work(system_long_wq, &lite_lmr_retry,
				   LITE_QUARANTINE_RETRY);
}

static void lite_lmr_fill_desc(struct lite_lmr *lmr, u32 perm,
			       struct lite_lmr_desc *d, u32 *len)
{
	u32 i;

	*d = (struct lite_lmr_desc) {
		.lmr_id		= cpu_to_le32(lmr->id),
		/* 0: each chunk's address carries its key (pool.c) */
		.rkey		= cpu_to_le32(lite_param_unsafe_global_rkey ?
					      lite_piece_rkey(&lmr->chunks[0]) : 0),
		.size		= cpu_to_le64(lmr->size),
		.perm		= cpu_to_le32(perm),
		.chunk_shift	= lmr->chunk_shift,
		.flags		= lmr->nic_atomic ? LITE_DESC_NIC_ATOMIC : 0,
		.nr_chunks	= cpu_to_le32(lmr->nr_chunks),
	};
	for (i = 0; i < lmr->nr_chunks; i++)
		d->chunk[i] = cpu_to_le64(lite_piece_addr(&lmr->chunks[i], 0));
	*len = struct_size(d, chunk, lmr->nr_chunks);
}

static u32 lite_lmr_perm_all(const struct lite_lmr *lmr)
{
	return LITE_PERM_READ | LITE_PERM_WRITE | LITE_PERM_SHARE |
	       LITE_PERM_ADMIN |
	       (lmr->flags & LITE_ALLOC_ATOMIC ? LITE_PERM_ATOMIC : 0);
}

/**
 * lite_lmr_create() - allocate an LMR on this node
 * @size: 1..LITE_LMR_MAX_SIZE bytes
 * @flags: LITE_ALLOC_*
 * @creator: the node that asked (and may free it)
 * @creator_gen: its generation
 * @uid: the user there, charged here (owner_lmr_mb)
 * @d: filled with its description, all permissions granted
 * @len: set to the description's length
 *
 * The LMR remembers the request that made it (lite_ctrl_req_id()), so
 * that the creator's CANCEL frees it (lite_lmr_undo()).
 *
 * Context: process context; may sleep for a long time (a GiB is zeroed).
 * Return: 0, -EINVAL, -EFBIG, -ENOMEM, -EDQUOT, -ENOTCONN (not joined), or
 * lite_ctrl_check_stop()'s errno.
 */
static int lite_lmr_create(u64 size, u32 flags, u16 creator,
			   u32 creator_gen, u32 uid, struct lite_lmr_desc *d,
			   u32 *len)
{
	struct lite_user *user;
	struct lite_lmr *lmr;
	struct lite_dev *dev;
	u64 hosted;
	int ret;

	user = lite_user_get(creator, uid);
	if (!user)
		return -ENOMEM;
	/* What the pool gives: whole chunks. */
	hosted = round_up(size, 1ULL << lite_chunk_shift(size));
	ret = lite_user_charge(user, LITE_RES_HOSTED_BYTES, hosted);
	if (ret) {
		lite_user_put(user);
		return ret;
	}

	/* The device stays until this is done: removal waits for it. */
	mutex_lock(&lite_lmrs.lock);
	dev = lite_lmr_dev;
	if (dev)
		lite_dev_hold(dev);
	mutex_unlock(&lite_lmrs.lock);
	if (!dev) {
		ret = -ENOTCONN;
		goto uncharge;
	}
	lmr = lite_lmr_alloc(size, flags, creator, creator_gen);
	if (IS_ERR(lmr)) {
		ret = PTR_ERR(lmr);
		goto out;
	}
	lmr->user = user;	/* the release gives the charge back */
	lmr->alloc_req = lite_ctrl_req_id();
	/* Visible, granted and described at once: nothing frees it between. */
	mutex_lock(&lite_lmrs.lock);
	ret = lite_lmr_insert(lmr, dev);
	if (!ret) {
		set_bit(creator, lmr->mappers);
		lmr->granted[creator] = lite_lmr_perm_all(lmr);
		lite_lmr_fill_desc(lmr, lite_lmr_perm_all(lmr), d, len);
	}
	mutex_unlock(&lite_lmrs.lock);
	if (ret)
		lite_lmr_put(lmr);
	lite_dev_put(dev);
	return ret;
out:
	lite_dev_put(dev);
uncharge:
	lite_user_uncharge(user, LITE_RES_HOSTED_BYTES, hosted);
	lite_user_put(user);
	return ret;
}

/**
 * lite_lmr_free() - free an LMR this node owns, revoking every mapping
 * @id: its id
 * @requester: the node asking; only the creator may
 * @requester_gen: its generation
 *
 * Context: process context; waits for every mapper to confirm.
 * Return: 0, -ENOENT or -EPERM.
 */
static int lite_lmr_free(u32 id, u16 requester, u32 requester_gen)
{
	return lite_lmr_destroy(id, requester, requester_gen, true);
}

/**
 * lite_lmr_publish() - publish LMR @id under @identifier
 * @id: an LMR this node owns
 * @identifier: the name askers use; unique on this node
 * @perm: the most an asker may get (LITE_PERM_READ/WRITE/SHARE/ATOMIC)
 * @password: what an asker must present
 * @node: the publisher's node, which must have been granted SHARE and
 *	@perm
 * @uid: the publisher, charged for it (user_pubs)
 *
 * Return: 0, -ENOENT, -EEXIST, -EINVAL (ADMIN or unknown bits, or ATOMIC
 * on a non-atomic LMR), -EPERM (not granted), -EDQUOT or -ENOMEM.
 */
static int lite_lmr_publish(u32 id, u64 identifier, u32 perm,
			    s32 password, u16 node, u32 uid)
{
	struct lite_pub *pub, *p;
	struct lite_lmr *lmr;
	int ret = 0;

	if (perm & ~(LITE_PERM_ALL & ~LITE_PERM_ADMIN))
		return -EINVAL;
	pub = kzalloc(sizeof(*pub), GFP_KERNEL);
	if (!pub)
		return -ENOMEM;
	*pub = (struct lite_pub) {
		.identifier = identifier, .lmr_id = id, .perm = perm,
		.password = password, .user = lite_user_get(node, uid),
	};
	if (!pub->user) {
		kfree(pub);
		return -ENOMEM;
	}
	ret = lite_user_charge(pub->user, LITE_RES_PUBS, 1);
	if (ret) {
		lite_user_put(pub->user);
		kfree(pub);
		return ret;
	}
	mutex_lock(&lite_lmrs.lock);
	lmr = idr_find(&lite_lmrs.ids, id);
	if (!lmr) {
		ret = -ENOENT;
		goto out;
	}
	if (perm & ~lite_lmr_perm_all(lmr)) {
		ret = -EINVAL;
		goto out;
	}
	/* Our record of what @node was granted, not its word, decides. */
	if (node >= LITE_MAX_NODES || !test_bit(node, lmr->mappers) ||
	    (~lmr->granted[node] & (perm | LITE_PERM_SHARE))) {
		ret = -EPERM;
		goto out;
	}
	list_for_each_entry(p, &lite_lmrs.pubs, link) {
		if (p->identifier == identifier) {
			ret = -EEXIST;
			goto out;
		}
	}
	list_add_tail(&pub->link, &lite_lmrs.pubs);
	pub = NULL;
out:
	mutex_unlock(&lite_lmrs.lock);
	if (pub)
		lite_pub_free(pub);
	return ret;
}

static bool lite_ask_slot_idle(const struct lite_ask_slot *e)
{
	return !e->fails || time_after(jiffies, e->window + HZ);
}

/* Too many failed ASKs from (@node, @uid) this second? Counts this one. */
static bool lite_ask_throttled(u16 node, u32 uid, bool failed)
{
	unsigned int h = hash_32(uid ^ ((u32)node << 20), 8), i;
	struct lite_ask_slot *e, *slot = NULL;
	bool over;

	spin_lock(&lite_ask_lock);
	for (i = 0; i < LITE_ASK_SLOTS; i++) {
		e = &lite_ask_slots[(h + i) % LITE_ASK_SLOTS];
		if (e->node == node && e->uid == uid) {
			slot = e;
			break;
		}
		if (!slot && lite_ask_slot_idle(e))
			slot = e;
	}
	if (!slot) {
		slot = &lite_ask_nodes[node];
		uid = 0;
	}
	if (slot->node != node || slot->uid != uid ||
	    time_after(jiffies, slot->window + HZ))
		*slot = (struct lite_ask_slot) {
			.node = node, .uid = uid, .window = jiffies,
		};
	if (failed)
		slot->fails++;
	over = slot->fails >= LITE_ASK_FAIL_MAX;
	spin_unlock(&lite_ask_lock);
	return over;
}

/**
 * lite_lmr_ask() - map what this node published under @identifier
 * @identifier: the name
 * @perm: the permissions wanted, at most the published ones
 * @password: must match the publication's
 * @asker: the node that will map it (remembered, for revocation)
 * @asker_gen: its generation
 * @uid: the asking user there
 * @d: filled with the LMR's description, granting @perm
 * @len: set to the description's length
 *
 * One answer for "nothing published" and "wrong password", so that asking
 * reveals nothing without the password; failures are rate-limited per
 * (@asker, @uid), which then gets -EAGAIN for the rest of the second.
 *
 * Return: 0, -EACCES, -EAGAIN, -EPERM (@perm exceeds the publication) or
 * -EINVAL.
 */
static int lite_lmr_ask(u64 identifier, u32 perm, s32 password, u16 asker,
			u32 asker_gen, u32 uid, struct lite_lmr_desc *d,
			u32 *len)
{
	struct lite_lmr *lmr;
	struct lite_pub *p;
	int ret = -EACCES;

	if (!perm || perm & ~LITE_PERM_ALL)
		return -EINVAL;
	if (lite_ask_throttled(asker, uid, false))
		return -EAGAIN;
	mutex_lock(&lite_lmrs.lock);
	list_for_each_entry(p, &lite_lmrs.pubs, link) {
		if (p->identifier != identifier)
			continue;
		if (p->password != password) {
			ret = -EACCES;
		} else if (perm & ~p->perm) {
			ret = -EPERM;
		} else {
			/*
			 * The grant is recorded before the answer leaves, and
			 * only for a member (lite_lmr_peer_down() clears it).
			 */
			lmr = idr_find(&lite_lmrs.ids, p->lmr_id);
			if (lmr && asker != lite_node_id() &&
			    !lite_peer_alive(asker, asker_gen)) {
				ret = -ENOTCONN;
			} else if (lmr) {
				set_bit(asker, lmr->mappers);
				lmr->granted[asker] |= perm;
				lite_lmr_fill_desc(lmr, perm, d, len);
				ret = 0;
			}
		}
		break;
	}
	mutex_unlock(&lite_lmrs.lock);
	if (ret == -EACCES)
		lite_ask_throttled(asker, uid, true);
	return ret;
}

/**
 * lite_lmr_serve() - serve a peer's request about the LMRs of this node
 * @src: the requesting node
 * @src_gen: its generation
 * @type: LITE_CTRL_*
 * @req: the request payload, not yet validated
 * @len: its length
 * @resp: room for LITE_CTRL_MAX_PAYLOAD bytes of response
 * @resp_len: set to the response's length
 *
 * Context: process context (the control workqueue).
 * Return: 0 or the negative errno the requester gets.
 */
static int lite_lmr_serve(u16 src, u32 src_gen, u16 type, const void *req,
			  u32 len, void *resp, u32 *resp_len)
{
	*resp_len = 0;
	switch (type) {
	case LITE_CTRL_ALLOC: {
		const struct lite_ctrl_alloc *a = req;

		if (len != sizeof(*a))
			return -EPROTO;
		return lite_lmr_create(le64_to_cpu(a->size), le32_to_cpu(a->flags),
				       src, src_gen, le32_to_cpu(a->uid), resp,
				       resp_len);
	}
	case LITE_CTRL_FREE: {
		const struct lite_ctrl_lmr *f = req;

		if (len != sizeof(*f) || f->reserved)
			return -EPROTO;
		return lite_lmr_free(le32_to_cpu(f->lmr_id), src, src_gen);
	}
	case LITE_CTRL_PUBLISH: {
		const struct lite_ctrl_publish *p = req;

		if (len != sizeof(*p))
			return -EPROTO;
		return lite_lmr_publish(le32_to_cpu(p->lmr_id),
					le64_to_cpu(p->identifier),
					le32_to_cpu(p->perm),
					(s32)le32_to_cpu(p->password), src,
					le32_to_cpu(p->uid));
	}
	case LITE_CTRL_ASK: {
		const struct lite_ctrl_ask *a = req;

		if (len != sizeof(*a) || a->reserved)
			return -EPROTO;
		return lite_lmr_ask(le64_to_cpu(a->identifier),
				    le32_to_cpu(a->perm),
				    (s32)le32_to_cpu(a->password), src,
				    src_gen, le32_to_cpu(a->uid), resp,
				    resp_len);
	}
	case LITE_CTRL_MEMSET:
		if (len != sizeof(struct lite_ctrl_memset))
			return -EPROTO;
		return lite_lmr_serve_memset(src, req);
	case LITE_CTRL_MEMMOVE:
		if (len != sizeof(struct lite_ctrl_memmove))
			return -EPROTO;
		return lite_lmr_serve_memmove(src, req);
	default:
		return -EOPNOTSUPP;
	}
}

/* LMRs whose creator left are nobody's: free them, off the manager thread. */
struct lite_lmr_orphans {
	struct work_struct	work;
	u16			node;
	u32			gen;
};

static void lite_lmr_orphans_work(struct work_struct *work)
{
	struct lite_lmr_orphans *o = container_of(work, struct lite_lmr_orphans, work);
	struct lite_lmr *lmr;
	int id, next = 0;

	for (;;) {
		mutex_lock(&lite_lmrs.lock);
		idr_for_each_entry_continue(&lite_lmrs.ids, lmr, next) {
			if (lmr->creator == o->node && lmr->creator_gen == o->gen)
				break;
		}
		id = lmr ? lmr->id : 0;
		mutex_unlock(&lite_lmrs.lock);
		if (!id)
			break;
		lite_lmr_destroy(id, 0, 0, true);
		next = id + 1;
	}
	kfree(o);
}

/* Under lite_lmrs.lock: take the quarantine's LMRs (all, or @node's). */
static void lite_lmr_quarantine_drop(u16 node, bool all,
				     struct list_head *released)
{
	struct lite_lmr *lmr, *tmp, *done;
	int id;

	idr_for_each_entry(&lite_lmrs.ids, lmr, id) {
		clear_bit(node, lmr->mappers);
		lmr->granted[node] = 0;
	}
	list_for_each_entry_safe(lmr, tmp, &lite_lmrs.quarantine, quarantine) {
		if (all)
			bitmap_zero(lmr->unconfirmed, LITE_MAX_NODES);
		done = lite_lmr_confirmed(lmr, node);
		if (done)
			list_add(&done->released, released);
	}
}

static void lite_lmr_put_list(struct list_head *released)
{
	struct lite_lmr *lmr, *tmp;

	list_for_each_entry_safe(lmr, tmp, released, released) {
		list_del_init(&lmr->released);
		lite_lmr_put(lmr);
	}
}

/**
 * lite_lmr_peer_down() - @node left and its QPs were drained: it no longer
 * holds any mapping; free the LMRs it created here
 * @node: the node
 * @gen: the generation that left
 *
 * Context: process context; the freeing of its LMRs is queued.
 */
static void lite_lmr_peer_down(u16 node, u32 gen)
{
	struct lite_lmr_orphans *o;
	LIST_HEAD(released);

	mutex_lock(&lite_lmrs.lock);
	lite_lmr_quarantine_drop(node, false, &released);
	mutex_unlock(&lite_lmrs.lock);
	lite_lmr_put_list(&released);

	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return;	/* freed at leave or rmmod instead */
	INIT_WORK(&o->work, lite_lmr_orphans_work);
	o->node = node;
	o->gen = gen;
	lite_ctrl_queue(&o->work);
}

/**
 * lite_lmr_set_device() - the device new LMRs are mapped for, from joining
 * until lite_lmr_destroy_all()
 * @dev: the device
 */
static void lite_lmr_set_device(struct lite_dev *dev)
{
	mutex_lock(&lite_lmrs.lock);
	lite_lmr_dev = dev;
	mutex_unlock(&lite_lmrs.lock);
}

/**
 * lite_lmr_destroy_all() - free every LMR this node owns (leaving the
 * cluster, device gone, rmmod); no peer can reach them any more
 *
 * What local handles still hold stays allocated until they go; the pool
 * unregisters and unmaps it next (lite_pool_stop()).
 */
void lite_lmr_destroy_all(void)
{
	struct lite_lmr *lmr;
	LIST_HEAD(released);
	int id;

	/* No new LMR from here: one being allocated is refused at insert. */
	mutex_lock(&lite_lmrs.lock);
	lite_lmr_dev = NULL;
	mutex_unlock(&lite_lmrs.lock);
	for (;;) {
		id = 0;
		mutex_lock(&lite_lmrs.lock);
		lmr = idr_get_next(&lite_lmrs.ids, &id);
		mutex_unlock(&lite_lmrs.lock);
		if (!lmr)
			break;
		lite_lmr_destroy(id, 0, 0, false);
	}
	cancel_delayed_work_sync(&lite_lmr_retry);
	mutex_lock(&lite_lmrs.lock);
	/* Every peer's QPs are gone: nobody is left to confirm. */
	lite_lmr_quarantine_drop(0, true, &released);
	mutex_unlock(&lite_lmrs.lock);
	lite_lmr_put_list(&released);
}

/*
 * The bytes a request makes this node touch, and its user: what ctrl.c
 * charges bulk work by. Completion context; @req has its type's size.
 */
static u64 lite_lmr_cost(u16 type, const void *req, u32 len, u32 *uid)
{
	const struct lite_ctrl_memmove *mv = req;
	const struct lite_ctrl_memset *ms = req;
	const struct lite_ctrl_alloc *a = req;

	switch (type) {
	case LITE_CTRL_ALLOC:
		*uid = le32_to_cpu(a->uid);
		return le64_to_cpu(a->size);
	case LITE_CTRL_MEMSET:
		*uid = le32_to_cpu(ms->uid);
		return le64_to_cpu(ms->len);
	case LITE_CTRL_MEMMOVE:
		*uid = le32_to_cpu(mv->uid);
		return le64_to_cpu(mv->len);
	default:
		return 0;
	}
}

/* @src gave up on its ALLOC @req_id: free the LMR it made, if any. */
static void lite_lmr_undo(u16 src, u32 src_gen, u64 req_id)
{
	struct lite_lmr *lmr;
	u32 id = 0;
	int i;

	mutex_lock(&lite_lmrs.lock);
	idr_for_each_entry(&lite_lmrs.ids, lmr, i) {
		if (lmr->creator == src && lmr->creator_gen == src_gen &&
		    lmr->alloc_req == req_id) {
			id = lmr->id;
			break;
		}
	}
	mutex_unlock(&lite_lmrs.lock);
	if (id)
		lite_lmr_destroy(id, src, src_gen, true);
}

LITE_CTRL_SERVICE_HOOKS(lite_lmr_ctrl_service, lite_lmr_serve, lite_lmr_cost,
			lite_lmr_undo, LITE_CTRL_ALLOC, LITE_CTRL_FREE,
			LITE_CTRL_PUBLISH, LITE_CTRL_ASK, LITE_CTRL_MEMSET,
			LITE_CTRL_MEMMOVE);

/**
 * lite_lmr_show() - the LMRs this node owns, a line each, for debugfs
 * @buf: where the text goes
 * @size: room at @buf
 *
 * "lmr ID size BYTES creator NODE atomic 0|1 granted NODE:PERM ..." with
 * PERM in hex (LITE_PERM_*): the owner's record that it checks.
 *
 * Return: the bytes written.
 */
size_t lite_lmr_show(char *buf, size_t size)
{
	struct lite_lmr *lmr;
	size_t n = 0;
	int id;
	u16 i;

	mutex_lock(&lite_lmrs.lock);
	idr_for_each_entry(&lite_lmrs.ids, lmr, id) {
		n += scnprintf(buf + n, size - n,
			       "lmr %u size %llu creator %u atomic %d granted",
			       lmr->id, lmr->size, lmr->creator,
			       !!(lmr->flags & LITE_ALLOC_ATOMIC));
		for_each_set_bit(i, lmr->mappers, LITE_MAX_NODES)
			n += scnprintf(buf + n, size - n, " %u:%x", i,
				       lmr->granted[i]);
		n += scnprintf(buf + n, size - n, "\n");
	}
	mutex_unlock(&lite_lmrs.lock);
	return n;
}

const struct lite_member_ops lite_lmr_member_ops = {
	.joined		= lite_lmr_set_device,
	.peer_down	= lite_lmr_peer_down,
	.leave		= lite_lmr_destroy_all,
};

void lite_lmr_exit(void)
{
	lite_lmr_destroy_all();
	WARN_ON_ONCE(!list_empty(&lite_lmrs.all));
	idr_destroy(&lite_lmrs.ids);
}
