// SPDX-License-Identifier: GPL-2.0
/*
 * The replies this node owes (docs/rpc.md): a token for each request a
 * receiver took that awaits its reply, found by the descriptor the
 * receiver was given, owned by that receiver's context and charged to its
 * user (user_replies).
 *
 * Tokens live in slots that are made once and then reused, never freed
 * before the module goes: a server that made and erased an XArray entry
 * per call (twice: the table and its context's) freed an XArray node
 * through RCU each time, two RCU callbacks and grace periods per call
 * (plots/profile-cpu/). A descriptor is a slot's number and the count of
 * its uses (43 bits: never seen twice), so the descriptor of an earlier
 * use of a slot is refused. The slots owed carry a mark, so RPC_FORGET
 * and a node's leaving look at those only, however many slots a burst
 * once made.
 */
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "rpc.h"
#include "lite_ctx.h"

/* A descriptor: the slot in bits 19-0, its use count in bits 62-20. */
#define LITE_RPC_SLOT_BITS	20
#define LITE_RPC_SLOT_MAX	((1U << LITE_RPC_SLOT_BITS) - 1)
#define LITE_RPC_USES_MASK	((1ULL << (63 - LITE_RPC_SLOT_BITS)) - 1)

/* The slots owed (XA_MARK_0 is the allocator's). */
#define LITE_RPC_OWED		XA_MARK_1

/*
 * Replies in flight are counted in this many buckets of call ids per
 * node, so that one RPC_FORGET waits for few besides its own call's.
 */
#define LITE_RPC_REPLY_BUCKETS	64

static struct {
	/* Slot -> token, never erased; its lock guards the tokens' ctx and
	 * link, the marks and @free.
	 */
	struct xarray		slots;
	struct list_head	free;		/* oldest first */
	/*
	 * Replies taken out of their context and not yet completed, by node
	 * and call id (a bucket of them): RPC_FORGET waits for those of its
	 * call's bucket.
	 */
	atomic_t		replying[LITE_MAX_NODES][LITE_RPC_REPLY_BUCKETS];
} lite_tokens = {
	.slots	= XARRAY_INIT(lite_tokens.slots, XA_FLAGS_ALLOC1),
	.free	= LIST_HEAD_INIT(lite_tokens.free),
};

/* The count of replies in flight to call @call_id of @node. */
static atomic_t *lite_rpc_replying(u16 node, u32 call_id)
{
	return &lite_tokens.replying[node][call_id % LITE_RPC_REPLY_BUCKETS];
}

static u64 lite_rpc_token_desc(const struct lite_rpc_token *tok)
{
	return tok->uses << LITE_RPC_SLOT_BITS | tok->slot;
}

/* @tok leaves @ctx (its owner): xa_lock held. */
static void lite_rpc_token_unown(struct lite_rpc_token *tok)
{
	lite_user_uncharge(tok->ctx->user, LITE_RES_REPLIES, 1);
	tok->ctx = NULL;
	list_del_init(&tok->link);
	__xa_clear_mark(&lite_tokens.slots, tok->slot, LITE_RPC_OWED);
}

/**
 * lite_rpc_token_new() - a token for a reply @ctx will owe
 * @ctx: the receiver's context, charged LITE_RES_REPLIES
 * @fill: the reply's destination (node, gen, call_id, reply_*, forgotten)
 * @desc: out: the descriptor @ctx replies with
 *
 * Context: process context.
 * Return: 0, -EDQUOT (@ctx's user owes user_replies already) or -ENOMEM
 * (no memory, or every slot owed).
 */
