// SPDX-License-Identifier: GPL-2.0
/*
 * LITE memory operations for a context: /dev/lite's open files (chardev.c)
 * and the kernel API (the exported liteapi_* below) share this code. Every
 * argument is checked here against the handle: permission, password,
 * bounds. The owner checks again what reaches it over the network.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "wire.h"
#include "../include/uapi/lite.h"

#define LITE_RELAY_MAX	(1U << 20)	/* memcpy between nodes, per step */

/*
 * A user's requests that make another node touch @bytes: from
 * LITE_CTRL_BULK_BYTES on, at most user_bulk in flight per user; the rest
 * wait here (killably, up to the control timeout) rather than queue on
 * the owner, which would refuse them (ctrl.c).
 */
static int lite_bulk_begin(struct lite_ctx *ctx, u64 bytes)
{
	if (bytes < LITE_CTRL_BULK_BYTES)
		return 0;
	return lite_user_charge_wait(lite_ctx_user(ctx), LITE_RES_BULK, 1,
				     lite_ctrl_timeout());
}

static void lite_bulk_end(struct lite_ctx *ctx, u64 bytes)
{
	if (bytes >= LITE_CTRL_BULK_BYTES)
		lite_user_uncharge(lite_ctx_user(ctx), LITE_RES_BULK, 1);
}

static int lite_check_node(u32 node)
{
	if (!node || node >= LITE_MAX_NODES)
		return -EINVAL;
	if (!lite_node_id())
		return -ENOTCONN;
	return 0;
}

/*
 * Turn an owner's description into a handle of @ctx, charged to its user;
 * @charged LMR bytes (already counted against the user) go with it, and
 * the handle's release gives them back.
 */
static int lite_ctx_map(struct lite_ctx *ctx, u16 node, u32 gen,
			const struct lite_lmr_desc *d, u32 len, s32 password,
			u64 charged, u32 *id)
{
	struct lite_user *user = lite_ctx_user(ctx);
	struct lite_handle *h;
	int ret = lite_user_charge(user, LITE_RES_HANDLES, 1);

	if (ret) {
		lite_user_uncharge(user, LITE_RES_LMR_BYTES, charged);
		return ret;
	}
	h = lite_handle_new(node, gen, d, len, password);
	if (IS_ERR(h)) {
		lite_user_uncharge(user, LITE_RES_HANDLES, 1);
		lite_user_uncharge(user, LITE_RES_LMR_BYTES, charged);
		return PTR_ERR(h);
	}
	/* Before it is visible: another thread may unmap it at once. */
	if (user)
		lite_user_hold(user);
	h->user = user;
	h->charged = charged;
	ret = lite_ctx_add_handle(ctx, h, id);
	if (ret)
		lite_handle_put(h);
	return ret;
}

/*
 * Ask @node for an LMR description (ALLOC or ASK, @req) and make it a
 * handle of @ctx. @charged LMR bytes, already counted against the
 * context's user, go with the handle or are given back on failure. An LMR
 * allocated for a handle that could not be made is freed on its owner.
 */
static int lite_api_map(struct lite_ctx *ctx, u32 node, u16 type,
			const void *req, u32 req_len, s32 password,
			u64 charged, u32 *id)
{
	u32 gen = lite_node_gen_of(node), len = LITE_CTRL_MAX_PAYLOAD;
	struct lite_ctrl_lmr fmsg;
	struct lite_lmr_desc *d;
	int ret;

	if (!gen) {
		ret = -ENOTCONN;
		goto uncharge;
	}
	d = kzalloc(LITE_CTRL_MAX_PAYLOAD, GFP_KERNEL);
	if (!d) {
		ret = -ENOMEM;
		goto uncharge;
	}
	lite_map_pending_begin(node);
	ret = lite_ctrl_call(node, gen, type, req, req_len, d, &len);
	if (ret) {
		lite_map_pending_end(node);
		kfree(d);
		goto uncharge;
	}
	/* From here on the handle (or its failure) gives @charged back. */
	ret = lite_ctx_map(ctx, node, gen, d, len, password, charged, id);
	if (ret && type == LITE_CTRL_ALLOC) {
		fmsg = (struct lite_ctrl_lmr) { .lmr_id = d->lmr_id };
		lite_ctrl_call(node, gen, LITE_CTRL_FREE, &fmsg, sizeof(fmsg),
			       NULL, NULL);
	}
	lite_map_pending_end(node);
	kfree(d);
	return ret;

uncharge:
	lite_user_uncharge(lite_ctx_user(ctx), LITE_RES_LMR_BYTES, charged);
	return ret;
}

