// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The load and the check lite-log and redis-log share (logload.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lite.h>

#include "logload.h"

extern const char *prog;	/* the program's name, for messages */

void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what,
		strerror(err < 0 ? -err : err));
	exit(1);
}

unsigned long arg_ul(const char *s, const char *name, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "%s: bad %s '%s' (0..%lu)\n", prog, name, s,
			max);
		exit(1);
	}
	return v;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint8_t rec_byte(const struct rec_id *id, uint32_t k)
{
	return (uint8_t)(id->node * 131 + id->thread * 31 + id->i * 7 + k);
}

static void rec_fill(uint8_t *buf, uint32_t size, const struct rec_id *id)
{
	uint32_t k;

	memcpy(buf, id, sizeof(*id));
	for (k = sizeof(*id); k < size; k++)
		buf[k] = rec_byte(id, k);
}

/* Every thread has opened its handle; the start (after the nodes' barrier). */
static pthread_barrier_t opened, go;

struct appender {
	pthread_t		tid;
	const struct load	*load;
	uint32_t		thread;
	uint64_t		*lat_ns;	/* one per record */
	uint64_t		end_ns;		/* after its last append */
	int			err;
};

static void *append_thread(void *arg)
{
	struct appender *a = arg;
	const struct load *l = a->load;
	struct rec_id id = { .node = l->node, .thread = a->thread };
	uint8_t *buf = malloc((size_t)l->size * l->depth);
	void *h = l->open ? l->open(l->arg) : l->arg;
	uint64_t i, k, n, t0, lat;

	/* Both waits even after a failure: the others wait for this one. */
	pthread_barrier_wait(&opened);
	pthread_barrier_wait(&go);
	if (!buf || !h) {
		a->err = buf ? -EIO : -ENOMEM;
		goto out;
	}
	for (i = 0; i < l->records && !a->err; i += n) {
		n = l->records - i < l->depth ? l->records - i : l->depth;
		for (k = 0; k < n; k++) {
			id.i = i + k;
			rec_fill(buf + k * l->size, l->size, &id);
		}
		t0 = now_ns();
		a->err = l->append(h, buf, l->size, n);
		lat = now_ns() - t0;
		for (k = 0; k < n; k++)
			a->lat_ns[i + k] = lat;
	}
	a->end_ns = now_ns();
out:
	if (h && l->close)
		l->close(h);
	free(buf);
	return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

void load_run(const struct load *l)
{
	struct appender *a = calloc(l->threads, sizeof(*a));
	uint64_t n = l->threads * l->records, start, end = 0, ns, median;
	uint64_t *lat = calloc(n + 1, sizeof(*lat));
	unsigned long t;
	int ret = 0;

	if (!a || !lat)
		die("load", ENOMEM);
	if (l->size < REC_MIN_SIZE || !n)
		die("load: SIZE below 16, or no records", EINVAL);
	if (!l->depth || l->depth > LOAD_MAX_DEPTH)
		die("load: DEPTH not 1..64", EINVAL);
	if (pthread_barrier_init(&opened, NULL, l->threads + 1) ||
	    pthread_barrier_init(&go, NULL, l->threads + 1))
		die("pthread_barrier_init", errno);
	for (t = 0; t < l->threads; t++) {
		a[t] = (struct appender) {
			.load = l, .thread = t, .lat_ns = lat + t * l->records,
		};
		if (pthread_create(&a[t].tid, NULL, append_thread, &a[t]))
			die("pthread_create", errno);
	}
	pthread_barrier_wait(&opened);
	if (l->sync_nodes) {
		ret = lite_barrier(l->sync_nodes);
		if (ret < 0)
			die("lite_barrier (start)", ret);
	}
	start = now_ns();
	pthread_barrier_wait(&go);
	for (t = 0; t < l->threads; t++)
		pthread_join(a[t].tid, NULL);
	for (t = 0; t < l->threads; t++) {
		if (a[t].err)
			die("append", a[t].err);
		if (a[t].end_ns > end)
			end = a[t].end_ns;
	}
	ns = end - start;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	median = n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
	printf("appends=%" PRIu64 " size=%u threads=%lu depth=%u seconds=%.3f per_sec=%.1f lat_median_us=%.1f lat_p99_us=%.1f\n",
	       n, l->size, l->threads, l->depth, ns / 1e9, n / (ns / 1e9),
	       median / 1e3, lat[n * 99 / 100] / 1e3);
	free(lat);
	free(a);
}

void load_args(struct load *l, char **argv, unsigned long max_records,
	       unsigned long max_size)
{
	l->threads = arg_ul(argv[0], "THREADS", 256);
	l->records = arg_ul(argv[1], "RECORDS", max_records);
	l->size = arg_ul(argv[2], "SIZE", max_size);
	l->sync_nodes = argv[3] ? arg_ul(argv[3], "NODES", 1024) : 0;
	l->depth = 1;
	if (argv[3] && argv[4])
		l->depth = arg_ul(argv[4], "DEPTH", LOAD_MAX_DEPTH);
}

void rec_check_args(struct rec_check *c, char **argv,
		    unsigned long max_records, unsigned long max_size)
{
	c->nodes = arg_ul(argv[0], "NODES", 1023);
	c->threads = arg_ul(argv[1], "THREADS", 256);
	c->records = arg_ul(argv[2], "RECORDS", max_records);
	c->size = arg_ul(argv[3], "SIZE", max_size);
}

void rec_check_init(struct rec_check *c)
{
	c->seen = calloc((uint64_t)c->nodes * c->threads * c->records + 1, 1);
	if (!c->seen)
		die("check", ENOMEM);
}

int rec_check_one(struct rec_check *c, uint64_t seq, const void *rec,
		  uint32_t len)
{
	const uint8_t *p = rec;
	struct rec_id id;
	uint64_t slot;
	uint32_t k;

	if (!rec) {
		c->holes++;
		return 0;
	}
	if (len != c->size) {
		fprintf(stderr, "%s: record %" PRIu64 ": %u bytes, want %u\n",
			prog, seq, len, c->size);
		return 1;
	}
	memcpy(&id, rec, sizeof(id));
	if (!id.node || id.node > c->nodes || id.thread >= c->threads ||
	    id.i >= c->records) {
		fprintf(stderr, "%s: record %" PRIu64 ": unknown (node %u thread %u i %" PRIu64 ")\n",
			prog, seq, id.node, id.thread, id.i);
		return 1;
	}
	for (k = sizeof(id); k < len; k++) {
		if (p[k] != rec_byte(&id, k)) {
			fprintf(stderr, "%s: record %" PRIu64 " (node %u thread %u i %" PRIu64 "): byte %u torn\n",
				prog, seq, id.node, id.thread, id.i, k);
			return 1;
		}
	}
	slot = ((uint64_t)(id.node - 1) * c->threads + id.thread) * c->records +
	       id.i;
	if (c->seen[slot]++) {
		fprintf(stderr, "%s: record %" PRIu64 " (node %u thread %u i %" PRIu64 "): a duplicate\n",
			prog, seq, id.node, id.thread, id.i);
		return 1;
	}
	c->found++;
	return 0;
}

int rec_check_done(struct rec_check *c)
{
	uint64_t want = (uint64_t)c->nodes * c->threads * c->records;

	free(c->seen);
	c->seen = NULL;
	if (c->found == want)
		return 0;
	fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " records found (%" PRIu64 " holes)\n",
		prog, c->found, want, c->holes);
	return 1;
}

int log_cmd_run(const struct log_cmd *cmds, int argc, char **argv)
{
	const struct log_cmd *c;

	for (c = cmds; argc > 1 && c->name; c++)
		if (!strcmp(argv[1], c->name) && argc >= c->min_argc &&
		    argc <= c->max_argc)
			return c->run(argv);
	for (c = cmds; c->name; c++)
		fprintf(stderr, "%s%s %s %s\n", c == cmds ? "usage: " : "       ",
			prog, c->name, c->args);
	return 2;
}
