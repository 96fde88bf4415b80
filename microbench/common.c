// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Command line, CSV output and statistics shared by the programs: common.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

#include "common.h"

static const char *prog_name = "microbench";
static FILE *samples_fp;
/* The command line's; bench_parse_u64() reports as it does. */
static struct opt_parser parser = { .prog = "microbench" };

/* Where the common options' values go. */
#define CFG	struct bench_cfg

static const struct opt_def common_opts[] = {
	{ "help", 'h', NULL, "print this help and exit",
	  .type = OPT_T_OWN },
	{ "size", 's', "LIST",
	  "message sizes in bytes, comma-separated, K/M/G suffixes",
	  .type = OPT_T_OWN },
	{ "iters", 'n', "N", "timed operations per latency point and rep "
	  "(default 10000)", OPT_U64(CFG, iters, 1, 100000000) },
	{ "duration", 'D', "SEC", "measured window of a throughput point "
	  "(default 5)", OPT_SEC(CFG, duration, 1) },
	{ "warmup", 'w', "SEC", "untimed run before each rep (default 1)",
	  OPT_SEC(CFG, warmup, 0) },
	{ "threads", 't', "N", "client threads (default 1)",
	  OPT_UINT(CFG, threads, 1, 256) },
	{ "rate", 0, "OPS", "rpc throughput: offered calls per "
	  "second over all threads (default 0: as fast as replies come)",
	  OPT_U64(CFG, rate, 0, 10000000) },
	{ "seed", 0, "N", "seed of pseudo-random choices (default 1)",
	  OPT_U64(CFG, seed, 0, UINT64_MAX) },
	{ "reps", 'r', "N", "repetitions of each point, a row each "
	  "(default 3)", OPT_UINT(CFG, reps, 1, 1000) },
	{ "port", 'p', "PORT", "port of the connection setup (default 18515)",
	  OPT_UINT(CFG, port, 1, 65535) },
	{ "timeout", 0, "SEC", "bound on connection setup, "
	  "server: on waiting for its client (default 30)",
	  OPT_SEC(CFG, timeout, 1) },
	{ "session-timeout", 0, "SEC",
	  "server: bound on the whole client session (default 3600)",
	  OPT_SEC(CFG, session_timeout, 1) },
	{ "samples", 0, "FILE", "latency rows: also write "
	  "every sample to FILE (CSV: bench,op,size,param,rep,ns)",
	  OPT_STR(CFG, samples) },
	{ .name = NULL }
};

static const struct opt_def rdma_opts[] = {
	{ "dev", 'd', "NAME", "RDMA device (default: the first; with a peer, "
	  "the one rdma_cm routes to, checked against NAME)",
	  OPT_STR(CFG, dev) },
	{ "gid-index", 'g', "N", "GID index expected for RoCE (default 1); "
	  "rdma_cm picks the GID, this is checked and reported",
	  OPT_UINT(CFG, gid_index, 0, 255) },
	{ "qp-timeout", 0, "N", "local ACK timeout of the "
	  "RC QPs, 4.096 us * 2^N, 1..31 (default: rdma_cm's)",
	  OPT_UINT(CFG, qp_timeout, 1, 31) },
	{ "qp-retry", 0, "N", "transport retries of the RC "
	  "QPs, 0..7 (default 7)", OPT_UINT(CFG, qp_retry, 0, 7) },
	{ .name = NULL }
};

static __attribute__((format(printf, 1, 0)))
void vwarn(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

/* Synopsis only unless full: an error's usage should not bury the error. */
static void usage(FILE *f, const struct bench_prog *prog, bool full)
{
	const char *line = prog->synopsis;
	const char *lead = "usage:";

	while (*line) {
		size_t len = strcspn(line, "\n");

		fprintf(f, "%-6s %s %.*s\n", lead, prog->name, (int)len, line);
		line += len + (line[len] == '\n');
		lead = "";
	}
	if (!full) {
		fprintf(f, "Try '%s --help' for the options.\n", prog->name);
		return;
	}
	fprintf(f, "\nCommon options:\n");
	opt_help(f, common_opts, 30);
	if (prog->flags & BENCH_OPT_RDMA)
		opt_help(f, rdma_opts, 30);
	fprintf(f, "\n%s options:\n", prog->name);
	opt_help(f, prog->opts, 30);
	fprintf(f, "\n%s", prog->notes);
}

void bench_usage_error(const struct bench_cfg *cfg, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vwarn(fmt, ap);
		va_end(ap);
	}
	usage(stderr, cfg->prog, false);
	exit(2);
}

static int bad_value(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "%s: --%s %s: %s\n", prog_name, opt, arg, why);
	return -1;
}

int bench_parse_u64(const char *opt, const char *arg, uint64_t min,
		    uint64_t max, uint64_t *val)
{
	const struct opt_def o = {
		.name = opt, .type = OPT_T_U64, .min = min, .max = max,
	};

	return opt_set(&parser, &o, val, arg);
}

