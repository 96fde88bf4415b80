// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_sync: RPC, atomics, locks and the barrier through liblite (lite.h
 * only), run on the nodes of a joined 3-node cluster by the integration
 * test.
 *
 *   test_sync echo-server PORT SECONDS   serve PORT until QUIT or SECONDS
 *   test_sync echo-client NODE PORT THREADS
 *   test_sync quit NODE PORT             stop the echo server
 *   test_sync call-departed NODE PORT    a call to a node that left
 *   test_sync fetch-add NODE ID ITER     on all 3 nodes; NODE owns the LMR
 *   test_sync lock-counter NODE ID ITER  on all 3 nodes; NODE owns the lock
 *   test_sync barrier NR
 *   test_sync recv-block PORT            a receiver whose node leaves
 *   test_sync silent PORT SECONDS        takes one request, never replies
 *   test_sync deaf PORT SECONDS          registers PORT, never receives
 *   test_sync flood NODE PORT            one-way messages of FLOOD_SIZE
 *                                        until one fails (a full ring)
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform; the last line is "PASS: 0 failure(s)" or "FAIL: N
 * failure(s)". Exit status: 1 if a check failed, 2 on a usage error.
 * echo-server, recv-block, silent and deaf print "ready" once their port
 * is registered.
 *
 * Lines the script looks for:
 *   echo-server  "ok   one-way ordering from node N (K messages)" for each
 *                echo-client that finished its one-way messages
 *   fetch-add    "info total N" (owner), "info cas won" on exactly one node
 *                (the others print "info cas lost to node N"), "info swap
 *                put P got G" (sums of the values a node swapped in and got
 *                back; over all nodes, put == got + "info swap final F" of
 *                the owner when no swap was lost or doubled)
 *   lock-counter "info counter N" (owner)
 *   barrier      "info before MS", "info after MS" (Unix time in ms)
 *   recv-block   "info recv returned -ERRNO (NAME)"
 *   call-departed "info elapsed S s"
 *   flood        "info sent N then NAME after S s" (NAME: the errno)
 *
 * Messages the echo server acts on: a request whose first 8 bytes are
 * "BIGREPLY" gets LITE_RPC_MAX_MSG bytes back; one starting with
 * "SMALLBUF" is echoed with a reply that is allowed to fail with EMSGSIZE
 * (its caller's buffer is too small); the one-way messages "QUIT",
 * "SEQ:" + u32 sequence number and "SEQ-END" + u32 count.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define KiB			(1U << 10)
#define MiB			(1U << 20)

#define MAX_NODES		64	/* node ids are 1..63 */
#define SYNC_NODES		3	/* nodes running fetch-add etc. */
#define SYNC_LMR_SIZE		4096
#define FA_PASSWORD		77
#define LOCK_PASSWORD		88
#define CAS_OFFSET		8	/* fetch-add: the word raced for */
#define SWAP_OFFSET		16	/* fetch-add: the word swapped */
#define FLOOD_SIZE		(60 * KiB)	/* flood: ~68 fill a ring */
#define LOCK_WORD_OFFSET	8	/* lock-counter: the lock's number */
#define NO_SUCH_LOCK		1000	/* + a lock number: none */
#define ASK_TIMEOUT_S		30	/* for the owner to publish */
#define DEPART_TIMEOUT_S	60
#define MAX_THREADS		32

#define SERVER_THREADS		2
#define QUIT_SETTLE_MS		200
#define SEQ_MSGS		1000	/* one-way, from an echo-client */
#define SEQ_MAX			4096	/* most tracked per sender */
#define LAT_CALLS		50
#define LAT_SIZE		64

#define MSG_BIG			"BIGREPLY"
#define MSG_SMALL		"SMALLBUF"
#define MSG_QUIT		"QUIT"
#define MSG_SEQ			"SEQ:"
#define MSG_SEQ_END		"SEQ-END"
#define MAGIC_LEN		8	/* of MSG_BIG and MSG_SMALL */
#define SEQ_LEN			(4 + sizeof(uint32_t))
#define SEQ_END_LEN		(7 + sizeof(uint32_t))

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

/* ---- output ------------------------------------------------------------- */

/* ---- helpers ------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p) {
		fail("malloc(%zu): %s", size, strerror(errno));
		exit(finish());
	}
	return p;
}

/* This node's id; a node that has not joined cannot run any command. */
static unsigned int this_node(void)
{
	int id = lite_node_id();

	if (id <= 0) {
		fail("this node's id: %s", got_name(id));
		exit(finish());
	}
	return id;
}

/* The BIGREPLY answer: known to both sides. */
static void big_pattern(uint8_t *buf)
{
	unsigned int i;

	for (i = 0; i < LITE_RPC_MAX_MSG; i++)
		buf[i] = i % 251;
}

static bool is_magic(const uint8_t *msg, int len, const char *magic)
{
	return len >= MAGIC_LEN && !memcmp(msg, magic, MAGIC_LEN);
}

/* ---- echo-server -------------------------------------------------------- */

/* One sender's run of one-way "SEQ:" messages, ended by "SEQ-END". */
struct seq_run {
	uint32_t	run;		/* bumped when a run is complete */
	uint32_t	count;
	uint32_t	expected;	/* from SEQ-END */
	uint32_t	unordered;	/* seen after a later one */
	uint32_t	bad_seq;	/* the first of them */
	int64_t		bad_after;	/* its thread had seen */
	bool		ended;
	uint8_t		seen[SEQ_MAX / 8];
};

static struct {
	unsigned int		port;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;	/* quit, receiver gone */
	bool			quit;
	unsigned int		receivers;
	unsigned long		calls;
	unsigned long		one_way;
	uint8_t			*big;
	struct seq_run		seq[MAX_NODES];
} srv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

struct server_thread {
	pthread_t	tid;
	int		prio;
	uint8_t		*buf[2];
	/* The last sequence number this thread saw, per sender and run. */
	struct {
		uint32_t	run;
		int64_t		last;
	} seen[MAX_NODES];
};

/* Under srv.lock: report @src's run once every message of it is in. */
static void seq_check_done(unsigned int src)
{
	struct seq_run *s = &srv.seq[src];
	uint32_t i;

	if (!s->ended || s->count < s->expected)
		return;
	for (i = 0; i < s->expected; i++)
		if (!(s->seen[i / 8] & 1U << (i % 8)))
			break;
	if (s->count != s->expected || i != s->expected)
		fail("one-way messages from node %u: %u arrived, %u expected, "
		     "first missing %u", src, s->count, s->expected, i);
	else if (s->unordered)
		fail("one-way ordering from node %u: %u of %u messages out of "
		     "order, the first %u after %lld", src, s->unordered,
		     s->count, s->bad_seq, (long long)s->bad_after);
	else
		pass("one-way ordering from node %u (%u messages)", src,
		     s->count);
	/* The same node may run another echo-client against this server. */
	*s = (struct seq_run) { .run = s->run + 1 };
}

/*
 * A sender's one-way messages are queued in the order they were sent, but
 * with two receiving threads, the one that took the earlier message may
 * get here later. So each thread checks that the numbers it receives
 * increase (any subsequence of a FIFO's order does), and all of them
 * together that every number arrived exactly once.
 */
static void seq_note(struct server_thread *t, unsigned int src, uint32_t seq)
{
	struct seq_run *s = &srv.seq[src];

	pthread_mutex_lock(&srv.lock);
	if (t->seen[src].run != s->run) {
		t->seen[src].run = s->run;
		t->seen[src].last = -1;
	}
	if (seq <= t->seen[src].last && !s->unordered++) {
		s->bad_seq = seq;
		s->bad_after = t->seen[src].last;
	}
	t->seen[src].last = seq;
	if (seq >= SEQ_MAX)
		fail("one-way message from node %u: sequence number %u, "
		     "at most %u expected", src, seq, SEQ_MAX - 1);
	else if (s->seen[seq / 8] & 1U << (seq % 8))
		fail("one-way message %u from node %u arrived twice", seq,
		     src);
	else {
		s->seen[seq / 8] |= 1U << (seq % 8);
		s->count++;
	}
	seq_check_done(src);
	pthread_mutex_unlock(&srv.lock);
}

static void seq_end(unsigned int src, uint32_t count)
{
	struct seq_run *s = &srv.seq[src];

	pthread_mutex_lock(&srv.lock);
	if (count > SEQ_MAX) {
		fail("SEQ-END from node %u: %u messages, at most %u tracked",
		     src, count, SEQ_MAX);
		count = SEQ_MAX;
	}
	s->ended = true;
	s->expected = count;
	seq_check_done(src);
	pthread_mutex_unlock(&srv.lock);
}

/* At exit: runs that ended with messages missing, or never ended. */
static void seq_report_unfinished(void)
{
	unsigned int src;

	pthread_mutex_lock(&srv.lock);
	for (src = 0; src < MAX_NODES; src++) {
		struct seq_run *s = &srv.seq[src];

		if (s->ended)
			fail("one-way messages from node %u: %u of %u arrived",
			     src, s->count, s->expected);
		else if (s->count)
			info("one-way messages from node %u: %u without "
			     "SEQ-END", src, s->count);
		if (s->unordered)
			fail("one-way ordering from node %u: %u messages out "
			     "of order", src, s->unordered);
	}
	pthread_mutex_unlock(&srv.lock);
}

static void one_way(struct server_thread *t, unsigned int src,
		    const uint8_t *msg, int len)
{
	uint32_t v;

	pthread_mutex_lock(&srv.lock);
	srv.one_way++;
	pthread_mutex_unlock(&srv.lock);
	if (len == 4 && !memcmp(msg, MSG_QUIT, 4)) {
		info("QUIT from node %u", src);
		pthread_mutex_lock(&srv.lock);
		srv.quit = true;
		pthread_cond_signal(&srv.cond);
		pthread_mutex_unlock(&srv.lock);
	} else if (src >= MAX_NODES) {
		fail("one-way message from node %u, ids end at %u", src,
		     MAX_NODES - 1);
	} else if (len == SEQ_LEN && !memcmp(msg, MSG_SEQ, 4)) {
		memcpy(&v, msg + 4, sizeof(v));
		seq_note(t, src, v);
	} else if (len == SEQ_END_LEN && !memcmp(msg, MSG_SEQ_END, 7)) {
		memcpy(&v, msg + 7, sizeof(v));
		seq_end(src, v);
	} else {
		fail("unexpected one-way message of %d bytes from node %u",
		     len, src);
	}
}

/*
 * BIGREPLY and SMALLBUF ask for replies their callers may have no room
 * for: a plain reply, which then fails with EMSGSIZE (the caller checks
 * that it got EMSGSIZE too).
 */
static void answer_special(struct server_thread *t, const uint8_t *req,
			   int len, uint64_t desc, unsigned int src)
{
	bool big = is_magic(req, len, MSG_BIG);
	unsigned int size = big ? LITE_RPC_MAX_MSG : (unsigned int)len;
	int ret;

	ret = lite_rpc_reply(desc, big ? srv.big : req, size, t->prio);
	if (ret == -EMSGSIZE)
		info("reply of %u bytes to node %u: EMSGSIZE (no room)", size,
		     src);
	else
		step(ret, "reply of %u bytes to node %u", size, src);
}

static int server_recv(struct server_thread *t, uint8_t *buf, uint64_t *desc,
		       unsigned int *src)
{
	return lite_rpc_recv(srv.port, buf, LITE_RPC_MAX_MSG, desc, src, 0,
			     t->prio);
}

/* Answer what is in buf[*cur]; returns the length of the next message. */
static int serve_one(struct server_thread *t, int *cur, int len,
		     uint64_t *desc, unsigned int *src)
{
	uint8_t *msg = t->buf[*cur];
	unsigned int from = *src;
	int ret;

	if (*desc == LITE_DESC_NO_REPLY) {
		one_way(t, from, msg, len);
		return server_recv(t, msg, desc, src);
	}
	pthread_mutex_lock(&srv.lock);
	srv.calls++;
	pthread_mutex_unlock(&srv.lock);
	if (is_magic(msg, len, MSG_BIG) || is_magic(msg, len, MSG_SMALL)) {
		answer_special(t, msg, len, *desc, from);
		return server_recv(t, msg, desc, src);
	}
	/* Echo from one buffer while the next request fills the other. */
	*cur = !*cur;
	ret = lite_rpc_reply_recv(*desc, msg, len, srv.port, t->buf[*cur],
				  LITE_RPC_MAX_MSG, desc, src, t->prio);
	if (ret >= 0)
		return ret;
	/* Whichever half failed, this thread then has no message: get one. */
	fail("echo of %d bytes to node %u (reply_recv): %s", len, from,
	     got_name(ret));
	return server_recv(t, t->buf[*cur], desc, src);
}

static void *serve(void *arg)
{
	struct server_thread *t = arg;
	unsigned int src = 0;
	uint64_t desc;
	int cur = 0, len;

	len = server_recv(t, t->buf[cur], &desc, &src);
	while (len >= 0)
		len = serve_one(t, &cur, len, &desc, &src);
	fail("receive on port %u: %s", srv.port, got_name(len));
	pthread_mutex_lock(&srv.lock);
	srv.receivers--;
	pthread_cond_signal(&srv.cond);
	pthread_mutex_unlock(&srv.lock);
	return NULL;
}

/* Its deadline is on the monotonic clock: date changes do not move it. */
static void server_cond_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&srv.cond, &attr);
	pthread_condattr_destroy(&attr);
}

