// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite_bench: LITE from user space (liblite), the counterpart of
 * verbs_bench on the same hosts. The peer is a LITE node id, not an
 * address: the cluster is already joined (lite-ae install).
 *
 *   lite_bench --mode lat  --op write|read  NODE   LMR on NODE, one op at a time
 *   lite_bench --mode lat  --op fadd|cas    NODE   atomics on an atomic LMR
 *                                                  on NODE (size: 8 only)
 *   lite_bench --mode tput --op write       NODE   random 64 B-aligned offsets
 *   lite_bench --mode reg                   NODE   alloc + free of each size
 *   lite_bench --mode rpc                          server: echo on --lite-port
 *   lite_bench --mode rpc                   NODE   client: latency, or with
 *                                                  --duration, throughput
 *   lite_bench --mode ctrl                         holder: a published LMR
 *   lite_bench --mode ctrl            NODE[,NODE]  control path: a fresh
 *                                                  process's first write to
 *                                                  each NODE's LMR, by step
 *
 * Data operations use a zero-copy buffer (lite_alloc_buffer), like the
 * registered buffer of a verbs program. tput with --depth N posts instead
 * (lite_post_write/lite_post_read, reaped with lite_poll): N operations in
 * flight per thread, like verbs_bench --depth (those go through LITE's
 * bounce buffers, not the zero-copy path).
 */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lite.h"
#include "steps.h"

#define LMR_PASSWORD	4711
#define ALIGN_OFF	64
#define QUIT_BYTE	'Q'
/* ctrl: what the holder publishes its LMR under, on its own node. */
#define CTRL_ID		0x6374726cULL	/* "ctrl" */
#define CTRL_MAX_PEERS	63

enum { MODE_LAT, MODE_TPUT, MODE_REG, MODE_RPC, MODE_CTRL };
enum { OP_WRITE, OP_READ, OP_FADD, OP_CAS };

static const char *const mode_names[] = { "lat", "tput", "reg", "rpc", "ctrl" };
static const char *const op_names[] = { "write", "read", "fadd", "cas" };
static const char *const prio_names[] = { "normal", "high", "low" };

#define MAX_DEPTH	64	/* per thread */

struct lite_cfg {
	int mode;
	int op;
	uint64_t mr_total;
	unsigned int mr_count;
	int prio;
	unsigned int lite_port;
	const char *param_name;
	unsigned int depth;	/* tput: posted per thread; 0: synchronous */
	unsigned int rep;	/* ctrl: the rep column */
	unsigned int ticks_ms;	/* tput: progress lines every so often; 0: none */
};

/* Where lite_opts' values go. */
#define LC	struct lite_cfg

static const struct opt_def lite_opts[] = {
	{ "mode", 'm', "MODE", "lat, tput, reg, rpc or ctrl (default lat)",
	  OPT_CHOICE(LC, mode, mode_names) },
	{ "op", 'o', "OP", "write or read (default write); lat also fadd "
	  "or cas (fetch-and-add, compare-and-swap of 8 bytes)",
	  OPT_CHOICE(LC, op, op_names) },
	{ "mr-total", 0, "BYTES", "tput: bytes of LMRs written "
	  "at random (default 1M)",
	  OPT_BYTES(LC, mr_total, 4096, LITE_LMR_MAX_SIZE * 4) },
	{ "mr-count", 0, "N", "tput: LMRs the total is split "
	  "into (default 1)", OPT_UINT(LC, mr_count, 1, 65536) },
	{ "prio", 0, "P", "normal, high or low (default normal)",
	  OPT_CHOICE(LC, prio, prio_names) },
	{ "lite-port", 0, "N", "rpc: LITE port 0..63 (default 1)",
	  OPT_UINT(LC, lite_port, 0, LITE_MAX_PORT - 1) },
	{ "param-name", 0, "NAME", "tput: which value the param "
	  "column holds: mr-total, mr-count or threads (default mr-total)",
	  OPT_STR(LC, param_name) },
	{ "depth", 0, "N", "tput: operations each thread keeps in "
	  "flight, posted without waiting (1..64; default 0: synchronous)",
	  OPT_UINT(LC, depth, 0, MAX_DEPTH) },
	{ "rep", 0, "N", "ctrl: the number in the rep column "
	  "(default 1)", OPT_UINT(LC, rep, 0, 1000000) },
	{ "ticks-ms", 0, "MS", "tput: every MS milliseconds print "
	  "'# tick=NS,OPS' (CLOCK_MONOTONIC, operations completed so far, "
	  "warm-up included), to line the rate up with other programs' "
	  "windows (default 0: none)", OPT_UINT(LC, ticks_ms, 0, 60000) },
	{ .name = NULL }
};

