/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * LITE user-space ABI: the ioctls of /dev/lite. Shared by the kernel module
 * and liblite; nothing else defines this interface.
 */
#ifndef _UAPI_LITE_H
#define _UAPI_LITE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LITE_DEV_NAME		"lite"
#define LITE_IOC_MAGIC		0xd1

/* Manager address as text ("198.18.0.1"), NUL-terminated. */
#define LITE_ADDR_LEN		64

struct lite_ioc_join {
	char	manager[LITE_ADDR_LEN];
	__u32	port;		/* TCP port of the manager */
	__u32	ib_port;	/* 0: the module parameter */
	__u32	node_id;	/* out: this node's id */
	__u32	reserved;	/* must be zero */
};

struct lite_ioc_cluster {
	__u32	node_id;	/* out: 0 when not joined */
	__u32	nr_nodes;	/* out: this node + peers whose QPs are up */
	__u32	qps_per_peer;	/* out */
	__u32	reserved;	/* must be zero */
	__u64	connected;	/* out: bit i set when node i is reachable */
};

#define LITE_IOC_JOIN		_IOWR(LITE_IOC_MAGIC, 1, struct lite_ioc_join)
#define LITE_IOC_CLUSTER	_IOWR(LITE_IOC_MAGIC, 2, struct lite_ioc_cluster)

#endif /* _UAPI_LITE_H */
