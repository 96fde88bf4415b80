// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_lmr: LITE memory regions through liblite, run on the nodes of a
 * joined cluster by the integration test.
 *
 *   test_lmr data NODE [OTHER_NODE] [--seed N] [--big]
 *   test_lmr share NODE ID      the publisher, on node NODE
 *   test_lmr ask NODE ID        the asker, on another node
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform. Exit status: 1 if a check failed, 2 on a usage error or a
 * broken stdin protocol. share and ask are driven one word a line:
 *
 *   share:  prints "ready"    once every publication exists
 *           reads  "revoke"   then frees the LMR and prints "revoked"
 *           reads  EOF        then exits
 *   ask:    prints "mapped"   holding a READ handle on ID+1
 *           reads  "check-revoked" (send it after share said "revoked"),
 *                             checks that handle is revoked, then exits
 *
 * share exits 1 without "ready" when its own setup fails, ask without
 * "mapped" likewise.
 *
 * share publishes its 1 MiB LMR under ID+p, password 1000+p, for every
 * set p = 1..7 of READ|WRITE|SHARE; ask republishes under ID+8..ID+127.
 * Runs at the same time need IDs at least 128 apart. Data operations
 * present the password the handle was made with: SHARE_LMR_PASSWORD on
 * the publisher's own handle (lite_ioc_alloc), 1000+p on a handle asked
 * from ID+p (the kernel keeps the ask's password in the handle).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)

/* The kernel's chunks are at most 4 MiB: multiples of it are boundaries. */
#define CHUNK_SIZE		(4 * MiB)
#define DATA_LMR_SIZE		(20 * MiB)
#define COPY_LMR_SIZE		(8 * MiB)
#define MAX_IO			(16 * MiB)
#define VERIFY_MARGIN		(64 * KiB)	/* around a changed range */
#define DATA_PASSWORD		4242
#define BAD_HANDLE		12345678
#define NOT_A_MEMBER		63	/* a valid id no test cluster has */

#define SHARE_SIZE		MiB
#define SHARE_SCRATCH		(SHARE_SIZE - 64 * KiB)	/* askers write here */
#define SHARE_SLOT		KiB	/* scratch per (published, asked) */
#define SHARE_LMR_PASSWORD	1000	/* of the LMRs share and ask allocate */
#define PUB_PASSWORD(p)		(1000 + (int)(p))
#define REPUB_PASSWORD(p, q)	(2000 + (int)((p) * 8 + (q)))
#define WRONG_PASSWORD		999
#define PERM_RWS		(LITE_PERM_READ | LITE_PERM_WRITE | \
				 LITE_PERM_SHARE)
#define PERM_RWSA		(PERM_RWS | LITE_PERM_ADMIN)

/* A negative test that unexpectedly returned a handle: drop it. */
static void drop_handle(int ret)
{
	if (ret > 0)
		lite_unmap(ret);
}

static const char *perm_name(unsigned int perm)
{
	static char buf[4][16];
	static unsigned int next;
	char *s = buf[next++ % 4];

	snprintf(s, sizeof(buf[0]), "%c%c%c%s%s",
		 perm & LITE_PERM_READ ? 'R' : '-',
		 perm & LITE_PERM_WRITE ? 'W' : '-',
		 perm & LITE_PERM_SHARE ? 'S' : '-',
		 perm & LITE_PERM_ADMIN ? "A" : "",
		 perm & LITE_PERM_ATOMIC ? "+atomic" : "");
	return s;
}

/* The ioctl itself, for what liblite cannot express. */
static int raw_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

/* ---- data: one LMR's contents ---------------------------------------- */

enum buf_kind { BUF_MALLOC, BUF_ZEROCOPY, BUF_UNALIGNED, NR_BUF_KINDS };

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

/* An LMR under test and what it should hold. */
struct lmr {
	const char	*name;
	unsigned int	node;
	uint64_t	size;
	int		lh;
	uint8_t		*mirror;
};