static void lite_params(void *ctx)
{
	struct lite_cfg *lc = ctx;

	bench_meta("mode", "%s", mode_names[lc->mode]);
	bench_meta("op", "%s", op_names[lc->op]);
	bench_meta("mr_total", "%" PRIu64, lc->mr_total);
	bench_meta("mr_count", "%u", lc->mr_count);
	bench_meta("prio", "%s", prio_names[lc->prio]);
	bench_meta("lite_port", "%u", lc->lite_port);
	bench_meta("depth", "%u", lc->depth);
	if (lc->mode == MODE_TPUT && lc->ticks_ms)
		bench_meta("ticks_ms", "%u", lc->ticks_ms);
	if (lc->mode == MODE_CTRL)
		bench_meta("rep", "%u", lc->rep);
}

static struct lite_cfg lc = {
	.mr_total = 1 << 20, .mr_count = 1, .lite_port = 1,
	.param_name = "mr-total", .rep = 1,
};

static const struct bench_prog lite_prog = {
	.name = "lite_bench",
	.synopsis = "--mode lat|tput|reg [OPTIONS] NODE\n"
		    "--mode rpc [OPTIONS] [NODE]\n"
		    "--mode ctrl [OPTIONS] [NODE[,NODE...]]",
	.notes = "NODE is a LITE node id of the joined cluster. rpc without\n"
		 "NODE serves echoes on --lite-port until a client says quit.\n"
		 "ctrl without NODE allocates an LMR of the largest size on\n"
		 "this node and publishes it until SIGTERM; with NODEs, a\n"
		 "fresh process asks each NODE for it and writes once, every\n"
		 "step timed (rows: bench,step,peer,peers,rep,start_us,us).\n",
	.opts = lite_opts,
	.params = lite_params,
	.ctx = &lc,
};

static struct bench_cfg cfg;
static unsigned int node;

static void *zc_buffer(size_t size)
{
	void *p = lite_alloc_buffer(size);

	if (!p)
		bench_die("lite_alloc_buffer(%zu): %s", size, strerror(errno));
	memset(p, 0xa5, size);
	return p;
}

static int do_op(int lh, uint64_t off, void *buf, uint64_t size)
{
	uint64_t old;

	switch (lc.op) {
	case OP_WRITE:
		return lite_write(lh, off, buf, size, LMR_PASSWORD, lc.prio);
	case OP_READ:
		return lite_read(lh, off, buf, size, LMR_PASSWORD, lc.prio);
	case OP_FADD:
		return lite_fetch_add(lh, off, 1, &old, LMR_PASSWORD);
	default:	/* a swap that happens every time: 0 stays 0 */
		return lite_compare_swap(lh, off, 0, 0, &old, LMR_PASSWORD);
	}
}

/* ---- lat ------------------------------------------------------------------ */

static void run_lat(void)
{
	uint64_t max = bench_max_size(&cfg), *ns, t, i;
	unsigned int s, rep;
	void *buf;
	int lh, ret;

	lh = lite_alloc(node, max, lc.op >= OP_FADD ? LITE_ALLOC_ATOMIC : 0,
			LMR_PASSWORD);
	if (lh < 0)
		bench_die("lite_alloc(node %u, %" PRIu64 "): %s", node, max,
			  strerror(-lh));
	buf = zc_buffer(max);
	ns = calloc(cfg.iters, sizeof(*ns));
	if (!ns)
		bench_die("out of memory");
	bench_header(BENCH_LAT);
	for (s = 0; s < cfg.nsizes; s++) {
		for (rep = 0; rep < cfg.reps; rep++) {
			struct bench_point pt = {
				"lite_lat", op_names[lc.op], cfg.sizes[s], 0, rep + 1,
			};
			uint64_t end = bench_now_ns() + bench_sec_ns(cfg.warmup);

			while (bench_now_ns() < end)
				do_op(lh, 0, buf, cfg.sizes[s]);
			for (i = 0; i < cfg.iters; i++) {
				t = bench_now_ns();
				ret = do_op(lh, 0, buf, cfg.sizes[s]);
				ns[i] = bench_now_ns() - t;
				if (ret < 0)
					bench_die("%s of %" PRIu64 " bytes: %s",
						  op_names[lc.op], cfg.sizes[s],
						  strerror(-ret));
			}
			bench_lat_row(&pt, ns, cfg.iters);
		}
	}
	free(ns);
	lite_free(lh);
}

