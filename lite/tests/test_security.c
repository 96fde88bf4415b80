// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_security: what LITE promises when users who do not trust each other
 * share a node. Run by tests/integration/lite-security as unprivileged
 * users (liteuser and liteuser2 in group lite, outsider not) and root.
 *
 *   test_security open-denied           /dev/lite refuses the caller
 *   test_security join-denied           JOIN without CAP_NET_ADMIN
 *   test_security zc-fork NODE          zero-copy buffer in a forked child
 *   test_security zc-mremap NODE        zero-copy buffer cannot move
 *   test_security zc-fdpass NODE        another process's memory, same file
 *   test_security limits NODE           run into the per-user limits
 *   test_security limits-other NODE     another user meanwhile
 *   test_security limits-exempt NODE    root past the limits
 *   test_security calls-server PORT     a port that never answers
 *   test_security calls NODE PORT       run into user_calls
 *   test_security calls-other NODE PORT another user meanwhile
 *   test_security ports PORT...         register, up to user_ports
 *   test_security send NODE PORT ERRNO  one message; ERRNO 0 for success
 *   test_security lock-contend NODE NPROC ROUNDS
 *   test_security lock-foreign NODE LOCK    another uid's lock
 *   test_security barrier NR
 *   test_security ask-oracle NODE ID    ASK failures say nothing, are limited
 *   test_security revoke-owner NODE ID  (on node NODE)
 *   test_security revoke-mapper NODE ID (on another node)
 *   test_security devgone NODE          this node's RDMA device vanishes
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform; the last line is "PASS: 0 failure(s)" or "FAIL: N
 * failure(s)". Exit status: 1 if a check failed, 2 on a usage error.
 *
 * Driven over stdin/stdout (one word a line):
 *   limits         prints "ready" at every limit, frees all on a line (or EOF)
 *   lock-contend   prints "info lock N" early and "held" once it holds the
 *                  lock with a waiter queued; unlocks on a line (or EOF)
 *   revoke-owner   prints "ready" once ID is published; frees the LMR on a
 *                  line, reuses its memory and prints "freed"; finishes at EOF
 *   revoke-mapper  prints "mapped", then reads and writes until an error;
 *                  on a line (send it after "freed") checks the handle is
 *                  dead and exits
 *   calls-server   prints "ready" once PORT is registered; exits on a line
 *   calls          prints "ready" at the limit; on a line (send it once the
 *                  server exited) checks the calls were given back
 *   ports          prints "ready" with its ports registered; exits on a line
 *   devgone        prints "ready" holding a local and a remote LMR; reads
 *                  both on a line (send it once the device is gone)
 *   barrier        prints "info before MS" and "info after MS" (Unix ms)
 *
 * lock-contend, zc-fdpass and the lock waiter re-execute this program
 * (/proc/self/exe) for processes with an open file of their own: liblite
 * keeps one per process, and a lock is held by an open file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lite.h"

/* Until the uapi header has it: destroy a lock (creator or root). */
#ifndef LITE_IOC_LOCK_DESTROY
#define LITE_IOC_LOCK_DESTROY	_IOW(LITE_IOC_MAGIC, 27, struct lite_ioc_lock)
#endif

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)

#define PASSWORD		4711
#define WRONG_PASSWORD		4712
#define ZC_SIZE			MiB
#define REVOKE_SIZE		(256 * KiB)
#define REVOKE_REUSE		8	/* LMRs the owner refills after free */
#define REVOKE_AFTER		5	/* accesses checked after the first error */
#define LOCK_SLEEP_US		2000	/* most a holder sleeps */
#define ASK_TRIES		1000	/* failed asks per thread, at most */
#define ASK_THREADS		8
#define PARAM_DIR		"/sys/module/lite/parameters/"

/* The counters of lock-contend, in its atomic LMR. */
#define CNT_HOLDERS		0
#define CNT_ROUNDS		8
#define CNT_EINTR		16
#define CNT_SIZE		4096

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static const char *self_name = "test_security";

/* ---- helpers --------------------------------------------------------- */

static int neg_errno(void)
{
	return -errno;
}

/* A /dev/lite of our own, for what liblite cannot express. */
static int dev_open(void)
{
	int fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);

	return fd < 0 ? neg_errno() : fd;
}

static int raw_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? neg_errno() : 0;
}

/* Lock destroy through a file of our own: it goes by uid, not by file. */
static int lock_destroy(unsigned int node, unsigned int lock)
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
static void use_new_lock(unsigned int node, const char *what, const char *it)
{
	int lock = lite_lock_create(node);

	if (!expect(lock, 0, "create %s on node %u", what, node))
		return;
	expect(lite_lock(node, lock), 0, "lock %s", it);
	expect(lite_unlock(node, lock), 0, "unlock %s", it);
	expect(lock_destroy(node, lock), 0, "destroy %s", it);
}

static int raw_rw(int fd, unsigned long request, uint32_t handle,
		  uint64_t off, void *buf, uint64_t size)
{
	struct lite_ioc_rw rw = {
		.handle = handle, .password = PASSWORD, .offset = off,
		.size = size, .addr = (uintptr_t)buf,
	};

	return raw_ioctl(fd, request, &rw);
}

static void fill(void *buf, size_t len, uint64_t seed)
{
	struct rng r = { .state = seed };

	rng_fill(&r, buf, len);
}

/* @buf should hold the pattern of @seed. */
static bool expect_pattern(const uint8_t *buf, size_t len, uint64_t seed,
			   const char *fmt, ...) CHECK_FMT(4, 5);
