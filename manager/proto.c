// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Validators and builders for the LITE manager wire protocol (v3).
 * See proto.h for the contract and docs/protocol.md for the rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "proto.h"

/*
 * The wire layout is the C layout of lite_proto.h on every ABI we build for;
 * these catch a field that changes size or an accidental hole.
 */
_Static_assert(sizeof(struct lite_msg_hdr) == 16, "header is 16 bytes");
_Static_assert(sizeof(struct lite_port_addr) == 24, "port_addr is 24 bytes");
_Static_assert(sizeof(struct lite_msg_join) == 128, "JOIN is 128 bytes");
_Static_assert(sizeof(struct lite_msg_welcome) == 40, "WELCOME is 40 bytes");
_Static_assert(sizeof(struct lite_msg_reject) == 100, "REJECT is 100 bytes");
_Static_assert(sizeof(struct lite_msg_peer_up) == 96, "PEER_UP is 96 bytes");
_Static_assert(sizeof(struct lite_msg_peer_down) == 40,
	       "PEER_DOWN is 40 bytes");
_Static_assert(sizeof(struct lite_msg_qp_info) == 304, "QP_INFO is 304 bytes");
_Static_assert(sizeof(struct lite_msg_challenge) == 32,
	       "CHALLENGE is 32 bytes");
_Static_assert(sizeof(struct lite_msg_echo) == 40, "ECHO is 40 bytes");
_Static_assert(sizeof(struct lite_mac_input) == 80, "MAC input is 80 bytes");
_Static_assert(offsetof(struct lite_msg_join, name) == 32,
	       "JOIN name at offset 32");
_Static_assert(offsetof(struct lite_msg_qp_info, qp) == 16,
	       "QP_INFO entries at offset 16");
_Static_assert(sizeof(struct lite_msg) == LITE_MSG_MAX_SIZE,
	       "struct lite_msg has no padding");
_Static_assert(LITE_MSG_MAX_PAYLOAD == 304, "QP_INFO is the largest payload");

