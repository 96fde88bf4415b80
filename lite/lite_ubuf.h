/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zero-copy user buffers (ubuf.c): mmap of /dev/lite.
 */
#ifndef LITE_UBUF_H
#define LITE_UBUF_H

#include <linux/kref.h>

struct lite_user;

struct lite_ubuf {
	struct kref		ref;	/* one per vma + one per operation */
	unsigned long		len;
	unsigned int		chunk_shift;
	struct lite_user	*user;	/* charged LITE_RES_ZC_BYTES, or NULL */
	struct page		*chunks[];	/* first page of each chunk */
};

struct vm_area_struct;

int lite_ubuf_mmap(struct lite_user *user, struct vm_area_struct *vma);
struct lite_ubuf *lite_ubuf_find(unsigned long addr, u64 len, u64 *off);
struct page *lite_ubuf_page(struct lite_ubuf *ub, u64 off, u32 *in_chunk,
			    u64 *avail);
void lite_ubuf_put(struct lite_ubuf *ub);

#endif /* LITE_UBUF_H */