static bool expect_pattern(const uint8_t *buf, size_t len, uint64_t seed,
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

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The next line from the script: true, or false at EOF. */
static bool read_line(void)
{
	char line[64];

	return fgets(line, sizeof(line), stdin) != NULL;
}

/* A line waiting on stdin (without blocking)? EOF counts as one. */
static bool line_ready(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static int me_or_fail(void)
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
static pid_t fork_or_fail(void)
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
static pid_t fork_child(void (*fn)(void *), void *arg)
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
static pid_t spawn_self(char *const args[])
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
static bool expect_child(pid_t pid, const char *what)
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
static bool round_trip(int lh, uint8_t *buf, size_t len, uint64_t seed,
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
static void zc_round_trip(int lh, size_t len, uint64_t seed, const char *name,
			  const char *what, const char *done)
{
	uint8_t *buf = lite_alloc_buffer(len);

	if (!expect(buf ? 0 : neg_errno(), 0, "%s", name))
		return;
	if (round_trip(lh, buf, len, seed, what))
		pass("%s", done);
	expect(lite_free_buffer(buf, len), 0, "munmap it");
}

/* ---- open-denied, join-denied ---------------------------------------- */

static int cmd_open_denied(void)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
	static const char *const names[] = { "O_RDWR", "O_RDONLY", "O_WRONLY" };
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = open("/dev/" LITE_DEV_NAME, modes[i] | O_CLOEXEC);
		expect(fd < 0 ? neg_errno() : fd, EACCES,
		       "uid %u (not in the group) opens /dev/lite %s",
		       (unsigned int)getuid(), names[i]);
		if (fd >= 0)
			close(fd);
	}
	expect(lite_node_id(), EACCES, "liblite (lite_node_id) is refused");
	return finish();
}

static int cmd_join_denied(void)
{
	struct lite_ioc_join j = { .port = 18500, .manager = "127.0.0.1" };
	int fd = dev_open();

	if (!expect(fd, 0, "uid %u (in the group) opens /dev/lite",
		    (unsigned int)getuid()))
		return finish();
	expect(raw_ioctl(fd, LITE_IOC_JOIN, &j), EPERM,
	       "JOIN without CAP_NET_ADMIN");
	/* liblite reads the cluster key first: root's alone. */
	expect(lite_join("127.0.0.1", 18500, 0), EACCES,
	       "lite_join cannot read the cluster key");
	me_or_fail();
	close(fd);
	return finish();
}

/* ---- zc-fork: a zero-copy mapping shared with a child ---------------- */

enum zc_order { CHILD_FIRST, PARENT_FIRST, CHILD_EXITS, NR_ORDERS };

static const char *const order_name[NR_ORDERS] = {
	[CHILD_FIRST] = "child unmaps first",
	[PARENT_FIRST] = "parent unmaps first",
	[CHILD_EXITS] = "child exits without munmap",
};

struct zc_fork {
	int		lh;
	uint8_t		*buf;
	uint64_t	seed;
	enum zc_order	order;
	int		go[2];		/* parent -> child: it may read */
};

static void zc_fork_child(void *arg)
{
	struct zc_fork *z = arg;
	char c;

	close(z->go[1]);
	if (read(z->go[0], &c, 1) != 1) {
		fail("child: the parent went away");
		return;
	}
	/* The LMR, into this process's view of the shared pages. */
	memset(z->buf, 0, ZC_SIZE);
	if (step(lite_read(z->lh, 0, z->buf, ZC_SIZE, PASSWORD,
			   LITE_PRIO_NORMAL), "child (%s): read into the "
		 "inherited mapping", order_name[z->order]))
		expect_pattern(z->buf, ZC_SIZE, z->seed,
			       "child (%s): read lands in its mapping",
			       order_name[z->order]);
	if (z->order != CHILD_EXITS)
		expect(munmap(z->buf, ZC_SIZE) ? neg_errno() : 0, 0,
		       "child (%s): munmap", order_name[z->order]);
}

static void zc_fork_case(int lh, enum zc_order order, uint64_t seed)
{
	struct zc_fork z = { .lh = lh, .order = order, .seed = seed };
	const char *name = order_name[order];
	char c = 'g', what[96];
	pid_t pid;

	z.buf = lite_alloc_buffer(ZC_SIZE);
	if (!expect(z.buf ? 0 : neg_errno(), 0, "%s: lite_alloc_buffer(1 MiB)",
		    name))
		return;
	snprintf(what, sizeof(what), "%s: zero-copy round trip before fork",
		 name);
	if (!round_trip(lh, z.buf, ZC_SIZE, seed, what))
		goto out;
	if (!expect(madvise(z.buf, ZC_SIZE, MADV_DOFORK) ? neg_errno() : 0, 0,
		    "%s: madvise(MADV_DOFORK)", name))
		goto out;
	if (pipe(z.go)) {
		fail("pipe: %s", strerror(errno));
		goto out;
	}
	memset(z.buf, 0, ZC_SIZE);
	pid = fork_child(zc_fork_child, &z);
	close(z.go[0]);
	if (pid < 0) {
		close(z.go[1]);
		goto out;
	}
	if (order == PARENT_FIRST) {
		/* The child's view must outlive ours. */
		expect(munmap(z.buf, ZC_SIZE) ? neg_errno() : 0, 0,
		       "%s: parent munmap before the child reads", name);
	}
	if (write(z.go[1], &c, 1) != 1)
		fail("%s: tell the child: %s", name, strerror(errno));
	close(z.go[1]);
	expect_child(pid, name);
	if (order == PARENT_FIRST)
		return;
	/* MAP_SHARED: the child's read is in our view of the pages too. */
	expect_pattern(z.buf, ZC_SIZE, seed,
		       "%s: the parent sees what the child read", name);
out:
	expect(lite_free_buffer(z.buf, ZC_SIZE), 0, "%s: parent munmap", name);
}

static int cmd_zc_fork(unsigned int node)
{
	int lh, o;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, ZC_SIZE, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 1 MiB on node %u", node))
		return finish();
	for (o = 0; o < NR_ORDERS; o++)
		zc_fork_case(lh, o, 0x2c0f0000 + o);
	/* Whatever the children did, the node still works. */
	zc_round_trip(lh, ZC_SIZE, 0x2c0fffff, "a new zero-copy buffer",
		      "afterwards: zero-copy write and read",
		      "afterwards: zero-copy round trip");
	expect(lite_free(lh), 0, "free the LMR");
	return finish();
}

/* ---- zc-mremap: the mapping stays where it is ------------------------ */

static int cmd_zc_mremap(unsigned int node)
{
	uint8_t *buf, *spot, *moved;
	int lh;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, ZC_SIZE, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 1 MiB on node %u", node))
		return finish();
	buf = lite_alloc_buffer(ZC_SIZE);
	if (!expect(buf ? 0 : neg_errno(), 0, "lite_alloc_buffer(1 MiB)"))
		goto out_lmr;
	round_trip(lh, buf, ZC_SIZE, 0x3e3a0001, "zero-copy round trip");
	/* A place of our own to move it to. */
	spot = mmap(NULL, ZC_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (spot == MAP_FAILED) {
		fail("reserve an address range: %s", strerror(errno));
		goto out_buf;
	}
	moved = mremap(buf, ZC_SIZE, ZC_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       spot);
	expect(moved == MAP_FAILED ? neg_errno() : 0, EINVAL,
	       "mremap(MAYMOVE|FIXED) of the buffer to another address");
	if (moved == MAP_FAILED)
		munmap(spot, ZC_SIZE);
	else
		buf = moved;	/* it moved: go on with it where it is now */
	if (round_trip(lh, buf, ZC_SIZE, 0x3e3a0002,
		       "after the mremap: zero-copy round trip"))
		pass("the buffer works after the refused mremap");
out_buf:
	expect(lite_free_buffer(buf, ZC_SIZE), 0, "munmap the buffer");
out_lmr:
	expect(lite_free(lh), 0, "free the LMR");
	return finish();
}

/* ---- zc-fdpass: same open file, another process's memory ------------- */

#define SEED_A		0xfda55a01ULL	/* the owner's zero-copy buffer */
#define SEED_B		0xfda55a02ULL	/* the LMR */
#define SEED_C		0xfda55a03ULL	/* what the other process writes */

/* What the owner tells the receiving process, beside the fd. */
struct fdpass_msg {
	uint64_t	addr;		/* the owner's zero-copy buffer */
	uint64_t	len;
	uint32_t	handle;		/* on the passed file */
	uint32_t	reserved;
};

/* The child of a plain fork (no DOFORK): it has no copy of the buffer. */
struct fdpass_fork {
	int		lh;
	uint8_t		*addr;
};

static void fdpass_fork_child(void *arg)
{
	struct fdpass_fork *f = arg;
	unsigned char vec[ZC_SIZE / 4096];
	uint8_t *p;

	expect(mincore(f->addr, ZC_SIZE, vec) ? neg_errno() : 0, ENOMEM,
	       "fork child: the zero-copy mapping was not copied");
	p = mmap(f->addr, ZC_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		fail("fork child: map its own memory at %p: %s", f->addr,
		     strerror(errno));
		return;
	}
	memset(p, 0x5a, ZC_SIZE);
	if (step(lite_read(f->lh, 0, p, ZC_SIZE, PASSWORD, LITE_PRIO_NORMAL),
		 "fork child: read the LMR into its memory at the buffer's "
		 "address"))
		expect_pattern(p, ZC_SIZE, SEED_B,
			       "fork child: its own memory got the LMR");
	fill(p, ZC_SIZE, SEED_C);
	expect(lite_write(f->lh, 0, p, ZC_SIZE, PASSWORD, LITE_PRIO_NORMAL), 0,
	       "fork child: write the LMR from its own memory");
}

/* The owner's side after a child used the LMR: buffer intact, LMR = C. */
static void fdpass_after(const char *who, uint8_t *buf, int fd, int lh)
{
	uint8_t *in = malloc(ZC_SIZE);
	int ret;

	expect_pattern(buf, ZC_SIZE, SEED_A,
		       "%s: the owner's zero-copy buffer is untouched", who);
	if (!in) {
		fail("malloc: %s", strerror(errno));
		return;
	}
	if (fd >= 0)
		ret = raw_rw(fd, LITE_IOC_READ, lh, 0, in, ZC_SIZE);
	else
		ret = lite_read(lh, 0, in, ZC_SIZE, PASSWORD, LITE_PRIO_NORMAL);
	if (step(ret, "%s: read the LMR back", who))
		expect_pattern(in, ZC_SIZE, SEED_C,
			       "%s: the LMR holds what the other process "
			       "wrote from its own memory", who);
	free(in);
}

static void zc_fdpass_fork(unsigned int node)
{
	struct fdpass_fork f;
	uint8_t *in = malloc(ZC_SIZE);
	pid_t pid;

	if (!in) {
		fail("malloc: %s", strerror(errno));
		return;
	}
	f.lh = lite_alloc(node, ZC_SIZE, 0, PASSWORD);
	if (!expect(f.lh, 0, "fork: alloc 1 MiB on node %u", node))
		goto out;
	fill(in, ZC_SIZE, SEED_B);
	if (!step(lite_write(f.lh, 0, in, ZC_SIZE, PASSWORD, LITE_PRIO_NORMAL),
		  "fork: fill the LMR"))
		goto out_lmr;
	f.addr = lite_alloc_buffer(ZC_SIZE);
	if (!expect(f.addr ? 0 : neg_errno(), 0, "fork: lite_alloc_buffer"))
		goto out_lmr;
	fill(f.addr, ZC_SIZE, SEED_A);
	pid = fork_child(fdpass_fork_child, &f);
	expect_child(pid, "fork child");
	fdpass_after("fork", f.addr, -1, f.lh);
	expect(lite_free_buffer(f.addr, ZC_SIZE), 0, "fork: munmap the buffer");
out_lmr:
	expect(lite_free(f.lh), 0, "fork: free the LMR");
out:
	free(in);
}

static int send_fd(int sock, int fd, const struct fdpass_msg *m)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) == sizeof(*m))
		return 0;
	if (!errno)
		errno = EPROTO;
	return neg_errno();
}