/* Until QUIT, @seconds, or no receiver is left. */
static void server_wait(unsigned int seconds)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	pthread_mutex_lock(&srv.lock);
	while (!srv.quit && srv.receivers &&
	       pthread_cond_timedwait(&srv.cond, &srv.lock, &end) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&srv.lock);
}

static int cmd_echo_server(unsigned int port, unsigned int seconds)
{
	static struct server_thread threads[SERVER_THREADS];
	double start = now();
	unsigned int i;
	int ret;

	srv.port = port;
	if (!expect(lite_rpc_register(port, LITE_RPC_MAX_MSG, "test_sync"), 0,
		    "register port %u (max_size %u)", port, LITE_RPC_MAX_MSG))
		return finish();
	srv.big = xmalloc(LITE_RPC_MAX_MSG);
	big_pattern(srv.big);
	server_cond_init();
	for (i = 0; i < SERVER_THREADS; i++) {
		struct server_thread *t = &threads[i];

		t->prio = i ? LITE_PRIO_HIGH : LITE_PRIO_NORMAL;
		t->buf[0] = xmalloc(LITE_RPC_MAX_MSG);
		t->buf[1] = xmalloc(LITE_RPC_MAX_MSG);
		/* Run UINT32_MAX, last -1: nothing seen yet. */
		memset(t->seen, 0xff, sizeof(t->seen));
		ret = pthread_create(&t->tid, NULL, serve, t);
		if (ret) {
			fail("receiving thread %u: %s", i, strerror(ret));
			return finish();
		}
		pthread_mutex_lock(&srv.lock);
		srv.receivers++;
		pthread_mutex_unlock(&srv.lock);
	}
	puts("ready");
	server_wait(seconds);
	/* QUIT may overtake a message the other receiver is handling. */
	if (srv.quit)
		sleep_ms(QUIT_SETTLE_MS);
	pthread_mutex_lock(&srv.lock);
	info("%s after %.1f s: %lu calls, %lu one-way messages",
	     srv.quit ? "quit" : srv.receivers ? "timeout" : "no receiver",
	     now() - start, srv.calls, srv.one_way);
	pthread_mutex_unlock(&srv.lock);
	seq_report_unfinished();
	/* The receivers, blocked in the kernel, end with the process. */
	return finish();
}

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

