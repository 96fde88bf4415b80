// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * test_client PORT KEY_FILE SCENARIO: play several nodes against a
 * lite-manager on 127.0.0.1:PORT, with the cluster key in KEY_FILE, and
 * check every message that comes back, its MAC included. Prints one "ok:"
 * line per check; on the first failure prints "FAIL: ..." and exits 1.
 * Driven by tests/unit/manager, which also checks the manager's log.
 *
 * Scenarios:
 *   cluster   joins, PEER_UP, QP_INFO relay, forgery, leave, rejoin, hostile
 *             connections, wrong and replayed MACs (default options)
 *   timeout   connections that never JOIN are refused after --join-timeout 2
 *   limits    -k 2 -i 1 -n 2: K, ib_port, requested ids, a full cluster,
 *             members outliving the join timeout
 *   overflow  a member that never reads is dropped; the others hear it
 *   per-source  --max-per-source 3: a fourth connection from 127.0.0.1 is
 *             refused, members are unaffected, a freed slot can be used
 *   overall   --max-per-source 128: a member (127.0.0.1) and 255 silent
 *             connections (127.0.0.2 and .3) fill all 256 slots; the next
 *             (127.0.0.4) is refused, the member unaffected
 */
#define _GNU_SOURCE	/* strerrorname_np */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "fixture.h"
#include "proto.h"

#define WAIT_MS		3000	/* for a message that must come */
#define QUIET_MS	300	/* for one that must not */
#define K		2
/* LITE_PROTO_VERSION as a string, for the manager's words. */
#define LITE_XSTR(x)	#x
#define LITE_STR(x)	LITE_XSTR(x)

struct node {
	const char *label;
	int fd;
	unsigned int id;
	uint32_t gen;
	struct lite_msg join;	/* as sent */
	bool challenged;	/* CHALLENGE read: tx, rx ready */
	struct lite_mac_state tx, rx;
};

static uint8_t key[LITE_KEY_LEN];

static unsigned short port;
static const char *scenario;
static uint32_t last_gen;	/* generations only grow */

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: %s: ", scenario);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

static void __attribute__((format(printf, 1, 2))) ok(const char *fmt, ...)
{
	va_list ap;

	printf("ok: %s: ", scenario);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *err_str(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "?";
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* 127.0.0.x the next connections come from (0: 127.0.0.1, the default). */
static unsigned int source_host;

/* Loopback only: this program never talks to another host. */
static void node_connect(struct node *n, const char *label, int rcvbuf)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1;

	*n = (struct node){ .label = label };
	n->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0)
		die("%s: socket: %s", label, strerror(errno));
	setsockopt(n->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rcvbuf)
		setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	if (source_host) {
		struct sockaddr_in src = {
			.sin_family = AF_INET,
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + source_host),
		};

		if (bind(n->fd, (struct sockaddr *)&src, sizeof(src)))
			die("%s: bind to 127.0.0.%u: %s", label, source_host,
			    strerror(errno));
	}
	if (connect(n->fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("%s: connect to 127.0.0.1:%u: %s", label, port,
		    strerror(errno));
	if (lite_random(n->tx.node_nonce, LITE_NONCE_LEN))
		die("%s: getrandom failed", label);
	memcpy(n->rx.node_nonce, n->tx.node_nonce, LITE_NONCE_LEN);
}

static void node_close(struct node *n)
{
	close(n->fd);
	n->fd = -1;
}

static void send_bytes(struct node *n, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t r;

	while (len) {
		r = send(n->fd, p, len, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("%s: send: %s", n->label, strerror(errno));
		p += r;
		len -= r;
	}
}

static int recv_msg(struct node *n, struct lite_msg *m, int timeout_ms);

/* Give M (of a MAC'd type) N's next MAC; a JOIN also N's nonce. */
static void seal(struct node *n, struct lite_msg *m)
{
	struct lite_msg c;

	if (!n->challenged && recv_msg(n, &c, WAIT_MS) != LITE_MSG_CHALLENGE)
		die("%s: no CHALLENGE from the manager", n->label);
	if (le16toh(m->hdr.type) == LITE_MSG_JOIN)
		memcpy(m->join.nonce, n->tx.node_nonce, LITE_NONCE_LEN);
	lite_msg_seal(key, LITE_MAC_TO_MANAGER, &n->tx, m);
}

/* M as a correct node sends it: with its MAC where its type has one. */
static void send_msg(struct node *n, const struct lite_msg *m)
{
	struct lite_msg sealed = *m;

	if (lite_msg_has_mac(le16toh(m->hdr.type)))
		seal(n, &sealed);
	send_bytes(n, &sealed, lite_msg_size(&sealed));
}

/* 1: got LEN bytes; 0: EOF (or reset) first; -ETIMEDOUT. */
static int read_exact(struct node *n, void *buf, size_t len, int timeout_ms)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = n->fd, .events = POLLIN };
	unsigned char *p = buf;
	ssize_t r;
	int left;

	while (len) {
		left = (int)(end - now_ms());
		if (left < 0 || poll(&pfd, 1, left) == 0)
			return -ETIMEDOUT;
		r = recv(n->fd, p, len, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0 && errno == ECONNRESET)
			return 0;
		if (r < 0)
			die("%s: recv: %s", n->label, strerror(errno));
		if (r == 0)
			return 0;
		p += r;
		len -= r;
	}
	return 1;
}

