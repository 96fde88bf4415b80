// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy user buffers (alloc_memory): mmap of /dev/lite gives zeroed,
 * physically contiguous chunks. A read or write whose user range lies
 * inside such a mapping of the calling process DMAs straight to its pages
 * (rdma.c), without the bounce buffer.
 *
 * The buffer is found through the caller's own vma, never through a list
 * of addresses: after fork (MADV_DOFORK clears VM_DONTCOPY), fd passing or
 * munmap, an address names the buffer only while the calling process maps
 * it there. Every vma holds a reference (.open counts copies, .close drops
 * them), every operation another, so the pages outlive both. The mapping
 * cannot be split or moved: the offset of an address in the buffer is
 * always its distance from vm_start.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>

#include "compat.h"
#include "lite_priv.h"

#define LITE_UBUF_CHUNK_SHIFT	20	/* 1 MiB: few SGEs, easy to allocate */
#define LITE_UBUF_MAX		(1UL << 30)

static void lite_ubuf_release(struct kref *ref)
{
	struct lite_ubuf *ub = container_of(ref, struct lite_ubuf, ref);
	unsigned long i, pages = ub->len >> PAGE_SHIFT;

	/* The vma's references are gone; these are the allocation's. */
	for (i = 0; i < pages; i++) {
		struct page *first = ub->chunks[i >> (ub->chunk_shift - PAGE_SHIFT)];

		if (!first)
			break;
		__free_page(first + (i & ((1UL << (ub->chunk_shift - PAGE_SHIFT)) - 1)));
	}
	lite_user_uncharge(ub->user, LITE_RES_ZC_BYTES, ub->len);
	lite_user_put(ub->user);
	kvfree(ub);
}

void lite_ubuf_put(struct lite_ubuf *ub)
{
	kref_put(&ub->ref, lite_ubuf_release);
}

/* A copy of the vma: fork without VM_DONTCOPY, or mremap's copy_vma. */
static void lite_ubuf_vm_open(struct vm_area_struct *vma)
{
	struct lite_ubuf *ub = vma->vm_private_data;

	kref_get(&ub->ref);
}

static void lite_ubuf_vm_close(struct vm_area_struct *vma)
{
	lite_ubuf_put(vma->vm_private_data);
}

static int lite_ubuf_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int lite_ubuf_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct lite_ubuf_vm_ops = {
	.open		= lite_ubuf_vm_open,
	.close		= lite_ubuf_vm_close,
	.may_split	= lite_ubuf_vm_may_split,
	.mremap		= lite_ubuf_vm_mremap,
};

/**
 * lite_ubuf_mmap() - back a new mapping of /dev/lite with DMA-able chunks
 * @user: the account charged for it, or NULL
 * @vma: the mapping (offset 0, shared, at most 1 GiB)
 *
 * Return: 0, -EINVAL, -EDQUOT (the user's user_zc_mb) or -ENOMEM.
 */
int lite_ubuf_mmap(struct lite_user *user, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start, i, pages;
	unsigned int shift = clamp_t(unsigned int, order_base_2(len), PAGE_SHIFT,
				     LITE_UBUF_CHUNK_SHIFT);
	unsigned int per_chunk = 1U << (shift - PAGE_SHIFT);
	struct lite_ubuf *ub;
	int ret;

	if (vma->vm_pgoff || !len || len > LITE_UBUF_MAX ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	pages = len >> PAGE_SHIFT;
	ret = lite_user_charge(user, LITE_RES_ZC_BYTES, len);
	if (ret)
		return ret;
	ub = kvzalloc(struct_size(ub, chunks, DIV_ROUND_UP(pages, per_chunk)),
		      GFP_KERNEL_ACCOUNT);
	if (!ub) {
		lite_user_uncharge(user, LITE_RES_ZC_BYTES, len);
		return -ENOMEM;
	}
	kref_init(&ub->ref);
	ub->len = len;
	ub->chunk_shift = shift;
	ub->user = user;	/* the release uncharges */
	if (user)
		lite_user_hold(user);
	for (i = 0; i < pages; i += per_chunk) {
		/* __GFP_ACCOUNT: the mapping process's memory cgroup pays. */
		struct page *p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					     __GFP_NOWARN | __GFP_RETRY_MAYFAIL,
					     shift - PAGE_SHIFT);

		if (!p) {
			ret = -ENOMEM;
			goto err;
		}
		/* Each page its own refcount, as vm_insert_page needs. */
		split_page(p, shift - PAGE_SHIFT);
		ub->chunks[i / per_chunk] = p;
		/* The tail of a last chunk beyond the mapping is not used. */
		if (i + per_chunk > pages) {
			unsigned long j;

			for (j = pages - i; j < per_chunk; j++)
				__free_page(p + j);
		}
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	for (i = 0; i < pages; i++) {
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     ub->chunks[i / per_chunk] + i % per_chunk);
		if (ret)
			goto err;
	}
	vma->vm_ops = &lite_ubuf_vm_ops;
	vma->vm_private_data = ub;
	return 0;
err:
	/* Inserted pages hold their own references, dropped with the vma. */
	lite_ubuf_put(ub);
	return ret;
}

/**
 * lite_ubuf_find() - the zero-copy buffer the caller maps at [@addr, +@len)
 * @addr: user address in the current process
 * @len: bytes
 * @off: set to @addr's offset in the buffer
 *
 * Context: process context; takes the mmap lock for reading.
 * Return: the buffer with a reference, or NULL (ordinary user memory).
 */
struct lite_ubuf *lite_ubuf_find(unsigned long addr, u64 len, u64 *off)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct lite_ubuf *ub = NULL;

	if (!mm || !len)
		return NULL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_ops == &lite_ubuf_vm_ops &&
	    len <= vma->vm_end - addr) {
		ub = vma->vm_private_data;
		kref_get(&ub->ref);
		*off = addr - vma->vm_start;
	}
	mmap_read_unlock(mm);
	return ub;
}

/**
 * lite_ubuf_page() - the page holding byte @off of @ub
 * @ub: the buffer
 * @off: byte offset in it
 * @in_chunk: set to @off's offset from the returned page
 * @avail: set to the bytes from @off to the end of its chunk
 *
 * Return: the first page of @off's chunk (the chunk is contiguous).
 */
struct page *lite_ubuf_page(struct lite_ubuf *ub, u64 off, u32 *in_chunk,
			    u64 *avail)
{
	u64 mask = (1ULL << ub->chunk_shift) - 1;

	*in_chunk = off & mask;
	*avail = min_t(u64, mask + 1 - *in_chunk, ub->len - off);
	return ub->chunks[off >> ub->chunk_shift];
}
