// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * soak_worker: the traffic behind 'make soak' (tests/soak/run), through
 * liblite (lite.h) only. Three modes:
 *
 *   soak_worker home NODES
 *	on the stable node (node 1, never churned): allocates the data LMR
 *	(one region of SLOTS slots per node), the counter LMR and its lock,
 *	publishes both, serves RPC echo, prints "ready LOCK" and stays until
 *	SIGTERM (its LMRs live as long as it does).
 *   soak_worker run NODES LOG [-b BOUND_S] [-i ID] [-p PAUSE_MS] [-s SEED]
 *	on every node: continuous traffic until SIGTERM, or until this node
 *	leaves the cluster (exit status 3). Every operation and every
 *	acknowledgement is appended to LOG (one line each, written before the
 *	next operation starts), so a later incarnation on the same node
 *	continues the sequence numbers and 'verify' can hold the home's
 *	memory against what was acknowledged. ID (1 .. NODES, default this
 *	node's id) names the worker's region and its increments: the manager
 *	may give a rejoining node another id than it had, so the controller
 *	passes the host's number.
 *   soak_worker verify NODES BOUND_S LOG...
 *	on the stable node while 'home' runs: reads the data and counter
 *	LMRs, replays the logs and prints the summary. Exit status 1 when an
 *	invariant does not hold.
 *
 * The traffic, one operation at a time, picked at random:
 *   write   a slot of this node's region of the data LMR on node 1 (64
 *	     bytes derived from (node, seq); slot = seq % SLOTS), then a read
 *	     back that must return it;
 *   pwrite  random bytes into this node's region of another node's local
 *	     LMR (published by that node's worker), then a read back;
 *   rpc     an echo call with a random payload to a random other node,
 *	     whose reply must be the payload;
 *   inc     the lock-protected counter on node 1: lock, read the count c,
 *	     write this increment's tag into entry c + 1, write c + 1 to the
 *	     count, unlock.
 *
 * Durability rule checked by 'verify': an acknowledged operation (the call
 * returned success) on memory of the stable node is never lost. Memory of
 * a node that leaves goes with it (its worker's LMR is freed), so pwrites
 * are checked only by their read back. An operation that failed may or may
 * not have taken effect (a timeout says nothing about the remote side):
 * verify accepts its value too, and counts how many did.
 *
 * Every call is bounded: BOUND_S (default 30, three times the module's
 * 10 s timeouts) for data operations, asks and RPC, 4 * BOUND_S for
 * lite_lock (a FIFO queue behind up to NODES - 1 holders; SIGALRM ends a
 * longer wait with EINTR). A watchdog thread logs a call still running
 * past its bound ("hung"); verify also counts completed calls that took
 * longer.
 *
 * Log lines ("op" lines carry the positive errno, 0 on success, and the
 * call's duration in ms):
 *   start NODE PID			stop | left
 *   op ID KIND ERRNO MS		hung ID KIND MS
 *   wt SEQ | wr SEQ ERRNO		a data write tried / its outcome
 *   it TAG VALUE | ir TAG VALUE ERRNO	an increment tried / its outcome
 *   bad WHAT				a read back that differed
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define SOAK_HOME		1	/* the stable node */
#define SOAK_MAX_NODES		16	/* node ids 1 .. 15 */
#define SOAK_PORT		60
#define SOAK_MAX_MSG		1024
#define SOAK_PASSWORD		5353
#define SOAK_ID_DATA		0x534f414b00000001ULL
#define SOAK_ID_CTR		0x534f414b00000002ULL
#define SOAK_ID_PEER		0x534f414b00000003ULL
#define SOAK_MAGIC		0x534f414b4c495445ULL	/* "SOAKLITE" */
#define SOAK_ECHO_MAGIC		0x4f484345U	/* "ECHO" */

#define SLOT_SIZE		64
#define SLOTS			256	/* per node in the data LMR */
#define DATA_SIZE		(SOAK_MAX_NODES * SLOTS * SLOT_SIZE)

/* Counter LMR: magic, lock number, count, then tag[v] for v = 1 .. */
#define CTR_LOCK_OFF		8
#define CTR_COUNT_OFF		16
#define CTR_TAG_OFF(v)		(64 + 8 * (uint64_t)(v))
#define CTR_MAX			65535
#define CTR_SIZE		CTR_TAG_OFF(CTR_MAX + 1)

#define PEER_REGION		4096	/* per writer node in a peer LMR */
#define PEER_SIZE		(SOAK_MAX_NODES * PEER_REGION)

#define HOME_SERVERS		2
#define RETRY_MS		5000	/* leave a node alone after an error */
#define SETUP_TIMEOUT_S		120
#define DEFAULT_BOUND_S		30
#define EXIT_LEFT		3

enum kind {
	K_WRITE, K_READ, K_PWRITE, K_PREAD, K_RPC, K_LOCK, K_CREAD, K_CWRITE,
	K_UNLOCK, K_ASK, NR_KINDS
};

static const char *const kind_name[NR_KINDS] = {
	[K_WRITE] = "write", [K_READ] = "read", [K_PWRITE] = "pwrite",
	[K_PREAD] = "pread", [K_RPC] = "rpc", [K_LOCK] = "lock",
	[K_CREAD] = "cread", [K_CWRITE] = "cwrite", [K_UNLOCK] = "unlock",
	[K_ASK] = "ask",
};

static unsigned int bound_ms(enum kind k, unsigned int bound_s)
{
	return (k == K_LOCK ? 4 : 1) * bound_s * 1000;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const char *fmt, ...) CHECK_FMT(1, 2);
static void die(const char *fmt, ...)
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

static int log_fd = -1;

static void logf_(const char *fmt, ...) CHECK_FMT(1, 2);
static void logf_(const char *fmt, ...)
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

static unsigned int bound_s = DEFAULT_BOUND_S;
static volatile sig_atomic_t stopping;

static pthread_mutex_t cur_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t id, start;
	enum kind kind;
	bool busy, reported;
} cur;
static uint64_t next_op_id;

static void op_begin(enum kind k)
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
static int op_end(int ret)
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
static void *watchdog(void *arg)
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
static void signals_setup(void)
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

static void start_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err)
		die("pthread_create: %s", strerror(err));
	pthread_detach(t);
}