/* ---- tput ------------------------------------------------------------------ */

struct tput_thread {
	pthread_t tid;
	int *lhs;
	uint64_t per_lmr;
	uint64_t size;
	uint64_t seed;
	uint64_t warm_end, end;
	uint64_t ops;
	void *buf;
	int err;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int post_op(int lh, uint64_t off, void *buf, uint64_t size,
		   uint64_t id)
{
	return lc.op == OP_WRITE ?
	       lite_post_write(lh, off, buf, size, LMR_PASSWORD, id) :
	       lite_post_read(lh, off, buf, size, LMR_PASSWORD, id);
}

/*
 * Posted operations go to one queue per process, so a thread reaps the
 * others' completions too: the process keeps depth x threads in flight
 * (like --threads verbs threads with --depth each), and an operation
 * counts for whichever thread reaps it inside the window.
 */
static atomic_uint tput_in_flight;
/* Operations completed by every thread, warm-up included (--ticks-ms). */
static atomic_uint_fast64_t tput_done;

static int tput_reap(struct tput_thread *t, int timeout_ms)
{
	struct lite_completion c[MAX_DEPTH];
	uint64_t now;
	int n, i;

	n = lite_poll(c, MAX_DEPTH, timeout_ms);
	if (n <= 0)
		return n;
	atomic_fetch_sub(&tput_in_flight, n);
	for (i = 0; i < n; i++)
		if (c[i].status)
			return c[i].status;
	if (lc.ticks_ms)
		atomic_fetch_add_explicit(&tput_done, n, memory_order_relaxed);
	now = bench_now_ns();
	if (now >= t->warm_end && now < t->end)
		t->ops += n;
	return 0;
}

static void tput_worker_posted(struct tput_thread *t)
{
	uint64_t slots = (t->per_lmr - t->size) / ALIGN_OFF + 1, r;
	unsigned int limit = lc.depth * cfg.threads;
	int ret = 0;

	while (!ret && bench_now_ns() < t->end) {
		if (atomic_fetch_add(&tput_in_flight, 1) >= limit) {
			atomic_fetch_sub(&tput_in_flight, 1);
			ret = tput_reap(t, 100);
			continue;
		}
		r = xorshift(&t->seed);
		ret = post_op(t->lhs[r % lc.mr_count],
			      (r >> 16) % slots * ALIGN_OFF, t->buf, t->size, r);
		if (ret) {
			atomic_fetch_sub(&tput_in_flight, 1);
			ret = ret == -EAGAIN ? tput_reap(t, 100) : ret;
		}
	}
	if (ret)
		t->err = -ret;
	/* Drain: completions after the window count for nobody. */
	ret = lite_fence(30000);
	if (ret && !t->err)
		t->err = -ret;
	atomic_store(&tput_in_flight, 0);
}

static void *tput_worker(void *arg)
{
	struct tput_thread *t = arg;
	uint64_t slots = (t->per_lmr - t->size) / ALIGN_OFF + 1, r, now;
	int ret;

	if (lc.depth) {
		tput_worker_posted(t);
		return NULL;
	}
	while ((now = bench_now_ns()) < t->end) {
		r = xorshift(&t->seed);
		ret = do_op(t->lhs[r % lc.mr_count],
			    (r >> 16) % slots * ALIGN_OFF, t->buf, t->size);
		if (ret < 0) {
			t->err = -ret;
			break;
		}
		if (lc.ticks_ms)	/* a shared counter only when asked */
			atomic_fetch_add_explicit(&tput_done, 1,
						  memory_order_relaxed);
		if (now >= t->warm_end)
			t->ops++;
	}
	return NULL;
}

/* --ticks-ms: the progress of every thread until @end, one line per tick. */
static void tput_ticks(uint64_t end)
{
	struct timespec ts = {
		.tv_sec = lc.ticks_ms / 1000,
		.tv_nsec = (long)(lc.ticks_ms % 1000) * 1000000,
	};
	uint64_t now;

	do {
		now = bench_now_ns();
		printf("# tick=%" PRIu64 ",%" PRIu64 "\n", now,
		       (uint64_t)atomic_load_explicit(&tput_done,
						      memory_order_relaxed));
		fflush(stdout);
		nanosleep(&ts, NULL);
	} while (now < end);
}

static uint64_t tput_param(void)
{
	if (!strcmp(lc.param_name, "mr-count"))
		return lc.mr_count;
	if (!strcmp(lc.param_name, "threads"))
		return cfg.threads;
	return lc.mr_total;
}

static void run_tput(void)
{
	uint64_t per_lmr = lc.mr_total / lc.mr_count, ops, start;
	struct tput_thread *th;
	unsigned int s, rep, i;
	int *lhs;

	lhs = calloc(lc.mr_count, sizeof(*lhs));
	th = calloc(cfg.threads, sizeof(*th));
	if (!lhs || !th)
		bench_die("out of memory");
	for (i = 0; i < lc.mr_count; i++) {
		lhs[i] = lite_alloc(node, per_lmr, 0, LMR_PASSWORD);
		if (lhs[i] < 0)
			bench_die("lite_alloc #%u of %" PRIu64 " bytes on node %u: %s",
				  i, per_lmr, node, strerror(-lhs[i]));
	}
	bench_header(BENCH_TPUT);
	for (s = 0; s < cfg.nsizes; s++) {
		if (cfg.sizes[s] > per_lmr)
			bench_die("size %" PRIu64 " above the LMR size %" PRIu64,
				  cfg.sizes[s], per_lmr);
		for (rep = 0; rep < cfg.reps; rep++) {
			struct bench_point pt = {
				"lite_tput", op_names[lc.op], cfg.sizes[s],
				tput_param(), rep + 1,
			};

			start = bench_now_ns();
			for (i = 0; i < cfg.threads; i++) {
				th[i] = (struct tput_thread) {
					.lhs = lhs, .per_lmr = per_lmr,
					.size = cfg.sizes[s],
					.seed = cfg.seed * 7919 + i * 104729 + rep + 1,
					.warm_end = start + bench_sec_ns(cfg.warmup),
					.end = start + bench_sec_ns(cfg.warmup + cfg.duration),
					.buf = zc_buffer(cfg.sizes[s]),
				};
				if (pthread_create(&th[i].tid, NULL, tput_worker, &th[i]))
					bench_die("pthread_create failed");
			}
			if (lc.ticks_ms)
				tput_ticks(th[0].end);
			for (ops = 0, i = 0; i < cfg.threads; i++) {
				pthread_join(th[i].tid, NULL);
				if (th[i].err)
					bench_die("%s: %s", op_names[lc.op],
						  strerror(th[i].err));
				ops += th[i].ops;
				lite_free_buffer(th[i].buf, cfg.sizes[s]);
			}
			bench_tput_row(&pt, cfg.duration, ops);
		}
	}
	for (i = 0; i < lc.mr_count; i++)
		lite_free(lhs[i]);
	free(lhs);
	free(th);
}

/* ---- reg: making memory remotely accessible ---------------------------------- */

/* As verbs_bench -m reg: untimed alloc/free pairs for --warmup seconds
 * before a size's timed ones, at least one unless --warmup 0. */
static void reg_warm_up(uint64_t size)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(cfg.warmup);
	int lh, ret;

