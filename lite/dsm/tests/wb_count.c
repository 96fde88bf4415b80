// SPDX-License-Identifier: GPL-2.0
/*
 * The LITE operations of the VM test's 256 MiB step on its writer
 * (tests/integration/lite-dsm, test_dsm big: words (i + 1) * 0x9e3779b97f4a7c15
 * written in order over a zero-filled region, then a barrier), counted
 * with the module's own placement, gathering and DIFF code (../layout.h,
 * ../diff.h) and page.c's schedule: a fault fetches the absent pages of
 * its block, max_cached_mb caps the cache (its clean pages evicted 32 at
 * least at a time, its dirty ones written back first when there is no
 * clean one), and the barrier writes back the rest. docs/dsm.md's table
 * of costs comes from it.
 *
 *   wb_count [MIB [NODES [DIFF_WRITES [CACHED_MB]]]]   (256 3 16 128)
 *
 * DIFF_WRITES 0: by RDMA writes only (diff_writes=0). The writer is node
 * 1, home 0 of the region: DIFFs to it are applied in place.
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

#define PG		DSM_PAGE_BYTES
/* dsm.h: DSM_MSG_MAX less the DIFF header (struct dsm_msg_diff). */
#define DIFF_CAP	(128 * 1024 - 256 - 80)
#define EVICT_BATCH	32

struct count {
	u32	nr_homes;
	u64	writes, write_bytes;
	u64	diffs_sent, diffs_here, diff_runs, diff_bytes;
	u64	reads, read_bytes, flushes;
	struct dsm_diff	*diffs;
};

static void count_write(const struct dsm_wb *wb, void *arg)
{
	struct count *c = arg;

	c->writes++;
	c->write_bytes += wb->len;
}

static struct dsm_diff *count_diff(u32 home, void *arg)
{
	return &((struct count *)arg)->diffs[home];
}

static void count_diff_send(u32 home, struct dsm_diff *d, void *arg)
{
	struct count *c = arg;

	if (home)
		c->diffs_sent++;
	else
		c->diffs_here++;
	c->diff_runs += d->runs;
	c->diff_bytes += d->bytes;
	dsm_diff_init(d, d->buf, d->cap);
}

/* Page @idx as the writer leaves it. */
static void fill(u8 *page, u64 idx)
{
	u64 i, w;

	for (i = 0; i < PG / 8; i++) {
		w = (idx * (PG / 8) + i + 1) * 0x9e3779b97f4a7c15ULL;
		memcpy(page + i * 8, &w, 8);
	}
}

enum { ABSENT, CLEAN, DIRTY };

struct cache {
	u64	npages, cap, cached;
	u8	*state;
	u64	*clean;		/* a FIFO of clean pages, oldest first */
	u64	head, tail;	/* may hold pages no longer clean */
	u64	*stamp, *queued;	/* to skip stale FIFO entries */
};

static void flush(struct cache *k, struct count *c, u32 max_writes)
{
	static const u8 zero[PG];
	static u8 pages[DSM_BLOCK_PAGES][PG];
	const struct dsm_wb_ops ops = {
		.write = count_write,
		.diff = max_writes ? count_diff : NULL,
		.diff_send = count_diff_send,
	};
	const u8 *now[DSM_BLOCK_PAGES], *was[DSM_BLOCK_PAGES];
	u64 idx[DSM_BLOCK_PAGES], p;
	struct dsm_wb wb = { 0 };
	u32 n = 0, h;

	c->flushes++;
	for (p = 0; p < k->npages; p++) {
		if (k->state[p] != DIRTY)
			continue;
		fill(pages[n], p);
		idx[n] = p;
		now[n] = pages[n];
		was[n] = zero;
		n++;
		k->state[p] = CLEAN;
		k->clean[k->tail++ % k->npages] = p;
		k->queued[p] = ++k->stamp[p];
		/* list_sort()ed: the dirty pages of a block come together. */
		if (n < DSM_BLOCK_PAGES) {
			u64 q = p + 1;

			while (q < k->npages && k->state[q] != DIRTY)
				q++;
			if (q < k->npages && q / DSM_BLOCK_PAGES ==
			    p / DSM_BLOCK_PAGES)
				continue;
		}
		dsm_wb_block(&wb, c->nr_homes, n, idx, now, was, max_writes,
			     &ops, c);
		n = 0;
	}
	if (wb.len)
		count_write(&wb, c);
	for (h = 0; h < c->nr_homes; h++)
		if (c->diffs[h].runs)
			count_diff_send(h, &c->diffs[h], c);
}

static bool clean_pop(struct cache *k, u64 *p)
{
	while (k->head != k->tail) {
		*p = k->clean[k->head++ % k->npages];
		if (k->state[*p] == CLEAN && k->queued[*p] == k->stamp[*p])
			return true;
	}
	return false;
}

