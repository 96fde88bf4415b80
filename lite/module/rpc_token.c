// SPDX-License-Identifier: GPL-2.0
/*
 * The replies this node owes (docs/rpc.md): a token for each request a
 * receiver took that awaits its reply, found by the descriptor the
 * receiver was given, owned by that receiver's context.
 *
 * Tokens live in slots that are made once and then reused, never freed
 * before the module goes: a server that made and erased an XArray entry
 * per call (twice: the table and its context's) freed an XArray node
 * through RCU each time, two RCU callbacks and grace periods per call
 * (plots/profile-cpu/). A descriptor is a slot's number and the count of
 * its uses, so the descriptor of an earlier use of a slot is refused; free
 * slots are reused oldest first, so a slot comes back only after all the
 * others did.
 */
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "rpc.h"
#include "lite_ctx.h"

/* A descriptor: the slot in bits 19-0, its use count in bits 30-20. */
#define LITE_RPC_SLOT_BITS	20
#define LITE_RPC_SLOT_MAX	((1U << LITE_RPC_SLOT_BITS) - 1)
#define LITE_RPC_USES_MASK	((1U << (31 - LITE_RPC_SLOT_BITS)) - 1)

/*
 * Replies in flight are counted in this many buckets of call ids per
 * node, so that one RPC_FORGET waits for few besides its own call's.
 */
#define LITE_RPC_REPLY_BUCKETS	64

static struct {
	spinlock_t		lock;	/* the tokens' ctx and link, @free */
	struct xarray		slots;	/* slot -> token, never erased */
	struct list_head	free;	/* oldest first */
	/*
	 * Replies taken out of their context and not yet completed, by node
	 * and call id (a bucket of them): RPC_FORGET waits for those of its
	 * call's bucket.
	 */
	atomic_t		replying[LITE_MAX_NODES][LITE_RPC_REPLY_BUCKETS];
} lite_tokens = {
	.lock	= __SPIN_LOCK_UNLOCKED(lite_tokens.lock),
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
	return (u64)tok->uses << LITE_RPC_SLOT_BITS | tok->slot;
}

/**
 * lite_rpc_token_new() - a token for a reply @ctx will owe
 * @ctx: the receiver's context
 * @fill: the reply's destination (node, gen, call_id, reply_*, forgotten)
 * @desc: out: the descriptor @ctx replies with
 *
 * Context: process context.
 * Return: 0, or -ENOMEM (no memory, or every slot owed).
 */
int lite_rpc_token_new(struct lite_ctx *ctx,
		       const struct lite_rpc_token *fill, u64 *desc)
{
	struct lite_rpc_token *tok;
	u32 slot;

	spin_lock(&lite_tokens.lock);
	tok = list_first_entry_or_null(&lite_tokens.free,
				       struct lite_rpc_token, link);
	if (tok)
		list_del(&tok->link);
	spin_unlock(&lite_tokens.lock);
	if (!tok) {
		tok = kzalloc(sizeof(*tok), GFP_KERNEL);
		if (!tok)
			return -ENOMEM;
		if (xa_alloc(&lite_tokens.slots, &slot, tok,
			     XA_LIMIT(1, LITE_RPC_SLOT_MAX), GFP_KERNEL)) {
			kfree(tok);
			return -ENOMEM;
		}
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
	spin_lock(&lite_tokens.lock);
	tok->ctx = ctx;
	list_add_tail(&tok->link, &ctx->replies);
	spin_unlock(&lite_tokens.lock);
	return 0;
}

/* @tok, owed by nobody now, is a free slot again. */
static void lite_rpc_token_free(struct lite_rpc_token *tok)
{
	spin_lock(&lite_tokens.lock);
	list_add_tail(&tok->link, &lite_tokens.free);
	spin_unlock(&lite_tokens.lock);
}

/**
 * lite_rpc_token_take() - take the token of @desc away from @ctx
 * @ctx: the context that must owe it
 * @desc: the descriptor, as the receiver gave it
 * @replying: count a reply in flight to its call (lite_rpc_token_done()
 *	ends it), before the token leaves the context: RPC_FORGET sees
 *	either
 *
 * Context: process context.
 * Return: the token, now the caller's (lite_rpc_token_done() frees it),
 * or NULL if @ctx owes no reply under @desc (any more).
 */
struct lite_rpc_token *lite_rpc_token_take(struct lite_ctx *ctx, u64 desc,
					   bool replying)
{
	struct lite_rpc_token *tok;

	if (desc > INT_MAX)
		return NULL;
	tok = xa_load(&lite_tokens.slots, desc & LITE_RPC_SLOT_MAX);
	if (!tok)
		return NULL;
	spin_lock(&lite_tokens.lock);
	if (tok->ctx != ctx || lite_rpc_token_desc(tok) != desc) {
		spin_unlock(&lite_tokens.lock);
		return NULL;
	}
	if (replying)
		atomic_inc(lite_rpc_replying(tok->node, tok->call_id));
	tok->ctx = NULL;
	list_del(&tok->link);
	spin_unlock(&lite_tokens.lock);
	return tok;
}

/**
 * lite_rpc_token_done() - a token taken is used up
 * @tok: from lite_rpc_token_take()
 * @replying: as it was taken, and nothing is written into the caller's
 *	reply buffer any more (else lite_rpc_replied() ends the count later)
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

	/*
	 * Slots are never erased: walk them under RCU, look at each under
	 * the lock. A token taken meanwhile was counted first, one made
	 * meanwhile is from a request the caller already marked.
	 */
	rcu_read_lock();
	xas_for_each(&xas, tok, LITE_RPC_SLOT_MAX) {
		if (xas_retry(&xas, tok))
			continue;
		spin_lock(&lite_tokens.lock);
		if (tok->ctx && tok->node == node && tok->gen == gen &&
		    tok->call_id == call_id)
			tok->forgotten = true;
		spin_unlock(&lite_tokens.lock);
		if (++n % 256)
			continue;
		xas_pause(&xas);
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
	}
	rcu_read_unlock();
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
 */
void lite_rpc_tokens_ctx_release(struct lite_ctx *ctx)
{
	struct lite_rpc_token *tok;

	for (;;) {
		spin_lock(&lite_tokens.lock);
		tok = list_first_entry_or_null(&ctx->replies,
					       struct lite_rpc_token, link);
		if (tok) {
			tok->ctx = NULL;
			list_del(&tok->link);
		}
		spin_unlock(&lite_tokens.lock);
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
 */
void lite_rpc_tokens_leave(void)
{
	struct lite_rpc_token *tok;
	unsigned long slot;

	xa_for_each(&lite_tokens.slots, slot, tok) {
		spin_lock(&lite_tokens.lock);
		if (tok->ctx) {
			tok->ctx = NULL;
			list_move_tail(&tok->link, &lite_tokens.free);
		}
		spin_unlock(&lite_tokens.lock);
	}
}

/* Module exit, after every context went: every token is free. */
void lite_rpc_tokens_exit(void)
{
	struct lite_rpc_token *tok;
	unsigned long slot;

	xa_for_each(&lite_tokens.slots, slot, tok)
		kfree(tok);
	xa_destroy(&lite_tokens.slots);
	INIT_LIST_HEAD(&lite_tokens.free);
}
