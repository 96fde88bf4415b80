// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * echo-client: threads calling the echo server at every priority and
 * size, the calls that must fail, latency, one-way messages in order;
 * quit, which stops the server.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_sync.h"

#define SEQ_MSGS		1000	/* one-way, from an echo-client */
#define LAT_CALLS		50
#define LAT_SIZE		64

/* Around the page and ring-alignment boundaries, up to the limit. */
static const unsigned int echo_sizes[] = {
	1, 2, 3, 7, 8, 64, 100, 1000, 4095, 4096, 4097, 65536, 65537,
	LITE_RPC_MAX_MSG,
};

static const char *const prio_name[] = {
	[LITE_PRIO_NORMAL] = "normal",
	[LITE_PRIO_HIGH] = "high",
	[LITE_PRIO_LOW] = "low",
};

/* ---- echo-client -------------------------------------------------------- */

struct client_thread {
	pthread_t	tid;
	unsigned int	index;
	unsigned int	node;
	unsigned int	port;
	int		prio;
	uint64_t	seed;
	uint8_t		*req;
	uint8_t		*rep;
};

/* Random bytes the server will not take for one of its magic words. */
static void random_request(struct rng *r, uint8_t *req, unsigned int size)
{
	rng_fill(r, req, size);
	req[0] |= 0x80;
}

/*
 * Call with @size bytes of @req, room for @reply_max bytes at @rep; the
 * reply must be the same bytes.
 */
static bool echo_once(unsigned int node, unsigned int port, const uint8_t *req,
		      uint8_t *rep, unsigned int size, unsigned int reply_max,
		      int prio, const char *who)
{
	char name[32];
	unsigned int i;
	int ret;

	/* Differs from @req everywhere: a reply not written shows. */
	for (i = 0; i < size; i++)
		rep[i] = ~req[i];
	ret = lite_rpc_call(node, port, req, size, rep, reply_max, prio);
	size_name(size, name, sizeof(name));
	if (!step(ret, "%s: echo of %s", who, name))
		return false;
	if ((unsigned int)ret != size) {
		fail("%s: echo of %s: reply of %d bytes", who, name, ret);
		return false;
	}
	for (i = 0; i < size && rep[i] == req[i]; i++)
		;
	if (i < size) {
		fail("%s: echo of %s: first differing byte at %u: got 0x%02x, "
		     "want 0x%02x", who, name, i, rep[i], req[i]);
		return false;
	}
	return true;
}

static void *echo_thread(void *arg)
{
	struct client_thread *t = arg;
	struct rng r = { .state = t->seed };
	unsigned int i, good = 0;
	char who[32];

	snprintf(who, sizeof(who), "thread %u", t->index);
	for (i = 0; i < ARRAY_SIZE(echo_sizes); i++) {
		unsigned int size = echo_sizes[i];

		random_request(&r, t->req, size);
		/* Every other reply fills its buffer exactly. */
		good += echo_once(t->node, t->port, t->req, t->rep, size,
				  i % 2 ? size : LITE_RPC_MAX_MSG, t->prio,
				  who);
	}
	if (good == ARRAY_SIZE(echo_sizes))
		pass("thread %u (%s priority): %zu echoes of 1 B .. 1 MiB "
		     "byte-exact", t->index, prio_name[t->prio],
		     ARRAY_SIZE(echo_sizes));
	return NULL;
}

/* Every thread echoes every size, at the priorities in turn. */
static void client_echoes(unsigned int node, unsigned int port,
			  unsigned int nthreads)
{
	struct client_thread *threads = xmalloc(nthreads * sizeof(*threads));
	uint64_t me = this_node();
	unsigned int i, started;
	double start = now();
	int ret;

	for (started = 0; started < nthreads; started++) {
		struct client_thread *t = &threads[started];

		*t = (struct client_thread) {
			.index = started, .node = node, .port = port,
			.prio = started % 3, .seed = me << 32 | started,
			.req = xmalloc(LITE_RPC_MAX_MSG),
			.rep = xmalloc(LITE_RPC_MAX_MSG),
		};
		ret = pthread_create(&t->tid, NULL, echo_thread, t);
		if (ret) {
			fail("calling thread %u: %s", started, strerror(ret));
			break;
		}
	}
	for (i = 0; i < started; i++) {
		pthread_join(threads[i].tid, NULL);
		free(threads[i].req);
		free(threads[i].rep);
	}
	info("%u threads x %zu echoes of 1 B .. 1 MiB in %.2f s", started,
	     ARRAY_SIZE(echo_sizes), now() - start);
	free(threads);
}

/* The BIGREPLY answer, into a buffer with room for it. */
static void client_big_reply(unsigned int node, unsigned int port,
			     uint8_t *req, uint8_t *rep)
{
	uint8_t *want = xmalloc(LITE_RPC_MAX_MSG);
	int ret;

	memcpy(req, MSG_BIG, MAGIC_LEN);
	ret = lite_rpc_call(node, port, req, MAGIC_LEN, rep, LITE_RPC_MAX_MSG,
			    LITE_PRIO_NORMAL);
	big_pattern(want);
	if (ret < 0)
		step(ret, "BIGREPLY into a 1 MiB reply buffer");
	else if (ret != (int)LITE_RPC_MAX_MSG)
		fail("BIGREPLY into a 1 MiB reply buffer: %d bytes", ret);
	else if (memcmp(rep, want, LITE_RPC_MAX_MSG))
		fail("BIGREPLY into a 1 MiB reply buffer: wrong bytes");
	else
		pass("BIGREPLY into a 1 MiB reply buffer: 1 MiB back");
	free(want);
}

