// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_mcast: the multicast call (lite_rpc_mcall) on a joined 3-node
 * cluster, run by tests/integration/lite-api.d/60-mcast.sh.
 *
 *   test_mcast server SECONDS PORT:MAX:MODE...
 *       register each PORT (requests up to MAX bytes) and serve it;
 *       MODE "echo" answers every request with answer(this node, request),
 *       MODE "silent" takes requests and never answers. Exits on a one-way
 *       "QUIT" on any port, or after SECONDS.
 *   test_mcast client NODE_A NODE_B ECHO SMALL SILENT
 *       the checks: ECHO is served on both nodes, SMALL (max 4096) on
 *       NODE_A only, SILENT echoes on NODE_A and is silent on NODE_B.
 *       Sends QUIT to ECHO on both nodes at the end.
 *
 * Lines: "ok   WHAT", "FAIL WHAT: WHY", "info ..."; the last one is
 * "PASS: 0 failure(s)" or "FAIL: N failure(s)"; the server prints "ready"
 * once its ports are registered. Exit status 1 if a check failed, 2 on a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

#define MAX_PORTS	8
#define ANSWER_MAGIC	"MCANSWER"
#define ANSWER_ECHO	256	/* request bytes echoed in an answer */
#define MSG_QUIT	"QUIT"
#define WAIT_PORT_S	60
#define SMALL_MAX	4096
#define BENCH_CALLS	200
#define BENCH_SIZE	64

/* What an echo port answers: who answered, and what it was asked. */
struct answer {
	char		magic[8];
	uint32_t	node;
	uint32_t	len;		/* of the request */
	uint64_t	hash;		/* FNV-1a of the request */
	uint8_t		head[ANSWER_ECHO];	/* its first bytes, zero-padded */
};

static uint64_t fnv1a(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static void make_answer(struct answer *a, unsigned int node,
			const uint8_t *req, uint32_t len)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->magic, ANSWER_MAGIC, sizeof(a->magic));
	a->node = node;
	a->len = len;
	a->hash = fnv1a(req, len);
	memcpy(a->head, req, len < ANSWER_ECHO ? len : ANSWER_ECHO);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- server -------------------------------------------------------------- */

struct port_spec {
	unsigned int	port;
	unsigned int	max;
	int		silent;
	pthread_t	thread;
};

static void *serve(void *arg)
{
	struct port_spec *ps = arg;
	unsigned int me = (unsigned int)lite_node_id();
	uint8_t *buf = malloc(ps->max);
	struct answer a;
	uint64_t desc;
	unsigned int src;
	int len, ret;

	if (!buf) {
		fail("port %u: out of memory", ps->port);
		exit(finish());
	}
	for (;;) {
		len = lite_rpc_recv(ps->port, buf, ps->max, &desc, &src, 0,
				    LITE_PRIO_NORMAL);
		if (len < 0) {
			fail("port %u: recv: %s", ps->port, got_name(len));
			exit(finish());
		}
		if (desc == LITE_DESC_NO_REPLY) {
			if (len == (int)strlen(MSG_QUIT) &&
			    !memcmp(buf, MSG_QUIT, (size_t)len)) {
				info("QUIT on port %u from node %u", ps->port,
				     src);
				exit(finish());
			}
			continue;
		}
		if (ps->silent)
			continue;	/* the caller times out */
		make_answer(&a, me, buf, (uint32_t)len);
		ret = lite_rpc_reply(desc, &a, sizeof(a), LITE_PRIO_NORMAL);
		/* A caller with too small a reply_max is part of the test. */
		if (ret < 0 && ret != -EMSGSIZE)
			fail("port %u: reply: %s", ps->port, got_name(ret));
	}
	return NULL;
}

static int server(int argc, char **argv)
{
	struct port_spec ports[MAX_PORTS];
	int n = argc - 1, i;
	char mode[16];

	if (n < 1 || n > MAX_PORTS)
		return 2;
	alarm((unsigned int)atoi(argv[0]));	/* a safety net, kills us */
	for (i = 0; i < n; i++) {
		if (sscanf(argv[i + 1], "%u:%u:%15s", &ports[i].port,
			   &ports[i].max, mode) != 3)
			return 2;
		ports[i].silent = !strcmp(mode, "silent");
		if (!step(lite_rpc_register(ports[i].port, ports[i].max,
					    "test_mcast"),
			  "register port %u", ports[i].port))
			return finish();
	}
	for (i = 0; i < n; i++)
		pthread_create(&ports[i].thread, NULL, serve, &ports[i]);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(ports[i].thread, NULL);
	return finish();
}

