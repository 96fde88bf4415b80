// SPDX-License-Identifier: GPL-2.0
/*
 * LITE contexts: what one open /dev/lite (or the kernel API) holds. A
 * context owns its handles, the RPC descriptors it may still reply to, its
 * queue of posted operations and the locks it took anywhere in the
 * cluster; closing it (or rmmod, for the kernel's) lets all of them go.
 * Its id names it to the lock homes of other nodes.
 */
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "lite_ctx.h"
#include "../include/uapi/lite.h"

struct lite_ctx *lite_kernel_ctx;
static atomic64_t lite_next_ctx_id;

/**
 * lite_ctx_create() - a context for the current task's credentials
 * @limited: count its resources against the per-user limits (user.c)
 *
 * Return: the context, or NULL when out of memory.
 */
struct lite_ctx *lite_ctx_create(bool limited)
{
	struct lite_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return NULL;
	xa_init_flags(&ctx->handles, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&ctx->replies);
	ctx->id = atomic64_inc_return(&lite_next_ctx_id);
	ctx->uid = from_kuid_munged(&init_user_ns, current_fsuid());
	if (limited) {
		ctx->user = lite_user_get(0, ctx->uid);
		if (!ctx->user) {
			kfree(ctx);
			return NULL;
		}
	}
	/* Charged to ctx->user, which outlives it (lite_ctx_destroy). */
	ctx->async = lite_async_create(ctx->user);
	if (!ctx->async) {
		lite_user_put(ctx->user);
		kfree(ctx);
		return NULL;
	}
	return ctx;
}

/**
 * lite_ctx_destroy() - drop every handle of a context; free the LMRs it
 * allocated (every other node's mapping of them is revoked)
 * @ctx: the context
 */
void lite_ctx_destroy(struct lite_ctx *ctx)
{
	struct lite_handle *h;
	unsigned long id;

	/* First: freeing its LMRs below would wait for these anyway. */
	lite_async_destroy(ctx->async);
	lite_rpc_ctx_release(ctx);	/* and the replies it owes */
	lite_sync_ctx_gone(ctx->id);

	xa_for_each(&ctx->handles, id, h) {
		xa_erase(&ctx->handles, id);
		if (h->perm & LITE_PERM_ADMIN && !lite_handle_revoked(h))
			lite_handle_free_lmr(h);
		lite_handle_put(h);
	}
	xa_destroy(&ctx->handles);
	lite_user_put(ctx->user);
	kfree(ctx);
}

/* The handle @id of @ctx, with a reference, or NULL. */
struct lite_handle *lite_ctx_handle(struct lite_ctx *ctx, u32 id)
{
	struct lite_handle *h;

	xa_lock(&ctx->handles);
	h = xa_load(&ctx->handles, id);
	if (h)
		kref_get(&h->ref);
	xa_unlock(&ctx->handles);
	return h;
}

/* Give @h (and the caller's reference) an id in @ctx. */
int lite_ctx_add_handle(struct lite_ctx *ctx, struct lite_handle *h, u32 *id)
{
	return xa_alloc(&ctx->handles, id, h, XA_LIMIT(1, INT_MAX), GFP_KERNEL);
}

/*
 * Take @h out of @ctx, if @id still names it: a concurrent unmap may have
 * taken it first, and its id may already name a newer handle. True when
 * the context's reference passed to the caller.
 */
bool lite_ctx_remove_handle(struct lite_ctx *ctx, u32 id,
			    struct lite_handle *h)
{
	bool taken = false;

	xa_lock(&ctx->handles);
	if (xa_load(&ctx->handles, id) == h)
		taken = __xa_erase(&ctx->handles, id) == h;
	xa_unlock(&ctx->handles);
	return taken;
}

/* The kernel API's context (kapi.c): the module's lifetime. */
int lite_ctx_init(void)
{
	lite_kernel_ctx = lite_ctx_create(false);
	return lite_kernel_ctx ? 0 : -ENOMEM;
}

void lite_ctx_exit(void)
{
	lite_ctx_destroy(lite_kernel_ctx);
	lite_kernel_ctx = NULL;
}
