/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * LITE cluster-manager wire protocol (its version: LITE_PROTO_VERSION).
 *
 * Shared by the kernel module (lite/) and the user-space manager
 * (manager/). Every message is a fixed header followed by exactly
 * hdr.length payload bytes; all integers are little-endian; every
 * reserved field must be zero. The message sequence is in docs/protocol.md.
 *
 * Authentication: the manager opens every connection with CHALLENGE (its
 * nonce); JOIN carries the node's nonce. From JOIN on, every message but
 * REJECT ends in mac[LITE_MAC_LEN]:
 *
 *   HMAC-SHA256(cluster key, struct lite_mac_input || header ||
 *               payload without its last LITE_MAC_LEN bytes)
 *
 * where seq counts the MAC'd messages of that direction on the connection
 * from 0. Both nonces make a connection's MACs its own (no replay from
 * another connection), seq makes each message's its own (no replay or
 * reordering within one). The manager re-MACs what it relays (QP_INFO).
 */
#ifndef LITE_PROTO_H
#define LITE_PROTO_H

#include <linux/types.h>

#define LITE_PROTO_MAGIC	0x4554494cU	/* "LITE" read as __le32 */
/*
 * 3: LMR chunk addresses are memory pool addresses; 4: LMR descriptions
 * say where atomics run; 5: QP_INFO entries carry an epoch and flags, so
 * one QP can be reconnected (docs/protocol.md); 6: port addresses carry
 * the GID type and the responder's RDMA read/atomic depth; 7: control
 * requests carry their budget, MEMSET/MEMMOVE/ALLOC the uid, and CANCEL;
 * 8: a lock or barrier waiter asks about its ticket (LOCK_ASK with a
 * ticket, BARRIER with LITE_BARRIER_ASK); 9: a caller that gave up on a
 * call asks the receiver to forget it (RPC_FORGET); 10: ECHO, which a
 * node whose port came back sends to learn that its manager connection
 * carries data again; 11: every message between nodes (hello, control,
 * RPC) is sent solicited, and a node's CQ raises events for solicited
 * completions only while nothing it posted is waited for (cq.c)
 */
#define LITE_PROTO_VERSION	11
#define LITE_PROTO_DEFAULT_PORT	18500

#define LITE_MAX_NODES		64	/* node ids are 1..LITE_MAX_NODES-1 */
#define LITE_MAX_QPS_PER_PEER	16
#define LITE_NAME_LEN		32	/* host name, NUL-padded */
#define LITE_REASON_LEN		96	/* reject text, NUL-padded */
#define LITE_KEY_LEN		32	/* the cluster key */
#define LITE_NONCE_LEN		32
#define LITE_MAC_LEN		32	/* HMAC-SHA256 */

enum lite_msg_type {
	LITE_MSG_JOIN		= 1,	/* node -> manager, first message */
	LITE_MSG_WELCOME	= 2,	/* manager -> node: its id */
	LITE_MSG_REJECT		= 3,	/* manager -> node: join refused */
	LITE_MSG_PEER_UP	= 4,	/* manager -> node: create QPs for a peer */
	LITE_MSG_PEER_DOWN	= 5,	/* manager -> node: a peer left */
	LITE_MSG_QP_INFO	= 6,	/* node -> manager -> node */
	LITE_MSG_CHALLENGE	= 7,	/* manager -> node, first message */
	LITE_MSG_ECHO		= 8,	/* node -> manager -> the same node */
};

enum lite_mac_dir {
	LITE_MAC_TO_MANAGER	= 1,
	LITE_MAC_TO_NODE	= 2,
};

/* Does a message of @type end in mac[LITE_MAC_LEN]? */
static inline int lite_msg_has_mac(unsigned int type)
{
	return type >= LITE_MSG_JOIN && type <= LITE_MSG_ECHO &&
	       type != LITE_MSG_REJECT && type != LITE_MSG_CHALLENGE;
}

/* What a MAC covers besides the message itself. */
struct lite_mac_input {
	__u8	dir;		/* enum lite_mac_dir */
	__u8	reserved[7];
	__le64	seq;
	__u8	manager_nonce[LITE_NONCE_LEN];
	__u8	node_nonce[LITE_NONCE_LEN];
};

enum lite_link_layer {
	LITE_LINK_IB		= 1,	/* addressed by LID */
	LITE_LINK_ETHERNET	= 2,	/* RoCE: addressed by GID */
};

struct lite_msg_hdr {
	__le32	magic;
	__le16	version;
	__le16	type;		/* enum lite_msg_type */
	__le32	length;		/* payload bytes after this header */
	__le32	reserved;
};

