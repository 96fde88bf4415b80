/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Validators and builders for the LITE manager wire protocol (v3).
 *
 * Pure functions: no I/O, no allocation, no global state. Each check returns
 * 0 or a negative errno and, on failure, points *why at a constant
 * human-readable reason. The daemon, the unit test and the fuzz harness all
 * go through these, so what the tests accept is what the daemon accepts.
 */
#ifndef LITE_MANAGER_PROTO_H
#define LITE_MANAGER_PROTO_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>

#include <lite_proto.h>

/* Largest whole message: header plus the largest payload. */
#define LITE_MSG_MAX_SIZE (sizeof(struct lite_msg_hdr) + LITE_MSG_MAX_PAYLOAD)
/* QP numbers and PSNs are 24-bit in InfiniBand. */
#define LITE_QP_FIELD_LIMIT (1U << 24)
#define LITE_MAX_NODE_ID (LITE_MAX_NODES - 1)
/* enum ib_mtu: IB_MTU_256 .. IB_MTU_4096 */
#define LITE_MTU_MIN 1
#define LITE_MTU_MAX 5

/* One whole message as it travels, with its payload viewed by type. */
struct lite_msg {
	struct lite_msg_hdr hdr;
	union {
		LITE_MSG_PAYLOADS;
		uint8_t raw[LITE_MSG_MAX_PAYLOAD];
	};
};

/* "JOIN", "QP_INFO", ... or "unknown". */
const char *lite_msg_type_name(unsigned int type);

/* Payload size of a message type, 0 for an unknown type. */
size_t lite_msg_payload_size(unsigned int type);


/* Header plus payload length as the header announces it. */
static inline size_t lite_msg_size(const struct lite_msg *m)
{
	return sizeof(m->hdr) + le32toh(m->hdr.length);
}

/* Zero the message and fill its header for TYPE with the payload size. */
void lite_msg_init(struct lite_msg *m, enum lite_msg_type type);

/*
 * Magic, then version (before anything else a later version may redefine),
 * reserved, type, and length: the exact payload size of the type.
 * Errors: -EBADMSG (magic, length), -EPROTONOSUPPORT (version), -EINVAL
 * (reserved), -ENOMSG (unknown type), -EMSGSIZE (length above
 * LITE_MSG_MAX_PAYLOAD).
 */
int lite_check_hdr(const struct lite_msg_hdr *h, const char **why);

/* Reserved zero, a known link layer, mtu 1..5; -EINVAL otherwise. */
int lite_check_port_addr(const struct lite_port_addr *a, const char **why);

/* NUL-terminated within LITE_NAME_LEN, 1+ printable ASCII, NUL-padded. */
int lite_check_name(const char name[LITE_NAME_LEN], const char **why);

/* What a JOIN must satisfy regardless of the cluster; -EINVAL otherwise. */
int lite_check_join(const struct lite_msg_join *j, const char **why);

/*
 * A QP_INFO from node SRC_ID (generation SRC_GEN) in a cluster of K QPs per
 * peer. -EPERM: src_node/src_gen are not the sender's; -ERANGE: a qpn or
 * psn above 24 bits; -EINVAL: anything else. Whether dst is a current member
 * is the cluster's business, not the message's.
 */
int lite_check_qp_info(const struct lite_msg_qp_info *q, unsigned int k,
		       unsigned int src_id, uint32_t src_gen,
		       const char **why);

/* Manager-to-node messages, for the node side and the tests. */
int lite_check_welcome(const struct lite_msg_welcome *w, const char **why);
int lite_check_reject(const struct lite_msg_reject *r, const char **why);
int lite_check_peer_up(const struct lite_msg_peer_up *p, const char **why);
int lite_check_peer_down(const struct lite_msg_peer_down *p,
			 const char **why);
/* One of those four, by M's type; -ENOMSG for any other type. */
int lite_check_manager_msg(const struct lite_msg *m, const char **why);

#endif /* LITE_MANAGER_PROTO_H */
