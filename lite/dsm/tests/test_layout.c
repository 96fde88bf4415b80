// SPDX-License-Identifier: GPL-2.0
/*
 * lite_dsm's placement and write-back gathering (../layout.h), in user
 * space: the same code the module runs, checked against plain models.
 *
 *  - placement: every page of regions of many sizes on 1..16 homes has one
 *    place; each home's pages fill its LMR (dsm_home_pages()) from 0
 *    without a hole or overlap; the pages of a block are consecutive in
 *    one LMR, each block starting at a multiple of the block size;
 *  - write-back: nodes that fetched pages from simulated homes change
 *    bytes (whole pages, scattered bytes, bytes rewritten with the value
 *    they had, false sharing: another node changed other bytes of the
 *    same pages at the home meanwhile); the writes dsm_wb_page() produces
 *    are applied to the homes. Every byte of every write is one the node
 *    changed (never a byte equal to the twin), no byte is written twice,
 *    no write crosses a block, every changed byte is written, the other
 *    node's bytes survive, and with pages in order the number of writes is
 *    the number of runs of changed bytes per block: neighbours joined;
 *  - the same write-backs through dsm_wb_block() (../diff.h) with DIFF
 *    messages, for every block and by the module's policy (a block of
 *    more than 16 writes goes by DIFF), in messages of many sizes: each
 *    message passes the home's check and is applied there, with the same
 *    checks on every byte as for writes; a block of few writes still goes
 *    by writes;
 *  - DIFF encoding: decode(encode(runs)) changes exactly the runs' bytes;
 *    a full message refuses a run and stays as it was; and hostile
 *    messages (truncated, overlong, counts or lengths that do not match,
 *    empty, out-of-order or overlapping runs, runs beyond the LMR or past
 *    32 bits, random corruption) are refused with nothing applied.
 *
 * Built and run by tests/unit/dsm-layout. Exit status 0: all passed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#include "../layout.h"
#include "../diff.h"
#include "host_alloc.h"

#define PG DSM_PAGE_BYTES
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static unsigned long checks, failures;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		if (failures++ < 20) {					\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	}								\
} while (0)

static u64 rng = 0x2545f4914f6cdd1dULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Placement ------------------------------------------------------------ */

static void check_region(u64 npages, u32 nr_homes)
{
	u64 *pages = xcalloc(nr_homes, sizeof(*pages));
	u8 **used = xcalloc(nr_homes, sizeof(*used));
	u64 total = 0, p, slot, n;
	struct dsm_place pl, prev = { 0, 0 };
	u32 h;

	for (h = 0; h < nr_homes; h++) {
		pages[h] = dsm_home_pages(npages, nr_homes, h);
		used[h] = xcalloc(pages[h], 1);
		total += pages[h];
	}
	CHECK(total == npages, "%llu pages on %u homes: the homes hold %llu",
	      (unsigned long long)npages, nr_homes, (unsigned long long)total);
	for (p = 0; p < npages; p++) {
		pl = dsm_place(p, nr_homes);
		slot = pl.off / PG;
		CHECK(pl.home < nr_homes && pl.off % PG == 0 &&
		      slot < pages[pl.home < nr_homes ? pl.home : 0],
		      "%llu pages, %u homes: page %llu at home %u offset %llu, outside its LMR",
		      (unsigned long long)npages, nr_homes,
		      (unsigned long long)p, pl.home,
		      (unsigned long long)pl.off);
		if (pl.home >= nr_homes || slot >= pages[pl.home])
			continue;
		CHECK(!used[pl.home][slot], "%llu pages, %u homes: page %llu shares its place",
		      (unsigned long long)npages, nr_homes,
		      (unsigned long long)p);
		used[pl.home][slot] = 1;
		if (p % DSM_BLOCK_PAGES)
			CHECK(pl.home == prev.home && pl.off == prev.off + PG,
			      "page %llu does not follow page %llu in its block's LMR",
			      (unsigned long long)p, (unsigned long long)p - 1);
		else
			CHECK(pl.off % DSM_BLOCK_BYTES == 0 &&
			      pl.home == (p / DSM_BLOCK_PAGES) % nr_homes,
			      "block of page %llu: home %u offset %llu",
			      (unsigned long long)p, pl.home,
			      (unsigned long long)pl.off);
		prev = pl;
	}
	for (h = 0; h < nr_homes; h++) {
		for (n = 0, slot = 0; slot < pages[h]; slot++)
			n += used[h][slot];
		CHECK(n == pages[h], "%llu pages, %u homes: home %u has %llu of its %llu pages used",
		      (unsigned long long)npages, nr_homes, h,
		      (unsigned long long)n, (unsigned long long)pages[h]);
		free(used[h]);
	}
	free(used);
	free(pages);
}