/* The wire format of the GID a node's QPs use: all members use the same. */
enum lite_gid_type {
	LITE_GID_IB		= 1,	/* on LITE_LINK_IB */
	LITE_GID_ROCE_V1	= 2,	/* on LITE_LINK_ETHERNET: Ethernet frames */
	LITE_GID_ROCE_V2	= 3,	/* on LITE_LINK_ETHERNET: UDP/IP */
};

/* Where a node's RDMA port is, and what its QPs accept. */
struct lite_port_addr {
	__u8	gid[16];
	__le16	lid;
	__u8	link_layer;	/* enum lite_link_layer */
	__u8	mtu;		/* enum ib_mtu: 1 (256) .. 5 (4096) */
	__u8	gid_type;	/* enum lite_gid_type */
	__u8	rd_atom;	/* RDMA reads/atomics its QPs take at once, >= 1 */
	__u8	reserved[2];
};

struct lite_msg_join {
	struct lite_port_addr addr;
	__le16	qps_per_peer;	/* K: RC QPs this node wants per peer */
	__le16	requested_id;	/* 0: any free id */
	__u8	ib_port;
	__u8	reserved[3];
	char	name[LITE_NAME_LEN];
	__u8	nonce[LITE_NONCE_LEN];	/* fresh for this connection */
	__u8	mac[LITE_MAC_LEN];
};

struct lite_msg_welcome {
	__le16	node_id;
	__le16	qps_per_peer;	/* the cluster's K */
	__le32	generation;	/* incarnation of this node id */
	__u8	mac[LITE_MAC_LEN];
};

/* Not authenticated: it only ends a join that has not happened. */

struct lite_msg_reject {
	__le32	error;		/* a positive errno value */
	char	reason[LITE_REASON_LEN];
};

/*
 * Sent to every member about every other one (both ways) when a node joins.
 * The receiver creates K QPs for the peer and answers with QP_INFO.
 */
struct lite_msg_peer_up {
	__le16	node_id;
	__le16	reserved;
	__le32	generation;
	struct lite_port_addr addr;
	char	name[LITE_NAME_LEN];
	__u8	mac[LITE_MAC_LEN];
};

struct lite_msg_peer_down {
	__le16	node_id;
	__le16	reserved;
	__le32	generation;
	__u8	mac[LITE_MAC_LEN];
};

/*
 * One QP of the sender's for the receiver. @epoch counts the QP's
 * connections (0: the one made at the join; each reset after an error
 * starts the next); an entry without LITE_QP_EP_SET is all zero.
 */
struct lite_qp_endpoint {
	__le32	qpn;		/* 24 bits used */
	__le32	psn;		/* 24 bits used */
	__le32	epoch;
	__u8	flags;		/* LITE_QP_EP_* */
	__u8	reserved[3];
};

#define LITE_QP_EP_SET	0x01	/* this entry is news: act on it */
#define LITE_QP_EP_RTR	0x02	/* and the sender's QP is connected to ours */
#define LITE_QP_EP_FLAGS (LITE_QP_EP_SET | LITE_QP_EP_RTR)

/*
 * "My QPs for you": all K at the join, those being reconnected later
 * (docs/protocol.md). The manager checks src_node/src_gen against the
 * sender and forwards it to dst_node if dst_gen is current, unchanged but
 * for the MAC.
 */
struct lite_msg_qp_info {
	__le16	src_node;
	__le16	dst_node;
	__le32	src_gen;
	__le32	dst_gen;
	__le16	nr_qps;		/* == the cluster's K */
	__le16	reserved;
	struct lite_qp_endpoint qp[LITE_MAX_QPS_PER_PEER];
	__u8	mac[LITE_MAC_LEN];
};

/* Not authenticated: a forged one only makes the JOIN fail. */
struct lite_msg_challenge {
	__u8	nonce[LITE_NONCE_LEN];
};

/*
 * A member asks whether its manager connection carries data both ways:
 * the manager sends the message back as it came, but for the MAC. A node
 * sends one when its port comes back after being down (docs/protocol.md).
 */
struct lite_msg_echo {
	__le64	cookie;		/* the sender's, returned unchanged */
	__u8	mac[LITE_MAC_LEN];
};

#define LITE_MSG_MAX_PAYLOAD	sizeof(struct lite_msg_qp_info)

/*
 * Every message's payload, as the members of a union that receives any
 * of them (lite-manager's and the module's buffers): one list for both.
 */
#define LITE_MSG_PAYLOADS					\
	struct lite_msg_join		join;			\
	struct lite_msg_welcome		welcome;		\
	struct lite_msg_reject		reject;			\
	struct lite_msg_peer_up		peer_up;		\
	struct lite_msg_peer_down	peer_down;		\
	struct lite_msg_qp_info		qp_info;		\
	struct lite_msg_challenge	challenge;		\
	struct lite_msg_echo		echo

#endif /* LITE_PROTO_H */
