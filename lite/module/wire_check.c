// SPDX-License-Identifier: GPL-2.0
/*
 * Checks of what arrives from the network, before anything acts on it:
 * control messages, LMR descriptions and RPC requests in a ring from other
 * nodes (wire.h), messages from the manager
 * (include/lite_proto.h). Each check is a pure function of the bytes and of
 * the few facts its caller passes in (the sender, our id, K): no locks, no
 * allocation, no global state. That lets this same file be built into
 * lite.ko and, through fuzz/kshim.h, into a unit test and a libFuzzer
 * harness (fuzz/). A check answers 0 or -EPROTO; the caller logs and drops.
 */
#ifdef __KERNEL__
#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include "lite_priv.h"
#else
#include "../fuzz/kshim.h"
#endif

#include "wire_check.h"
#include "../include/uapi/lite.h"

/* lmr.c's LITE_CHUNK_SHIFT_MAX: 4 MiB, the buddy allocator's largest. */
#define LITE_DESC_SHIFT_MAX	22

/**
 * lite_check_ctrl_hdr() - check the header of a control message
 * @buf: the message as received
 * @len: its length
 * @peer_id: the node it came from (the QP's peer)
 * @peer_gen: that node's generation
 * @type: set to LITE_CTRL_*, with LITE_CTRL_RESP for a response
 * @plen: set to the payload's length (after the header)
 *
 * The payload itself is left to lite_check_ctrl_len() and to whoever
 * serves the request.
 *
 * Return: 0, or -EPROTO (and @type, @plen untouched).
 */
int lite_check_ctrl_hdr(const void *buf, u32 len, u16 peer_id, u32 peer_gen,
			u16 *type, u32 *plen)
{
	const struct lite_ctrl_hdr *hdr = buf;
	u16 t, base;
	u32 status;

	if (len < sizeof(*hdr) || le32_to_cpu(hdr->magic) != LITE_CTRL_MAGIC)
		return -EPROTO;
	t = le16_to_cpu(hdr->type);
	base = t & ~LITE_CTRL_RESP;
	status = le32_to_cpu(hdr->status);
	/* A peer speaks for itself only: a forged source is a bug or worse. */
	if (le32_to_cpu(hdr->len) != len - sizeof(*hdr) ||
	    le32_to_cpu(hdr->budget_ms) > LITE_CTRL_BUDGET_MAX_MS ||
	    (t & LITE_CTRL_RESP && hdr->budget_ms) ||
	    le16_to_cpu(hdr->src_node) != peer_id ||
	    le32_to_cpu(hdr->src_gen) != peer_gen ||
	    !base || base >= LITE_CTRL_NR_TYPES)
		return -EPROTO;
	/* A response carries 0 or a positive errno; a request, nothing. */
	if (t & LITE_CTRL_RESP ? status >= MAX_ERRNO : status != 0)
		return -EPROTO;
	*type = t;
	*plen = len - sizeof(*hdr);
	return 0;
}

/*
 * Every control type: its name in the counters (stats.c) and the size of
 * its payloads, a request's and a successful response's (wire.h). Update
 * with enum lite_ctrl_type: fuzz/test_wire fails on a type missing here.
 */
