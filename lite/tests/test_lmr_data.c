// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * data: LMRs on NODE (and OTHER_NODE) filled with a pattern kept in a
 * mirror; reads and writes of every size from every kind of buffer,
 * memset, memcpy and memmove, each held against the mirror.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_lmr.h"

/* ---- data: one LMR's contents ---------------------------------------- */

static const char *const buf_kind_name[NR_BUF_KINDS] = {
	[BUF_MALLOC] = "malloc",
	[BUF_ZEROCOPY] = "zero-copy",
	[BUF_UNALIGNED] = "unaligned",
};

/* Each kind of buffer exercises the priorities too. */
static const int buf_kind_prio[NR_BUF_KINDS] = {
	[BUF_MALLOC] = LITE_PRIO_NORMAL,
	[BUF_ZEROCOPY] = LITE_PRIO_HIGH,
	[BUF_UNALIGNED] = LITE_PRIO_LOW,
};

/* A range of an LMR crossing a chunk boundary (size 1: touching one). */
uint64_t pick_straddle(struct rng *r, uint64_t lmr_size, uint64_t size)
{
	uint64_t b = CHUNK_SIZE * (1 + rng_below(r, lmr_size / CHUNK_SIZE - 1));
	uint64_t lo, hi;

	if (size < 2)
		return b - 1 + rng_below(r, 2);
	lo = b >= size - 1 ? b - (size - 1) : 0;
	hi = b - 1 < lmr_size - size ? b - 1 : lmr_size - size;
	return lo + rng_below(r, hi - lo + 1);
}

static uint64_t pick_random(struct rng *r, uint64_t lmr_size, uint64_t size)
{
	return rng_below(r, lmr_size - size + 1);
}

/* Read [off, off+len) of @l, widened by @margin, and compare to its mirror. */
bool lmr_verify(struct data_test *t, struct lmr *l, uint64_t off,
		uint64_t len, uint64_t margin, const char *what)
{
	uint64_t start = off > margin ? off - margin : 0;
	uint64_t end = off + len + margin < l->size ? off + len + margin :
						       l->size;
	int ret;

	ret = lite_read(l->lh, start, t->scratch, end - start, DATA_PASSWORD,
			LITE_PRIO_NORMAL);
	if (!step(ret, "%s: read back [0x%llx, 0x%llx) of %s", what,
		  (unsigned long long)start, (unsigned long long)end, l->name))
		return false;
	return expect_bytes(t->scratch, l->mirror + start, end - start, start,
			    "%s", what);
}

static bool lmr_open(struct data_test *t, struct lmr *l, const char *name,
		     unsigned int node, uint64_t size)
{
	unsigned int info_node, perm;
	uint64_t info_size;
	char what[80];
	size_t i;
	int ret;

	l->name = name;
	l->node = node;
	l->size = size;
	l->mirror = malloc(size);
	if (!l->mirror) {
		fail("%s: malloc mirror: %s", name, strerror(errno));
		return false;
	}
	l->lh = lite_alloc(node, size, 0, DATA_PASSWORD);
	if (!expect(l->lh, 0, "alloc %llu MiB on node %u (%s)",
		    (unsigned long long)(size / MiB), node, name))
		return false;

	ret = lite_lmr_info(l->lh, &info_node, &info_size, &perm);
	if (step(ret, "%s: lmr_info", name)) {
		if (info_node == node && info_size == size &&
		    (perm & PERM_RWSA) == PERM_RWSA)
			pass("%s: lmr_info: node, size, RWSA", name);
		else
			fail("%s: lmr_info: want node %u, size %llu, perm "
			     "RWSA; got node %u, size %llu, perm 0x%x", name,
			     node, (unsigned long long)size, info_node,
			     (unsigned long long)info_size, perm);
	}

	/* Memory handed out must not show what it held before. */
	ret = lite_read(l->lh, 0, t->scratch, size, DATA_PASSWORD,
			LITE_PRIO_NORMAL);
	if (step(ret, "%s: read it fresh", name)) {
		for (i = 0; i < size && !t->scratch[i]; i++)
			;
		if (i == size)
			pass("%s: fresh, reads as zeros", name);
		else
			fail("%s: fresh, reads as zeros: byte 0x%zx is 0x%02x",
			     name, i, t->scratch[i]);
	}

	/* A pattern everywhere, so that stray writes show. */
	rng_fill(&t->rng, l->mirror, size);
	ret = lite_write(l->lh, 0, l->mirror, size, DATA_PASSWORD,
			 LITE_PRIO_NORMAL);
	if (!step(ret, "%s: fill", name))
		return false;
	/* A bad byte here shows again later; the other checks still run. */
	snprintf(what, sizeof(what), "%s: filled, reads back", name);
	lmr_verify(t, l, 0, size, 0, what);
	return true;
}