static void check_placement(void)
{
	static const u64 sizes[] = {
		1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 255,
		256, 257, 1000, 4095, 4096, 4097, 10007,
	};
	u64 npages, total, most;
	u32 nr, h, i;

	for (nr = 1; nr <= 16; nr++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			check_region(sizes[i], nr);
		/* Around every multiple of a block per home. */
		for (i = 1; i <= 4; i++) {
			npages = (u64)i * DSM_BLOCK_PAGES * nr;
			check_region(npages - 1, nr);
			check_region(npages, nr);
			check_region(npages + 1, nr);
		}
		for (i = 0; i < 20; i++)
			check_region(1 + rnd() % 3000, nr);
	}
	/* The largest regions: sizes only (16 GiB of pages, 1 GiB a home). */
	for (nr = 1; nr <= 16; nr++) {
		npages = (16ULL << 30) / PG - rnd() % 100;
		for (total = 0, most = 0, h = 0; h < nr; h++) {
			u64 n = dsm_home_pages(npages, nr, h);

			total += n;
			most = n > most ? n : most;
		}
		CHECK(total == npages, "%llu pages on %u homes: %llu held",
		      (unsigned long long)npages, nr,
		      (unsigned long long)total);
		CHECK(most == dsm_home_pages(npages, nr, 0),
		      "%u homes: home 0 is not the fullest", nr);
		CHECK(most - npages / nr <= DSM_BLOCK_PAGES,
		      "%u homes: %llu pages on one home, %llu on average",
		      nr, (unsigned long long)most,
		      (unsigned long long)(npages / nr));
		/* The last page's place: no overflow. */
		CHECK(dsm_place(npages - 1, nr).off / PG <
		      dsm_home_pages(npages, nr, dsm_place(npages - 1, nr).home),
		      "%u homes: the last page outside its LMR", nr);
	}
}

/* Write-back ----------------------------------------------------------- */

struct sim {
	u64	npages;
	u32	nr_homes;
	u8	**home;		/* each home's LMR */
	u8	**home_was;	/* as the node fetched it */
	u8	**written;	/* bytes written by the node's write-back */
	u8	*now;		/* the node's copy of the region */
	u8	*was;		/* its twins */
	u64	writes;
	struct dsm_diff	*diffs;	/* each home's DIFF being encoded */
	u8	*refused;	/* homes without DIFF (their runs by writes) */
	u64	msgs;		/* DIFFs sent */
	u64	diff_runs;	/* runs applied from them */
	u32	home_now;	/* the home a DIFF is applied at */
};

/* Byte @off of home @home's LMR: which byte of the region it holds. */
static u64 sim_region_byte(const struct sim *s, u32 home, u64 off)
{
	u64 slot = off / PG, block = slot / DSM_BLOCK_PAGES * s->nr_homes + home;

	return (block * DSM_BLOCK_PAGES + slot % DSM_BLOCK_PAGES) * PG + off % PG;
}

/* dsm_wb_send_t: check @wb, then apply it from the node's pages. */
static void sim_send(const struct dsm_wb *wb, void *arg)
{
	struct sim *s = arg;
	u64 at = wb->idx * PG + wb->start, i, idx;
	struct dsm_place pl;
	u64 size;

	s->writes++;
	CHECK(wb->len > 0 && wb->len <= DSM_BLOCK_BYTES &&
	      wb->off / DSM_BLOCK_BYTES ==
	      (wb->off + wb->len - 1) / DSM_BLOCK_BYTES,
	      "write of %u bytes at %llu crosses a block", wb->len,
	      (unsigned long long)wb->off);
	CHECK(wb->home < s->nr_homes && wb->start < PG &&
	      at + wb->len <= s->npages * PG,
	      "write outside the region: home %u page %llu +%u, %u bytes",
	      wb->home, (unsigned long long)wb->idx, wb->start, wb->len);
	if (wb->home >= s->nr_homes || at + wb->len > s->npages * PG)
		return;
	size = dsm_home_pages(s->npages, s->nr_homes, wb->home) * PG;
	CHECK(wb->off + wb->len <= size, "write past home %u's LMR", wb->home);
	for (i = 0; i < wb->len; i++) {
		idx = (at + i) / PG;
		pl = dsm_place(idx, s->nr_homes);
		/* The byte's own place is where the write puts it. */
		CHECK(pl.home == wb->home &&
		      pl.off + (at + i) % PG == wb->off + i,
		      "byte %llu of the region written at home %u offset %llu, its place is home %u offset %llu",
		      (unsigned long long)(at + i), wb->home,
		      (unsigned long long)(wb->off + i), pl.home,
		      (unsigned long long)(pl.off + (at + i) % PG));
		CHECK(s->now[at + i] != s->was[at + i],
		      "byte %llu written, unchanged (%#x)",
		      (unsigned long long)(at + i), s->now[at + i]);
		CHECK(!s->written[wb->home][wb->off + i],
		      "byte %llu written twice", (unsigned long long)(at + i));
		s->written[wb->home][wb->off + i] = 1;
		s->home[wb->home][wb->off + i] = s->now[at + i];
	}
}