static int recv_fd(int sock, struct fdpass_msg *m)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	errno = EPROTO;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*m))
		return -EPROTO;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The receiving process: exec'd, so nothing of the owner's but the fd. */
static int cmd_zc_fdpass_recv(int sock)
{
	struct fdpass_msg m;
	uint8_t *want, *p;
	int fd = recv_fd(sock, &m);

	if (!expect(fd, 0, "receiver: got the owner's /dev/lite over "
		    "SCM_RIGHTS"))
		return 1;
	want = (uint8_t *)(uintptr_t)m.addr;
	/* First with nothing at that address here: no stand-in allowed. */
	p = mmap(want, m.len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == want) {
		munmap(p, m.len);
		expect(raw_rw(fd, LITE_IOC_READ, m.handle, 0, want, m.len),
		       EFAULT, "receiver: read to the owner's buffer address, "
		       "unmapped here");
	} else {
		/* An old kernel takes NOREPLACE for a hint. */
		if (p != MAP_FAILED)
			munmap(p, m.len);
		info("receiver: %p is in use here, the unmapped case is "
		     "skipped", want);
	}
	p = mmap(want, m.len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		fail("receiver: map its own memory at %p: %s", want,
		     strerror(errno));
		return 1;
	}
	memset(p, 0x5a, m.len);
	if (step(raw_rw(fd, LITE_IOC_READ, m.handle, 0, p, m.len),
		 "receiver: read the LMR into its own memory"))
		expect_pattern(p, m.len, SEED_B,
			       "receiver: its own memory got the LMR");
	fill(p, m.len, SEED_C);
	expect(raw_rw(fd, LITE_IOC_WRITE, m.handle, 0, p, m.len), 0,
	       "receiver: write the LMR from its own memory");
	return nr_failures() ? 1 : 0;
}

static void zc_fdpass_scm(unsigned int node)
{
	struct lite_ioc_alloc a = { .node = node, .size = ZC_SIZE,
				    .password = PASSWORD };
	struct lite_ioc_handle h = { 0 };
	struct fdpass_msg m = { .len = ZC_SIZE };
	uint8_t *buf = MAP_FAILED, *in = malloc(ZC_SIZE);
	char sockarg[16];
	int fd, sv[2] = { -1, -1 };
	pid_t pid;

	/* liblite keeps its file to itself: this side uses one of its own. */
	fd = dev_open();
	if (!expect(fd, 0, "SCM_RIGHTS: open /dev/lite") || !in)
		goto out;
	if (!expect(raw_ioctl(fd, LITE_IOC_ALLOC, &a), 0,
		    "SCM_RIGHTS: alloc 1 MiB on node %u", node))
		goto out;
	h.handle = a.handle;
	fill(in, ZC_SIZE, SEED_B);
	if (!step(raw_rw(fd, LITE_IOC_WRITE, a.handle, 0, in, ZC_SIZE),
		  "SCM_RIGHTS: fill the LMR"))
		goto out_lmr;
	buf = mmap(NULL, ZC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!expect(buf == MAP_FAILED ? neg_errno() : 0, 0,
		    "SCM_RIGHTS: mmap a zero-copy buffer"))
		goto out_lmr;
	fill(buf, ZC_SIZE, SEED_A);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		fail("socketpair: %s", strerror(errno));
		goto out_buf;
	}
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	snprintf(sockarg, sizeof(sockarg), "%d", sv[1]);
	pid = spawn_self((char *const[]){ (char *)self_name,
					  "zc-fdpass-recv", sockarg, NULL });
	close(sv[1]);
	m.addr = (uintptr_t)buf;
	m.handle = a.handle;
	expect(send_fd(sv[0], fd, &m), 0, "SCM_RIGHTS: pass the fd");
	close(sv[0]);	/* a receiver still waiting sees EOF */
	expect_child(pid, "SCM_RIGHTS receiver");
	fdpass_after("SCM_RIGHTS", buf, fd, a.handle);
out_buf:
	expect(munmap(buf, ZC_SIZE) ? neg_errno() : 0, 0,
	       "SCM_RIGHTS: munmap the buffer");
out_lmr:
	expect(raw_ioctl(fd, LITE_IOC_FREE, &h), 0, "SCM_RIGHTS: free the LMR");
out:
	if (fd >= 0)
		close(fd);
	free(in);
}

static int cmd_zc_fdpass(unsigned int node)
{
	if (me_or_fail() < 0)
		return finish();
	zc_fdpass_fork(node);
	zc_fdpass_scm(node);
	return finish();
}

/* ---- limits ---------------------------------------------------------- */

