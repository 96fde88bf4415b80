// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of posted operations: reads and writes in flight at once,
 * reaped with liteapi_poll() (at most @max at a time) or waited for with
 * liteapi_fence(), and the errors that queue nothing.
 */
#include "kt.h"

#include <linux/bits.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/string.h>

#define KT_AS_N		8		/* operations in flight */
#define KT_AS_LEN	8192		/* bytes each */
#define KT_AS_SIZE	(KT_AS_N * KT_AS_LEN)

/*
 * Reap the completions of ids @base .. @base + @n - 1 (@n <= KT_AS_N) with
 * liteapi_poll(), @max (1 .. KT_AS_N) per call at most: each must come
 * once, with status 0.
 */
static void kt_reap(struct kt *t, u64 base, unsigned int n, unsigned int max)
{
	struct lite_completion c[KT_AS_N];
	unsigned long seen = 0;
	unsigned int got = 0;
	int ret, i;

	while (got < n) {
		ret = liteapi_poll(c, max, KT_TIMEOUT_MS);
		if (!KT_TRUE(ret >= 1 && ret <= max))
			return;
		for (i = 0; i < ret; i++) {
			KT_EQ(c[i].status, 0);
			if (KT_TRUE(c[i].id >= base && c[i].id < base + n &&
				    !(seen & BIT(c[i].id - base))))
				seen |= BIT(c[i].id - base);
		}
		got += ret;
	}
	KT_EQ(seen, BIT(n) - 1);
}

static int kt_write_async(unsigned int lh, void *p, u64 size, u64 off, int pw,
			  u64 id)
{
	return liteapi_rdma_write_async(lh, p, size, off, pw, id);
}

/* Errors shared by posted reads and writes: nothing gets queued. */
static void kt_async_errors(struct kt *t, int lh, u64 size, bool write)
{
	int (*post)(unsigned int lh, void *p, u64 size, u64 off, int pw, u64 id);
	struct lite_completion c;

	post = write ? kt_write_async : liteapi_rdma_read_async;
	KT_EQ(post(KT_BAD_HANDLE, t->buf, 8, 0, KT_PW, 1), -ENOENT);
	KT_EQ(post(lh, t->buf, 8, 0, KT_PW + 1, 1), -EACCES);
	KT_EQ(post(lh, t->buf, 0, 0, KT_PW, 1), -EINVAL);
	KT_EQ(post(lh, t->buf, LITE_ASYNC_MAX_SIZE + 1, 0, KT_PW, 1), -EINVAL);
	KT_EQ(post(lh, t->buf, 16, size - 8, KT_PW, 1), -ERANGE);
	KT_EQ(post(lh, t->buf, 8, U64_MAX - 3, KT_PW, 1), -ERANGE);
	KT_EQ(post(lh, NULL, 8, 0, KT_PW, 1), -EINVAL);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
}

void kt_rdma_write_async(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 base = t->ident + 800;
	int i, j, lh, ro;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_AS_SIZE, false);
		if (lh <= 0)
			continue;
		kt_pattern(t->ref, KT_AS_SIZE, 50 + i);
		/* All in flight at once; each source is copied when posted. */
		for (j = 0; j < KT_AS_N; j++) {
			memcpy(t->buf, t->ref + j * KT_AS_LEN, KT_AS_LEN);
			KT_EQ(liteapi_rdma_write_async(lh, t->buf, KT_AS_LEN,
						       j * KT_AS_LEN, KT_PW,
						       base + j), 0);
			memset(t->buf, 0, KT_AS_LEN);
		}
		kt_reap(t, base, KT_AS_N, KT_AS_N);
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		/* One byte, the very last. */
		KT_EQ(liteapi_rdma_write_async(lh, "z", 1, KT_AS_SIZE - 1, KT_PW,
					       base), 0);
		kt_reap(t, base, 1, 1);
		t->ref[KT_AS_SIZE - 1] = 'z';
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		kt_async_errors(t, lh, KT_AS_SIZE, true);
		/* A read-only mapping takes no write. */
		ro = kt_publish_ask(t, lh, node[i], base + i, LITE_PERM_READ);
		if (KT_TRUE(ro > 0))
			KT_EQ(liteapi_rdma_write_async(ro, t->buf, 8, 0, KT_PW,
						       base), -EPERM);
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		kt_put(&ro);
		kt_put(&lh);
	}
}