/*
 * The next message, checked as a node would, MAC included; 0 on EOF,
 * -ETIMEDOUT. A CHALLENGE is taken in and reported as such.
 */
static int recv_msg(struct node *n, struct lite_msg *m, int timeout_ms)
{
	unsigned int type;
	const char *why;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = read_exact(n, &m->hdr, sizeof(m->hdr), timeout_ms);
	if (ret <= 0)
		return ret;
	if (lite_check_hdr(&m->hdr, &why))
		die("%s: bad header from the manager: %s", n->label, why);
	if (read_exact(n, m->raw, le32toh(m->hdr.length), WAIT_MS) <= 0)
		die("%s: truncated %s", n->label,
		    lite_msg_type_name(le16toh(m->hdr.type)));
	type = le16toh(m->hdr.type);
	if (type == LITE_MSG_CHALLENGE) {
		if (n->challenged)
			die("%s: a second CHALLENGE", n->label);
		n->challenged = true;
		memcpy(n->tx.manager_nonce, m->challenge.nonce, LITE_NONCE_LEN);
		memcpy(n->rx.manager_nonce, m->challenge.nonce, LITE_NONCE_LEN);
		return type;
	}
	if (lite_msg_has_mac(type) &&
	    lite_msg_verify(key, LITE_MAC_TO_NODE, &n->rx, m))
		die("%s: %s from the manager with a wrong MAC", n->label,
		    lite_msg_type_name(type));
	if (type == LITE_MSG_QP_INFO)
		return type;	/* compared byte for byte by the caller */
	ret = lite_check_manager_msg(m, &why);
	if (ret == -ENOMSG)
		die("%s: manager sent a %s", n->label,
		    lite_msg_type_name(type));
	if (ret)
		die("%s: bad %s from the manager: %s", n->label,
		    lite_msg_type_name(type), why);
	return type;
}

/* The next message but a CHALLENGE. */
static int recv_next(struct node *n, struct lite_msg *m, int timeout_ms)
{
	int got = recv_msg(n, m, timeout_ms);

	return got == LITE_MSG_CHALLENGE ? recv_msg(n, m, timeout_ms) : got;
}

static void expect_msg(struct node *n, unsigned int type, struct lite_msg *m)
{
	int got = recv_next(n, m, WAIT_MS);

	if (got == (int)type)
		return;
	if (got == LITE_MSG_REJECT)
		die("%s: expected %s, got REJECT %s \"%s\"", n->label,
		    lite_msg_type_name(type),
		    err_str(le32toh(m->reject.error)), m->reject.reason);
	die("%s: expected %s, got %s", n->label, lite_msg_type_name(type),
	    got == 0 ? "EOF" : got < 0 ? "nothing" : lite_msg_type_name(got));
}

