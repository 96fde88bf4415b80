// SPDX-License-Identifier: GPL-2.0
/*
 * The bytes of the LMRs this node owns, as its CPU reaches them: copies
 * to and from an iov_iter, memset and memmove (also for a peer's MEMSET
 * and MEMMOVE requests), and the words atomics work on. Every offset is
 * checked against the LMR's size here; chunks are reached through the
 * kernel mapping of their pool pieces.
 */
#include <linux/highmem.h>
#include <linux/uio.h>

#include "lite_priv.h"
#include "lmr.h"
#include "wire.h"
#include "../include/uapi/lite.h"

static int lite_lmr_check_range(const struct lite_lmr *lmr, u64 off, u64 len)
{
	return off > lmr->size || len > lmr->size - off ? -ERANGE : 0;
}

/* Kernel address of byte @off, and how many bytes follow it in its chunk. */
static void *lite_lmr_kaddr(struct lite_lmr *lmr, u64 off, u64 *avail)
{
	u64 in = off & ((1ULL << lmr->chunk_shift) - 1);

	*avail = (1ULL << lmr->chunk_shift) - in;
	return lite_piece_kaddr(&lmr->chunks[off >> lmr->chunk_shift], in);
}

/**
 * lite_lmr_atomic_ptr() - the 8 bytes at @off of an atomic LMR, for the CPU
 * @lmr: the LMR (a reference held)
 * @off: byte offset, 8-aligned (so never across a chunk)
 * @err: out: -EPERM (not atomic), -EINVAL (misaligned), -ERANGE, or 0
 *
 * Return: the address, or NULL with *@err set.
 */
atomic64_t *lite_lmr_atomic_ptr(struct lite_lmr *lmr, u64 off, int *err)
{
	u64 avail;

	*err = 0;
	if (!(lmr->flags & LITE_ALLOC_ATOMIC))
		*err = -EPERM;
	else if (off % sizeof(u64))
		*err = -EINVAL;
	else if (lite_lmr_check_range(lmr, off, sizeof(u64)))
		*err = -ERANGE;
	return *err ? NULL : lite_lmr_kaddr(lmr, off, &avail);
}

/**
 * lite_lmr_atomic_addr() - the 8 bytes at @off of an atomic LMR, for the NIC
 * @lmr: the LMR (a reference held)
 * @off: byte offset, 8-aligned
 * @addr: out: the address in the pool a work request names
 * @rkey: out: its key
 *
 * Return: 0, -EPERM (not atomic), -EINVAL (misaligned) or -ERANGE.
 */
int lite_lmr_atomic_addr(struct lite_lmr *lmr, u64 off, u64 *addr, u32 *rkey)
{
	u64 mask = (1ULL << lmr->chunk_shift) - 1;
	struct lite_piece *p;
	int err;

	if (!lite_lmr_atomic_ptr(lmr, off, &err))
		return err;
	p = &lmr->chunks[off >> lmr->chunk_shift];
	*addr = lite_piece_addr(p, off & mask);
	*rkey = lite_piece_rkey(p);
	return 0;
}

/* Does the NIC run @lmr's atomics (decided when it was created)? */
bool lite_lmr_nic_atomic(const struct lite_lmr *lmr)
{
	return lmr->nic_atomic;
}

/**
 * lite_lmr_copy() - copy between an LMR this node owns and an iov_iter
 * @lmr: the LMR (a reference held)
 * @off: byte offset in it
 * @iter: the other side (user or kernel memory)
 * @len: bytes
 * @to_lmr: direction
 *
 * Return: 0, -ERANGE, or -EFAULT when @iter cannot be read or written.
 */