static void lmr_close(struct lmr *l)
{
	if (l->lh > 0)
		expect(lite_free(l->lh), 0, "free %s", l->name);
	free(l->mirror);
}

static bool data_init(struct data_test *t)
{
	uint8_t *zc;
	int ret;

	t->scratch = malloc(DATA_LMR_SIZE);
	t->alloc[BUF_MALLOC] = malloc(MAX_IO);
	t->alloc[BUF_UNALIGNED] = malloc(MAX_IO + 1);
	if (!t->scratch || !t->alloc[BUF_MALLOC] || !t->alloc[BUF_UNALIGNED]) {
		fail("malloc test buffers: %s", strerror(errno));
		return false;
	}
	t->buf[BUF_MALLOC] = t->alloc[BUF_MALLOC];
	t->buf[BUF_UNALIGNED] = t->alloc[BUF_UNALIGNED] + 1;

	/* Without it, the zero-copy cases are skipped, the rest still run. */
	zc = lite_alloc_buffer(MAX_IO);
	if (!zc)
		fail("lite_alloc_buffer(16 MiB): %s", errname(errno));
	else if ((uintptr_t)zc % sysconf(_SC_PAGESIZE))
		fail("lite_alloc_buffer(16 MiB): %p is not page-aligned", zc);
	else
		pass("lite_alloc_buffer(16 MiB) gives page-aligned memory");
	t->alloc[BUF_ZEROCOPY] = zc;
	t->buf[BUF_ZEROCOPY] = zc;

	ret = lite_nr_nodes();
	expect(ret, 0, "lite_nr_nodes (%d)", ret);

	if (!lmr_open(t, &t->main, "main LMR", t->node, DATA_LMR_SIZE) ||
	    !lmr_open(t, &t->copy, "copy LMR", t->node, COPY_LMR_SIZE))
		return false;
	if (t->other &&
	    !lmr_open(t, &t->far, "far LMR", t->other, COPY_LMR_SIZE))
		return false;
	return true;
}

static void data_close(struct data_test *t)
{
	lmr_close(&t->far);
	lmr_close(&t->copy);
	lmr_close(&t->main);
	if (t->alloc[BUF_ZEROCOPY])
		expect(lite_free_buffer(t->alloc[BUF_ZEROCOPY], MAX_IO), 0,
		       "lite_free_buffer");
	free(t->alloc[BUF_MALLOC]);
	free(t->alloc[BUF_UNALIGNED]);
	free(t->scratch);
}

/* Write from one kind of buffer, read into another, compare. */
static void rw_case(struct data_test *t, uint64_t size, uint64_t off,
		    enum buf_kind from, enum buf_kind to, const char *where)
{
	uint8_t *src = t->buf[from], *dst = t->buf[to];
	struct lmr *l = &t->main;
	char sz[32], what[160];
	int ret;

	snprintf(what, sizeof(what), "rw %s %s, %s -> %s",
		 size_name(size, sz, sizeof(sz)), where, buf_kind_name[from],
		 buf_kind_name[to]);
	rng_fill(&t->rng, src, size);
	ret = lite_write(l->lh, off, src, size, DATA_PASSWORD,
			 buf_kind_prio[from]);
	if (!step(ret, "%s: write at 0x%llx, prio %d", what,
		  (unsigned long long)off, buf_kind_prio[from]))
		return;
	memcpy(l->mirror + off, src, size);
	memset(dst, 0x5a, size);
	ret = lite_read(l->lh, off, dst, size, DATA_PASSWORD,
			buf_kind_prio[to]);
	if (!step(ret, "%s: read at 0x%llx, prio %d", what,
		  (unsigned long long)off, buf_kind_prio[to]))
		return;
	expect_bytes(dst, src, size, off, "%s", what);
}