static void alarm_unblock(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- RPC echo ---- */

struct echo_hdr {
	uint32_t magic;
	uint32_t node;
	uint64_t seq;
};

/* Serve SOAK_PORT: every request comes back as it came. */
static void *echo_server(void *arg)
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
static void slot_fill(uint8_t *buf, unsigned int node, uint64_t seq)
{
	struct rng r = { .state = ((uint64_t)node << 48) ^ seq ^ SOAK_MAGIC };
	uint64_t hdr[2] = { SOAK_MAGIC ^ node, seq };

	memcpy(buf, hdr, sizeof(hdr));
	rng_fill(&r, buf + sizeof(hdr), SLOT_SIZE - sizeof(hdr));
}

/* The seq of a slot's content; 0 if zero, -1 if it is no write's. */
static int64_t slot_decode(const uint8_t *buf, unsigned int node)
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

static uint64_t data_off(unsigned int node, uint64_t seq)
{
	return ((uint64_t)node * SLOTS + seq % SLOTS) * SLOT_SIZE;
}

/* ---- home ---- */

static int home(unsigned int nodes)
{
	uint64_t hdr[2] = { SOAK_MAGIC };
	int data, ctr, lock, ret, i;

	(void)nodes;
	signals_setup();
	if (lite_node_id() != SOAK_HOME)
		die("home runs on node %d, this is node %d", SOAK_HOME,
		    lite_node_id());
	data = lite_alloc(SOAK_HOME, DATA_SIZE, 0, SOAK_PASSWORD);
	ctr = lite_alloc(SOAK_HOME, CTR_SIZE, 0, SOAK_PASSWORD);
	lock = lite_lock_create(SOAK_HOME);
	if (data < 0 || ctr < 0 || lock < 0)
		die("alloc %d, alloc %d, lock_create %d", data, ctr, lock);
	hdr[1] = lock;
	ret = lite_write(ctr, 0, hdr, sizeof(hdr), SOAK_PASSWORD,
			 LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_publish(data, SOAK_ID_DATA, LITE_PERM_READ |
				   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (!ret)
		ret = lite_publish(ctr, SOAK_ID_CTR, LITE_PERM_READ |
				   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (!ret)
		ret = lite_rpc_register(SOAK_PORT, SOAK_MAX_MSG, "soak-echo");
	if (ret)
		die("setting up the home: %s", errname(-ret));
	for (i = 0; i < HOME_SERVERS; i++)
		start_thread(echo_server, NULL);
	printf("ready %d\n", lock);
	fflush(stdout);
	for (;;) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		if (!sigwait(&set, &sig))
			break;
	}
	return 0;
}

/* ---- run ---- */

struct worker {
	unsigned int self;	/* LITE's node id: may change at a rejoin */
	unsigned int id;	/* the worker's own: its region, its tags */
	unsigned int nodes, pause_ms;
	int data, ctr;		/* on the home */
	unsigned int lock;
	int local;		/* this node's LMR, published for peers */
	int peer[SOAK_MAX_NODES];
	uint64_t retry_at[SOAK_MAX_NODES];	/* now_ms() to try again */
	uint64_t seq, incseq, callseq;
	struct rng rng;
};

/* Continue the sequence numbers of earlier incarnations on this node. */
static void log_resume(const char *path, struct worker *w)
{
	FILE *f = fopen(path, "r");
	char line[256];
	uint64_t a, b;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "wt %" SCNu64, &a) == 1 && a > w->seq)
			w->seq = a;
		if (sscanf(line, "it %" SCNu64 " %" SCNu64, &a, &b) == 2 &&
		    (a & 0xffffffffffffULL) > w->incseq)
			w->incseq = a & 0xffffffffffffULL;
	}
	fclose(f);
}

