// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit test of the protocol code: the validators (proto.c), the framer
 * (framer.c) and the cluster state machine (cluster.c), with no sockets.
 * One line per case; exit status 1 if any case failed.
 */
#define _GNU_SOURCE	/* strerrorname_np */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "fixture.h"
#include "framer.h"
#include "proto.h"

/* The cluster every message case is checked against. */
#define K	4
#define SRC	1
#define SRC_GEN	7

static int failures;
static int cases;

static const char *err_str(int err)
{
	const char *name;

	if (!err)
		return "0";
	name = strerrorname_np(err < 0 ? -err : err);
	return name ? name : "?";
}

static void __attribute__((format(printf, 2, 3)))
report(bool ok, const char *fmt, ...)
{
	va_list ap;

	cases++;
	if (!ok)
		failures++;
	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void expect_err(const char *name, int want, int got, const char *why)
{
	if (want == got)
		report(true, "%s -> %s%s%s", name, err_str(got),
		       got ? ": " : "", got ? why : "");
	else
		report(false, "%s: expected %s, got %s (%s)", name,
		       err_str(want), err_str(got), got ? why : "accepted");
}

/* --- message templates: each valid as it stands --- */

static void valid_join(struct lite_msg *m)
{
	fixture_join(m, "node-a", K);
	m->join.addr.gid[15] = 0x01;
}

static void valid_qp_info(struct lite_msg *m)
{
	lite_msg_init(m, LITE_MSG_QP_INFO);
	m->qp_info.src_node = htole16(SRC);
	m->qp_info.src_gen = htole32(SRC_GEN);
	m->qp_info.dst_node = htole16(3);
	m->qp_info.dst_gen = htole32(9);
	m->qp_info.nr_qps = htole16(K);
	for (unsigned int i = 0; i < K; i++) {
		m->qp_info.qp[i].qpn = htole32(0x11 + i);
		m->qp_info.qp[i].psn = htole32(0xabcdef - i);
		m->qp_info.qp[i].flags = LITE_QP_EP_SET;
	}
}

static void welcome_ok(struct lite_msg *m)
{
	lite_msg_init(m, LITE_MSG_WELCOME);
	m->welcome.node_id = htole16(1);
	m->welcome.qps_per_peer = htole16(K);
	m->welcome.generation = htole32(1);
}

static void reject_ok(struct lite_msg *m)
{
	lite_msg_init(m, LITE_MSG_REJECT);
	m->reject.error = htole32(EINVAL);
	strcpy(m->reject.reason, "no");
}

static void peer_up_ok(struct lite_msg *m)
{
	struct lite_msg j;

	valid_join(&j);
	lite_msg_init(m, LITE_MSG_PEER_UP);
	m->peer_up.node_id = htole16(2);
	m->peer_up.generation = htole32(5);
	m->peer_up.addr = j.join.addr;
	memcpy(m->peer_up.name, j.join.name, LITE_NAME_LEN);
}

static void peer_down_ok(struct lite_msg *m)
{
	lite_msg_init(m, LITE_MSG_PEER_DOWN);
	m->peer_down.node_id = htole16(2);
	m->peer_down.generation = htole32(5);
}

/*
 * What the manager does with one message from a node that is member SRC:
 * frame it, then validate its payload. Returns the first error.
 */
static int check_bytes(const void *buf, size_t len, const char **why)
{
	const struct lite_msg *m = NULL;
	struct lite_framer f;
	size_t used;
	int ret;

	*why = "";
	lite_framer_init(&f);
	ret = lite_framer_push(&f, buf, len, &used, &m, why);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		*why = "incomplete";
		return -EAGAIN;
	}
	if (used != len) {
		*why = "bytes left over";
		return -E2BIG;
	}
	switch (le16toh(m->hdr.type)) {
	case LITE_MSG_JOIN:
		return lite_check_join(&m->join, why);
	case LITE_MSG_QP_INFO:
		return lite_check_qp_info(&m->qp_info, K, SRC, SRC_GEN, why);
	}
	ret = lite_check_manager_msg(m, why);
	if (ret != -ENOMSG)
		return ret;
	*why = "framer passed an unknown type";
	return -EFAULT;
}

/* --- the table --- */

/* What a single field cannot say. */
#define FIXUP(fn) static void fn(struct lite_msg *m)

FIXUP(join_ll_ib) { m->join.addr.link_layer = LITE_LINK_IB;
		    m->join.addr.gid_type = LITE_GID_IB;
		    m->join.addr.lid = htole16(7); }
