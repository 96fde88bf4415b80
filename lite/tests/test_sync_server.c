// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * echo-server: PORT served by two receiving threads, one at normal and
 * one at high priority; every call is echoed, one-way messages are held
 * to their senders' order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_sync.h"

#define SERVER_THREADS		2
#define QUIT_SETTLE_MS		200
#define SEQ_MAX			4096	/* most tracked per sender */

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
	uint64_t answered = *desc;
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
	if (ret >= 0) {
		/*
		 * A descriptor answers once, even where what stood behind it
		 * now stands for the request just received: a second reply
		 * must not reach that request's caller.
		 */
		int again = lite_rpc_reply(answered, msg, 1, t->prio);

		if (again != -EALREADY)
			fail("a second reply with a used descriptor: %s, not EALREADY",
			     got_name(again));
		return ret;
	}
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

int cmd_echo_server(unsigned int port, unsigned int seconds)
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