static int ask_retry(unsigned int node, uint64_t id)
{
	uint64_t end = now_ms() + SETUP_TIMEOUT_S * 1000;
	int lh;

	do {
		lh = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE,
			      SOAK_PASSWORD);
		if (lh >= 0 || (lh != -ENOENT && lh != -ETIMEDOUT))
			return lh;
		sleep(1);
	} while (now_ms() < end);
	return lh;
}

/* After an error: did this node leave? Then this incarnation is over. */
static void check_joined(int ret)
{
	if (ret != -ENOTCONN && ret != -ENODEV)
		return;
	if (lite_node_id() > 0)
		return;
	logf_("left");
	exit(EXIT_LEFT);
}

static bool node_ready(struct worker *w, unsigned int n)
{
	return now_ms() >= w->retry_at[n];
}

static void node_backoff(struct worker *w, unsigned int n)
{
	w->retry_at[n] = now_ms() + RETRY_MS;
}

static void do_write(struct worker *w)
{
	uint8_t buf[SLOT_SIZE], back[SLOT_SIZE];
	uint64_t seq = ++w->seq, off = data_off(w->id, seq);
	int ret;

	slot_fill(buf, w->id, seq);
	logf_("wt %" PRIu64, seq);
	op_begin(K_WRITE);
	ret = op_end(lite_write(w->data, off, buf, SLOT_SIZE, SOAK_PASSWORD,
				LITE_PRIO_NORMAL));
	logf_("wr %" PRIu64 " %d", seq, -ret);
	if (ret) {
		check_joined(ret);
		return;
	}
	op_begin(K_READ);
	ret = op_end(lite_read(w->data, off, back, SLOT_SIZE, SOAK_PASSWORD,
			       LITE_PRIO_NORMAL));
	if (ret)
		check_joined(ret);
	else if (memcmp(back, buf, SLOT_SIZE))
		logf_("bad read-back of write %" PRIu64 " (slot %" PRIu64
		      "): got seq %" PRId64, seq, seq % SLOTS,
		      slot_decode(back, w->id));
}