int lite_api_alloc(struct lite_ctx *ctx, u32 node, u64 size, u32 flags,
		   s32 password, u32 *id)
{
	struct lite_ctrl_alloc req = {
		.size = cpu_to_le64(size), .flags = cpu_to_le32(flags),
		.uid = cpu_to_le32(lite_ctx_uid(ctx)),
	};
	int ret;

	ret = lite_check_node(node);
	if (ret)
		return ret;
	if (!size || flags & ~LITE_ALLOC_ATOMIC)
		return -EINVAL;
	if (size > LITE_LMR_MAX_SIZE)
		return -EFBIG;
	ret = lite_user_charge(lite_ctx_user(ctx), LITE_RES_LMR_BYTES, size);
	if (ret)
		return ret;
	ret = lite_bulk_begin(ctx, size);
	if (ret) {
		lite_user_uncharge(lite_ctx_user(ctx), LITE_RES_LMR_BYTES, size);
		return ret;
	}
	ret = lite_api_map(ctx, node, LITE_CTRL_ALLOC, &req, sizeof(req),
			   password, size, id);
	lite_bulk_end(ctx, size);
	return ret;
}

/* Free the LMR behind @h, which @id names in @ctx; takes the caller's ref. */
static int lite_api_free_handle(struct lite_ctx *ctx, u32 id,
				struct lite_handle *h)
{
	int ret;

	if (!lite_ctx_remove_handle(ctx, id, h)) {
		lite_handle_put(h);
		return -ENOENT;	/* a concurrent free or unmap won */
	}
	ret = lite_handle_free_lmr(h);
	lite_handle_put(h);	/* the context's */
	lite_handle_put(h);
	/* Already revoked by the owner, or the owner left: nothing to free. */
	return ret == -ENOENT || ret == -ENOTCONN ? 0 : ret;
}

int lite_api_free(struct lite_ctx *ctx, u32 id)
{
	struct lite_handle *h = lite_ctx_handle(ctx, id);

	if (!h)
		return -ENOENT;
	if (!(h->perm & LITE_PERM_ADMIN)) {
		lite_handle_put(h);
		return -EPERM;
	}
	return lite_api_free_handle(ctx, id, h);
}

int lite_api_unmap(struct lite_ctx *ctx, u32 id)
{
	struct lite_handle *h = lite_ctx_handle(ctx, id);
	bool removed;

	if (!h)
		return -ENOENT;
	/* The creator's handle is the LMR's lifetime: nothing could free it. */
	if (h->perm & LITE_PERM_ADMIN)
		return lite_api_free_handle(ctx, id, h);
	removed = lite_ctx_remove_handle(ctx, id, h);
	if (removed)
		lite_handle_put(h);	/* the context's */
	lite_handle_put(h);
	return removed ? 0 : -ENOENT;
}

/* Look up @id and check it allows @perm over [@off, @off + @len). */
static struct lite_handle *lite_use(struct lite_ctx *ctx, u32 id, u32 perm,
				    u64 off, u64 len, int *err)
{
	struct lite_handle *h = lite_ctx_handle(ctx, id);

	*err = 0;
	if (!h)
		*err = -ENOENT;
	else if (lite_handle_revoked(h))
		*err = -EKEYREVOKED;
	else if ((h->perm & perm) != perm)
		*err = -EPERM;
	else if (off > h->size || len > h->size - off)
		*err = -ERANGE;
	if (*err && h) {
		lite_handle_put(h);
		h = NULL;
	}
	return h;
}

/**
 * lite_api_mmap() - back a mapping of /dev/lite with zero-copy pages
 * @ctx: the file's context
 * @vma: the mapping
 *
 * Return: 0 or a negative errno.
 */