FIXUP(join_name_unterminated) { memset(m->join.name, 'a', LITE_NAME_LEN); }
FIXUP(join_name_31) { memset(m->join.name, 'a', LITE_NAME_LEN - 1); }
FIXUP(join_name_empty) { memset(m->join.name, 0, LITE_NAME_LEN); }
FIXUP(join_name_spaces) { strcpy(m->join.name, "rack 3 / node-7"); }
FIXUP(qp_qpn_max) { m->qp_info.qp[1].qpn = htole32(0xffffff);
		    m->qp_info.qp[1].psn = htole32(0xffffff); }
FIXUP(qp_one_rtr) { memset(&m->qp_info.qp[0], 0, sizeof(m->qp_info.qp[0]));
		    m->qp_info.qp[1].flags |= LITE_QP_EP_RTR;
		    m->qp_info.qp[1].epoch = htole32(3); }
FIXUP(qp_none_set) { memset(m->qp_info.qp, 0, sizeof(m->qp_info.qp)); }
FIXUP(qp_nr_5) { m->qp_info.nr_qps = htole16(K + 1);
		 m->qp_info.qp[K].qpn = htole32(5); }
FIXUP(reject_unterminated) { memset(m->reject.reason, 'r', LITE_REASON_LEN); }

/*
 * A case: its template, one change (SET: field f becomes v, little-endian
 * as on the wire; SET_BE: big-endian; FIX: a function), the error wanted.
 */
struct msg_case {
	const char *name;
	void (*base)(struct lite_msg *m);
	size_t off, len;
	uint64_t val;
	bool be;
	void (*fix)(struct lite_msg *m);
	int err;
};

#define FIELD(f)	offsetof(struct lite_msg, f), \
			sizeof(((struct lite_msg *)0)->f)
#define SET(f, v)	FIELD(f), (uint64_t)(v), false, NULL
#define SET_BE(f, v)	FIELD(f), (uint64_t)(v), true, NULL
#define FIX(fn)		0, 0, 0, false, fn
#define AS_IS		0, 0, 0, false, NULL