static void peer_drop(struct worker *w, unsigned int n)
{
	if (w->peer[n] > 0)
		lite_unmap(w->peer[n]);
	w->peer[n] = 0;
	node_backoff(w, n);
}

static void do_pwrite(struct worker *w)
{
	uint8_t buf[PEER_REGION], back[PEER_REGION];
	unsigned int n = 1 + rng_below(&w->rng, w->nodes), len, at;
	uint64_t off;
	int ret;

	if (n == w->self || !node_ready(w, n))
		return;
	if (w->peer[n] <= 0) {
		op_begin(K_ASK);
		ret = op_end(lite_ask(n, SOAK_ID_PEER, LITE_PERM_READ |
				      LITE_PERM_WRITE, SOAK_PASSWORD));
		if (ret < 0) {
			check_joined(ret);
			node_backoff(w, n);
			return;
		}
		w->peer[n] = ret;
	}
	len = 8 + rng_below(&w->rng, PEER_REGION - 8);
	at = rng_below(&w->rng, PEER_REGION - len + 1);
	off = (uint64_t)w->id * PEER_REGION + at;
	rng_fill(&w->rng, buf, len);
	op_begin(K_PWRITE);
	ret = op_end(lite_write(w->peer[n], off, buf, len, SOAK_PASSWORD,
				LITE_PRIO_NORMAL));
	if (!ret) {
		op_begin(K_PREAD);
		ret = op_end(lite_read(w->peer[n], off, back, len,
				       SOAK_PASSWORD, LITE_PRIO_NORMAL));
		if (!ret && memcmp(back, buf, len))
			logf_("bad read-back from node %u's LMR at %" PRIu64
			      " (%u bytes)", n, off, len);
	}
	if (ret) {
		check_joined(ret);
		peer_drop(w, n);
	}
}

static void do_rpc(struct worker *w)
{
	uint8_t req[SOAK_MAX_MSG], reply[SOAK_MAX_MSG];
	unsigned int n = 1 + rng_below(&w->rng, w->nodes);
	unsigned int len = sizeof(struct echo_hdr) +
			   rng_below(&w->rng, SOAK_MAX_MSG -
				     sizeof(struct echo_hdr) + 1);
	struct echo_hdr h = { SOAK_ECHO_MAGIC, w->id, ++w->callseq };
	int ret;

	/* No QP leads to this node itself: such a call is refused. */
	if (n == w->self || !node_ready(w, n))
		return;
	memcpy(req, &h, sizeof(h));
	rng_fill(&w->rng, req + sizeof(h), len - sizeof(h));
	op_begin(K_RPC);
	ret = op_end(lite_rpc_call(n, SOAK_PORT, req, len, reply,
				   sizeof(reply), LITE_PRIO_NORMAL));
	if (ret < 0) {
		check_joined(ret);
		node_backoff(w, n);
	} else if ((unsigned int)ret != len || memcmp(reply, req, len)) {
		logf_("bad echo from node %u: %d bytes back for %u", n, ret,
		      len);
	}
}

static int lock_bounded(struct worker *w)
{
	int ret;

	alarm(bound_ms(K_LOCK, bound_s) / 1000 + 5);
	op_begin(K_LOCK);
	ret = op_end(lite_lock(SOAK_HOME, w->lock));
	alarm(0);
	return ret;
}

static void do_inc(struct worker *w)
{
	uint64_t count, tag, v;
	int ret, i;

	ret = lock_bounded(w);
	if (ret) {
		check_joined(ret);
		return;
	}
	op_begin(K_CREAD);
	ret = op_end(lite_read(w->ctr, CTR_COUNT_OFF, &count, sizeof(count),
			       SOAK_PASSWORD, LITE_PRIO_NORMAL));
	if (!ret && count < CTR_MAX) {
		v = count + 1;
		tag = ((uint64_t)w->id << 48) | ++w->incseq;
		logf_("it %" PRIu64 " %" PRIu64, tag, v);
		op_begin(K_CWRITE);
		ret = op_end(lite_write(w->ctr, CTR_TAG_OFF(v), &tag,
					sizeof(tag), SOAK_PASSWORD,
					LITE_PRIO_NORMAL));
		if (!ret) {
			op_begin(K_CWRITE);
			ret = op_end(lite_write(w->ctr, CTR_COUNT_OFF, &v,
						sizeof(v), SOAK_PASSWORD,
						LITE_PRIO_NORMAL));
		}
		logf_("ir %" PRIu64 " %" PRIu64 " %d", tag, v, -ret);
	}
	/* A lock we hold and cannot give back stops everyone: retry. */
	for (i = 0; i < 3; i++) {
		op_begin(K_UNLOCK);
		ret = op_end(lite_unlock(SOAK_HOME, w->lock));
		if (ret != -ETIMEDOUT)
			break;
	}
	check_joined(ret);
}

