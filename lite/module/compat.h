/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between the kernels LITE builds for (Debian's 6.1 and
 * 6.12), in one place. The .c files use the interface of the newest
 * kernel; for an older one, this header supplies it. Every entry says
 * which kernel changed what, so that an entry can go once LITE no longer
 * supports the kernels before the change.
 *
 * What LITE uses and did not change between 6.1 and 6.12 (compared in
 * both header trees, docs/kernels.md): the verbs it calls (ib_create_cq
 * with its own completion handler and irq_poll, ib_create_qp,
 * ib_modify_qp, ib_alloc_mr, ib_map_mr_sg, the ib_dma_* helpers, posting
 * and polling, ib_drain_*), iov_iter_kvec/iov_iter_ubuf with
 * ITER_SOURCE/ITER_DEST, hrtimer_init and wait_event_hrtimeout,
 * vm_insert_page, the socket, crypto, gen_pool, xarray and idr calls.
 */
#ifndef LITE_COMPAT_H
#define LITE_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/*
 * 6.3: vma->vm_flags became read-only (const, changed only under the vma
 * write lock); flags are set with vm_flags_set(), which takes that lock.
 * Before 6.3 the mmap handler, which runs with mmap_lock held for
 * writing, sets the field directly.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#endif /* LITE_COMPAT_H */