int lite_rpc_token_new(struct lite_ctx *ctx,
		       const struct lite_rpc_token *fill, u64 *desc)
{
	struct lite_rpc_token *tok;
	u32 slot;
	int ret;

	ret = lite_user_charge(ctx->user, LITE_RES_REPLIES, 1);
	if (ret)
		return ret;
	xa_lock(&lite_tokens.slots);
	tok = list_first_entry_or_null(&lite_tokens.free,
				       struct lite_rpc_token, link);
	if (tok)
		list_del_init(&tok->link);
	xa_unlock(&lite_tokens.slots);
	if (!tok) {
		tok = kzalloc(sizeof(*tok), GFP_KERNEL);
		if (!tok ||
		    xa_alloc(&lite_tokens.slots, &slot, tok,
			     XA_LIMIT(1, LITE_RPC_SLOT_MAX), GFP_KERNEL)) {
			kfree(tok);
			lite_user_uncharge(ctx->user, LITE_RES_REPLIES, 1);
			return -ENOMEM;
		}
		INIT_LIST_HEAD(&tok->link);
		tok->slot = slot;
	}
	tok->node = fill->node;
	tok->gen = fill->gen;
	tok->call_id = fill->call_id;
	tok->reply_max = fill->reply_max;
	tok->reply_rkey = fill->reply_rkey;
	tok->reply_addr = fill->reply_addr;
	tok->forgotten = fill->forgotten;
	tok->uses = (tok->uses + 1) & LITE_RPC_USES_MASK;
	*desc = lite_rpc_token_desc(tok);
	xa_lock(&lite_tokens.slots);
	tok->ctx = ctx;
	list_add_tail(&tok->link, &ctx->replies);
	__xa_set_mark(&lite_tokens.slots, tok->slot, LITE_RPC_OWED);
	xa_unlock(&lite_tokens.slots);
	return 0;
}

/* @tok, owed by nobody now, is a free slot again. */
static void lite_rpc_token_free(struct lite_rpc_token *tok)
{
	xa_lock(&lite_tokens.slots);
	list_add_tail(&tok->link, &lite_tokens.free);
	xa_unlock(&lite_tokens.slots);
}

/**
 * lite_rpc_token_take() - take the token of @desc away from @ctx
 * @ctx: the context that must owe it
 * @desc: the descriptor, as the receiver gave it (from user space)
 * @replying: count a reply in flight to its call, in the same step as
 *	the token leaves @ctx: RPC_FORGET sees the one or the other
 *
 * Context: process context.
 * Return: the token, now the caller's (lite_rpc_token_done() frees it),
 * or NULL if @ctx owes no reply under @desc (any more).
 */
struct lite_rpc_token *lite_rpc_token_take(struct lite_ctx *ctx, u64 desc,
					   bool replying)
{
	struct lite_rpc_token *tok;

	if (desc >> 63)
		return NULL;
	xa_lock(&lite_tokens.slots);
	tok = xa_load(&lite_tokens.slots, desc & LITE_RPC_SLOT_MAX);
	if (!tok || tok->ctx != ctx || lite_rpc_token_desc(tok) != desc) {
		xa_unlock(&lite_tokens.slots);
		return NULL;
	}
	if (replying)
		atomic_inc(lite_rpc_replying(tok->node, tok->call_id));
	lite_rpc_token_unown(tok);
	xa_unlock(&lite_tokens.slots);
	return tok;
}

/**
 * lite_rpc_token_done() - a token taken is used up
 * @tok: from lite_rpc_token_take()
 * @replying: it was taken replying, and nothing will be written into the
 *	caller's reply buffer any more: end the count now (else the reply's
 *	completion ends it, lite_rpc_replied())
 *
 * Context: any.
 */
void lite_rpc_token_done(struct lite_rpc_token *tok, bool replying)
{
	if (replying)
		lite_rpc_replied(tok->node, tok->call_id);
	lite_rpc_token_free(tok);
}

/*
 * A reply to call @call_id of @node completed (a flushed one: after the
 * QP was marked broken), or was never posted. Ordered after all that, so
 * an RPC_FORGET that reads the count sees it too (lite_rpc_serve_forget).
 */
void lite_rpc_replied(u16 node, u32 call_id)
{
	smp_mb__before_atomic();	/* pairs with atomic_read_acquire() */
	atomic_dec(lite_rpc_replying(node, call_id));
}

/**
 * lite_rpc_tokens_forget() - RPC_FORGET: drop the reply owed to a call
 * @node: the caller's node
 * @gen: its generation
 * @call_id: the call
 *
 * Marks the call's token, if one is owed, so that its reply is dropped.
 *
 * Context: process context.
 * Return: true if nothing can write into the call's reply buffer any more
 * as far as the tokens go: no reply to its bucket of calls is in flight.
 */