static const struct msg_case msg_cases[] = {
	{ "valid JOIN", valid_join, AS_IS, 0 },
	{ "valid QP_INFO", valid_qp_info, AS_IS, 0 },
	{ "header: bad magic", valid_join, SET(hdr.magic, 0x4554494d),
	  -EBADMSG },
	{ "header: big-endian magic", valid_join,
	  SET_BE(hdr.magic, LITE_PROTO_MAGIC), -EBADMSG },
	{ "header: next version", valid_join,
	  SET(hdr.version, LITE_PROTO_VERSION + 1), -EPROTONOSUPPORT },
	{ "header: version 0", valid_join, SET(hdr.version, 0),
	  -EPROTONOSUPPORT },
	{ "header: big-endian version", valid_join, SET_BE(hdr.version, 1),
	  -EPROTONOSUPPORT },
	{ "header: type 0", valid_join, SET(hdr.type, 0), -ENOMSG },
	{ "header: type 9", valid_join, SET(hdr.type, LITE_MSG_ECHO + 1),
	  -ENOMSG },
	{ "header: type 0xffff", valid_join, SET(hdr.type, 0xffff), -ENOMSG },
	{ "header: reserved 1", valid_join, SET(hdr.reserved, 1), -EINVAL },
	{ "header: reserved top bit", valid_join,
	  SET(hdr.reserved, 0x80000000), -EINVAL },
	{ "header: length 0xffffffff", valid_join,
	  SET(hdr.length, 0xffffffff), -EMSGSIZE },
	{ "header: length max+1", valid_qp_info,
	  SET(hdr.length, LITE_MSG_MAX_PAYLOAD + 1), -EMSGSIZE },
	{ "header: big-endian length", valid_join, SET_BE(hdr.length, 64),
	  -EMSGSIZE },
	{ "header: JOIN length 0", valid_join, SET(hdr.length, 0), -EBADMSG },
	{ "header: JOIN length 63 (one short)", valid_join,
	  SET(hdr.length, 63), -EBADMSG },
	{ "header: JOIN length 65 (one over)", valid_join,
	  SET(hdr.length, 65), -EBADMSG },
	{ "header: JOIN length 144", valid_join, SET(hdr.length, 144),
	  -EBADMSG },
	{ "header: QP_INFO length 143 (one short)", valid_qp_info,
	  SET(hdr.length, 143), -EBADMSG },
	{ "JOIN: K=0", valid_join, SET(join.qps_per_peer, 0), -EINVAL },
	{ "JOIN: K=1", valid_join, SET(join.qps_per_peer, 1), 0 },
	{ "JOIN: K=16", valid_join, SET(join.qps_per_peer, 16), 0 },
	{ "JOIN: K=17", valid_join, SET(join.qps_per_peer, 17), -EINVAL },
	{ "JOIN: K big-endian", valid_join, SET_BE(join.qps_per_peer, 4),
	  -EINVAL },
	{ "JOIN: link layer 0", valid_join, SET(join.addr.link_layer, 0),
	  -EINVAL },
	{ "JOIN: link layer 3", valid_join, SET(join.addr.link_layer, 3),
	  -EINVAL },
	{ "JOIN: link layer IB", valid_join, FIX(join_ll_ib), 0 },
	{ "JOIN: IB with a RoCE GID type", valid_join,
	  SET(join.addr.link_layer, LITE_LINK_IB), -EINVAL },
	{ "JOIN: Ethernet with GID type IB", valid_join,
	  SET(join.addr.gid_type, LITE_GID_IB), -EINVAL },
	{ "JOIN: RoCE v1", valid_join,
	  SET(join.addr.gid_type, LITE_GID_ROCE_V1), 0 },
	{ "JOIN: gid_type 0", valid_join, SET(join.addr.gid_type, 0),
	  -EINVAL },
	{ "JOIN: gid_type 4", valid_join, SET(join.addr.gid_type, 4),
	  -EINVAL },
	{ "JOIN: rd_atom 0", valid_join, SET(join.addr.rd_atom, 0), -EINVAL },
	{ "JOIN: rd_atom 1", valid_join, SET(join.addr.rd_atom, 1), 0 },
	{ "JOIN: mtu 0", valid_join, SET(join.addr.mtu, 0), -EINVAL },
	{ "JOIN: mtu 1", valid_join, SET(join.addr.mtu, 1), 0 },
	{ "JOIN: mtu 5", valid_join, SET(join.addr.mtu, 5), 0 },
	{ "JOIN: mtu 6", valid_join, SET(join.addr.mtu, 6), -EINVAL },
	{ "JOIN: addr reserved", valid_join,
	  SET(join.addr.reserved[1], 0x80), -EINVAL },
	{ "JOIN: reserved[0]", valid_join, SET(join.reserved[0], 1), -EINVAL },
	{ "JOIN: reserved[2]", valid_join, SET(join.reserved[2], 0x80),
	  -EINVAL },
	{ "JOIN: name unterminated", valid_join, FIX(join_name_unterminated),
	  -EINVAL },
	{ "JOIN: name of 31 chars", valid_join, FIX(join_name_31), 0 },
	{ "JOIN: name with newline", valid_join, SET(join.name[2], '\n'),
	  -EINVAL },
	{ "JOIN: name with DEL", valid_join, SET(join.name[0], 0x7f),
	  -EINVAL },
	{ "JOIN: name with byte 0xc3", valid_join, SET(join.name[5], 0xc3),
	  -EINVAL },
	{ "JOIN: empty name", valid_join, FIX(join_name_empty), -EINVAL },
	{ "JOIN: name not NUL-padded", valid_join,
	  SET(join.name[LITE_NAME_LEN - 1], 'x'), -EINVAL },
	{ "JOIN: name with spaces", valid_join, FIX(join_name_spaces), 0 },
	{ "JOIN: requested_id 63", valid_join, SET(join.requested_id, 63), 0 },
	{ "JOIN: requested_id 64", valid_join, SET(join.requested_id, 64),
	  -EINVAL },
	{ "JOIN: ib_port 0", valid_join, SET(join.ib_port, 0), -EINVAL },
	{ "QP_INFO: qpn 2^24", valid_qp_info,
	  SET(qp_info.qp[0].qpn, 1U << 24), -ERANGE },
	{ "QP_INFO: psn 2^24", valid_qp_info,
	  SET(qp_info.qp[K - 1].psn, 1U << 24), -ERANGE },
	{ "QP_INFO: qpn, psn 2^24-1", valid_qp_info, FIX(qp_qpn_max), 0 },
	{ "QP_INFO: qpn 0xff000000", valid_qp_info,
	  SET(qp_info.qp[2].qpn, 0xff000000), -ERANGE },
	{ "QP_INFO: qpn set beyond nr_qps", valid_qp_info,
	  SET(qp_info.qp[K].qpn, 1), -EINVAL },
	{ "QP_INFO: last psn set beyond nr_qps", valid_qp_info,
	  SET(qp_info.qp[15].psn, 1), -EINVAL },
	{ "QP_INFO: one entry zero, one RTR of epoch 3", valid_qp_info,
	  FIX(qp_one_rtr), 0 },
	{ "QP_INFO: no entry SET", valid_qp_info, FIX(qp_none_set), -EINVAL },
	{ "QP_INFO: an entry not SET with a qpn", valid_qp_info,
	  SET(qp_info.qp[2].flags, 0), -EINVAL },
	{ "QP_INFO: unknown entry flag 4", valid_qp_info,
	  SET(qp_info.qp[0].flags, LITE_QP_EP_SET | 4), -EINVAL },
	{ "QP_INFO: an entry's reserved byte", valid_qp_info,
	  SET(qp_info.qp[K - 1].reserved[1], 1), -EINVAL },
	{ "QP_INFO: src == dst", valid_qp_info, SET(qp_info.dst_node, SRC),
	  -EINVAL },
	{ "QP_INFO: dst 0", valid_qp_info, SET(qp_info.dst_node, 0), -EINVAL },
	{ "QP_INFO: dst 64", valid_qp_info, SET(qp_info.dst_node, 64),
	  -EINVAL },
	{ "QP_INFO: dst 63", valid_qp_info, SET(qp_info.dst_node, 63), 0 },
	{ "QP_INFO: nr_qps K-1", valid_qp_info, SET(qp_info.nr_qps, K - 1),
	  -EINVAL },
	{ "QP_INFO: nr_qps K+1", valid_qp_info, FIX(qp_nr_5), -EINVAL },
	{ "QP_INFO: nr_qps 0", valid_qp_info, SET(qp_info.nr_qps, 0), -EINVAL },
	{ "QP_INFO: nr_qps 17", valid_qp_info, SET(qp_info.nr_qps, 17),
	  -EINVAL },
	{ "QP_INFO: nr_qps 0xffff", valid_qp_info,
	  SET(qp_info.nr_qps, 0xffff), -EINVAL },
	{ "QP_INFO: forged src_node", valid_qp_info,
	  SET(qp_info.src_node, SRC + 1), -EPERM },
	{ "QP_INFO: forged src_gen", valid_qp_info,
	  SET(qp_info.src_gen, SRC_GEN - 1), -EPERM },
	{ "QP_INFO: reserved", valid_qp_info, SET(qp_info.reserved, 1),
	  -EINVAL },
	{ "WELCOME: valid", welcome_ok, AS_IS, 0 },
	{ "WELCOME: node_id 0", welcome_ok, SET(welcome.node_id, 0), -EINVAL },
	{ "WELCOME: generation 0", welcome_ok, SET(welcome.generation, 0),
	  -EINVAL },
	{ "REJECT: valid", reject_ok, AS_IS, 0 },
	{ "REJECT: error 0", reject_ok, SET(reject.error, 0), -EINVAL },
	{ "REJECT: negative error", reject_ok,
	  SET(reject.error, (uint32_t)-EINVAL), -EINVAL },
	{ "REJECT: reason unterminated", reject_ok, FIX(reject_unterminated),
	  -EINVAL },
	{ "PEER_UP: valid", peer_up_ok, AS_IS, 0 },
	{ "PEER_UP: reserved", peer_up_ok, SET(peer_up.reserved, 1), -EINVAL },
	{ "PEER_UP: bad name", peer_up_ok, SET(peer_up.name[0], 1), -EINVAL },
	{ "PEER_DOWN: valid", peer_down_ok, AS_IS, 0 },
	{ "PEER_DOWN: node 64", peer_down_ok, SET(peer_down.node_id, 64),
	  -EINVAL },
};