static void expect_closed(struct node *n)
{
	struct lite_msg m;
	int got = recv_next(n, &m, WAIT_MS);

	if (got)
		die("%s: expected the manager to close, got %s", n->label,
		    got < 0 ? "nothing" : lite_msg_type_name(got));
	node_close(n);
}

/* REJECT with ERR and a reason containing TEXT, then the end. */
static void expect_reject(struct node *n, int err, const char *text)
{
	struct lite_msg m;

	expect_msg(n, LITE_MSG_REJECT, &m);
	if (le32toh(m.reject.error) != (uint32_t)err ||
	    !strstr(m.reject.reason, text))
		die("%s: expected REJECT %s \"...%s...\", got %s \"%s\"",
		    n->label, err_str(err), text,
		    err_str(le32toh(m.reject.error)), m.reject.reason);
	expect_closed(n);
	ok("%s: REJECT %s \"%s\", then closed", n->label, err_str(err),
	   m.reject.reason);
}

static void expect_quiet(struct node *n)
{
	struct lite_msg m;
	int got = recv_next(n, &m, QUIET_MS);

	if (got != -ETIMEDOUT)
		die("%s: expected nothing, got %s", n->label,
		    got == 0 ? "EOF" : lite_msg_type_name(got));
}

static void make_join(struct lite_msg *m, const char *name, unsigned int k)
{
	fixture_join(m, name, k);
	/* Each node its own GID, so a mixed-up PEER_UP shows. */
	for (size_t i = 0; name[i] && i < 8; i++)
		m->join.addr.gid[8 + i] = name[i];
}

static void check_peer_up(struct node *to, const struct node *about)
{
	struct lite_msg m;

	expect_msg(to, LITE_MSG_PEER_UP, &m);
	if (le16toh(m.peer_up.node_id) != about->id ||
	    le32toh(m.peer_up.generation) != about->gen ||
	    memcmp(&m.peer_up.addr, &about->join.join.addr,
		   sizeof(m.peer_up.addr)) ||
	    memcmp(m.peer_up.name, about->join.join.name, LITE_NAME_LEN))
		die("%s: PEER_UP(%u, gen %u, %s), expected PEER_UP(%u, gen %u, %s)",
		    to->label, le16toh(m.peer_up.node_id),
		    le32toh(m.peer_up.generation), m.peer_up.name, about->id,
		    about->gen, about->join.join.name);
}

static void check_peer_down(struct node *to, const struct node *about)
{
	struct lite_msg m;

	expect_msg(to, LITE_MSG_PEER_DOWN, &m);
	if (le16toh(m.peer_down.node_id) != about->id ||
	    le32toh(m.peer_down.generation) != about->gen)
		die("%s: PEER_DOWN(%u, gen %u), expected PEER_DOWN(%u, gen %u)",
		    to->label, le16toh(m.peer_down.node_id),
		    le32toh(m.peer_down.generation), about->id, about->gen);
}

/*
 * Member N broke the protocol (WHAT): the manager closes it and tells each
 * of the NR OTHERS that N is down.
 */
static void expect_dropped(struct node *n, struct node *const *others,
			   unsigned int nr, const char *what)
{
	char ids[64] = "";
	size_t len = 0;
	unsigned int i;

	expect_closed(n);
	for (i = 0; i < nr; i++) {
		check_peer_down(others[i], n);
		len += snprintf(ids + len, sizeof(ids) - len, "%s%u",
				i ? ", " : "", others[i]->id);
	}
	ok("%s: node %u closed, PEER_DOWN(%u) to %s", what, n->id, n->id, ids);
}

/*
 * N (already sent its JOIN) must get WELCOME with id WANT_ID, then PEER_UP
 * for each of the NR members (in id order), each of which gets PEER_UP(N).
 */
static void check_welcome(struct node *n, unsigned int want_id,
			  struct node **members, unsigned int nr)
{
	struct lite_msg m;

