// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_async: reads and writes posted without waiting (lite_post_read,
 * lite_post_write, lite_poll, lite_fence), run by the integration test
 * (tests/integration/lite-api.d/50-async.sh) on a joined cluster.
 *
 *   test_async data NODE          posted writes then reads of an LMR on
 *                                 NODE, data verified; poll max/timeout,
 *                                 fence, the outstanding limit, bad
 *                                 arguments
 *   test_async exit-busy NODE     post 64 reads and writes, exit without
 *                                 reaping them
 *   test_async owner ID SECONDS   allocate a local LMR, publish it as ID,
 *                                 print "ready", free it after SECONDS
 *   test_async revoked NODE ID    keep ops in flight on NODE's LMR ID
 *                                 until its owner frees it
 *   test_async hold NODE KIB SECONDS
 *                                 post up to KIB KiB of 16 KiB writes to
 *                                 NODE, unreaped, printing "info posted N
 *                                 KiB: RESULT" (the first error, or ok);
 *                                 hold them SECONDS, then reap and exit
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; the last line is
 * "PASS: 0 failure(s)" or "FAIL: N failure(s)". Exit status: 1 if a check
 * failed, 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lite.h"
#include "check.h"

#define PASSWORD	4242
#define LMR_SIZE	(4ULL << 20)
#define SLOT		(16U << 10)
#define NR_SLOTS	(LMR_SIZE / SLOT)
#define BAD_HANDLE	999999
#define MAX_COMP	64

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned int async_max(void)
{
	FILE *f = fopen("/sys/module/lite/parameters/async_max", "r");
	unsigned int v = 64;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 64;
		fclose(f);
	}
	return v;
}

/*
 * Reap everything: every completion's id must be new and below @nr, its
 * status 0. Returns how many were reaped.
 */
static unsigned int reap_all(uint8_t *seen, unsigned int nr, unsigned int want,
			     const char *what)
{
	struct lite_completion c[MAX_COMP];
	unsigned int got = 0;
	int n, i;

	while (got < want) {
		n = lite_poll(c, MAX_COMP, 5000);
		if (n <= 0) {
			fail("%s: poll returned %s with %u of %u reaped", what,
			     got_name(n), got, want);
			return got;
		}
		for (i = 0; i < n; i++) {
			if (c[i].id >= nr || seen[c[i].id]) {
				fail("%s: unexpected id %" PRIu64, what, (uint64_t)c[i].id);
				continue;
			}
			seen[c[i].id] = 1;
			if (c[i].status)
				fail("%s: id %" PRIu64 " status %s", what,
				     (uint64_t)c[i].id, got_name(c[i].status));
		}
		got += n;
	}
	return got;
}

/* Post with retries on EAGAIN (reaping into @seen meanwhile). */
static int post(bool write, int lh, uint64_t off, void *buf, uint64_t size,
		uint64_t id, uint8_t *seen, unsigned int nr, unsigned int *reaped)
{
	int ret;

	for (;;) {
		ret = write ? lite_post_write(lh, off, buf, size, PASSWORD, id) :
			      lite_post_read(lh, off, buf, size, PASSWORD, id);
		if (ret != -EAGAIN)
			return ret;
		*reaped += reap_all(seen, nr, 1, "reap on EAGAIN");
	}
}