/* Case T's message: its template with its change. */
static void build(const struct msg_case *t, struct lite_msg *m)
{
	unsigned char *p = (unsigned char *)m + t->off;

	t->base(m);
	for (size_t i = 0; i < t->len; i++)
		p[i] = t->val >> 8 * (t->be ? t->len - 1 - i : i);
	if (t->fix)
		t->fix(m);
}

static void run_msg_cases(void)
{
	for (size_t i = 0; i < sizeof(msg_cases) / sizeof(msg_cases[0]); i++) {
		const struct msg_case *t = &msg_cases[i];
		struct lite_msg m;
		const char *why;
		size_t len;
		int ret;

		t->base(&m);
		/* The template's payload, whatever the header then says. */
		len = sizeof(m.hdr) +
		      lite_msg_payload_size(le16toh(m.hdr.type));
		build(t, &m);
		ret = check_bytes(&m, len, &why);
		expect_err(t->name, t->err, ret, why);
	}
}

/* --- streams: how bytes arrive must not matter --- */

/* Feed BUF in pieces of STEP bytes; collect the messages' types. */
static int feed(const void *buf, size_t len, size_t step, unsigned int *types,
		unsigned int *nr, size_t *consumed, const char **why)
{
	const unsigned char *p = buf;
	const struct lite_msg *m;
	struct lite_framer f;
	size_t off = 0, used, n;
	int ret;

	lite_framer_init(&f);
	*nr = 0;
	*consumed = 0;
	while (off < len) {
		n = len - off < step ? len - off : step;
		while (n) {
			ret = lite_framer_push(&f, p + off, n, &used, &m, why);
			off += used;
			n -= used;
			*consumed = off;
			if (ret < 0)
				return ret;
			if (ret == 1)
				types[(*nr)++] = le16toh(m->hdr.type);
		}
	}
	return lite_framer_pending(&f) ? -EAGAIN : 0;
}

