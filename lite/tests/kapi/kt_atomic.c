// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the atomics on LMRs of this node and of a server: each
 * operation's old values, its refusals, and every node at once on one
 * word of a server.
 */
#include "kt.h"

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/string.h>

/* Atomic-operation errors shared by fetch_and_add and compare_and_swp. */
static void kt_atomic_errors(struct kt *t, int plain,
			     int (*op)(int lh, u64 v, u64 *old, int pw))
{
	u64 old;

	KT_EQ(op(KT_BAD_HANDLE, 1, &old, KT_PW), -ENOENT);
	KT_EQ(op(plain, 1, &old, KT_PW), -EPERM);	/* not an atomic LMR */
}

static int kt_faa(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_fetch_and_add(lh, v, old, pw);
}

static int kt_cas(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_compare_and_swp(lh, 0, v, old, pw);
}

/* Read the counter at the start of @lh until it is @want (or time is up). */
static u64 kt_wait_counter(struct kt *t, int lh, u64 want)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_TIMEOUT_MS);
	u64 v = 0;

	do {
		if (liteapi_rdma_read_offset(lh, &v, sizeof(v), 0, 0, KT_PW))
			break;
		if (v >= want)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	return v;
}

/*
 * @body on an atomic LMR @a and a plain one @plain, 64 bytes each, on this
 * node (@i 0), then on @other (@i 1): a failed alloc, a failure already,
 * leaves its handle <= 0. Both handles are dropped after.
 */
static void kt_atomic_pairs(struct kt *t, unsigned int other,
			    void (*body)(struct kt *t, int i, unsigned int node,
					 int a, int plain))
{
	unsigned int node[2] = { t->me, other };
	int i, a, plain;

	for (i = 0; i < 2; i++) {
		a = kt_alloc(t, node[i], 64, true);
		plain = kt_alloc(t, node[i], 64, false);
		body(t, i, node[i], a, plain);
		kt_put(&a);
		kt_put(&plain);
	}
}

#define KT_ADDS		200

static void kt_fetch_and_add_on(struct kt *t, int i, unsigned int node,
				int a, int plain)
{
	struct kt_req r = {
		.op = KT_OP_ADD, .node = t->s1, .ident = t->ident + 500,
		.arg = KT_ADDS, .password = KT_PW,
	};
	int j, sent = 0;
	u64 old, v;

	if (a > 0 && plain > 0) {
		KT_EQ(liteapi_rdma_fetch_and_add(a, 5, &old, KT_PW), 0);
		KT_EQ(old, 0);
		KT_EQ(liteapi_rdma_fetch_and_add(a, 3, &old, KT_PW), 0);
		KT_EQ(old, 5);
		KT_EQ(liteapi_rdma_fetch_and_add(a, -8ULL, &old, KT_PW), 0);
		KT_EQ(old, 8);
		KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
		KT_EQ(v, 0);
		KT_EQ(liteapi_rdma_fetch_and_add(a, 1, &old, KT_PW + 1),
		      -EACCES);
		kt_atomic_errors(t, plain, kt_faa);
	}
	if (i == 1 && a > 0 &&
	    KT_EQ(liteapi_add_askmr_table(r.ident, a, KT_RWA, KT_PW), 0)) {
		/* Every node adds at once, to an LMR on s1. */
		for (j = 0; j < kt_nr_servers; j++) {
			*t->req = r;
			sent += KT_EQ(liteapi_send_message(kt_servers[j], kt_port,
							   t->req, sizeof(r), 0), 0);
		}
		for (j = 0; j < KT_ADDS; j++)
			if (!KT_EQ(liteapi_rdma_fetch_and_add(a, 1, &old, KT_PW),
				   0))
				break;
		v = kt_wait_counter(t, a, (u64)KT_ADDS * (1 + sent));
		KT_EQ(v, (u64)KT_ADDS * (1 + sent));
		for (j = 0; j < kt_nr_servers; j++)
			kt_server_clean(t, kt_servers[j]);
	}
}

void kt_rdma_fetch_and_add(struct kt *t)
{
	kt_atomic_pairs(t, t->s1, kt_fetch_and_add_on);
}