static int cmd_echo_client(unsigned int node, unsigned int port,
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

static int cmd_quit(unsigned int node, unsigned int port)
{
	expect(lite_rpc_send(node, port, MSG_QUIT, 4, LITE_PRIO_NORMAL), 0,
	       "QUIT to node %u port %u", node, port);
	return finish();
}

static int cmd_call_departed(unsigned int node, unsigned int port)
{
	static const int gone[] = { ENOTCONN, ETIMEDOUT, ECONNREFUSED };
	double start = now(), elapsed;
	char rep[64];
	int ret;

	ret = lite_rpc_call(node, port, "departed", 8, rep, sizeof(rep),
			    LITE_PRIO_NORMAL);
	elapsed = now() - start;
	expect_any(ret, gone, ARRAY_SIZE(gone), "call to departed node %u",
		   node);
	info("elapsed %.1f s", elapsed);
	if (elapsed <= DEPART_TIMEOUT_S)
		pass("call to departed node %u returned within %d s", node,
		     DEPART_TIMEOUT_S);
	else
		fail("call to departed node %u: returned after %.1f s, more "
		     "than %d s", node, elapsed, DEPART_TIMEOUT_S);
	return finish();
}

/* ---- fetch-add and lock-counter: an LMR on NODE, used from every node --- */

static int lmr_new(unsigned int node, unsigned int flags, int password)
{
	int lh = lite_alloc(node, SYNC_LMR_SIZE, flags, password);

	step(lh, "allocate a %s%u-byte LMR on node %u",
	     flags & LITE_ALLOC_ATOMIC ? "atomic " : "", SYNC_LMR_SIZE, node);
	return lh;
}

/* Everything but ADMIN, which is never published; ATOMIC if it is one. */
static void lmr_share(int lh, uint64_t id, int password)
{
	unsigned int perm = 0;

	lite_lmr_info(lh, NULL, NULL, &perm);
	expect(lite_publish(lh, id, perm & ~LITE_PERM_ADMIN, password), 0,
	       "publish it as %llu", (unsigned long long)id);
}

/* Map @id of @node; its owner may not have published it yet. */
static int lmr_ask(unsigned int node, uint64_t id, unsigned int perm,
		   int password)
{
	double end = now() + ASK_TIMEOUT_S;
	int lh;

	/* Not published yet looks like a wrong password: EACCES; EAGAIN
	 * when the owner throttles this user's failed asks. */
	while (((lh = lite_ask(node, id, perm, password)) == -EACCES ||
		lh == -EAGAIN) && now() < end)
		sleep_ms(100);
	expect(lh, 0, "ask node %u for %llu", node, (unsigned long long)id);
	return lh;
}

static bool lmr_read64(int lh, uint64_t off, uint64_t *v, int password)
{
	return step(lite_read(lh, off, v, sizeof(*v), password,
			      LITE_PRIO_NORMAL),
		    "read 8 bytes at %llu", (unsigned long long)off);
}

/* The other nodes wait in the barrier for this one, even after a failure. */
static void sync_barrier(const char *when)
{
	expect(lite_barrier(SYNC_NODES), 0, "barrier(%u) %s", SYNC_NODES,
	       when);
}

/* ---- fetch-add ---------------------------------------------------------- */

/* On the owner's handle: these fail before they change anything. */
static void fetch_add_errors(int lh)
{
	uint64_t old;

	expect(lite_fetch_add(lh, 4, 1, &old, FA_PASSWORD), EINVAL,
	       "fetch_add at offset 4, not 8-aligned");
	expect(lite_fetch_add(lh, 0, 1, &old, FA_PASSWORD + 1), EACCES,
	       "fetch_add with the wrong password");
}

static void fetch_add_loop(int lh, unsigned int iter)
{
	uint64_t old, prev = 0;
	double start = now();
	unsigned int i;

	for (i = 0; i < iter; i++) {
		if (!step(lite_fetch_add(lh, 0, 1, &old, FA_PASSWORD),
			  "fetch_add %u of %u", i + 1, iter))
			return;
		/* Only increments: each node sees the value grow. */
		if (i && old <= prev) {
			fail("fetch_add %u: old value %llu after %llu", i + 1,
			     (unsigned long long)old,
			     (unsigned long long)prev);
			return;
		}
		prev = old;
	}
	pass("%u fetch_adds, old values increasing", iter);
	info("%u fetch_adds in %.1f ms", iter, (now() - start) * 1e3);
}

static void fetch_add_total(int lh, unsigned int iter)
{
	uint64_t total, want = (uint64_t)SYNC_NODES * iter;

	if (!lmr_read64(lh, 0, &total, FA_PASSWORD))
		return;
	info("total %llu", (unsigned long long)total);
	if (total == want)
		pass("total == %u x %u", SYNC_NODES, iter);
	else
		fail("total: got %llu, want %llu", (unsigned long long)total,
		     (unsigned long long)want);
}

/* Every node tries to swap its id into the zero at CAS_OFFSET once. */
static bool cas_round(int lh, unsigned int me)
{
	uint64_t old;

	if (!step(lite_compare_swap(lh, CAS_OFFSET, 0, me, &old, FA_PASSWORD),
		  "compare_swap of 0 for %u", me))
		return false;
	if (!old) {
		info("cas won");
		return true;
	}
	info("cas lost to node %llu", (unsigned long long)old);
	if (old == me || old >= MAX_NODES)
		fail("compare_swap: old value %llu is no other node's id",
		     (unsigned long long)old);
	return false;
}

/*
 * Swap values unique to this node (id << 32 | i) into the word at
 * SWAP_OFFSET: every value put in comes out exactly once, to a swapper
 * or as the final value.
 */
static void swap_loop(int lh, unsigned int me, unsigned int iter)
{
	uint64_t put = 0, got = 0, old, v;
	unsigned int i;

	for (i = 1; i <= iter; i++) {
		v = (uint64_t)me << 32 | i;
		if (!step(lite_swap(lh, SWAP_OFFSET, v, &old, FA_PASSWORD),
			  "swap %u of %u", i, iter))
			return;
		if (old == v) {
			fail("swap %u: got back the value it put in", i);
			return;
		}
		put += v;
		got += old;
	}
	pass("%u swaps", iter);
	info("swap put %llu got %llu", (unsigned long long)put,
	     (unsigned long long)got);
}

static void swap_final(int lh)
{
	uint64_t v;

	if (lmr_read64(lh, SWAP_OFFSET, &v, FA_PASSWORD))
		info("swap final %llu", (unsigned long long)v);
}

/* The owner, after everyone swapped: the word holds the winner's id. */
static void cas_winner(int lh, unsigned int me, bool won)
{
	uint64_t v;

	if (!lmr_read64(lh, CAS_OFFSET, &v, FA_PASSWORD))
		return;
	if (!v || v >= MAX_NODES)
		fail("compare_swap race: the word holds %llu, no node's id",
		     (unsigned long long)v);
	else if (won != (v == me))
		fail("compare_swap race: the word holds %llu, but this node "
		     "%s", (unsigned long long)v, won ? "won" : "lost");
	else
		pass("compare_swap race: node %llu holds the word",
		     (unsigned long long)v);
}

static int cmd_fetch_add(unsigned int owner, uint64_t id, unsigned int iter)
{
	unsigned int me = this_node();
	bool mine = me == owner, won = false;
	int lh;

	if (mine) {
		lh = lmr_new(owner, LITE_ALLOC_ATOMIC, FA_PASSWORD);
		if (lh > 0) {
			lmr_share(lh, id, FA_PASSWORD);
			fetch_add_errors(lh);
		}
	} else {
		lh = lmr_ask(owner, id, LITE_PERM_READ | LITE_PERM_WRITE |
			     LITE_PERM_ATOMIC, FA_PASSWORD);
	}
	if (lh > 0)
		fetch_add_loop(lh, iter);
	sync_barrier("after the fetch_adds");
	if (mine && lh > 0)
		fetch_add_total(lh, iter);
	if (lh > 0)
		won = cas_round(lh, me);
	sync_barrier("after the compare_swaps");
	if (mine && lh > 0)
		cas_winner(lh, me, won);
	if (lh > 0)
		swap_loop(lh, me, iter);
	sync_barrier("after the swaps");
	if (mine && lh > 0)
		swap_final(lh);
	return finish();
}

/* ---- lock-counter ------------------------------------------------------- */

/* Owner: a lock, and an LMR that tells the others its number. */
static int lock_setup_owner(unsigned int node, uint64_t id, int *lh)
{
	int lock = lite_lock_create(node);
	uint32_t word;

	*lh = -1;
	if (!expect(lock, 0, "create a lock on node %u", node))
		return lock;
	*lh = lmr_new(node, 0, LOCK_PASSWORD);
	if (*lh < 0)
		return -1;
	word = lock;
	if (step(lite_write(*lh, LOCK_WORD_OFFSET, &word, sizeof(word),
			    LOCK_PASSWORD, LITE_PRIO_NORMAL),
		 "write the lock number"))
		lmr_share(*lh, id, LOCK_PASSWORD);
	return lock;
}

/* The others: the owner's LMR, and the lock number in it. */
static int lock_setup_other(unsigned int node, uint64_t id, int *lh)
{
	uint32_t word;

	*lh = lmr_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE,
		      LOCK_PASSWORD);
	if (*lh < 0 ||
	    !step(lite_read(*lh, LOCK_WORD_OFFSET, &word, sizeof(word),
			    LOCK_PASSWORD, LITE_PRIO_NORMAL),
		  "read the lock number") ||
	    !expect(lite_lock_ask(node, word), 0, "lock_ask(%u, %u)", node,
		    word))
		return -1;
	return word;
}