	expect_msg(n, LITE_MSG_WELCOME, &m);
	n->id = le16toh(m.welcome.node_id);
	n->gen = le32toh(m.welcome.generation);
	if (n->id != want_id || le16toh(m.welcome.qps_per_peer) !=
				le16toh(n->join.join.qps_per_peer))
		die("%s: WELCOME id %u K %u, expected id %u K %u", n->label,
		    n->id, le16toh(m.welcome.qps_per_peer), want_id,
		    le16toh(n->join.join.qps_per_peer));
	if (n->gen <= last_gen)
		die("%s: generation %u not above the last one, %u", n->label,
		    n->gen, last_gen);
	last_gen = n->gen;
	for (unsigned int i = 0; i < nr; i++) {
		check_peer_up(n, members[i]);
		check_peer_up(members[i], n);
	}
	ok("%s joined: WELCOME id %u generation %u, PEER_UP both ways with %u members",
	   n->label, n->id, n->gen, nr);
}

static void join(struct node *n, const char *label, unsigned int k,
		 unsigned int want_id, struct node **members, unsigned int nr)
{
	node_connect(n, label, 0);
	make_join(&n->join, label, k);
	seal(n, &n->join);
	send_bytes(n, &n->join, lite_msg_size(&n->join));
	check_welcome(n, want_id, members, nr);
}

/*
 * Connect, send LEN bytes of BUF as the first thing: a whole message of a
 * MAC'd type with its MAC (what is hostile is inside), anything else raw.
 */
static void hostile(struct node *n, const char *label, const void *buf,
		    size_t len)
{
	const struct lite_msg *m = buf;

	node_connect(n, label, 0);
	if (len >= sizeof(m->hdr) && !lite_check_hdr(&m->hdr, NULL) &&
	    len == lite_msg_size(m) && lite_msg_has_mac(le16toh(m->hdr.type)))
		send_msg(n, m);
	else
		send_bytes(n, buf, len);
}

static void make_qp_info(struct lite_msg *m, const struct node *src,
			 const struct node *dst, uint32_t dst_gen)
{
	lite_msg_init(m, LITE_MSG_QP_INFO);
	m->qp_info.src_node = htole16(src->id);
	m->qp_info.src_gen = htole32(src->gen);
	m->qp_info.dst_node = htole16(dst->id);
	m->qp_info.dst_gen = htole32(dst_gen);
	m->qp_info.nr_qps = htole16(K);
	for (unsigned int i = 0; i < K; i++) {
		m->qp_info.qp[i].qpn =
			htole32(0x100 * src->id + 0x10 * dst->id + i);
		m->qp_info.qp[i].psn = htole32((0xabcd00 + i) ^ src->gen);
		m->qp_info.qp[i].flags = LITE_QP_EP_SET;
	}
}

static void relay(struct node *src, struct node *dst)
{
	struct lite_msg sent, got;

	make_qp_info(&sent, src, dst, dst->gen);
	send_msg(src, &sent);
	expect_msg(dst, LITE_MSG_QP_INFO, &got);
	if (memcmp(&sent, &got, lite_msg_size(&sent) - LITE_MAC_LEN))
		die("%s: QP_INFO from %s changed on the way", dst->label,
		    src->label);
	ok("QP_INFO %u -> %u arrived byte for byte", src->id, dst->id);
}