int lite_lmr_copy(struct lite_lmr *lmr, u64 off, struct iov_iter *iter,
		  u64 len, bool to_lmr)
{
	u64 avail, n;
	size_t done;
	void *p;

	if (lite_lmr_check_range(lmr, off, len))
		return -ERANGE;
	while (len) {
		p = lite_lmr_kaddr(lmr, off, &avail);
		n = min(len, avail);
		done = to_lmr ? copy_from_iter(p, n, iter) :
				copy_to_iter(p, n, iter);
		if (done != n)
			return -EFAULT;
		off += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/**
 * lite_lmr_memset() - set bytes of an LMR this node owns
 * @lmr: the LMR (a reference held)
 * @off: first byte
 * @value: the byte value, 0..255
 * @len: bytes
 *
 * Long ones stop, chunk by chunk, when their requester gives up or is
 * killed (lite_ctrl_check_stop()), with the bytes before set.
 *
 * Return: 0, -EINVAL, -ERANGE, or lite_ctrl_check_stop()'s errno.
 */
int lite_lmr_memset(struct lite_lmr *lmr, u64 off, int value, u64 len)
{
	u64 avail, n;
	void *p;
	int ret;

	if (value < 0 || value > 0xff)
		return -EINVAL;
	if (lite_lmr_check_range(lmr, off, len))
		return -ERANGE;
	while (len) {
		p = lite_lmr_kaddr(lmr, off, &avail);
		n = min(len, avail);
		memset(p, value, n);
		off += n;
		len -= n;
		cond_resched();
		ret = len ? lite_ctrl_check_stop() : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * lite_lmr_memmove() - copy between two LMRs this node owns; overlapping
 * ranges of one LMR are handled as memmove() does
 * @dst: destination LMR (a reference held)
 * @doff: offset in it
 * @src: source LMR (a reference held; may be @dst)
 * @soff: offset in it
 * @len: bytes
 *
 * Stops between pieces as lite_lmr_memset() does.
 *
 * Return: 0, -ERANGE, or lite_ctrl_check_stop()'s errno.
 */
int lite_lmr_memmove(struct lite_lmr *dst, u64 doff, struct lite_lmr *src,
		     u64 soff, u64 len)
{
	bool backward = dst == src && doff > soff;
	u64 da, sa, n;
	void *d, *s;
	int ret;

	if (lite_lmr_check_range(dst, doff, len) ||
	    lite_lmr_check_range(src, soff, len))
		return -ERANGE;
	/* Piece by piece, each within one chunk on both sides. */
	while (len) {
		if (backward) {
			/* The last piece: ends at doff + len and soff + len. */
			u64 de = doff + len, se = soff + len;
			u64 dmask = (1ULL << dst->chunk_shift) - 1;
			u64 smask = (1ULL << src->chunk_shift) - 1;

			n = min3(len, (de - 1) % (dmask + 1) + 1,
				 (se - 1) % (smask + 1) + 1);
			d = lite_lmr_kaddr(dst, de - n, &da);
			s = lite_lmr_kaddr(src, se - n, &sa);
			memmove(d, s, n);
		} else {
			d = lite_lmr_kaddr(dst, doff, &da);
			s = lite_lmr_kaddr(src, soff, &sa);
			n = min3(len, da, sa);
			memmove(d, s, n);
			doff += n;
			soff += n;
		}
		len -= n;
		cond_resched();
		ret = len ? lite_ctrl_check_stop() : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* A peer's MEMSET: it must have been granted write access to the LMR. */
int lite_lmr_serve_memset(u16 src, const struct lite_ctrl_memset *m)
{
	struct lite_lmr *lmr;
	int ret;

	if (m->reserved)
		return -EPROTO;
	lmr = lite_lmr_get_granted(le32_to_cpu(m->lmr_id), src,
				   LITE_PERM_WRITE, &ret);
	if (!lmr)
		return ret;
	ret = lite_lmr_memset(lmr, le64_to_cpu(m->offset),
			      le32_to_cpu(m->value), le64_to_cpu(m->len));
	lite_lmr_put(lmr);
	return ret;
}

/* A peer's MEMMOVE: write access to the destination, read to the source. */
int lite_lmr_serve_memmove(u16 src_node, const struct lite_ctrl_memmove *m)
{
	struct lite_lmr *dst, *src = NULL;
	int ret;

	if (m->reserved)
		return -EPROTO;
	dst = lite_lmr_get_granted(le32_to_cpu(m->dst_lmr), src_node,
				   LITE_PERM_WRITE, &ret);
	if (dst)
		src = lite_lmr_get_granted(le32_to_cpu(m->src_lmr), src_node,
					   LITE_PERM_READ, &ret);
	if (src)
		ret = lite_lmr_memmove(dst, le64_to_cpu(m->dst_offset), src,
				       le64_to_cpu(m->src_offset),
				       le64_to_cpu(m->len));
	if (dst)
		lite_lmr_put(dst);
	if (src)
		lite_lmr_put(src);
	return ret;
}