/* @req has room for LITE_RPC_MAX_MSG + 1 bytes. */
static void client_errors(unsigned int node, unsigned int port, uint8_t *req,
			  uint8_t *rep)
{
	static const int too_big[] = { EMSGSIZE, EINVAL };
	/* Any port but PORT: the script registers no other. */
	unsigned int other = (port + 1) % LITE_MAX_PORT;

	memcpy(req, MSG_SMALL, MAGIC_LEN);
	memset(req + MAGIC_LEN, 0x5a, 8);
	expect(lite_rpc_call(node, port, req, 16, rep, 8, LITE_PRIO_NORMAL),
	       EMSGSIZE, "16-byte echo into an 8-byte reply buffer");
	memcpy(req, MSG_BIG, MAGIC_LEN);
	expect(lite_rpc_call(node, port, req, MAGIC_LEN, rep, 4096,
			     LITE_PRIO_NORMAL),
	       EMSGSIZE, "BIGREPLY into a 4 KiB reply buffer");
	client_big_reply(node, port, req, rep);
	memset(req, 0x5a, LITE_RPC_MAX_MSG + 1);
	expect_any(lite_rpc_call(node, port, req, LITE_RPC_MAX_MSG + 1, rep,
				 LITE_RPC_MAX_MSG, LITE_PRIO_NORMAL),
		   too_big, ARRAY_SIZE(too_big),
		   "request of LITE_RPC_MAX_MSG + 1 bytes");
	expect(lite_rpc_query_port(node, other), ECONNREFUSED,
	       "query_port(%u, %u), not registered", node, other);
	expect(lite_rpc_call(node, other, req, 8, rep, 64, LITE_PRIO_NORMAL),
	       ECONNREFUSED, "call to port %u, not registered", other);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void client_latency(unsigned int node, unsigned int port,
			   uint8_t *req, uint8_t *rep)
{
	struct rng r = { .state = 0x6c6174656e6379ULL };
	double lat[LAT_CALLS], t0;
	unsigned int i;

	for (i = 0; i < LAT_CALLS; i++) {
		random_request(&r, req, LAT_SIZE);
		t0 = now();
		if (!echo_once(node, port, req, rep, LAT_SIZE, LAT_SIZE,
			       LITE_PRIO_NORMAL, "latency"))
			return;
		lat[i] = (now() - t0) * 1e6;
	}
	qsort(lat, LAT_CALLS, sizeof(lat[0]), cmp_double);
	pass("%u echoes of %u B", LAT_CALLS, LAT_SIZE);
	info("median latency of %u B calls: %.1f us over %u calls "
	     "(min %.1f us, max %.1f us)", LAT_SIZE,
	     (lat[(LAT_CALLS - 1) / 2] + lat[LAT_CALLS / 2]) / 2, LAT_CALLS,
	     lat[0], lat[LAT_CALLS - 1]);
}

/* SEQ:0 .. SEQ:999 then SEQ-END with the count; the server checks them. */
static void client_one_way(unsigned int node, unsigned int port)
{
	uint8_t msg[SEQ_END_LEN];
	double start = now();
	uint32_t seq, n = SEQ_MSGS;

	memcpy(msg, MSG_SEQ, 4);
	for (seq = 0; seq < SEQ_MSGS; seq++) {
		memcpy(msg + 4, &seq, sizeof(seq));
		if (!step(lite_rpc_send(node, port, msg, SEQ_LEN,
					LITE_PRIO_NORMAL),
			  "one-way message %u to node %u", seq, node))
			return;
	}
	memcpy(msg, MSG_SEQ_END, 7);
	memcpy(msg + 7, &n, sizeof(n));
	if (expect(lite_rpc_send(node, port, msg, SEQ_END_LEN,
				 LITE_PRIO_NORMAL), 0,
		   "%u one-way messages and SEQ-END to node %u", n, node))
		info("%u one-way messages in %.1f ms", n,
		     (now() - start) * 1e3);
}

int cmd_echo_client(unsigned int node, unsigned int port,
		    unsigned int nthreads)
{
	uint8_t *req, *rep;
	int ret;

	ret = lite_rpc_query_port(node, port);
	if (ret != (int)LITE_RPC_MAX_MSG) {
		fail("query_port(%u, %u): got %s, want max_size %u", node,
		     port, got_name(ret), LITE_RPC_MAX_MSG);
		return finish();
	}
	pass("query_port(%u, %u) -> max_size %u", node, port, ret);
	client_echoes(node, port, nthreads);
	req = xmalloc(LITE_RPC_MAX_MSG + 1);
	rep = xmalloc(LITE_RPC_MAX_MSG);
	client_errors(node, port, req, rep);
	client_latency(node, port, req, rep);
	client_one_way(node, port);
	free(req);
	free(rep);
	return finish();
}

int cmd_quit(unsigned int node, unsigned int port)
{
	expect(lite_rpc_send(node, port, MSG_QUIT, 4, LITE_PRIO_NORMAL), 0,
	       "QUIT to node %u port %u", node, port);
	return finish();
}
