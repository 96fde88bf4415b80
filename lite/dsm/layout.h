/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a region's pages live, and what a write-back sends: the pure part
 * of the protocol (docs/dsm.md), with no kernel call in it, so that
 * tests/unit/dsm-layout builds it in user space and checks it (the
 * includer defines u8, u32 and u64 there).
 *
 * Placement: pages go in blocks of DSM_BLOCK_PAGES; block b lives on home
 * b % N, and each home's LMR holds its blocks one after the other, so the
 * pages of one block are contiguous in one LMR: a fault fetches the absent
 * pages of its block with one RDMA read, and a write-back sends changed
 * bytes of neighbouring pages as one RDMA write.
 *
 * Write-back: each DIRTY page is compared with its twin, byte by byte; a
 * run of changed bytes goes to the home, and a run that starts where the
 * write being gathered ends in the same home's LMR (the last byte of a
 * page and the first of the next one of its block both changed) joins it.
 * A byte equal to the twin is never sent: another node may have changed
 * it (false sharing), and writing this node's stale copy would undo that.
 */
#ifndef LITE_DSM_LAYOUT_H
#define LITE_DSM_LAYOUT_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

#define DSM_PAGE_SHIFT		12
#define DSM_PAGE_BYTES		(1U << DSM_PAGE_SHIFT)
/*
 * 16 pages (64 KiB) per block: what one fault fetches at most and one
 * write sends at most. Large enough that a sequential pass costs one
 * RDMA operation per 16 pages, small enough that a fault's read stays
 * quick and a random access fetches little it does not use.
 */
#define DSM_BLOCK_SHIFT		4
#define DSM_BLOCK_PAGES		(1U << DSM_BLOCK_SHIFT)
#define DSM_BLOCK_BYTES		(DSM_BLOCK_PAGES << DSM_PAGE_SHIFT)

/* A page's home (an index into the region's homes) and offset there. */
struct dsm_place {
	u32	home;
	u64	off;	/* bytes into that home's LMR */
};

/**
 * dsm_place() - where page @idx of a region lives
 * @idx: the page's index in the region
 * @nr_homes: the region's homes, 1..DSM_MAX_HOMES
 *
 * Return: its home index and its byte offset in that home's LMR.
 */
static inline struct dsm_place dsm_place(u64 idx, u32 nr_homes)
{
	u64 block = idx >> DSM_BLOCK_SHIFT;
	u64 slot = (block / nr_homes) << DSM_BLOCK_SHIFT |
		   (idx & (DSM_BLOCK_PAGES - 1));

	return (struct dsm_place) {
		.home	= block % nr_homes,
		.off	= slot << DSM_PAGE_SHIFT,
	};
}

/**
 * dsm_home_pages() - the pages home @home keeps of a region
 * @npages: the region's pages
 * @nr_homes: its homes
 * @home: 0..@nr_homes - 1
 *
 * Every block but the region's last is whole, and the last one is the
 * last of its home's, so a home's pages fill its LMR from 0 without a
 * hole: this is the size its LMR needs, in pages (0 for a home of no
 * block, in a region of fewer blocks than homes).
 *
 * Return: the count.
 */
static inline u64 dsm_home_pages(u64 npages, u32 nr_homes, u32 home)
{
	u64 blocks = (npages + DSM_BLOCK_PAGES - 1) >> DSM_BLOCK_SHIFT;
	u64 mine, last;

	if (home >= blocks)
		return 0;
	mine = (blocks - 1 - home) / nr_homes + 1;
	last = blocks - 1;
	if (last % nr_homes != home)
		return mine << DSM_BLOCK_SHIFT;
	return ((mine - 1) << DSM_BLOCK_SHIFT) +
	       (npages - (last << DSM_BLOCK_SHIFT));
}

/**
 * dsm_diff_next() - the next run of bytes where @now differs from @was
 * @now: a page as it is
 * @was: its twin
 * @pos: in: where to look from; out: the first byte after the run
 *
 * Return: the run's first byte, or DSM_PAGE_BYTES when none is left.
 */
static inline u32 dsm_diff_next(const u8 *now, const u8 *was, u32 *pos)
{
	u32 i = *pos, start;

	while (i < DSM_PAGE_BYTES) {
		if (!(i & 7) && *(const u64 *)(now + i) == *(const u64 *)(was + i)) {
			i += 8;
			continue;
		}
		if (now[i] != was[i])
			break;
		i++;
	}
	start = i;
	while (i < DSM_PAGE_BYTES && now[i] != was[i])
		i++;
	*pos = i;
	return start;
}

/*
 * A write being gathered: @len bytes to offset @off of home @home's LMR,
 * taken from the region's pages starting at byte @start of page @idx (the
 * bytes of one block are those of consecutive pages). @len 0: none.
 */
struct dsm_wb {
	u32	home;
	u32	start;
	u32	len;
	u64	off;
	u64	idx;
};

/* Send the write @wb gathered (its @len is not 0); @arg is the caller's. */
typedef void (*dsm_wb_send_t)(const struct dsm_wb *wb, void *arg);

/*
 * The run [@start, @start + @len) of page @idx, at @pl, joins @wb if it
 * continues it in the same home's LMR within one block; else @wb is sent
 * and the run starts the next write.
 */
static inline void dsm_wb_add(struct dsm_wb *wb, struct dsm_place pl,
			      u64 idx, u32 start, u32 len,
			      dsm_wb_send_t send, void *arg)
{
	u64 off = pl.off + start;

	if (wb->len && wb->home == pl.home && wb->off + wb->len == off &&
	    off % DSM_BLOCK_BYTES && wb->len + len <= DSM_BLOCK_BYTES) {
		wb->len += len;
		return;
	}
	if (wb->len)
		send(wb, arg);
	*wb = (struct dsm_wb) {
		.home = pl.home, .start = start, .len = len, .off = off,
		.idx = idx,
	};
}

/**
 * dsm_wb_page() - gather the changed bytes of one DIRTY page
 * @wb: the write being gathered (zeroed before the first page)
 * @idx: the page's index in the region
 * @nr_homes: the region's homes
 * @now: the page
 * @was: its twin
 * @send: called for each write completed, in order
 * @arg: passed to @send
 *
 * Pages are best given in increasing @idx, so that neighbours join. After
 * the last page, send what @wb still holds (if its @len is not 0).
 */
static inline void dsm_wb_page(struct dsm_wb *wb, u64 idx, u32 nr_homes,
			       const u8 *now, const u8 *was,
			       dsm_wb_send_t send, void *arg)
{
	struct dsm_place pl = dsm_place(idx, nr_homes);
	u32 pos = 0, start;

	for (;;) {
		start = dsm_diff_next(now, was, &pos);
		if (start >= DSM_PAGE_BYTES)
			break;
		dsm_wb_add(wb, pl, idx, start, pos - start, send, arg);
	}
}

#endif /* LITE_DSM_LAYOUT_H */