int lite_api_mmap(struct lite_ctx *ctx, struct vm_area_struct *vma)
{
	return lite_ubuf_mmap(lite_ctx_user(ctx), vma);
}

int lite_api_rw(struct lite_ctx *ctx, u32 id, s32 password, u64 off,
		struct iov_iter *iter, u64 len, bool write, int prio)
{
	struct lite_ubuf *ub = NULL;
	struct lite_handle *h;
	u64 uoff = 0;
	int ret;

	h = lite_use(ctx, id, write ? LITE_PERM_WRITE : LITE_PERM_READ, off,
		     len, &ret);
	if (!h)
		return ret;
	if (h->password != password) {
		ret = -EACCES;
	} else if (!len) {
		ret = 0;
	} else if (h->lmr) {
		/* The handle's reference keeps the pages: no revocation wait. */
		ret = lite_lmr_copy(h->lmr, off, iter, len, write);
	} else {
		if (iter_is_ubuf(iter))
			ub = lite_ubuf_find((unsigned long)iter->ubuf, len, &uoff);
		lite_prio_begin(prio);
		ret = lite_rdma_rw(h, off, iter, ub, uoff, len, write, prio);
		lite_prio_end(prio);
		if (ub)
			lite_ubuf_put(ub);
	}
	lite_handle_put(h);
	return ret;
}

/**
 * lite_api_post() - post a read or write of an LMR without waiting
 * @ctx: the caller's context, whose queue gets the completion
 * @id: the handle
 * @password: the handle's password
 * @off: offset in the LMR
 * @addr: the caller's memory (a user address, or kernel memory if @kernel)
 * @kernel: @addr is a kernel pointer
 * @len: 1..LITE_ASYNC_MAX_SIZE bytes
 * @write: to the LMR, else from it
 * @cookie: the caller's id for the completion
 *
 * On an LMR of this node the copy is done at once and only its completion
 * is queued.
 *
 * Return: 0 (queued) or a negative errno (nothing queued).
 */
int lite_api_post(struct lite_ctx *ctx, u32 id, s32 password, u64 off,
		  u64 addr, bool kernel, u64 len, bool write, u64 cookie)
{
	struct lite_async *as = lite_ctx_async(ctx);
	struct lite_handle *h;
	struct iov_iter iter;
	struct kvec kv;
	int ret;

	if (!len || len > LITE_ASYNC_MAX_SIZE)
		return -EINVAL;
	h = lite_use(ctx, id, write ? LITE_PERM_WRITE : LITE_PERM_READ, off,
		     len, &ret);
	if (!h)
		return ret;
	if (h->password != password) {
		ret = -EACCES;
	} else if (h->lmr) {
		if (kernel) {
			kv = (struct kvec) {
				.iov_base = (void *)(uintptr_t)addr,
				.iov_len = len,
			};
			iov_iter_kvec(&iter, write ? ITER_SOURCE : ITER_DEST,
				      &kv, 1, len);
		} else {
			iov_iter_ubuf(&iter, write ? ITER_SOURCE : ITER_DEST,
				      u64_to_user_ptr(addr), len);
		}
		ret = lite_async_post_local(as, h->lmr, off, &iter, len, write,
					    cookie);
	} else {
		ret = lite_rdma_post(as, h, off, addr, kernel, len, write,
				     cookie);
	}
	lite_handle_put(h);
	return ret;
}

/**
 * lite_api_poll() - reap completions of posted operations
 * @ctx: the context
 * @out: room for @max completions
 * @max: at most this many
 * @timeout_ms: wait at most this long for one (0: not at all; negative:
 *	until a signal)
 *
 * Return: how many were reaped (0 when none came in time), or -EINTR.
 */
int lite_api_poll(struct lite_ctx *ctx, struct lite_completion *out,
		  unsigned int max, int timeout_ms)
{
	int ret = lite_async_wait(lite_ctx_async(ctx), false, timeout_ms);

	if (ret == -ETIMEDOUT)
		return 0;
	if (ret)
		return ret;
	return lite_async_reap(lite_ctx_async(ctx), out, max, NULL);
}