	if (cfg.warmup <= 0)
		return;
	do {
		lh = lite_alloc(node, size, 0, LMR_PASSWORD);
		if (lh < 0)
			bench_die("warm-up lite_alloc(%" PRIu64 "): %s", size,
				  strerror(-lh));
		ret = lite_free(lh);
		if (ret < 0)
			bench_die("warm-up lite_free: %s", strerror(-ret));
	} while (bench_now_ns() < end);
}

static void run_reg(void)
{
	uint64_t *alloc_ns, *free_ns, t;
	unsigned int s, rep;
	int lh, ret;

	alloc_ns = calloc(cfg.reps, sizeof(*alloc_ns));
	free_ns = calloc(cfg.reps, sizeof(*free_ns));
	if (!alloc_ns || !free_ns)
		bench_die("out of memory");
	bench_header(BENCH_LAT);
	for (s = 0; s < cfg.nsizes; s++) {
		struct bench_point pa = { "lite_reg", "alloc", cfg.sizes[s], 0, 0 };
		struct bench_point pf = { "lite_reg", "free", cfg.sizes[s], 0, 0 };

		reg_warm_up(cfg.sizes[s]);
		for (rep = 0; rep < cfg.reps; rep++) {
			t = bench_now_ns();
			lh = lite_alloc(node, cfg.sizes[s], 0, LMR_PASSWORD);
			alloc_ns[rep] = bench_now_ns() - t;
			if (lh < 0)
				bench_die("lite_alloc(%" PRIu64 "): %s",
					  cfg.sizes[s], strerror(-lh));
			t = bench_now_ns();
			ret = lite_free(lh);
			free_ns[rep] = bench_now_ns() - t;
			if (ret < 0)
				bench_die("lite_free: %s", strerror(-ret));
		}
		bench_lat_row(&pa, alloc_ns, cfg.reps);
		bench_lat_row(&pf, free_ns, cfg.reps);
	}
	free(alloc_ns);
	free(free_ns);
}

