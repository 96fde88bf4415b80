// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The helpers the commands of test_security share (test_security.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_security.h"

/* Until the uapi header has it: destroy a lock (creator or root). */
#ifndef LITE_IOC_LOCK_DESTROY
#define LITE_IOC_LOCK_DESTROY	_IOW(LITE_IOC_MAGIC, 27, struct lite_ioc_lock)
#endif

int neg_errno(void)
{
	return -errno;
}

/* A /dev/lite of our own, for what liblite cannot express. */
int dev_open(void)
{
	int fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);

	return fd < 0 ? neg_errno() : fd;
}

int raw_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? neg_errno() : 0;
}

/* Lock destroy through a file of our own: it goes by uid, not by file. */
int lock_destroy(unsigned int node, unsigned int lock)
{
	static int fd = -1;
	struct lite_ioc_lock l = { .node = node, .lock = lock };

	if (fd < 0)
		fd = dev_open();
	if (fd < 0) {
		errno = -fd;
		return fd;
	}
	return raw_ioctl(fd, LITE_IOC_LOCK_DESTROY, &l);
}

/*
 * Create a lock on @node ("create WHAT on node N"), then lock, unlock and
 * destroy it ("lock IT", ...): what a user below every limit can do.
 */
void use_new_lock(unsigned int node, const char *what, const char *it)
{
	int lock = lite_lock_create(node);

	if (!expect(lock, 0, "create %s on node %u", what, node))
		return;
	expect(lite_lock(node, lock), 0, "lock %s", it);
	expect(lite_unlock(node, lock), 0, "unlock %s", it);
	expect(lock_destroy(node, lock), 0, "destroy %s", it);
}

int raw_rw(int fd, unsigned long request, uint32_t handle,
	   uint64_t off, void *buf, uint64_t size)
{
	struct lite_ioc_rw rw = {
		.handle = handle, .password = PASSWORD, .offset = off,
		.size = size, .addr = (uintptr_t)buf,
	};

	return raw_ioctl(fd, request, &rw);
}

void fill(void *buf, size_t len, uint64_t seed)
{
	struct rng r = { .state = seed };

	rng_fill(&r, buf, len);
}

/* @buf should hold the pattern of @seed. */
bool expect_pattern(const uint8_t *buf, size_t len, uint64_t seed,
		    const char *fmt, ...)
{
	uint8_t *want = malloc(len);
	char what[256];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!want) {
		fail("%s: malloc: %s", what, strerror(errno));
		return false;
	}
	fill(want, len, seed);
	ok = expect_bytes(buf, want, len, 0, "%s", what);
	free(want);
	return ok;
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The next line from the script: true, or false at EOF. */
bool read_line(void)
{
	char line[64];

	return fgets(line, sizeof(line), stdin) != NULL;
}

/* A line waiting on stdin (without blocking)? EOF counts as one. */
bool line_ready(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

int me_or_fail(void)
{
	int me = lite_node_id();

	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return -1;
	return me;
}

/*
 * fork() with stdout flushed first, or else the child would print what is
 * buffered again; a failed fork is a failed check.
 */
pid_t fork_or_fail(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	return pid;
}

/*
 * Fork; the child runs @fn and exits 1 if it added a failure. Returns the
 * child's pid, or -1 after a failed fork.
 */
pid_t fork_child(void (*fn)(void *), void *arg)
{
	int base = nr_failures();
	pid_t pid = fork_or_fail();

	if (!pid) {
		fn(arg);
		fflush(stdout);
		_exit(nr_failures() > base ? 1 : 0);
	}
	return pid;
}

/* This program again with @args; its stdout is ours. */
pid_t spawn_self(char *const args[])
{
	pid_t pid = fork_or_fail();

	if (!pid) {
		execv("/proc/self/exe", args);
		printf("FAIL exec /proc/self/exe: %s\n", strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	return pid;
}

/* Wait for @pid; it should exit 0. */
bool expect_child(pid_t pid, const char *what)
{
	int status;

	if (pid < 0)
		return false;
	if (waitpid(pid, &status, 0) < 0) {
		fail("%s: waitpid: %s", what, strerror(errno));
		return false;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		pass("%s: exited 0", what);
		return true;
	}
	if (WIFSIGNALED(status))
		fail("%s: killed by signal %d", what, WTERMSIG(status));
	else
		fail("%s: exit status %d", what, WEXITSTATUS(status));
	return false;
}

/* Write @seed's pattern to @lh from @buf, read it back into @buf. */
bool round_trip(int lh, uint8_t *buf, size_t len, uint64_t seed,
		const char *what)
{
	fill(buf, len, seed);
	if (!step(lite_write(lh, 0, buf, len, PASSWORD, LITE_PRIO_NORMAL),
		  "%s: write", what))
		return false;
	memset(buf, 0x5a, len);
	if (!step(lite_read(lh, 0, buf, len, PASSWORD, LITE_PRIO_NORMAL),
		  "%s: read", what))
		return false;
	return expect_pattern(buf, len, seed, "%s", what);
}

/*
 * round_trip() through a new zero-copy buffer of @len bytes (its
 * lite_alloc_buffer() checked as @name), "ok   @done" if it held, then
 * munmap it.
 */
void zc_round_trip(int lh, size_t len, uint64_t seed, const char *name,
		   const char *what, const char *done)
{
	uint8_t *buf = lite_alloc_buffer(len);

	if (!expect(buf ? 0 : neg_errno(), 0, "%s", name))
		return;
	if (round_trip(lh, buf, len, seed, what))
		pass("%s", done);
	expect(lite_free_buffer(buf, len), 0, "munmap it");
}
