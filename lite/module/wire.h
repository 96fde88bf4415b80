/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the LITE modules of two nodes send each other (docs/protocol.md,
 * "Node to node"). All fields little endian; the receiver checks every
 * field (wire_check.c) before it acts. Built in user space too (fuzz/).
 *
 * Control messages: sent with IB_WR_SEND on the pool QPs, one message per
 * receive buffer. A request carries an id the response echoes.
 */
#ifndef LITE_WIRE_H
#define LITE_WIRE_H

#include <linux/types.h>

#define LITE_CTRL_MAGIC		0x4c525443U	/* "CTRL" */
#define LITE_CTRL_RESP		0x8000		/* type bit of a response */

enum lite_ctrl_type {
	LITE_CTRL_ALLOC = 1,	/* lite_ctrl_alloc -> lite_lmr_desc */
	LITE_CTRL_FREE,		/* lite_ctrl_lmr -> nothing */
	LITE_CTRL_PUBLISH,	/* lite_ctrl_publish -> nothing */
	LITE_CTRL_ASK,		/* lite_ctrl_ask -> lite_lmr_desc */
	LITE_CTRL_REVOKE,	/* lite_ctrl_lmr -> nothing (owner to mapper) */
	LITE_CTRL_MEMSET,	/* lite_ctrl_memset -> nothing */
	LITE_CTRL_MEMMOVE,	/* lite_ctrl_memmove -> nothing */
	LITE_CTRL_RPC_OPEN,	/* lite_ctrl_rpc_open -> lite_ctrl_rpc_ring */
	LITE_CTRL_ATOMIC,	/* lite_ctrl_atomic -> lite_ctrl_u64 (old) */
	LITE_CTRL_LOCK_CREATE,	/* lite_ctrl_lock (uid) -> lite_ctrl_u64 (number) */
	/* lite_ctrl_lock -> nothing; with a ticket, u64 (0 queued, 1 held) */
	LITE_CTRL_LOCK_ASK,
	LITE_CTRL_LOCK,		/* lite_ctrl_lock -> lite_ctrl_u64 (1: held) */
	LITE_CTRL_UNLOCK,	/* lite_ctrl_lock -> nothing */
	/* lite_ctrl_barrier -> lite_ctrl_u64 (1: done; with ASK, the ticket's) */
	LITE_CTRL_BARRIER,
	LITE_CTRL_WAKE,		/* lite_ctrl_wake -> nothing (home to waiter) */
	LITE_CTRL_CTX_GONE,	/* lite_ctrl_lock (ctx_id only) -> nothing */
	LITE_CTRL_LOCK_DESTROY,	/* lite_ctrl_lock -> nothing */
	LITE_CTRL_RPC_CLOSE,	/* lite_ctrl_rpc_open -> nothing (receiver to sender) */
	LITE_CTRL_CANCEL,	/* lite_ctrl_cancel -> no response: the requester gave up */
	LITE_CTRL_RPC_FORGET,	/* lite_ctrl_rpc_forget -> nothing (caller to receiver) */
	LITE_CTRL_NR_TYPES,
};

struct lite_ctrl_hdr {
	__le32	magic;
	__le16	type;
	__le16	src_node;
	__le32	src_gen;
	__le32	status;		/* response: 0 or a positive errno */
	__le64	req_id;
	__le32	len;		/* payload bytes after the header */
	/*
	 * A request: how long its requester waits for the answer (ms, at
	 * most LITE_CTRL_BUDGET_MAX_MS); the serving node stops working on
	 * it then. 0 in a response.
	 */
	__le32	budget_ms;
};

#define LITE_CTRL_BUDGET_MAX_MS	600000

/* @uid: the requesting user on its node, charged on the owner. */
struct lite_ctrl_alloc {
	__le64	size;
	__le32	flags;		/* LITE_ALLOC_* */
	__le32	uid;
};

struct lite_ctrl_lmr {
	__le32	lmr_id;
	__le32	reserved;
};

/* @uid: the requesting user on its node, for limits and ownership. */
struct lite_ctrl_publish {
	__le64	identifier;
	__le32	lmr_id;
	__le32	perm;
	__le32	password;
	__le32	uid;
};

struct lite_ctrl_ask {
	__le64	identifier;
	__le32	perm;
	__le32	password;
	__le32	uid;
	__le32	reserved;
};

