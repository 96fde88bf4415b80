// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LITE-Log (lite/apps/lite-log/lite_log.c) over the stand-in for liblite
 * (shim.h), the home and every client in this one process:
 *
 *   llog-test DEPTH
 *
 * 1. THREADS threads append RECORDS records each through logload's load,
 *    DEPTH at a time, every posted write landing late and torn, while an
 *    impatient reader (hole_ms 0) scans the log again and again: every
 *    record it returns is intact (logload's check), and it reports lost
 *    the records it finds committed but not landed. Then a patient reader
 *    finds every record once, intact, none lost.
 * 2. One number at a time: a reserved number is skipped after hole_ms; a
 *    committed record that never lands is lost after hole_ms, at once for
 *    the next reader (STALE), and a scan hands it over as lost; a write
 *    slower than hole_ms is lost to the reader that gave up, then read
 *    intact once its append returned 0; a write that fails fails its
 *    append and leaves a lost number, and its record nowhere.
 *
 * Prints "ok: ..." lines; on a failure "FAIL: ..." and exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_log.h"
#include "logload.h"
#include "shim.h"

#define ID		0x4c4c
#define PASSWORD	0x4c4f47
#define THREADS		4
#define RECORDS		2000
#define SIZE		100

const char *prog = "llog-test";

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static struct llog *open_log(unsigned int hole_ms)
{
	struct llog *log = llog_open(1, ID, PASSWORD, hole_ms);

	if (!log)
		die("open", errno);
	return log;
}

static uint64_t ms_since(uint64_t t0)
{
	return (now_ns() - t0) / 1000000;
}

/* A read of @seq through @log answers @want within [@min_ms, @max_ms]. */
static void read_takes(struct llog *log, uint64_t seq, int want,
		       uint64_t min_ms, uint64_t max_ms, const char *what)
{
	char buf[LLOG_MAX_RECORD];
	uint64_t t0 = now_ns(), ms;
	int ret;

	ret = llog_read(log, seq, buf, sizeof(buf));
	ms = ms_since(t0);
	if (ret != want || ms < min_ms || ms > max_ms)
		fail("%s: %d after %" PRIu64 " ms, want %d", what, ret, ms, want);
}

/* What a scan saw; @chk checks each record (intact, not twice). */
struct seen {
	struct rec_check	chk;
	uint64_t		records, holes, lost;
	uint32_t		lost_len;
};

static int see(void *arg, uint64_t seq, const void *rec, uint32_t len)
{
	struct seen *s = arg;

	if (!rec) {
		if (len) {
			s->lost++;
			s->lost_len = len;
		} else {
			s->holes++;
		}
		return 0;
	}
	s->records++;
	return rec_check_one(&s->chk, seq, rec, len);
}

static int stop;

struct scanner {
	uint64_t	scans, lost;
	int		ret;
};

/* The impatient reader: scans until stopped, every record checked. */
static void *scan_thread(void *arg)
{
	struct scanner *sc = arg;
	struct llog *log = open_log(0);
	struct seen s;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && !sc->ret) {
		s = (struct seen) {
			.chk = { .nodes = 1, .threads = THREADS,
				 .records = RECORDS, .size = SIZE },
		};
		rec_check_init(&s.chk);
		sc->ret = llog_scan(log, 0, UINT64_MAX, see, &s);
		free(s.chk.seen);
		sc->scans++;
		sc->lost += s.lost;
	}
	llog_close(log);
	return NULL;
}

static void concurrent(struct llog *log, unsigned int depth)
{
	struct scanner sc = { 0 };
	struct load l = {
		.node = 1, .threads = THREADS, .records = RECORDS, .size = SIZE,
		.depth = depth, .arg = log, .append = llog_load_append,
	};
	struct seen s = {
		.chk = { .nodes = 1, .threads = THREADS, .records = RECORDS,
			 .size = SIZE },
	};
	double ms[LLOG_PHASES];
	struct llog *reader;
	pthread_t tid;
	uint64_t n;
	int ret;

	if (pthread_create(&tid, NULL, scan_thread, &sc))
		die("pthread_create", errno);
	load_run(&l);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	if (sc.ret)
		fail("an impatient scan: %d (a torn or duplicate record above?)",
		     sc.ret);
	llog_phases(log, ms, &n);
	printf("ok: %d x %d appends, depth %u, under %" PRIu64 " impatient scans: every record they returned intact (%" PRIu64 " times a record was committed but not landed: lost to that scan; %" PRIu64 " attempts; %lu reads raced a write; %lu posts found the queue full)\n",
	       THREADS, RECORDS, depth, sc.scans, sc.lost, n,
	       shim_raced_reads(), shim_full_posts());
	if (!sc.lost)
		fail("no impatient scan found a record committed before it landed: the path went untested");
	if (n < THREADS * RECORDS)
		fail("%" PRIu64 " attempts for %d records", n,
		     THREADS * RECORDS);
	if (depth > 2 && !shim_full_posts())
		fail("depth %u never filled the queue of posts: -EAGAIN untested",
		     depth);

	reader = open_log(1000);
	rec_check_init(&s.chk);
	ret = llog_scan(reader, 0, UINT64_MAX, see, &s);
	if (ret)
		fail("the patient scan: %d", ret);
	if (rec_check_done(&s.chk))
		fail("the patient scan: not every record once");
	if (s.lost)
		fail("the patient scan: %" PRIu64 " records lost, though every append returned 0",
		     s.lost);
	printf("ok: then a patient scan finds all %" PRIu64 " records once, intact, none lost (%" PRIu64 " holes)\n",
	       s.chk.found, s.holes);
	llog_close(reader);
}