static void check_data(int lh, const char *where)
{
	static uint8_t want[LMR_SIZE], got[LMR_SIZE];
	uint8_t *seen = calloc(NR_SLOTS, 1);
	unsigned int i, reaped = 0, bad = 0;
	struct rng r = { .state = 0x5eed };

	rng_fill(&r, want, sizeof(want));
	memset(got, 0, sizeof(got));
	/* Writes, from one buffer reused at once: posting copies it. */
	for (i = 0; i < NR_SLOTS; i++) {
		static uint8_t tmp[SLOT];

		memcpy(tmp, want + (uint64_t)i * SLOT, SLOT);
		if (!step(post(true, lh, (uint64_t)i * SLOT, tmp, SLOT, i, seen,
			       NR_SLOTS, &reaped), "post write %u", i))
			break;
		memset(tmp, 0xee, SLOT);
	}
	reaped += reap_all(seen, NR_SLOTS, NR_SLOTS - reaped, "writes");
	if (reaped == NR_SLOTS)
		pass("%s: %u posted writes, every id completed once", where,
		     (unsigned int)NR_SLOTS);
	else
		fail("%s: %u of %u writes reaped", where, reaped,
		     (unsigned int)NR_SLOTS);
	/* Reads, back into separate places, then compare. */
	memset(seen, 0, NR_SLOTS);
	reaped = 0;
	for (i = 0; i < NR_SLOTS; i++)
		if (!step(post(false, lh, (uint64_t)i * SLOT,
			       got + (uint64_t)i * SLOT, SLOT, i, seen,
			       NR_SLOTS, &reaped), "post read %u", i))
			break;
	reaped += reap_all(seen, NR_SLOTS, NR_SLOTS - reaped, "reads");
	for (i = 0; i < NR_SLOTS; i++)
		bad += !!memcmp(got + (uint64_t)i * SLOT,
				want + (uint64_t)i * SLOT, SLOT);
	if (reaped == NR_SLOTS && !bad)
		pass("%s: %u posted reads return the data written", where,
		     (unsigned int)NR_SLOTS);
	else
		fail("%s: %u reads reaped, %u slots differ", where, reaped,
		     bad);
	/* One read of the largest size, unaligned, through the fence. */
	memset(got, 0, sizeof(got));
	expect(lite_post_read(lh, 12345, got, LITE_ASYNC_MAX_SIZE, PASSWORD, 1),
	       0, "%s: post a 1 MiB read at an odd offset", where);
	expect(lite_fence(5000), 0, "%s: fence after it", where);
	expect_bytes(got, want + 12345, LITE_ASYNC_MAX_SIZE, 12345,
		     "%s: the fenced read's data is in place", where);
	free(seen);
}

static void check_poll(int lh)
{
	struct lite_completion c[MAX_COMP];
	static uint8_t buf[8][4096];
	uint64_t t;
	int n, i, total = 0;

	t = now_ms();
	n = lite_poll(c, MAX_COMP, 3000);
	expect(n, 0, "poll with nothing posted returns at once");
	if (n != 0 || now_ms() - t > 1000)
		fail("poll with nothing posted: %d after %" PRIu64 " ms", n,
		     now_ms() - t);
	for (i = 0; i < 8; i++)
		step(lite_post_read(lh, 4096 * i, buf[i], 4096, PASSWORD,
				    100 + i), "post %d", i);
	/* max 3: never more than 3 at a time. */
	while (total < 8) {
		n = lite_poll(c, 3, -1);
		if (n <= 0 || n > 3) {
			fail("poll max 3 returned %s", got_name(n));
			break;
		}
		total += n;
	}
	if (total == 8)
		pass("poll max 3 reaps at most 3 at a time (8 in %d+ calls)", 3);
	n = lite_poll(c, MAX_COMP, 0);
	expect(n, 0, "non-blocking poll after all were reaped: 0");
	expect(lite_poll(NULL, 0, 0), 0, "poll max 0 with a NULL array");
	expect(lite_poll((void *)8, 4, 0), 0,
	       "poll with a bad array but nothing to report: 0");
	step(lite_post_read(lh, 0, buf[0], 4096, PASSWORD, 1), "post for EFAULT");
	expect(lite_fence(5000), 0, "fence");
	step(lite_post_read(lh, 0, buf[0], 4096, PASSWORD, 1), "post for EFAULT");
	usleep(100000);
	expect(lite_poll((void *)8, 4, 1000), EFAULT,
	       "poll into a bad array: EFAULT");
	expect(lite_poll(c, 5000, 0), EINVAL, "poll max above 4096: EINVAL");
}

static void check_limit(int lh)
{
	static uint8_t buf[64];
	unsigned int max = async_max(), i;
	int ret = 0;

	for (i = 0; i <= max && !ret; i++)
		ret = lite_post_write(lh, 64 * (i % 1000), buf, 64, PASSWORD, i);
	if (ret == -EAGAIN && i == max + 1)
		pass("the %u-th unreaped post gets EAGAIN", max + 1);
	else
		fail("outstanding limit: post %u returned %s (async_max %u)",
		     i, got_name(ret), max);
	expect(lite_fence(5000), 0, "fence reaps them all");
	expect(lite_post_write(lh, 0, buf, 64, PASSWORD, 0), 0,
	       "posting works again after the fence");
	expect(lite_fence(5000), 0, "fence");
}