/* dsm_diff_apply_t at the home: the checks of sim_send(), per byte. */
static int sim_apply(u64 off, const u8 *data, u32 len, void *arg)
{
	struct sim *s = arg;
	u32 h = s->home_now;
	u64 size = dsm_home_pages(s->npages, s->nr_homes, h) * PG, b, i;
	struct dsm_place pl;

	s->diff_runs++;
	CHECK(len && off + len <= size, "DIFF run of %u bytes at %llu, past home %u's %llu",
	      len, (unsigned long long)off, h, (unsigned long long)size);
	if (!len || off + len > size)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		b = sim_region_byte(s, h, off + i);
		pl = dsm_place(b / PG, s->nr_homes);
		CHECK(b < s->npages * PG && pl.home == h &&
		      pl.off + b % PG == off + i,
		      "home %u offset %llu: no byte of the region",
		      h, (unsigned long long)(off + i));
		if (b >= s->npages * PG)
			return -EINVAL;
		CHECK(data[i] == s->now[b], "byte %llu: %#x in the DIFF, %#x in the page",
		      (unsigned long long)b, data[i], s->now[b]);
		CHECK(s->now[b] != s->was[b], "byte %llu in a DIFF, unchanged (%#x)",
		      (unsigned long long)b, s->now[b]);
		CHECK(!s->written[h][off + i], "byte %llu written twice",
		      (unsigned long long)b);
		s->written[h][off + i] = 1;
		s->home[h][off + i] = data[i];
	}
	return 0;
}

/* dsm_wb_ops.diff */
static struct dsm_diff *sim_diff(u32 home, void *arg)
{
	struct sim *s = arg;

	CHECK(home < s->nr_homes, "a DIFF for home %u of %u", home,
	      s->nr_homes);
	return home < s->nr_homes && !s->refused[home] ? &s->diffs[home] :
	       NULL;
}

/* dsm_wb_ops.diff_send: what the home does with it (check all, apply). */
static void sim_diff_send(u32 home, struct dsm_diff *d, void *arg)
{
	struct sim *s = arg;
	u64 size = dsm_home_pages(s->npages, s->nr_homes, home) * PG, end = 0;
	int ret;

	s->msgs++;
	CHECK(d == &s->diffs[home] && d->runs && d->bytes <= d->cap,
	      "home %u: a DIFF of %u runs, %u of its %u bytes", home, d->runs,
	      d->bytes, d->cap);
	ret = dsm_diff_check(d->buf, d->bytes, d->runs, d->bytes, size, &end);
	CHECK(!ret && end == d->end, "home %u: a DIFF of %u runs refused: %d",
	      home, d->runs, ret);
	if (!ret) {
		s->home_now = home;
		ret = dsm_diff_apply(d->buf, d->bytes, sim_apply, s);
		CHECK(!ret, "home %u: applying a DIFF: %d", home, ret);
	}
	dsm_diff_init(d, d->buf, d->cap);
}

enum pattern {
	PAT_WHOLE,	/* every byte rewritten, new values */
	PAT_WORDS,	/* the integration test's words over zeros */
	PAT_SPARSE,	/* a few bytes here and there */
	PAT_SAME,	/* bytes written with the value they had */
	PAT_SHARED,	/* bytes i % 3 == 0, the other node i % 3 == 1 */
	PAT_EDGES,	/* the first and last bytes of pages */
	PAT_MIX,
	PAT_N,
};

static const char *const pat_name[PAT_N] = {
	"whole", "words", "sparse", "same", "shared", "edges", "mix",
};

/*
 * Runs of changed bytes of the pages in @dirty (sorted), per block: the
 * writes of the blocks of at most @max runs (all of them: ~0).
 */
static u64 model_runs(const struct sim *s, const u8 *dirty, u64 max)
{
	u64 runs = 0, block = 0, b;
	int in = 0;

	for (b = 0; b < s->npages * PG; b++) {
		int changed = dirty[b / PG] && s->now[b] != s->was[b];

		if (b % DSM_BLOCK_BYTES == 0) {
			runs += block <= max ? block : 0;
			block = 0;
			in = 0;
		}
		block += changed && !in;
		in = changed;
	}
	return runs + (block <= max ? block : 0);
}

/* By writes only: dsm_wb_block() without DIFF. */
#define SIM_WRITES	(-1)

/*
 * A node's write-back of @npages pages on @nr_homes homes, in pattern
 * @pat, pages given in order or not (@sorted), homes zero-filled or not;
 * @mode: SIM_WRITES, or the most writes a block goes by (the rest by
 * DIFFs of @cap bytes; some homes refusing DIFFs when @refuse).
 */
