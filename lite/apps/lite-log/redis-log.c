// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * redis-log: LITE-Log's baseline, the same load and the same check on a
 * Redis stream (XADD to append, XRANGE to scan), over TCP with hiredis.
 * Each thread has its own connection.
 *
 *   redis-log append HOST PORT NODE THREADS RECORDS SIZE [NODES [DEPTH]]
 *   redis-log verify HOST PORT NODES THREADS RECORDS SIZE
 *   redis-log reset HOST PORT
 *
 * The stream is the key "lite-log-bench"; reset deletes it. Output and exit
 * status as lite-log's. With NODES, the nodes' appends start together, as
 * lite-log's do: at LITE's barrier (so this node must have joined a LITE
 * cluster), after every connection is made and outside the timed region.
 * With DEPTH, each thread pipelines DEPTH XADDs at a time: all are sent
 * before the first reply is read (lite-log's llog_append_many).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>
#include <lite.h>

#include "logload.h"

/* The only key fig-app-log's redis-server lets us use (APPLOG_STREAM). */
#define STREAM		"lite-log-bench"
#define SCAN_BATCH	1000
/* lite-log's limits (LLOG_MAX_RECORDS, LLOG_MAX_RECORD): the same loads. */
#define MAX_RECORDS	(1UL << 24)
#define MAX_SIZE	(64UL << 10)

const char *prog = "redis-log";

struct server {
	const char	*host;
	int		port;
};

static redisContext *connect_to(const struct server *s)
{
	struct timeval tv = { .tv_sec = 30 };
	redisContext *c = redisConnectWithTimeout(s->host, s->port, tv);

	if (!c || c->err) {
		fprintf(stderr, "%s: %s:%d: %s\n", prog, s->host, s->port,
			c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		return NULL;
	}
	redisSetTimeout(c, tv);
	return c;
}

static void *stream_open(void *arg)
{
	return connect_to(arg);
}

static int stream_append(void *h, const void *recs, uint32_t len,
			 unsigned int n)
{
	redisContext *c = h;
	redisReply *r;
	unsigned int i;
	int ret = 0;

	/* Queued here, sent by the first redisGetReply: one pipeline. */
	for (i = 0; i < n; i++)
		if (redisAppendCommand(c, "XADD " STREAM " * r %b",
				       (const char *)recs + (size_t)i * len,
				       (size_t)len) != REDIS_OK)
			return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (redisGetReply(c, (void **)&r) != REDIS_OK) {
			fprintf(stderr, "%s: XADD: %s\n", prog, c->errstr);
			return -EIO;
		}
		if (r->type != REDIS_REPLY_STRING)
			ret = -EIO;
		if (r->type == REDIS_REPLY_ERROR)
			fprintf(stderr, "%s: XADD: %s\n", prog, r->str);
		freeReplyObject(r);
	}
	return ret;
}

static void stream_close(void *h)
{
	redisFree(h);
}

static struct server server_arg(char **argv)
{
	return (struct server) {
		.host = argv[2], .port = arg_ul(argv[3], "PORT", 65535),
	};
}

static int cmd_append(char **argv)
{
	struct server s = server_arg(argv);
	struct load l = {
		.node = arg_ul(argv[4], "NODE", 1023),
		.arg = &s, .open = stream_open, .append = stream_append,
		.close = stream_close,
	};

	load_args(&l, argv + 5, MAX_RECORDS, MAX_SIZE);
	load_run(&l);
	return 0;
}

/*
 * One XRANGE page after @after ("-" first): checks each entry's "r" field
 * and leaves the last id in @after. Returns how many entries it had, or -1.
 */
static int scan_page(redisContext *c, struct rec_check *chk, char *after,
		     size_t after_size, uint64_t *seq)
{
	redisReply *r, *e;
	size_t i;
	int n = -1;

	r = strcmp(after, "-") ?
	    redisCommand(c, "XRANGE " STREAM " (%s + COUNT %d", after, SCAN_BATCH) :
	    redisCommand(c, "XRANGE " STREAM " - + COUNT %d", SCAN_BATCH);
	if (!r || r->type != REDIS_REPLY_ARRAY) {
		fprintf(stderr, "%s: XRANGE: %s\n", prog,
			r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
		goto out;
	}
	for (i = 0; i < r->elements; i++, (*seq)++) {
		e = r->element[i];
		/* [id, [field, value]] */
		if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
		    e->element[1]->elements != 2) {
			fprintf(stderr, "%s: entry %" PRIu64 ": not [id, [r, record]]\n",
				prog, *seq);
			goto out;
		}
		if (rec_check_one(chk, *seq, e->element[1]->element[1]->str,
				  e->element[1]->element[1]->len))
			goto out;
		snprintf(after, after_size, "%s", e->element[0]->str);
	}
	n = r->elements;
out:
	freeReplyObject(r);
	return n;
}

static int cmd_verify(char **argv)
{
	struct server s = server_arg(argv);
	struct rec_check chk = { 0 };
	redisContext *c;
	char after[64] = "-";
	uint64_t seq = 0;
	int n;

	rec_check_args(&chk, argv + 4, MAX_RECORDS, MAX_SIZE);
	c = connect_to(&s);
	if (!c)
		return 1;
	rec_check_init(&chk);
	do
		n = scan_page(c, &chk, after, sizeof(after), &seq);
	while (n == SCAN_BATCH);
	redisFree(c);
	if (n < 0 || rec_check_done(&chk))
		return 1;
	printf("verified=%" PRIu64 " holes=0 reserved=%" PRIu64 "\n",
	       chk.found, seq);
	return 0;
}

static int cmd_reset(char **argv)
{
	struct server s = server_arg(argv);
	redisContext *c = connect_to(&s);
	redisReply *r;
	int ok;

	if (!c)
		return 1;
	r = redisCommand(c, "DEL " STREAM);
	ok = r && r->type == REDIS_REPLY_INTEGER;
	if (!ok)
		fprintf(stderr, "%s: DEL: %s\n", prog, r ? r->str : c->errstr);
	freeReplyObject(r);
	redisFree(c);
	return !ok;
}

int main(int argc, char **argv)
{
	static const struct log_cmd cmds[] = {
		{ "append", "HOST PORT NODE THREADS RECORDS SIZE [NODES [DEPTH]]",
		  8, 10, cmd_append },
		{ "verify", "HOST PORT NODES THREADS RECORDS SIZE", 8, 8,
		  cmd_verify },
		{ "reset", "HOST PORT", 4, 4, cmd_reset },
		{ NULL }
	};

	return log_cmd_run(cmds, argc, argv);
}