static void lock_errors(unsigned int node, int lock)
{
	expect(lite_unlock(node, lock), EPERM, "unlock of lock %d, not held",
	       lock);
	if (expect(lite_lock(node, lock), 0, "lock %d", lock)) {
		expect(lite_lock(node, lock), EDEADLK, "lock %d again", lock);
		expect(lite_unlock(node, lock), 0, "unlock %d", lock);
	}
	expect(lite_lock_ask(node, lock + NO_SUCH_LOCK), ENOENT,
	       "lock_ask(%u, %d), never created", node, lock + NO_SUCH_LOCK);
	expect(lite_lock(node, lock + NO_SUCH_LOCK), ENOENT,
	       "lock %d, never created", lock + NO_SUCH_LOCK);
}

/* Read, add one, write back: only the lock keeps increments from racing. */
static bool counter_bump(int lh)
{
	uint64_t v;

	if (!lmr_read64(lh, 0, &v, LOCK_PASSWORD))
		return false;
	v++;
	return step(lite_write(lh, 0, &v, sizeof(v), LOCK_PASSWORD,
			       LITE_PRIO_NORMAL), "write the counter");
}

static void counter_loop(int lh, unsigned int node, int lock,
			 unsigned int iter)
{
	double start = now();
	unsigned int i;
	bool bumped;

	for (i = 0; i < iter; i++) {
		if (!step(lite_lock(node, lock), "lock %d, round %u", lock,
			  i + 1))
			return;
		bumped = counter_bump(lh);
		if (!step(lite_unlock(node, lock), "unlock %d, round %u", lock,
			  i + 1) || !bumped)
			return;
	}
	pass("%u increments under lock %d", iter, lock);
	info("%u lock/read/write/unlock rounds in %.1f ms", iter,
	     (now() - start) * 1e3);
}

