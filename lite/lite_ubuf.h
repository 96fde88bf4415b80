/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zero-copy user buffers (ubuf.c): mmap of /dev/lite.
 */
#ifndef LITE_UBUF_H
#define LITE_UBUF_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>

struct lite_ubuf_list {
	spinlock_t		lock;
	struct list_head	head;
};

struct lite_ubuf {
	struct kref		ref;
	struct list_head	link;	/* on list->head while mapped */
	struct lite_ubuf_list	*list;
	unsigned long		start;	/* user address */
	unsigned long		len;
	unsigned int		chunk_shift;
	struct page		*chunks[];	/* first page of each chunk */
};

struct vm_area_struct;

int lite_ubuf_mmap(struct lite_ubuf_list *list, struct vm_area_struct *vma);
struct lite_ubuf *lite_ubuf_find(struct lite_ubuf_list *list,
				 unsigned long addr, u64 len, u64 *off);
struct page *lite_ubuf_page(struct lite_ubuf *ub, u64 off, u32 *in_chunk,
			    u64 *avail);
void lite_ubuf_put(struct lite_ubuf *ub);

#endif /* LITE_UBUF_H */