/* A module parameter, or -1 (with a failure) if it cannot be read. */
static long param(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1 || v < 0) {
		fail("read %s: %s (a module without per-user limits?)", path,
		     f ? "not a number" : strerror(errno));
		v = -1;
	}
	if (f)
		fclose(f);
	return v;
}

/*
 * @n things were had before a failure @ret; it must be EDQUOT, at the
 * limit: n in [limit - 1, limit] ("within one").
 */
static void expect_limit(const char *what, long n, int ret, long limit)
{
	if (!expect(ret, EDQUOT, "%s: the one after %ld", what, n))
		return;
	if (n <= limit && n >= limit - 1)
		pass("%s: refused at the limit (%ld of %ld)", what, n, limit);
	else
		fail("%s: refused after %ld, the limit is %ld", what, n,
		     limit);
}

struct held {
	int	*lmr;
	long	nr_lmr;
	int	*asked;
	long	nr_asked;
	long	*locks;
	long	nr_locks;
	void	**zc;
	long	nr_zc;
};

static int cmd_limits(unsigned int node)
{
	long lmr_mb = param("user_lmr_mb"), handles = param("user_handles");
	long zc_mb = param("user_zc_mb"), pubs = param("user_pubs");
	long locks = param("user_locks"), n;
	uint64_t id = 0x11a17000000ULL + (uint64_t)getpid() * 1024;
	struct held h = { 0 };
	uint8_t buf[4096];
	int ret = 0, lh;
	void *zc;

	if (getuid() == 0)
		fail("limits runs as an unprivileged user (root is exempt)");
	if (me_or_fail() < 0 || lmr_mb < 0 || handles < 0 || zc_mb < 0 ||
	    pubs < 0 || locks < 0)
		return finish();
	if (handles <= lmr_mb + 1 || pubs > 1000) {
		fail("want user_handles > user_lmr_mb + 1 and user_pubs <= "
		     "1000 (got %ld, %ld, %ld)", handles, lmr_mb, pubs);
		return finish();
	}
	info("limits: user_lmr_mb %ld, user_handles %ld, user_zc_mb %ld, "
	     "user_pubs %ld, user_locks %ld", lmr_mb, handles, zc_mb, pubs,
	     locks);
	h.lmr = calloc(lmr_mb + 2, sizeof(*h.lmr));
	h.asked = calloc(handles + 2, sizeof(*h.asked));
	h.locks = calloc(locks + 2, sizeof(*h.locks));
	h.zc = calloc(zc_mb + 2, sizeof(*h.zc));
	if (!h.lmr || !h.asked || !h.locks || !h.zc) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}

	/* MiB of LMRs: 1 MiB at a time, the last one still usable. */
	for (n = 0; n < lmr_mb + 2; n++) {
		ret = lite_alloc(node, MiB, 0, PASSWORD);
		if (ret < 0)
			break;
		h.lmr[h.nr_lmr++] = ret;
	}
	expect_limit("user_lmr_mb: 1 MiB LMRs", h.nr_lmr, ret, lmr_mb);
	if (h.nr_lmr) {
		lh = h.lmr[h.nr_lmr - 1];
		fill(buf, sizeof(buf), 0x11a1);
		if (step(lite_write(lh, 0, buf, sizeof(buf), PASSWORD,
				    LITE_PRIO_NORMAL), "write the last LMR") &&
		    step(lite_read(lh, 0, buf, sizeof(buf), PASSWORD,
				   LITE_PRIO_NORMAL), "read it back"))
			expect_pattern(buf, sizeof(buf), 0x11a1,
				       "the last LMR below the limit works");
	}
	if (!h.nr_lmr)
		goto release;

	/* Handles without memory: ask our own publication again and again. */
	expect(lite_publish(h.lmr[0], id, LITE_PERM_READ, PASSWORD), 0,
	       "publish the first LMR");
	for (n = h.nr_lmr; n < handles + 2; n++) {
		ret = lite_ask(node, id, LITE_PERM_READ, PASSWORD);
		if (ret < 0)
			break;
		h.asked[h.nr_asked++] = ret;
	}
	expect_limit("user_handles: LMRs and asked handles", h.nr_lmr +
		     h.nr_asked, ret, handles);

	/* Publications on the owner node: the same LMR under more IDs. */
	for (n = 1; n < pubs + 2; n++) {
		ret = lite_publish(h.lmr[0], id + n, LITE_PERM_READ, PASSWORD);
		if (ret < 0)
			break;
	}
	expect_limit("user_pubs: publications of one LMR", n, ret, pubs);

	/* Locks on their home node. */
	for (n = 0; n < locks + 2; n++) {
		ret = lite_lock_create(node);
		if (ret < 0)
			break;
		h.locks[h.nr_locks++] = ret;
	}
	expect_limit("user_locks: locks", h.nr_locks, ret, locks);

	/* Zero-copy buffers, 1 MiB each. */
	for (n = 0; n < zc_mb + 2; n++) {
		zc = lite_alloc_buffer(MiB);
		if (!zc) {
			ret = neg_errno();
			break;
		}
		h.zc[h.nr_zc++] = zc;
	}
	expect_limit("user_zc_mb: 1 MiB zero-copy buffers", h.nr_zc, ret,
		     zc_mb);

	/* The script shows other users are not held back meanwhile. */
	puts("ready");
	read_line();
release:
	for (n = 0; n < h.nr_zc; n++)
		step(lite_free_buffer(h.zc[n], MiB), "munmap zero-copy buffer");
	for (n = 0; n < h.nr_locks; n++)
		step(lock_destroy(node, h.locks[n]), "destroy lock %ld",
		     h.locks[n]);
	for (n = 0; n < h.nr_asked; n++)
		step(lite_unmap(h.asked[n]), "unmap asked handle");
	for (n = 0; n < h.nr_lmr; n++)
		step(lite_free(h.lmr[n]), "free LMR");
	pass("released %ld LMRs, %ld handles, %ld locks, %ld buffers",
	     h.nr_lmr, h.nr_asked, h.nr_locks, h.nr_zc);

	/* What was given back can be had again. */
	lh = lite_alloc(node, MiB, 0, PASSWORD);
	if (expect(lh, 0, "after release: alloc 1 MiB"))
		lite_free(lh);
	zc = lite_alloc_buffer(MiB);
	if (expect(zc ? 0 : neg_errno(), 0, "after release: zero-copy buffer"))
		lite_free_buffer(zc, MiB);
	ret = lite_lock_create(node);
	if (expect(ret, 0, "after release: create a lock"))
		expect(lock_destroy(node, ret), 0, "and destroy it");
	free(h.lmr);
	free(h.asked);
	free(h.locks);
	free(h.zc);
	return finish();
}

/* Another user while the first sits at its limits: business as usual. */
static int cmd_limits_other(unsigned int node)
{
	int lh;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, MiB, 0, PASSWORD);
	if (expect(lh, 0, "uid %u: alloc 1 MiB on node %u",
		   (unsigned int)getuid(), node)) {
		zc_round_trip(lh, MiB, 0x07e1, "a zero-copy buffer",
			      "write and read back 1 MiB",
			      "write and read 1 MiB through it");
		expect(lite_free(lh), 0, "free the LMR");
	}
	use_new_lock(node, "a lock", "it");
	return finish();
}