static int cmd_lock_counter(unsigned int owner, uint64_t id,
			    unsigned int iter)
{
	unsigned int me = this_node();
	bool mine = me == owner;
	uint64_t v, want = (uint64_t)SYNC_NODES * iter;
	int lh, lock;

	if (mine)
		lock = lock_setup_owner(owner, id, &lh);
	else
		lock = lock_setup_other(owner, id, &lh);
	if (lock >= 0)
		lock_errors(owner, lock);
	sync_barrier("before counting");
	if (lh > 0 && lock >= 0)
		counter_loop(lh, owner, lock, iter);
	sync_barrier("after counting");
	if (mine && lh > 0 && lmr_read64(lh, 0, &v, LOCK_PASSWORD)) {
		info("counter %llu", (unsigned long long)v);
		if (v == want)
			pass("counter == %u x %u", SYNC_NODES, iter);
		else
			fail("counter: got %llu, want %llu",
			     (unsigned long long)v, (unsigned long long)want);
	}
	return finish();
}

/* ---- barrier, recv-block ------------------------------------------------ */

static int cmd_barrier(unsigned int nr)
{
	unsigned long long after;
	int ret;

	info("before %llu", unix_ms());
	ret = lite_barrier(nr);
	after = unix_ms();
	expect(ret, 0, "barrier(%u)", nr);
	info("after %llu", after);
	return finish();
}

