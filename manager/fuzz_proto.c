// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness for the manager's protocol code. Each input is used
 * three ways:
 *  1. every validator on the raw bytes;
 *  2. the raw bytes as one TCP stream through the framer, in reads of sizes
 *     taken from the input, and every framed message through the validators;
 *  3. a script for the cluster state machine: several connections that send
 *     raw bytes or well-formed-but-mutated messages (MAC'd with the fuzz
 *     key, now and then with a broken MAC), leave, time out. Everything
 *     the manager sends is checked, its MAC included, and so are the
 *     membership invariants after every step; a violation traps.
 * Build: make fuzz. Run: ./fuzz_proto -max_total_time=60 CORPUS_DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "cluster.h"
#include "fixture.h"
#include "framer.h"
#include "proto.h"
#include "../lite/fuzz/invariant.h"

#define NR_SESS 6

static struct lite_cluster cluster;
static struct lite_sess sess[NR_SESS];
/* What each connection's node would know: to check the manager's MACs. */
static struct lite_mac_state node_rx[NR_SESS];
static unsigned int nonce_count;

/* A cursor over the input. */
struct input {
	const uint8_t *p;
	size_t len;
};

static unsigned int next_byte(struct input *in)
{
	unsigned int b;

	if (!in->len)
		return 0;
	b = *in->p++;
	in->len--;
	return b;
}

static void validate_all(const struct lite_msg *m)
{
	const char *why;

	/* Results do not matter here; reading out of bounds would. */
	lite_check_hdr(&m->hdr, &why);
	lite_check_join(&m->join, &why);
	lite_check_qp_info(&m->qp_info, le16toh(m->qp_info.nr_qps),
			   le16toh(m->qp_info.src_node),
			   le32toh(m->qp_info.src_gen), &why);
	lite_check_qp_info(&m->qp_info, 4, 1, 1, &why);
	lite_check_welcome(&m->welcome, &why);
	lite_check_reject(&m->reject, &why);
	lite_check_peer_up(&m->peer_up, &why);
	lite_check_peer_down(&m->peer_down, &why);
	lite_msg_type_name(le16toh(m->hdr.type));
}

/* 1 and 2: raw bytes. */
static void fuzz_raw(const uint8_t *data, size_t size)
{
	const struct lite_msg *m;
	struct lite_framer f;
	struct lite_msg copy;
	size_t off = 0, used, n;
	const char *why;
	int ret;

	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, data, size < sizeof(copy) ? size : sizeof(copy));
	validate_all(&copy);

	lite_framer_init(&f);
	while (off < size) {
		n = 1 + data[off] % 48;
		if (n > size - off)
			n = size - off;
		ret = lite_framer_push(&f, data + off, n, &used, &m, &why);
		check(used <= n);
		if (ret < 0) {
			check(why && *why);
			/* Sticky, and takes nothing more. */
			ret = lite_framer_push(&f, data, size, &used, &m, &why);
			check(ret < 0 && used == 0);
			return;
		}
		check(ret == 0 ? used == n : ret == 1);
		if (ret == 1) {
			check(!lite_check_hdr(&m->hdr, &why));
			check(lite_msg_size(m) <= LITE_MSG_MAX_SIZE);
			validate_all(m);
		}
		off += used;
	}
}

