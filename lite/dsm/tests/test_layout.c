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
 *    the number of runs of changed bytes per block: neighbours joined.
 *
 * Built and run by tests/unit/dsm-layout. Exit status 0: all passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#include "../layout.h"

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

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
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
};

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

/* Runs of changed bytes of the pages in @dirty (sorted), per block. */
static u64 model_runs(const struct sim *s, const u8 *dirty)
{
	u64 runs = 0, b;
	int in = 0;

	for (b = 0; b < s->npages * PG; b++) {
		int changed = dirty[b / PG] && s->now[b] != s->was[b];

		if (b % DSM_BLOCK_BYTES == 0)
			in = 0;
		runs += changed && !in;
		in = changed;
	}
	return runs;
}

static void run_sim(u64 npages, u32 nr_homes, enum pattern pat, int sorted,
		    int zero_homes)
{
	struct sim s = { .npages = npages, .nr_homes = nr_homes };
	u8 *dirty = xcalloc(npages, 1), *other = xcalloc(npages * PG, 1);
	u64 *order = xcalloc(npages, sizeof(*order)), nd = 0, i, j, b;
	struct dsm_wb wb = { 0 };
	struct dsm_place pl;
	u32 h;
	enum pattern pp;

	s.home = xcalloc(nr_homes, sizeof(u8 *));
	s.home_was = xcalloc(nr_homes, sizeof(u8 *));
	s.written = xcalloc(nr_homes, sizeof(u8 *));
	for (h = 0; h < nr_homes; h++) {
		u64 size = dsm_home_pages(npages, nr_homes, h) * PG;

		s.home[h] = xcalloc(size, 1);
		s.home_was[h] = xcalloc(size, 1);
		s.written[h] = xcalloc(size, 1);
		for (i = 0; i < size && !zero_homes; i++)
			s.home[h][i] = (u8)rnd();
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
	for (i = 0; i < nd; i++)
		dsm_wb_page(&wb, order[i], nr_homes, s.now + order[i] * PG,
			    s.was + order[i] * PG, sim_send, &s);
	if (wb.len)
		sim_send(&wb, &s);

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
	if (sorted)
		CHECK(s.writes == model_runs(&s, dirty),
		      "%s, %llu pages, %u homes: %llu writes, %llu runs per block",
		      pat_name[pat], (unsigned long long)npages, nr_homes,
		      (unsigned long long)s.writes,
		      (unsigned long long)model_runs(&s, dirty));
	if (pat == PAT_WHOLE && sorted)
		CHECK(s.writes == (npages + DSM_BLOCK_PAGES - 1) / DSM_BLOCK_PAGES,
		      "whole pages: %llu writes for %llu pages",
		      (unsigned long long)s.writes,
		      (unsigned long long)npages);
	for (h = 0; h < nr_homes; h++) {
		free(s.home[h]);
		free(s.home_was[h]);
		free(s.written[h]);
	}
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
				run_sim(sizes[i], homes[j], pat, 1, 0);
				run_sim(sizes[i], homes[j], pat, 0, 0);
				run_sim(sizes[i], homes[j], pat, 1, 1);
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
	printf("write-back: %lu checks in all, %lu failed\n", checks, failures);
	if (failures) {
		printf("FAIL: %lu of %lu checks\n", failures, checks);
		return 1;
	}
	printf("ok: layout.h: %lu checks\n", checks);
	return 0;
}
