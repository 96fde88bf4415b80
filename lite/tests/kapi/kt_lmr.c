// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of LMRs: allocation, synchronous reads and writes at every
 * priority (across a 4 MiB chunk, up to the last byte), memset, and
 * memcpy and memmove between LMRs of this node and of both servers.
 */
#include "kt.h"

#include <linux/limits.h>
#include <linux/string.h>

void kt_alloc_remote_mem(struct kt *t)
{
	int l, r, a;

	l = kt_alloc(t, t->me, 4096, false);
	r = kt_alloc(t, t->s1, 4096, false);
	a = kt_alloc(t, t->s1, 8, true);
	KT_TRUE(l != r && r != a && l != a);
	/* New LMRs read as zeros. */
	memset(t->ref, 0, 4096);
	KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
	KT_TRUE(kt_same(t, r, 0, t->ref, 4096));
	KT_TRUE(kt_same(t, a, 0, t->ref, 8));
	KT_EQ(liteapi_alloc_remote_mem(0, 4096, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(LITE_MAX_NODES, 4096, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(KT_NO_NODE, 4096, false, KT_PW), -ENOTCONN);
	KT_EQ(liteapi_alloc_remote_mem(t->s1, 0, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(t->s1, LITE_LMR_MAX_SIZE + 1, false, KT_PW),
	      -EFBIG);
	kt_put(&l);
	kt_put(&r);
	kt_put(&a);
}

static int kt_write(unsigned int lh, void *p, u64 size, int prio, u64 off,
		    int pw)
{
	return liteapi_rdma_write_offset(lh, p, size, prio, off, pw);
}

/* Errors shared by read and write: the same checks on either direction. */
static void kt_rw_errors(struct kt *t, int lh, u64 size, bool write)
{
	int (*rw)(unsigned int lh, void *p, u64 size, int prio, u64 off, int pw);

	rw = write ? kt_write : liteapi_rdma_read_offset;
	KT_EQ(rw(KT_BAD_HANDLE, t->buf, 8, 0, 0, KT_PW), -ENOENT);
	KT_EQ(rw(lh, t->buf, 20, 0, size - 10, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 0, 0, size + 1, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 8, 0, U64_MAX - 3, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 8, 0, 0, KT_PW + 1), -EACCES);
	KT_EQ(rw(lh, t->buf, 8, 3, 0, KT_PW), -EINVAL);
	KT_EQ(rw(lh, t->buf, 8, -1, 0, KT_PW), -EINVAL);
	KT_EQ(rw(lh, t->buf, LITE_LMR_MAX_SIZE + 1, 0, 0, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 0, 0, 0, KT_PW), 0);
}

void kt_rdma_write_offset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 off = (4U << 20) - 32768;
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_BIG, false);
		if (lh <= 0)
			continue;
		/* 64 KiB across the 4 MiB chunk boundary. */
		kt_pattern(t->ref, 65536, i + 1);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, 65536,
						LITE_PRIO_NORMAL, off, KT_PW), 0);
		KT_TRUE(kt_same(t, lh, off, t->ref, 65536));
		/* Untouched bytes stay zero. */
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 64, 0, off - 64, KT_PW), 0);
		KT_TRUE(!memchr_inv(t->buf, 0, 64));
		/* Every priority; the very last bytes. */
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, 100, LITE_PRIO_HIGH,
						0, KT_PW), 0);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref + 100, 100,
						LITE_PRIO_LOW, KT_BIG - 100,
						KT_PW), 0);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 100));
		KT_TRUE(kt_same(t, lh, KT_BIG - 100, t->ref + 100, 100));
		kt_rw_errors(t, lh, KT_BIG, true);
		kt_put(&lh);
	}
}

void kt_rdma_read_offset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s2 };
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc_filled(t, node[i], KT_BUF, 7 + i);
		if (lh <= 0)
			continue;
		/* The whole, and an unaligned piece, at each priority. */
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_BUF));
		memset(t->buf, 0, 1000);
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 1000, LITE_PRIO_HIGH,
					       12345, KT_PW), 0);
		KT_TRUE(!memcmp(t->buf, t->ref + 12345, 1000));
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 1, LITE_PRIO_LOW,
					       KT_BUF - 1, KT_PW), 0);
		KT_EQ(t->buf[0], t->ref[KT_BUF - 1]);
		kt_rw_errors(t, lh, KT_BUF, false);
		kt_put(&lh);
	}
}

/* Copy with @fn and apply the same copy to the reference images in @ref. */
static void kt_copy(struct kt *t, int (*fn)(unsigned int, u64, unsigned int,
					    u64, u64), const int *lh, u8 *ref,
		    int d, u64 doff, int s, u64 soff, u64 len)
{
	KT_EQ(fn(lh[d], doff, lh[s], soff, len), 0);
	memmove(ref + d * KT_MC_SIZE + doff, ref + s * KT_MC_SIZE + soff, len);
}