/*
 * Register @port as @name, print "ready" and wait for one request: its
 * length or error in *@ret, its sender in *@src. False if the port could
 * not be registered (a failed check).
 */
static bool recv_one(unsigned int port, const char *name, int *ret,
		     unsigned int *src)
{
	static uint8_t buf[4096];
	uint64_t desc;

	if (!expect(lite_rpc_register(port, sizeof(buf), name), 0,
		    "register port %u", port))
		return false;
	puts("ready");
	*ret = lite_rpc_recv(port, buf, sizeof(buf), &desc, src, 0,
			     LITE_PRIO_NORMAL);
	return true;
}

static int cmd_recv_block(unsigned int port)
{
	unsigned int src;
	int ret;

	if (!recv_one(port, "test_sync recv", &ret, &src))
		return finish();
	if (ret < 0)
		info("recv returned %d (%s)", ret, errname(-ret));
	else
		info("recv returned %d (a message from node %u)", ret, src);
	if (ret == -ENOTCONN || ret == -ENODEV)
		pass("blocked recv woke with %s", errname(-ret));
	else
		fail("blocked recv: want ENOTCONN or ENODEV, got %s",
		     got_name(ret));
	return finish();
}

/* A server that takes one request and never answers it (caller timeouts). */
static int cmd_silent(unsigned int port, unsigned int seconds)
{
	unsigned int src;
	int ret;

	if (!recv_one(port, "test_sync silent", &ret, &src))
		return finish();
	step(ret, "receive the request that will not be answered");
	sleep(seconds);
	return finish();
}