void kt_rdma_read_async(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s2 };
	u64 base = t->ident + 820;
	int i, j, lh;
	u8 *dst;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc_filled(t, node[i], KT_AS_SIZE, 55 + i);
		if (lh <= 0)
			continue;
		/* Piece j lands at its own address: the slots in reverse. */
		memset(t->rbuf, 0, KT_AS_SIZE);
		for (j = 0; j < KT_AS_N; j++) {
			dst = t->rbuf + (KT_AS_N - 1 - j) * KT_AS_LEN;
			KT_EQ(liteapi_rdma_read_async(lh, dst, KT_AS_LEN,
						      j * KT_AS_LEN, KT_PW,
						      base + j), 0);
		}
		kt_reap(t, base, KT_AS_N, KT_AS_N);
		for (j = 0; j < KT_AS_N; j++)
			if (memcmp(t->rbuf + (KT_AS_N - 1 - j) * KT_AS_LEN,
				   t->ref + j * KT_AS_LEN, KT_AS_LEN))
				KT_EQ(j, -1);	/* piece j differs */
		/* Unaligned, odd length. */
		memset(t->buf, 0, 1000);
		KT_EQ(liteapi_rdma_read_async(lh, t->buf, 999, 12345, KT_PW,
					      base), 0);
		kt_reap(t, base, 1, 1);
		KT_TRUE(!memcmp(t->buf, t->ref + 12345, 999));
		KT_EQ(t->buf[999], 0);
		kt_async_errors(t, lh, KT_AS_SIZE, false);
		kt_put(&lh);
	}
}

void kt_poll(struct kt *t)
{
	struct lite_completion c[KT_AS_N];
	u64 base = t->ident + 840;
	unsigned long t0;
	int j, lh;

	/* Nothing in flight: nothing to wait for, whatever the timeout. */
	KT_EQ(liteapi_poll(c, KT_AS_N, 0), 0);
	t0 = jiffies;
	KT_EQ(liteapi_poll(c, KT_AS_N, 5000), 0);
	KT_TRUE(jiffies_to_msecs(jiffies - t0) < 2500);
	KT_EQ(liteapi_poll(NULL, 0, 0), 0);
	KT_EQ(liteapi_poll(NULL, 1, 0), -EINVAL);
	lh = kt_alloc_filled(t, t->s1, KT_AS_SIZE, 58);
	if (lh <= 0)
		return;
	/* @max 0 waits for a completion and reaps none: it stays queued. */
	memset(t->buf, 0, KT_AS_SIZE);
	KT_EQ(liteapi_rdma_read_async(lh, t->buf, 64, 0, KT_PW, base), 0);
	KT_EQ(liteapi_poll(c, 0, KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(c, KT_AS_N, KT_TIMEOUT_MS), 1);
	KT_EQ(c[0].id, base);
	KT_EQ(c[0].status, 0);
	KT_TRUE(!memcmp(t->buf, t->ref, 64));
	/* At most @max per call: six in flight, reaped two at a time. */
	memset(t->buf, 0, KT_AS_SIZE);
	for (j = 0; j < 6; j++)
		KT_EQ(liteapi_rdma_read_async(lh, t->buf + j * KT_AS_LEN,
					      KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					      base + j), 0);
	kt_reap(t, base, 6, 2);
	KT_TRUE(!memcmp(t->buf, t->ref, 6 * KT_AS_LEN));
	KT_EQ(liteapi_poll(c, KT_AS_N, 0), 0);
	kt_put(&lh);
}

void kt_fence(struct kt *t)
{
	struct lite_completion c;
	u64 base = t->ident + 860;
	int l, lh, j, n, ret = 0;

	KT_EQ(liteapi_fence(0), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	lh = kt_alloc(t, t->s2, KT_AS_SIZE, false);
	l = kt_alloc(t, t->me, 4096, false);
	if (lh <= 0 || l <= 0)
		goto out;
	/* Writes, the fence; reads of what they wrote, the fence. */
	kt_pattern(t->ref, KT_AS_SIZE, 59);
	for (j = 0; j < KT_AS_N; j++)
		KT_EQ(liteapi_rdma_write_async(lh, t->ref + j * KT_AS_LEN,
					       KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					       base + j), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);	/* it reaped them */
	memset(t->rbuf, 0, KT_AS_SIZE);
	for (j = 0; j < KT_AS_N; j++)
		KT_EQ(liteapi_rdma_read_async(lh, t->rbuf + j * KT_AS_LEN,
					      KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					      base + KT_AS_N + j), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_TRUE(!memcmp(t->rbuf, t->ref, KT_AS_SIZE));
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
	/* A full queue refuses with -EAGAIN; the fence empties it. */
	for (n = 0; n < 65536; n++) {
		ret = liteapi_rdma_write_async(l, t->ref, 1, n % 4096, KT_PW,
					       base + n);
		if (ret)
			break;
	}
	KT_EQ(ret, -EAGAIN);
	KT_TRUE(n > 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
	/* Local copies complete when posted: no wait needed. */
	KT_EQ(liteapi_rdma_write_async(l, t->ref, 8, 0, KT_PW, base), 0);
	KT_EQ(liteapi_fence(0), 0);
	KT_TRUE(kt_same(t, l, 0, t->ref, 8));
out:
	kt_put(&lh);
	kt_put(&l);
}
