// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One tenant against another on a shared node (issue 42): a user who
 * floods a node with remote memsets, and one who goes on using that node
 * meanwhile and times what it gets. tests/integration/lite-security runs
 * both as different unprivileged users on different nodes and holds the
 * second one's round times against its idle ones; what this program
 * checks itself is that every operation of a round succeeds and returns
 * the bytes written.
 *
 *   test_tenant flood NODE MIB THREADS SECS
 *	one LMR of MIB MiB on NODE; THREADS threads memset all of it, again
 *	and again, for SECS seconds (or until killed); prints "info flood:
 *	ready" once the LMR exists, and what the calls returned at the end
 *   test_tenant rounds NODE COUNT
 *	COUNT rounds on NODE: alloc 64 KiB, write it, read it back, take and
 *	release a lock homed there, free; prints every round's time and
 *	"rounds: n=N failed=F median_us=M max_us=X"
 *   test_tenant alloc-timeout NODE KIB COUNT MIN
 *	COUNT allocations of KIB KiB on NODE, run with a control timeout too
 *	short for them: each fails with ETIMEDOUT (or succeeds and is freed,
 *	the FREE perhaps timing out too); at least MIN must time out
 *   test_tenant alloc NODE MIB
 *	one allocation of MIB MiB on NODE, freed: the user's quota has room
 *   test_tenant hold NODE SECS
 *	an atomic LMR of 4 KiB and a lock on NODE, kept SECS seconds (or
 *	until killed): what another node's forged requests aim at; prints
 *	"info hold: ready lock L" once both exist
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

#define ROUND_BYTES	(64 * 1024)
#define MAX_ERRNO	4096

static void usage(FILE *out)
{
	fprintf(out, "usage: test_tenant flood NODE MIB THREADS SECS\n"
		     "       test_tenant rounds NODE COUNT\n"
		     "       test_tenant alloc-timeout NODE KIB COUNT MIN\n"
		     "       test_tenant alloc NODE MIB\n"
		     "       test_tenant hold NODE SECS\n");
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- flood --------------------------------------------------------------- */

struct flood {
	int		lh;
	uint64_t	size;
	uint64_t	end_us;
	unsigned long	calls;
	unsigned long	by_errno[MAX_ERRNO];	/* [0]: successes */
	pthread_mutex_t	lock;
};

static void *flood_thread(void *arg)
{
	struct flood *f = arg;
	int ret, e;

	while (now_us() < f->end_us) {
		ret = lite_memset(f->lh, 0, 0x5a, f->size);
		e = ret < 0 ? -ret : 0;
		pthread_mutex_lock(&f->lock);
		f->calls++;
		f->by_errno[e < MAX_ERRNO ? e : 0]++;
		pthread_mutex_unlock(&f->lock);
	}
	return NULL;
}

static int run_flood(unsigned int node, uint64_t mib, unsigned int threads,
		     unsigned int secs)
{
	static struct flood f = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t *tid = calloc(threads, sizeof(*tid));
	unsigned int i;

	if (!tid)
		return 1;
	f.size = mib << 20;
	f.lh = lite_alloc(node, f.size, 0, 0);
	if (!expect(f.lh, 0, "flood: alloc %llu MiB on node %u",
		    (unsigned long long)mib, node))
		return finish();
	info("flood: ready");
	f.end_us = now_us() + (uint64_t)secs * 1000000;
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, flood_thread, &f)) {
			fail("flood: thread %u not started", i);
			threads = i;
		}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	info("flood: %lu memsets of %llu MiB by %u threads, %lu succeeded",
	     f.calls, (unsigned long long)mib, threads, f.by_errno[0]);
	for (i = 1; i < MAX_ERRNO; i++)
		if (f.by_errno[i])
			info("flood: %lu failed with %s", f.by_errno[i],
			     errname(i));
	expect(lite_free(f.lh), 0, "flood: free");
	free(tid);
	return finish();
}

/* ---- rounds -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One round; false (reported) on the first step that fails. */
static bool round_once(unsigned int node, int lock, unsigned int r,
		       uint8_t *out, uint8_t *in)
{
	int lh, ok;

	memset(out, (int)(r * 7 + 1), ROUND_BYTES);
	lh = lite_alloc(node, ROUND_BYTES, 0, 0);
	if (!step(lh, "round %u: alloc 64 KiB on node %u", r, node))
		return false;
	ok = step(lite_write(lh, 0, out, ROUND_BYTES, 0, LITE_PRIO_NORMAL),
		  "round %u: write", r) &&
	     step(lite_read(lh, 0, in, ROUND_BYTES, 0, LITE_PRIO_NORMAL),
		  "round %u: read", r) &&
	     expect_bytes(in, out, ROUND_BYTES, 0, "round %u: read back", r) &&
	     step(lite_lock(node, lock), "round %u: lock", r) &&
	     step(lite_unlock(node, lock), "round %u: unlock", r);
	return step(lite_free(lh), "round %u: free", r) && ok;
}