static void scenario_cluster(void)
{
	struct node a, b, c, d, b2, e, f, g, h;
	struct node *members[4];
	/* Who sees a later node 4 dropped. */
	struct node *const others[] = { &a, &b2, &c };
	struct lite_msg m, q, replayed_join;
	uint32_t b_gen;

	join(&a, "node-a", K, 1, NULL, 0);
	replayed_join = a.join;	/* sealed as sent */
	members[0] = &a;
	join(&b, "node-b", K, 2, members, 1);
	members[1] = &b;
	join(&c, "node-c", K, 3, members, 2);
	members[2] = &c;
	ok("three nodes joined as 1, 2, 3");

	relay(&a, &c);
	relay(&c, &a);
	relay(&b, &c);

	/* Node 4 forges node 1's identity: it goes, the others stay. */
	join(&d, "node-d", K, 4, members, 3);
	make_qp_info(&m, &a, &c, c.gen);
	send_msg(&d, &m);
	expect_closed(&d);
	check_peer_down(&a, &d);
	check_peer_down(&b, &d);
	/* c's next message is PEER_DOWN: the forged QP_INFO never came. */
	check_peer_down(&c, &d);
	ok("forged src_node: node 4 closed, PEER_DOWN(4) to 1, 2, 3");

	/* Node 2 leaves; 1 and 3 hear of it. */
	b_gen = b.gen;
	node_close(&b);
	check_peer_down(&a, &b);
	check_peer_down(&c, &b);
	ok("node 2 left: PEER_DOWN(2, generation %u) to 1 and 3", b_gen);

	/* A QP_INFO racing with the leave: dropped, sender kept. */
	make_qp_info(&m, &a, &b, b_gen);
	send_msg(&a, &m);

	/* Rejoin: id 2 again, a new generation. */
	members[0] = &a;
	members[1] = &c;
	join(&b2, "node-b", K, 2, members, 2);
	if (b2.gen <= b_gen)
		die("rejoined node 2 has generation %u, not above %u", b2.gen,
		    b_gen);
	ok("node 2 rejoined with generation %u > %u", b2.gen, b_gen);
	make_qp_info(&m, &a, &b2, b_gen);
	send_msg(&a, &m);
	expect_quiet(&b2);
	ok("QP_INFO for node 2's old generation dropped");
	relay(&a, &b2);

	/* Hostile connections: refused, logged, and nobody else notices. */
	lite_msg_init(&m, LITE_MSG_JOIN);
	m.hdr.magic = htole32(0xdeadbeef);
	hostile(&h, "bad-magic", &m, sizeof(m.hdr) + 8);
	expect_reject(&h, EBADMSG, "bad magic");

	lite_msg_init(&m, LITE_MSG_JOIN);
	m.hdr.length = 0xffffffff;
	hostile(&h, "length-0xffffffff", &m.hdr, sizeof(m.hdr));
	expect_reject(&h, EMSGSIZE, "length 4294967295");

	/* A node of protocol version 1, without MACs. */
	make_join(&m, "node-v1", K);
	m.hdr.version = htole16(1);
	m.hdr.length = htole32(64);
	hostile(&h, "version-1", &m, sizeof(m.hdr) + 64);
	expect_reject(&h, EPROTONOSUPPORT,
		      "protocol version 1; this manager speaks " LITE_STR(LITE_PROTO_VERSION));

	/* A JOIN whose MAC is wrong, or missing (zero). */
	make_join(&m, "node-badmac", K);
	node_connect(&h, "join-bad-mac", 0);
	seal(&h, &m);
	m.join.mac[0] ^= 1;
	send_bytes(&h, &m, lite_msg_size(&m));
	expect_reject(&h, EACCES, "bad MAC");
	make_join(&m, "node-nomac", K);
	node_connect(&h, "join-no-mac", 0);
	seal(&h, &m);
	memset(m.join.mac, 0, LITE_MAC_LEN);
	send_bytes(&h, &m, lite_msg_size(&m));
	expect_reject(&h, EACCES, "bad MAC");
	/* A JOIN that worked, replayed on a new connection. */
	node_connect(&h, "join-replayed", 0);
	send_bytes(&h, &replayed_join, lite_msg_size(&replayed_join));
	expect_reject(&h, EACCES, "bad MAC");
	ok("wrong, missing and replayed MACs refused; the members saw nothing");

	{
		static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

		hostile(&h, "garbage", http, sizeof(http) - 1);
		expect_reject(&h, EBADMSG, "bad magic");
	}

	lite_msg_init(&m, LITE_MSG_JOIN);
	m.hdr.reserved = htole32(1);
	hostile(&h, "header-reserved", &m.hdr, sizeof(m.hdr));
	expect_reject(&h, EINVAL, "reserved");

	lite_msg_init(&m, LITE_MSG_JOIN);
	m.hdr.type = htole16(9);
	hostile(&h, "type-9", &m.hdr, sizeof(m.hdr));
	expect_reject(&h, ENOMSG, "unknown message type 9");

	make_qp_info(&m, &a, &c, c.gen);
	hostile(&h, "qp-info-first", &m, lite_msg_size(&m));
	expect_reject(&h, EPROTO, "expected JOIN");

	lite_msg_init(&m, LITE_MSG_ECHO);
	hostile(&h, "echo-first", &m, lite_msg_size(&m));
	expect_reject(&h, EPROTO, "first message is ECHO, expected JOIN");

	make_join(&m, "node-k17", 17);
	hostile(&h, "join-k17", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "qps_per_peer");

	make_join(&m, "node-k3", 3);
	hostile(&h, "join-k3", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "the cluster's K is 2");

	make_join(&m, "node-ib", K);
	m.join.addr.link_layer = LITE_LINK_IB;
	m.join.addr.gid_type = LITE_GID_IB;
	hostile(&h, "join-ib", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "link layer IB, but the cluster is Ethernet");

	make_join(&m, "node-v1", K);
	m.join.addr.gid_type = LITE_GID_ROCE_V1;
	hostile(&h, "join-roce-v1", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "GID type RoCE v1, but the cluster uses RoCE v2");

	make_join(&m, "node-v4", K);
	memcpy(m.join.addr.gid, (uint8_t[16]){ [10] = 0xff, [11] = 0xff, 198, 18, 0, 9 }, 16);
	hostile(&h, "join-ipv4-gid", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "GID is an IPv4 address, but the cluster's are IPv6");

	make_join(&m, "node-id1", K);
	m.join.requested_id = htole16(1);
	hostile(&h, "join-id-in-use", &m, lite_msg_size(&m));
	expect_reject(&h, EADDRINUSE, "node id 1 is in use");

	make_join(&m, "bad\tname", K);
	hostile(&h, "join-bad-name", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "printable");

	make_join(&m, "node-mtu", K);
	m.join.addr.mtu = 6;
	hostile(&h, "join-mtu-6", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "mtu");

	/* Half a JOIN, then gone: nothing happens. */
	make_join(&m, "node-half", K);
	hostile(&h, "half-join", &m, lite_msg_size(&m) / 2);
	node_close(&h);

	/* A JOIN one byte at a time is fine; a second JOIN is not. */
	node_connect(&e, "node-e", 0);
	make_join(&e.join, "node-e", K);
	seal(&e, &e.join);
	for (size_t i = 0; i < lite_msg_size(&e.join); i++) {
		send_bytes(&e, (unsigned char *)&e.join + i, 1);
		msleep(1);
	}
	members[1] = &b2;
	members[2] = &c;
	check_welcome(&e, 4, members, 3);
	send_msg(&e, &e.join);
	expect_dropped(&e, others, 3, "second JOIN");

	/* ECHO: back to its sender alone, cookie unchanged, MAC its own. */
	join(&e, "node-e", K, 4, members, 3);
	for (uint64_t cookie = 1; cookie <= 3; cookie++) {
		lite_msg_init(&m, LITE_MSG_ECHO);
		m.echo.cookie = htole64(cookie << 40 | 0xec40);
		send_msg(&e, &m);
		expect_msg(&e, LITE_MSG_ECHO, &q);
		if (q.echo.cookie != m.echo.cookie)
			die("node-e: ECHO cookie %#" PRIx64 " back as %#" PRIx64,
			    le64toh(m.echo.cookie), le64toh(q.echo.cookie));
	}
	expect_quiet(&a);
	expect_quiet(&b2);
	expect_quiet(&c);
	ok("ECHO x3 -> the same cookies back to the sender alone, each MAC checked");

	/* Manager-to-node messages from a node. */
	lite_msg_init(&m, LITE_MSG_PEER_DOWN);
	m.peer_down.node_id = htole16(1);
	m.peer_down.generation = htole32(a.gen);
	send_msg(&e, &m);
	expect_dropped(&e, others, 3, "PEER_DOWN from a node");

	/* Still serving: members relay, and nothing stray arrived. */
	expect_quiet(&a);
	expect_quiet(&b2);
	expect_quiet(&c);
	relay(&a, &c);
	relay(&c, &b2);
	relay(&b2, &a);
	join(&f, "node-f", K, 4, members, 3);
	ok("after all that, node-f joined as 4");

	/* A member's QP_INFO sent twice: the copy's MAC is stale. */
	make_qp_info(&m, &f, &a, a.gen);
	seal(&f, &m);
	send_bytes(&f, &m, lite_msg_size(&m));
	expect_msg(&a, LITE_MSG_QP_INFO, &q);
	send_bytes(&f, &m, lite_msg_size(&m));
	expect_dropped(&f, others, 3, "a replayed QP_INFO");

	/* A member's QP_INFO with a flag this protocol does not have. */
	join(&g, "node-g", K, 4, members, 3);
	make_qp_info(&m, &g, &a, a.gen);
	m.qp_info.qp[1].flags |= 0x80;
	send_msg(&g, &m);
	expect_dropped(&g, others, 3, "QP_INFO with an unknown entry flag");
	node_close(&a);
	node_close(&b2);
	node_close(&c);
}

