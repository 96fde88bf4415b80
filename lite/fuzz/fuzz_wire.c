// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lite/module/wire_check.c. The first input byte picks a
 * check (low 7 bits) and a mode (top bit). The check's parameters (the
 * sender, our id, K, the ring's geometry) come next, a fixed number of
 * bytes each, then the message; a short input reads as zeros.
 *
 * In the default mode every parameter and message byte is XORed onto a
 * valid one, so the empty input is accepted and small mutations explore
 * the edges of what is: a check that needs four fields right at once (a
 * magic, a version, a type, a length) is reached in the first second
 * rather than never. XOR loses nothing: every message is still some input.
 * In the raw mode (top bit set) the bytes are used as they are.
 *
 * Each message is copied into a buffer of exactly its length, so ASan sees
 * a read past its end. Where a check accepts, what the kernel goes on to
 * rely on is asserted, and a violation traps.
 * Build: make fuzz. Run: ./fuzz_wire -max_total_time=60 CORPUS_DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "invariant.h"
#include "kshim.h"
#include "wire_valid.h"
#include "../include/uapi/lite.h"

enum {
	PICK_CTRL,		/* a control message, as lite_ctrl_recv() sees it */
	PICK_CTRL_LEN,
	PICK_LMR_DESC,
	PICK_RPC,		/* placement, then header: lite_rpc_rx_request() */
	PICK_MGR,		/* header, then payload: lite_recv_msg() and on */
	PICK_WELCOME,
	PICK_PEER_UP,
	PICK_QP_INFO,
	PICK_PEER_DOWN,
	NR_PICKS,
};
#define PICK_RAW	0x80

/* What the valid messages are (PEER, SELF, K: wire_valid.h). */
#define NR_CHUNKS	4	/* in the LMR descriptions */
#define CTRL_TYPE	(LITE_CTRL_RESP | LITE_CTRL_ALLOC)
#define DESC_BYTES	DESC_LEN(NR_CHUNKS)
#define DESC_SIZE	(3 * 4096 + 1)
#define RPC_SHIFT	16	/* LITE_RPC_ALIGN << 16: the kernel's 4 MiB */
#define RPC_POS		(LITE_RPC_RING_SIZE - 128)
#define RPC_LEN		132	/* wraps from RPC_POS */
#define BIG		8192	/* longer than any message */

/* A cursor over the input; @raw: no valid message underneath. */
struct input {
	const uint8_t *p;
	size_t len;
	bool raw;
};

/* The next @bytes bytes as a little-endian number, XORed onto @valid. */
static u64 take(struct input *in, unsigned int bytes, u64 valid)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes && in->len; i++, in->p++, in->len--)
		v |= (u64)*in->p << (8 * i);
	return in->raw ? v : v ^ valid;
}

/*
 * The next @len bytes in a buffer of their own, XORed onto @valid (@vlen
 * bytes, zeros after them). Past the input's end they read as zeros.
 */
static void *take_msg(struct input *in, size_t len, const void *valid,
		      size_t vlen)
{
	size_t i, n = len < in->len ? len : in->len;
	u8 *buf = calloc(1, len ? len : 1);

	check(buf);
	memcpy(buf, in->p, n);
	in->p += n;
	in->len -= n;
	for (i = 0; !in->raw && i < len && i < vlen; i++)
		buf[i] ^= ((const u8 *)valid)[i];
	return buf;
}

/* ---- valid messages ------------------------------------------------------ */

/* The response to an ALLOC: a header and an LMR description. */
static union {
	struct lite_ctrl_hdr	hdr;
	u8			bytes[sizeof(struct lite_ctrl_hdr) + DESC_BYTES];
} valid_ctrl;

static union {
	struct lite_lmr_desc	d;
	u8			bytes[DESC_BYTES];
} valid_lmr;

static struct lite_rpc_hdr valid_rpc;
static struct lite_msg_welcome valid_wel;
static struct lite_msg_peer_up valid_up;
static struct lite_msg_qp_info valid_qpi;
static struct lite_msg_peer_down valid_down;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	valid_ctrl.hdr = valid_ctrl_hdr(CTRL_TYPE, DESC_BYTES);
	valid_lmr_desc((void *)(&valid_ctrl.hdr + 1), DESC_BYTES, DESC_SIZE,
		       12, NR_CHUNKS);
	valid_lmr_desc(&valid_lmr.d, DESC_BYTES, DESC_SIZE, 12, NR_CHUNKS);
	valid_rpc = valid_rpc_hdr(RPC_LEN - sizeof(valid_rpc));
	valid_wel = valid_welcome();
	valid_up = valid_peer_up();
	valid_qpi = valid_qp_info(K);
	valid_down = valid_peer_down();
	return 0;
}

/* ---- the checks, and what their callers rely on -------------------------- */