static int run_rounds(unsigned int node, unsigned int count)
{
	uint64_t *us = calloc(count, sizeof(*us));
	uint8_t *out = malloc(ROUND_BYTES), *in = malloc(ROUND_BYTES);
	unsigned int r, failed = 0, n = 0;
	uint64_t t0;
	int lock;

	if (!us || !out || !in)
		return 1;
	lock = lite_lock_create(node);
	if (!expect(lock, 0, "rounds: lock on node %u", node))
		return finish();
	for (r = 0; r < count; r++) {
		t0 = now_us();
		if (!round_once(node, lock, r, out, in)) {
			failed++;
			continue;
		}
		us[n] = now_us() - t0;
		info("round %u: %llu us", r, (unsigned long long)us[n]);
		n++;
	}
	expect(lite_lock_destroy(node, lock), 0, "rounds: lock destroyed");
	qsort(us, n, sizeof(*us), cmp_u64);
	info("rounds: n=%u failed=%u median_us=%llu max_us=%llu", count,
	     failed, n ? (unsigned long long)us[n / 2] : 0ULL,
	     n ? (unsigned long long)us[n - 1] : 0ULL);
	if (!failed)
		pass("rounds: %u of %u rounds on node %u succeeded", count,
		     count, node);
	free(us);
	free(out);
	free(in);
	return finish();
}

/* ---- allocations that time out --------------------------------------------- */

static int run_alloc_timeout(unsigned int node, uint64_t kib,
			     unsigned int count, unsigned int min)
{
	static const int wants[] = { 0, ETIMEDOUT };
	unsigned int i, timed_out = 0;
	int lh;

	for (i = 0; i < count; i++) {
		lh = lite_alloc(node, kib << 10, 0, 0);
		if (lh > 0)
			/* Its FREE may time out too; the owner frees it anyway. */
			expect_any(lite_free(lh), wants, 2, "alloc %u: free", i);
		else if (lh == -ETIMEDOUT)
			timed_out++;
		else
			fail("alloc %u of %llu KiB on node %u: %s, not a handle or ETIMEDOUT",
			     i, (unsigned long long)kib, node, got_name(lh));
	}
	if (timed_out >= min)
		pass("%u of %u allocations timed out", timed_out, count);
	else
		fail("%u of %u allocations timed out, not %u: lower ctrl_timeout_ms",
		     timed_out, count, min);
	return finish();
}

static int run_alloc(unsigned int node, uint64_t mib)
{
	int lh = lite_alloc(node, mib << 20, 0, 0);

	if (expect(lh, 0, "alloc %llu MiB on node %u (the user's quota)",
		   (unsigned long long)mib, node))
		expect(lite_free(lh), 0, "free it");
	return finish();
}

static int run_hold(unsigned int node, unsigned int secs)
{
	uint64_t old = 1;
	int lh, lock;

	lh = lite_alloc(node, 4096, LITE_ALLOC_ATOMIC, 0);
	if (!expect(lh, 0, "hold: atomic LMR on node %u", node))
		return finish();
	expect(lite_fetch_add(lh, 0, 1, &old, 0), 0, "hold: fetch-add");
	expect((int)old, 0, "hold: the word was 0");
	lock = lite_lock_create(node);
	if (expect(lock, 0, "hold: lock on node %u", node)) {
		info("hold: ready lock %d", lock);
		fflush(stdout);
		sleep(secs);
		expect(lite_lock_destroy(node, lock), 0, "hold: lock destroyed");
	}
	expect(lite_free(lh), 0, "hold: free");
	return finish();
}

int main(int argc, char **argv)
{
	unsigned int node;

	check_start("test_tenant", usage);
	if (argc < 4) {
		usage(stderr);
		return 2;
	}
	node = parse_num(argv[2], "NODE", 1, 63);
	if (!strcmp(argv[1], "flood") && argc == 6)
		return run_flood(node, parse_num(argv[3], "MIB", 1, 1024),
				 parse_num(argv[4], "THREADS", 1, 256),
				 parse_num(argv[5], "SECS", 1, 3600));
	if (!strcmp(argv[1], "rounds") && argc == 4)
		return run_rounds(node, parse_num(argv[3], "COUNT", 1, 100000));
	if (!strcmp(argv[1], "alloc-timeout") && argc == 6)
		return run_alloc_timeout(node,
					 parse_num(argv[3], "KIB", 1, 1 << 20),
					 parse_num(argv[4], "COUNT", 1, 1000),
					 parse_num(argv[5], "MIN", 0, 1000));
	if (!strcmp(argv[1], "alloc") && argc == 4)
		return run_alloc(node, parse_num(argv[3], "MIB", 1, 1024));
	if (!strcmp(argv[1], "hold") && argc == 4)
		return run_hold(node, parse_num(argv[3], "SECS", 1, 3600));
	usage(stderr);
	return 2;
}
