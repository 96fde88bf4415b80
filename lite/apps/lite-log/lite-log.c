// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-log: host, load and check a LITE-Log (lite_log.h) on a joined
 * cluster.
 *
 *   lite-log host ID DATA_MB RECORDS [SECS]
 *	create the log on this node and keep it until SIGTERM/SIGINT (or for
 *	SECS seconds); prints "ready pid=PID" once others may open it
 *   lite-log append HOME ID THREADS RECORDS SIZE [NODES [DEPTH]]
 *	THREADS threads each append RECORDS records of SIZE bytes; every
 *	record names (node, thread, i) and is filled from them; prints the
 *	append latency (median, p99) and the throughput. With NODES (not 0),
 *	the appends start once the NODES nodes' lite-log appends all reached
 *	lite_barrier(NODES) (logload.h). With DEPTH, each thread appends
 *	DEPTH records at a time (llog_append_many). Then "phases
 *	reserve_ms=R write_ms=W commit_ms=C attempts=N", the mean time of
 *	each step of an append
 *   lite-log verify HOME ID NODES THREADS RECORDS SIZE
 *	scan the whole log: every record intact, each (node, thread, i) of
 *	nodes 1..NODES exactly once, nothing else but skipped numbers
 *   lite-log scan HOME ID
 *	read every record reserved so far (each checked intact), skipping
 *	holes after HOLE_MS; prints how many records, holes and lost records
 *	(committed, their bytes not landed within HOLE_MS) it saw
 *   lite-log abandon HOME ID [reserve|commit]
 *	reserve a number and exit without committing (reserve, the
 *	default), or commit it without writing the record (commit), as a
 *	client that dies mid-append would: the hole readers must skip, or
 *	the record they must report lost
 *
 * HOLE_MS in the environment sets how long readers wait for a hole
 * (default 1000). Exit status 0, or 1 with a "lite-log: ..." line.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lite.h>

#include "lite_log.h"
#include "logload.h"

#if LOAD_MAX_DEPTH > LLOG_MAX_BATCH
#error "a load's group must fit one llog_append_many"
#endif

#define PASSWORD	0x4c4f47	/* "LOG" */

const char *prog = "lite-log";

static struct llog *open_log(const char *home, const char *id)
{
	const char *hole = getenv("HOLE_MS");
	struct llog *log;

	log = llog_open(arg_ul(home, "HOME", 1023), arg_ul(id, "ID", ~0UL),
			PASSWORD, hole ? arg_ul(hole, "HOLE_MS", 3600000) : 1000);
	if (!log)
		die("open", errno);
	return log;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int cmd_host(char **argv)
{
	unsigned long secs = argv[5] ? arg_ul(argv[5], "SECS", 86400) : 0;
	uint64_t start = now_ns();
	struct llog *log;

	log = llog_create(arg_ul(argv[2], "ID", ~0UL),
			  arg_ul(argv[3], "DATA_MB", 1024) << 20,
			  arg_ul(argv[4], "RECORDS", LLOG_MAX_RECORDS), PASSWORD);
	if (!log)
		die("create", errno);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready pid=%d\n", getpid());
	fflush(stdout);
	while (!stop && (!secs || now_ns() - start < secs * 1000000000ULL))
		usleep(100000);
	llog_close(log);
	return 0;
}

static int cmd_append(char **argv)
{
	struct llog *log = open_log(argv[2], argv[3]);
	double ms[LLOG_PHASES];
	uint64_t n;
	struct load l = {
		.node = lite_node_id(),
		/* Every thread shares the one open log: liblite is thread-safe. */
		.arg = log, .append = llog_load_append,
	};

	load_args(&l, argv + 4, LLOG_MAX_RECORDS, LLOG_MAX_RECORD);
	load_run(&l);
	llog_phases(log, ms, &n);
	printf("phases reserve_ms=%.3f write_ms=%.3f commit_ms=%.3f attempts=%" PRIu64 "\n",
	       ms[LLOG_PHASE_RESERVE], ms[LLOG_PHASE_WRITE],
	       ms[LLOG_PHASE_COMMIT], n);
	llog_close(log);
	return 0;
}

static int check_one(void *arg, uint64_t seq, const void *rec, uint32_t len)
{
	return rec_check_one(arg, seq, rec, len);
}

static int cmd_verify(char **argv)
{
	struct llog *log = open_log(argv[2], argv[3]);
	struct rec_check c = { 0 };
	uint64_t reserved;
	int ret;

	rec_check_args(&c, argv + 4, LLOG_MAX_RECORDS, LLOG_MAX_RECORD);
	rec_check_init(&c);
	ret = llog_reserved(log, &reserved);
	if (ret < 0)
		die("verify: tail", ret);
	ret = llog_scan(log, 0, UINT64_MAX, check_one, &c);
	if (ret < 0)
		die("verify: scan", ret);
	if (ret || rec_check_done(&c))
		return 1;
	printf("verified=%" PRIu64 " holes=%" PRIu64 " reserved=%" PRIu64 "\n",
	       c.found, c.holes, reserved);
	llog_close(log);
	return 0;
}

struct scan_count {
	uint64_t	records, holes, lost;
};

static int count_one(void *arg, uint64_t seq, const void *rec, uint32_t len)
{
	struct scan_count *c = arg;

	(void)seq;
	if (rec)
		c->records++;
	else if (len)
		c->lost++;
	else
		c->holes++;
	return 0;
}

static int cmd_scan(char **argv)
{
	struct llog *log = open_log(argv[2], argv[3]);
	struct scan_count c = { 0 };
	int ret = llog_scan(log, 0, UINT64_MAX, count_one, &c);

	if (ret < 0)
		die("scan", ret);
	printf("records=%" PRIu64 " holes=%" PRIu64 " lost=%" PRIu64 "\n",
	       c.records, c.holes, c.lost);
	llog_close(log);
	return 0;
}

static int cmd_abandon(char **argv)
{
	const char *after = argv[4] ? argv[4] : "reserve";
	struct llog *log;
	uint64_t seq;
	int ret;

	if (strcmp(after, "reserve") && strcmp(after, "commit")) {
		fprintf(stderr, "%s: abandon: '%s': not reserve or commit\n",
			prog, after);
		return 1;
	}
	log = open_log(argv[2], argv[3]);
	ret = after[0] == 'r' ? llog_reserve_only(log, 64, &seq) :
				llog_commit_only(log, 64, &seq);

	if (ret < 0)
		die("abandon", ret);
	printf("abandoned=%" PRIu64 "\n", seq);
	return 0;	/* no close, no commit: as if killed */
}

int main(int argc, char **argv)
{
	static const struct log_cmd cmds[] = {
		{ "host", "ID DATA_MB RECORDS [SECS]", 5, 6, cmd_host },
		{ "append", "HOME ID THREADS RECORDS SIZE [NODES [DEPTH]]", 7, 9,
		  cmd_append },
		{ "verify", "HOME ID NODES THREADS RECORDS SIZE", 8, 8,
		  cmd_verify },
		{ "scan", "HOME ID", 4, 4, cmd_scan },
		{ "abandon", "HOME ID [reserve|commit]", 4, 5, cmd_abandon },
		{ NULL }
	};

	return log_cmd_run(cmds, argc, argv);
}