/* A receiver that never receives: its senders' ring fills up. */
static int cmd_deaf(unsigned int port, unsigned int seconds)
{
	if (!expect(lite_rpc_register(port, FLOOD_SIZE, "test_sync deaf"), 0,
		    "register port %u", port))
		return finish();
	puts("ready");
	fflush(stdout);
	sleep(seconds);
	return finish();
}

/* One-way messages to (@node, @port) until one fails. */
static int cmd_flood(unsigned int node, unsigned int port)
{
	static uint8_t msg[FLOOD_SIZE];
	double start = now(), t0;
	unsigned int sent = 0;
	int ret;

	for (;;) {
		t0 = now();
		ret = lite_rpc_send(node, port, msg, sizeof(msg),
				    LITE_PRIO_NORMAL);
		if (ret)
			break;
		sent++;
	}
	info("sent %u then %s after %.1f s (the last send waited %.1f s)",
	     sent, errname(-ret), now() - start, now() - t0);
	return finish();
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_sync echo-server PORT SECONDS\n"
		"       test_sync echo-client NODE PORT THREADS\n"
		"       test_sync quit NODE PORT\n"
		"       test_sync call-departed NODE PORT\n"
		"       test_sync silent PORT SECONDS\n"
		"       test_sync deaf PORT SECONDS\n"
		"       test_sync flood NODE PORT\n"
		"       test_sync fetch-add NODE ID ITER    (on 3 nodes)\n"
		"       test_sync lock-counter NODE ID ITER (on 3 nodes)\n"
		"       test_sync barrier NR\n"
		"       test_sync recv-block PORT\n");
}

