// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What home, run and verify share: the kinds of call and their bounds,
 * the log, one call at a time under the watchdog, the signals, the RPC
 * echo server, and the 64 bytes of each data write.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soak_worker.h"

const char *const kind_name[NR_KINDS] = {
	[K_WRITE] = "write", [K_READ] = "read", [K_PWRITE] = "pwrite",
	[K_PREAD] = "pread", [K_RPC] = "rpc", [K_LOCK] = "lock",
	[K_CREAD] = "cread", [K_CWRITE] = "cwrite", [K_UNLOCK] = "unlock",
	[K_ASK] = "ask",
};

unsigned int bound_ms(enum kind k, unsigned int bound_s)
{
	return (k == K_LOCK ? 4 : 1) * bound_s * 1000;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "soak_worker: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

/* ---- the log ---- */

int log_fd = -1;

void logf_(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line, O_APPEND: lines of the threads never mix. */
	if (write(log_fd, line, n) != n)
		die("writing the log: %s", strerror(errno));
}

/* ---- one call at a time, watched ---- */

unsigned int bound_s = DEFAULT_BOUND_S;
volatile sig_atomic_t stopping;

static pthread_mutex_t cur_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t id, start;
	enum kind kind;
	bool busy, reported;
} cur;
static uint64_t next_op_id;

void op_begin(enum kind k)
{
	pthread_mutex_lock(&cur_lock);
	cur.id = ++next_op_id;
	cur.kind = k;
	cur.start = now_ms();
	cur.busy = true;
	cur.reported = false;
	pthread_mutex_unlock(&cur_lock);
}

/* @ret: what liblite returned; logged as a positive errno (0: success). */
int op_end(int ret)
{
	uint64_t ms;

	pthread_mutex_lock(&cur_lock);
	ms = now_ms() - cur.start;
	cur.busy = false;
	logf_("op %" PRIu64 " %s %d %" PRIu64, cur.id, kind_name[cur.kind],
	      ret < 0 ? -ret : 0, ms);
	pthread_mutex_unlock(&cur_lock);
	return ret;
}

/*
 * The watchdog: once a second, report the call running past its bound;
 * also the thread that takes SIGTERM and SIGINT (blocked everywhere), so
 * that no call is interrupted by a stop request.
 */
void *watchdog(void *arg)
{
	struct timespec tick = { .tv_sec = 1 };
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	for (;;) {
		if (sigtimedwait(&set, NULL, &tick) > 0)
			stopping = 1;
		pthread_mutex_lock(&cur_lock);
		if (cur.busy && !cur.reported &&
		    now_ms() - cur.start > bound_ms(cur.kind, bound_s)) {
			logf_("hung %" PRIu64 " %s %" PRIu64, cur.id,
			      kind_name[cur.kind], now_ms() - cur.start);
			cur.reported = true;
		}
		pthread_mutex_unlock(&cur_lock);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Signals: SIGTERM/SIGINT to the watchdog, SIGALRM to the caller only. */
void signals_setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	sigset_t set;

	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void start_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err)
		die("pthread_create: %s", strerror(err));
	pthread_detach(t);
}

void alarm_unblock(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- RPC echo ---- */

/* Serve SOAK_PORT: every request comes back as it came. */
void *echo_server(void *arg)
{
	static _Thread_local uint8_t buf[SOAK_MAX_MSG];
	unsigned int src;
	uint64_t desc;
	int n;

	(void)arg;
	for (;;) {
		n = lite_rpc_recv(SOAK_PORT, buf, sizeof(buf), &desc, &src, 0,
				  LITE_PRIO_NORMAL);
		if (n == -EINTR || n == -ETIMEDOUT)
			continue;
		if (n < 0)
			break;	/* this node left, or the module went */
		if (desc != LITE_DESC_NO_REPLY)
			lite_rpc_reply(desc, buf, n, LITE_PRIO_NORMAL);
	}
	if (log_fd >= 0)
		logf_("server %d", -n);
	return NULL;
}

/* ---- the data written ---- */

/* The 64 bytes of write @seq by @node: a header and a derived pattern. */
void slot_fill(uint8_t *buf, unsigned int node, uint64_t seq)
{
	struct rng r = { .state = ((uint64_t)node << 48) ^ seq ^ SOAK_MAGIC };
	uint64_t hdr[2] = { SOAK_MAGIC ^ node, seq };

	memcpy(buf, hdr, sizeof(hdr));
	rng_fill(&r, buf + sizeof(hdr), SLOT_SIZE - sizeof(hdr));
}

/* The seq of a slot's content; 0 if zero, -1 if it is no write's. */
int64_t slot_decode(const uint8_t *buf, unsigned int node)
{
	static const uint8_t zero[SLOT_SIZE];
	uint8_t want[SLOT_SIZE];
	uint64_t hdr[2];

	if (!memcmp(buf, zero, SLOT_SIZE))
		return 0;
	memcpy(hdr, buf, sizeof(hdr));
	if (hdr[0] != (SOAK_MAGIC ^ node) || !hdr[1] || hdr[1] > INT64_MAX)
		return -1;
	slot_fill(want, node, hdr[1]);
	return memcmp(buf, want, SLOT_SIZE) ? -1 : (int64_t)hdr[1];
}

uint64_t data_off(unsigned int node, uint64_t seq)
{
	return ((uint64_t)node * SLOTS + seq % SLOTS) * SLOT_SIZE;
}
