/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * LITE-Kernel-DSM user-space ABI: the ioctls and mmap of /dev/lite_dsm.
 * Shared by lite_dsm.ko and liblite-dsm; nothing else defines it.
 *
 * One open file attaches one region (ATTACH), then maps it with
 * mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); the
 * offset and length may be any page-aligned part of it. Every reserved
 * field must be zero. docs/dsm.md has the consistency rule.
 *
 * Errors (ioctl() returns -1 with errno):
 *   EINVAL     bad name, size 0, a reserved field set, lock >= 1024,
 *              nr 0 or above 1024, or ATTACH of an existing region with
 *              another size; ATTACH twice on one file
 *   EACCES     the region belongs to another uid
 *   EFBIG      size above LITE_DSM_MAX_SIZE (or above 1 GiB per home)
 *   ENOTCONN   this node has not joined LITE, or a home left
 *   EBADFD     no region attached to this file (or it was detached)
 *   EDEADLK    ACQUIRE of a lock this thread already holds through this file
 *   EPERM      RELEASE of a lock this file does not hold
 *   EBUSY      DETACH while the region is still mapped through this file
 *   EINTR      a signal interrupted ACQUIRE or BARRIER (a barrier
 *              arrival stays counted: the barrier is spent)
 *   EIO        the writes of a release could not reach a home (they are
 *              lost; see docs/dsm.md, failure behaviour)
 *   ETIMEDOUT  a home or the region's metadata node did not answer
 *   EFAULT     an argument's memory cannot be read or written; an
 *              ATTACH whose result cannot be written has attached the
 *              file all the same (closing it detaches)
 */
#ifndef _UAPI_LITE_DSM_H
#define _UAPI_LITE_DSM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LITE_DSM_DEV_NAME	"lite_dsm"
#define LITE_DSM_IOC_MAGIC	0xd5

#define LITE_DSM_NAME_MAX	64	/* with the NUL */
#define LITE_DSM_LOCKS		1024	/* locks 0 .. LITE_DSM_LOCKS - 1 */
#define LITE_DSM_BARRIER_MAX	1024
#define LITE_DSM_PAGE_SIZE	4096
#define LITE_DSM_MAX_SIZE	(16ULL << 30)

/* Attach the region @name of @size bytes, creating it (zero-filled). */
struct lite_dsm_ioc_attach {
	char	name[LITE_DSM_NAME_MAX];	/* NUL-terminated, not empty */
	__u64	size;		/* 1 .. LITE_DSM_MAX_SIZE */
	__u64	mmap_size;	/* out: size rounded up to whole pages */
	__u32	nr_homes;	/* out: nodes holding its pages */
	__u32	meta_node;	/* out: the node keeping its metadata */
	__u32	created;	/* out: 1 when this call created it */
	__u32	reserved;
};

/* ACQUIRE / RELEASE lock @lock of the region. */
struct lite_dsm_ioc_lock {
	__u32	lock;		/* 0 .. LITE_DSM_LOCKS - 1 */
	__u32	reserved;
};

/* Wait until @nr callers (any nodes, any regions: docs/dsm.md) arrived. */
struct lite_dsm_ioc_barrier {
	__u32	nr;		/* 1 .. LITE_DSM_BARRIER_MAX */
	__u32	reserved;
};

#define LITE_DSM_IOC_ATTACH	_IOWR(LITE_DSM_IOC_MAGIC, 1, struct lite_dsm_ioc_attach)
#define LITE_DSM_IOC_ACQUIRE	_IOW(LITE_DSM_IOC_MAGIC, 2, struct lite_dsm_ioc_lock)
#define LITE_DSM_IOC_RELEASE	_IOW(LITE_DSM_IOC_MAGIC, 3, struct lite_dsm_ioc_lock)
#define LITE_DSM_IOC_BARRIER	_IOW(LITE_DSM_IOC_MAGIC, 4, struct lite_dsm_ioc_barrier)
#define LITE_DSM_IOC_DETACH	_IO(LITE_DSM_IOC_MAGIC, 5)

#endif /* _UAPI_LITE_DSM_H */