static void run_stream_cases(void)
{
	unsigned char buf[4 * LITE_MSG_MAX_SIZE];
	struct lite_msg a, b;
	unsigned int types[8], nr;
	size_t la, lb, used;
	const char *why = "";
	char name[96];
	bool ok;
	int ret;

	valid_join(&a);
	valid_qp_info(&b);
	la = lite_msg_size(&a);
	lb = lite_msg_size(&b);
	memcpy(buf, &a, la);
	memcpy(buf + la, &b, lb);

	/* Every read size from 1 byte to both messages at once. */
	ok = true;
	for (size_t step = 1; step <= la + lb; step++) {
		ret = feed(buf, la + lb, step, types, &nr, &used, &why);
		if (ret || nr != 2 || types[0] != LITE_MSG_JOIN ||
		    types[1] != LITE_MSG_QP_INFO) {
			report(false, "two messages in reads of %zu bytes: %s, %u messages",
			       step, err_str(ret), nr);
			ok = false;
		}
	}
	if (ok)
		report(true, "JOIN + QP_INFO in reads of 1..%zu bytes -> 2 messages",
		       la + lb);

	ret = feed(buf, la + lb, la + lb, types, &nr, &used, &why);
	report(!ret && nr == 2, "two messages in one read -> %u messages", nr);

	ret = feed(buf, la + lb / 2, 7, types, &nr, &used, &why);
	report(ret == -EAGAIN && nr == 1,
	       "one and a half messages -> 1 message, rest pending (%s)",
	       err_str(ret));

	ret = feed(buf, 10, 1, types, &nr, &used, &why);
	report(ret == -EAGAIN && nr == 0, "10 header bytes -> waiting (%s)",
	       err_str(ret));

	/* A bad header is refused at its 16th byte, not at the payload's. */
	a.hdr.length = 0xffffffff;
	memcpy(buf, &a, sizeof(a.hdr));
	ret = feed(buf, sizeof(a.hdr), 1, types, &nr, &used, &why);
	report(ret == -EMSGSIZE && used == sizeof(a.hdr),
	       "length 0xffffffff, byte by byte -> %s after %zu bytes",
	       err_str(ret), used);

	/* A good message, then garbage: one message, then an error. */
	valid_join(&a);
	memcpy(buf, &a, la);
	memset(buf + la, 0xab, 64);
	ret = feed(buf, la + 64, 3, types, &nr, &used, &why);
	report(ret == -EBADMSG && nr == 1 && used == la + sizeof(a.hdr),
	       "JOIN then garbage -> 1 message, then %s after %zu bytes",
	       err_str(ret), used);

	/* Errors are sticky and consume nothing. */
	{
		struct lite_framer f;
		const struct lite_msg *m;

		lite_framer_init(&f);
		ret = lite_framer_push(&f, buf + la, 64, &used, &m, &why);
		ret = lite_framer_push(&f, &a, la, &used, &m, &why);
		report(ret == -EBADMSG && used == 0,
		       "after an error -> still %s, %zu bytes taken",
		       err_str(ret), used);
	}

	/* Each header error, detected with exactly 16 bytes in. */
	for (size_t i = 2; i < sizeof(msg_cases) / sizeof(msg_cases[0]); i++) {
		const struct msg_case *t = &msg_cases[i];
		struct lite_msg m;

		if (strncmp(t->name, "header:", 7))
			continue;
		build(t, &m);
		ret = feed(&m, sizeof(m.hdr), 16, types, &nr, &used, &why);
		snprintf(name, sizeof(name), "%s, header only", t->name);
		expect_err(name, t->err, ret, why);
	}
}

/* --- the cluster state machine, with in-memory connections --- */

#define NR_SESS 6

struct sink {
	unsigned char buf[64 * LITE_MSG_MAX_SIZE];
	size_t len;
};

static struct sink sinks[NR_SESS];
static struct lite_sess sess[NR_SESS];
static char last_log[256];
/* The nodes' side of each connection's MACs. */
static struct lite_mac_state node_tx[NR_SESS], node_rx[NR_SESS];
static const uint8_t key[LITE_KEY_LEN] = { 0x11, 0x22, 0x33 };
static unsigned int nonces;

static void sink_send(void *ctx, struct lite_sess *to, const void *msg,
		      size_t len)
{
	struct sink *s = &sinks[to - sess];

	(void)ctx;
	if (s->len + len <= sizeof(s->buf)) {
		memcpy(s->buf + s->len, msg, len);
		s->len += len;
	}
}

static void sink_log(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	va_end(ap);
}

/* The session the cluster last asked to close (ops->drop). */
static struct lite_sess *last_drop;

static void sink_drop(void *ctx, struct lite_sess *s)
{
	(void)ctx;
	last_drop = s;
}