/* ---- rpc --------------------------------------------------------------------- */

static void rpc_server(void)
{
	uint64_t desc, requests = 0, cpu0;
	unsigned int src;
	void *buf = zc_buffer(LITE_RPC_MAX_MSG);
	int len, ret;

	ret = lite_rpc_register(lc.lite_port, LITE_RPC_MAX_MSG, "lite_bench");
	if (ret < 0)
		bench_die("register port %u: %s", lc.lite_port, strerror(-ret));
	printf("# ready\n");
	fflush(stdout);
	len = lite_rpc_recv(lc.lite_port, buf, LITE_RPC_MAX_MSG, &desc, &src,
			    0, lc.prio);
	/* From the first request, as verbs_bench counts from the first connection. */
	cpu0 = bench_cpu_ns();
	while (len > 0 && desc != LITE_DESC_NO_REPLY) {
		requests++;
		len = lite_rpc_reply_recv(desc, buf, len, lc.lite_port, buf,
					  LITE_RPC_MAX_MSG, &desc, &src, lc.prio);
	}
	if (len < 0)
		bench_die("receive: %s", strerror(-len));
	printf("# requests=%" PRIu64 "\n", requests);
	if (requests)
		printf("# server_cpu_us_per_req=%.2f\n",
		       (bench_cpu_ns() - cpu0) / 1e3 / requests);
}

struct rpc_thread {
	pthread_t tid;
	unsigned int index;
	uint64_t size;
	uint64_t warm_end, end;
	uint64_t ops;
	int err;
};

static void *rpc_worker(void *arg)
{
	struct rpc_thread *t = arg;
	void *req = zc_buffer(t->size), *rep = zc_buffer(t->size);
	struct bench_pacer pace;
	uint64_t now;
	int ret;

	bench_pacer_init(&pace, &cfg, t->index);
	for (;;) {
		bench_pace(&pace);
		now = bench_now_ns();
		if (now >= t->end)
			break;
		ret = lite_rpc_call(node, lc.lite_port, req, t->size, rep,
				    t->size, lc.prio);
		if (ret < 0) {
			t->err = -ret;
			break;
		}
		if (now >= t->warm_end)
			t->ops++;
	}
	lite_free_buffer(req, t->size);
	lite_free_buffer(rep, t->size);
	return NULL;
}

/* Untimed calls for --warmup seconds before each latency rep. */
static void rpc_warm_up(void *req, void *reply, uint64_t size)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(cfg.warmup);
	int ret;

	while (bench_now_ns() < end) {
		ret = lite_rpc_call(node, lc.lite_port, req, size, reply, size,
				    lc.prio);
		if (ret != (int)size)
			bench_die("warm-up rpc of %" PRIu64 " bytes: %s", size,
				  ret < 0 ? strerror(-ret) : "short reply");
	}
}

