/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between the kernels lite_dsm builds for (Debian's 6.1
 * and 6.12), in one place, as lite/module/compat.h does for lite.ko.
 */
#ifndef LITE_DSM_COMPAT_H
#define LITE_DSM_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/*
 * 6.3: vma->vm_flags became read-only; flags are set with vm_flags_set().
 * Before 6.3 the mmap handler, which runs with mmap_lock held for
 * writing, sets the field directly.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#endif /* LITE_DSM_COMPAT_H */