/* The cluster's ctx is &nonces. */
static const struct lite_cluster_ops sink_ops = {
	.send = sink_send,
	.log = sink_log,
	.random = fixture_random,
	.drop = sink_drop,
};

/*
 * Take the next message queued to session I; type 0 if none. A MAC'd one
 * must carry the right MAC for the node's side of the connection.
 */
static unsigned int take(unsigned int i, struct lite_msg *m)
{
	struct sink *s = &sinks[i];
	unsigned int type;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (s->len < sizeof(m->hdr))
		return 0;
	memcpy(&m->hdr, s->buf, sizeof(m->hdr));
	len = lite_msg_size(m);
	memcpy(m, s->buf, len);
	memmove(s->buf, s->buf + len, s->len - len);
	s->len -= len;
	type = le16toh(m->hdr.type);
	if (lite_msg_has_mac(type) &&
	    lite_msg_verify(key, LITE_MAC_TO_NODE, &node_rx[i], m)) {
		report(false, "%s to session %u: wrong MAC",
		       lite_msg_type_name(type), i);
		return 0;
	}
	return type;
}

/* Take (and check) everything queued to session I. */
static void drain(unsigned int i)
{
	struct lite_msg m;

	while (take(i, &m))
		;
}

/* A new connection for session I: CHALLENGE read, the node's nonce set. */
static void connect_as(struct lite_cluster *c, unsigned int i,
		       const char *name)
{
	struct lite_msg m;

	lite_sess_init(&sess[i], name, NULL);
	sinks[i].len = 0;
	lite_sess_start(c, &sess[i]);
	node_tx[i] = node_rx[i] = (struct lite_mac_state){ .seq = 0 };
	if (take(i, &m) != LITE_MSG_CHALLENGE) {
		report(false, "%s: no CHALLENGE first", name);
		return;
	}
	memcpy(node_tx[i].manager_nonce, m.challenge.nonce, LITE_NONCE_LEN);
	memcpy(node_rx[i].manager_nonce, m.challenge.nonce, LITE_NONCE_LEN);
	node_tx[i].node_nonce[0] = node_rx[i].node_nonce[0] = 0xa0 + i;
	node_tx[i].node_nonce[1] = node_rx[i].node_nonce[1] = nonces;
}

/* M from session I's node, with its MAC (a JOIN also with its nonce). */
static int send_as(struct lite_cluster *c, unsigned int i, struct lite_msg *m)
{
	unsigned int type = le16toh(m->hdr.type);

	if (type == LITE_MSG_JOIN)
		memcpy(m->join.nonce, node_tx[i].node_nonce, LITE_NONCE_LEN);
	if (lite_msg_has_mac(type))
		lite_msg_seal(key, LITE_MAC_TO_MANAGER, &node_tx[i], m);
	return lite_sess_input(c, &sess[i], m, lite_msg_size(m));
}

static void make_join(struct lite_msg *m, const char *name, unsigned int k,
		      unsigned int requested)
{
	valid_join(m);
	memset(m->join.name, 0, sizeof(m->join.name));
	snprintf(m->join.name, sizeof(m->join.name), "%s", name);
	m->join.qps_per_peer = htole16(k);
	m->join.requested_id = htole16(requested);
}

static int join_as(struct lite_cluster *c, unsigned int i, const char *name,
		   unsigned int k, unsigned int requested)
{
	struct lite_msg m;

	make_join(&m, name, k, requested);
	connect_as(c, i, name);
	return send_as(c, i, &m);
}

static void expect_reject(const char *what, unsigned int i, int err)
{
	struct lite_msg m;
	unsigned int type = take(i, &m);

	report(type == LITE_MSG_REJECT &&
	       le32toh(m.reject.error) == (uint32_t)-err,
	       "%s -> REJECT %s \"%s\"", what,
	       err_str(type == LITE_MSG_REJECT ? le32toh(m.reject.error) : 0),
	       type == LITE_MSG_REJECT ? m.reject.reason : "(no REJECT)");
}

