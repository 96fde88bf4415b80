/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an RPC request looks like in the receiver's ring (docs/rpc.md): the
 * ring's geometry and the header every message starts with. Shared by the
 * sender and receiver in rpc.c and by the check in wire_check.c.
 */
#ifndef LITE_RPC_WIRE_H
#define LITE_RPC_WIRE_H

#include <linux/types.h>

#define LITE_RPC_RING_SHIFT	22	/* 4 MiB: > 2 * (largest message) */
#define LITE_RPC_RING_SIZE	(1U << LITE_RPC_RING_SHIFT)
#define LITE_RPC_ALIGN		64	/* every message starts on this */
#define LITE_RPC_MAGIC		0x4c525043U	/* "CPRL" */
#define LITE_CALL_ID_MAX	0x0fffffff	/* 28 bits of a reply's immediate */

/* At the start of every message in a ring. Little endian. */
struct lite_rpc_hdr {
	__le32	magic;
	__le32	len;		/* payload bytes after the header */
	__le32	call_id;	/* 0: one-way */
	__le32	reply_max;
	__le64	reply_addr;	/* DMA address on the caller */
	__le32	reply_rkey;
	__le32	reserved;
};

#endif /* LITE_RPC_WIRE_H */
