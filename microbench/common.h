/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What every microbench program shares: the command line, the CSV output
 * (provenance comments, one header, one row per measurement point and rep),
 * the latency statistics and the clock. See README.md for the format.
 */
#ifndef MICROBENCH_COMMON_H
#define MICROBENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "opt_table.h"

#define BENCH_MAX_SIZES		64
#define BENCH_MAX_SIZE		(1ULL << 30)
#define BENCH_DEFAULT_PORT	18515
#define BENCH_CACHE_LINE	64

/* bench_prog.flags: which of the optional common options a program takes. */
#define BENCH_OPT_RDMA		0x1	/* --dev, --gid-index */

struct bench_prog {
	const char *name;
	const char *synopsis;	/* lines after "usage: ", '\n'-separated */
	const char *notes;	/* printed after the option list */
	unsigned int flags;	/* BENCH_OPT_* */
	const struct opt_def *opts;	/* own options, end with name NULL */
	/* Prints the program's parameters with bench_meta(). */
	void (*params)(void *ctx);
	void *ctx;		/* where opts' values go */
};

struct bench_cfg {
	const struct bench_prog *prog;
	const char *peer;		/* NULL: server */
	uint64_t sizes[BENCH_MAX_SIZES];
	unsigned int nsizes;
	bool sizes_given;
	bool duration_given;
	uint64_t iters;
	double duration;		/* s */
	double warmup;			/* s */
	uint64_t rate;			/* offered calls/s, all threads; 0: closed loop */
	unsigned int threads;
	unsigned int reps;
	uint64_t seed;
	unsigned int port;
	double timeout;			/* s, connection setup */
	double session_timeout;		/* s, a server's whole session */
	const char *dev;		/* NULL: first / the one rdma_cm picks */
	unsigned int gid_index;
	bool gid_index_given;
	unsigned int qp_timeout;	/* 0: rdma_cm's default */
	unsigned int qp_retry;
	const char *samples;		/* --samples FILE, or NULL */
};

enum bench_kind { BENCH_LAT, BENCH_TPUT };

/* One measurement point: a row's key columns. */
struct bench_point {
	const char *bench;
	const char *op;
	uint64_t size;
	uint64_t param;
	unsigned int rep;
};

/* Sorted-sample statistics, in ns; see bench_stats() for the indices. */
struct bench_stats {
	uint64_t min, median, p99, p999, max;
};

/* Parses argv; exits 0 after --help and 2 after a usage error. */
void bench_parse(struct bench_cfg *cfg, const struct bench_prog *prog,
		 int argc, char **argv);
/* A usage error found after parsing: message and usage on stderr, exit 2. */
void bench_usage_error(const struct bench_cfg *cfg, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* A run-time failure: "<program>: <message>" on stderr, exit 1. */
void bench_die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* A number in [min, max] for opt: 0, or -1 after saying what is wrong. */
int bench_parse_u64(const char *opt, const char *arg, uint64_t min,
		    uint64_t max, uint64_t *val);
/* Fills cfg->sizes from a list unless --size was given; the list is ours. */
void bench_default_sizes(struct bench_cfg *cfg, const char *list);
/* The largest of cfg->sizes: what a buffer for every point must hold. */
uint64_t bench_max_size(const struct bench_cfg *cfg);

/* The first address of host, port; its length. Exits 1 when there is none. */
socklen_t bench_resolve(const char *host, unsigned int port,
			struct sockaddr_storage *ss);

/* Output: provenance, then one header, then rows; all on stdout. */
void bench_begin(const struct bench_cfg *cfg, const char *role,
		 const char *device);
void bench_meta(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_header(enum bench_kind kind);
/* One latency row; with --samples, ns[0..n) in the order taken also go to
 * FILE, one "bench,op,size,param,rep,ns" line each. Sorts ns in place. */
void bench_lat_row(const struct bench_point *pt, uint64_t *ns, size_t n);
void bench_tput_row(const struct bench_point *pt, double seconds,
		    uint64_t ops);

/* Sorts ns[0..n) in place; n > 0. */
void bench_stats(uint64_t *ns, size_t n, struct bench_stats *st);

/* Zeroed, cache-line aligned: per-thread state that must not share
 * lines with its neighbours' (false sharing skews throughput). */
void *bench_zalloc(size_t n, size_t size);

/*
 * Offered load: each of cfg->threads callers calls bench_pace() before a
 * call, which sleeps until the caller's next slot (cfg->rate / threads
 * slots per second, callers staggered). A caller that falls behind starts
 * afresh instead of catching up in a burst. No-op with cfg->rate == 0.
 */
struct bench_pacer {
	uint64_t interval;	/* ns between one caller's calls; 0: no pacing */
	uint64_t next;
};

void bench_pacer_init(struct bench_pacer *p, const struct bench_cfg *cfg,
		      unsigned int thread);
void bench_pace(struct bench_pacer *p);

uint64_t bench_now_ns(void);
/* CPU time (user + system) this process has used, in ns. */
uint64_t bench_cpu_ns(void);

static inline uint64_t bench_sec_ns(double s)
{
	return (uint64_t)(s * 1e9);
}

#endif /* MICROBENCH_COMMON_H */