static void run_sim(u64 npages, u32 nr_homes, enum pattern pat, int sorted,
		    int zero_homes, int mode, u32 cap, int refuse)
{
	struct sim s = { .npages = npages, .nr_homes = nr_homes };
	u8 *dirty = xcalloc(npages, 1), *other = xcalloc(npages * PG, 1);
	u64 *order = xcalloc(npages, sizeof(*order)), nd = 0, i, j, b;
	const struct dsm_wb_ops ops = {
		.write = sim_send,
		.diff = mode == SIM_WRITES ? NULL : sim_diff,
		.diff_send = sim_diff_send,
	};
	const u8 *nowp[DSM_BLOCK_PAGES], *wasp[DSM_BLOCK_PAGES];
	u64 idx[DSM_BLOCK_PAGES];
	struct dsm_wb wb = { 0 };
	struct dsm_place pl;
	u32 h, n;
	enum pattern pp;

	s.home = xcalloc(nr_homes, sizeof(u8 *));
	s.home_was = xcalloc(nr_homes, sizeof(u8 *));
	s.written = xcalloc(nr_homes, sizeof(u8 *));
	s.diffs = xcalloc(nr_homes, sizeof(*s.diffs));
	s.refused = xcalloc(nr_homes, 1);
	for (h = 0; h < nr_homes; h++) {
		u64 size = dsm_home_pages(npages, nr_homes, h) * PG;

		s.home[h] = xcalloc(size, 1);
		s.home_was[h] = xcalloc(size, 1);
		s.written[h] = xcalloc(size, 1);
		for (i = 0; i < size && !zero_homes; i++)
			s.home[h][i] = (u8)rnd();
		dsm_diff_init(&s.diffs[h], xcalloc(cap, 1), cap);
		s.refused[h] = refuse && rnd() % 3 == 0;
	}
	s.now = xcalloc(npages * PG, 1);
	s.was = xcalloc(npages * PG, 1);
	/* The node fetches every page: twin and copy as the home has it. */
	for (i = 0; i < npages; i++) {
		pl = dsm_place(i, nr_homes);
		memcpy(s.was + i * PG, s.home[pl.home] + pl.off, PG);
		memcpy(s.now + i * PG, s.was + i * PG, PG);
	}
	for (h = 0; h < nr_homes; h++)
		memcpy(s.home_was[h], s.home[h],
		       dsm_home_pages(npages, nr_homes, h) * PG);
	/* Some pages are written, each in the pattern (or a random one). */
	for (i = 0; i < npages; i++) {
		if (pat != PAT_WHOLE && pat != PAT_WORDS && rnd() % 4 == 0)
			continue;
		dirty[i] = 1;
		pp = pat == PAT_MIX ? (enum pattern)(rnd() % PAT_MIX) : pat;
		for (j = 0; j < PG; j++) {
			b = i * PG + j;
			switch (pp) {
			case PAT_WHOLE:
				s.now[b] = (u8)(s.was[b] + 1 + rnd() % 255);
				break;
			case PAT_WORDS:
				if (j % 8 == 0) {
					u64 w = (b / 8 + 1) * 0x9e3779b97f4a7c15ULL;

					memcpy(s.now + b, &w, 8);
				}
				break;
			case PAT_SPARSE:
				if (rnd() % 97 == 0)
					s.now[b] = (u8)rnd();
				break;
			case PAT_SAME:
				if (rnd() % 2)
					s.now[b] = s.was[b];
				else if (rnd() % 5 == 0)
					s.now[b] = (u8)(s.was[b] ^ 0x40);
				break;
			case PAT_SHARED:
				if (j % 3 == 0)
					s.now[b] = (u8)rnd();
				else if (j % 3 == 1)
					other[b] = 1;
				break;
			case PAT_EDGES:
				if (j < 3 || j >= PG - 3)
					s.now[b] = (u8)~s.was[b];
				break;
			default:
				break;
			}
		}
	}
	/* Another node changed its bytes at the home meanwhile. */
	for (b = 0; b < npages * PG; b++) {
		if (!other[b])
			continue;
		pl = dsm_place(b / PG, nr_homes);
		s.home[pl.home][pl.off + b % PG] ^= 0xa5;
	}
	for (i = 0; i < npages; i++)
		if (dirty[i])
			order[nd++] = i;
	for (i = 0; nd && !sorted && i < nd; i++) {
		u64 k = rnd() % nd, t = order[i];

		order[i] = order[k];
		order[k] = t;
	}
	/* In order: a block's pages at once; else one by one. */
	for (i = 0; i < nd; i += n) {
		for (n = 0; i + n < nd && n < DSM_BLOCK_PAGES &&
		     (n == 0 || (sorted && order[i + n] / DSM_BLOCK_PAGES ==
				 order[i] / DSM_BLOCK_PAGES)); n++) {
			idx[n] = order[i + n];
			nowp[n] = s.now + idx[n] * PG;
			wasp[n] = s.was + idx[n] * PG;
		}
		dsm_wb_block(&wb, nr_homes, n, idx, nowp, wasp,
			     mode == SIM_WRITES ? 0 : (u32)mode, &ops, &s);
	}
	if (wb.len)
		sim_send(&wb, &s);
	for (h = 0; h < nr_homes; h++)
		if (s.diffs[h].runs)
			sim_diff_send(h, &s.diffs[h], &s);

	/* Every changed byte arrived; the others are the home's. */
	for (b = 0; b < npages * PG; b++) {
		u8 want, got;

		pl = dsm_place(b / PG, nr_homes);
		got = s.home[pl.home][pl.off + b % PG];
		if (dirty[b / PG] && s.now[b] != s.was[b])
			want = s.now[b];
		else
			want = (u8)(s.home_was[pl.home][pl.off + b % PG] ^
				    (other[b] ? 0xa5 : 0));
		CHECK(got == want, "%s, %u homes: byte %llu at the home is %#x, want %#x",
		      pat_name[pat], nr_homes, (unsigned long long)b, got,
		      want);
	}
	/*
	 * In order, with room for any run in a DIFF, and no home refusing:
	 * writes are the runs of the blocks of few, the others all went by
	 * DIFF.
	 */
	if (sorted && (mode == SIM_WRITES ||
		       (!refuse && cap >= PG + DSM_DIFF_RUN_HDR))) {
		u64 want = model_runs(&s, dirty, mode == SIM_WRITES ?
				      ~0ULL : (u64)mode);

		CHECK(s.writes == want,
		      "%s, %llu pages, %u homes, mode %d: %llu writes, %llu runs in blocks of few",
		      pat_name[pat], (unsigned long long)npages, nr_homes,
		      mode, (unsigned long long)s.writes,
		      (unsigned long long)want);
		CHECK(mode == SIM_WRITES ||
		      (s.msgs > 0) == (model_runs(&s, dirty, ~0ULL) > want),
		      "%s, mode %d: %llu DIFFs", pat_name[pat], mode,
		      (unsigned long long)s.msgs);
	}
	if (mode == SIM_WRITES)
		CHECK(!s.msgs, "%llu DIFFs without DIFF", (unsigned long long)s.msgs);
	if (pat == PAT_WHOLE && sorted && mode != 0)
		CHECK(s.writes == (npages + DSM_BLOCK_PAGES - 1) / DSM_BLOCK_PAGES,
		      "whole pages: %llu writes for %llu pages",
		      (unsigned long long)s.writes,
		      (unsigned long long)npages);
	for (h = 0; h < nr_homes; h++) {
		free(s.home[h]);
		free(s.home_was[h]);
		free(s.written[h]);
		free(s.diffs[h].buf);
	}
	free(s.diffs);
	free(s.refused);
	free(s.home);
	free(s.home_was);
	free(s.written);
	free(s.now);
	free(s.was);
	free(order);
	free(other);
	free(dirty);
}