static void scenario_timeout(void)
{
	struct node silent, partial;
	int64_t start = now_ms(), took;

	node_connect(&silent, "silent", 0);
	hostile(&partial, "partial-header", "LITE\x01\x00\x01\x00", 8);
	expect_reject(&silent, ETIMEDOUT, "no JOIN within 2 s");
	expect_reject(&partial, ETIMEDOUT, "no JOIN within 2 s");
	took = now_ms() - start;
	if (took < 1500 || took > 4500)
		die("closed after %lld ms, expected about 2000",
		    (long long)took);
	ok("both closed after %lld ms", (long long)took);
}

static void scenario_limits(void)
{
	struct node a, b, h;
	struct node *members[1] = { &a };
	struct lite_msg m;

	make_join(&m, "node-port2", K);
	m.join.ib_port = 2;
	hostile(&h, "join-ib-port-2", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "ib_port 2, but this cluster uses port 1");

	make_join(&m, "node-k1", 1);
	hostile(&h, "join-k1", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "the cluster's K is 2");

	join(&a, "node-a", K, 1, NULL, 0);

	make_join(&m, "node-id3", K);
	m.join.requested_id = htole16(3);
	hostile(&h, "join-id-3", &m, lite_msg_size(&m));
	expect_reject(&h, EINVAL, "requested_id 3 above the maximum 2");

	node_connect(&b, "node-b", 0);
	make_join(&b.join, "node-b", K);
	b.join.join.requested_id = htole16(2);
	send_msg(&b, &b.join);
	check_welcome(&b, 2, members, 1);

	make_join(&m, "node-c", K);
	hostile(&h, "join-full", &m, lite_msg_size(&m));
	expect_reject(&h, ENOSPC, "cluster full (2 nodes)");

	/* Members are past the join timeout (2 s): still connected. */
	msleep(2500);
	expect_quiet(&a);
	relay(&a, &b);
	relay(&b, &a);
	ok("members outlive the join timeout");
	node_close(&b);
	check_peer_down(&a, &b);
	node_close(&a);
}