static bool lite_ctrl_has_desc(u16 type)
{
	u16 base = type & ~LITE_CTRL_RESP;

	return type & LITE_CTRL_RESP &&
	       (base == LITE_CTRL_ALLOC || base == LITE_CTRL_ASK);
}

/* lite_handle_new() trusts nr_chunks, chunk_shift and size from here on. */
static void fuzz_lmr_desc(const struct lite_lmr_desc *d, u32 len)
{
	u64 size, sum = 0;
	u32 i, n;

	if (lite_check_lmr_desc(d, len))
		return;
	check(len >= sizeof(*d));
	size = le64_to_cpu(d->size);
	n = le32_to_cpu(d->nr_chunks);
	check(d->chunk_shift >= PAGE_SHIFT && d->chunk_shift <= 22);
	check(size && size <= LITE_LMR_MAX_SIZE);
	check(n && n <= LITE_LMR_MAX_CHUNKS);
	check(sizeof(*d) + (u64)n * sizeof(d->chunk[0]) <= len);
	/* Exactly the chunks the size needs: the last one is not empty. */
	check((u64)n << d->chunk_shift >= size);
	check((u64)(n - 1) << d->chunk_shift < size);
	check(le32_to_cpu(d->perm) && !(le32_to_cpu(d->perm) & ~LITE_PERM_ALL));
	check(le32_to_cpu(d->lmr_id));
	/* What lite_handle_new() copies: ASan objects if it is not there. */
	for (i = 0; i < n; i++)
		sum += le64_to_cpu(d->chunk[i]);
	(void)sum;
}

static void fuzz_ctrl(struct input *in)
{
	u16 peer = take(in, 2, PEER), type = 0;
	u32 gen = take(in, 4, PEER_GEN), plen = 0;
	u32 len = take(in, 2, sizeof(valid_ctrl)) % BIG;
	const struct lite_ctrl_hdr *hdr;
	void *buf;

	buf = take_msg(in, len, &valid_ctrl, sizeof(valid_ctrl));
	hdr = buf;
	if (!lite_check_ctrl_hdr(buf, len, peer, gen, &type, &plen)) {
		u16 base = type & ~LITE_CTRL_RESP;

		check(len >= sizeof(*hdr));
		check(plen == len - sizeof(*hdr));
		check(le32_to_cpu(hdr->len) == plen);
		check(le16_to_cpu(hdr->type) == type);
		check(base && base < LITE_CTRL_NR_TYPES);
		check(le16_to_cpu(hdr->src_node) == peer);
		check(le32_to_cpu(hdr->src_gen) == gen);
		if (type & LITE_CTRL_RESP)
			check(le32_to_cpu(hdr->status) < MAX_ERRNO && !hdr->budget_ms);
		else
			check(!hdr->status &&
			      le32_to_cpu(hdr->budget_ms) <= LITE_CTRL_BUDGET_MAX_MS);
		/* The payload, as the requester or the server gets it. */
		if (!lite_check_ctrl_len(type, plen) && lite_ctrl_has_desc(type) &&
		    plen)
			fuzz_lmr_desc((const void *)(hdr + 1), plen);
	}
	free(buf);
}

static void fuzz_ctrl_len(struct input *in)
{
	u16 type = take(in, 2, CTRL_TYPE);
	u32 plen = take(in, 4, DESC_BYTES);

	if (lite_check_ctrl_len(type, plen))
		return;
	check(type & ~LITE_CTRL_RESP && (type & ~LITE_CTRL_RESP) < LITE_CTRL_NR_TYPES);
	check(plen <= LITE_CTRL_MAX_PAYLOAD);
	if (lite_ctrl_has_desc(type) && plen)
		check(plen >= sizeof(struct lite_lmr_desc) &&
		      !((plen - sizeof(struct lite_lmr_desc)) % sizeof(__le64)));
}