/* Root (CAP_SYS_RESOURCE) goes past every limit. */
static int cmd_limits_exempt(unsigned int node)
{
	long lmr_mb = param("user_lmr_mb"), zc_mb = param("user_zc_mb"), n;
	int *lh;
	void **zc;

	if (me_or_fail() < 0 || lmr_mb < 0 || zc_mb < 0)
		return finish();
	lh = calloc(lmr_mb + 2, sizeof(*lh));
	zc = calloc(zc_mb + 2, sizeof(*zc));
	if (!lh || !zc) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}
	for (n = 0; n < lmr_mb + 2; n++) {
		lh[n] = lite_alloc(node, MiB, 0, PASSWORD);
		if (lh[n] < 0)
			break;
	}
	if (n == lmr_mb + 2)
		pass("uid %u: %ld MiB of LMRs, past user_lmr_mb %ld",
		     (unsigned int)getuid(), n, lmr_mb);
	else
		fail("uid %u: LMR %ld of 1 MiB: %s (user_lmr_mb %ld)",
		     (unsigned int)getuid(), n + 1, got_name(lh[n]), lmr_mb);
	while (n-- > 0)
		step(lite_free(lh[n]), "free LMR");
	for (n = 0; n < zc_mb + 2; n++) {
		zc[n] = lite_alloc_buffer(MiB);
		if (!zc[n])
			break;
	}
	if (n == zc_mb + 2)
		pass("%ld MiB of zero-copy buffers, past user_zc_mb %ld", n,
		     zc_mb);
	else
		fail("zero-copy buffer %ld of 1 MiB: %s (user_zc_mb %ld)",
		     n + 1, errname(errno), zc_mb);
	while (n-- > 0)
		step(lite_free_buffer(zc[n], MiB), "munmap buffer");
	free(lh);
	free(zc);
	return finish();
}

/* ---- locks ----------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
}

/* A handler without SA_RESTART: a blocked wait returns EINTR. */
static void catch_signal(int sig)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void block_signal(int sig, bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/*
 * A contender: ROUNDS times lock, count itself in, sleep, count itself
 * out, unlock. SIGUSR1 is let in only while it waits for the lock: an
 * interrupted atomic could not be told from a lost one.
 */
static int cmd_lock_worker(unsigned int node, unsigned int lock, uint64_t id,
			   unsigned int rounds, unsigned int k)
{
	struct rng r = { .state = id ^ ((uint64_t)k << 32) };
	unsigned int i, eintr = 0, done = 0;
	uint64_t old;
	int lh, ret = 0;

	/* Blocked since the parent spawned us: a signal waits for this. */
	catch_signal(SIGUSR1);
	block_signal(SIGUSR1, true);
	lh = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE |
		      LITE_PERM_ATOMIC, PASSWORD);
	if (!step(lh, "worker %u: ask the counters", k))
		return 1;
	for (i = 0; i < rounds; i++) {
		for (;;) {
			block_signal(SIGUSR1, false);
			ret = lite_lock(node, lock);
			block_signal(SIGUSR1, true);
			if (ret != -EINTR)
				break;
			eintr++;
		}
		if (!step(ret, "worker %u: lock, round %u", k, i + 1))
			break;
		if (!step(lite_fetch_add(lh, CNT_HOLDERS, 1, &old, PASSWORD),
			  "worker %u: count in", k))
			break;
		if (old)
			fail("worker %u, round %u: %llu other holder(s) of "
			     "lock %u", k, i + 1, (unsigned long long)old,
			     lock);
		sleep_us(rng_below(&r, LOCK_SLEEP_US + 1));
		if (!step(lite_fetch_add(lh, CNT_HOLDERS, UINT64_MAX, &old,
					 PASSWORD), "worker %u: count out", k))
			break;
		if (old != 1)
			fail("worker %u, round %u: %llu holders at unlock "
			     "time, want 1", k, i + 1,
			     (unsigned long long)old);
		step(lite_fetch_add(lh, CNT_ROUNDS, 1, NULL, PASSWORD),
		     "worker %u: count the round", k);
		if (!step(lite_unlock(node, lock), "worker %u: unlock, round "
			  "%u", k, i + 1))
			break;
		done++;
	}
	step(lite_fetch_add(lh, CNT_EINTR, eintr, NULL, PASSWORD),
	     "worker %u: count its interruptions", k);
	info("worker %u: %u rounds, %u waits interrupted", k, done, eintr);
	return nr_failures() ? 1 : 0;
}

/* Blocks for the lock (the parent holds it), then lets it go. */
static int cmd_lock_waiter(unsigned int node, unsigned int lock)
{
	expect(lite_lock(node, lock), 0, "waiter: lock %u, once handed over",
	       lock);
	expect(lite_unlock(node, lock), 0, "waiter: unlock %u", lock);
	return nr_failures() ? 1 : 0;
}

/*
 * Signal the workers at random once they contend (the first round is
 * counted), a few times each per round; reap them.
 */
static void lock_signal_workers(int lh, pid_t *pids, unsigned int nproc,
				unsigned int budget, unsigned int *sent)
{
	struct rng r = { .state = (uint64_t)getpid() };
	unsigned int alive = 0, i;
	uint64_t rounds = 0;
	int status;

	for (i = 0; i < nproc; i++)
		alive += pids[i] > 0;
	while (alive) {
		sleep_us(5000 + rng_below(&r, 45000));
		if (!rounds && lite_fetch_add(lh, CNT_ROUNDS, 0, &rounds,
					      PASSWORD))
			rounds = 1;	/* cannot tell: signal anyway */
		if (budget && rounds) {
			i = rng_below(&r, nproc);
			if (pids[i] > 0 && !kill(pids[i], SIGUSR1)) {
				(*sent)++;
				budget--;
			}
		}
		for (i = 0; i < nproc; i++) {
			char what[32];

			if (pids[i] <= 0 ||
			    waitpid(pids[i], &status, WNOHANG) != pids[i])
				continue;
			snprintf(what, sizeof(what), "worker %u", i);
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				pass("%s: exited 0", what);
			else
				fail("%s: status 0x%x", what, status);
			pids[i] = 0;
			alive--;
		}
	}
}