static void worker_setup(struct worker *w)
{
	uint64_t hdr[2];
	int ret;

	ret = lite_node_id();
	if (ret <= 0)
		die("this node has not joined: %s", errname(-ret));
	w->self = ret;
	if (!w->id)
		w->id = w->self;
	if (w->id >= SOAK_MAX_NODES || w->nodes >= SOAK_MAX_NODES)
		die("at most %d nodes", SOAK_MAX_NODES - 1);
	w->data = ask_retry(SOAK_HOME, SOAK_ID_DATA);
	w->ctr = ask_retry(SOAK_HOME, SOAK_ID_CTR);
	if (w->data < 0 || w->ctr < 0)
		die("asking node %d for the data and counter LMRs: %s, %s",
		    SOAK_HOME, errname(-w->data), errname(-w->ctr));
	ret = lite_read(w->ctr, 0, hdr, sizeof(hdr), SOAK_PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret || hdr[0] != SOAK_MAGIC)
		die("reading the counter LMR's header: %s", errname(-ret));
	w->lock = hdr[1];
	w->local = lite_alloc(w->self, PEER_SIZE, 0, SOAK_PASSWORD);
	if (w->local < 0)
		die("lite_alloc: %s", errname(-w->local));
	ret = lite_publish(w->local, SOAK_ID_PEER, LITE_PERM_READ |
			   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (ret)
		die("lite_publish: %s", errname(-ret));
	/* The home serves the port on node 1. */
	ret = lite_rpc_register(SOAK_PORT, SOAK_MAX_MSG, "soak-echo");
	if (!ret)
		start_thread(echo_server, NULL);
	else if (ret != -EADDRINUSE)
		die("lite_rpc_register: %s", errname(-ret));
}

static int run(unsigned int nodes, const char *log, int argc, char **argv)
{
	struct worker w = { .nodes = nodes, .pause_ms = 10 };
	uint64_t seed = 0;
	int opt;

	while ((opt = getopt(argc, argv, "b:i:p:s:")) != -1) {
		switch (opt) {
		case 'i':
			w.id = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			bound_s = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			w.pause_ms = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			die("usage: soak_worker run NODES LOG [-b BOUND_S] [-i ID] [-p PAUSE_MS] [-s SEED]");
		}
	}
	if (!bound_s)
		die("the bound must be > 0 s");
	signals_setup();
	log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		die("%s: %s", log, strerror(errno));
	log_resume(log, &w);
	start_thread(watchdog, NULL);
	worker_setup(&w);
	w.rng.state = seed ? seed : now_ms() ^ ((uint64_t)getpid() << 32);
	logf_("start %u %d", w.id, (int)getpid());
	printf("ready id %u node %u seq %" PRIu64 " inc %" PRIu64 "\n", w.id,
	       w.self, w.seq, w.incseq);
	fflush(stdout);
	alarm_unblock();
	while (!stopping) {
		unsigned int pick = rng_below(&w.rng, 100);

		if (pick < 40)
			do_write(&w);
		else if (pick < 55)
			do_pwrite(&w);
		else if (pick < 80)
			do_rpc(&w);
		else
			do_inc(&w);
		if (w.pause_ms)
			usleep(w.pause_ms * 1000);
	}
	logf_("stop");
	return 0;
}

/* ---- verify ---- */

enum { ST_NONE, ST_TRIED, ST_FAILED, ST_ACKED };

/* What the logs say about one node's writes and increments, by seq. */
struct hist {
	uint8_t *wst;		/* ST_* of data write seq */
	uint64_t nw;
	uint8_t *ist;		/* ST_* of increment seq */
	uint32_t *ival;		/* its value (entry in the counter) */
	uint64_t ni;
};

static void *grow(void *p, uint64_t *n, uint64_t want, size_t elem)
{
	uint64_t m = *n ? *n : 1024;
	uint8_t *q;

	if (want < *n)
		return p;
	while (m <= want)
		m *= 2;
	q = realloc(p, m * elem);
	if (!q)
		die("out of memory");
	memset(q + *n * elem, 0, (m - *n) * elem);
	*n = m;
	return q;
}

static void set_wst(struct hist *h, uint64_t seq, uint8_t st)
{
	h->wst = grow(h->wst, &h->nw, seq, 1);
	h->wst[seq] = st;
}

static void set_ist(struct hist *h, uint64_t seq, uint8_t st, uint32_t v)
{
	uint64_t n = h->ni;

	h->ist = grow(h->ist, &h->ni, seq, 1);
	h->ival = grow(h->ival, &n, seq, sizeof(*h->ival));
	h->ist[seq] = st;
	h->ival[seq] = v;
}

struct tally {
	uint64_t ok[NR_KINDS], err[NR_KINDS];
	uint64_t errs[NR_KINDS][256];	/* by errno */
	uint64_t hung, unreturned, bad, starts, lefts, stops;
	uint64_t max_ms[NR_KINDS];
	unsigned int failures;
};

static int kind_of(const char *name)
{
	unsigned int k;

	for (k = 0; k < NR_KINDS; k++)
		if (!strcmp(kind_name[k], name))
			return k;
	return -1;
}

/* One worker log; @node from its "start" lines. */
static void replay(const char *path, struct hist *hs, struct tally *t)
{
	FILE *f = fopen(path, "r");
	char line[512], name[32];
	uint64_t a, b, hung_id = 0;
	unsigned int node = 0;
	int e, k, pid;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "start %u %d", &node, &pid) == 2) {
			if (!node || node >= SOAK_MAX_NODES)
				die("%s: bad node in '%s'", path, line);
			if (hung_id)
				t->unreturned++;
			hung_id = 0;
			t->starts++;
		} else if (!node) {
			continue;	/* setup output before the first start */
		} else if (sscanf(line, "op %" SCNu64 " %31s %d %" SCNu64,
				  &a, name, &e, &b) == 4) {
			k = kind_of(name);
			if (k < 0 || e < 0 || e > 255)
				die("%s: bad line '%s'", path, line);
			if (e) {
				t->err[k]++;
				t->errs[k][e]++;
			} else {
				t->ok[k]++;
			}
			if (b > t->max_ms[k])
				t->max_ms[k] = b;
			if (b > bound_ms(k, bound_s))
				t->hung++;
			if (a == hung_id)
				hung_id = 0;
		} else if (sscanf(line, "hung %" SCNu64, &a) == 1) {
			hung_id = a;
			printf("hung call on node %u: %s\n", node, line);
		} else if (sscanf(line, "wt %" SCNu64, &a) == 1) {
			set_wst(&hs[node], a, ST_TRIED);
		} else if (sscanf(line, "wr %" SCNu64 " %d", &a, &e) == 2) {
			set_wst(&hs[node], a, e ? ST_FAILED : ST_ACKED);
		} else if (sscanf(line, "it %" SCNu64 " %" SCNu64, &a, &b) == 2) {
			set_ist(&hs[a >> 48], a & 0xffffffffffffULL, ST_TRIED, b);
		} else if (sscanf(line, "ir %" SCNu64 " %" SCNu64 " %d", &a, &b,
				  &e) == 3) {
			set_ist(&hs[a >> 48], a & 0xffffffffffffULL,
				e ? ST_FAILED : ST_ACKED, b);
		} else if (!strncmp(line, "bad ", 4)) {
			t->bad++;
			printf("FAIL node %u: %s\n", node, line);
		} else if (!strcmp(line, "left")) {
			t->lefts++;
		} else if (!strcmp(line, "stop")) {
			t->stops++;
		}
	}
	if (hung_id)
		t->unreturned++;
	fclose(f);
}