struct slow {
	struct llog	*log;
	char		rec[64];
	uint64_t	seq;
	int		ret;
};

static void *slow_append(void *arg)
{
	struct slow *a = arg;

	a->ret = llog_append(a->log, a->rec, sizeof(a->rec), &a->seq);
	return NULL;
}

/* Wait until @n numbers are reserved. */
static void reserved_wait(struct llog *log, uint64_t n)
{
	uint64_t r = 0;

	while (!llog_reserved(log, &r) && r < n)
		;
}

static void one_by_one(struct llog *log)
{
	struct llog *quick = open_log(100), *slow_reader = open_log(5000);
	struct slow a = { .log = log };
	struct seen s = { 0 };
	char buf[LLOG_MAX_RECORD];
	uint64_t seq, before, t0;
	pthread_t tid;
	int ret;

	/* A hole: skipped after hole_ms, at once for the next reader. */
	if (llog_reserve_only(log, 64, &seq))
		fail("reserve_only");
	read_takes(quick, seq, -ENOENT, 95, UINT64_MAX, "a hole, after hole_ms (100)");
	read_takes(slow_reader, seq, -ENOENT, 0, 1000, "a skipped hole read again");
	printf("ok: a reserved number: skipped after hole_ms (-ENOENT), then at once\n");

	/* Committed, never written: lost after hole_ms, then at once. */
	if (llog_commit_only(log, 64, &seq))
		fail("commit_only");
	read_takes(quick, seq, -EBADMSG, 95, UINT64_MAX,
		   "a record that never lands, after hole_ms (100)");
	read_takes(slow_reader, seq, -EBADMSG, 0, 1000,
		   "a lost record read again, at once (STALE)");
	t0 = now_ns();
	ret = llog_scan(slow_reader, seq, seq + 1, see, &s);
	if (ret || s.lost != 1 || s.lost_len != 64 || s.records ||
	    ms_since(t0) > 1000)
		fail("a lost record scanned: %d, %" PRIu64 " lost of length %u, %" PRIu64 " records, after %" PRIu64 " ms",
		     ret, s.lost, s.lost_len, s.records, ms_since(t0));
	printf("ok: a record committed but never written: lost after hole_ms (-EBADMSG), then at once, and a scan hands it over as lost\n");

	/* A write slower than hole_ms: lost to the impatient, then read. */
	memset(a.rec, 'w', sizeof(a.rec));
	if (llog_reserved(log, &before))
		fail("reserved");
	shim_delay_next(600000);
	if (pthread_create(&tid, NULL, slow_append, &a))
		die("pthread_create", errno);
	reserved_wait(log, before + 1);
	ret = llog_read(quick, before, buf, sizeof(buf));
	pthread_join(tid, NULL);
	if (ret != -EBADMSG)
		fail("a record still landing after hole_ms: %d, want -EBADMSG",
		     ret);
	if (a.ret || a.seq != before)
		fail("the slow append: %d, number %" PRIu64 ", want 0, %" PRIu64,
		     a.ret, a.seq, before);
	ret = llog_read(slow_reader, before, buf, sizeof(buf));
	if (ret != (int)sizeof(a.rec) || memcmp(buf, a.rec, sizeof(a.rec)))
		fail("the slow record once its append returned 0: %d", ret);
	printf("ok: a write slower than hole_ms: lost to the reader that gave up, intact for every read after its append returned 0 (STALE set)\n");

	/* A write that fails: the append fails, the number is lost. */
	memset(a.rec, 'f', sizeof(a.rec));
	if (llog_reserved(log, &before))
		fail("reserved");
	shim_fail_next(-EIO);
	ret = llog_append(log, a.rec, sizeof(a.rec), &seq);
	if (ret != -EIO || seq != UINT64_MAX)
		fail("an append whose write fails: %d, number %" PRIu64 ", want -EIO and none",
		     ret, seq);
	ret = llog_read(quick, before, buf, sizeof(buf));
	if (ret != -EBADMSG)
		fail("the number of a failed write: %d, want -EBADMSG", ret);
	printf("ok: a write that fails after the commit: its append fails (-EIO) and its number reads as lost\n");

	/* And the log goes on. */
	memset(a.rec, 'z', sizeof(a.rec));
	if (llog_append(log, a.rec, sizeof(a.rec), &seq) ||
	    llog_read(slow_reader, seq, buf, sizeof(buf)) != sizeof(a.rec) ||
	    memcmp(buf, a.rec, sizeof(a.rec)))
		fail("an append after all that, read back");
	printf("ok: an append after them reads back\n");
	llog_close(quick);
	llog_close(slow_reader);
}

int main(int argc, char **argv)
{
	struct llog *home, *log;
	unsigned int depth;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEPTH\n", prog);
		return 2;
	}
	depth = arg_ul(argv[1], "DEPTH", LOAD_MAX_DEPTH);
	/*
	 * Room for the retries an impatient reader causes: every number it
	 * gives up is appended again. At depth 8 on a loaded host (2 cores,
	 * 3 guests beside) 3-7 attempts per record, once more than 8: 64x,
	 * in numbers and in bytes (a retry takes new bytes too).
	 */
	home = llog_create(ID, 128 << 20, THREADS * RECORDS * 64 +
			   LLOG_FULL_MARGIN, PASSWORD);
	if (!home)
		die("create", errno);
	log = open_log(1000);
	concurrent(log, depth);
	one_by_one(log);
	llog_close(log);
	llog_close(home);
	printf("PASS\n");
	return 0;
}