static int cmd_lock_contend(unsigned int node, unsigned int nproc,
			    unsigned int rounds)
{
	uint64_t id = 0x10c0000000ULL + (uint64_t)getpid() * 16, holders = 1;
	uint64_t total = 0, eintr = 0;
	char a_node[16], a_lock[16], a_id[32], a_rounds[16], a_k[16];
	unsigned int i, sent = 0;
	pid_t *pids, waiter;
	int lock, lh;

	if (me_or_fail() < 0)
		return finish();
	lock = lite_lock_create(node);
	if (!expect(lock, 0, "create a lock on node %u", node))
		return finish();
	info("lock %d", lock);
	lh = lite_alloc(node, CNT_SIZE, LITE_ALLOC_ATOMIC, PASSWORD);
	if (!expect(lh, 0, "alloc the counters (atomic) on node %u", node) ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ | LITE_PERM_WRITE |
				 LITE_PERM_ATOMIC, PASSWORD), 0,
		    "publish them for the workers"))
		return finish();
	pids = calloc(nproc, sizeof(*pids));
	if (!pids) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}
	snprintf(a_node, sizeof(a_node), "%u", node);
	snprintf(a_lock, sizeof(a_lock), "%d", lock);
	snprintf(a_id, sizeof(a_id), "%llu", (unsigned long long)id);
	snprintf(a_rounds, sizeof(a_rounds), "%u", rounds);
	/* Inherited through exec: held back until a worker has its handler. */
	block_signal(SIGUSR1, true);
	for (i = 0; i < nproc; i++) {
		snprintf(a_k, sizeof(a_k), "%u", i);
		pids[i] = spawn_self((char *const[]){ (char *)self_name,
			"lock-worker", a_node, a_lock, a_id, a_rounds, a_k,
			NULL });
	}
	/* Bounded, so that every worker gets through in the end. */
	lock_signal_workers(lh, pids, nproc, nproc * rounds / 2 + 1, &sent);
	free(pids);
	if (step(lite_fetch_add(lh, CNT_HOLDERS, 0, &holders, PASSWORD),
		 "read the holder count") &&
	    step(lite_fetch_add(lh, CNT_ROUNDS, 0, &total, PASSWORD),
		 "read the round count") &&
	    step(lite_fetch_add(lh, CNT_EINTR, 0, &eintr, PASSWORD),
		 "read the interruption count")) {
		if (!holders && total == (uint64_t)nproc * rounds)
			pass("%u processes x %u rounds, never two holders",
			     nproc, rounds);
		else
			fail("%llu of %u rounds counted, %llu holders left",
			     (unsigned long long)total, nproc * rounds,
			     (unsigned long long)holders);
		info("%u signals sent, %llu waits interrupted (EINTR, "
		     "retried)", sent, (unsigned long long)eintr);
	}

	/* Destroy: refused while held and waited for, then gone. */
	if (!expect(lite_lock(node, lock), 0, "lock %d", lock))
		goto out;
	waiter = spawn_self((char *const[]){ (char *)self_name, "lock-waiter",
					     a_node, a_lock, NULL });
	sleep_us(500 * 1000);
	expect(lock_destroy(node, lock), EBUSY,
	       "destroy lock %d while held, a waiter queued", lock);
	puts("held");
	read_line();
	expect(lite_unlock(node, lock), 0, "unlock %d: the waiter gets it",
	       lock);
	expect_child(waiter, "waiter");
	expect(lock_destroy(node, lock), 0, "destroy lock %d, now free", lock);
	expect(lock_destroy(node, lock), ENOENT, "destroy it again");
	expect(lite_lock_ask(node, lock), ENOENT, "lock_ask after destroy");
	expect(lite_lock(node, lock), ENOENT, "lock after destroy");
out:
	expect(lite_free(lh), 0, "free the counters");
	return finish();
}

static int cmd_lock_foreign(unsigned int node, unsigned int lock)
{
	if (me_or_fail() < 0)
		return finish();
	/* Were it let in, it would wait: the alarm ends that with EINTR. */
	catch_signal(SIGALRM);
	expect(lite_lock_ask(node, lock), EACCES,
	       "uid %u: lock_ask another uid's lock %u",
	       (unsigned int)getuid(), lock);
	alarm(20);
	expect(lite_lock(node, lock), EACCES, "lock another uid's lock %u",
	       lock);
	alarm(0);
	expect(lite_unlock(node, lock), EACCES,
	       "unlock another uid's lock %u", lock);
	expect(lock_destroy(node, lock), EACCES,
	       "destroy another uid's lock %u", lock);
	use_new_lock(node, "a lock of its own", "its own");
	return finish();
}

/* ---- barrier, ask-oracle --------------------------------------------- */

static int cmd_barrier(unsigned int nr)
{
	if (me_or_fail() < 0)
		return finish();
	info("before %.0f", now_ms());
	expect(lite_barrier(nr), 0, "uid %u: barrier(%u)",
	       (unsigned int)getuid(), nr);
	info("after %.0f", now_ms());
	return finish();
}

/* Failed asks from several threads at once: a limit per second must bite. */
struct ask_flood {
	unsigned int	node;
	uint64_t	id;
	atomic_int	stop;
	atomic_int	failed;		/* EACCES answers */
	atomic_int	limited;	/* EAGAIN answers */
	atomic_int	other;		/* anything else: the first one */
};

static void *ask_flood_thread(void *arg)
{
	struct ask_flood *f = arg;
	unsigned int n = 0;
	int ret;

	while (!atomic_load(&f->stop) && n < ASK_TRIES) {
		/* Alternately the unpublished ID and a wrong password. */
		ret = lite_ask(f->node, f->id + (n++ & 1), LITE_PERM_READ,
			       WRONG_PASSWORD);
		if (ret == -EACCES) {
			atomic_fetch_add(&f->failed, 1);
		} else if (ret == -EAGAIN) {
			atomic_fetch_add(&f->limited, 1);
			atomic_store(&f->stop, 1);
		} else {
			int none = 0;

			if (ret >= 0)
				lite_unmap(ret);
			atomic_compare_exchange_strong(&f->other, &none,
						       ret ? ret : INT_MIN);
			atomic_store(&f->stop, 1);
		}
	}
	return NULL;
}

static int cmd_ask_oracle(unsigned int node, uint64_t id)
{
	struct ask_flood f = { .node = node, .id = id };
	pthread_t threads[ASK_THREADS];
	unsigned int i, started = 0;
	int lh, ret, other;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, 4096, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 4 KiB on node %u", node) ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ, PASSWORD), 0,
		    "publish it as %llu", (unsigned long long)id))
		return finish();
	ret = lite_ask(node, id, LITE_PERM_READ, PASSWORD);
	if (expect(ret, 0, "ask it with the password"))
		lite_unmap(ret);
	/* Both failures look alike: no way to learn what exists. */
	ret = lite_ask(node, id + 1, LITE_PERM_READ, PASSWORD);
	expect(ret, EACCES, "ask an identifier nothing is published under");
	ret = lite_ask(node, id, LITE_PERM_READ, WRONG_PASSWORD);
	expect(ret, EACCES, "ask with a wrong password");

	for (i = 0; i < ASK_THREADS; i++)
		started += !pthread_create(&threads[i], NULL, ask_flood_thread,
					   &f);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	other = atomic_load(&f.other);
	if (other)
		fail("a failed ask answered %s, want EACCES or EAGAIN",
		     other == INT_MIN ? "success" : got_name(other));
	if (atomic_load(&f.limited))
		pass("repeated failed asks get EAGAIN (after %d EACCES from "
		     "%u threads)", atomic_load(&f.failed), started);
	else
		fail("%d failed asks from %u threads, never EAGAIN",
		     atomic_load(&f.failed), started);
	expect(lite_free(lh), 0, "free the LMR");
	return finish();
}

/* ---- revoke-owner, revoke-mapper ------------------------------------- */

#define SEED_P(id)	((id) * 2 + 1)	/* published, and written back */
#define SEED_Q(id)	((id) * 2 + 2)	/* the owner's reuse of the memory */