/* ---- client -------------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
}

/* An mcall in its own thread, for a signal to interrupt. */
struct intr_call {
	unsigned int	nodes[2];
	unsigned int	port;
	int		ret;
	int		err;
	double		us;
};

static void *intr_thread(void *arg)
{
	struct intr_call *ic = arg;
	struct answer rep[2];
	unsigned int len[2];
	int status[2];
	double t = now_us();

	ic->ret = lite_rpc_mcall(ic->nodes, 2, ic->port, "intr", 4, rep,
				 sizeof(rep[0]), len, status,
				 LITE_PRIO_NORMAL);
	ic->err = errno;
	ic->us = now_us() - t;
	return NULL;
}

static void wait_port(unsigned int node, unsigned int port)
{
	time_t end = time(NULL) + WAIT_PORT_S;

	while (lite_rpc_query_port(node, port) < 0) {
		if (time(NULL) > end) {
			fail("port %u on node %u never registered", port, node);
			exit(finish());
		}
		usleep(100 * 1000);
	}
}

/* The client's mcalls: where to, and what came back from each. */
struct mc {
	unsigned int	nodes[LITE_MCAST_MAX + 1];
	unsigned int	len[LITE_MCAST_MAX + 1];
	int		status[LITE_MCAST_MAX + 1];
	uint8_t		*replies;	/* a struct answer a slot */
};

/* lite_rpc_mcall() to the first @n of m->nodes, into m's slots. */
static int mcall(struct mc *m, unsigned int n, unsigned int port,
		 const void *req, unsigned int size, int prio)
{
	return lite_rpc_mcall(m->nodes, n, port, req, size, m->replies,
			      sizeof(struct answer), m->len, m->status, prio);
}

/* Slot @i of @m holds the answer of @node to @req. */
static void check_answer(const struct mc *m, unsigned int i,
			 unsigned int node, const uint8_t *req, uint32_t len,
			 const char *what)
{
	struct answer want;

	make_answer(&want, node, req, len);
	if (m->len[i] != sizeof(want))
		fail("%s: node %u: reply of %u bytes, want %zu", what, node,
		     m->len[i], sizeof(want));
	else if (memcmp(m->replies + i * sizeof(want), &want, sizeof(want)))
		fail("%s: node %u: reply differs from its answer", what, node);
	else
		pass("%s: node %u answered byte-exact", what, node);
}