static void fuzz_rpc(struct input *in)
{
	/* Any ring of LITE_RPC_ALIGN .. 2^31 bytes. */
	u32 ring = (u32)LITE_RPC_ALIGN << (take(in, 1, RPC_SHIFT) % 26);
	/* The offset as lite_rpc_rx_request() decodes the immediate. */
	u32 off = (take(in, 3, 0) & 0xffffff) * LITE_RPC_ALIGN;
	u32 pos = take(in, 4, RPC_POS / LITE_RPC_ALIGN) * LITE_RPC_ALIGN % ring;
	u32 byte_len = take(in, 4, RPC_LEN), span = 0;
	struct lite_rpc_hdr *hdr;
	u64 al;

	if (lite_check_rpc_place(byte_len, off, pos, ring, &span))
		return;
	al = ALIGN((u64)byte_len, (u64)LITE_RPC_ALIGN);
	/* What ib_dma_sync_single_for_cpu() and the reader touch. */
	check(byte_len >= sizeof(*hdr));
	check((u64)off + al <= ring);
	if (off == pos) {
		check(span == al);
	} else {
		/* A wrap, and only because the tail was too short. */
		check(!off && ring - pos < al);
		check(span == ring - pos + al);
	}
	/* The next request is due right after this one. */
	check(((u64)pos + span) % ring == ((u64)off + al) % ring);

	hdr = take_msg(in, sizeof(*hdr), &valid_rpc, sizeof(valid_rpc));
	if (!lite_check_rpc_hdr(hdr, byte_len)) {
		check(le32_to_cpu(hdr->magic) == LITE_RPC_MAGIC);
		check(sizeof(*hdr) + (u64)le32_to_cpu(hdr->len) == byte_len);
		check(le32_to_cpu(hdr->call_id) <= LITE_CALL_ID_MAX);
		check(!hdr->reserved);
	}
	free(hdr);
}

/* What a node checks the manager's payloads against: itself. */
struct mgr_ctx {
	u16		self;	/* its id */
	unsigned int	k;	/* the QPs per peer it asked for */
	u8		link;	/* its link layer */
};

static void fuzz_welcome(const void *body, const struct mgr_ctx *c)
{
	const struct lite_msg_welcome *w = body;
	u16 id = le16_to_cpu(w->node_id);

	if (lite_check_mgr_welcome(w, c->k))
		return;
	check(id && id < LITE_MAX_NODES);
	check(le16_to_cpu(w->qps_per_peer) == c->k);
	check(le32_to_cpu(w->generation));
}

/* lite_handle_peer_up() indexes the peer table with the id. */
static void fuzz_peer_up(const void *body, const struct mgr_ctx *c)
{
	const struct lite_msg_peer_up *up = body;
	/* Our own address: the link layer fuzzed, the GID type follows. */
	struct lite_port_addr addr = {
		.link_layer	= c->link,
		.gid_type	= c->link == LITE_LINK_IB ? LITE_GID_IB :
						    LITE_GID_ROCE_V2,
	};
	u16 id = le16_to_cpu(up->node_id);

	if (lite_check_mgr_peer_up(up, c->self, &addr))
		return;
	check(id && id < LITE_MAX_NODES && id != c->self);
	check(le32_to_cpu(up->generation));
	check(up->addr.link_layer == c->link);
	check(up->addr.gid_type == addr.gid_type && up->addr.rd_atom);
	check(up->addr.mtu >= IB_MTU_256 && up->addr.mtu <= IB_MTU_4096);
	check(!up->reserved && !up->addr.reserved[0] && !up->addr.reserved[1]);
	check(memchr(up->name, '\0', LITE_NAME_LEN));
}

/* lite_peer_take_qp_info() reads the SET entries of K and connects QPs with them. */
static void fuzz_qp_info(const void *body, const struct mgr_ctx *c)
{
	const struct lite_msg_qp_info *q = body;
	u16 src = le16_to_cpu(q->src_node);
	unsigned int i, n = le16_to_cpu(q->nr_qps);

	if (lite_check_mgr_qp_info(q, c->self, c->k))
		return;
	check(src && src < LITE_MAX_NODES && src != c->self);
	check(n == c->k && n >= 1 && n <= LITE_MAX_QPS_PER_PEER);
	check(!q->reserved);
	for (i = 0; i < LITE_MAX_QPS_PER_PEER; i++) {
		const struct lite_qp_endpoint *e = &q->qp[i];

		check(le32_to_cpu(e->qpn) < 1U << 24);
		check(le32_to_cpu(e->psn) < 1U << 24);
		check(!(e->flags & ~LITE_QP_EP_FLAGS));
		if (i >= n || !(e->flags & LITE_QP_EP_SET))
			check(!e->qpn && !e->psn && !e->epoch && !e->flags);
	}
}

static void fuzz_peer_down(const void *body, const struct mgr_ctx *c)
{
	const struct lite_msg_peer_down *d = body;
	u16 id = le16_to_cpu(d->node_id);

	if (lite_check_mgr_peer_down(d, c->self))
		return;
	check(id && id < LITE_MAX_NODES && id != c->self);
	check(!d->reserved);
}

/*
 * Indexed by every type lite_check_mgr_hdr() accepts: the valid payload
 * the input is XORed onto, and its check. REJECT's reason and
 * CHALLENGE's nonce and ECHO's cookie have neither: any will do (the node
 * only signs the nonce back, and compares the cookie with its own).
 */