#define MSG_TYPE(t, payload) \
	[LITE_MSG_##t] = { #t, sizeof(struct lite_msg_##payload) }

static const struct {
	const char *name;
	size_t size;
} msg_types[] = {
	MSG_TYPE(JOIN, join),
	MSG_TYPE(WELCOME, welcome),
	MSG_TYPE(REJECT, reject),
	MSG_TYPE(PEER_UP, peer_up),
	MSG_TYPE(PEER_DOWN, peer_down),
	MSG_TYPE(QP_INFO, qp_info),
	MSG_TYPE(CHALLENGE, challenge),
	MSG_TYPE(ECHO, echo),
};

#define NR_MSG_TYPES (sizeof(msg_types) / sizeof(msg_types[0]))

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* Set *why (when asked for) and return ERR. */
static int fail(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

const char *lite_msg_type_name(unsigned int type)
{
	if (type < NR_MSG_TYPES && msg_types[type].name)
		return msg_types[type].name;
	return "unknown";
}

size_t lite_msg_payload_size(unsigned int type)
{
	return type < NR_MSG_TYPES ? msg_types[type].size : 0;
}

void lite_msg_init(struct lite_msg *m, enum lite_msg_type type)
{
	memset(m, 0, sizeof(*m));
	m->hdr.magic = htole32(LITE_PROTO_MAGIC);
	m->hdr.version = htole16(LITE_PROTO_VERSION);
	m->hdr.type = htole16(type);
	m->hdr.length = htole32(lite_msg_payload_size(type));
}

int lite_check_hdr(const struct lite_msg_hdr *h, const char **why)
{
	unsigned int type = le16toh(h->type);
	uint32_t length = le32toh(h->length);

	if (le32toh(h->magic) != LITE_PROTO_MAGIC)
		return fail(why, "bad magic (not a LITE peer?)", -EBADMSG);
	if (le16toh(h->version) != LITE_PROTO_VERSION)
		return fail(why, "unsupported protocol version",
			    -EPROTONOSUPPORT);
	if (h->reserved)
		return fail(why, "nonzero reserved field in header", -EINVAL);
	if (!lite_msg_payload_size(type))
		return fail(why, "unknown message type", -ENOMSG);
	if (length > LITE_MSG_MAX_PAYLOAD)
		return fail(why, "payload length above the maximum", -EMSGSIZE);
	if (length != lite_msg_payload_size(type))
		return fail(why, "payload length does not match the type",
			    -EBADMSG);
	return 0;
}

int lite_check_port_addr(const struct lite_port_addr *a, const char **why)
{
	if (!all_zero(a->reserved, sizeof(a->reserved)))
		return fail(why, "nonzero reserved field in port address",
			    -EINVAL);
	if (a->link_layer != LITE_LINK_IB &&
	    a->link_layer != LITE_LINK_ETHERNET)
		return fail(why,
			    "link_layer is neither IB (1) nor Ethernet (2)",
			    -EINVAL);
	if (a->mtu < LITE_MTU_MIN || a->mtu > LITE_MTU_MAX)
		return fail(why, "mtu not in 1..5 (enum ib_mtu)", -EINVAL);
	if (a->link_layer == LITE_LINK_IB ?
	    a->gid_type != LITE_GID_IB :
	    a->gid_type != LITE_GID_ROCE_V1 && a->gid_type != LITE_GID_ROCE_V2)
		return fail(why,
			    "gid_type not IB (1) on IB, RoCE v1 (2) or v2 (3) on Ethernet",
			    -EINVAL);
	if (!a->rd_atom)
		return fail(why, "rd_atom 0 (a QP takes at least one read)",
			    -EINVAL);
	return 0;
}

int lite_check_name(const char name[LITE_NAME_LEN], const char **why)
{
	size_t len = strnlen(name, LITE_NAME_LEN);

	if (len == LITE_NAME_LEN)
		return fail(why, "name not NUL-terminated", -EINVAL);
	if (!len)
		return fail(why, "empty name", -EINVAL);
	for (size_t i = 0; i < len; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return fail(why, "name not printable ASCII", -EINVAL);
	/* NUL-padded: no stray bytes (or leaked memory) after the name. */
	if (!all_zero(name + len, LITE_NAME_LEN - len))
		return fail(why, "name not NUL-padded", -EINVAL);
	return 0;
}

int lite_check_join(const struct lite_msg_join *j, const char **why)
{
	unsigned int k = le16toh(j->qps_per_peer);
	int ret;

	ret = lite_check_port_addr(&j->addr, why);
	if (ret)
		return ret;
	if (!all_zero(j->reserved, sizeof(j->reserved)))
		return fail(why, "nonzero reserved field in JOIN", -EINVAL);
	if (k < 1 || k > LITE_MAX_QPS_PER_PEER)
		return fail(why, "qps_per_peer not in 1..16", -EINVAL);
	if (le16toh(j->requested_id) > LITE_MAX_NODE_ID)
		return fail(why, "requested_id above 63", -EINVAL);
	if (!j->ib_port)
		return fail(why, "ib_port 0 (ports count from 1)", -EINVAL);
	return lite_check_name(j->name, why);
}

int lite_check_qp_info(const struct lite_msg_qp_info *q, unsigned int k,
		       unsigned int src_id, uint32_t src_gen,
		       const char **why)
{
	unsigned int dst = le16toh(q->dst_node);
	unsigned int nr = le16toh(q->nr_qps);

	if (le16toh(q->src_node) != src_id || le32toh(q->src_gen) != src_gen)
		return fail(why, "src_node/src_gen are not the sender's",
			    -EPERM);
	if (dst < 1 || dst > LITE_MAX_NODE_ID)
		return fail(why, "dst_node not in 1..63", -EINVAL);
	if (dst == src_id)
		return fail(why, "dst_node is the sender itself", -EINVAL);
	/* The range check keeps qp[nr] in bounds even if K itself is bad. */
	if (nr < 1 || nr > LITE_MAX_QPS_PER_PEER || nr != k)
		return fail(why, "nr_qps differs from the cluster's K",
			    -EINVAL);
	if (q->reserved)
		return fail(why, "nonzero reserved field in QP_INFO", -EINVAL);
	unsigned int set = 0;

	for (unsigned int i = 0; i < nr; i++) {
		const struct lite_qp_endpoint *e = &q->qp[i];

		if (!(e->flags & LITE_QP_EP_SET)) {
			if (!all_zero(e, sizeof(*e)))
				return fail(why, "QP entry without SET is not zero",
					    -EINVAL);
			continue;
		}
		set++;
		if (e->flags & ~LITE_QP_EP_FLAGS)
			return fail(why, "unknown QP entry flags", -EINVAL);
		if (!all_zero(e->reserved, sizeof(e->reserved)))
			return fail(why, "nonzero reserved field in a QP entry",
				    -EINVAL);
		if (le32toh(e->qpn) >= LITE_QP_FIELD_LIMIT ||
		    le32toh(e->psn) >= LITE_QP_FIELD_LIMIT)
			return fail(why, "qpn or psn above 24 bits", -ERANGE);
	}
	if (!set)
		return fail(why, "no QP entry is SET", -EINVAL);
	if (!all_zero(&q->qp[nr], (LITE_MAX_QPS_PER_PEER - nr) *
				  sizeof(q->qp[0])))
		return fail(why, "nonzero QP entry beyond nr_qps", -EINVAL);
	return 0;
}

int lite_check_welcome(const struct lite_msg_welcome *w, const char **why)
{
	unsigned int id = le16toh(w->node_id);
	unsigned int k = le16toh(w->qps_per_peer);

	if (id < 1 || id > LITE_MAX_NODE_ID)
		return fail(why, "node_id not in 1..63", -EINVAL);
	if (k < 1 || k > LITE_MAX_QPS_PER_PEER)
		return fail(why, "qps_per_peer not in 1..16", -EINVAL);
	if (!w->generation)
		return fail(why, "generation 0", -EINVAL);
	return 0;
}

int lite_check_reject(const struct lite_msg_reject *r, const char **why)
{
	uint32_t err = le32toh(r->error);
	size_t len = strnlen(r->reason, LITE_REASON_LEN);

	/* errno values are small positive ints; 4095 is the kernel's cap. */
	if (err < 1 || err > 4095)
		return fail(why, "error is not a positive errno", -EINVAL);
	if (len == LITE_REASON_LEN)
		return fail(why, "reason not NUL-terminated", -EINVAL);
	if (!all_zero(r->reason + len, LITE_REASON_LEN - len))
		return fail(why, "reason not NUL-padded", -EINVAL);
	return 0;
}

int lite_check_peer_up(const struct lite_msg_peer_up *p, const char **why)
{
	unsigned int id = le16toh(p->node_id);
	int ret;

	if (id < 1 || id > LITE_MAX_NODE_ID)
		return fail(why, "node_id not in 1..63", -EINVAL);
	if (p->reserved)
		return fail(why, "nonzero reserved field in PEER_UP", -EINVAL);
	if (!p->generation)
		return fail(why, "generation 0", -EINVAL);
	ret = lite_check_port_addr(&p->addr, why);
	if (ret)
		return ret;
	return lite_check_name(p->name, why);
}

int lite_check_peer_down(const struct lite_msg_peer_down *p, const char **why)
{
	unsigned int id = le16toh(p->node_id);

	if (id < 1 || id > LITE_MAX_NODE_ID)
		return fail(why, "node_id not in 1..63", -EINVAL);
	if (p->reserved)
		return fail(why, "nonzero reserved field in PEER_DOWN",
			    -EINVAL);
	if (!p->generation)
		return fail(why, "generation 0", -EINVAL);
	return 0;
}

int lite_check_manager_msg(const struct lite_msg *m, const char **why)
{
	switch (le16toh(m->hdr.type)) {
	case LITE_MSG_WELCOME:
		return lite_check_welcome(&m->welcome, why);
	case LITE_MSG_REJECT:
		return lite_check_reject(&m->reject, why);
	case LITE_MSG_PEER_UP:
		return lite_check_peer_up(&m->peer_up, why);
	case LITE_MSG_PEER_DOWN:
		return lite_check_peer_down(&m->peer_down, why);
	case LITE_MSG_ECHO:
		return 0;	/* any cookie: the node's own */
	}
	return fail(why, "not a message the manager sends", -ENOMSG);
}
