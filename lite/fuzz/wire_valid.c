// SPDX-License-Identifier: GPL-2.0
/* The valid messages test_wire and fuzz_wire start from (wire_valid.h). */
#include "kshim.h"
#include "wire_valid.h"
#include "../include/uapi/lite.h"

struct lite_ctrl_hdr valid_ctrl_hdr(u16 type, u32 plen)
{
	struct lite_ctrl_hdr h = {
		.magic		= cpu_to_le32(LITE_CTRL_MAGIC),
		.type		= cpu_to_le16(type),
		.src_node	= cpu_to_le16(PEER),
		.src_gen	= cpu_to_le32(PEER_GEN),
		.req_id		= cpu_to_le64(77),
		.len		= cpu_to_le32(plen),
	};

	return h;
}

void valid_lmr_desc(struct lite_lmr_desc *d, size_t room, u64 size, u8 shift,
		    u32 n)
{
	u32 i;

	*d = (struct lite_lmr_desc) {
		.lmr_id		= cpu_to_le32(12),
		.rkey		= cpu_to_le32(0x1234),
		.size		= cpu_to_le64(size),
		.perm		= cpu_to_le32(LITE_PERM_READ | LITE_PERM_WRITE),
		.chunk_shift	= shift,
		.nr_chunks	= cpu_to_le32(n),
	};
	for (i = 0; i < n && DESC_LEN(i + 1) <= room; i++)
		d->chunk[i] = cpu_to_le64(0x100000ULL * (i + 1));
}

struct lite_rpc_hdr valid_rpc_hdr(u32 plen)
{
	struct lite_rpc_hdr h = {
		.magic		= cpu_to_le32(LITE_RPC_MAGIC),
		.len		= cpu_to_le32(plen),
		.call_id	= cpu_to_le32(5),
		.reply_max	= cpu_to_le32(4096),
		.reply_addr	= cpu_to_le64(0xabc000),
		.reply_rkey	= cpu_to_le32(0x77),
	};

	return h;
}

struct lite_msg_hdr valid_mgr_hdr(u16 type, u32 len)
{
	struct lite_msg_hdr h = {
		.magic		= cpu_to_le32(LITE_PROTO_MAGIC),
		.version	= cpu_to_le16(LITE_PROTO_VERSION),
		.type		= cpu_to_le16(type),
		.length		= cpu_to_le32(len),
	};

	return h;
}

u32 valid_mgr_len(u16 type)
{
	switch (type) {
	case LITE_MSG_WELCOME:
		return sizeof(struct lite_msg_welcome);
	case LITE_MSG_REJECT:
		return sizeof(struct lite_msg_reject);
	case LITE_MSG_PEER_UP:
		return sizeof(struct lite_msg_peer_up);
	case LITE_MSG_PEER_DOWN:
		return sizeof(struct lite_msg_peer_down);
	case LITE_MSG_CHALLENGE:
		return sizeof(struct lite_msg_challenge);
	case LITE_MSG_ECHO:
		return sizeof(struct lite_msg_echo);
	default:	/* QP_INFO, and any type a node never receives */
		return sizeof(struct lite_msg_qp_info);
	}
}

struct lite_msg_welcome valid_welcome(void)
{
	struct lite_msg_welcome w = {
		.node_id	= cpu_to_le16(2),
		.qps_per_peer	= cpu_to_le16(K),
		.generation	= cpu_to_le32(1),
	};

	return w;
}

struct lite_msg_peer_up valid_peer_up(void)
{
	struct lite_msg_peer_up up = {
		.node_id	= cpu_to_le16(2),
		.generation	= cpu_to_le32(5),
		.addr		= {
			.gid		= { 0xfe, 0x80, [15] = 1 },
			.link_layer	= LITE_LINK_ETHERNET,
			.mtu		= IB_MTU_1024,
			.gid_type	= LITE_GID_ROCE_V2,
			.rd_atom	= 16,
		},
		.name		= "node-b",
	};

	return up;
}

struct lite_msg_qp_info valid_qp_info(unsigned int nr_qps)
{
	struct lite_msg_qp_info q = {
		.src_node	= cpu_to_le16(2),
		.dst_node	= cpu_to_le16(SELF),
		.src_gen	= cpu_to_le32(5),
		.dst_gen	= cpu_to_le32(1),
		.nr_qps		= cpu_to_le16(nr_qps),
	};
	unsigned int i;

	for (i = 0; i < nr_qps && i < LITE_MAX_QPS_PER_PEER; i++) {
		q.qp[i].qpn = cpu_to_le32(0x100 + i);
		q.qp[i].psn = cpu_to_le32(0xabcde + i);
		q.qp[i].flags = LITE_QP_EP_SET;
	}
	return q;
}

struct lite_msg_peer_down valid_peer_down(void)
{
	struct lite_msg_peer_down d = {
		.node_id	= cpu_to_le16(2),
		.generation	= cpu_to_le32(5),
	};

	return d;
}
