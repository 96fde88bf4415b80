// SPDX-License-Identifier: GPL-2.0
/*
 * LITE handles: what a process (or the kernel) holds to reach an LMR on any
 * node. A handle is private to its context (an open /dev/lite or the kernel
 * API) and carries what the owner granted: permissions, and for a remote
 * LMR the DMA address of each chunk. Every operation is checked against it
 * before anything goes on the wire.
 *
 * Revocation: when an owner frees an LMR it asks every node that mapped it
 * to revoke; revoking marks the handles and waits until no operation that
 * began before is still in flight, so that no RDMA reaches freed pages.
 */
#include <linux/slab.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "lite_handle.h"
#include "ctrl_msg.h"
#include "include/uapi/lite.h"

#define LITE_REVOKE_TIMEOUT	(30 * HZ)

static LIST_HEAD(lite_handles);		/* every handle of every context */
static DEFINE_SPINLOCK(lite_handles_lock);
static DECLARE_WAIT_QUEUE_HEAD(lite_inflight_wq);

static void lite_handle_release(struct kref *ref)
{
	struct lite_handle *h = container_of(ref, struct lite_handle, ref);

	spin_lock(&lite_handles_lock);
	list_del(&h->all);
	spin_unlock(&lite_handles_lock);
	if (h->lmr)
		lite_lmr_put(h->lmr);
	kvfree(h);
}

void lite_handle_put(struct lite_handle *h)
{
	kref_put(&h->ref, lite_handle_release);
}

/* Check a description that came from the owner (possibly the network). */
static int lite_desc_check(const struct lite_lmr_desc *d, u32 len)
{
	u64 size = le64_to_cpu(d->size);
	u32 n = le32_to_cpu(d->nr_chunks);

	if (len < sizeof(*d) || d->chunk_shift < PAGE_SHIFT ||
	    d->chunk_shift > 22 || !size || size > LITE_LMR_MAX_SIZE ||
	    n != DIV_ROUND_UP_ULL(size, 1ULL << d->chunk_shift) ||
	    n > LITE_LMR_MAX_CHUNKS || len < struct_size(d, chunk, n) ||
	    !le32_to_cpu(d->perm) || le32_to_cpu(d->perm) & ~LITE_PERM_ALL ||
	    !le32_to_cpu(d->lmr_id))
		return -EPROTO;
	return 0;
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

	ret = lite_desc_check(d, len);
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
	h->nr_chunks = n;
	atomic_set(&h->inflight, 0);
	if (local) {
		h->lmr = lite_lmr_get(h->lmr_id);
		if (!h->lmr) {
			kvfree(h);
			return ERR_PTR(-EKEYREVOKED);
		}
	} else {
		for (i = 0; i < n; i++)
			h->chunk[i] = le64_to_cpu(d->chunk[i]);
	}
	spin_lock(&lite_handles_lock);
	list_add(&h->all, &lite_handles);
	spin_unlock(&lite_handles_lock);
	return h;
}

/**
 * lite_handle_begin() - start an operation on @h
 * @h: the handle
 *
 * Pairs with lite_handle_end(), called when the operation can no longer
 * touch the LMR (every RDMA work request completed).
 * Return: 0, or -EKEYREVOKED.
 */
int lite_handle_begin(struct lite_handle *h)
{
	atomic_inc(&h->inflight);
	/* Pairs with the barrier in lite_handles_revoke(). */
	smp_mb__after_atomic();
	if (READ_ONCE(h->revoked)) {
		lite_handle_end(h);
		return -EKEYREVOKED;
	}
	return 0;
}

void lite_handle_end(struct lite_handle *h)
{
	if (atomic_dec_and_test(&h->inflight))
		wake_up_all(&lite_inflight_wq);
}

void lite_handle_mark_revoked(struct lite_handle *h)
{
	WRITE_ONCE(h->revoked, true);
	smp_mb();
}

static bool lite_handles_busy(u16 node, u32 lmr_id)
{
	struct lite_handle *h;
	bool busy = false;

	spin_lock(&lite_handles_lock);
	list_for_each_entry(h, &lite_handles, all) {
		if (h->node == node && h->lmr_id == lmr_id &&
		    atomic_read(&h->inflight)) {
			busy = true;
			break;
		}
	}
	spin_unlock(&lite_handles_lock);
	return busy;
}

/**
 * lite_handles_revoke() - revoke every handle on LMR @lmr_id of @node
 * @node: the owner
 * @lmr_id: the LMR
 *
 * Operations already in flight finish first; later ones fail with
 * -EKEYREVOKED.
 *
 * Context: process context; sleeps until the in-flight operations end.
 * Return: 0, or -ETIMEDOUT if they did not end in 30 s.
 */
int lite_handles_revoke(u16 node, u32 lmr_id)
{
	struct lite_handle *h;

	spin_lock(&lite_handles_lock);
	list_for_each_entry(h, &lite_handles, all) {
		if (h->node == node && h->lmr_id == lmr_id)
			WRITE_ONCE(h->revoked, true);
	}
	spin_unlock(&lite_handles_lock);
	/* Pairs with the barrier in lite_handle_begin(). */
	smp_mb();
	if (!wait_event_timeout(lite_inflight_wq, !lite_handles_busy(node, lmr_id),
				LITE_REVOKE_TIMEOUT)) {
		lite_warn("node %u LMR %u: operations still in flight after revocation\n",
			  node, lmr_id);
		return -ETIMEDOUT;
	}
	return 0;
}