struct lite_ctrl_memset {
	__le32	lmr_id;
	__le32	value;
	__le64	offset;
	__le64	len;
	__le32	uid;		/* charged on the owner */
	__le32	reserved;
};

struct lite_ctrl_memmove {
	__le32	dst_lmr;
	__le32	src_lmr;
	__le64	dst_offset;
	__le64	src_offset;
	__le64	len;
	__le32	uid;		/* charged on the owner */
	__le32	reserved;
};

/* CANCEL: the request @req_id of the sender's, answered or not. */
struct lite_ctrl_cancel {
	__le64	req_id;
};

/*
 * The requester's ring for one port on the receiver (docs/rpc.md); for
 * RPC_CLOSE, the port whose ring the receiver takes back.
 */
struct lite_ctrl_rpc_open {
	__le32	port;
	__le32	reserved;
};

/*
 * RPC_FORGET: the caller gave up on call @call_id, whose request ended at
 * @end in its ring for @port; answered once no reply can be written to
 * its buffer any more (EAGAIN: not yet, ask again).
 */
struct lite_ctrl_rpc_forget {
	__le32	port;
	__le32	call_id;
	__le64	end;
};

struct lite_ctrl_rpc_ring {
	__le64	dma;		/* its address, for @rkey */
	__le32	rkey;
	__le32	size;
	__le32	max_size;	/* largest request the port takes */
	__le32	reserved;
	__le64	head;		/* bytes already spanned in the ring */
};

struct lite_ctrl_atomic {
	__le32	lmr_id;
	__le32	op;		/* LITE_ATOMIC_* */
	__le64	offset;
	__le64	value;
	__le64	compare;
};

struct lite_ctrl_u64 {
	__le64	value;
};

/*
 * LOCK_CREATE, LOCK_ASK, LOCK, UNLOCK, LOCK_DESTROY. UNLOCK with a ticket
 * withdraws that ticket (its waiter gave up) instead; LOCK_ASK with a
 * ticket asks whether it is queued or holds the lock (its WAKE was lost),
 * ESRCH when neither.
 */
struct lite_ctrl_lock {
	__le32	lock;
	__le32	ticket;		/* the waiter's, for WAKE */
	__le64	ctx_id;		/* the open file (context) on the requesting node */
	__le32	uid;		/* its user */
	__le32	reserved;
};

/*
 * Callers of one barrier: the same @uid and @nr. With LITE_BARRIER_ASK in
 * @flags, a waiter asks about its @ticket instead: 1 when it is no longer
 * queued (the barrier completed and its WAKE was lost).
 */
#define LITE_BARRIER_ASK	0x1
struct lite_ctrl_barrier {
	__le32	nr;
	__le32	ticket;
	__le32	uid;
	__le32	flags;		/* LITE_BARRIER_* */
};

struct lite_ctrl_wake {
	__le32	ticket;
	__le32	status;		/* 0 or a positive errno */
};

/*
 * An LMR as its owner describes it to a node that maps it: the address of
 * every chunk in the owner's memory pool. With @rkey 0 (the default), the
 * key that reaches a chunk is its address's upper 32 bits (a pool region's
 * iova is its rkey << 32); otherwise @rkey (the owner's unsafe global rkey)
 * reaches every chunk. Chunks are 1 << chunk_shift bytes, the last one
 * possibly shorter.
 */
/* The owner runs this LMR's atomics on its NIC: post RDMA atomics to it. */
#define LITE_DESC_NIC_ATOMIC	0x1
struct lite_lmr_desc {
	__le32	lmr_id;
	__le32	rkey;
	__le64	size;
	__le32	perm;		/* what the mapper was granted */
	__u8	chunk_shift;
	__u8	flags;		/* LITE_DESC_* */
	__u8	reserved[2];
	__le32	nr_chunks;
	__le32	reserved2;
	__le64	chunk[];
};

#define LITE_CTRL_MAX_PAYLOAD	(LITE_RX_BUF_SIZE - sizeof(struct lite_ctrl_hdr))
#define LITE_LMR_MAX_CHUNKS \
	((LITE_CTRL_MAX_PAYLOAD - sizeof(struct lite_lmr_desc)) / sizeof(__le64))

/*
 * RPC requests (docs/rpc.md): written into the receiver's ring, each
 * starting with this header.
 */
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

#endif /* LITE_WIRE_H */