static bool clean_any(struct cache *k)
{
	u64 p, h;

	for (h = k->head; h != k->tail; h++) {
		p = k->clean[h % k->npages];
		if (k->state[p] == CLEAN && k->queued[p] == k->stamp[p])
			return true;
	}
	return false;
}

static int make_room(struct cache *k, struct count *c, u64 n, u32 max_writes)
{
	u64 batch = n > EVICT_BATCH ? n : EVICT_BATCH, done = 0, p, q;
	bool dirty = false;

	if (k->cached + n <= k->cap)
		return 0;
	for (q = 0; q < k->npages && !dirty; q++)
		dirty = k->state[q] == DIRTY;
	if (!clean_any(k) && dirty)
		flush(k, c, max_writes);
	while (done < batch && clean_pop(k, &p)) {
		k->state[p] = ABSENT;
		k->cached--;
		done++;
	}
	return k->cached + n <= k->cap ? 0 : -ENOSPC;
}

static void fetch(struct cache *k, struct count *c, u64 lo, u64 hi)
{
	u64 p;

	c->reads++;
	c->read_bytes += (hi - lo) * PG;
	for (p = lo; p < hi; p++) {
		k->state[p] = CLEAN;
		k->clean[k->tail++ % k->npages] = p;
		k->queued[p] = ++k->stamp[p];
		k->cached++;
	}
}

int main(int argc, char **argv)
{
	u64 mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 256;
	u32 nodes = argc > 2 ? strtoul(argv[2], NULL, 0) : 3;
	u32 max_writes = argc > 3 ? strtoul(argv[3], NULL, 0) : 16;
	u64 cached_mb = argc > 4 ? strtoull(argv[4], NULL, 0) : 128;
	struct count c = { .nr_homes = nodes < 16 ? nodes : 16 };
	struct cache k = { .npages = mib << 20 >> 12 };
	u64 p, lo, hi, first, end;
	u32 h;

	if (!mib || !nodes) {
		fprintf(stderr, "usage: wb_count [MIB [NODES [DIFF_WRITES [CACHED_MB]]]]\n");
		return 2;
	}
	k.cap = cached_mb << 20 >> 12;
	k.state = xcalloc(k.npages, 1);
	k.clean = xcalloc(k.npages, sizeof(u64));
	k.stamp = xcalloc(k.npages, sizeof(u64));
	k.queued = xcalloc(k.npages, sizeof(u64));
	c.diffs = xcalloc(c.nr_homes, sizeof(*c.diffs));
	for (h = 0; h < c.nr_homes; h++)
		dsm_diff_init(&c.diffs[h], xcalloc(DIFF_CAP, 1), DIFF_CAP);
	/* The writer: each page written in order (fault, then page_mkwrite). */
	for (p = 0; p < k.npages; p++) {
		if (k.state[p] == ABSENT) {
			first = p / DSM_BLOCK_PAGES * DSM_BLOCK_PAGES;
			end = first + DSM_BLOCK_PAGES < k.npages ?
			      first + DSM_BLOCK_PAGES : k.npages;
			for (lo = p; lo > first && k.state[lo - 1] == ABSENT; lo--)
				;
			for (hi = p + 1; hi < end && k.state[hi] == ABSENT; hi++)
				;
			if (hi - lo > 1 && !make_room(&k, &c, hi - lo, max_writes)) {
				fetch(&k, &c, lo, hi);
			} else if (!make_room(&k, &c, 1, max_writes)) {
				fetch(&k, &c, p, p + 1);
			} else {
				fprintf(stderr, "page %llu: no room (SIGBUS)\n",
					(unsigned long long)p);
				return 1;
			}
		}
		k.state[p] = DIRTY;
	}
	flush(&k, &c, max_writes);	/* the barrier */
	printf("%llu MiB, %u homes, diff_writes %u, max_cached_mb %llu: %llu flushes\n",
	       (unsigned long long)mib, c.nr_homes, max_writes,
	       (unsigned long long)cached_mb, (unsigned long long)c.flushes);
	printf("faults: %llu RDMA reads, %llu bytes\n",
	       (unsigned long long)c.reads, (unsigned long long)c.read_bytes);
	printf("write-back: %llu RDMA writes (%llu bytes); %llu DIFFs sent (RPCs), %llu applied in place; %llu runs, %llu bytes in DIFFs\n",
	       (unsigned long long)c.writes,
	       (unsigned long long)c.write_bytes,
	       (unsigned long long)c.diffs_sent,
	       (unsigned long long)c.diffs_here,
	       (unsigned long long)c.diff_runs,
	       (unsigned long long)c.diff_bytes);
	printf("LITE operations on the wire: %llu\n",
	       (unsigned long long)(c.reads + c.writes + c.diffs_sent));
	for (h = 0; h < c.nr_homes; h++)
		free(c.diffs[h].buf);
	free(c.diffs);
	free(k.state);
	free(k.clean);
	free(k.stamp);
	free(k.queued);
	return 0;
}