static void check_writeback(void)
{
	static const u64 sizes[] = { 1, 2, 16, 17, 47, 48, 53, 100 };
	static const u32 homes[] = { 1, 2, 3, 4, 16 };
	unsigned int i, j;
	int pat;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		for (j = 0; j < ARRAY_SIZE(homes); j++)
			for (pat = 0; pat < PAT_N; pat++) {
				run_sim(sizes[i], homes[j], pat, 1, 0,
					SIM_WRITES, 0, 0);
				run_sim(sizes[i], homes[j], pat, 0, 0,
					SIM_WRITES, 0, 0);
				run_sim(sizes[i], homes[j], pat, 1, 1,
					SIM_WRITES, 0, 0);
			}
}

/*
 * The same through DIFFs: every block by DIFF (mode 0) and by the
 * module's policy (16), in messages of the module's size, of a few runs,
 * of less than a run (everything by writes), with homes refusing DIFFs.
 */
static void check_writeback_diff(void)
{
	static const u64 sizes[] = { 1, 2, 16, 17, 48, 53, 100 };
	static const u32 homes[] = { 1, 2, 3, 16 };
	static const u32 caps[] = {
		128 * 1024 - 256, 16 * DSM_BLOCK_BYTES, 4096 + 16, 600, 9,
	};
	unsigned int i, j, c;
	int pat;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		for (j = 0; j < ARRAY_SIZE(homes); j++)
			for (pat = 0; pat < PAT_N; pat++) {
				c = rnd() % ARRAY_SIZE(caps);
				run_sim(sizes[i], homes[j], pat, 1, 0, 0,
					caps[c], 0);
				run_sim(sizes[i], homes[j], pat, 1, 0, 16,
					16 * DSM_BLOCK_BYTES, 0);
				run_sim(sizes[i], homes[j], pat, 1, 1, 16,
					caps[c], 0);
				run_sim(sizes[i], homes[j], pat, 0, 0, 0,
					caps[c], 0);
				run_sim(sizes[i], homes[j], pat, 1, 0, 16,
					caps[c], 1);
			}
}

/* dsm_diff_next() against a byte-by-byte model, on random pages. */
static void check_diff(void)
{
	static u8 now[PG], was[PG];
	u32 pos, start, k, i, runs, model;
	int in;

	for (k = 0; k < 2000; k++) {
		for (i = 0; i < PG; i++) {
			was[i] = (u8)(k % 3 ? rnd() : 0);
			now[i] = was[i];
		}
		for (i = 0; i < (k * 37) % 600; i++)
			now[rnd() % PG] = (u8)rnd();
		if (k % 7 == 0)
			memset(now + rnd() % 2048, 0x3c, rnd() % 2048);
		runs = 0;
		pos = 0;
		for (;;) {
			u32 from = pos;

			start = dsm_diff_next(now, was, &pos);
			if (start >= PG)
				break;
			runs++;
			CHECK(start >= from && pos > start && pos <= PG,
			      "run [%u, %u) after %u", start, pos, from);
			for (i = from; i < start; i++)
				CHECK(now[i] == was[i], "byte %u skipped, changed", i);
			for (i = start; i < pos; i++)
				CHECK(now[i] != was[i], "byte %u in a run, unchanged", i);
			CHECK(pos == PG || now[pos] == was[pos],
			      "run ends at %u, before a changed byte", pos);
		}
		CHECK(pos == PG, "diff stopped at %u", pos);
		for (model = 0, in = 0, i = 0; i < PG; i++) {
			model += now[i] != was[i] && !in;
			in = now[i] != was[i];
		}
		CHECK(runs == model, "%u runs, the model %u", runs, model);
	}
}

