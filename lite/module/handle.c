// SPDX-License-Identifier: GPL-2.0
/*
 * LITE handles: what a process (or the kernel) holds to reach an LMR on any
 * node. A handle is private to its context (an open /dev/lite or the kernel
 * API) and carries what the owner granted: permissions, and for a remote
 * LMR the DMA address of each chunk. Every operation is checked against it
 * before anything goes on the wire.
 *
 * Revocation: the handles of this node on one LMR share a map, found by
 * (owner, generation, LMR id) in a hash table. When an owner frees an LMR
 * it asks every node that mapped it to revoke; revoking marks the map and
 * waits until no RDMA work request on it is still posted. An operation
 * counts as in flight only from just before it posts (after it copied the
 * caller's memory) until its last completion, and checks the mark there:
 * once a revocation returned, nothing of this node can reach the LMR.
 *
 * A REVOKE may overtake the answer to an ASK or ALLOC (the owner granted,
 * then freed, before this node built the handle). While such a request to
 * the owner is pending, a REVOKE for an LMR this node does not know leaves
 * a tombstone, and the handle built from the answer is born revoked.
 */
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "wire.h"
#include "../include/uapi/lite.h"
#include "wire_check.h"

/* Shorter than the owner's ctrl_timeout_ms: it hears "busy", not nothing. */
#define LITE_REVOKE_WAIT	(5 * HZ)

/* This node's mapping of one LMR: what its handles on it share. */
struct lite_map {
	struct hlist_node	link;	/* in lite_maps */
	refcount_t		refs;	/* handles; the table's for a tombstone */
	u16			node;
	u32			gen;
	u32			lmr_id;
	bool			revoked;
	bool			tomb;	/* revoked before any handle existed */
	atomic_t		inflight;	/* posted operations */
};

static DEFINE_HASHTABLE(lite_maps, 10);
static DEFINE_SPINLOCK(lite_maps_lock);	/* the table, pending[], tombs[] */
static unsigned int lite_maps_pending[LITE_MAX_NODES];	/* ASK/ALLOC out */
static unsigned int lite_maps_tombs[LITE_MAX_NODES];
static DECLARE_WAIT_QUEUE_HEAD(lite_inflight_wq);

static u32 lite_map_key(u16 node, u32 lmr_id)
{
	return lmr_id ^ ((u32)node << 24);
}

/* Under lite_maps_lock. */
static struct lite_map *lite_map_find(u16 node, u32 gen, u32 lmr_id)
{
	struct lite_map *m;

	hash_for_each_possible(lite_maps, m, link, lite_map_key(node, lmr_id))
		if (m->node == node && m->gen == gen && m->lmr_id == lmr_id)
			return m;
	return NULL;
}

static void lite_map_init(struct lite_map *m, u16 node, u32 gen, u32 lmr_id)
{
	m->node = node;
	m->gen = gen;
	m->lmr_id = lmr_id;
	refcount_set(&m->refs, 1);
	atomic_set(&m->inflight, 0);
	hash_add(lite_maps, &m->link, lite_map_key(node, lmr_id));
}

static struct lite_map *lite_map_get(u16 node, u32 gen, u32 lmr_id)
{
	struct lite_map *m, *fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);

	spin_lock(&lite_maps_lock);
	m = lite_map_find(node, gen, lmr_id);
	if (m) {
		refcount_inc(&m->refs);
	} else if (fresh) {
		m = fresh;
		fresh = NULL;
		lite_map_init(m, node, gen, lmr_id);
	}
	spin_unlock(&lite_maps_lock);
	kfree(fresh);
	return m;
}

static void lite_map_put(struct lite_map *m)
{
	if (!refcount_dec_and_lock(&m->refs, &lite_maps_lock))
		return;
	__acquire(&lite_maps_lock);	/* for sparse: taken when true */
	hash_del(&m->link);
	spin_unlock(&lite_maps_lock);
	kfree(m);
}

/**
 * lite_map_pending_begin() - an ASK or ALLOC to @node is about to be sent
 * @node: the owner
 *
 * Until the matching lite_map_pending_end(), a REVOKE from @node for an
 * unknown LMR leaves a tombstone.
 */
void lite_map_pending_begin(u16 node)
{
	spin_lock(&lite_maps_lock);
	lite_maps_pending[node]++;
	spin_unlock(&lite_maps_lock);
}

/**
 * lite_map_pending_end() - the request is answered and its handle built
 * (or not): the last one to @node clears @node's tombstones
 * @node: the owner
 */