/* Each node's region of the data LMR against its acknowledged writes. */
static void check_data(const uint8_t *data, struct hist *hs,
		       unsigned int nodes, struct tally *t)
{
	uint64_t acked = 0, lost = 0, landed = 0, s, q;
	unsigned int n;

	for (n = 1; n <= nodes; n++) {
		struct hist *h = &hs[n];

		for (s = 0; s < SLOTS; s++) {
			const uint8_t *slot = data + data_off(n, s);
			int64_t got = slot_decode(slot, n);
			uint64_t last = 0;	/* last acked seq in this slot */

			for (q = s ? s : SLOTS; q < h->nw; q += SLOTS)
				if (h->wst[q] == ST_ACKED)
					last = q;
			if (last)
				acked++;
			if (got < 0) {
				printf("FAIL data: node %u slot %" PRIu64 " holds no write of it\n",
				       n, s);
				t->failures++;
			} else if (got == (int64_t)last) {
				continue;
			} else if ((uint64_t)got > last && (uint64_t)got < h->nw &&
				   (uint64_t)got % SLOTS == s &&
				   (h->wst[got] == ST_TRIED ||
				    h->wst[got] == ST_FAILED)) {
				landed++;	/* failed or cut short, yet done */
			} else {
				printf("FAIL data: node %u slot %" PRIu64 " holds write %" PRId64
				       ", the last acknowledged one is %" PRIu64 "\n",
				       n, s, got, last);
				lost++;
				t->failures++;
			}
		}
	}
	printf("data: %" PRIu64 " slots with an acknowledged write, %" PRIu64
	       " lost, %" PRIu64 " hold a write that was not acknowledged\n",
	       acked, lost, landed);
}

