// SPDX-License-Identifier: GPL-2.0
/*
 * LITE-Kernel-DSM checks, written against lite-dsm.h only. Each mode
 * prints "ok ..." and "FAIL ..." lines and exits non-zero on a failure;
 * "info ..." lines carry values for the script (tests/integration/lite-dsm).
 *
 *   test_dsm counter NAME NR ITERS        lock-protected counter, NR processes
 *   test_dsm phases NAME NR ME ROUNDS     own pages and own bytes of a shared page
 *   test_dsm big NAME MIB writer|reader   MIB written by one, read by the other
 *   test_dsm fork NAME                    children share the copy; SIGKILL mid-fault
 *   test_dsm partial NAME                 munmap/mprotect of part, mremap growth
 *   test_dsm hold NAME SIZE SECS          attach, "info hold: ready", sleep
 *   test_dsm expect NAME SIZE ERRNO       attach must fail with ERRNO (a number)
 *   test_dsm homeless NAME SECS           write a page on each of 3 homes,
 *                                         "info homeless: ready", sleep (node3
 *                                         leaves), then: page 32 (homed on
 *                                         node3) gets SIGBUS, no hang
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lite-dsm.h"

#define PG 4096UL

static int failures;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		printf("ok ");						\
	} else {							\
		printf("FAIL ");					\
		failures++;						\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
} while (0)

static void die(const char *what, int err)
{
	printf("FAIL %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static struct lite_dsm *attach(const char *name, size_t size)
{
	struct lite_dsm *d = lite_dsm_attach(name, size);

	if (!d)
		die("attach", errno);
	return d;
}

static void call(const char *what, int ret)
{
	if (ret)
		die(what, ret);
}

static int counter(const char *name, unsigned int nr, unsigned long iters)
{
	struct lite_dsm *d = attach(name, PG);
	volatile uint64_t *c = lite_dsm_base(d);
	unsigned long i;
	uint64_t v;

	call("barrier (start)", lite_dsm_barrier(d, nr));
	for (i = 0; i < iters; i++) {
		call("acquire", lite_dsm_acquire(d, 7));
		v = *c;
		*c = v + 1;
		call("release", lite_dsm_release(d, 7));
	}
	call("barrier (end)", lite_dsm_barrier(d, nr));
	call("acquire (check)", lite_dsm_acquire(d, 7));
	v = *c;
	call("release (check)", lite_dsm_release(d, 7));
	printf("info counter %llu\n", (unsigned long long)v);
	CHECK(v == nr * iters, "counter: %llu, want %lu",
	      (unsigned long long)v, nr * iters);
	call("barrier (detach)", lite_dsm_barrier(d, nr));
	call("detach", lite_dsm_detach(d));
	return failures;
}

static uint8_t phase_byte(unsigned int round, unsigned int who, size_t i)
{
	return (uint8_t)(round * 131 + who * 29 + i * 7 + 1);
}

/*
 * Page 0 is shared: node ME writes bytes i with i % NR == ME. Pages 1..NR
 * are one per node. After each barrier everyone checks everything.
 */
static int phases(const char *name, unsigned int nr, unsigned int me,
		  unsigned int rounds)
{
	struct lite_dsm *d = attach(name, (nr + 1) * PG);
	uint8_t *b = lite_dsm_base(d);
	unsigned int r, w, bad;
	size_t i;

	if (me >= nr)
		die("phases: ME must be below NR", EINVAL);
	call("barrier (start)", lite_dsm_barrier(d, nr));
	for (r = 1; r <= rounds; r++) {
		for (i = me; i < PG; i += nr)
			b[i] = phase_byte(r, me, i);
		for (i = 0; i < PG; i++)
			b[(me + 1) * PG + i] = phase_byte(r, me + 100, i);
		call("barrier (written)", lite_dsm_barrier(d, nr));
		bad = 0;
		for (i = 0; i < PG; i++)
			bad += b[i] != phase_byte(r, i % nr, i);
		for (w = 0; w < nr; w++)
			for (i = 0; i < PG; i++)
				bad += b[(w + 1) * PG + i] !=
				       phase_byte(r, w + 100, i);
		CHECK(!bad, "round %u: %u wrong bytes of %lu", r, bad,
		      (nr + 1) * PG);
		call("barrier (checked)", lite_dsm_barrier(d, nr));
	}
	call("detach", lite_dsm_detach(d));
	return failures;
}