static void run_cluster_cases(void)
{
	struct lite_cluster_cfg cfg = { .max_nodes = 3, .ib_port = 1 };
	struct lite_cluster c;
	struct lite_msg m, q, saved;
	unsigned int type;
	uint32_t gen2;
	int ret;

	memcpy(cfg.key, key, sizeof(key));
	ret = lite_cluster_init(&c, &cfg, &sink_ops, &nonces);
	report(!ret, "cluster init -> %s", err_str(ret));

	/* Authentication: a wrong MAC, and a JOIN replayed on a new connection. */
	make_join(&m, "a", K, 0);
	connect_as(&c, 0, "a");
	memcpy(m.join.nonce, node_tx[0].node_nonce, LITE_NONCE_LEN);
	lite_msg_seal(key, LITE_MAC_TO_MANAGER, &node_tx[0], &m);
	saved = m;
	m.join.mac[5] ^= 0x40;
	ret = lite_sess_input(&c, &sess[0], &m, lite_msg_size(&m));
	report(ret == -EACCES && strstr(last_log, "JOIN: bad MAC"),
	       "JOIN with a wrong MAC -> %s: %s", err_str(ret), last_log);
	expect_reject("JOIN with a wrong MAC", 0, -EACCES);
	connect_as(&c, 0, "a");
	ret = lite_sess_input(&c, &sess[0], &saved, lite_msg_size(&saved));
	report(ret == -EACCES, "a JOIN replayed on a new connection -> %s",
	       err_str(ret));
	expect_reject("replayed JOIN", 0, -EACCES);

	ret = join_as(&c, 0, "a", K, 0);
	type = take(0, &m);
	report(!ret && type == LITE_MSG_WELCOME &&
	       le16toh(m.welcome.node_id) == 1 &&
	       le16toh(m.welcome.qps_per_peer) == K &&
	       le32toh(m.welcome.generation) == 1,
	       "first JOIN -> WELCOME id 1, K %u, generation 1", K);

	ret = join_as(&c, 1, "b", K, 0);
	type = take(1, &m);
	report(!ret && type == LITE_MSG_WELCOME &&
	       le16toh(m.welcome.node_id) == 2, "second JOIN -> id 2");
	gen2 = le32toh(m.welcome.generation);
	type = take(1, &m);
	report(type == LITE_MSG_PEER_UP && le16toh(m.peer_up.node_id) == 1 &&
	       !strcmp(m.peer_up.name, "a"), "node 2 gets PEER_UP(1)");
	type = take(0, &m);
	report(type == LITE_MSG_PEER_UP && le16toh(m.peer_up.node_id) == 2 &&
	       le32toh(m.peer_up.generation) == gen2, "node 1 gets PEER_UP(2)");

	ret = join_as(&c, 2, "c", K + 1, 0);
	report(ret == -EINVAL, "JOIN with another K -> %s", err_str(ret));
	expect_reject("JOIN with another K", 2, -EINVAL);
	ret = join_as(&c, 2, "c", K, 2);
	expect_reject("JOIN asking for a used id", 2, -EADDRINUSE);
	ret = join_as(&c, 2, "c", K, 3);
	type = take(2, &m);
	report(type == LITE_MSG_WELCOME && le16toh(m.welcome.node_id) == 3,
	       "JOIN asking for id 3 -> id 3");
	drain(0);
	drain(1);
	drain(2);
	ret = join_as(&c, 3, "d", K, 0);
	expect_reject("JOIN into a full cluster", 3, -ENOSPC);

	/* QP_INFO 1 -> 3: forwarded unchanged but for the MAC. */
	valid_qp_info(&q);
	q.qp_info.src_gen = htole32(sess[0].gen);
	q.qp_info.dst_gen = htole32(sess[2].gen);
	ret = send_as(&c, 0, &q);
	type = take(2, &m);
	report(!ret && type == LITE_MSG_QP_INFO &&
	       !memcmp(&m, &q, lite_msg_size(&q) - LITE_MAC_LEN),
	       "QP_INFO 1 -> 3 forwarded byte for byte, with its own MAC");

	/* To a stale generation: dropped, sender kept. */
	q.qp_info.dst_gen = htole32(sess[2].gen + 100);
	ret = send_as(&c, 0, &q);
	type = take(2, &m);
	report(!ret && !type && strstr(last_log, "dropped"),
	       "QP_INFO to a stale generation -> dropped: %s", last_log);

	/* Node 2 leaves; 1 and 3 hear it; a new JOIN gets id 2 back. */
	lite_sess_leave(&c, &sess[1]);
	type = take(0, &m);
	report(type == LITE_MSG_PEER_DOWN &&
	       le16toh(m.peer_down.node_id) == 2 &&
	       le32toh(m.peer_down.generation) == gen2 &&
	       take(2, &q) == LITE_MSG_PEER_DOWN,
	       "node 2 leaves -> PEER_DOWN(2, %u) to 1 and 3", gen2);
	ret = join_as(&c, 1, "b", K, 0);
	type = take(1, &m);
	report(type == LITE_MSG_WELCOME && le16toh(m.welcome.node_id) == 2 &&
	       le32toh(m.welcome.generation) > gen2,
	       "rejoin -> id 2, generation %u > %u",
	       le32toh(m.welcome.generation), gen2);

	/* A member's message replayed: its MAC was for an earlier count. */
	valid_qp_info(&q);
	q.qp_info.src_gen = htole32(sess[0].gen);
	q.qp_info.dst_gen = htole32(sess[2].gen);
	ret = send_as(&c, 0, &q);
	take(2, &m);
	saved = q;
	drain(0);
	ret = lite_sess_input(&c, &sess[0], &saved, lite_msg_size(&saved));
	report(ret == -EACCES && !take(0, &m) &&
	       strstr(last_log, "(node 1): QP_INFO: bad MAC"),
	       "a member's QP_INFO replayed -> %s, closing without REJECT: %s",
	       err_str(ret), last_log);
	lite_sess_leave(&c, &sess[0]);
	take(2, &m);
	ret = join_as(&c, 0, "a", K, 0);
	take(0, &m);
	report(!ret && le16toh(m.welcome.node_id) == 1, "a rejoins as 1");
	drain(0);
	drain(1);
	drain(2);

	/* Violations from a member: closed, no REJECT (it is not joining). */
	valid_join(&m);
	ret = send_as(&c, 0, &m);
	report(ret == -EPROTO && !take(0, &m), "second JOIN -> %s, closing",
	       err_str(ret));
	lite_sess_leave(&c, &sess[0]);
	peer_down_ok(&m);
	ret = send_as(&c, 2, &m);
	report(ret == -EPROTO, "PEER_DOWN from a node -> %s: %s", err_str(ret),
	       last_log);

	/* Before JOIN: anything else is refused with a REJECT. */
	connect_as(&c, 4, "x");
	valid_qp_info(&q);
	ret = send_as(&c, 4, &q);
	expect_reject("QP_INFO before JOIN", 4, -EPROTO);
	connect_as(&c, 4, "x");
	q.hdr.version = htole16(LITE_PROTO_VERSION + 1);
	ret = lite_sess_input(&c, &sess[4], &q, sizeof(q.hdr));
	expect_reject("next version before JOIN", 4, -EPROTONOSUPPORT);
	lite_cluster_cleanup(&c);
}