#define NODE(i)		parse_num(argv[i], "NODE", 1, UINT_MAX)
#define PORT(i)		parse_num(argv[i], "PORT", 0, LITE_MAX_PORT - 1)
#define ID(i)		parse_num(argv[i], "ID", 0, UINT64_MAX)
#define ITER(i)		parse_num(argv[i], "ITER", 0, 100000000)

int main(int argc, char *argv[])
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int nargs = argc - 2;

	check_start("test_sync", usage);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "echo-server") && nargs == 2)
		return cmd_echo_server(PORT(2),
				       parse_num(argv[3], "SECONDS", 1,
						 INT_MAX));
	if (!strcmp(cmd, "echo-client") && nargs == 3)
		return cmd_echo_client(NODE(2), PORT(3),
				       parse_num(argv[4], "THREADS", 1,
						 MAX_THREADS));
	if (!strcmp(cmd, "quit") && nargs == 2)
		return cmd_quit(NODE(2), PORT(3));
	if (!strcmp(cmd, "silent") && nargs == 2)
		return cmd_silent(PORT(2), parse_num(argv[3], "SECONDS", 1,
						     INT_MAX));
	if (!strcmp(cmd, "deaf") && nargs == 2)
		return cmd_deaf(PORT(2), parse_num(argv[3], "SECONDS", 1,
						   INT_MAX));
	if (!strcmp(cmd, "flood") && nargs == 2)
		return cmd_flood(NODE(2), PORT(3));
	if (!strcmp(cmd, "call-departed") && nargs == 2)
		return cmd_call_departed(NODE(2), PORT(3));
	if (!strcmp(cmd, "fetch-add") && nargs == 3)
		return cmd_fetch_add(NODE(2), ID(3), ITER(4));
	if (!strcmp(cmd, "lock-counter") && nargs == 3)
		return cmd_lock_counter(NODE(2), ID(3), ITER(4));
	if (!strcmp(cmd, "barrier") && nargs == 1)
		return cmd_barrier(parse_num(argv[2], "NR", 1, UINT_MAX));
	if (!strcmp(cmd, "recv-block") && nargs == 1)
		return cmd_recv_block(PORT(2));
	usage(stderr);
	return 2;
}