/**
 * lite_api_fence() - wait until nothing the context posted is in flight,
 * then reap every completion
 * @ctx: the context
 * @timeout_ms: as for lite_api_poll()
 *
 * Return: 0, the first failed operation's status, -ETIMEDOUT (nothing
 * reaped) or -EINTR.
 */
int lite_api_fence(struct lite_ctx *ctx, int timeout_ms)
{
	int ret = lite_async_wait(lite_ctx_async(ctx), true, timeout_ms);
	int first = 0;

	if (ret)
		return ret;
	lite_async_reap(lite_ctx_async(ctx), NULL, UINT_MAX, &first);
	return first;
}

unsigned int lite_api_outstanding(struct lite_ctx *ctx)
{
	return lite_async_outstanding(lite_ctx_async(ctx));
}

int lite_api_memset(struct lite_ctx *ctx, u32 id, u64 off, u32 value,
		    u64 len)
{
	struct lite_ctrl_memset req;
	struct lite_handle *h;
	int ret;

	if (value > 0xff)
		return -EINVAL;
	h = lite_use(ctx, id, LITE_PERM_WRITE, off, len, &ret);
	if (!h)
		return ret;
	if (!len) {
		ret = 0;
	} else if (h->lmr) {
		ret = lite_lmr_memset(h->lmr, off, value, len);
	} else {
		ret = lite_bulk_begin(ctx, len);
		if (ret)
			goto out;
		req = (struct lite_ctrl_memset) {
			.lmr_id = cpu_to_le32(h->lmr_id),
			.value = cpu_to_le32(value),
			.offset = cpu_to_le64(off),
			.len = cpu_to_le64(len),
			.uid = cpu_to_le32(lite_ctx_uid(ctx)),
		};
		ret = lite_ctrl_call(h->node, h->gen, LITE_CTRL_MEMSET, &req,
				     sizeof(req), NULL, NULL);
		lite_bulk_end(ctx, len);
	}
out:
	lite_handle_put(h);
	return ret;
}

/* Copy between LMRs on different nodes, through this node's memory. */
static int lite_relay(struct lite_handle *dst, u64 doff,
		      struct lite_handle *src, u64 soff, u64 len)
{
	u32 step = min_t(u64, len, LITE_RELAY_MAX);
	struct iov_iter iter;
	struct kvec kv;
	void *buf;
	int ret = 0;

