/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DIFF messages: the changed bytes of a write-back, shipped to their home
 * in one lite_dsm message that the home applies to its LMR, for blocks
 * whose changed bytes are scattered (docs/dsm.md, "Write-back by
 * messages"). Like layout.h, no kernel call: tests/unit/dsm-layout builds
 * it in user space (the includer defines u8, u32, u64, bool and memcpy
 * there) and checks the encoder, the checker and the applier.
 *
 * A DIFF's runs follow its message header (dsm.h): each is a little-endian
 * u32 offset in the home's LMR, a u32 length of 1 or more, then that many
 * bytes; runs go in increasing order of offset and never overlap. Only
 * changed bytes are in runs, as for RDMA writes: another node may have
 * changed the bytes between them (false sharing).
 *
 * The home checks a whole message before it applies any of it
 * (dsm_diff_check()): a malformed or out-of-bounds message changes
 * nothing.
 */
#ifndef LITE_DSM_DIFF_H
#define LITE_DSM_DIFF_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#endif

#include "layout.h"

#define DSM_DIFF_RUN_HDR	8	/* le32 offset, le32 length */
/* Offsets are 32 bits: an LMR has at most 1 GiB (LITE_LMR_MAX_SIZE). */
#define DSM_DIFF_OFF_LIMIT	(1ULL << 32)

static inline void dsm_diff_put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static inline u32 dsm_diff_get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* The runs of a DIFF being encoded, into @buf. */
struct dsm_diff {
	u8	*buf;
	u32	cap;	/* room at @buf */
	u32	bytes;	/* used */
	u32	runs;
	u32	last;	/* where in @buf the last run's header is */
	u64	end;	/* the LMR offset just after the last run */
};

static inline void dsm_diff_init(struct dsm_diff *d, u8 *buf, u32 cap)
{
	*d = (struct dsm_diff) { .buf = buf, .cap = cap };
}

/**
 * dsm_diff_add() - append a run of changed bytes to a DIFF
 * @d: the DIFF
 * @off: where the bytes go in the home's LMR
 * @data: the bytes
 * @len: how many, 1 or more
 *
 * A run that starts where the last one ended extends it (no new header).
 *
 * Return: true; false when it does not fit, or does not come after the
 * last run, or lies beyond 32-bit offsets (@d is then unchanged).
 */
static inline bool dsm_diff_add(struct dsm_diff *d, u64 off, const u8 *data,
				u32 len)
{
	u32 room = d->cap - d->bytes;

	if (!len || off >= DSM_DIFF_OFF_LIMIT ||
	    len > DSM_DIFF_OFF_LIMIT - off)
		return false;
	if (d->runs && off == d->end) {
		if (len > room)
			return false;
		dsm_diff_put32(d->buf + d->last + 4,
			       dsm_diff_get32(d->buf + d->last + 4) + len);
	} else {
		if ((d->runs && off < d->end) || room < DSM_DIFF_RUN_HDR ||
		    len > room - DSM_DIFF_RUN_HDR)
			return false;
		d->last = d->bytes;
		dsm_diff_put32(d->buf + d->bytes, (u32)off);
		dsm_diff_put32(d->buf + d->bytes + 4, len);
		d->bytes += DSM_DIFF_RUN_HDR;
		d->runs++;
	}
	memcpy(d->buf + d->bytes, data, len);
	d->bytes += len;
	d->end = off + len;
	return true;
}

/**
 * dsm_diff_check() - check a DIFF's runs, as received, before any is applied
 * @buf: the runs
 * @len: their length: what the message holds after its header
 * @runs: the number of runs its header claims
 * @bytes: the length of the runs its header claims
 * @limit: every run must end at or before this offset (the LMR's size)
 * @end: out: where the last run ends
 *
 * Every run's header and bytes lie within @len, its length is not 0, it
 * starts at or after the previous run's end (increasing, no overlap) and
 * ends within @limit; there are exactly @runs of them, 1 or more, and
 * they take exactly @len == @bytes. Lengths are checked against what is
 * left before they are used (no overflow: offsets and lengths are 32-bit,
 * sums 64-bit).
 *
 * Return: 0; -EPROTO (malformed: truncated, overlong, counts that do not
 * match, an empty or out-of-order run) or -EINVAL (a run beyond @limit).
 */
static inline int dsm_diff_check(const u8 *buf, u32 len, u32 runs, u32 bytes,
				 u64 limit, u64 *end)
{
	u32 pos = 0, n = 0, rlen;
	u64 off, prev = 0;

	if (bytes != len || !runs)
		return -EPROTO;
	while (pos < len) {
		if (len - pos < DSM_DIFF_RUN_HDR)
			return -EPROTO;
		off = dsm_diff_get32(buf + pos);
		rlen = dsm_diff_get32(buf + pos + 4);
		pos += DSM_DIFF_RUN_HDR;
		if (!rlen || rlen > len - pos || (n && off < prev) ||
		    ++n > runs)
			return -EPROTO;
		if (off + rlen > limit)
			return -EINVAL;
		prev = off + rlen;
		pos += rlen;
	}
	if (n != runs)
		return -EPROTO;
	*end = prev;
	return 0;
}

/* Write @len bytes at @data to offset @off of the LMR; 0 or an errno. */
typedef int (*dsm_diff_apply_t)(u64 off, const u8 *data, u32 len, void *arg);

/**
 * dsm_diff_apply() - apply the runs of a DIFF that dsm_diff_check() passed
 * @buf: the runs
 * @bytes: their length
 * @apply: called for each run, in order
 * @arg: passed to @apply
 *
 * Return: 0, or the first error @apply returned (the runs before it are
 * applied).
 */
static inline int dsm_diff_apply(const u8 *buf, u32 bytes,
				 dsm_diff_apply_t apply, void *arg)
{
	u32 pos = 0, len;
	int ret;

	while (bytes - pos > DSM_DIFF_RUN_HDR) {
		len = dsm_diff_get32(buf + pos + 4);
		if (len > bytes - pos - DSM_DIFF_RUN_HDR)
			return -EPROTO;	/* not checked: never applied */
		ret = apply(dsm_diff_get32(buf + pos),
			    buf + pos + DSM_DIFF_RUN_HDR, len, arg);
		if (ret)
			return ret;
		pos += DSM_DIFF_RUN_HDR + len;
	}
	return 0;
}

/**
 * dsm_block_writes() - the RDMA writes a block's changed bytes would take
 * @n: its DIRTY pages, 1..DSM_BLOCK_PAGES
 * @idx: their indexes, increasing, all in one block
 * @now: the pages
 * @was: their twins
 * @max: stop counting beyond this
 *
 * As dsm_wb_page() gathers them: one per run of changed bytes, a run that
 * starts a page continuing one that ended the page before joined to it.
 *
 * Return: the count, or @max + 1 when there are more than @max.
 */
static inline u32 dsm_block_writes(u32 n, const u64 *idx,
				   const u8 *const *now, const u8 *const *was,
				   u32 max)
{
	u32 writes = 0, i, pos, start;
	bool tail = false;	/* the previous page's last byte changed */

	for (i = 0; i < n; i++) {
		if (i && idx[i] != idx[i - 1] + 1)
			tail = false;
		pos = 0;
		for (;;) {
			start = dsm_diff_next(now[i], was[i], &pos);
			if (start >= DSM_PAGE_BYTES)
				break;
			if (start || !tail)
				writes++;
			if (writes > max)
				return max + 1;
		}
		tail = now[i][DSM_PAGE_BYTES - 1] != was[i][DSM_PAGE_BYTES - 1];
	}
	return writes;
}

/* How a write-back sends what it gathers. */
struct dsm_wb_ops {
	/* A write gathered (as for dsm_wb_page()). */
	dsm_wb_send_t	write;
	/*
	 * The DIFF being encoded for home @home (a new, empty one when none
	 * is), or NULL: no DIFF to that home now (the runs go by writes).
	 */
	struct dsm_diff	*(*diff)(u32 home, void *arg);
	/* @d (not empty) is full: send it; the next diff() gives a new one. */
	void		(*diff_send)(u32 home, struct dsm_diff *d, void *arg);
};

/*
 * Add a run to *@d, sending it first when it is full; false, with *@d
 * NULL, when the run cannot go in a DIFF to @home now (it goes by write).
 */
static inline bool dsm_wb_diff_add(struct dsm_diff **d, u32 home, u64 off,
				   const u8 *data, u32 len,
				   const struct dsm_wb_ops *ops, void *arg)
{
	if (!*d)
		return false;
	if (dsm_diff_add(*d, off, data, len))
		return true;
	if ((*d)->runs) {
		ops->diff_send(home, *d, arg);
		*d = ops->diff(home, arg);
		if (*d && dsm_diff_add(*d, off, data, len))
			return true;
	}
	*d = NULL;
	return false;
}

/**
 * dsm_wb_block() - send the changed bytes of a block's DIRTY pages
 * @wb: the write being gathered (as for dsm_wb_page())
 * @nr_homes: the region's homes
 * @n: the block's DIRTY pages, 1..DSM_BLOCK_PAGES
 * @idx: their indexes, increasing, all in one block
 * @now: the pages
 * @was: their twins
 * @max_writes: the most writes a block is sent by
 * @ops: the senders
 * @arg: passed to them
 *
 * A block whose changed bytes take at most @max_writes RDMA writes is
 * sent by writes (dsm_wb_page()); one that would take more goes into its
 * home's DIFF (and the next, when that one is full), unless there is no
 * DIFF to that home (@ops->diff NULL, or it returned NULL): then by
 * writes too. After the last block, the caller sends what @wb and each
 * home's DIFF still hold.
 */
static inline void dsm_wb_block(struct dsm_wb *wb, u32 nr_homes, u32 n,
				const u64 *idx, const u8 *const *now,
				const u8 *const *was, u32 max_writes,
				const struct dsm_wb_ops *ops, void *arg)
{
	u32 home = dsm_place(idx[0], nr_homes).home, i, pos, start;
	struct dsm_diff *d = NULL;
	struct dsm_place pl;

	if (ops->diff &&
	    dsm_block_writes(n, idx, now, was, max_writes) > max_writes)
		d = ops->diff(home, arg);
	for (i = 0; i < n; i++) {
		if (!d) {
			dsm_wb_page(wb, idx[i], nr_homes, now[i], was[i],
				    ops->write, arg);
			continue;
		}
		pl = dsm_place(idx[i], nr_homes);
		pos = 0;
		for (;;) {
			start = dsm_diff_next(now[i], was[i], &pos);
			if (start >= DSM_PAGE_BYTES)
				break;
			if (!dsm_wb_diff_add(&d, home, pl.off + start,
					     now[i] + start, pos - start, ops,
					     arg))
				dsm_wb_add(wb, pl, idx[i], start, pos - start,
					   ops->write, arg);
		}
	}
}

#endif /* LITE_DSM_DIFF_H */