static uint64_t big_word(size_t i)
{
	return (i + 1) * 0x9e3779b97f4a7c15ULL;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int big(const char *name, size_t mib, const char *role)
{
	size_t size = mib << 20, n = size / 8, i, bad = 0;
	struct lite_dsm *d = attach(name, size);
	uint64_t *w = lite_dsm_base(d);
	int writer = !strcmp(role, "writer");
	double t;

	call("barrier (attached)", lite_dsm_barrier(d, 2));
	t = now_s();
	if (writer)
		for (i = 0; i < n; i++)
			w[i] = big_word(i);
	call("barrier (written)", lite_dsm_barrier(d, 2));
	if (writer) {
		printf("info big: wrote %zu MiB in %.1f s (with the barrier)\n",
		       mib, now_s() - t);
	} else {
		t = now_s();
		for (i = 0; i < n; i++)
			bad += w[i] != big_word(i);
		printf("info big: read %zu MiB in %.1f s\n", mib, now_s() - t);
		CHECK(!bad, "big: %zu of %zu words wrong", bad, n);
	}
	call("barrier (read)", lite_dsm_barrier(d, 2));
	call("detach", lite_dsm_detach(d));
	return failures;
}

static int fork_check(const char *name)
{
	size_t size = 32UL << 20, pages = size / PG, i, bad = 0;
	struct lite_dsm *d = attach(name, size);
	uint8_t *b = lite_dsm_base(d);
	volatile uint8_t sink;
	unsigned int k, killed = 0;
	int status;
	pid_t pid;

	for (i = 0; i < pages; i++)
		b[i * PG] = (uint8_t)(i + 1);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		/* The node's copy is shared: no synchronisation needed. */
		for (i = 0; i < pages; i++)
			if (b[i * PG] != (uint8_t)(i + 1))
				_exit(2);
		for (i = 0; i < pages; i++)
			b[i * PG + 1] = 0x5a;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "fork: the child saw the parent's writes (status %#x)", status);
	for (i = 0; i < pages; i++)
		bad += b[i * PG + 1] != 0x5a;
	CHECK(!bad, "fork: the parent sees the child's writes (%zu pages wrong)",
	      bad);

	/* Children SIGKILLed while they fault remote pages in. */
	for (k = 0; k < 20; k++) {
		call("release (flush)", lite_dsm_barrier(d, 1));
		pid = fork();
		if (pid < 0)
			die("fork", errno);
		if (!pid) {
			for (;;)
				for (i = 0; i < pages; i++) {
					sink = b[i * PG];
					b[i * PG + 2] = (uint8_t)k;
				}
		}
		usleep(20000 + k * 5000);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	}
	(void)sink;
	CHECK(killed == 20, "fork: %u of 20 children died of SIGKILL", killed);
	call("barrier (after kills)", lite_dsm_barrier(d, 1));
	for (i = 0; i < pages; i++)
		b[i * PG + 3] = (uint8_t)(i * 3);
	call("barrier (after rewrite)", lite_dsm_barrier(d, 1));
	bad = 0;
	for (i = 0; i < pages; i++)
		bad += b[i * PG] != (uint8_t)(i + 1) ||
		       b[i * PG + 3] != (uint8_t)(i * 3);
	CHECK(!bad, "fork: the mapping is whole after the kills (%zu pages wrong)",
	      bad);
	call("detach", lite_dsm_detach(d));
	return failures;
}

/* Run @fn in a child: its fate (signal number, or 0 for a clean exit). */
static int child_signal(void (*fn)(uint8_t *), uint8_t *p)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		fn(p);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void poke(uint8_t *p)
{
	*(volatile uint8_t *)p = 1;
}

static void peek(uint8_t *p)
{
	(void)*(volatile uint8_t *)p;
}