/* LMRs on this node (0, 1), on s1 (2, 3) and on s2 (4), with patterns. */
static bool kt_mc_setup(struct kt *t, int *lh)
{
	unsigned int node[KT_MC_N] = { t->me, t->me, t->s1, t->s1, t->s2 };
	int i;

	for (i = 0; i < KT_MC_N; i++) {
		lh[i] = kt_alloc(t, node[i], KT_MC_SIZE, false);
		if (lh[i] <= 0)
			return false;
		kt_pattern(t->ref + i * KT_MC_SIZE, KT_MC_SIZE, 100 + i);
		if (!KT_EQ(liteapi_rdma_write_offset(lh[i], t->ref + i * KT_MC_SIZE,
						     KT_MC_SIZE, 0, 0, KT_PW), 0))
			return false;
	}
	return true;
}

static void kt_mc_verify(struct kt *t, const int *lh)
{
	int i;

	for (i = 0; i < KT_MC_N; i++)
		if (!kt_same(t, lh[i], 0, t->ref + i * KT_MC_SIZE, KT_MC_SIZE))
			KT_EQ(i, -1);	/* LMR i differs from its image */
}

static void kt_mc_teardown(int *lh)
{
	int i;

	for (i = 0; i < KT_MC_N; i++)
		kt_put(&lh[i]);
}

void kt_remote_memset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc_filled(t, node[i], 8192, 3);
		if (lh <= 0)
			continue;
		KT_EQ(liteapi_remote_memset(lh, 100, 0xab, 1000), 0);
		memset(t->ref + 100, 0xab, 1000);
		KT_EQ(liteapi_remote_memset(lh, 8191, 0, 1), 0);
		t->ref[8191] = 0;
		KT_EQ(liteapi_remote_memset(lh, 0, 7, 0), 0);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 8192));
		KT_EQ(liteapi_remote_memset(lh, 0, 256, 8), -EINVAL);
		KT_EQ(liteapi_remote_memset(lh, 0, -1, 8), -EINVAL);
		KT_EQ(liteapi_remote_memset(lh, 8000, 0, 193), -ERANGE);
		KT_EQ(liteapi_remote_memset(KT_BAD_HANDLE, 0, 0, 8), -ENOENT);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 8192));
		kt_put(&lh);
	}
}

void kt_rdma_mr_memcpy(struct kt *t)
{
	int (*fn)(unsigned int, u64, unsigned int, u64, u64) = liteapi_rdma_mr_memcpy;
	int lh[KT_MC_N] = { 0 };

	if (kt_mc_setup(t, lh)) {
		kt_copy(t, fn, lh, t->ref, 2, 1000, 0, 0, 16384);	/* local -> remote */
		kt_copy(t, fn, lh, t->ref, 0, 40000, 2, 2000, 8192);	/* remote -> local */
		kt_copy(t, fn, lh, t->ref, 4, 1, 2, 3, 30000);		/* s1 -> s2 */
		kt_copy(t, fn, lh, t->ref, 3, 0, 2, 0, KT_MC_SIZE);	/* on s1 */
		kt_copy(t, fn, lh, t->ref, 1, 5, 0, 7, 777);		/* on this node */
		KT_EQ(fn(lh[2], 0, lh[0], 0, 0), 0);
		kt_mc_verify(t, lh);
		KT_EQ(fn(lh[2], KT_MC_SIZE - 10, lh[0], 0, 11), -ERANGE);
		KT_EQ(fn(lh[2], 0, lh[4], KT_MC_SIZE - 10, 11), -ERANGE);
		KT_EQ(fn(KT_BAD_HANDLE, 0, lh[0], 0, 8), -ENOENT);
		KT_EQ(fn(lh[0], 0, KT_BAD_HANDLE, 0, 8), -ENOENT);
		kt_mc_verify(t, lh);
	}
	kt_mc_teardown(lh);
}

void kt_rdma_mr_memmov(struct kt *t)
{
	int (*fn)(unsigned int, u64, unsigned int, u64, u64) = liteapi_rdma_mr_memmov;
	int lh[KT_MC_N] = { 0 };

	if (kt_mc_setup(t, lh)) {
		/* Overlapping, both ways, in a local and in a remote LMR. */
		kt_copy(t, fn, lh, t->ref, 0, 100, 0, 0, 30000);
		kt_copy(t, fn, lh, t->ref, 0, 0, 0, 5000, 30000);
		kt_copy(t, fn, lh, t->ref, 2, 4096, 2, 1, 40000);
		kt_copy(t, fn, lh, t->ref, 2, 3, 2, 4000, 50000);
		/* Between nodes it is a copy. */
		kt_copy(t, fn, lh, t->ref, 4, 10, 0, 20, 20000);
		kt_mc_verify(t, lh);
		KT_EQ(fn(lh[2], 1, lh[2], 0, KT_MC_SIZE), -ERANGE);
		KT_EQ(fn(KT_BAD_HANDLE, 0, lh[2], 0, 8), -ENOENT);
		kt_mc_verify(t, lh);
	}
	kt_mc_teardown(lh);
}