static int cmd_revoke_owner(unsigned int node, uint64_t id)
{
	uint8_t *buf = malloc(REVOKE_SIZE);
	int lh, reuse[REVOKE_REUSE], n = 0, i, me;

	me = me_or_fail();
	if (me < 0 || !buf)
		return finish();
	if ((unsigned int)me != node) {
		fprintf(stderr, "%s: revoke-owner runs on node %u, this is "
			"node %d\n", self_name, node, me);
		return 2;
	}
	lh = lite_alloc(me, REVOKE_SIZE, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 256 KiB on this node"))
		return finish();
	fill(buf, REVOKE_SIZE, SEED_P(id));
	if (!expect(lite_write(lh, 0, buf, REVOKE_SIZE, PASSWORD,
			       LITE_PRIO_NORMAL), 0, "fill it with P") ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ | LITE_PERM_WRITE,
				 PASSWORD), 0, "publish it as %llu",
		    (unsigned long long)id))
		return finish();
	puts("ready");
	read_line();
	expect(lite_free(lh), 0, "free it while the mapper reads and writes");
	/* Likely the same pages again: they must never show through. */
	for (i = 0; i < REVOKE_REUSE; i++) {
		reuse[n] = lite_alloc(me, REVOKE_SIZE, 0, PASSWORD);
		if (!step(reuse[n], "reuse: alloc 256 KiB"))
			break;
		fill(buf, REVOKE_SIZE, SEED_Q(id));
		step(lite_write(reuse[n], 0, buf, REVOKE_SIZE, PASSWORD,
				LITE_PRIO_NORMAL), "reuse: fill with Q");
		n++;
	}
	puts("freed");
	while (read_line())
		;
	/* The revoked handle wrote P back in a loop: none of it got here. */
	for (i = 0; i < n; i++) {
		if (step(lite_read(reuse[i], 0, buf, REVOKE_SIZE, PASSWORD,
				   LITE_PRIO_NORMAL), "reuse: read back"))
			expect_pattern(buf, REVOKE_SIZE, SEED_Q(id),
				       "reused LMR %d still holds Q", i);
		step(lite_free(reuse[i]), "reuse: free");
	}
	free(buf);
	return finish();
}

/* A read that succeeded: only P may be in it. */
static void revoke_judge_read(const uint8_t *buf, uint64_t id,
			      unsigned long nth)
{
	uint8_t *p = malloc(REVOKE_SIZE), *q = malloc(REVOKE_SIZE);
	size_t i, diff = 0, as_q = 0, zero = 0, first = 0;

	if (!p || !q) {
		fail("malloc: %s", strerror(errno));
		goto out;
	}
	fill(p, REVOKE_SIZE, SEED_P(id));
	fill(q, REVOKE_SIZE, SEED_Q(id));
	for (i = 0; i < REVOKE_SIZE; i++) {
		if (buf[i] == p[i])
			continue;
		if (!diff++)
			first = i;
		as_q += buf[i] == q[i];
		zero += !buf[i];
	}
	if (diff)
		fail("read %lu succeeded with data other than P: %zu bytes "
		     "differ from 0x%zx (%zu as the owner's new data Q, %zu "
		     "zero)", nth, diff, first, as_q, zero);
out:
	free(p);
	free(q);
}

static int cmd_revoke_mapper(unsigned int node, uint64_t id)
{
	static const int dead[] = { EKEYREVOKED, ENOTCONN };
	uint8_t *buf = malloc(REVOKE_SIZE), *pat = malloc(REVOKE_SIZE);
	unsigned long reads = 0, writes = 0;
	bool told = false, after;
	int h, ret = 0, err, i;

	if (me_or_fail() < 0 || !buf || !pat)
		return finish();
	fill(pat, REVOKE_SIZE, SEED_P(id));
	h = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE, PASSWORD);
	if (!expect(h, 0, "ask %llu on node %u", (unsigned long long)id,
		    node))
		return finish();
	ret = lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD, LITE_PRIO_NORMAL);
	if (!step(ret, "first read") ||
	    !expect_pattern(buf, REVOKE_SIZE, SEED_P(id), "it holds P"))
		return finish();
	puts("mapped");
	/*
	 * Until the first error. Once the script says the owner freed the
	 * LMR, an access that starts must fail; before, it may race.
	 */
	for (;;) {
		after = told;
		ret = lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD,
				LITE_PRIO_NORMAL);
		if (ret < 0)
			break;
		revoke_judge_read(buf, id, ++reads);
		if (after) {
			fail("read %lu succeeded after the owner freed the "
			     "LMR", reads);
			break;
		}
		ret = lite_write(h, 0, pat, REVOKE_SIZE, PASSWORD,
				 LITE_PRIO_NORMAL);
		if (ret < 0)
			break;
		writes++;
		if (!told && line_ready()) {
			read_line();
			told = true;
		}
	}
	info("%lu reads and %lu writes succeeded before the first error",
	     reads, writes);
	err = EKEYREVOKED;
	if (ret < 0 && expect_any(ret, dead, ARRAY_SIZE(dead),
				  "first failed access"))
		err = -ret;
	if (!told)
		read_line();
	/* Dead for good: the same answer every time, after the reuse too. */
	for (i = 0; i < REVOKE_AFTER; i++) {
		expect(lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD,
				 LITE_PRIO_NORMAL), err, "read again (%d)",
		       i + 1);
		expect(lite_write(h, 0, pat, REVOKE_SIZE, PASSWORD,
				  LITE_PRIO_NORMAL), err, "write again (%d)",
		       i + 1);
	}
	expect(lite_unmap(h), 0, "unmap the dead handle");
	free(buf);
	free(pat);
	return finish();
}

/* ---- devgone --------------------------------------------------------- */

static int cmd_devgone(unsigned int remote)
{
	uint8_t buf[4096];
	int me, local, far, ret;

	me = me_or_fail();
	if (me < 0)
		return finish();
	local = lite_alloc(me, 64 * KiB, 0, PASSWORD);
	far = lite_alloc(remote, 64 * KiB, 0, PASSWORD);
	if (!expect(local, 0, "alloc 64 KiB on this node (%d)", me) ||
	    !expect(far, 0, "alloc 64 KiB on node %u", remote) ||
	    !round_trip(local, buf, sizeof(buf), 0xde60, "local LMR") ||
	    !round_trip(far, buf, sizeof(buf), 0xde61, "remote LMR"))
		return finish();
	puts("ready");
	read_line();
	/* An answer, not a hang; which one depends on how far the leave got. */
	ret = lite_read(far, 0, buf, sizeof(buf), PASSWORD, LITE_PRIO_NORMAL);
	if (ret < 0)
		pass("read the remote LMR without a device -> %s",
		     errname(-ret));
	else
		fail("read the remote LMR without a device succeeded");
	ret = lite_read(local, 0, buf, sizeof(buf), PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret < 0)
		info("read the local LMR without a device -> %s",
		     errname(-ret));
	else
		expect_pattern(buf, sizeof(buf), 0xde60,
			       "read the local LMR without a device: intact");
	info("free remote -> %s", got_name(lite_free(far)));
	info("free local -> %s", got_name(lite_free(local)));
	pass("exits with both handles (the file's release cleans up)");
	return finish();
}

/* ---- RPC calls in flight -------------------------------------------- */

/* A port that takes requests and never answers; they fail when it exits. */
static int cmd_calls_server(unsigned int port)
{
	if (!expect(lite_rpc_register(port, 64, "test_security calls"), 0,
		    "register port %u", port))
		return finish();
	puts("ready");
	read_line();
	return finish();
}

static int silent_call(unsigned int node, unsigned int port)
{
	uint8_t req = 1, reply[64];

	return lite_rpc_call(node, port, &req, sizeof(req), reply,
			     sizeof(reply), LITE_PRIO_NORMAL);
}

/*
 * Calls nobody answers, one after the other: each gives up after
 * rpc_timeout_ms but still counts (its reply buffer waits for a late
 * answer), until the server's exit answers them all with ECONNREFUSED.
 */