static const struct {
	const void	*valid;
	void		(*fuzz)(const void *body, const struct mgr_ctx *c);
} mgr_body[LITE_MSG_ECHO + 1] = {
	[LITE_MSG_WELCOME]	= { &valid_wel, fuzz_welcome },
	[LITE_MSG_PEER_UP]	= { &valid_up, fuzz_peer_up },
	[LITE_MSG_PEER_DOWN]	= { &valid_down, fuzz_peer_down },
	[LITE_MSG_QP_INFO]	= { &valid_qpi, fuzz_qp_info },
};

/* The payload of @type, @len bytes from the input, and its check. */
static void fuzz_mgr_body(struct input *in, u16 type, u32 len,
			  const struct mgr_ctx *c)
{
	const void *valid = mgr_body[type].valid;
	void *body = take_msg(in, len, valid, valid ? len : 0);

	if (mgr_body[type].fuzz)
		mgr_body[type].fuzz(body, c);
	free(body);
}

/* A header, then the payload it announces, then that payload's check. */
static void fuzz_mgr(struct input *in)
{
	struct lite_msg_hdr *hdr = calloc(1, sizeof(*hdr));
	struct mgr_ctx c;
	u16 type = 0;
	u32 len = 0;

	c.self = take(in, 2, SELF);
	c.k = take(in, 1, K);
	c.link = take(in, 1, LITE_LINK_ETHERNET);
	/* Field by field: the length is XORed onto the one for the type. */
	check(hdr);
	hdr->magic = cpu_to_le32(take(in, 4, LITE_PROTO_MAGIC));
	hdr->version = cpu_to_le16(take(in, 2, LITE_PROTO_VERSION));
	hdr->type = cpu_to_le16(take(in, 2, LITE_MSG_QP_INFO));
	hdr->length = cpu_to_le32(take(in, 4,
				       valid_mgr_len(le16_to_cpu(hdr->type))));
	hdr->reserved = cpu_to_le32(take(in, 4, 0));
	if (lite_check_mgr_hdr(hdr, &type, &len)) {
		free(hdr);
		return;
	}
	/* lite_recv_msg() reads @len bytes into a union of the payloads. */
	check(le32_to_cpu(hdr->magic) == LITE_PROTO_MAGIC);
	check(le16_to_cpu(hdr->version) == LITE_PROTO_VERSION && !hdr->reserved);
	check(type >= LITE_MSG_WELCOME && type <= LITE_MSG_ECHO);
	check(len == le32_to_cpu(hdr->length) && len <= LITE_MSG_MAX_PAYLOAD);
	check(len == valid_mgr_len(type));
	free(hdr);
	fuzz_mgr_body(in, type, len, &c);
}

/*
 * A payload alone, for each of its picks: its type, and how many input
 * bytes give our id, K and the link layer, in that order (0: its check
 * takes none).
 */
struct body_pick {
	u16	type;
	u8	self_bytes, k_bytes, link_bytes;
};

static const struct body_pick body_picks[] = {
	[PICK_WELCOME - PICK_WELCOME]	= { LITE_MSG_WELCOME, 0, 2, 0 },
	[PICK_PEER_UP - PICK_WELCOME]	= { LITE_MSG_PEER_UP, 2, 0, 1 },
	[PICK_QP_INFO - PICK_WELCOME]	= { LITE_MSG_QP_INFO, 2, 1, 0 },
	[PICK_PEER_DOWN - PICK_WELCOME]	= { LITE_MSG_PEER_DOWN, 2, 0, 0 },
};

static void fuzz_body_alone(struct input *in, const struct body_pick *p)
{
	struct mgr_ctx c;

	/* One after the other: the input's order. */
	c.self = take(in, p->self_bytes, SELF);
	c.k = take(in, p->k_bytes, K);
	c.link = take(in, p->link_bytes, LITE_LINK_ETHERNET);
	fuzz_mgr_body(in, p->type, valid_mgr_len(p->type), &c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size, false };
	unsigned int pick = take(&in, 1, 0);
	u32 len;
	void *msg;

	in.raw = pick & PICK_RAW;
	pick = (pick & ~PICK_RAW) % NR_PICKS;
	switch (pick) {
	case PICK_CTRL:
		fuzz_ctrl(&in);
		break;
	case PICK_CTRL_LEN:
		fuzz_ctrl_len(&in);
		break;
	case PICK_LMR_DESC:
		len = take(&in, 2, sizeof(valid_lmr)) % BIG;
		msg = take_msg(&in, len, &valid_lmr, sizeof(valid_lmr));
		fuzz_lmr_desc(msg, len);
		free(msg);
		break;
	case PICK_RPC:
		fuzz_rpc(&in);
		break;
	case PICK_MGR:
		fuzz_mgr(&in);
		break;
	case PICK_WELCOME:
	case PICK_PEER_UP:
	case PICK_QP_INFO:
	case PICK_PEER_DOWN:
		fuzz_body_alone(&in, &body_picks[pick - PICK_WELCOME]);
		break;
	}
	return 0;
}
