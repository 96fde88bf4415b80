/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * LITE user-space ABI: the ioctls and mmap of /dev/lite. Shared by the
 * kernel module and liblite; nothing else defines this interface.
 *
 * Handles ("lh") name a LITE memory region (LMR) and belong to the open
 * file that created them: closing it unmaps them and frees the LMRs it
 * allocated. New LMRs read as zeros. Every reserved field must be zero.
 * JOIN needs CAP_NET_ADMIN. memset/memcpy/memmove need the permission bits
 * but no password (the original API passes none).
 *
 * Errors (returned by ioctl() as -1 with errno):
 *   EINVAL       a malformed argument (reserved field set, unknown flag,
 *                node id out of range, zero-length where one is needed)
 *   ENOENT       no such handle, or nothing published under the identifier
 *   EKEYREVOKED  the LMR behind the handle was freed by its owner
 *   EACCES       wrong password
 *   EPERM        the handle or publication lacks the permission bit
 *   ERANGE       offset + size runs past the end of the LMR
 *   EFBIG        size above LITE_LMR_MAX_SIZE
 *   EFAULT       a user pointer that cannot be read or written
 *   ENOTCONN     this node has not joined, or the owner node is not (or no
 *                longer) a member
 *   ETIMEDOUT    the owner node did not answer in time
 *   EEXIST       the identifier is already published on that node
 *   ENOMEM       the owner node cannot allocate the memory
 */
#ifndef _UAPI_LITE_H
#define _UAPI_LITE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LITE_DEV_NAME		"lite"
#define LITE_IOC_MAGIC		0xd1

/* Manager address as text ("198.18.0.1"), NUL-terminated. */
#define LITE_ADDR_LEN		64

/* Largest LMR. Chunked on the owner: no physically contiguous GiB needed. */
#define LITE_LMR_MAX_SIZE	(1ULL << 30)

/* Permission bits of a handle or publication (values of the original). */
#define LITE_PERM_READ		0x01
#define LITE_PERM_WRITE		0x02
#define LITE_PERM_SHARE		0x04	/* may publish it */
#define LITE_PERM_ADMIN		0x08	/* may free it */
#define LITE_PERM_ATOMIC	0x10	/* atomic LMR */
#define LITE_PERM_ALL		0x1f

/* Priority of a data operation. */
#define LITE_PRIO_NORMAL	0
#define LITE_PRIO_HIGH		1
#define LITE_PRIO_LOW		2

struct lite_ioc_join {
	char	manager[LITE_ADDR_LEN];
	__u32	port;		/* TCP port of the manager */
	__u32	ib_port;	/* 0: the module parameter */
	__u32	node_id;	/* out: this node's id */
	__u32	reserved;
};

struct lite_ioc_cluster {
	__u32	node_id;	/* out: 0 when not joined */
	__u32	nr_nodes;	/* out: this node + peers whose QPs are up */
	__u32	qps_per_peer;	/* out */
	__u32	reserved;
	__u64	connected;	/* out: bit i set when node i is reachable */
};

/* Allocate an LMR of @size bytes on @node (this node's id: local). */
#define LITE_ALLOC_ATOMIC	0x1	/* for fetch_add/compare_swp */
struct lite_ioc_alloc {
	__u32	node;
	__u32	flags;		/* LITE_ALLOC_* */
	__u64	size;		/* 1 .. LITE_LMR_MAX_SIZE */
	__s32	password;	/* data operations must present it */
	__u32	handle;		/* out: handle with LITE_PERM_ALL */
};

/*
 * FREE: free the LMR (needs ADMIN); every handle on it, on every node, is
 * revoked. UNMAP: drop this handle; on the creator's (ADMIN) handle that
 * frees the LMR too, since nothing else could.
 */
struct lite_ioc_handle {
	__u32	handle;
	__u32	reserved;
};

/* Copy @size bytes between user memory at @addr and the LMR at @offset. */
struct lite_ioc_rw {
	__u32	handle;
	__s32	password;
	__u64	offset;
	__u64	size;
	__u64	addr;		/* user pointer */
	__u32	priority;	/* LITE_PRIO_* */
	__u32	reserved;
};

/* Set @size bytes at @offset to the byte @value (needs WRITE). */
struct lite_ioc_memset {
	__u32	handle;
	__u32	value;		/* 0..255 */
	__u64	offset;
	__u64	size;
};

/* Copy between two LMRs, on any nodes (needs READ on src, WRITE on dst). */
struct lite_ioc_memcpy {
	__u32	dst;
	__u32	src;
	__u64	dst_offset;
	__u64	src_offset;
	__u64	size;
};

/* Publish an LMR under @identifier on its owner node (needs SHARE). */
struct lite_ioc_publish {
	__u64	identifier;
	__u32	handle;
	__u32	perm;		/* at most the handle's own bits */
	__s32	password;	/* askers must present it */
	__u32	reserved;
};

/* Map what @node published under @identifier, with @perm. */
struct lite_ioc_ask {
	__u64	identifier;
	__u32	node;
	__u32	perm;		/* at most the published bits */
	__s32	password;	/* the publication's; also the new handle's */
	__u32	handle;		/* out */
};

/* What a handle refers to. */
struct lite_ioc_lmr_info {
	__u32	handle;
	__u32	node;		/* out: owner */
	__u64	size;		/* out */
	__u32	perm;		/* out */
	__u32	reserved;
};

#define LITE_IOC_JOIN		_IOWR(LITE_IOC_MAGIC, 1, struct lite_ioc_join)
#define LITE_IOC_CLUSTER	_IOWR(LITE_IOC_MAGIC, 2, struct lite_ioc_cluster)
#define LITE_IOC_ALLOC		_IOWR(LITE_IOC_MAGIC, 3, struct lite_ioc_alloc)
#define LITE_IOC_FREE		_IOW(LITE_IOC_MAGIC, 4, struct lite_ioc_handle)
#define LITE_IOC_UNMAP		_IOW(LITE_IOC_MAGIC, 5, struct lite_ioc_handle)
#define LITE_IOC_WRITE		_IOW(LITE_IOC_MAGIC, 6, struct lite_ioc_rw)
#define LITE_IOC_READ		_IOW(LITE_IOC_MAGIC, 7, struct lite_ioc_rw)
#define LITE_IOC_MEMSET		_IOW(LITE_IOC_MAGIC, 8, struct lite_ioc_memset)
#define LITE_IOC_MEMCPY		_IOW(LITE_IOC_MAGIC, 9, struct lite_ioc_memcpy)
#define LITE_IOC_MEMMOVE	_IOW(LITE_IOC_MAGIC, 10, struct lite_ioc_memcpy)
#define LITE_IOC_PUBLISH	_IOW(LITE_IOC_MAGIC, 11, struct lite_ioc_publish)
#define LITE_IOC_ASK		_IOWR(LITE_IOC_MAGIC, 12, struct lite_ioc_ask)
#define LITE_IOC_LMR_INFO	_IOWR(LITE_IOC_MAGIC, 13, struct lite_ioc_lmr_info)

/*
 * mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) gives
 * page-aligned memory the module can DMA to and from without copying
 * (alloc_memory); READ/WRITE on it skip the bounce buffer.
 */

#endif /* _UAPI_LITE_H */