static void scenario_overflow(void)
{
	struct node v, f;
	struct node *members[1] = { &v };
	struct lite_msg m;
	int64_t end = now_ms() + 20000;
	struct pollfd pfd;
	unsigned int sent = 0;

	/* A small receive buffer, never read: the manager's queue grows. */
	node_connect(&v, "victim", 4096);
	make_join(&v.join, "victim", 1);
	send_msg(&v, &v.join);
	expect_msg(&v, LITE_MSG_WELCOME, &m);
	v.id = le16toh(m.welcome.node_id);
	v.gen = le32toh(m.welcome.generation);
	join(&f, "flooder", 1, v.id + 1, members, 1);
	pfd = (struct pollfd){ .fd = f.fd, .events = POLLIN };

	lite_msg_init(&m, LITE_MSG_QP_INFO);
	m.qp_info.src_node = htole16(f.id);
	m.qp_info.src_gen = htole32(f.gen);
	m.qp_info.dst_node = htole16(v.id);
	m.qp_info.dst_gen = htole32(v.gen);
	m.qp_info.nr_qps = htole16(1);
	m.qp_info.qp[0].flags = LITE_QP_EP_SET;
	for (;;) {
		/* Small batches: after the drop, each one is a log line. */
		for (int i = 0; i < 32; i++, sent++) {
			m.qp_info.qp[0].qpn = htole32(sent & 0xffffff);
			send_msg(&f, &m);
		}
		if (poll(&pfd, 1, 0) == 1)
			break;
		if (now_ms() > end)
			die("victim not dropped after %u messages", sent);
	}
	check_peer_down(&f, &v);
	ok("victim dropped after about %u messages (%u KiB)", sent,
	   sent * (unsigned int)lite_msg_size(&m) / 1024);
	expect_quiet(&f);
	node_close(&f);
	node_close(&v);
}