/* DIFF encoding and the home's checks ---------------------------------- */

/* dsm_diff_apply_t into a plain buffer; @arg: struct lmr. */
struct lmr {
	u8	*mem;
	u64	size;
	u64	applied;	/* bytes */
};

static int lmr_apply(u64 off, const u8 *data, u32 len, void *arg)
{
	struct lmr *l = arg;

	CHECK(off + len <= l->size, "applied %u bytes at %llu, past %llu",
	      len, (unsigned long long)off, (unsigned long long)l->size);
	if (off + len > l->size)
		return -EINVAL;
	memcpy(l->mem + off, data, len);
	l->applied += len;
	return 0;
}

/* What a home does with a DIFF: check it all, then apply it. */
static int serve(const u8 *buf, u32 len, u32 runs, u32 bytes, struct lmr *l)
{
	u64 end = 0;
	int ret = dsm_diff_check(buf, len, runs, bytes, l->size, &end);

	if (ret)
		return ret;
	CHECK(end > 0 && end <= l->size, "accepted, ending at %llu of %llu",
	      (unsigned long long)end, (unsigned long long)l->size);
	return dsm_diff_apply(buf, bytes, lmr_apply, l);
}

/*
 * Random runs over an LMR of @size bytes, encoded into @d; @model gets
 * their bytes, @in marks them. Return: the runs given (before joining).
 */
static u32 encode_random(struct dsm_diff *d, u64 size, u8 *model, u8 *in,
			 u8 *data)
{
	u64 off = rnd() % 64;
	u32 given = 0, len, i;

	for (;;) {
		len = 1 + rnd() % (rnd() % 4 ? 16 : 3000);
		if (off + len > size || rnd() % 50 == 0)
			break;
		for (i = 0; i < len; i++)
			data[i] = (u8)rnd();
		if (!dsm_diff_add(d, off, data, len))
			break;
		memcpy(model + off, data, len);
		memset(in + off, 1, len);
		given++;
		/* Often right after the last: joined. */
		off += len + (rnd() % 3 ? rnd() % 40 : 0);
	}
	return given;
}