static void check_args(int lh, unsigned int node)
{
	static uint8_t buf[4096];
	struct lite_completion c;
	int ro, n;

	expect(lite_post_read(BAD_HANDLE, 0, buf, 64, PASSWORD, 0), ENOENT,
	       "post on a bad handle: ENOENT");
	expect(lite_post_read(lh, LMR_SIZE - 32, buf, 64, PASSWORD, 0), ERANGE,
	       "post past the end: ERANGE");
	expect(lite_post_write(lh, UINT64_MAX - 8, buf, 64, PASSWORD, 0),
	       ERANGE, "post at offset 2^64-9: ERANGE");
	expect(lite_post_read(lh, 0, buf, 0, PASSWORD, 0), EINVAL,
	       "post of 0 bytes: EINVAL");
	expect(lite_post_read(lh, 0, buf, LITE_ASYNC_MAX_SIZE + 1, PASSWORD, 0),
	       EINVAL, "post above LITE_ASYNC_MAX_SIZE: EINVAL");
	expect(lite_post_read(lh, 0, buf, 64, PASSWORD + 1, 0), EACCES,
	       "post with a wrong password: EACCES");
	expect(lite_post_write(lh, 0, NULL, 64, PASSWORD, 0), EFAULT,
	       "post write from NULL: EFAULT");
	expect(lite_post_write(lh, 0, (void *)-4096L, 64, PASSWORD, 0), EFAULT,
	       "post write from a kernel address: EFAULT");
	expect(lite_post_read(lh, 0, (void *)-4096L, 64, PASSWORD, 0), EFAULT,
	       "post read into a kernel address: EFAULT");
	/* Posted, but the destination is gone at reap: that one's EFAULT. */
	expect(lite_post_read(lh, 0, (void *)4096, 64, PASSWORD, 77), 0,
	       "post read into an unmapped user address");
	n = lite_poll(&c, 1, 5000);
	if (n == 1 && c.id == 77 && c.status == -EFAULT)
		pass("its completion: EFAULT");
	else
		fail("unmapped destination: poll %d id %" PRIu64 " status %s",
		     n, n == 1 ? (uint64_t)c.id : 0, got_name(n == 1 ? c.status : n));
	/* A read-only handle on the same LMR (published, asked back). */
	if (step(lite_publish(lh, 0xa5a5 + node, LITE_PERM_READ, PASSWORD),
		 "publish")) {
		ro = lite_ask(node, 0xa5a5 + node, LITE_PERM_READ, PASSWORD);
		if (step(ro, "ask")) {
			expect(lite_post_write(ro, 0, buf, 64, PASSWORD, 0),
			       EPERM, "post write on a read-only handle: EPERM");
			expect(lite_post_read(ro, 0, buf, 64, PASSWORD, 0), 0,
			       "post read on it");
			expect(lite_fence(5000), 0, "fence");
			lite_unmap(ro);
		}
	}
	expect(lite_fence(0), 0, "fence with nothing posted: 0 at once");
}

static int cmd_data(unsigned int node)
{
	int self = lite_node_id(), lh;

	lh = lite_alloc(node, LMR_SIZE, 0, PASSWORD);
	if (!step(lh, "alloc 4 MiB on node %u", node))
		return finish();
	check_data(lh, "remote");
	check_poll(lh);
	check_limit(lh);
	check_args(lh, node);
	lite_free(lh);
	/* The same on an LMR of this node: copied at once, completion queued. */
	lh = lite_alloc(self, LMR_SIZE, 0, PASSWORD);
	if (step(lh, "alloc 4 MiB locally")) {
		check_data(lh, "local");
		check_limit(lh);
		lite_free(lh);
	}
	return finish();
}

/*
 * Small operations: the emulated fabric moves a few MB/s, and the point is
 * that they are in flight at exit, not how many bytes.
 */
static int cmd_exit_busy(unsigned int node)
{
	static uint8_t buf[64][SLOT];
	unsigned int i, posted = 0;
	int lh = lite_alloc(node, LMR_SIZE, 0, PASSWORD);

	if (!step(lh, "alloc"))
		return finish();
	for (i = 0; i < 64; i++)
		posted += !(i % 2 ?
			lite_post_read(lh, i * SLOT, buf[i], SLOT, PASSWORD, i) :
			lite_post_write(lh, i * SLOT, buf[i], SLOT, PASSWORD, i));
	info("posted %u, exiting without reaping", posted);
	if (posted == 64)
		pass("posted %u 16 KiB reads and writes", posted);
	else
		fail("posted only %u of 64", posted);
	return finish();	/* exit closes /dev/lite with them in flight */
}