const struct lite_ctrl_type_info lite_ctrl_types[LITE_CTRL_NR_TYPES] = {
	[LITE_CTRL_ALLOC]	= { "alloc", sizeof(struct lite_ctrl_alloc), 0 },
	[LITE_CTRL_FREE]	= { "free", sizeof(struct lite_ctrl_lmr), 0 },
	[LITE_CTRL_PUBLISH]	= { "publish", sizeof(struct lite_ctrl_publish), 0 },
	[LITE_CTRL_ASK]		= { "ask", sizeof(struct lite_ctrl_ask), 0 },
	[LITE_CTRL_REVOKE]	= { "revoke", sizeof(struct lite_ctrl_lmr), 0 },
	[LITE_CTRL_MEMSET]	= { "memset", sizeof(struct lite_ctrl_memset), 0 },
	[LITE_CTRL_MEMMOVE]	= { "memmove", sizeof(struct lite_ctrl_memmove), 0 },
	[LITE_CTRL_RPC_OPEN]	= { "rpc_open", sizeof(struct lite_ctrl_rpc_open),
				  sizeof(struct lite_ctrl_rpc_ring) },
	[LITE_CTRL_ATOMIC]	= { "atomic", sizeof(struct lite_ctrl_atomic),
				  sizeof(struct lite_ctrl_u64) },
	[LITE_CTRL_LOCK_CREATE]	= { "lock_create", sizeof(struct lite_ctrl_lock),
				  sizeof(struct lite_ctrl_u64) },
	[LITE_CTRL_LOCK_ASK]	= { "lock_ask", sizeof(struct lite_ctrl_lock),
				  sizeof(struct lite_ctrl_u64) },
	[LITE_CTRL_LOCK]	= { "lock", sizeof(struct lite_ctrl_lock),
				  sizeof(struct lite_ctrl_u64) },
	[LITE_CTRL_UNLOCK]	= { "unlock", sizeof(struct lite_ctrl_lock), 0 },
	[LITE_CTRL_BARRIER]	= { "barrier", sizeof(struct lite_ctrl_barrier),
				  sizeof(struct lite_ctrl_u64) },
	[LITE_CTRL_WAKE]	= { "wake", sizeof(struct lite_ctrl_wake), 0 },
	[LITE_CTRL_CTX_GONE]	= { "ctx_gone", sizeof(struct lite_ctrl_lock), 0 },
	[LITE_CTRL_LOCK_DESTROY] = { "lock_destroy", sizeof(struct lite_ctrl_lock), 0 },
	[LITE_CTRL_RPC_CLOSE]	= { "rpc_close", sizeof(struct lite_ctrl_rpc_open), 0 },
	[LITE_CTRL_CANCEL]	= { "cancel", sizeof(struct lite_ctrl_cancel), 0 },
	[LITE_CTRL_RPC_FORGET]	= { "rpc_forget", sizeof(struct lite_ctrl_rpc_forget), 0 },
};

/**
 * lite_check_ctrl_len() - check a control message's payload length
 * @type: LITE_CTRL_*, with LITE_CTRL_RESP for a response
 * @plen: the payload's length
 *
 * A request's payload has its type's size (wire.h). A response's is
 * empty (a failed request, or a type that returns nothing), its type's
 * size, or for ALLOC and ASK an LMR description: a header and whole chunk
 * addresses, checked further by lite_check_lmr_desc().
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_ctrl_len(u16 type, u32 plen)
{
	u16 base = type & ~LITE_CTRL_RESP;

	if (!base || base >= LITE_CTRL_NR_TYPES)
		return -EPROTO;
	if (!(type & LITE_CTRL_RESP))
		return plen == lite_ctrl_types[base].req_size ? 0 : -EPROTO;
	if (!plen)
		return 0;
	if (base == LITE_CTRL_ALLOC || base == LITE_CTRL_ASK)
		return plen >= sizeof(struct lite_lmr_desc) &&
		       plen <= LITE_CTRL_MAX_PAYLOAD &&
		       !((plen - sizeof(struct lite_lmr_desc)) % sizeof(__le64)) ?
		       0 : -EPROTO;
	return plen == lite_ctrl_types[base].resp_size ? 0 : -EPROTO;
}

/**
 * lite_check_lmr_desc() - check an LMR description from its owner
 * @d: the description (possibly from the network)
 * @len: bytes readable at @d
 *
 * Accepted, it names a non-empty LMR of at most LITE_LMR_MAX_SIZE bytes in
 * chunks of 2^PAGE_SHIFT .. 2^22 bytes, exactly as many chunk addresses as
 * the size needs and all of them within @len, a permission set that is
 * non-empty and known, and known flags.
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_lmr_desc(const struct lite_lmr_desc *d, u32 len)
{
	u32 n, perm;
	u64 size;

	if (len < sizeof(*d))
		return -EPROTO;
	size = le64_to_cpu(d->size);
	n = le32_to_cpu(d->nr_chunks);
	perm = le32_to_cpu(d->perm);
	if (d->chunk_shift < PAGE_SHIFT || d->chunk_shift > LITE_DESC_SHIFT_MAX)
		return -EPROTO;
	/* The size is bounded first: rounding it up must not wrap. */
	if (!size || size > LITE_LMR_MAX_SIZE ||
	    n != DIV_ROUND_UP_ULL(size, 1ULL << d->chunk_shift))
		return -EPROTO;
	if (n > LITE_LMR_MAX_CHUNKS || len < struct_size(d, chunk, n))
		return -EPROTO;
	if (!perm || perm & ~LITE_PERM_ALL || !le32_to_cpu(d->lmr_id))
		return -EPROTO;
	if (d->flags & ~LITE_DESC_NIC_ATOMIC || d->reserved[0] || d->reserved[1])
		return -EPROTO;
	return 0;
}