static int partial(const char *name)
{
	struct lite_dsm *d = attach(name, 16 * PG);
	uint8_t *b = lite_dsm_base(d);
	size_t i, bad = 0;
	void *m;
	int sig;

	for (i = 0; i < 16; i++)
		memset(b + i * PG, (int)i + 1, PG);
	CHECK(!munmap(b + 4 * PG, 4 * PG), "munmap of pages 4..7");
	sig = child_signal(peek, b + 5 * PG);
	CHECK(sig == SIGSEGV, "a read of unmapped page 5 gets SIGSEGV (%d)", sig);
	CHECK(!mprotect(b + 8 * PG, 4 * PG, PROT_READ),
	      "mprotect of pages 8..11 read-only");
	sig = child_signal(poke, b + 9 * PG);
	CHECK(sig == SIGSEGV, "a write to read-only page 9 gets SIGSEGV (%d)", sig);
	sig = child_signal(peek, b + 9 * PG);
	CHECK(sig == 0, "a read of read-only page 9 works (%d)", sig);
	call("barrier", lite_dsm_barrier(d, 1));
	for (i = 0; i < 16; i++)
		if (i < 4 || i >= 8)
			bad += b[i * PG + 100] != (uint8_t)(i + 1);
	CHECK(!bad, "the rest reads back after a barrier (%zu pages wrong)", bad);
	CHECK(!mprotect(b + 8 * PG, 4 * PG, PROT_READ | PROT_WRITE),
	      "mprotect of pages 8..11 back to read-write");
	for (i = 8; i < 12; i++)
		b[i * PG] = 0xee;
	call("barrier", lite_dsm_barrier(d, 1));
	bad = 0;
	for (i = 8; i < 12; i++)
		bad += b[i * PG] != 0xee || b[i * PG + 1] != (uint8_t)(i + 1);
	CHECK(!bad, "writes after mprotect reach the home (%zu pages wrong)", bad);
	m = mremap(b + 12 * PG, 4 * PG, 64 * PG, MREMAP_MAYMOVE);
	CHECK(m == MAP_FAILED, "mremap growth is refused (%s)",
	      m == MAP_FAILED ? strerror(errno) : "it grew");
	if (m != MAP_FAILED)
		munmap(m, 64 * PG);
	call("detach", lite_dsm_detach(d));
	return failures;
}

static int hold(const char *name, size_t size, unsigned int secs)
{
	struct lite_dsm *d = attach(name, size);

	printf("info hold: ready\n");
	fflush(stdout);
	sleep(secs);
	call("detach", lite_dsm_detach(d));
	return 0;
}

static int expect(const char *name, size_t size, int want)
{
	struct lite_dsm *d = lite_dsm_attach(name, size);
	int err = errno;

	CHECK(!d && err == want, "attach %s (%zu bytes): %s, want %s", name,
	      size, d ? "attached" : strerror(err), strerror(want));
	if (d)
		lite_dsm_detach(d);
	return failures;
}

/*
 * Pages are placed in blocks of 16 (docs/dsm.md): pages 0, 16 and 32 live
 * on nodes 1, 2, 3 (page p on node (p / 16) % 3 + 1). Written, then node3
 * leaves while we sleep: the release reports lost writes, a read of page
 * 32 gets SIGBUS within LITE's timeouts, page 0 still works.
 */
#define BLOCK_PAGES 16

static int homeless(const char *name, unsigned int secs)
{
	struct lite_dsm *d = attach(name, 3 * BLOCK_PAGES * PG);
	uint8_t *b = lite_dsm_base(d);
	double t;
	int ret, sig, i;

	call("barrier (fetch)", lite_dsm_barrier(d, 1));
	for (i = 0; i < 3; i++)
		memset(b + i * BLOCK_PAGES * PG, 0x77, PG);
	printf("info homeless: ready\n");
	fflush(stdout);
	sleep(secs);
	t = now_s();
	ret = lite_dsm_barrier(d, 1);
	CHECK(ret == -EIO, "the barrier reports the writes node3 lost (%s)",
	      ret ? strerror(-ret) : "no error");
	sig = child_signal(peek, b + 2 * BLOCK_PAGES * PG);
	CHECK(sig == SIGBUS, "a read of page 32 (node3's) gets SIGBUS (%d) in %.1f s",
	      sig, now_s() - t);
	sig = child_signal(peek, b);
	printf("info homeless: page 0 (node1's) read: signal %d\n", sig);
	lite_dsm_detach(d);
	return failures;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "counter") && argc == 5)
		return counter(argv[2], atoi(argv[3]), atol(argv[4]));
	if (!strcmp(mode, "phases") && argc == 6)
		return phases(argv[2], atoi(argv[3]), atoi(argv[4]),
			      atoi(argv[5]));
	if (!strcmp(mode, "big") && argc == 5)
		return big(argv[2], atol(argv[3]), argv[4]);
	if (!strcmp(mode, "fork") && argc == 3)
		return fork_check(argv[2]);
	if (!strcmp(mode, "partial") && argc == 3)
		return partial(argv[2]);
	if (!strcmp(mode, "hold") && argc == 5)
		return hold(argv[2], atol(argv[3]), atoi(argv[4]));
	if (!strcmp(mode, "expect") && argc == 5)
		return expect(argv[2], atol(argv[3]), atoi(argv[4]));
	if (!strcmp(mode, "homeless") && argc == 4)
		return homeless(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