static void expect_status(const int *status, unsigned int i, int want,
			  unsigned int node, const char *what)
{
	if (status[i] == want)
		pass("%s: node %u status %s", what, node, errname(-want));
	else
		fail("%s: node %u status %d (%s), want %s", what, node,
		     status[i], errname(-status[i]), errname(-want));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void bench(unsigned int a, unsigned int b, unsigned int port)
{
	static double mc[BENCH_CALLS], seq[BENCH_CALLS];
	unsigned int nodes[2] = { a, b }, len[2];
	uint8_t req[BENCH_SIZE] = "bench";
	struct answer rep[2];
	int status[2], i;
	double t;

	for (i = 0; i < BENCH_CALLS; i++) {
		t = now_us();
		if (lite_rpc_mcall(nodes, 2, port, req, sizeof(req), rep,
				   sizeof(rep[0]), len, status,
				   LITE_PRIO_NORMAL) != 2) {
			fail("bench: mcall failed");
			return;
		}
		mc[i] = now_us() - t;
		t = now_us();
		if (lite_rpc_call(a, port, req, sizeof(req), &rep[0],
				  sizeof(rep[0]), LITE_PRIO_NORMAL) < 0 ||
		    lite_rpc_call(b, port, req, sizeof(req), &rep[1],
				  sizeof(rep[1]), LITE_PRIO_NORMAL) < 0) {
			fail("bench: call failed");
			return;
		}
		seq[i] = now_us() - t;
	}
	qsort(mc, BENCH_CALLS, sizeof(mc[0]), cmp_double);
	qsort(seq, BENCH_CALLS, sizeof(seq[0]), cmp_double);
	info("bench %u B to 2 nodes, %u rounds: mcall median %.0f us p90 %.0f us; two sequential calls median %.0f us p90 %.0f us",
	     BENCH_SIZE, BENCH_CALLS, mc[BENCH_CALLS / 2],
	     mc[BENCH_CALLS * 9 / 10], seq[BENCH_CALLS / 2],
	     seq[BENCH_CALLS * 9 / 10]);
}

/*
 * In raw_checks(): a copy of the good call c, with @field set to @value,
 * must fail with @want.
 */
#define RAW_BAD(field, value, want, what)				\
	do {								\
		bad = c;						\
		bad.field = value;					\
		expect(ioctl(fd, LITE_IOC_MCALL, &bad) < 0 ? -errno : 0,	\
		       want, what);					\
	} while (0)

/* The ioctl itself, for what liblite would catch first. */
static void raw_checks(unsigned int a, unsigned int port)
{
	struct lite_ioc_mcall_dst d[2] = { { .node = a } };
	char req[8] = "raw", rep[sizeof(struct answer)];
	struct lite_ioc_rpc_mcall c = {
		.dsts = (uintptr_t)d, .nr = 1, .port = port,
		.addr = (uintptr_t)req, .size = sizeof(req),
		.reply_addr = (uintptr_t)rep, .reply_max = sizeof(rep),
	};
	struct lite_ioc_rpc_mcall bad;
	int fd = open("/dev/lite", O_RDWR);

	if (fd < 0) {
		fail("open /dev/lite: %s", strerror(errno));
		return;
	}
	expect(ioctl(fd, LITE_IOC_MCALL, &c) == 1 ? 0 : -errno, 0,
	       "raw MCALL to one node");
	RAW_BAD(reserved, 1, EINVAL, "raw: reserved field set");
	d[0].reserved = 1;
	expect(ioctl(fd, LITE_IOC_MCALL, &c) < 0 ? -errno : 0, EINVAL,
	       "raw: reserved field of an entry set");
	d[0].reserved = 0;
	RAW_BAD(dsts, 8, EFAULT, "raw: entries at a bad address");
	RAW_BAD(addr, 8, EFAULT, "raw: request at a bad address");
	RAW_BAD(reply_addr, ~0ULL - 16, EFAULT,
		"raw: reply slots past the address space");
	RAW_BAD(priority, 7, EINVAL, "raw: bad priority");
	RAW_BAD(reply_max, LITE_RPC_MAX_MSG + 1, EINVAL,
		"raw: reply_max above LITE_RPC_MAX_MSG");
	close(fd);
}

#undef RAW_BAD

/*
 * What lite_rpc_mcall() returned as expect() takes it: 0 when @n nodes
 * answered, its error, or EPROTO for another count.
 */
static int answered(int ret, int n)
{
	return ret == n ? 0 : ret < 0 ? ret : -EPROTO;
}

/*
 * An mcall of @len bytes of @req to @x and @y, at @prio: "@title" when
 * both answered, then (with @statuses) each one's status and each answer,
 * as "@what".
 */
static void mcall_two(struct mc *m, unsigned int x, unsigned int y,
		      unsigned int port, const uint8_t *req, uint32_t len,
		      int prio, bool statuses, const char *title,
		      const char *what)
{
	int ret;

	m->nodes[0] = x;
	m->nodes[1] = y;
	ret = mcall(m, 2, port, req, len, prio);
	expect(answered(ret, 2), 0, "%s", title);
	if (statuses) {
		expect_status(m->status, 0, 0, x, what);
		expect_status(m->status, 1, 0, y, what);
	}
	check_answer(m, 0, x, req, len, what);
	check_answer(m, 1, y, req, len, what);
}

static int client(int argc, char **argv)
{
	unsigned int a, b, echo, small, silent, me;
	int ret, i;
	struct mc m;
	uint8_t *big;
	uint8_t req[100];
	struct rng rng = { .state = 0x6d63617374ULL };
	double t;

	if (argc != 5)
		return 2;
	a = (unsigned int)atoi(argv[0]);
	b = (unsigned int)atoi(argv[1]);
	echo = (unsigned int)atoi(argv[2]);
	small = (unsigned int)atoi(argv[3]);
	silent = (unsigned int)atoi(argv[4]);
	me = (unsigned int)lite_node_id();
	m.replies = calloc(LITE_MCAST_MAX + 1, sizeof(struct answer));
	big = malloc(LITE_RPC_MAX_MSG);
	if (!m.replies || !big)
		return 2;
	wait_port(a, echo);
	wait_port(b, echo);
	wait_port(a, small);
	wait_port(a, silent);
	wait_port(b, silent);
	rng_fill(&rng, req, sizeof(req));

	/* Both answer, each into its own slot. */
	memset(m.replies, 0xee, 2 * sizeof(struct answer));
	mcall_two(&m, a, b, echo, req, sizeof(req), LITE_PRIO_NORMAL, true,
		  "mcall to 2 nodes returns 2", "two nodes");

	/* The other order: slots follow the array, not the nodes. */
	mcall_two(&m, b, a, echo, req, sizeof(req), LITE_PRIO_HIGH, false,
		  "mcall, nodes swapped, high priority", "swapped");

	/* SMALL is registered on a only. */
	m.nodes[0] = a;
	m.nodes[1] = b;
	ret = mcall(&m, 2, small, req, sizeof(req), LITE_PRIO_NORMAL);
	expect(answered(ret, 1), 0, "mcall with one port unregistered returns 1");
	expect_status(m.status, 0, 0, a, "one unregistered");
	expect_status(m.status, 1, -ECONNREFUSED, b, "one unregistered");
	check_answer(&m, 0, a, req, sizeof(req), "one unregistered");
	if (m.len[1] != 0)
		fail("one unregistered: reply_len %u for the refused node", m.len[1]);

	/* Above SMALL's max_size on a, refused on b: nobody succeeds. */
	ret = mcall(&m, 2, small, big, SMALL_MAX + 1, LITE_PRIO_NORMAL);
	expect(ret, 0, "mcall where every node fails returns 0 (got %d)", ret);
	expect_status(m.status, 0, -EMSGSIZE, a, "request above max_size");
	expect_status(m.status, 1, -ECONNREFUSED, b, "request above max_size");

	/* Reply slots too small for the answer: EMSGSIZE from each. */
	ret = lite_rpc_mcall(m.nodes, 2, echo, req, sizeof(req), m.replies, 16,
			     m.len, m.status, LITE_PRIO_NORMAL);
	expect(ret, 0, "mcall with reply_max below the answer returns 0 (got %d)", ret);
	expect_status(m.status, 0, -EMSGSIZE, a, "reply_max too small");
	expect_status(m.status, 1, -EMSGSIZE, b, "reply_max too small");

	/* This node itself (no QP to itself, as lite_rpc_call) and a non-member. */
	m.nodes[0] = me;
	m.nodes[1] = a;
	m.nodes[2] = 42;
	m.nodes[3] = b;
	ret = mcall(&m, 4, echo, req, sizeof(req), LITE_PRIO_NORMAL);
	expect(answered(ret, 2), 0, "mcall with self and a non-member returns 2");
	expect_status(m.status, 0, -ENOTCONN, me, "self");
	expect_status(m.status, 2, -ENOTCONN, 42, "non-member");
	check_answer(&m, 1, a, req, sizeof(req), "with self");
	check_answer(&m, 3, b, req, sizeof(req), "with self");
	expect(lite_rpc_call(me, echo, req, sizeof(req), m.replies,
			     sizeof(struct answer), LITE_PRIO_NORMAL), ENOTCONN,
	       "lite_rpc_call to this node: ENOTCONN too");

	/* The largest request, to both. */
	rng_fill(&rng, big, LITE_RPC_MAX_MSG);
	mcall_two(&m, a, b, echo, big, LITE_RPC_MAX_MSG, LITE_PRIO_LOW, false,
		  "mcall of LITE_RPC_MAX_MSG bytes to 2 nodes", "1 MiB request");
	expect(mcall(&m, 2, echo, big, LITE_RPC_MAX_MSG + 1, LITE_PRIO_NORMAL),
	       EMSGSIZE, "request above LITE_RPC_MAX_MSG");

	/* LITE_MCAST_MAX destinations: the two servers and 14 non-members. */
	for (i = 0; i < LITE_MCAST_MAX; i++)
		m.nodes[i] = 40 + (unsigned int)i;
	m.nodes[5] = a;
	m.nodes[11] = b;
	ret = mcall(&m, LITE_MCAST_MAX, echo, req, sizeof(req),
		    LITE_PRIO_NORMAL);
	expect(answered(ret, 2), 0, "mcall to LITE_MCAST_MAX nodes returns 2");
	expect_status(m.status, 0, -ENOTCONN, m.nodes[0], "16 nodes");
	expect_status(m.status, 15, -ENOTCONN, m.nodes[15], "16 nodes");
	check_answer(&m, 5, a, req, sizeof(req), "16 nodes");
	check_answer(&m, 11, b, req, sizeof(req), "16 nodes");
	m.nodes[0] = a;
	m.nodes[1] = b;

	/* Whole-call errors. */
	expect(mcall(&m, 0, echo, req, sizeof(req), 0), EINVAL, "n = 0");
	for (i = 0; i <= LITE_MCAST_MAX; i++)
		m.nodes[i] = (unsigned int)i + 1;
	expect(mcall(&m, LITE_MCAST_MAX + 1, echo, req, sizeof(req), 0), EINVAL,
	       "n = LITE_MCAST_MAX + 1");
	m.nodes[0] = a;
	m.nodes[1] = b;
	m.nodes[2] = a;
	expect(mcall(&m, 3, echo, req, sizeof(req), 0), EINVAL,
	       "a node given twice");
	m.nodes[2] = 64;
	expect(mcall(&m, 3, echo, req, sizeof(req), 0), EINVAL,
	       "node id 64 (out of range)");
	m.nodes[2] = 0;
	expect(mcall(&m, 3, echo, req, sizeof(req), 0), EINVAL, "node id 0");
	expect(mcall(&m, 2, LITE_MAX_PORT, req, sizeof(req), 0), EINVAL,
	       "port out of range");
	expect(mcall(&m, 2, echo, req, 0, 0), EINVAL, "size 0");
	raw_checks(a, echo);

	/*
	 * SILENT: a answers, b never does. b's status is ETIMEDOUT after the
	 * module's rpc_timeout_ms (set low by the script); a's answer is there.
	 */
	t = now_us();
	ret = mcall(&m, 2, silent, req, sizeof(req), LITE_PRIO_NORMAL);
	t = now_us() - t;
	expect(answered(ret, 1), 0, "mcall with one silent node returns 1");
	expect_status(m.status, 0, 0, a, "one silent");
	expect_status(m.status, 1, -ETIMEDOUT, b, "one silent");
	check_answer(&m, 0, a, req, sizeof(req), "one silent");
	info("one silent node: mcall returned after %.1f s", t / 1e6);

	/*
	 * A signal while one node answered and the other is silent: EINTR
	 * for the whole call, before the timeout (not asserted: a loaded
	 * host), and nothing left behind (dmesg, the next call).
	 */
	{
		struct sigaction sa = { .sa_handler = on_signal };
		struct intr_call ic = { .nodes = { a, b }, .port = silent };
		pthread_t th;

		sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
		pthread_create(&th, NULL, intr_thread, &ic);
		usleep(1000 * 1000);
		pthread_kill(th, SIGUSR1);
		pthread_join(th, NULL);
		errno = ic.err;
		expect(ic.ret, EINTR, "signal during an mcall");
		info("signal during an mcall: returned after %.1f s",
		     ic.us / 1e6);
	}

	/* Still usable after the timeout. */
	ret = mcall(&m, 2, echo, req, sizeof(req), LITE_PRIO_NORMAL);
	expect(answered(ret, 2), 0, "mcall after a timeout");

	bench(a, b, echo);

	expect(lite_rpc_send(a, echo, MSG_QUIT, strlen(MSG_QUIT), 0), 0,
	       "QUIT to node %u", a);
	expect(lite_rpc_send(b, echo, MSG_QUIT, strlen(MSG_QUIT), 0), 0,
	       "QUIT to node %u", b);
	free(big);
	free(m.replies);
	return finish();
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "server"))
		ret = server(argc - 2, argv + 2);
	else if (argc >= 2 && !strcmp(argv[1], "client"))
		ret = client(argc - 2, argv + 2);
	if (ret == 2)
		fprintf(stderr, "usage: see the comment at the top of test_mcast.c\n");
	return ret;
}