/**
 * lite_check_rpc_place() - check where an RPC request landed in its ring
 * @byte_len: the RDMA write's length (header and payload)
 * @off: the ring offset the sender named in the immediate
 * @pos: where the next request is due: bytes received so far, modulo
 *	@ring_size (a multiple of LITE_RPC_ALIGN)
 * @ring_size: the ring's size, a multiple of LITE_RPC_ALIGN, at most 2^31
 * @span: set to the ring bytes the request uses up: its length rounded up
 *	to LITE_RPC_ALIGN, plus the tail it skipped if it wrapped
 *
 * Requests fill the ring in order: one starts at @pos, or at 0 when it
 * does not fit in the tail. Accepted, it lies within the ring, and the next
 * one is due at (@pos + @span) % @ring_size.
 *
 * Return: 0, or -EPROTO (and @span untouched).
 */
int lite_check_rpc_place(u32 byte_len, u32 off, u32 pos, u32 ring_size,
			 u32 *span)
{
	u32 s;

	/* Bounded by the ring, neither ALIGN() nor the sums below wrap. */
	if (byte_len < sizeof(struct lite_rpc_hdr) || byte_len > ring_size ||
	    off > ring_size)
		return -EPROTO;
	s = ALIGN(byte_len, LITE_RPC_ALIGN);
	if (s > ring_size - off)
		return -EPROTO;
	if (off != pos) {
		/* Only a wrap may skip, and only a tail too short for it. */
		if (off || ring_size - pos >= s)
			return -EPROTO;
		s += ring_size - pos;
	}
	*span = s;
	return 0;
}

/**
 * lite_check_rpc_hdr() - check the header of an RPC request
 * @hdr: the header, at the start of the request in the ring
 * @byte_len: the request's length as the RDMA write delivered it
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_rpc_hdr(const struct lite_rpc_hdr *hdr, u32 byte_len)
{
	/* The call id must fit the reply's immediate. */
	if (byte_len < sizeof(*hdr) ||
	    le32_to_cpu(hdr->magic) != LITE_RPC_MAGIC ||
	    le32_to_cpu(hdr->len) != byte_len - sizeof(*hdr) ||
	    le32_to_cpu(hdr->call_id) > LITE_CALL_ID_MAX || hdr->reserved)
		return -EPROTO;
	return 0;
}

/* Payload sizes of what the manager sends a node; 0: never sent to one. */
static const u16 lite_mgr_msg_size[] = {
	[LITE_MSG_WELCOME]	= sizeof(struct lite_msg_welcome),
	[LITE_MSG_REJECT]	= sizeof(struct lite_msg_reject),
	[LITE_MSG_PEER_UP]	= sizeof(struct lite_msg_peer_up),
	[LITE_MSG_PEER_DOWN]	= sizeof(struct lite_msg_peer_down),
	[LITE_MSG_QP_INFO]	= sizeof(struct lite_msg_qp_info),
	[LITE_MSG_CHALLENGE]	= sizeof(struct lite_msg_challenge),
	[LITE_MSG_ECHO]		= sizeof(struct lite_msg_echo),
};

/**
 * lite_check_mgr_hdr() - check the header of a message from the manager
 * @hdr: the header
 * @type: set to its LITE_MSG_* type
 * @len: set to its payload's length, at most LITE_MSG_MAX_PAYLOAD
 *
 * Every type has one payload size, so the caller can read exactly @len
 * more bytes into a buffer sized for the largest.
 *
 * Return: 0, or -EPROTO (and @type, @len untouched).
 */
int lite_check_mgr_hdr(const struct lite_msg_hdr *hdr, u16 *type, u32 *len)
{
	u16 t = le16_to_cpu(hdr->type);
	u32 l = le32_to_cpu(hdr->length);

	if (le32_to_cpu(hdr->magic) != LITE_PROTO_MAGIC ||
	    le16_to_cpu(hdr->version) != LITE_PROTO_VERSION || hdr->reserved)
		return -EPROTO;
	if (t >= ARRAY_SIZE(lite_mgr_msg_size) || !lite_mgr_msg_size[t] ||
	    l != lite_mgr_msg_size[t])
		return -EPROTO;
	*type = t;
	*len = l;
	return 0;
}