/*
 * A node joins again, asking for its id, while its old connection is still
 * a member (it gave up on that connection first): same name and address
 * replace the old session, even in a full cluster; another address does not.
 */
static void run_rejoin_cases(void)
{
	struct lite_cluster_cfg cfg = { .max_nodes = 3, .ib_port = 1 };
	struct lite_cluster c;
	struct lite_msg m;
	unsigned int type;
	uint32_t old_gen, gen;
	int ret;

	memcpy(cfg.key, key, sizeof(key));
	lite_cluster_init(&c, &cfg, &sink_ops, &nonces);
	join_as(&c, 0, "a", K, 0);
	join_as(&c, 1, "b", K, 0);
	join_as(&c, 2, "c", K, 0);
	old_gen = sess[1].gen;
	drain(0);
	drain(1);
	drain(2);

	make_join(&m, "b", K, 2);
	m.join.addr.gid[14] = 0x77;
	connect_as(&c, 3, "b");
	send_as(&c, 3, &m);
	expect_reject("a full cluster, id 2 asked for by b at another GID", 3,
		      -ENOSPC);

	last_drop = NULL;
	ret = join_as(&c, 3, "b", K, 2);
	type = take(3, &m);
	gen = le32toh(m.welcome.generation);
	report(!ret && type == LITE_MSG_WELCOME &&
	       le16toh(m.welcome.node_id) == 2 && gen > old_gen &&
	       sess[1].state == LITE_SESS_GONE && last_drop == &sess[1] &&
	       c.member[2] == &sess[3] && c.nr_members == 3,
	       "b joins again as 2 while its old connection is open -> WELCOME 2, generation %u > %u, old session gone and dropped",
	       gen, old_gen);
	type = take(0, &m);
	report(type == LITE_MSG_PEER_DOWN &&
	       le16toh(m.peer_down.node_id) == 2 &&
	       le32toh(m.peer_down.generation) == old_gen,
	       "node 1 hears PEER_DOWN(2, %u) first", old_gen);
	type = take(0, &m);
	report(type == LITE_MSG_PEER_UP && le16toh(m.peer_up.node_id) == 2 &&
	       le32toh(m.peer_up.generation) == gen,
	       "then PEER_UP(2, %u)", gen);
	report(!take(1, &m), "the old session gets nothing more");
	lite_sess_leave(&c, &sess[1]);
	report(c.member[2] == &sess[3] && c.nr_members == 3,
	       "closing the old connection later changes nothing");
	drain(0);
	drain(2);
	drain(3);

	lite_sess_leave(&c, &sess[2]);
	drain(0);
	drain(3);
	make_join(&m, "b", K, 2);
	m.join.addr.gid[14] = 0x77;
	connect_as(&c, 4, "b");
	send_as(&c, 4, &m);
	expect_reject("id 2 asked for by b at another GID", 4, -EADDRINUSE);
	lite_cluster_cleanup(&c);
}

int main(void)
{
	run_msg_cases();
	run_stream_cases();
	run_cluster_cases();
	run_rejoin_cases();
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