static void check_codec(void)
{
	static u8 data[4096];
	u32 k, given, cap, runs, i, j;
	u64 size, end, changed;
	struct dsm_diff d, before;
	u8 *buf, *base, *model, *in, *mem;
	struct lmr l;
	int ret;

	for (k = 0; k < 3000; k++) {
		size = 1 + rnd() % (k % 10 ? 20000 : 300000);
		cap = k % 3 ? 128 * 1024 - 256 : 9 + rnd() % 5000;
		buf = xcalloc(cap, 1);
		base = xcalloc(size, 1);
		model = xcalloc(size, 1);
		in = xcalloc(size, 1);
		mem = xcalloc(size, 1);	/* ASan: exactly the LMR */
		for (i = 0; i < size; i++)
			base[i] = (u8)rnd();
		memcpy(model, base, size);
		memcpy(mem, base, size);
		dsm_diff_init(&d, buf, cap);
		given = encode_random(&d, size, model, in, data);
		/* Runs are joined exactly when contiguous. */
		for (runs = 0, changed = 0, i = 0; i < size; i++) {
			runs += in[i] && (!i || !in[i - 1]);
			changed += in[i];
		}
		CHECK(d.runs == runs && runs <= given &&
		      d.bytes == runs * DSM_DIFF_RUN_HDR + changed &&
		      d.bytes <= cap,
		      "encoded %u runs in %u bytes; %u runs of %llu bytes given",
		      d.runs, d.bytes, runs, (unsigned long long)changed);
		/* A run that does not fit, or comes before the end, is refused. */
		before = d;
		if (d.runs) {
			CHECK(!dsm_diff_add(&d, d.end - 1, data, 1) &&
			      !memcmp(&d, &before, sizeof(d)),
			      "a run before the last one's end taken");
			CHECK(!dsm_diff_add(&d, d.end + 1, data,
					    cap - d.bytes - DSM_DIFF_RUN_HDR + 1) &&
			      !memcmp(&d, &before, sizeof(d)),
			      "a run past the room taken (%u of %u)", d.bytes,
			      cap);
			CHECK(!dsm_diff_add(&d, d.end, data, cap - d.bytes + 1) &&
			      !memcmp(&d, &before, sizeof(d)),
			      "a joined run past the room taken");
		}
		CHECK(!dsm_diff_add(&d, DSM_DIFF_OFF_LIMIT - 1, data, 2) &&
		      !dsm_diff_add(&d, d.end + 1, data, 0) &&
		      !memcmp(&d, &before, sizeof(d)),
		      "a run past 32 bits, or empty, taken");
		if (!d.runs)
			goto next;
		ret = dsm_diff_check(buf, d.bytes, d.runs, d.bytes, size, &end);
		CHECK(!ret && end == d.end, "a good DIFF refused: %d", ret);
		/* Exactly the runs' bytes change, to theirs. */
		l = (struct lmr) { .mem = mem, .size = size };
		ret = serve(buf, d.bytes, d.runs, d.bytes, &l);
		CHECK(!ret && l.applied == changed && !memcmp(mem, model, size),
		      "applying %u runs: %d, %llu of %llu bytes, %s", d.runs,
		      ret, (unsigned long long)l.applied,
		      (unsigned long long)changed,
		      memcmp(mem, model, size) ? "the LMR differs" : "");
		/* The LMR one byte short of the last run: refused, unchanged. */
		memcpy(mem, base, size);
		l = (struct lmr) { .mem = mem, .size = d.end - 1 };
		ret = serve(buf, d.bytes, d.runs, d.bytes, &l);
		CHECK(ret == -EINVAL && !l.applied && !memcmp(mem, base, size),
		      "a DIFF past the LMR: %d, %llu bytes applied", ret,
		      (unsigned long long)l.applied);
		for (j = 0; j < 2; j++) {
			/* Malformed: never applied. */
			u32 cut = 1 + rnd() % d.bytes;

			l = (struct lmr) { .mem = mem, .size = size };
			ret = serve(buf, d.bytes - cut, d.runs, d.bytes, &l);
			CHECK(ret == -EPROTO && !l.applied,
			      "truncated by %u, the header unchanged: %d", cut,
			      ret);
			ret = serve(buf, d.bytes - cut, d.runs, d.bytes - cut, &l);
			CHECK(ret == -EPROTO && !l.applied,
			      "truncated by %u of %u, the header too: %d", cut,
			      d.bytes, ret);
		}
		CHECK(!memcmp(mem, base, size), "a refused DIFF changed the LMR");
next:
		free(buf);
		free(base);
		free(model);
		free(in);
		free(mem);
	}
}

/* A message of runs given as (offset, length) pairs, bytes 0x5a. */
static u32 craft(u8 *buf, const u32 *runs, u32 n)
{
	u32 pos = 0, i;

	for (i = 0; i < n; i++) {
		dsm_diff_put32(buf + pos, runs[2 * i]);
		dsm_diff_put32(buf + pos + 4, runs[2 * i + 1]);
		pos += DSM_DIFF_RUN_HDR;
		if (runs[2 * i + 1] < 10000) {
			memset(buf + pos, 0x5a, runs[2 * i + 1]);
			pos += runs[2 * i + 1];
		}
	}
	return pos;
}