	buf = kvmalloc(step, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (len && !ret) {
		u32 n = min_t(u64, len, step);

		kv = (struct kvec) { .iov_base = buf, .iov_len = n };
		iov_iter_kvec(&iter, ITER_DEST, &kv, 1, n);
		if (src->lmr)
			ret = lite_lmr_copy(src->lmr, soff, &iter, n, false);
		else
			ret = lite_rdma_rw(src, soff, &iter, NULL, 0, n, false,
					   LITE_PRIO_NORMAL);
		if (ret)
			break;
		iov_iter_kvec(&iter, ITER_SOURCE, &kv, 1, n);
		if (dst->lmr)
			ret = lite_lmr_copy(dst->lmr, doff, &iter, n, true);
		else
			ret = lite_rdma_rw(dst, doff, &iter, NULL, 0, n, true,
					   LITE_PRIO_NORMAL);
		soff += n;
		doff += n;
		len -= n;
	}
	kvfree(buf);
	return ret;
}

int lite_api_memcpy(struct lite_ctx *ctx, u32 dst_id, u64 doff, u32 src_id,
		    u64 soff, u64 len)
{
	struct lite_handle *dst, *src;
	struct lite_ctrl_memmove req;
	int ret;

	dst = lite_use(ctx, dst_id, LITE_PERM_WRITE, doff, len, &ret);
	if (!dst)
		return ret;
	src = lite_use(ctx, src_id, LITE_PERM_READ, soff, len, &ret);
	if (!src)
		goto out_dst;
	if (!len)
		goto out;
	if (dst->node != src->node || dst->gen != src->gen) {
		ret = lite_relay(dst, doff, src, soff, len);
	} else if (dst->lmr) {
		ret = lite_lmr_memmove(dst->lmr, doff, src->lmr, soff, len);
	} else {
		ret = lite_bulk_begin(ctx, len);
		if (ret)
			goto out;
		/* One owner: it copies locally, overlap included. */
		req = (struct lite_ctrl_memmove) {
			.dst_lmr = cpu_to_le32(dst->lmr_id),
			.src_lmr = cpu_to_le32(src->lmr_id),
			.dst_offset = cpu_to_le64(doff),
			.src_offset = cpu_to_le64(soff),
			.len = cpu_to_le64(len),
			.uid = cpu_to_le32(lite_ctx_uid(ctx)),
		};
		ret = lite_ctrl_call(dst->node, dst->gen, LITE_CTRL_MEMMOVE,
				     &req, sizeof(req), NULL, NULL);
		lite_bulk_end(ctx, len);
	}
out:
	lite_handle_put(src);
out_dst:
	lite_handle_put(dst);
	return ret;
}

int lite_api_publish(struct lite_ctx *ctx, u32 id, u64 identifier, u32 perm,
		     s32 password)
{
	struct lite_ctrl_publish req;
	struct lite_handle *h;
	int ret;

	if (!perm || perm & ~LITE_PERM_ALL || perm & LITE_PERM_ADMIN)
		return -EINVAL;
	h = lite_use(ctx, id, LITE_PERM_SHARE, 0, 0, &ret);
	if (!h)
		return ret;
	if (perm & ~h->perm) {
		ret = -EPERM;
	} else {
		req = (struct lite_ctrl_publish) {
			.identifier = cpu_to_le64(identifier),
			.lmr_id = cpu_to_le32(h->lmr_id),
			.perm = cpu_to_le32(perm),
			.password = cpu_to_le32(password),
			.uid = cpu_to_le32(lite_ctx_uid(ctx)),
		};
		ret = lite_ctrl_call(h->node, h->gen, LITE_CTRL_PUBLISH, &req,
				     sizeof(req), NULL, NULL);
	}
	if (ret == -ENOENT)
		ret = -EKEYREVOKED;	/* the owner freed it meanwhile */
	lite_handle_put(h);
	return ret;
}

int lite_api_ask(struct lite_ctx *ctx, u32 node, u64 identifier, u32 perm,
		 s32 password, u32 *id)
{
	struct lite_ctrl_ask req = {
		.identifier = cpu_to_le64(identifier),
		.perm = cpu_to_le32(perm),
		.password = cpu_to_le32(password),
		.uid = cpu_to_le32(lite_ctx_uid(ctx)),
	};
	int ret;

	ret = lite_check_node(node);
	if (ret)
		return ret;
	if (!perm || perm & ~LITE_PERM_ALL)
		return -EINVAL;
	return lite_api_map(ctx, node, LITE_CTRL_ASK, &req, sizeof(req),
			    password, 0, id);
}

int lite_api_lmr_info(struct lite_ctx *ctx, u32 id, u32 *node, u64 *size,
		      u32 *perm)
{
	struct lite_handle *h = lite_ctx_handle(ctx, id);

	if (!h)
		return -ENOENT;
	*node = h->node;
	*size = h->size;
	*perm = h->perm;
	lite_handle_put(h);
	return 0;
}

int lite_api_atomic(struct lite_ctx *ctx, u32 id, s32 password, u32 op,
		    u64 off, u64 value, u64 compare, u64 *old)
{
	struct lite_handle *h;
	int ret;

	if (op < LITE_ATOMIC_FETCH_ADD || op > LITE_ATOMIC_SWAP)
		return -EINVAL;
	h = lite_use(ctx, id, LITE_PERM_READ | LITE_PERM_WRITE |
		     LITE_PERM_ATOMIC, off, sizeof(u64), &ret);
	if (!h)
		return ret;
	if (h->password != password)
		ret = -EACCES;
	else if (off % sizeof(u64))
		ret = -EINVAL;
	else
		ret = lite_atomic(h, op, off, value, compare, old);
	lite_handle_put(h);
	return ret;
}