static int parse_sizes(const char *arg, struct bench_cfg *cfg)
{
	const char *p = arg;

	cfg->nsizes = 0;
	for (;;) {
		uint64_t v;

		if (cfg->nsizes == BENCH_MAX_SIZES)
			return bad_value("size", arg, "too many sizes");
		if (opt_bytes(p, &v, &p) || (*p && *p != ','))
			return bad_value("size", arg, "not a list of sizes");
		if (v < 1 || v > BENCH_MAX_SIZE)
			return bad_value("size", arg, "sizes are 1 to 1G");
		cfg->sizes[cfg->nsizes++] = v;
		if (!*p)
			return 0;
		p++;
	}
}

void bench_default_sizes(struct bench_cfg *cfg, const char *list)
{
	if (cfg->sizes_given)
		return;
	if (parse_sizes(list, cfg))
		abort();
}

uint64_t bench_max_size(const struct bench_cfg *cfg)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < cfg->nsizes; i++)
		if (cfg->sizes[i] > m)
			m = cfg->sizes[i];
	return m;
}

static void defaults(struct bench_cfg *cfg, const struct bench_prog *prog)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->prog = prog;
	cfg->iters = 10000;
	cfg->duration = 5;
	cfg->warmup = 1;
	cfg->threads = 1;
	cfg->reps = 3;
	cfg->seed = 1;
	cfg->port = BENCH_DEFAULT_PORT;
	cfg->timeout = 30;
	cfg->session_timeout = 3600;
	cfg->gid_index = 1;
	cfg->qp_retry = 7;
}

/* Whether these were given at all matters, not only their values. */
static void note_given(struct bench_cfg *cfg, int key)
{
	if (key == 's')
		cfg->sizes_given = true;
	if (key == 'D')
		cfg->duration_given = true;
	if (key == 'g')
		cfg->gid_index_given = true;
}

/* Whatever the option, the error's usage is the program's synopsis. */
static void parse_fail(const struct opt_parser *p)
{
	bench_usage_error(p->ctx, NULL);
}

void bench_parse(struct bench_cfg *cfg, const struct bench_prog *prog,
		 int argc, char **argv)
{
	const struct opt_def *o;

	prog_name = prog->name;
	/* Rows reach a log even when a script's timeout kills us. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	defaults(cfg, prog);
	parser = (struct opt_parser){
		.prog = prog->name, .fail = parse_fail, .ctx = cfg,
	};
	opt_add(&parser, common_opts, cfg);
	if (prog->flags & BENCH_OPT_RDMA)
		opt_add(&parser, rdma_opts, cfg);
	opt_add(&parser, prog->opts, prog->ctx);

	while ((o = opt_next(&parser, argc, argv))) {
		if (o->key == 'h') {
			usage(stdout, prog, true);
			exit(0);
		}
		if (o->key == 's' && parse_sizes(optarg, cfg))
			bench_usage_error(cfg, NULL);
		note_given(cfg, o->key);
	}
	if (argc - optind > 1)
		bench_usage_error(cfg, "one peer address at most");
	cfg->peer = optind < argc ? argv[optind] : NULL;
	if (cfg->samples) {
		samples_fp = fopen(cfg->samples, "w");
		if (!samples_fp)
			bench_die("--samples %s: %s", cfg->samples,
				  strerror(errno));
		if (fputs("bench,op,size,param,rep,ns\n", samples_fp) == EOF)
			bench_die("--samples %s: write failed", cfg->samples);
	}
}

socklen_t bench_resolve(const char *host, unsigned int port,
			struct sockaddr_storage *ss)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	socklen_t len;
	char serv[16];
	int err;

	snprintf(serv, sizeof(serv), "%u", port);
	err = getaddrinfo(host, serv, &hints, &res);
	if (err)
		bench_die("peer %s: %s", host, gai_strerror(err));
	len = res->ai_addrlen;
	memcpy(ss, res->ai_addr, len);
	freeaddrinfo(res);
	return len;
}

void bench_meta(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("# %s=", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void meta_sizes(const struct bench_cfg *cfg)
{
	unsigned int i;

	printf("# sizes=");
	for (i = 0; i < cfg->nsizes; i++)
		printf("%s%" PRIu64, i ? "," : "", cfg->sizes[i]);
	putchar('\n');
}

static void meta_system(const char *device)
{
	const char *commit = getenv("BENCH_GIT_COMMIT");
	struct utsname u;
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	if (uname(&u))
		bench_die("uname: %s", strerror(errno));
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	bench_meta("program", "%s", prog_name);
	bench_meta("host", "%s", u.nodename);
	bench_meta("kernel", "%s", u.release);
	bench_meta("device", "%s", device);
	if (commit && *commit)
		bench_meta("git_commit", "%s", commit);
	bench_meta("date", "%s", date);
}

/* A server takes the workload from its client: it prints only its own. */
void bench_begin(const struct bench_cfg *cfg, const char *role,
		 const char *device)
{
	meta_system(device);
	bench_meta("role", "%s", role);
	if (cfg->peer)
		bench_meta("peer", "%s", cfg->peer);
	if (strcmp(role, "server")) {
		meta_sizes(cfg);
		bench_meta("iters", "%" PRIu64, cfg->iters);
		bench_meta("duration", "%g", cfg->duration);
		bench_meta("warmup", "%g", cfg->warmup);
		bench_meta("threads", "%u", cfg->threads);
		bench_meta("rate", "%" PRIu64, cfg->rate);
		bench_meta("seed", "%" PRIu64, cfg->seed);
		bench_meta("reps", "%u", cfg->reps);
		if (cfg->samples)
			bench_meta("samples", "%s", cfg->samples);
	}
	bench_meta("port", "%u", cfg->port);
	bench_meta("timeout", "%g", cfg->timeout);
	bench_meta("session_timeout", "%g", cfg->session_timeout);
	if (cfg->prog->flags & BENCH_OPT_RDMA) {
		bench_meta("dev", "%s", cfg->dev ? cfg->dev : "auto");
		bench_meta("gid_index", "%u", cfg->gid_index);
		if (cfg->qp_timeout)
			bench_meta("qp_timeout", "%u", cfg->qp_timeout);
		else
			bench_meta("qp_timeout", "rdma_cm");
		bench_meta("qp_retry", "%u", cfg->qp_retry);
	}
	cfg->prog->params(cfg->prog->ctx);
}

void bench_header(enum bench_kind kind)
{
	if (kind == BENCH_LAT)
		puts("bench,op,size,param,rep,samples,"
		     "min_us,median_us,p99_us,p999_us,max_us");
	else
		puts("bench,op,size,param,rep,seconds,"
		     "ops,ops_per_sec,bytes_per_sec");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Index of the permille-th percentile: sorted[ceil(n * pm / 1000) - 1]. */
static size_t rank(size_t n, unsigned int permille)
{
	return (n * permille + 999) / 1000 - 1;
}

/*
 * The median is sorted[floor(n / 2)]: a sample, never an average of two,
 * so for an even n it is the upper of the two middle samples.
 */
void bench_stats(uint64_t *ns, size_t n, struct bench_stats *st)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	st->min = ns[0];
	st->median = ns[n / 2];
	st->p99 = ns[rank(n, 990)];
	st->p999 = ns[rank(n, 999)];
	st->max = ns[n - 1];
}

static void row_key(const struct bench_point *pt)
{
	printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%u,", pt->bench, pt->op,
	       pt->size, pt->param, pt->rep);
}