bool lite_rpc_tokens_forget(u16 node, u32 gen, u32 call_id)
{
	XA_STATE(xas, &lite_tokens.slots, 0);
	struct lite_rpc_token *tok;
	unsigned int n = 0;

	/* A token taken meanwhile was counted first (lite_rpc_token_take). */
	xas_lock(&xas);
	xas_for_each_marked(&xas, tok, LITE_RPC_SLOT_MAX, LITE_RPC_OWED) {
		if (tok->node == node && tok->gen == gen &&
		    tok->call_id == call_id)
			tok->forgotten = true;
		if (++n % 256)
			continue;
		xas_pause(&xas);
		xas_unlock(&xas);
		cond_resched();
		xas_lock(&xas);
	}
	xas_unlock(&xas);
	/* Pairs with lite_rpc_replied(). */
	return !atomic_read_acquire(lite_rpc_replying(node, call_id));
}

/* Refuse the call behind @tok, unless its caller forgot it, and free it. */
static void lite_rpc_token_refuse(struct lite_rpc_token *tok)
{
	if (!tok->forgotten)
		lite_rpc_post_imm(tok->node, tok->gen,
				  lite_imm_reply(LITE_RPC_ECONNREFUSED,
						 tok->call_id));
	lite_rpc_token_free(tok);
}

/**
 * lite_rpc_token_drop() - @ctx will not reply under @desc after all
 * @ctx: the context
 * @desc: its descriptor (anything: one @ctx does not owe is ignored)
 *
 * The caller gets ECONNREFUSED instead of waiting for its timeout, unless
 * it forgot the call (RPC_FORGET).
 *
 * Context: process context.
 */
void lite_rpc_token_drop(struct lite_ctx *ctx, u64 desc)
{
	struct lite_rpc_token *tok = lite_rpc_token_take(ctx, desc, false);

	if (tok)
		lite_rpc_token_refuse(tok);
}

/**
 * lite_rpc_tokens_ctx_release() - @ctx goes away: refuse every call it
 * still owes a reply
 * @ctx: the context
 *
 * Context: process context.
 */
void lite_rpc_tokens_ctx_release(struct lite_ctx *ctx)
{
	struct lite_rpc_token *tok;

	for (;;) {
		xa_lock(&lite_tokens.slots);
		tok = list_first_entry_or_null(&ctx->replies,
					       struct lite_rpc_token, link);
		if (tok)
			lite_rpc_token_unown(tok);
		xa_unlock(&lite_tokens.slots);
		if (!tok)
			return;
		lite_rpc_token_refuse(tok);
	}
}

/**
 * lite_rpc_tokens_leave() - this node leaves: every reply owed is dropped
 *
 * The callers are gone with their nodes and freed their reply buffers; a
 * descriptor kept past a rejoin must not write into them (its context
 * owes it no more: lite_rpc_reply() gets -EALREADY).
 *
 * Context: process context.
 */
void lite_rpc_tokens_leave(void)
{
	XA_STATE(xas, &lite_tokens.slots, 0);
	struct lite_rpc_token *tok;
	unsigned int n = 0;

	xas_lock(&xas);
	xas_for_each_marked(&xas, tok, LITE_RPC_SLOT_MAX, LITE_RPC_OWED) {
		lite_rpc_token_unown(tok);
		list_add_tail(&tok->link, &lite_tokens.free);
		if (++n % 256)
			continue;
		xas_pause(&xas);
		xas_unlock(&xas);
		cond_resched();
		xas_lock(&xas);
	}
	xas_unlock(&xas);
}

/**
 * lite_rpc_tokens_exit() - module exit, after every context went: free
 * every slot
 */
void lite_rpc_tokens_exit(void)
{
	struct lite_rpc_token *tok;
	unsigned long slot;

	xa_for_each(&lite_tokens.slots, slot, tok) {
		kfree(tok);
		cond_resched();
	}
	xa_destroy(&lite_tokens.slots);
}