void lite_map_pending_end(u16 node)
{
	struct hlist_node *tmp;
	struct lite_map *m;
	int bkt;

	spin_lock(&lite_maps_lock);
	if (!--lite_maps_pending[node] && lite_maps_tombs[node]) {
		hash_for_each_safe(lite_maps, bkt, tmp, m, link) {
			if (m->node != node || !m->tomb)
				continue;
			m->tomb = false;
			lite_maps_tombs[node]--;
			if (refcount_dec_and_test(&m->refs)) {
				hash_del(&m->link);
				kfree(m);
			}
		}
	}
	spin_unlock(&lite_maps_lock);
}

static void lite_handle_release(struct kref *ref)
{
	struct lite_handle *h = container_of(ref, struct lite_handle, ref);

	lite_map_put(h->map);
	if (h->lmr)
		lite_lmr_put(h->lmr);
	lite_user_uncharge(h->user, LITE_RES_LMR_BYTES, h->charged);
	lite_user_uncharge(h->user, LITE_RES_HANDLES, 1);
	lite_user_put(h->user);
	kvfree(h);
}

void lite_handle_put(struct lite_handle *h)
{
	kref_put(&h->ref, lite_handle_release);
}

/**
 * lite_handle_new() - a handle on an LMR, from its owner's description
 * @node: the owner
 * @gen: the owner's generation
 * @d: the description (checked here)
 * @len: its length
 * @password: what data operations must present
 *
 * Return: the handle (one reference, not yet in a context) or an ERR_PTR.
 */
struct lite_handle *lite_handle_new(u16 node, u32 gen,
				    const struct lite_lmr_desc *d, u32 len,
				    s32 password)
{
	struct lite_handle *h;
	bool local = node == lite_node_id();
	u32 i, n;
	int ret;

	/* From the owner, maybe over the network: wire_check.c. */
	ret = lite_check_lmr_desc(d, len);
	if (ret)
		return ERR_PTR(ret);
	n = le32_to_cpu(d->nr_chunks);
	h = kvzalloc(struct_size(h, chunk, local ? 0 : n), GFP_KERNEL);
	if (!h)
		return ERR_PTR(-ENOMEM);
	kref_init(&h->ref);
	h->node = node;
	h->gen = gen;
	h->lmr_id = le32_to_cpu(d->lmr_id);
	h->size = le64_to_cpu(d->size);
	h->perm = le32_to_cpu(d->perm);
	h->password = password;
	h->rkey = le32_to_cpu(d->rkey);
	h->chunk_shift = d->chunk_shift;
	h->nic_atomic = d->flags & LITE_DESC_NIC_ATOMIC;
	h->nr_chunks = n;
	h->map = lite_map_get(node, gen, h->lmr_id);
	if (!h->map) {
		kvfree(h);
		return ERR_PTR(-ENOMEM);
	}
	if (local)
		h->lmr = lite_lmr_get(h->lmr_id);
	else
		for (i = 0; i < n; i++)
			h->chunk[i] = le64_to_cpu(d->chunk[i]);
	if ((local && !h->lmr) || READ_ONCE(h->map->revoked)) {
		lite_handle_put(h);
		return ERR_PTR(-EKEYREVOKED);
	}
	return h;
}

/* Has the owner revoked @h (or its holder freed the LMR)? */
bool lite_handle_revoked(const struct lite_handle *h)
{
	return READ_ONCE(h->map->revoked);
}

/**
 * lite_handle_begin() - an operation on remote @h is about to post
 * @h: the handle
 *
 * Pairs with lite_handle_end(), called when the operation can no longer
 * touch the LMR (every RDMA work request completed).
 * Return: 0, or -EKEYREVOKED.
 */
int lite_handle_begin(struct lite_handle *h)
{
	atomic_inc(&h->map->inflight);
	/* Pairs with the barrier in lite_handles_revoke(). */
	smp_mb__after_atomic();
	if (lite_handle_revoked(h)) {
		lite_handle_end(h);
		return -EKEYREVOKED;
	}
	return 0;
}

void lite_handle_end(struct lite_handle *h)
{
	if (atomic_dec_and_test(&h->map->inflight))
		wake_up_all(&lite_inflight_wq);
}

/* The LMR behind @h is being freed: no handle of this node may use it. */
void lite_handle_mark_revoked(struct lite_handle *h)
{
	WRITE_ONCE(h->map->revoked, true);
	/* Pairs with lite_handle_begin(): it sees the flag, or is counted. */
	smp_mb();
}

/*
 * Ask the owner to free the LMR behind @h (which has ADMIN); this node's
 * handles on it stop working first.
 */
int lite_handle_free_lmr(struct lite_handle *h)
{
	struct lite_ctrl_lmr msg = { .lmr_id = cpu_to_le32(h->lmr_id) };

	lite_handle_mark_revoked(h);
	return lite_ctrl_call(h->node, h->gen, LITE_CTRL_FREE, &msg, sizeof(msg),
			      NULL, NULL);
}