static void rpc_client(void)
{
	struct rpc_thread *th = calloc(cfg.threads, sizeof(*th));
	uint64_t *ns = calloc(cfg.iters, sizeof(*ns)), t, i, ops, start;
	unsigned int s, rep, k;
	char quit = QUIT_BYTE;
	void *req, *reply;
	int ret;

	if (!th || !ns)
		bench_die("out of memory");
	ret = lite_rpc_query_port(node, lc.lite_port);
	if (ret < 0)
		bench_die("query port %u on node %u: %s", lc.lite_port, node,
			  strerror(-ret));
	bench_header(cfg.duration_given ? BENCH_TPUT : BENCH_LAT);
	for (s = 0; s < cfg.nsizes; s++) {
		for (rep = 0; rep < cfg.reps; rep++) {
			struct bench_point pt = {
				"lite_rpc", "rpc", cfg.sizes[s],
				cfg.duration_given ? cfg.threads : 0, rep + 1,
			};

			if (cfg.duration_given) {
				start = bench_now_ns();
				for (k = 0; k < cfg.threads; k++) {
					th[k] = (struct rpc_thread) {
						.index = k,
						.size = cfg.sizes[s],
						.warm_end = start + bench_sec_ns(cfg.warmup),
						.end = start + bench_sec_ns(cfg.warmup + cfg.duration),
					};
					if (pthread_create(&th[k].tid, NULL, rpc_worker, &th[k]))
						bench_die("pthread_create failed");
				}
				for (ops = 0, k = 0; k < cfg.threads; k++) {
					pthread_join(th[k].tid, NULL);
					if (th[k].err)
						bench_die("rpc: %s", strerror(th[k].err));
					ops += th[k].ops;
				}
				bench_tput_row(&pt, cfg.duration, ops);
				continue;
			}
			req = zc_buffer(cfg.sizes[s]);
			reply = zc_buffer(cfg.sizes[s]);
			rpc_warm_up(req, reply, cfg.sizes[s]);
			start = bench_now_ns();
			for (i = 0; i < cfg.iters; i++) {
				t = bench_now_ns();
				ret = lite_rpc_call(node, lc.lite_port, req,
						    cfg.sizes[s], reply,
						    cfg.sizes[s], lc.prio);
				ns[i] = bench_now_ns() - t;
				if (ret != (int)cfg.sizes[s])
					bench_die("rpc of %" PRIu64 " bytes: %s",
						  cfg.sizes[s],
						  ret < 0 ? strerror(-ret) : "short reply");
			}
			bench_lat_row(&pt, ns, cfg.iters);
			/* When the timed calls ran (CLOCK_MONOTONIC), for qos. */
			printf("# window=%" PRIu64 ",%" PRIu64 "\n", start,
			       bench_now_ns());
			lite_free_buffer(req, cfg.sizes[s]);
			lite_free_buffer(reply, cfg.sizes[s]);
		}
	}
	lite_rpc_send(node, lc.lite_port, &quit, 1, LITE_PRIO_NORMAL);
	free(th);
	free(ns);
}

/* ---- ctrl: the control path ------------------------------------------------ */

static volatile sig_atomic_t ctrl_stop;

static void on_signal(int sig)
{
	(void)sig;
	ctrl_stop = 1;
}

/*
 * The holder: an LMR on this node, published under CTRL_ID for any
 * process that knows the password, until SIGTERM, SIGINT or SIGHUP.
 */