static void on_log(void *ctx, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

/* The ECHO being fed in (script_wrong_way), which may come back once. */
static const struct lite_sess *echo_from;
static uint64_t echo_cookie;

/* Every message the manager sends must be one a correct node accepts. */
static void on_send(void *ctx, struct lite_sess *to, const void *buf,
		    size_t len)
{
	struct lite_msg m;
	const struct lite_sess *src;
	unsigned int type, id;
	const char *why;
	struct lite_mac_state *rx;

	(void)ctx;
	check(to >= sess && to < sess + NR_SESS);
	rx = &node_rx[to - sess];
	check(len >= sizeof(m.hdr) && len <= sizeof(m));
	memcpy(&m, buf, len);
	check(!lite_check_hdr(&m.hdr, &why));
	check(lite_msg_size(&m) == len);
	type = le16toh(m.hdr.type);
	if (type == LITE_MSG_CHALLENGE) {
		check(to->state == LITE_SESS_NEW);
		memcpy(rx->manager_nonce, m.challenge.nonce, LITE_NONCE_LEN);
		return;
	}
	if (lite_msg_has_mac(type)) {
		memcpy(rx->node_nonce, to->tx.node_nonce, LITE_NONCE_LEN);
		check(!lite_msg_verify(cluster.cfg.key, LITE_MAC_TO_NODE, rx,
				       &m));
	}
	if (type == LITE_MSG_REJECT) {
		check(to->state == LITE_SESS_NEW);
		check(!lite_check_reject(&m.reject, &why));
		return;
	}
	check(to->state == LITE_SESS_MEMBER);
	switch (type) {
	case LITE_MSG_WELCOME:
		check(!lite_check_welcome(&m.welcome, &why));
		check(le16toh(m.welcome.node_id) == to->node_id);
		check(le32toh(m.welcome.generation) == to->gen);
		check(le16toh(m.welcome.qps_per_peer) == cluster.k);
		break;
	case LITE_MSG_PEER_UP:
		check(!lite_check_peer_up(&m.peer_up, &why));
		id = le16toh(m.peer_up.node_id);
		check(id != to->node_id && cluster.member[id]);
		check(cluster.member[id]->gen == le32toh(m.peer_up.generation));
		break;
	case LITE_MSG_PEER_DOWN:
		check(!lite_check_peer_down(&m.peer_down, &why));
		check(le16toh(m.peer_down.node_id) != to->node_id);
		break;
	case LITE_MSG_QP_INFO:
		id = le16toh(m.qp_info.src_node);
		src = id < LITE_MAX_NODES ? cluster.member[id] : NULL;
		check(src);
		check(!lite_check_qp_info(&m.qp_info, cluster.k, id, src->gen,
					  &why));
		check(le16toh(m.qp_info.dst_node) == to->node_id);
		check(le32toh(m.qp_info.dst_gen) == to->gen);
		break;
	case LITE_MSG_ECHO:	/* only back to the member that sent it */
		check(!lite_check_manager_msg(&m, &why));
		check(echo_from && to == echo_from);
		check(m.echo.cookie == echo_cookie);
		echo_from = NULL;
		break;
	default:
		check(!"manager sent a node-to-manager type");
	}
}

/* Deterministic nonces, counted in the cluster's ctx, &nonce_count. */
static const struct lite_cluster_ops ops = {
	.send = on_send,
	.log = on_log,
	.random = fixture_random,
};

static void check_invariants(void)
{
	unsigned int members = 0;

	for (unsigned int id = 0; id < LITE_MAX_NODES; id++) {
		const struct lite_sess *s = cluster.member[id];

		if (!s)
			continue;
		check(id >= 1 && id <= cluster.cfg.max_nodes);
		check(s->state == LITE_SESS_MEMBER && s->node_id == id);
		members++;
	}
	check(members == cluster.nr_members);
	for (unsigned int i = 0; i < NR_SESS; i++)
		if (sess[i].state == LITE_SESS_MEMBER)
			check(cluster.member[sess[i].node_id] == &sess[i]);
	check(cluster.k <= LITE_MAX_QPS_PER_PEER);
	check(!members || (cluster.k && cluster.link_layer));
}

static void connect_sess(unsigned int i)
{
	char peer[16];

	snprintf(peer, sizeof(peer), "fuzz-%u", i);
	lite_sess_init(&sess[i], peer, NULL);
	node_rx[i] = (struct lite_mac_state){ .seq = 0 };
	check(!lite_sess_start(&cluster, &sess[i]));
}

/* What the daemon does when a connection closes: leave, then reconnect. */
static void reconnect(unsigned int i)
{
	lite_sess_leave(&cluster, &sess[i]);
	check(sess[i].state == LITE_SESS_GONE);
	connect_sess(i);
}

static void input(unsigned int i, const void *buf, size_t len)
{
	if (lite_sess_input(&cluster, &sess[i], buf, len) < 0)
		reconnect(i);
}

/* A message from node I with its right MAC, or (BROKEN) a wrong one. */
static void input_sealed(unsigned int i, struct lite_msg *m, bool broken)
{
	struct lite_mac_state st = sess[i].rx;

	if (!lite_msg_has_mac(le16toh(m->hdr.type))) {
		input(i, m, lite_msg_size(m));
		return;
	}
	if (sess[i].state == LITE_SESS_NEW &&
	    le16toh(m->hdr.type) == LITE_MSG_JOIN)
		memcpy(st.node_nonce, m->join.nonce, LITE_NONCE_LEN);
	lite_msg_seal(cluster.cfg.key, LITE_MAC_TO_MANAGER, &st, m);
	if (broken)
		((uint8_t *)m)[lite_msg_size(m) - 1] ^= 1;
	input(i, m, lite_msg_size(m));
}

/* A JOIN that passes lite_check_join() unless flags break it on purpose. */
static void script_join(unsigned int i, struct input *in)
{
	unsigned int flags = next_byte(in);
	struct lite_msg m;
	char name[LITE_NAME_LEN];

	snprintf(name, sizeof(name), "node-%u", i);
	fixture_join(&m, name, 1);
	if (flags & 1) {
		m.join.addr.link_layer = LITE_LINK_IB;
		m.join.addr.gid_type = LITE_GID_IB;
	}
	m.join.addr.mtu = 1 + next_byte(in) % 5;
	m.join.addr.gid[15] = i;
	m.join.qps_per_peer = htole16(1 + next_byte(in) % 4);
	m.join.requested_id = htole16(flags & 2 ? next_byte(in) % 8 : 0);
	m.join.ib_port = flags & 4 ? 2 : 1;
	m.join.nonce[0] = i;
	m.join.nonce[1] = next_byte(in);
	/* Now and then one field broken, straight from the input. */
	if (flags & 8)
		((uint8_t *)&m.join)[next_byte(in) % sizeof(m.join)] =
			next_byte(in);
	if (flags & 16)
		m.join.qps_per_peer = htole16(next_byte(in));
	input_sealed(i, &m, flags & 32);
}

static void script_qp_info(unsigned int i, struct input *in)
{
	unsigned int flags = next_byte(in);
	const struct lite_sess *dst = &sess[next_byte(in) % NR_SESS];
	unsigned int nr = cluster.k ? cluster.k : 1;
	struct lite_msg m;

	lite_msg_init(&m, LITE_MSG_QP_INFO);
	m.qp_info.src_node = htole16(sess[i].node_id);
	m.qp_info.src_gen = htole32(sess[i].gen);
	m.qp_info.dst_node = htole16(dst->node_id);
	m.qp_info.dst_gen = htole32(dst->gen + (flags & 1));
	m.qp_info.nr_qps = htole16(nr);
	for (unsigned int q = 0; q < nr; q++) {
		m.qp_info.qp[q].qpn = htole32(next_byte(in) << 8 | q);
		m.qp_info.qp[q].psn = htole32(next_byte(in) << 16);
		m.qp_info.qp[q].epoch = htole32(next_byte(in));
		m.qp_info.qp[q].flags = next_byte(in) & 7;
	}
	if (flags & 2)
		((uint8_t *)&m.qp_info)[next_byte(in) % sizeof(m.qp_info)] ^=
			1 << (next_byte(in) % 8);
	if (flags & 4)
		m.qp_info.src_node = htole16(next_byte(in) % 8);
	input_sealed(i, &m, flags & 8);
}

/* A header with the right magic and fields from the input. */
static void script_header(unsigned int i, struct input *in)
{
	unsigned int flags = next_byte(in);
	struct lite_msg_hdr h = {
		.magic = htole32(LITE_PROTO_MAGIC),
		.version = htole16(flags & 1 ? next_byte(in) : LITE_PROTO_VERSION),
		.type = htole16(next_byte(in) % (LITE_MSG_ECHO + 2)),
		.length = htole32(flags & 2 ? next_byte(in) << (flags >> 5)
					    : lite_msg_payload_size(
						      next_byte(in) %
						      (LITE_MSG_ECHO + 2))),
		.reserved = htole32(flags & 4 ? next_byte(in) : 0),
	};

	input(i, &h, sizeof(h));
}

/*
 * A manager-to-node message, sent the wrong way; or an ECHO, which goes
 * both ways (before JOIN: refused).
 */
static void script_wrong_way(unsigned int i, struct input *in)
{
	static const unsigned int types[] = {
		LITE_MSG_WELCOME, LITE_MSG_REJECT, LITE_MSG_PEER_UP,
		LITE_MSG_PEER_DOWN, LITE_MSG_CHALLENGE, LITE_MSG_ECHO,
	};
	struct lite_msg m;

	lite_msg_init(&m, types[next_byte(in) % 6]);
	if (le16toh(m.hdr.type) == LITE_MSG_ECHO) {
		m.echo.cookie = htole64(next_byte(in));
		echo_from = &sess[i];
		echo_cookie = m.echo.cookie;
	}
	input_sealed(i, &m, false);
	echo_from = NULL;
}

/* 3: a script of connection events. */
static void fuzz_cluster(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .len = size };
	unsigned int cfg_byte = next_byte(&in);
	struct lite_cluster_cfg cfg = {
		.max_nodes = cfg_byte & 4 ? LITE_MAX_NODE_ID
					  : 2 + (cfg_byte & 3),
		.k = (cfg_byte >> 3) & 3,
		.ib_port = cfg_byte & 0x20 ? 1 : 0,
	};
	size_t n;

	memset(cfg.key, 0x5a, sizeof(cfg.key));
	nonce_count = 0;
	check(!lite_cluster_init(&cluster, &cfg, &ops, &nonce_count));
	for (unsigned int i = 0; i < NR_SESS; i++)
		connect_sess(i);
	while (in.len) {
		unsigned int op = next_byte(&in);
		unsigned int i = op % NR_SESS;

		switch (op / NR_SESS % 8) {
		case 0:	/* raw bytes */
			n = next_byte(&in) % 64;
			if (n > in.len)
				n = in.len;
			input(i, in.p, n);
			in.p += n;
			in.len -= n;
			break;
		case 1:
			script_header(i, &in);
			break;
		case 2:
		case 3:
			script_join(i, &in);
			break;
		case 4:
		case 5:
			script_qp_info(i, &in);
			break;
		case 6:
			script_wrong_way(i, &in);
			break;
		default:	/* a close, or a join timeout */
			if (op & 0x80 && sess[i].state == LITE_SESS_NEW)
				lite_sess_fail(&cluster, &sess[i], -ETIMEDOUT,
					       "no JOIN within %u s", 1);
			reconnect(i);
			break;
		}
		check_invariants();
	}
	for (unsigned int i = 0; i < NR_SESS; i++)
		lite_sess_leave(&cluster, &sess[i]);
	check(!cluster.nr_members);
	lite_cluster_cleanup(&cluster);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_raw(data, size);
	fuzz_cluster(data, size);
	return 0;
}