/* The counter against the acknowledged increments. */
static void check_counter(const uint8_t *ctr, struct hist *hs,
			  unsigned int nodes, struct tally *t)
{
	uint64_t count, tag, v, s, acked = 0, landed = 0, missing = 0;
	unsigned int n, bad = 0;

	memcpy(&count, ctr + CTR_COUNT_OFF, sizeof(count));
	if (count > CTR_MAX) {
		printf("FAIL counter: %" PRIu64 " is past its end\n", count);
		t->failures++;
		return;
	}
	for (v = 1; v <= count; v++) {
		memcpy(&tag, ctr + CTR_TAG_OFF(v), sizeof(tag));
		n = tag >> 48;
		s = tag & 0xffffffffffffULL;
		if (!n || n > nodes || s >= hs[n].ni || !hs[n].ist[s] ||
		    hs[n].ival[s] != v) {
			if (bad++ < 10)
				printf("FAIL counter: increment %" PRIu64 " has tag %#" PRIx64
				       ", which no worker tried with that value\n", v, tag);
			t->failures++;
			continue;
		}
		if (hs[n].ist[s] == ST_ACKED)
			acked++;
		else
			landed++;
	}
	/* Every acknowledged increment must be in there. */
	for (n = 1; n <= nodes; n++) {
		for (s = 1; s < hs[n].ni; s++) {
			if (hs[n].ist[s] != ST_ACKED)
				continue;
			v = hs[n].ival[s];
			tag = 0;
			if (v <= count)
				memcpy(&tag, ctr + CTR_TAG_OFF(v), sizeof(tag));
			if (tag != (((uint64_t)n << 48) | s)) {
				if (missing++ < 10)
					printf("FAIL counter: node %u's acknowledged increment %" PRIu64
					       " (to %" PRIu64 ") is not in the counter\n", n, s, v);
				t->failures++;
			}
		}
	}
	printf("counter: %" PRIu64 " = %" PRIu64 " acknowledged increments + %" PRIu64
	       " whose last write failed yet landed; %" PRIu64 " acknowledged ones missing\n",
	       count, acked, landed, missing);
}