/*
 * May a packet an old incarnation of one of our QPs to @peer sent still
 * land in its memory? Yes while one of them is broken, or reset by us and
 * not yet connected again: the owner's end stays ready to receive until
 * our new connection entry makes it reset too (qp_conn.c). A QP idle
 * since the join never sent anything.
 */
static bool lite_peer_unfenced(struct lite_peer *peer)
{
	unsigned int i;

	for (i = 0; i < peer->nr_qps; i++) {
		const struct lite_qp *lqp = &peer->qps[i];
		enum lite_qp_state state = READ_ONCE(lqp->state);

		if (state == LITE_QP_BROKEN ||
		    (state == LITE_QP_IDLE && READ_ONCE(lqp->recoveries)))
			return true;
	}
	return false;
}

/**
 * lite_node_fenced() - can no old QP incarnation of ours write into
 * (@node, @gen)'s memory any more?
 * @node: the peer
 * @gen: its generation
 *
 * Context: any; does not sleep.
 * Return: true when none can, also when the node left (its QPs are
 * destroyed); false while one of our QPs to it is broken, or reset and
 * not yet connected again.
 */
bool lite_node_fenced(u16 node, u32 gen)
{
	struct lite_peer *peer = lite_peer_get(node, gen);
	bool unfenced;

	if (!peer)
		return true;
	unfenced = lite_peer_unfenced(peer);
	lite_peer_put(peer);
	return !unfenced;
}

/*
 * Wait until no old QP incarnation of ours can still write into @node's
 * memory, or the node left; false after @timeout jiffies.
 */
static bool lite_handles_fence(u16 node, u32 gen, unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout;

	while (!lite_node_fenced(node, gen)) {
		if (time_after(jiffies, deadline))
			return false;
		msleep(20);
	}
	return true;
}

/**
 * lite_handles_revoke() - revoke every handle of this node on an LMR
 * @node: the owner
 * @gen: the owner's generation
 * @lmr_id: the LMR
 *
 * Operations already posted complete first; later ones fail with
 * -EKEYREVOKED, and so does a handle still being built from an ASK or
 * ALLOC answer. A posted operation flushed by a QP reset has completed
 * here but may still be on the wire: the answer waits until every QP to
 * the owner that was reset is connected again (the owner reset its end).
 *
 * Context: process context; sleeps until the posted operations end.
 * Return: 0; -EBUSY if some did not end within 5 s, -ENOMEM if a
 * tombstone could not be made (the owner keeps the pages and asks again).
 */
int lite_handles_revoke(u16 node, u32 gen, u32 lmr_id)
{
	struct lite_map *m;
	long left;

	if (!node || node >= LITE_MAX_NODES)
		return -EINVAL;
	spin_lock(&lite_maps_lock);
	m = lite_map_find(node, gen, lmr_id);
	if (m) {
		WRITE_ONCE(m->revoked, true);
		refcount_inc(&m->refs);
		lite_stat_peer(node, LITE_PSTAT_REVOKED, 1);
	} else if (lite_maps_pending[node]) {
		m = kzalloc(sizeof(*m), GFP_ATOMIC);
		if (m) {
			lite_map_init(m, node, gen, lmr_id);
			m->revoked = true;
			m->tomb = true;
			lite_maps_tombs[node]++;
		}
		spin_unlock(&lite_maps_lock);
		return m ? 0 : -ENOMEM;
	}
	spin_unlock(&lite_maps_lock);
	if (!m)
		return 0;	/* never mapped here, or every handle is gone */
	/* Pairs with the barrier in lite_handle_begin(). */
	smp_mb();
	left = wait_event_timeout(lite_inflight_wq, !atomic_read(&m->inflight),
				  LITE_REVOKE_WAIT);
	lite_map_put(m);
	if (!left) {
		lite_node_warn(node, gen, "LMR %u: operations still in flight after revocation\n",
			       lmr_id);
		return -EBUSY;
	}
	if (!lite_handles_fence(node, gen, LITE_REVOKE_WAIT)) {
		lite_node_warn(node, gen, "LMR %u: a QP to the owner is still being reconnected; revocation confirmed later\n",
			       lmr_id);
		return -EBUSY;
	}
	return 0;
}

/* REVOKE from @src, the owner: its LMR is gone, or our right to it. */
static int lite_handles_serve(u16 src, u32 src_gen, u16 type,
			      const void *req, u32 len, void *resp,
			      u32 *resp_len)
{
	const struct lite_ctrl_lmr *r = req;

	if (len != sizeof(*r))
		return -EPROTO;
	return lite_handles_revoke(src, src_gen, le32_to_cpu(r->lmr_id));
}

LITE_CTRL_SERVICE(lite_handle_ctrl_service, lite_handles_serve,
		  LITE_CTRL_REVOKE);