static void data_rw(struct data_test *t)
{
	static const uint64_t sizes[] = {
		1, 7, 64, 4095, 4096, 4097, 64 * KiB, MiB + 3, 16 * MiB,
	};
	uint64_t size, off, lmr_size = t->main.size;
	struct rng *r = &t->rng;
	const char *where;
	int k, straddle;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size = sizes[i];
		for (straddle = 0; straddle < 2; straddle++) {
			if (!straddle)
				where = "at a random offset";
			else if (size > 1)
				where = "across a chunk boundary";
			else
				where = "beside a chunk boundary";
			for (k = 0; k < NR_BUF_KINDS; k++) {
				enum buf_kind to = (k + 1) % NR_BUF_KINDS;

				if (!t->buf[k] || !t->buf[to])
					continue;
				/* MiB sizes cost seconds on Soft-RoCE: one pair. */
				if (size >= MiB && k != straddle)
					continue;
				if (straddle)
					off = pick_straddle(r, lmr_size, size);
				else
					off = pick_random(r, lmr_size, size);
				rw_case(t, size, off, k, to, where);
			}
		}
	}
}

/* @desc names the range without its random parts: ok lines stay stable. */
static void memset_case(struct data_test *t, int value, uint64_t off,
			uint64_t size, const char *desc)
{
	struct lmr *l = &t->main;
	char what[160];
	int ret;

	snprintf(what, sizeof(what), "memset 0x%02x %s, bytes around kept",
		 value, desc);
	ret = lite_memset(l->lh, off, value, size);
	if (!step(ret, "%s: memset [0x%llx, +%llu)", what,
		  (unsigned long long)off, (unsigned long long)size))
		return;
	memset(l->mirror + off, value, size);
	lmr_verify(t, l, off, size, VERIFY_MARGIN, what);
}

static void data_memset(struct data_test *t)
{
	static const int values[] = { 0x00, 0xa5, 0xff };
	struct rng *r = &t->rng;
	uint64_t size;
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		size = 2 + rng_below(r, 128 * KiB);
		memset_case(t, values[i], pick_straddle(r, DATA_LMR_SIZE, size),
			    size, "up to 128 KiB across a chunk boundary");
	}
	size = 9 * MiB + 1;
	memset_case(t, 0xa5, pick_straddle(r, DATA_LMR_SIZE, size), size,
		    "9 MiB+1 across two chunk boundaries");
	memset_case(t, 0xff, 0, 100, "100 B at offset 0");
	memset_case(t, 0x00, DATA_LMR_SIZE - 100, 100, "100 B at the end");
	memset_case(t, 0xa5, CHUNK_SIZE - 1, 1, "1 B, the last of a chunk");
}

static void copy_case(struct data_test *t, bool move, struct lmr *dst,
		      uint64_t dst_off, struct lmr *src, uint64_t src_off,
		      uint64_t size, const char *desc)
{
	char sz[32], what[200];
	int ret;

	snprintf(what, sizeof(what), "%s %s %s", move ? "memmove" : "memcpy",
		 size_name(size, sz, sizeof(sz)), desc);
	if (move)
		ret = lite_memmove(dst->lh, dst_off, src->lh, src_off, size);
	else
		ret = lite_memcpy(dst->lh, dst_off, src->lh, src_off, size);
	if (!step(ret, "%s: [0x%llx, +%llu) of %s to 0x%llx of %s", what,
		  (unsigned long long)src_off, (unsigned long long)size,
		  src->name, (unsigned long long)dst_off, dst->name))
		return;
	memmove(dst->mirror + dst_off, src->mirror + src_off, size);
	lmr_verify(t, dst, dst_off, size, VERIFY_MARGIN, what);
}