static void scenario_per_source(void)
{
	struct node a, b, s1, s2, x;
	struct node *members[1] = { &a };

	join(&a, "node-a", K, 1, NULL, 0);
	node_connect(&s1, "silent-1", 0);
	node_connect(&s2, "silent-2", 0);
	node_connect(&x, "fourth", 0);
	expect_reject(&x, EUSERS, "too many connections from 127.0.0.1 (3)");
	expect_quiet(&a);
	node_close(&s1);
	msleep(300);	/* the manager sees the close */
	join(&b, "node-b", K, 2, members, 1);
	relay(&a, &b);
	relay(&b, &a);
	ok("a slot given back is taken by the next node");
	node_close(&s2);
	node_close(&b);
	check_peer_down(&a, &b);
	node_close(&a);
}

static void scenario_overall(void)
{
	static struct node silent[255];
	struct node a, x;
	unsigned int i;

	join(&a, "node-a", K, 1, NULL, 0);
	for (i = 0; i < sizeof(silent) / sizeof(silent[0]); i++) {
		source_host = 2 + i / 128;
		node_connect(&silent[i], "silent", 0);
	}
	source_host = 4;
	node_connect(&x, "one-too-many", 0);
	source_host = 0;
	expect_reject(&x, EUSERS, "too many connections (256)");
	expect_quiet(&a);
	ok("a member keeps its connection while every slot is taken");
	for (i = 0; i < sizeof(silent) / sizeof(silent[0]); i++)
		node_close(&silent[i]);
	node_close(&a);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} scenarios[] = {
		{ "cluster", scenario_cluster },
		{ "timeout", scenario_timeout },
		{ "limits", scenario_limits },
		{ "overflow", scenario_overflow },
		{ "per-source", scenario_per_source },
		{ "overall", scenario_overall },
	};
	unsigned long p;
	char err[256];
	char *end;

	if (argc != 4) {
		fprintf(stderr,
			"usage: %s PORT KEY_FILE cluster|timeout|limits|overflow|per-source|overall\n",
			argv[0]);
		return 2;
	}
	if (lite_key_load(argv[2], key, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 2;
	}
	p = strtoul(argv[1], &end, 10);
	if (*end || !p || p > 65535) {
		fprintf(stderr, "%s: bad port %s\n", argv[0], argv[1]);
		return 2;
	}
	port = p;
	scenario = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (!strcmp(scenarios[i].name, scenario)) {
			scenarios[i].run();
			ok("passed");
			return 0;
		}
	}
	fprintf(stderr, "%s: no scenario %s\n", argv[0], scenario);
	return 2;
}