/* Hostile messages, at an LMR of 4096 bytes: refused, nothing applied. */
static void check_hostile(void)
{
	static const struct {
		const char	*what;
		u32		runs[8];	/* offset, length */
		u32		n;
		int		claim_runs;	/* the header: + this */
		int		claim_bytes;	/* the header: + this */
		int		len;		/* the message: + this */
		int		want;
	} cases[] = {
		{ "good", { 0, 1, 10, 5, 4000, 96 }, 3, 0, 0, 0, 0 },
		{ "no run", { 0 }, 0, 0, 0, 0, -EPROTO },
		{ "a run more claimed", { 0, 1, 10, 5 }, 2, 1, 0, 0, -EPROTO },
		{ "a run less claimed", { 0, 1, 10, 5 }, 2, -1, 0, 0, -EPROTO },
		{ "a byte more claimed", { 0, 1, 10, 5 }, 2, 0, 1, 0, -EPROTO },
		{ "a byte less claimed", { 0, 1, 10, 5 }, 2, 0, -1, 0, -EPROTO },
		{ "truncated data", { 0, 1, 10, 5 }, 2, 0, -1, -1, -EPROTO },
		{ "truncated header", { 0, 1, 10, 5 }, 2, 0, -9, -9, -EPROTO },
		{ "a trailing byte", { 0, 1, 10, 5 }, 2, 0, 1, 1, -EPROTO },
		{ "a trailing header", { 0, 1, 10, 5 }, 2, 0, 8, 8, -EPROTO },
		{ "empty run", { 0, 1, 10, 0, 20, 1 }, 3, 0, 0, 0, -EPROTO },
		{ "length past the message", { 0, 1, 10, 0xffffffff }, 2, 0, 0, 0, -EPROTO },
		{ "out of order", { 10, 5, 0, 1 }, 2, 0, 0, 0, -EPROTO },
		{ "overlapping", { 0, 20, 19, 5 }, 2, 0, 0, 0, -EPROTO },
		{ "the same twice", { 7, 3, 7, 3 }, 2, 0, 0, 0, -EPROTO },
		{ "one byte past the LMR", { 0, 1, 4000, 97 }, 2, 0, 0, 0, -EINVAL },
		{ "at the LMR's end", { 4096, 1 }, 1, 0, 0, 0, -EINVAL },
		{ "past 32 bits", { 0, 1, 0xffffffff, 2 }, 2, 0, 0, 0, -EINVAL },
		{ "the last byte of 32 bits", { 0xffffffff, 1 }, 1, 0, 0, 0, -EINVAL },
	};
	static u8 buf[65536], mem[4096], base[4096], copy[65536];
	u32 i, len, runs, bytes, k, at;
	struct lmr l;
	u64 end;
	int ret;

	for (i = 0; i < sizeof(base); i++)
		base[i] = (u8)rnd();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(buf, 0, sizeof(buf));
		len = craft(buf, cases[i].runs, cases[i].n);
		runs = cases[i].n + cases[i].claim_runs;
		bytes = len + cases[i].claim_bytes;
		len += cases[i].len;
		memcpy(mem, base, sizeof(mem));
		l = (struct lmr) { .mem = mem, .size = sizeof(mem) };
		ret = serve(buf, len, runs, bytes, &l);
		CHECK(ret == cases[i].want, "%s: %d, want %d", cases[i].what,
		      ret, cases[i].want);
		CHECK(ret ? !l.applied && !memcmp(mem, base, sizeof(mem)) :
		      l.applied == 102 && mem[0] == 0x5a && mem[1] == base[1] &&
		      mem[4095] == 0x5a && mem[3999] == base[3999],
		      "%s: %llu bytes applied", cases[i].what,
		      (unsigned long long)l.applied);
	}
	/* 32-bit sums would wrap: 64-bit ones do not, at any limit. */
	len = craft(buf, (const u32[]){ 0xffffffff, 2 }, 1);
	CHECK(dsm_diff_check(buf, len, 1, len, DSM_DIFF_OFF_LIMIT, &end) ==
	      -EINVAL, "a run across 2^32 accepted");
	CHECK(dsm_diff_check(buf, len, 1, len, ~0ULL, &end) == 0 &&
	      end == DSM_DIFF_OFF_LIMIT + 1, "a run at 2^32 - 1 misread");
	/*
	 * Random corruption of a good message: refused with nothing applied,
	 * or accepted and then only bytes of its runs changed, within the
	 * LMR (ASan: @mem is exactly its size).
	 */
	for (k = 0; k < 200000; k++) {
		u32 good[] = { 0, 1 + rnd() % 8, 100 + rnd() % 50, 1 + rnd() % 60,
			       1000, 1 + rnd() % 3000 };
		u8 *lmr = xcalloc(4096, 1);

		len = craft(buf, good, 3);
		runs = 3;
		bytes = len;
		for (i = 0; i < 1 + rnd() % 4; i++) {
			at = rnd() % len;
			buf[at] = rnd() % 2 ? (u8)rnd() : buf[at] ^ (u8)(1 << (rnd() % 8));
		}
		if (rnd() % 4 == 0)
			len = rnd() % (len + 20);
		if (rnd() % 8 == 0)
			runs = rnd() % 5;
		if (rnd() % 8 == 0)
			bytes = len + (u32)(rnd() % 3) - 1;
		memcpy(copy, buf, sizeof(copy));
		l = (struct lmr) { .mem = lmr, .size = 4096 };
		ret = serve(buf, len, runs, bytes, &l);
		if (ret) {
			for (i = 0; i < 4096 && !lmr[i]; i++)
				;
			CHECK(i == 4096 && !l.applied,
			      "corrupted: refused (%d) but byte %u applied", ret, i);
		} else {
			/* Accepted: every byte applied is one of its runs'. */
			u32 pos = 0, o, n;

			memset(base, 0, sizeof(base));
			while (pos < len) {
				o = dsm_diff_get32(copy + pos);
				n = dsm_diff_get32(copy + pos + 4);
				memcpy(base + o, copy + pos + 8, n);
				pos += 8 + n;
			}
			CHECK(!memcmp(lmr, base, 4096),
			      "corrupted, accepted: the LMR is not its runs");
		}
		free(lmr);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_placement();
	printf("placement: %lu checks, %lu failed\n", checks, failures);
	check_diff();
	printf("diff: %lu checks so far, %lu failed\n", checks, failures);
	/* The simulation trusts the placement: not on a wrong one. */
	if (!failures)
		check_writeback();
	printf("write-back: %lu checks so far, %lu failed\n", checks, failures);
	check_codec();
	printf("DIFF encoding: %lu checks so far, %lu failed\n", checks,
	       failures);
	check_hostile();
	printf("hostile DIFFs: %lu checks so far, %lu failed\n", checks,
	       failures);
	if (!failures)
		check_writeback_diff();
	printf("write-back by DIFF: %lu checks in all, %lu failed\n", checks,
	       failures);
	if (failures) {
		printf("FAIL: %lu of %lu checks\n", failures, checks);
		return 1;
	}
	printf("ok: layout.h, diff.h: %lu checks\n", checks);
	return 0;
}