/**
 * lite_check_mgr_welcome() - check the manager's WELCOME
 * @w: the payload
 * @k: the QPs per peer this node asked for
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_mgr_welcome(const struct lite_msg_welcome *w, unsigned int k)
{
	u16 id = le16_to_cpu(w->node_id);

	/*
	 * Generation 0 means "any" to lite_peer_get() and "not joined" to
	 * lite_node_gen(); the manager never hands it out.
	 */
	if (!id || id >= LITE_MAX_NODES || le16_to_cpu(w->qps_per_peer) != k ||
	    !le32_to_cpu(w->generation))
		return -EPROTO;
	return 0;
}

/* Another member: not 0, not us, within the peer table. */
static bool lite_check_peer_id(u16 id, u16 self_id)
{
	return id && id < LITE_MAX_NODES && id != self_id;
}

/**
 * lite_check_mgr_peer_up() - check a PEER_UP from the manager
 * @up: the payload
 * @self_id: this node's id
 * @self: this node's port address (as it joined)
 *
 * Whether the peer is new or a later incarnation is the caller's business.
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_mgr_peer_up(const struct lite_msg_peer_up *up, u16 self_id,
			   const struct lite_port_addr *self)
{
	const struct lite_port_addr *a = &up->addr;

	/* Generation 0: see lite_check_mgr_welcome(). */
	if (!lite_check_peer_id(le16_to_cpu(up->node_id), self_id) ||
	    up->reserved || !le32_to_cpu(up->generation))
		return -EPROTO;
	/*
	 * An RC connection needs both ends on the same link layer and, on
	 * RoCE, the same GID type (v1 frames are not UDP/IP).
	 */
	if (a->link_layer != self->link_layer ||
	    a->gid_type != self->gid_type || !a->rd_atom ||
	    a->mtu < IB_MTU_256 || a->mtu > IB_MTU_4096 ||
	    a->reserved[0] || a->reserved[1])
		return -EPROTO;
	/* The name is logged as a string. */
	if (strnlen(up->name, LITE_NAME_LEN) == LITE_NAME_LEN)
		return -EPROTO;
	return 0;
}

/**
 * lite_check_mgr_qp_info() - check a QP_INFO forwarded by the manager
 * @info: the payload
 * @self_id: this node's id
 * @k: the cluster's QPs per peer
 *
 * Whether it is for the current incarnations of both ends (src_gen,
 * dst_node, dst_gen) is the caller's business: a stale one is no error.
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_mgr_qp_info(const struct lite_msg_qp_info *info, u16 self_id,
			   unsigned int k)
{
	static const struct lite_qp_endpoint zero;
	unsigned int i, set = 0, n = le16_to_cpu(info->nr_qps);

	if (!lite_check_peer_id(le16_to_cpu(info->src_node), self_id) ||
	    info->reserved || n != k || !n || n > LITE_MAX_QPS_PER_PEER)
		return -EPROTO;
	for (i = 0; i < LITE_MAX_QPS_PER_PEER; i++) {
		const struct lite_qp_endpoint *e = &info->qp[i];

		/* Entries not SET (and all past nr_qps) are zero. */
		if (i >= n || !(e->flags & LITE_QP_EP_SET)) {
			if (memcmp(e, &zero, sizeof(*e)))
				return -EPROTO;
			continue;
		}
		/* 24-bit fields */
		if (le32_to_cpu(e->qpn) > 0xffffff ||
		    le32_to_cpu(e->psn) > 0xffffff ||
		    e->flags & ~LITE_QP_EP_FLAGS ||
		    e->reserved[0] || e->reserved[1] || e->reserved[2])
			return -EPROTO;
		set++;
	}
	return set ? 0 : -EPROTO;
}

/**
 * lite_check_mgr_peer_down() - check a PEER_DOWN from the manager
 * @down: the payload
 * @self_id: this node's id
 *
 * A generation that is not the peer's current one is the caller's
 * business: such a PEER_DOWN is stale, not malformed.
 *
 * Return: 0, or -EPROTO.
 */
int lite_check_mgr_peer_down(const struct lite_msg_peer_down *down,
			     u16 self_id)
{
	if (!lite_check_peer_id(le16_to_cpu(down->node_id), self_id) ||
	    down->reserved)
		return -EPROTO;
	return 0;
}