/* Overlapping ranges in the main LMR, shifted by @shift either way. */
static void move_cases(struct data_test *t, uint64_t size, uint64_t shift)
{
	struct lmr *l = &t->main;
	uint64_t at = pick_straddle(&t->rng, l->size, size + shift);
	char what[120], sh[32];

	size_name(shift, sh, sizeof(sh));
	snprintf(what, sizeof(what), "up by %s, overlapping, in one LMR", sh);
	copy_case(t, true, l, at + shift, l, at, size, what);
	at = pick_straddle(&t->rng, l->size, size + shift);
	snprintf(what, sizeof(what), "down by %s, overlapping, in one LMR", sh);
	copy_case(t, true, l, at, l, at + shift, size, what);
}

static void data_copy(struct data_test *t)
{
	struct rng *r = &t->rng;
	char desc[120];
	uint64_t size;

	size = 3 * MiB + 5;
	copy_case(t, false, &t->copy, pick_straddle(r, COPY_LMR_SIZE, size),
		  &t->main, pick_straddle(r, DATA_LMR_SIZE, size), size,
		  "between two LMRs, both across chunk boundaries");
	copy_case(t, false, &t->main, pick_random(r, DATA_LMR_SIZE, 100),
		  &t->copy, pick_random(r, COPY_LMR_SIZE, 100), 100,
		  "between two LMRs, back");
	/* Chunks 1 and 3 of the main LMR: disjoint, no boundary crossed. */
	copy_case(t, false, &t->main, 3 * CHUNK_SIZE + 17, &t->main,
		  CHUNK_SIZE + 3, MiB, "within one LMR, disjoint");
	if (t->other) {
		size = MiB + 7;
		snprintf(desc, sizeof(desc), "to an LMR on node %u", t->other);
		copy_case(t, false, &t->far,
			  pick_straddle(r, COPY_LMR_SIZE, size), &t->main,
			  pick_straddle(r, DATA_LMR_SIZE, size), size, desc);
		snprintf(desc, sizeof(desc), "from an LMR on node %u",
			 t->other);
		copy_case(t, false, &t->copy,
			  pick_straddle(r, COPY_LMR_SIZE, size), &t->far,
			  pick_straddle(r, COPY_LMR_SIZE, size), size, desc);
	}
	move_cases(t, 100, 1);
	move_cases(t, 3 * MiB, 4097);
	move_cases(t, 5 * MiB, MiB + 1);
}

int cmd_data(unsigned int node, unsigned int other, uint64_t seed,
	     bool big)
{
	struct data_test t = {
		.node = node, .other = other, .big = big,
		.rng = { .state = seed },
	};
	int me = lite_node_id();

	info("seed %llu (replay with --seed %llu)", (unsigned long long)seed,
	     (unsigned long long)seed);
	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return finish();
	t.me = me;
	if (other)
		info("node %d tests LMRs on nodes %u and %u", me, node, other);
	else
		info("node %d tests LMRs on node %u", me, node);

	/* Library-side argument checks; the kernel is not involved. */
	expect(lite_alloc_buffer(0) ? 0 : -errno, EINVAL,
	       "lite_alloc_buffer(0)");
	expect(lite_free_buffer(NULL, 4096), EINVAL, "lite_free_buffer(NULL)");

	if (data_init(&t)) {
		data_rw(&t);
		data_memset(&t);
		data_copy(&t);
		lmr_verify(&t, &t.main, 0, t.main.size, 0,
			   "main LMR: holds exactly what was written");
		lmr_verify(&t, &t.copy, 0, t.copy.size, 0,
			   "copy LMR: holds exactly what was written");
		if (other)
			lmr_verify(&t, &t.far, 0, t.far.size, 0,
				   "far LMR: holds exactly what was written");
		data_handle_errors(&t);
		data_range_errors(&t);
		data_fault_errors(&t);
		data_raw_errors(&t);
		if (big)
			data_big(&t);
	}
	data_close(&t);
	return finish();
}