/* The per-user limit (user_async_mb): holds what it posted unreaped. */
static int cmd_hold(unsigned int node, unsigned int kib, unsigned int seconds)
{
	static uint8_t buf[SLOT];
	unsigned int done = 0;
	int lh = lite_alloc(node, LMR_SIZE, 0, PASSWORD);
	int ret = 0;

	if (!step(lh, "alloc"))
		return finish();
	while (done + SLOT / 1024 <= kib && !ret) {
		ret = lite_post_write(lh, (done * 1024ULL) % LMR_SIZE, buf, SLOT,
				      PASSWORD, done);
		if (!ret)
			done += SLOT / 1024;
	}
	info("posted %u KiB: %s", done, ret ? errname(-ret) : "ok");
	sleep(seconds);
	expect(lite_fence(-1), 0, "fence after holding %u KiB", done);
	return finish();
}

static int cmd_owner(uint64_t ident, unsigned int seconds)
{
	int lh = lite_alloc(lite_node_id(), LMR_SIZE, 0, PASSWORD);

	if (!step(lh, "alloc") ||
	    !step(lite_publish(lh, ident, LITE_PERM_READ | LITE_PERM_WRITE,
			       PASSWORD), "publish"))
		return finish();
	printf("ready\n");
	sleep(seconds);
	expect(lite_free(lh), 0, "owner frees the LMR with ops in flight on it");
	return finish();
}

static bool ok_status(int s)
{
	return s == 0 || s == -EKEYREVOKED || s == -EIO || s == -ENOTCONN;
}

static int cmd_revoked(unsigned int node, uint64_t ident)
{
	static uint8_t buf[16][SLOT];
	struct lite_completion c[MAX_COMP];
	unsigned int i = 0, done = 0, bad = 0, errs = 0;
	uint64_t end = now_ms() + 30000;
	int lh = -1, ret = 0, n, k;

	while (lh < 0 && now_ms() < end) {
		lh = lite_ask(node, ident, LITE_PERM_READ | LITE_PERM_WRITE,
			      PASSWORD);
		if (lh < 0)
			usleep(100000);
	}
	if (!step(lh, "ask for the owner's LMR"))
		return finish();
	/* Keep up to 64 posted until a post says the LMR is gone. */
	while (now_ms() < end) {
		if (i - done >= 64)
			ret = -EAGAIN;
		else if (i % 2)
			ret = lite_post_read(lh, (i % 256) * SLOT, buf[i % 16],
					     SLOT, PASSWORD, i);
		else
			ret = lite_post_write(lh, (i % 256) * SLOT, buf[i % 16],
					      SLOT, PASSWORD, i);
		if (ret == 0) {
			i++;
			continue;
		}
		if (ret != -EAGAIN)
			break;
		n = lite_poll(c, MAX_COMP, 1000);
		for (k = 0; k < n; k++) {
			bad += !ok_status(c[k].status);
			errs += !!c[k].status;
		}
		done += n > 0 ? n : 0;
	}
	expect(ret, EKEYREVOKED, "post after the owner freed it: EKEYREVOKED");
	expect(lite_post_read(lh, 0, buf[0], 64, PASSWORD, 0), EKEYREVOKED,
	       "and every post after");
	while ((n = lite_poll(c, MAX_COMP, 2000)) > 0) {
		for (k = 0; k < n; k++) {
			bad += !ok_status(c[k].status);
			errs += !!c[k].status;
		}
		done += n;
	}
	info("posted %u, reaped %u, %u failed", i, done, errs);
	if (done == i && !bad)
		pass("every posted op completed, with 0, EKEYREVOKED or EIO");
	else
		fail("posted %u reaped %u, %u with another status", i, done,
		     bad);
	return finish();
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_async data NODE\n"
		"       test_async exit-busy NODE\n"
		"       test_async owner ID SECONDS\n"
		"       test_async revoked NODE ID\n");
}

#define NODE(i)		parse_num(argv[i], "NODE", 1, UINT_MAX)
#define ID(i)		parse_num(argv[i], "ID", 0, UINT64_MAX)

int main(int argc, char *argv[])
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int nargs = argc - 2;

	check_start("test_async", usage);
	if (!strcmp(cmd, "data") && nargs == 1)
		return cmd_data(NODE(2));
	if (!strcmp(cmd, "exit-busy") && nargs == 1)
		return cmd_exit_busy(NODE(2));
	if (!strcmp(cmd, "owner") && nargs == 2)
		return cmd_owner(ID(2), parse_num(argv[3], "SECONDS", 1, 600));
	if (!strcmp(cmd, "revoked") && nargs == 2)
		return cmd_revoked(NODE(2), ID(3));
	if (!strcmp(cmd, "hold") && nargs == 3)
		return cmd_hold(NODE(2), parse_num(argv[3], "KIB", 16, 1 << 20),
				parse_num(argv[4], "SECONDS", 0, 600));
	usage(stderr);
	return 2;
}
