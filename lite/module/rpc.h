/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LITE RPC internals (docs/rpc.md) shared by its five files, split the
 * way rtrs splits its client and server: rpc.c posts messages and sorts
 * incoming immediates, rpc_client.c is the sending side (our rings on
 * other nodes), rpc_call.c the calls waiting for replies, rpc_server.c
 * the receiving side (rings on this node, ports), rpc_token.c the
 * replies owed. The ring and the header of a request, which cross the
 * wire: wire.h.
 */
#ifndef LITE_RPC_H
#define LITE_RPC_H

#include "lite_priv.h"

/* The immediate: kind in bits 31-30. */
#define LITE_IMM_KIND(imm)	((imm) >> 30)
#define LITE_IMM_REQ		0	/* port 29-24, ring offset / 64 23-0 */
#define LITE_IMM_REPLY		1	/* error 29-28, call id 27-0 */
#define LITE_IMM_ACK		2	/* port 29-24, consumed / 64 mod 2^24 */
#define LITE_IMM_PORT(imm)	(((imm) >> 24) & 0x3f)
#define LITE_IMM_LOW24(imm)	((imm) & 0xffffff)
#define LITE_IMM_ERR(imm)	(((imm) >> 28) & 0x3)
#define LITE_IMM_CALL(imm)	((imm) & 0x0fffffff)

enum { LITE_RPC_OK, LITE_RPC_EMSGSIZE, LITE_RPC_ECONNREFUSED };

/*
 * A ring's backlog: at most this many messages a sender has written and
 * the receiver not acknowledged (besides at most the ring's bytes). The
 * receiver holds a descriptor for each, made with the ring, so nothing is
 * allocated where requests arrive; it acknowledges every quarter of it.
 */
#define LITE_RPC_RING_MSGS	1024

struct lite_rpc_tx_ring;

/* A send in flight: owns its buffer until the completion. */
struct lite_rpc_tx {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	u64			dma;
	u32			len;
	u32			call_id;	/* a request's, failed on error */
	struct lite_rpc_tx_ring	*ring;		/* a request's: in flight there */
	u16			reply_node;	/* a reply's with data: counted, */
	u32			reply_call;	/* for this call */
	u8			data[];
};

/* rpc.c: posting */
int lite_rpc_post(struct lite_qp *lqp, struct lite_rpc_tx *tx, u32 len,
		  u32 imm, u64 remote, u32 rkey, bool awaited);
int lite_rpc_post_imm(u16 node, u32 gen, u32 imm);

static inline u32 lite_imm_reply(int err, u32 call_id)
{
	return LITE_IMM_REPLY << 30 | err << 28 | call_id;
}

/* rpc_client.c: our rings on other nodes, and sending into them */
extern unsigned int lite_rpc_timeout_ms;
struct lite_rpc_call;
void lite_rpc_rx_ack(struct lite_peer *peer, u32 imm);
void lite_rpc_client_peer_down(u16 node);
void lite_rpc_tx_sent(struct lite_rpc_tx_ring *tr, bool ok);
int lite_rpc_send_msg(u16 node, u32 port, struct iov_iter *src, u32 len,
		      struct lite_rpc_call *call, u32 call_id, int prio);

/* rpc_call.c: calls waiting for their replies */
struct lite_rpc_call {
	struct completion	done;
	u16			node;
	int			status;
	u32			len;
	u32			max;
	struct lite_piece	mem;		/* the reply buffer */
	void			*buf;		/* its kernel address */
	u64			dma;		/* its DMA address */
	struct lite_dev		*dev;		/* held until the call is freed */
	struct lite_user	*user;		/* charged LITE_RES_CALLS, */
	u64			charged;	/* and these LMR bytes */
	bool			abandoned;	/* the caller gave up */
	u32			id;		/* in lite_rpc_calls */
	/* Once posted: the receiver's generation, the port, where it ended. */
	u32			gen;
	u8			port;
	u64			end;
	/* Once abandoned: when to send RPC_FORGET next, and how often it was. */
	unsigned long		ask_at;
	unsigned int		asks;
};

void lite_rpc_rx_reply(struct lite_peer *peer, u32 imm, u32 byte_len,
		       bool with_data);
void lite_rpc_fail_call(u32 id, int status);
void lite_rpc_call_posted(struct lite_rpc_call *call, u32 gen, u8 port,
			  u64 end);
void lite_rpc_calls_exit(void);
void lite_rpc_calls_peer_down(u16 node);

/* rpc_server.c: what arrives for receivers */
void lite_rpc_rx_request(struct lite_peer *peer, u32 imm, u32 byte_len);
void lite_rpc_server_peer_down(u16 node);

/* rpc_token.c: the replies this node owes */
struct lite_rpc_token {
	struct lite_ctx		*ctx;		/* owes it; NULL: not owed */
	struct list_head	link;		/* ctx->replies, or free */
	u64			uses;		/* of the slot */
	u64			reply_addr;	/* where the reply goes */
	u32			slot;		/* for good */
	u32			gen;
	u32			call_id;
	u32			reply_max;
	u32			reply_rkey;
	u16			node;
	bool			forgotten;	/* RPC_FORGET: reply dropped */
};

int lite_rpc_token_new(struct lite_ctx *ctx,
		       const struct lite_rpc_token *fill, u64 *desc);
struct lite_rpc_token *lite_rpc_token_take(struct lite_ctx *ctx, u64 desc,
					   bool replying);
void lite_rpc_token_done(struct lite_rpc_token *tok, bool replying);
void lite_rpc_replied(u16 node, u32 call_id);
bool lite_rpc_tokens_forget(u16 node, u32 gen, u32 call_id);
void lite_rpc_tokens_ctx_release(struct lite_ctx *ctx);
void lite_rpc_tokens_leave(void);
void lite_rpc_tokens_exit(void);

#endif /* LITE_RPC_H */