static int cmd_calls(unsigned int node, unsigned int port)
{
	long limit = param("user_calls"), n;
	int ret = 0, i;

	if (getuid() == 0)
		fail("calls runs as an unprivileged user (root is exempt)");
	if (me_or_fail() < 0 || limit < 0)
		return finish();
	for (n = 0; n < limit + 2; n++) {
		ret = silent_call(node, port);
		if (ret == -EDQUOT)
			break;
		if (!expect(ret, ETIMEDOUT, "unanswered call %ld", n + 1))
			return finish();
	}
	expect_limit("user_calls: unanswered calls", n, ret, limit);
	puts("ready");
	read_line();	/* the server has exited */
	for (i = 0; i < 100; i++) {
		ret = silent_call(node, port);
		if (ret != -EDQUOT)
			break;
		usleep(100 * 1000);
	}
	expect(ret, ECONNREFUSED,
	       "the server's exit gave the calls back (after %d ms)", i * 100);
	return finish();
}

/* Another user while the first sits at user_calls: its call goes out. */
static int cmd_calls_other(unsigned int node, unsigned int port)
{
	if (me_or_fail() < 0)
		return finish();
	expect(silent_call(node, port), ETIMEDOUT,
	       "uid %u: a call to the silent port times out (not EDQUOT)",
	       (unsigned int)getuid());
	return finish();
}

/* ---- RPC ports and rings -------------------------------------------- */

/*
 * Register each of @ports in order: an unprivileged user gets the first
 * user_ports of them (fewer if it holds others) and EDQUOT for the rest.
 */
static int cmd_ports(char **ports, int n)
{
	long limit = getuid() ? param("user_ports") : LONG_MAX;
	unsigned int port;
	int i, ret;

	if (limit < 0)
		return finish();
	for (i = 0; i < n; i++) {
		port = (unsigned int)parse_num(ports[i], "PORT", 0, 63);
		ret = lite_rpc_register(port, 64, "test_security ports");
		if (i < limit)
			expect(ret, 0, "uid %u: register port %u (%d of user_ports %ld)",
			       (unsigned int)getuid(), port, i + 1, limit);
		else
			expect(ret, EDQUOT, "uid %u: register port %u past user_ports %ld",
			       (unsigned int)getuid(), port, limit);
	}
	puts("ready");
	fflush(stdout);
	read_line();
	return finish();
}

/* One message to (@node, @port): it goes out, or fails with @want. */
static int cmd_send(unsigned int node, unsigned int port, const char *want)
{
	static const struct { const char *name; int err; } errs[] = {
		{ "0", 0 }, { "EDQUOT", EDQUOT },
		{ "ECONNREFUSED", ECONNREFUSED },
	};
	uint8_t msg = 1;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errs); i++)
		if (!strcmp(want, errs[i].name))
			break;
	if (i == ARRAY_SIZE(errs)) {
		fail("send: ERRNO %s is not 0, EDQUOT or ECONNREFUSED", want);
		return finish();
	}
	if (me_or_fail() < 0)
		return finish();
	expect(lite_rpc_send(node, port, &msg, sizeof(msg), LITE_PRIO_NORMAL),
	       errs[i].err, "uid %u: a message to node %u port %u",
	       (unsigned int)getuid(), node, port);
	return finish();
}

/* ---- command line ---------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_security open-denied | join-denied\n"
		"       test_security zc-fork|zc-mremap|zc-fdpass NODE\n"
		"       test_security limits|limits-other|limits-exempt NODE\n"
		"       test_security calls-server PORT\n"
		"       test_security calls|calls-other NODE PORT\n"
		"       test_security ports PORT...\n"
		"       test_security send NODE PORT 0|EDQUOT|ECONNREFUSED\n"
		"       test_security lock-contend NODE NPROC ROUNDS\n"
		"       test_security lock-foreign NODE LOCK\n"
		"       test_security barrier NR\n"
		"       test_security ask-oracle NODE ID\n"
		"       test_security revoke-owner|revoke-mapper NODE ID\n"
		"       test_security devgone NODE\n"
		"The header of lite/tests/test_security.c says what each "
		"checks.\n");
}

#define NODE_ARG(i)	((unsigned int)parse_num(argv[i], "NODE", 0, 63))
#define UINT_ARG(i, w)	((unsigned int)parse_num(argv[i], w, 0, INT_MAX))
#define ID_ARG(i)	parse_num(argv[i], "ID", 0, UINT64_MAX / 4)

/* The commands of a NODE. */
static const struct {
	const char	*name;
	int		(*fn)(unsigned int node);
} node_cmds[] = {
	{ "zc-fork", cmd_zc_fork },
	{ "zc-mremap", cmd_zc_mremap },
	{ "zc-fdpass", cmd_zc_fdpass },
	{ "limits", cmd_limits },
	{ "limits-other", cmd_limits_other },
	{ "limits-exempt", cmd_limits_exempt },
	{ "devgone", cmd_devgone },
};

/* NODE and a number, named @arg in a usage error. */
static const struct {
	const char	*name;
	const char	*arg;
	int		(*fn)(unsigned int node, unsigned int n);
} node_num_cmds[] = {
	{ "calls", "PORT", cmd_calls },
	{ "calls-other", "PORT", cmd_calls_other },
	{ "lock-waiter", "LOCK", cmd_lock_waiter },
	{ "lock-foreign", "LOCK", cmd_lock_foreign },
};

/* NODE ID. */
static const struct {
	const char	*name;
	int		(*fn)(unsigned int node, uint64_t id);
} node_id_cmds[] = {
	{ "ask-oracle", cmd_ask_oracle },
	{ "revoke-owner", cmd_revoke_owner },
	{ "revoke-mapper", cmd_revoke_mapper },
};

int main(int argc, char *argv[])
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int n = argc - 2;
	size_t i;

	check_start(self_name, usage);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(node_cmds); i++)
		if (!strcmp(cmd, node_cmds[i].name) && n == 1)
			return node_cmds[i].fn(NODE_ARG(2));
	for (i = 0; i < ARRAY_SIZE(node_num_cmds); i++)
		if (!strcmp(cmd, node_num_cmds[i].name) && n == 2)
			return node_num_cmds[i].fn(NODE_ARG(2),
						   UINT_ARG(3, node_num_cmds[i].arg));
	for (i = 0; i < ARRAY_SIZE(node_id_cmds); i++)
		if (!strcmp(cmd, node_id_cmds[i].name) && n == 2)
			return node_id_cmds[i].fn(NODE_ARG(2), ID_ARG(3));
	if (!strcmp(cmd, "open-denied") && n == 0)
		return cmd_open_denied();
	if (!strcmp(cmd, "join-denied") && n == 0)
		return cmd_join_denied();
	if (!strcmp(cmd, "zc-fdpass-recv") && n == 1)
		return cmd_zc_fdpass_recv(UINT_ARG(2, "socket"));
	if (!strcmp(cmd, "calls-server") && n == 1)
		return cmd_calls_server(UINT_ARG(2, "PORT"));
	if (!strcmp(cmd, "barrier") && n == 1)
		return cmd_barrier(UINT_ARG(2, "NR"));
	if (!strcmp(cmd, "ports") && n >= 1)
		return cmd_ports(argv + 2, n);
	if (!strcmp(cmd, "send") && n == 3)
		return cmd_send(NODE_ARG(2), UINT_ARG(3, "PORT"), argv[4]);
	if (!strcmp(cmd, "lock-contend") && n == 3)
		return cmd_lock_contend(NODE_ARG(2), UINT_ARG(3, "NPROC"),
					UINT_ARG(4, "ROUNDS"));
	if (!strcmp(cmd, "lock-worker") && n == 5)
		return cmd_lock_worker(NODE_ARG(2), UINT_ARG(3, "LOCK"),
				       ID_ARG(4), UINT_ARG(5, "ROUNDS"),
				       UINT_ARG(6, "K"));
	usage(stderr);
	return 2;
}