static void kt_compare_and_swp_on(struct kt *t, int i, unsigned int node,
				  int a, int plain)
{
	u64 old, v;

	if (a <= 0 || plain <= 0)
		return;
	KT_EQ(liteapi_rdma_compare_and_swp(a, 0, 42, &old, KT_PW), 0);
	KT_EQ(old, 0);
	/* A wrong guess changes nothing. */
	KT_EQ(liteapi_rdma_compare_and_swp(a, 41, 7, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, 42);
	KT_EQ(liteapi_rdma_compare_and_swp(a, 42, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, U64_MAX);
	KT_EQ(liteapi_rdma_compare_and_swp(a, U64_MAX, 1, &old, KT_PW + 1),
	      -EACCES);
	kt_atomic_errors(t, plain, kt_cas);
}

void kt_rdma_compare_and_swp(struct kt *t)
{
	kt_atomic_pairs(t, t->s2, kt_compare_and_swp_on);
}

static int kt_swp(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_swp(lh, v, old, pw);
}

#define KT_SWAPS	100

/* What swapping in (@node << 32 | k), k = 1 .. KT_SWAPS, puts in. */
static u64 kt_swap_in(unsigned int node)
{
	return KT_SWAPS * ((u64)node << 32) + KT_SWAPS * (KT_SWAPS + 1) / 2;
}

/*
 * Every node swaps distinct values into one word on s1 at once: every
 * value put in comes out exactly once (as somebody's old value, or as the
 * last one), so the sums match.
 */
static void kt_swp_race(struct kt *t, int a)
{
	struct kt_req r = {
		.op = KT_OP_SWAP, .node = t->s1, .ident = t->ident + 700,
		.arg = KT_SWAPS, .password = KT_PW,
	};
	u64 in = kt_swap_in(t->me), out = 0, old;
	bool sent[2] = { false, false };
	int j;
	u32 k;

	if (!KT_EQ(liteapi_rdma_swp(a, 0, &old, KT_PW), 0) ||
	    !KT_EQ(liteapi_add_askmr_table(r.ident, a, KT_RWA, KT_PW), 0))
		return;
	for (j = 0; j < kt_nr_servers && j < 2; j++) {
		*t->req = r;
		sent[j] = KT_EQ(liteapi_send_message(kt_servers[j], kt_port, t->req,
						     sizeof(r), 0), 0);
	}
	for (k = 1; k <= KT_SWAPS; k++) {
		if (!KT_EQ(liteapi_rdma_swp(a, (u64)t->me << 32 | k, &old,
					    KT_PW), 0))
			return;
		out += old;
	}
	/* SWAPPED queues behind SWAP: the server has finished. */
	for (j = 0; j < kt_nr_servers && j < 2; j++) {
		struct kt_req q = { .op = KT_OP_SWAPPED };

		if (!sent[j] ||
		    !KT_EQ(kt_call(t, kt_servers[j], &q, 0, sizeof(struct kt_resp)),
			   sizeof(struct kt_resp)))
			continue;
		KT_EQ(kt_resp(t)->val[1], KT_SWAPS);
		out += kt_resp(t)->val[0];
		in += kt_swap_in(kt_servers[j]);
		kt_server_clean(t, kt_servers[j]);
	}
	KT_EQ(liteapi_rdma_read_offset(a, &old, 8, 0, 0, KT_PW), 0);
	KT_EQ(out + old, in);
}

static void kt_swp_on(struct kt *t, int i, unsigned int node, int a,
		      int plain)
{
	u64 old, v;
	int ro;

	if (a <= 0 || plain <= 0)
		return;
	KT_EQ(liteapi_rdma_swp(a, 42, &old, KT_PW), 0);
	KT_EQ(old, 0);
	KT_EQ(liteapi_rdma_swp(a, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, U64_MAX);
	/* The same value: still a swap. */
	KT_EQ(liteapi_rdma_swp(a, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, U64_MAX);
	KT_EQ(liteapi_rdma_swp(a, 7, &old, KT_PW), 0);
	KT_EQ(old, U64_MAX);
	/* Only the first 8 bytes. */
	memset(t->ref, 0, 56);
	KT_TRUE(kt_same(t, a, 8, t->ref, 56));
	KT_EQ(liteapi_rdma_swp(a, 1, &old, KT_PW + 1), -EACCES);
	ro = kt_publish_ask(t, a, node, t->ident + 710 + i, LITE_PERM_READ);
	if (KT_TRUE(ro > 0))
		KT_EQ(liteapi_rdma_swp(ro, 1, &old, KT_PW), -EPERM);
	kt_put(&ro);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, 7);
	kt_atomic_errors(t, plain, kt_swp);
	if (i == 1)
		kt_swp_race(t, a);
}

void kt_rdma_swp(struct kt *t)
{
	kt_atomic_pairs(t, t->s1, kt_swp_on);
}