static int verify(unsigned int nodes, int argc, char **argv)
{
	static struct hist hs[SOAK_MAX_NODES];
	static struct tally t;
	uint8_t *data = malloc(DATA_SIZE), *ctr = malloc(CTR_SIZE);
	uint64_t ops = 0, errs = 0;
	int dh, ch, ret, i;
	unsigned int k, e;

	if (argc < 2)
		die("usage: soak_worker verify NODES BOUND_S LOG...");
	bound_s = strtoul(argv[0], NULL, 10);
	if (!data || !ctr || !bound_s)
		die("bad bound or out of memory");
	dh = lite_ask(SOAK_HOME, SOAK_ID_DATA, LITE_PERM_READ, SOAK_PASSWORD);
	ch = lite_ask(SOAK_HOME, SOAK_ID_CTR, LITE_PERM_READ, SOAK_PASSWORD);
	if (dh < 0 || ch < 0)
		die("asking for the home's LMRs: %s, %s (is 'home' running?)",
		    errname(-dh), errname(-ch));
	ret = lite_read(dh, 0, data, DATA_SIZE, SOAK_PASSWORD, LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_read(ch, 0, ctr, CTR_SIZE, SOAK_PASSWORD,
				LITE_PRIO_NORMAL);
	if (ret)
		die("reading the home's LMRs: %s", errname(-ret));
	for (i = 1; i < argc; i++)
		replay(argv[i], hs, &t);

	for (k = 0; k < NR_KINDS; k++) {
		ops += t.ok[k] + t.err[k];
		errs += t.err[k];
	}
	printf("operations: %" PRIu64 " (%" PRIu64 " failed) in %" PRIu64
	       " worker runs (%" PRIu64 " stopped, %" PRIu64 " saw their node leave)\n",
	       ops, errs, t.starts, t.stops, t.lefts);
	for (k = 0; k < NR_KINDS; k++) {
		if (!t.ok[k] && !t.err[k])
			continue;
		printf("  %-7s %8" PRIu64 " ok %6" PRIu64 " failed  max %" PRIu64 " ms",
		       kind_name[k], t.ok[k], t.err[k], t.max_ms[k]);
		for (e = 1; e < 256; e++)
			if (t.errs[k][e])
				printf("  %s=%" PRIu64, errname(e), t.errs[k][e]);
		printf("\n");
	}
	printf("errors by errno:");
	for (e = 1; e < 256; e++) {
		uint64_t sum = 0;

		for (k = 0; k < NR_KINDS; k++)
			sum += t.errs[k][e];
		if (sum)
			printf(" %s=%" PRIu64, errname(e), sum);
	}
	printf("%s\n", errs ? "" : " none");
	printf("hung calls (past their bound of %u s, lock %u s): %" PRIu64
	       " returned late, %" PRIu64 " never returned\n", bound_s,
	       bound_ms(K_LOCK, bound_s) / 1000, t.hung, t.unreturned);
	printf("bad read-backs or echoes: %" PRIu64 "\n", t.bad);
	check_data(data, hs, nodes, &t);
	check_counter(ctr, hs, nodes, &t);
	t.failures += t.bad + t.hung + t.unreturned;
	printf("%s: %u invariant violation(s)\n", t.failures ? "FAIL" : "PASS",
	       t.failures);
	return t.failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int nodes;

	if (argc < 3)
		die("usage: soak_worker home|run|verify NODES ...");
	nodes = strtoul(argv[2], NULL, 10);
	if (!nodes || nodes >= SOAK_MAX_NODES)
		die("NODES must be 1 .. %d", SOAK_MAX_NODES - 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "home"))
		return home(nodes);
	if (!strcmp(argv[1], "run") && argc >= 4) {
		optind = 4;
		return run(nodes, argv[3], argc, argv);
	}
	if (!strcmp(argv[1], "verify"))
		return verify(nodes, argc - 3, argv + 3);
	die("usage: soak_worker home|run|verify NODES ...");
}