static void write_samples(const struct bench_point *pt, const uint64_t *ns,
			  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fprintf(samples_fp, "%s,%s,%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 "\n",
			    pt->bench, pt->op, pt->size, pt->param, pt->rep,
			    ns[i]) < 0)
			break;
	if (i < n || fflush(samples_fp))
		bench_die("writing samples: %s", strerror(errno));
}

void bench_lat_row(const struct bench_point *pt, uint64_t *ns, size_t n)
{
	struct bench_stats st;

	if (samples_fp)
		write_samples(pt, ns, n);
	bench_stats(ns, n, &st);
	row_key(pt);
	printf("%zu,%.3f,%.3f,%.3f,%.3f,%.3f\n", n, st.min / 1e3,
	       st.median / 1e3, st.p99 / 1e3, st.p999 / 1e3, st.max / 1e3);
}

void bench_tput_row(const struct bench_point *pt, double seconds,
		    uint64_t ops)
{
	double rate = ops / seconds;

	row_key(pt);
	printf("%.6f,%" PRIu64 ",%.1f,%.1f\n", seconds, ops, rate,
	       rate * (double)pt->size);
}

void *bench_zalloc(size_t n, size_t size)
{
	size_t len = n * size;
	void *p;

	if (size && len / size != n)
		bench_die("out of memory");
	len = (len + BENCH_CACHE_LINE - 1) & ~(size_t)(BENCH_CACHE_LINE - 1);
	p = aligned_alloc(BENCH_CACHE_LINE, len ? len : BENCH_CACHE_LINE);
	if (!p)
		bench_die("out of memory");
	memset(p, 0, len);
	return p;
}

void bench_pacer_init(struct bench_pacer *p, const struct bench_cfg *cfg,
		      unsigned int thread)
{
	p->interval = cfg->rate ? 1000000000ULL * cfg->threads / cfg->rate : 0;
	p->next = bench_now_ns() + p->interval * thread / cfg->threads;
}

void bench_pace(struct bench_pacer *p)
{
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (!p->interval)
		return;
	if (p->next > now) {
		ts.tv_sec = p->next / 1000000000;
		ts.tv_nsec = p->next % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	} else if (now - p->next > p->interval) {
		p->next = now;
	}
	p->next += p->interval;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL +
	       (uint64_t)tv->tv_usec * 1000ULL;
}

uint64_t bench_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		bench_die("getrusage: %s", strerror(errno));
	return tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
}