static void ctrl_holder(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t size = bench_max_size(&cfg);
	sigset_t block, old;
	int lh, ret;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	/* Blocked until sigsuspend(): a signal cannot slip in between. */
	if (sigprocmask(SIG_BLOCK, &block, &old) ||
	    sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		bench_die("signals: %s", strerror(errno));
	lh = lite_alloc((unsigned int)lite_node_id(), size, 0, LMR_PASSWORD);
	if (lh < 0)
		bench_die("lite_alloc(this node, %" PRIu64 "): %s", size,
			  strerror(-lh));
	ret = lite_publish(lh, CTRL_ID, LITE_PERM_READ | LITE_PERM_WRITE,
			   LMR_PASSWORD);
	if (ret < 0)
		bench_die("lite_publish(%#llx): %s", CTRL_ID, strerror(-ret));
	bench_meta("lmr_bytes", "%" PRIu64, size);
	bench_meta("identifier", "%#llx", CTRL_ID);
	printf("# ready\n");
	fflush(stdout);
	while (!ctrl_stop)
		sigsuspend(&old);
	ret = lite_free(lh);
	if (ret < 0)
		bench_die("lite_free: %s", strerror(-ret));
	printf("# stopped\n");
}

static unsigned int parse_node(const char *s);

static void ctrl_client(void)
{
	unsigned int nodes[CTRL_MAX_PEERS], n = 0, i;
	uint64_t size = cfg.sizes[0];
	char *list, *save = NULL, *tok;
	void *buf;
	int me, lh, ret;

	list = strdup(cfg.peer);
	if (!list)
		bench_die("out of memory");
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == CTRL_MAX_PEERS)
			bench_usage_error(&cfg, "at most %d nodes",
					  CTRL_MAX_PEERS);
		nodes[n++] = parse_node(tok);
	}
	free(list);
	if (!n)
		bench_usage_error(&cfg, "NODE: none given");
	bench_steps_mark("args", 0);

	me = lite_node_id();	/* the library opens /dev/lite */
	if (me < 0)
		bench_die("/dev/lite: %s", me == -ENOTCONN ?
			  "this node has not joined a LITE cluster" :
			  strerror(-me));
	bench_steps_mark("open", 0);
	buf = lite_alloc_buffer(size);
	if (!buf)
		bench_die("lite_alloc_buffer(%" PRIu64 "): %s", size,
			  strerror(errno));
	memset(buf, 0xa5, size);
	bench_steps_mark("buffer", 0);

	for (i = 0; i < n; i++) {
		lh = lite_ask(nodes[i], CTRL_ID, LITE_PERM_WRITE, LMR_PASSWORD);
		if (lh < 0)
			bench_die("lite_ask(node %u, %#llx): %s%s", nodes[i],
				  CTRL_ID, strerror(-lh), lh == -EACCES ?
				  " (is lite_bench -m ctrl holding it?)" : "");
		bench_steps_mark("ask", i + 1);
		ret = lite_write(lh, 0, buf, size, LMR_PASSWORD,
				 LITE_PRIO_NORMAL);
		if (ret < 0)
			bench_die("lite_write to node %u: %s", nodes[i],
				  strerror(-ret));
		bench_steps_mark("write", i + 1);
	}

	bench_begin(&cfg, "client", "lite");
	bench_meta("lite_node", "%d", me);
	bench_meta("peers", "%u", n);
	bench_steps_print("lite_ctrl", n, lc.rep);
	lite_free_buffer(buf, size);
}

static unsigned int parse_node(const char *s)
{
	uint64_t v;

	if (bench_parse_u64("NODE", s, 1, 63, &v))
		bench_usage_error(&cfg, "NODE must be a LITE node id (1..63)");
	return v;
}

int main(int argc, char **argv)
{
	/* First: -m ctrl times everything from here (steps.h). */
	bench_steps_start();
	bench_parse(&cfg, &lite_prog, argc, argv);
	if (lc.mode == MODE_CTRL) {
		bench_steps_sizes(&cfg);
		if (cfg.peer) {
			ctrl_client();
			return 0;
		}
		if (lite_node_id() < 0)
			bench_die("this node has not joined a LITE cluster");
		bench_begin(&cfg, "server", "lite");
		bench_meta("lite_node", "%d", lite_node_id());
		ctrl_holder();
		return 0;
	}
	bench_default_sizes(&cfg, lc.mode == MODE_REG ?
			    "4K,64K,1M,16M,256M,1G" : "8,64,512,4K,64K");
	if (lc.mode != MODE_RPC && !cfg.peer)
		bench_usage_error(&cfg, "--mode %s needs NODE",
				  mode_names[lc.mode]);
	if (cfg.rate && (lc.mode != MODE_RPC || !cfg.peer ||
			 !cfg.duration_given))
		bench_usage_error(&cfg, "--rate paces rpc throughput runs "
				  "(--mode rpc NODE --duration SEC)");
	if (lc.mode == MODE_TPUT && lc.mr_total / lc.mr_count < 4096)
		bench_usage_error(&cfg, "--mr-total / --mr-count below 4 KiB");
	if (lc.op >= OP_FADD && (lc.mode != MODE_LAT || cfg.nsizes != 1 ||
				 cfg.sizes[0] != 8))
		bench_usage_error(&cfg, "--op %s needs --mode lat --sizes 8",
				  op_names[lc.op]);
	if (cfg.peer)
		node = parse_node(cfg.peer);
	if (lite_node_id() < 0)
		bench_die("this node has not joined a LITE cluster");
	bench_begin(&cfg, cfg.peer ? "client" : "server", "lite");
	bench_meta("lite_node", "%d", lite_node_id());
	bench_meta("target_node", "%u", node);
	switch (lc.mode) {
	case MODE_LAT:
		run_lat();
		break;
	case MODE_TPUT:
		run_tput();
		break;
	case MODE_REG:
		run_reg();
		break;
	default:
		if (cfg.peer)
			rpc_client();
		else
			rpc_server();
	}
	return 0;
}