struct data_test {
	unsigned int	me;
	unsigned int	node;
	unsigned int	other;		/* 0: none */
	bool		big;
	struct rng	rng;
	struct lmr	main;		/* DATA_LMR_SIZE on node */
	struct lmr	copy;		/* COPY_LMR_SIZE on node */
	struct lmr	far;		/* COPY_LMR_SIZE on other */
	uint8_t		*scratch;	/* DATA_LMR_SIZE, for reading back */
	uint8_t		*alloc[NR_BUF_KINDS];
	uint8_t		*buf[NR_BUF_KINDS];	/* MAX_IO bytes each */
};

/* A range of an LMR crossing a chunk boundary (size 1: touching one). */
static uint64_t pick_straddle(struct rng *r, uint64_t lmr_size, uint64_t size)
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
static bool lmr_verify(struct data_test *t, struct lmr *l, uint64_t off,
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

/* An alloc that must fail; a handle it returns anyway is freed. */
static void alloc_refused(unsigned int node, uint64_t size, unsigned int flags,
			  int want, const char *what)
{
	int ret = lite_alloc(node, size, flags, DATA_PASSWORD);

	expect(ret, want, "%s", what);
	if (ret > 0)
		lite_free(ret);
}

static void data_handle_errors(struct data_test *t)
{
	/* Random, so that runs on the same node do not collide. */
	uint64_t ident = rng_next(&t->rng);
	uint8_t *buf = t->buf[BUF_MALLOC];
	int lh, h2;

	expect(lite_read(0, 0, buf, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       ENOENT, "read handle 0");
	expect(lite_read(BAD_HANDLE, 0, buf, 64, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ENOENT,
	       "read handle %d", BAD_HANDLE);
	expect(lite_write(BAD_HANDLE, 0, buf, 64, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ENOENT, "write handle %d",
	       BAD_HANDLE);
	expect(lite_memset(BAD_HANDLE, 0, 0, 64), ENOENT, "memset handle %d",
	       BAD_HANDLE);
	expect(lite_memcpy(t->copy.lh, 0, BAD_HANDLE, 0, 64), ENOENT,
	       "memcpy from handle %d", BAD_HANDLE);
	expect(lite_memcpy(BAD_HANDLE, 0, t->copy.lh, 0, 64), ENOENT,
	       "memcpy to handle %d", BAD_HANDLE);
	expect(lite_lmr_info(BAD_HANDLE, NULL, NULL, NULL), ENOENT,
	       "lmr_info handle %d", BAD_HANDLE);
	expect(lite_publish(BAD_HANDLE, 1, LITE_PERM_READ, 1), ENOENT,
	       "publish handle %d", BAD_HANDLE);
	expect(lite_free(BAD_HANDLE), ENOENT, "free handle %d", BAD_HANDLE);
	expect(lite_unmap(BAD_HANDLE), ENOENT, "unmap handle %d", BAD_HANDLE);

	lh = lite_alloc(t->node, 4096, 0, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB to free")) {
		expect(lite_free(lh), 0, "free it");
		expect(lite_read(lh, 0, buf, 64, DATA_PASSWORD,
				 LITE_PRIO_NORMAL), ENOENT,
		       "read a freed handle");
		expect(lite_free(lh), ENOENT, "free a freed handle");
	}
	/*
	 * Unmapped: a second handle, asked. Unmapping an LMR's only handle
	 * would leave it allocated with no way left to free it.
	 */
	lh = lite_alloc(t->node, 4096, 0, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB to unmap a handle of") &&
	    step(lite_publish(lh, ident, LITE_PERM_READ, DATA_PASSWORD),
		 "publish it as 0x%llx", (unsigned long long)ident)) {
		h2 = lite_ask(t->node, ident, LITE_PERM_READ, DATA_PASSWORD);
		if (expect(h2, 0, "ask it: a second handle")) {
			expect(lite_unmap(h2), 0, "unmap the second handle");
			expect(lite_read(h2, 0, buf, 64, DATA_PASSWORD,
					 LITE_PRIO_NORMAL), ENOENT,
			       "read an unmapped handle");
			expect(lite_unmap(h2), ENOENT,
			       "unmap an unmapped handle");
			expect(lite_read(lh, 0, buf, 64, DATA_PASSWORD,
					 LITE_PRIO_NORMAL), 0,
			       "the first handle still reads");
		}
	}
	if (lh > 0)
		expect(lite_free(lh), 0, "free the LMR of the two handles");
	lh = lite_alloc(t->node, 4096, LITE_ALLOC_ATOMIC, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB atomic")) {
		unsigned int perm = 0;

		if (step(lite_lmr_info(lh, NULL, NULL, &perm),
			 "lmr_info of the atomic LMR")) {
			if (perm & LITE_PERM_ATOMIC)
				pass("the atomic LMR has LITE_PERM_ATOMIC");
			else
				fail("the atomic LMR has LITE_PERM_ATOMIC: "
				     "perm 0x%x", perm);
		}
		expect(lite_free(lh), 0, "free the atomic LMR");
	}
}

static void data_range_errors(struct data_test *t)
{
	struct lmr *l = &t->main;
	uint8_t *buf = t->buf[BUF_MALLOC];

	/* Mirror contents: a write that wrongly succeeds changes nothing. */
	memcpy(buf, l->mirror + l->size - CHUNK_SIZE, CHUNK_SIZE);
	expect(lite_read(l->lh, l->size - 10, buf, 11, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE, "read 11 B at size-10");
	expect(lite_write(l->lh, l->size, buf, 1, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ERANGE, "write 1 B at size");
	expect(lite_write(l->lh, l->size - CHUNK_SIZE, buf, CHUNK_SIZE + 1,
			  DATA_PASSWORD, LITE_PRIO_NORMAL), ERANGE,
	       "write 4 MiB+1 at size-4 MiB");
	expect(lite_read(l->lh, UINT64_MAX - 10, buf, 20, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE,
	       "read where offset+size overflows");
	expect(lite_write(l->lh, UINT64_MAX, buf, 1, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ERANGE, "write 1 B at 2^64-1");
	expect(lite_memset(l->lh, l->size - 1, 0, 2), ERANGE,
	       "memset past the end");
	expect(lite_memset(l->lh, UINT64_MAX - 1, 0, 4), ERANGE,
	       "memset where offset+size overflows");
	expect(lite_memcpy(t->copy.lh, 0, l->lh, l->size - 1, 2), ERANGE,
	       "memcpy from past the end");
	expect(lite_memcpy(t->copy.lh, t->copy.size - 1, l->lh, 0, 2), ERANGE,
	       "memcpy to past the end");
	expect(lite_memmove(l->lh, UINT64_MAX - 1, l->lh, 0, 4), ERANGE,
	       "memmove where offset+size overflows");

	alloc_refused(t->node, LITE_LMR_MAX_SIZE + 1, 0, EFBIG,
		      "alloc LITE_LMR_MAX_SIZE+1");
	alloc_refused(t->node, UINT64_MAX, 0, EFBIG, "alloc 2^64-1 B");
	alloc_refused(t->node, 0, 0, EINVAL, "alloc 0 B");
	alloc_refused(t->node, 4096, 0x80, EINVAL, "alloc with flag 0x80");
	alloc_refused(0, 4096, 0, EINVAL, "alloc on node 0");
	alloc_refused(64, 4096, 0, EINVAL, "alloc on node 64");
	if (t->me != NOT_A_MEMBER && t->node != NOT_A_MEMBER &&
	    t->other != NOT_A_MEMBER)
		alloc_refused(NOT_A_MEMBER, 4096, 0, ENOTCONN,
			      "alloc on node 63 (not a member)");

	expect(lite_read(l->lh, 0, buf, 64, DATA_PASSWORD + 1,
			 LITE_PRIO_NORMAL), EACCES,
	       "read with a wrong password");
	memcpy(buf, l->mirror, 64);
	expect(lite_write(l->lh, 0, buf, 64, DATA_PASSWORD + 1,
			  LITE_PRIO_NORMAL), EACCES,
	       "write with a wrong password");
	expect(lite_read(l->lh, 0, buf, 64, DATA_PASSWORD, 3), EINVAL,
	       "read with priority 3");
}

static void data_fault_errors(struct data_test *t)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct lmr *l = &t->main;
	uint64_t off;
	uint8_t *p;

	expect(lite_read(l->lh, 0, NULL, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "read into NULL");
	expect(lite_write(l->lh, 0, NULL, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "write from NULL");

	/* Three pages of mirror contents, then the middle one unmapped. */
	p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap 3 pages: %s", strerror(errno));
		return;
	}
	memcpy(p, l->mirror, 3 * page);
	munmap(p + page, page);
	expect(lite_write(l->lh, 0, p + page, 64, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), EFAULT,
	       "write from an unmapped page");
	expect(lite_read(l->lh, 0, p + page, 64, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), EFAULT,
	       "read into an unmapped page");
	expect(lite_write(l->lh, 0, p, 3 * page, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), EFAULT,
	       "write from a buffer with an unmapped middle page");
	expect(lite_read(l->lh, 0, p, 3 * page, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), EFAULT,
	       "read into a buffer with an unmapped middle page");
	munmap(p, page);
	munmap(p + 2 * page, page);

	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap a page: %s", strerror(errno));
		return;
	}
	rng_fill(&t->rng, p, page);
	mprotect(p, page, PROT_READ);
	off = pick_straddle(&t->rng, l->size, page);
	if (expect(lite_write(l->lh, off, p, page, DATA_PASSWORD,
			      LITE_PRIO_NORMAL), 0,
		   "write from a read-only page")) {
		memcpy(l->mirror + off, p, page);
		lmr_verify(t, l, off, page, 0, "read-only page's data landed");
	}
	expect(lite_read(l->lh, off, p, page, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "read into a read-only page");
	munmap(p, page);
}

/* What liblite does not let through: only the raw ioctl reaches it. */
static void data_raw_errors(struct data_test *t)
{
	struct lite_ioc_alloc a = {
		.node = t->node, .size = 4096, .password = DATA_PASSWORD,
	};
	struct lite_ioc_lmr_info info = { .reserved = 1 };
	struct lite_ioc_rw rw = {
		.password = DATA_PASSWORD, .size = 64, .reserved = 1,
	};
	struct lite_ioc_memset m = { .value = 256, .size = 64 };
	struct lite_ioc_publish pub = {
		.identifier = 1, .perm = LITE_PERM_READ, .reserved = 1,
	};
	struct lite_ioc_handle h = { .reserved = 1 };
	/* Each refused for its reserved field alone. */
	const struct {
		unsigned long	cmd;
		void		*arg;
		const char	*name;
	} reserved[] = {
		{ LITE_IOC_WRITE, &rw, "WRITE" },
		{ LITE_IOC_READ, &rw, "READ" },
		{ LITE_IOC_PUBLISH, &pub, "PUBLISH" },
		{ LITE_IOC_LMR_INFO, &info, "LMR_INFO" },
		{ LITE_IOC_UNMAP, &h, "UNMAP" },
		{ LITE_IOC_FREE, &h, "FREE" },
	};
	uint8_t buf[64];
	size_t i;
	int fd;

	/* A second open file of our own: handles belong to their file. */
	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail("open /dev/" LITE_DEV_NAME ": %s", strerror(errno));
		return;
	}
	if (!expect(raw_ioctl(fd, LITE_IOC_ALLOC, &a), 0,
		    "raw ALLOC 4 KiB on a second open file"))
		goto out;
	memset(buf, 0, sizeof(buf));
	rw.handle = m.handle = pub.handle = h.handle = info.handle = a.handle;
	rw.addr = (uintptr_t)buf;
	expect(raw_ioctl(fd, LITE_IOC_MEMSET, &m), EINVAL,
	       "raw MEMSET value 256");
	m.value = UINT32_MAX;
	expect(raw_ioctl(fd, LITE_IOC_MEMSET, &m), EINVAL,
	       "raw MEMSET value 0xffffffff");
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		expect(raw_ioctl(fd, reserved[i].cmd, reserved[i].arg), EINVAL,
		       "raw %s reserved != 0", reserved[i].name);
	/* The handle was fine all along: only the reserved fields were not. */
	rw.reserved = 0;
	expect(raw_ioctl(fd, LITE_IOC_READ, &rw), 0,
	       "raw READ with the same handle, reserved 0");
	h.reserved = 0;
	expect(raw_ioctl(fd, LITE_IOC_FREE, &h), 0, "raw FREE it");
out:
	close(fd);
}

/* LITE_LMR_MAX_SIZE: its first and last 4 KiB. */
static void data_big(struct data_test *t)
{
	uint64_t size = LITE_LMR_MAX_SIZE;
	uint8_t *out = t->buf[BUF_MALLOC], *in = t->scratch;
	uint64_t offs[2] = { size - 4096, 0 };
	int i, lh;

	lh = lite_alloc(t->node, size, 0, DATA_PASSWORD);
	if (!expect(lh, 0, "alloc LITE_LMR_MAX_SIZE (1 GiB) on node %u",
		    t->node))
		return;
	for (i = 0; i < 2; i++) {
		rng_fill(&t->rng, out, 4096);
		if (!step(lite_write(lh, offs[i], out, 4096, DATA_PASSWORD,
				     LITE_PRIO_NORMAL),
			  "1 GiB LMR: write 4 KiB at 0x%llx",
			  (unsigned long long)offs[i]))
			continue;
		memset(in, 0, 4096);
		if (!step(lite_read(lh, offs[i], in, 4096, DATA_PASSWORD,
				    LITE_PRIO_NORMAL),
			  "1 GiB LMR: read 4 KiB at 0x%llx",
			  (unsigned long long)offs[i]))
			continue;
		expect_bytes(in, out, 4096, offs[i], "1 GiB LMR: 4 KiB at %s",
			     offs[i] ? "its very end" : "offset 0");
	}
	expect(lite_read(lh, size - 4095, in, 4096, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE,
	       "1 GiB LMR: read 4 KiB one byte past the end");
	expect(lite_free(lh), 0, "free the 1 GiB LMR");
}

static int cmd_data(unsigned int node, unsigned int other, uint64_t seed,
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

/* ---- share / ask: publication and permissions across nodes ------------ */

/* The published LMR's contents, known to both sides from ID alone. */
static void share_pattern(uint64_t id, uint8_t *buf)
{
	struct rng r = { .state = id ^ 0x6c6974652d6c6d72ULL };

	rng_fill(&r, buf, SHARE_SIZE);
}

/* The next line from the script, or exit 2 if it is not @want. */
static void wait_for(const char *want)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "test_lmr: stdin closed, expected '%s'\n",
			want);
		exit(2);
	}
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, want)) {
		fprintf(stderr, "test_lmr: expected '%s' on stdin, got '%s'\n",
			want, line);
		exit(2);
	}
}

static int cmd_share(unsigned int node, uint64_t id)
{
	uint8_t *pattern = malloc(SHARE_SIZE), *in = malloc(SHARE_SIZE);
	char line[64];
	unsigned int p;
	int me, lh;

	if (!pattern || !in) {
		fail("malloc: %s", strerror(errno));
		return finish();
	}
	me = lite_node_id();
	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return finish();
	if ((unsigned int)me != node) {
		fprintf(stderr, "test_lmr: share runs on node %u, this is "
			"node %d\n", node, me);
		return 2;
	}
	lh = lite_alloc(me, SHARE_SIZE, 0, SHARE_LMR_PASSWORD);
	if (!expect(lh, 0, "alloc 1 MiB on this node to share"))
		return finish();
	share_pattern(id, pattern);
	if (!expect(lite_write(lh, 0, pattern, SHARE_SIZE, SHARE_LMR_PASSWORD,
			       LITE_PRIO_NORMAL), 0,
		    "fill it with the pattern of ID %llu",
		    (unsigned long long)id) ||
	    !step(lite_read(lh, 0, in, SHARE_SIZE, SHARE_LMR_PASSWORD,
			    LITE_PRIO_NORMAL), "read it back") ||
	    !expect_bytes(in, pattern, SHARE_SIZE, 0, "it holds the pattern"))
		return finish();
	for (p = 1; p <= PERM_RWS; p++)
		expect(lite_publish(lh, id + p, p, PUB_PASSWORD(p)), 0,
		       "publish as ID+%u with %s, password %d", p,
		       perm_name(p), PUB_PASSWORD(p));
	expect(lite_publish(lh, id + 1, LITE_PERM_READ, PUB_PASSWORD(1)),
	       EEXIST, "publish as ID+1 again");
	if (nr_failures())
		return finish();

	puts("ready");
	wait_for("revoke");
	expect(lite_free(lh), 0, "free the published LMR");
	expect(lite_read(lh, 0, in, 64, SHARE_LMR_PASSWORD, LITE_PRIO_NORMAL),
	       ENOENT, "read the freed handle");
	puts("revoked");
	while (fgets(line, sizeof(line), stdin))
		;
	free(pattern);
	free(in);
	return finish();
}

struct ask_test {
	unsigned int	node;		/* the publisher */
	uint64_t	id;
	int		local;		/* an LMR on this node, for memcpy */
	uint8_t		*pattern;
	uint8_t		buf[4096];
	uint8_t		marker[512];
};

/* Can @h's write of the marker at @slot be seen? Through @h or a reader. */
static void ask_check_marker(struct ask_test *t, int h, unsigned int p,
			     unsigned int q, uint64_t slot, const char *label)
{
	int reader = h;

	if (!(q & LITE_PERM_READ)) {
		if (!(p & LITE_PERM_READ))
			return;	/* nobody may read this publication */
		reader = lite_ask(t->node, t->id + p, LITE_PERM_READ,
				  PUB_PASSWORD(p));
		if (!step(reader, "%s: ask READ to check the write", label))
			return;
	}
	if (step(lite_read(reader, slot, t->buf, sizeof(t->marker),
			   PUB_PASSWORD(p), LITE_PRIO_NORMAL),
		 "%s: read the written slot back", label))
		expect_bytes(t->buf, t->marker, sizeof(t->marker), slot,
			     "%s: the write landed", label);
	if (reader != h)
		lite_unmap(reader);
}

/* Ask publication ID+p for q (a subset of p) and use the handle. */
static void ask_case(struct ask_test *t, unsigned int p, unsigned int q)
{
	bool r = q & LITE_PERM_READ, w = q & LITE_PERM_WRITE;
	uint64_t off = 4096 * (p * 8 + q);
	uint64_t slot = SHARE_SCRATCH + SHARE_SLOT * (p * 8 + q);
	uint64_t repub = t->id + p * 8 + q;
	struct rng rng = { .state = t->id * 64 + p * 8 + q };
	unsigned int node, perm, extra;
	char label[64];
	uint64_t size;
	int h, h2, ret;

	snprintf(label, sizeof(label), "ID+%u (%s) asked %s", p, perm_name(p),
		 perm_name(q));
	h = lite_ask(t->node, t->id + p, q, PUB_PASSWORD(p));
	if (!expect(h, 0, "%s", label))
		return;

	if (step(lite_lmr_info(h, &node, &size, &perm), "%s: lmr_info",
		 label)) {
		if (node == t->node && size == SHARE_SIZE && perm == q)
			pass("%s: lmr_info: node %u, 1 MiB, %s", label, node,
			     perm_name(q));
		else
			fail("%s: lmr_info: want node %u, 1 MiB, %s; got node "
			     "%u, %llu B, perm 0x%x", label, t->node,
			     perm_name(q), node, (unsigned long long)size,
			     perm);
	}

	ret = lite_read(h, off, t->buf, 4096, PUB_PASSWORD(p),
			LITE_PRIO_NORMAL);
	if (expect(ret, r ? 0 : EPERM, "%s: read", label) && r)
		expect_bytes(t->buf, t->pattern + off, 4096, off,
			     "%s: read sees the publisher's data", label);
	if (r)
		expect(lite_read(h, off, t->buf, 64, WRONG_PASSWORD,
				 LITE_PRIO_NORMAL), EACCES,
		       "%s: read with a wrong password", label);

	rng_fill(&rng, t->marker, sizeof(t->marker));
	ret = lite_write(h, slot, t->marker, sizeof(t->marker),
			 PUB_PASSWORD(p), LITE_PRIO_NORMAL);
	if (expect(ret, w ? 0 : EPERM, "%s: write", label) && w)
		ask_check_marker(t, h, p, q, slot, label);
	if (w)
		expect(lite_write(h, slot, t->marker, 64, WRONG_PASSWORD,
				  LITE_PRIO_NORMAL), EACCES,
		       "%s: write with a wrong password", label);
	expect(lite_memset(h, slot + 512, 0x5a, 256), w ? 0 : EPERM,
	       "%s: memset", label);
	expect(lite_memcpy(h, slot + 768, t->local, 0, 64), w ? 0 : EPERM,
	       "%s: memcpy into it", label);
	ret = lite_memcpy(t->local, 0, h, off, 4096);
	if (expect(ret, r ? 0 : EPERM, "%s: memcpy out of it", label) && r &&
	    step(lite_read(t->local, 0, t->buf, 4096, SHARE_LMR_PASSWORD,
			   LITE_PRIO_NORMAL), "%s: read the local copy", label))
		expect_bytes(t->buf, t->pattern + off, 4096, 0,
			     "%s: memcpy copied the publisher's data", label);

	ret = lite_publish(h, repub, q, REPUB_PASSWORD(p, q));
	if (expect(ret, q & LITE_PERM_SHARE ? 0 : EPERM, "%s: republish",
		   label) && (q & LITE_PERM_SHARE)) {
		h2 = lite_ask(t->node, repub, q, REPUB_PASSWORD(p, q));
		if (expect(h2, 0, "%s: ask the republication", label))
			lite_unmap(h2);
		/* ADMIN is never published (EINVAL): take a bit q lacks. */
		extra = !r ? LITE_PERM_READ :
			!w ? LITE_PERM_WRITE : LITE_PERM_ATOMIC;
		expect(lite_publish(h, repub + 64, q | extra,
				    REPUB_PASSWORD(p, q)), EPERM,
		       "%s: republish as %s", label, perm_name(q | extra));
	}

	expect(lite_free(h), EPERM, "%s: free without ADMIN", label);
	if (expect(lite_unmap(h), 0, "%s: unmap", label))
		expect(lite_read(h, off, t->buf, 64, PUB_PASSWORD(p),
				 LITE_PRIO_NORMAL), ENOENT,
		       "%s: read after unmap", label);
}

static void ask_refusals(struct ask_test *t, unsigned int p)
{
	static const unsigned int bits[] = {
		LITE_PERM_READ, LITE_PERM_WRITE, LITE_PERM_SHARE,
		LITE_PERM_ADMIN, LITE_PERM_ATOMIC,
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (p & bits[i])
			continue;
		ret = lite_ask(t->node, t->id + p, p | bits[i],
			       PUB_PASSWORD(p));
		expect(ret, EPERM, "ID+%u (%s) asked %s", p, perm_name(p),
		       perm_name(p | bits[i]));
		drop_handle(ret);
	}
	ret = lite_ask(t->node, t->id + p, p, WRONG_PASSWORD);
	expect(ret, EACCES, "ID+%u (%s) asked with a wrong password", p,
	       perm_name(p));
	drop_handle(ret);
}

static int cmd_ask(unsigned int node, uint64_t id)
{
	struct ask_test t = { .node = node, .id = id };
	unsigned int p, q;
	int me, keep, ret;

	t.pattern = malloc(SHARE_SIZE);
	if (!t.pattern) {
		fail("malloc: %s", strerror(errno));
		return finish();
	}
	share_pattern(id, t.pattern);
	me = lite_node_id();
	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return finish();
	t.local = lite_alloc(me, 64 * KiB, 0, SHARE_LMR_PASSWORD);
	if (!expect(t.local, 0, "alloc 64 KiB on this node"))
		return finish();

	for (p = 1; p <= PERM_RWS; p++) {
		for (q = 1; q <= p; q++)
			if ((q & p) == q)
				ask_case(&t, p, q);
		ask_refusals(&t, p);
	}
	ret = lite_ask(node, id, LITE_PERM_READ, PUB_PASSWORD(0));
	/* Same answer as a wrong password: asking reveals nothing. */
	expect(ret, EACCES, "ask ID+0, never published");
	drop_handle(ret);
	ret = lite_ask(0, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	expect(ret, EINVAL, "ask on node 0");
	drop_handle(ret);

	keep = lite_ask(node, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	if (!expect(keep, 0, "ask ID+1 READ to keep") ||
	    !step(lite_read(keep, 0, t.buf, 4096, PUB_PASSWORD(1),
			    LITE_PRIO_NORMAL), "read through the kept handle"))
		return finish();
	puts("mapped");
	wait_for("check-revoked");
	expect(lite_read(keep, 0, t.buf, 4096, PUB_PASSWORD(1),
			 LITE_PRIO_NORMAL), EKEYREVOKED,
	       "read after the owner freed the LMR");
	ret = lite_ask(node, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	expect(ret, EACCES, "ask ID+1 after the owner freed the LMR");
	drop_handle(ret);
	expect(lite_unmap(keep), 0, "unmap the revoked handle");
	expect(lite_free(t.local), 0, "free the local LMR");
	free(t.pattern);
	return finish();
}

/* ---- command line ------------------------------------------------------ */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_lmr data NODE [OTHER_NODE] [--seed N] [--big]\n"
		"       test_lmr share NODE ID    (on node NODE)\n"
		"       test_lmr ask NODE ID      (on another node)\n"
		"\n"
		"  data   contents, copies and errors of LMRs on NODE (and a\n"
		"         copy to OTHER_NODE); --big adds a 1 GiB LMR\n"
		"  share  publish a 1 MiB LMR as ID+1..ID+7; prints 'ready',\n"
		"         frees it on 'revoke' and prints 'revoked'\n"
		"  ask    ask every publication of share with every subset of\n"
		"         its permissions; prints 'mapped', then checks on\n"
		"         'check-revoked' that its handle was revoked\n");
}

/* The command's operands, after the options. */
#define NODE(i)		parse_num(argv[optind + (i)], "NODE", 0, UINT_MAX)
#define ID(i)		parse_num(argv[optind + (i)], "ID", 0, UINT64_MAX - 255)

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "big", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	bool big = false, seeded = false;
	const char *cmd;
	int c, nargs;

	check_start("test_lmr", usage);
	while ((c = getopt_long(argc, argv, "s:bh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = parse_num(optarg, "seed", 0, UINT64_MAX);
			seeded = true;
			break;
		case 'b':
			big = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	nargs = argc - optind;
	cmd = nargs ? argv[optind] : "";
	if (!strcmp(cmd, "data") && (nargs == 2 || nargs == 3))
		return cmd_data(NODE(1), nargs == 3 ?
				parse_num(argv[optind + 2], "OTHER_NODE", 0,
					  UINT_MAX) : 0,
				seed, big);
	if ((seeded || big) || nargs != 3) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "share"))
		return cmd_share(NODE(1), ID(2));
	if (!strcmp(cmd, "ask"))
		return cmd_ask(NODE(1), ID(2));
	usage(stderr);
	return 2;
}
