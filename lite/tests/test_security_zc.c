// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Zero-copy buffers: shared with a forked child, never moved by mremap,
 * and an open file passed to another process reaching only that
 * process's memory; a read posted without waiting completing only into
 * the memory of the process that posted it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test_security.h"

#define ZC_SIZE			MiB

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

int cmd_zc_fork(unsigned int node)
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

int cmd_zc_mremap(unsigned int node)
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
int cmd_zc_fdpass_recv(int sock)
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

int cmd_zc_fdpass(unsigned int node)
{
	if (me_or_fail() < 0)
		return finish();
	zc_fdpass_fork(node);
	zc_fdpass_scm(node);
	return finish();
}

/* ---- async-fdpass: a posted read lands only in its poster's memory ---- */

#define ASYNC_SIZE	(64 * KiB)
#define SEED_D		0xfda55a04ULL	/* the poster's buffer */
#define SEED_E		0xfda55a05ULL	/* the LMR */
#define OTHERS		0x5a		/* the other process's memory */
#define POLL_MS		10000

/* A read of the LMR's first @len bytes into @buf, posted as @id. */
static int post_read(int fd, uint32_t handle, void *buf, uint64_t len,
		     uint64_t id)
{
	struct lite_ioc_post p = {
		.handle = handle, .password = PASSWORD, .size = len,
		.addr = (uintptr_t)buf, .id = id, .op = LITE_POST_READ,
	};

	return raw_ioctl(fd, LITE_IOC_POST, &p);
}

/*
 * POLL for one completion into @c, waiting up to @ms: how many were
 * reaped (0 or 1) or -errno; @left, if not NULL, gets what is still
 * posted.
 */
static int poll_one(int fd, struct lite_completion *c, int ms,
		    uint32_t *left)
{
	struct lite_ioc_poll p = {
		.addr = (uintptr_t)c, .max = 1, .timeout_ms = ms,
	};
	int ret = raw_ioctl(fd, LITE_IOC_POLL, &p);

	if (left)
		*left = p.outstanding;
	return ret ? ret : (int)p.nr;
}

/* The fence: wait for all, reap all; 0 or the first failure's -errno. */
static int fence(int fd)
{
	struct lite_ioc_poll p = {
		.flags = LITE_POLL_FENCE, .timeout_ms = POLL_MS,
	};

	return raw_ioctl(fd, LITE_IOC_POLL, &p);
}

/* One completion reaped, of id @lo..@hi, with status @want. */
static bool expect_reaped(int fd, uint64_t lo, uint64_t hi, int want,
			  const char *what)
{
	struct lite_completion c = { .id = UINT64_MAX, .status = 1 };
	int n = poll_one(fd, &c, POLL_MS, NULL);

	if (n != 1) {
		fail("%s: POLL reaped %s", what,
		     n < 0 ? errname(-n) : "nothing in 10 s");
		return false;
	}
	if (c.id < lo || c.id > hi) {
		fail("%s: completion id %llu, not one posted (%llu..%llu)",
		     what, (unsigned long long)c.id, (unsigned long long)lo,
		     (unsigned long long)hi);
		return false;
	}
	errno = -c.status;	/* what expect() holds a failure against */
	return expect(c.status, want, "%s (id %llu)", what,
		      (unsigned long long)c.id);
}

/* @buf should be all @byte: the other process's memory, untouched. */
static bool expect_filled(const uint8_t *buf, size_t len, uint8_t byte,
			  const char *what)
{
	uint8_t *want = malloc(len);
	bool ok;

	if (!want) {
		fail("%s: malloc: %s", what, strerror(errno));
		return false;
	}
	memset(want, byte, len);
	ok = expect_bytes(buf, want, len, 0, "%s", what);
	free(want);
	return ok;
}

/* Nothing posted on @fd is left to reap. */
static void expect_none_left(int fd, const char *who)
{
	struct lite_completion c;
	uint32_t left = UINT32_MAX;
	int n = poll_one(fd, &c, 0, &left);

	if (n == 0 && left == 0)
		pass("%s: nothing left to reap", who);
	else
		fail("%s: POLL gave %s with %u outstanding", who,
		     n < 0 ? errname(-n) : n ? "a completion" : "none", left);
}

/* The poster, after another process reaped: its own post works. */
static void async_poster_after(const char *who, int fd, uint32_t handle,
			       uint8_t *buf, uint64_t id)
{
	char what[128];

	expect_pattern(buf, ASYNC_SIZE, SEED_D,
		       "%s: the poster's buffer is untouched by the other "
		       "process's reaps", who);
	expect_none_left(fd, who);
	snprintf(what, sizeof(what), "%s: the poster's own read, reaped by "
		 "the poster", who);
	if (step(post_read(fd, handle, buf, ASYNC_SIZE, id), "%s: post", what) &&
	    expect_reaped(fd, id, id, 0, what))
		expect_pattern(buf, ASYNC_SIZE, SEED_E,
			       "%s: the poster's buffer got the LMR", who);
}

struct async_fork {
	int		fd;
	uint32_t	handle;
	uint8_t		*buf;
};

/* A child of fork: the parent's read is not its to complete. */
static void async_fork_child(void *arg)
{
	struct async_fork *f = arg;

	if (expect_reaped(f->fd, 1, 1, EACCES, "fork child: reaping the "
			  "parent's posted read"))
		expect_pattern(f->buf, ASYNC_SIZE, SEED_D,
			       "fork child: its copy of the parent's buffer "
			       "is unchanged");
	/* Its own read, to the same address: that lands in its copy. */
	memset(f->buf, OTHERS, ASYNC_SIZE);
	if (step(post_read(f->fd, f->handle, f->buf, ASYNC_SIZE, 2),
		 "fork child: post its own read") &&
	    expect_reaped(f->fd, 2, 2, 0, "fork child: its own read"))
		expect_pattern(f->buf, ASYNC_SIZE, SEED_E,
			       "fork child: its own memory got the LMR");
}

/* The receiving process: exec'd, so nothing of the poster's but the fd. */
int cmd_async_fdpass_recv(int sock)
{
	struct fdpass_msg m;
	uint8_t *want, *p;
	int fd = recv_fd(sock, &m);

	if (!expect(fd, 0, "receiver: got the poster's /dev/lite over "
		    "SCM_RIGHTS"))
		return 1;
	want = (uint8_t *)(uintptr_t)m.addr;
	/* Not over something of ours: a fresh exec rarely has anything there. */
	p = mmap(want, m.len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != want) {
		fail("receiver: map its own memory at %p: %s", want,
		     p == MAP_FAILED ? strerror(errno) : "mapped elsewhere");
		return 1;
	}
	memset(p, OTHERS, m.len);
	/* Two posted by the poster: one by POLL, the other by the fence. */
	expect_reaped(fd, 1, 2, EACCES,
		      "receiver: reaping a read the poster posted");
	expect(fence(fd), EACCES,
	       "receiver: the fence over the poster's other read");
	expect_filled(p, m.len, OTHERS, "receiver: its memory at the "
		      "poster's buffer address is unchanged");
	expect_none_left(fd, "receiver");
	/* The file still works for its own posts, to that same address. */
	if (step(post_read(fd, m.handle, p, m.len, 3),
		 "receiver: post its own read") &&
	    expect_reaped(fd, 3, 3, 0, "receiver: its own read"))
		expect_pattern(p, m.len, SEED_E,
			       "receiver: its own memory got the LMR");
	return nr_failures() ? 1 : 0;
}

/*
 * The poster's side: an LMR of SEED_E on @node, reads of it posted into a
 * buffer of SEED_D, the file then shared with a forked child or, if @scm,
 * passed to a fresh process over a unix socket.
 */
static void async_fdpass(unsigned int node, bool scm)
{
	const char *who = scm ? "SCM_RIGHTS" : "fork";
	struct lite_ioc_alloc a = { .node = node, .size = ASYNC_SIZE,
				    .password = PASSWORD };
	struct lite_ioc_handle h = { 0 };
	struct fdpass_msg m = { .len = ASYNC_SIZE };
	uint8_t *buf = MAP_FAILED, *in = malloc(ASYNC_SIZE);
	struct async_fork f;
	char sockarg[16];
	int fd, sv[2] = { -1, -1 };
	pid_t pid;

	/* A file of its own, as in zc-fdpass: liblite's is not passed on. */
	fd = dev_open();
	if (!expect(fd, 0, "%s: open /dev/lite", who))
		goto out;
	if (!in) {
		fail("%s: malloc: %s", who, strerror(errno));
		goto out;
	}
	if (!expect(raw_ioctl(fd, LITE_IOC_ALLOC, &a), 0,
		    "%s: alloc 64 KiB on node %u", who, node))
		goto out;
	h.handle = a.handle;
	fill(in, ASYNC_SIZE, SEED_E);
	if (!step(raw_rw(fd, LITE_IOC_WRITE, a.handle, 0, in, ASYNC_SIZE),
		  "%s: fill the LMR", who))
		goto out_lmr;
	buf = mmap(NULL, ASYNC_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fail("%s: mmap: %s", who, strerror(errno));
		goto out_lmr;
	}
	fill(buf, ASYNC_SIZE, SEED_D);
	if (!step(post_read(fd, a.handle, buf, ASYNC_SIZE, 1),
		  "%s: post a read into the poster's buffer", who))
		goto out_buf;
	if (!scm) {
		f = (struct async_fork){ .fd = fd, .handle = a.handle,
					 .buf = buf };
		pid = fork_child(async_fork_child, &f);
		expect_child(pid, "fork child");
		async_poster_after(who, fd, a.handle, buf, 3);
		goto out_buf;
	}
	if (!step(post_read(fd, a.handle, buf, ASYNC_SIZE, 2),
		  "%s: post a second read", who))
		goto out_buf;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		fail("socketpair: %s", strerror(errno));
		goto out_buf;
	}
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	snprintf(sockarg, sizeof(sockarg), "%d", sv[1]);
	pid = spawn_self((char *const[]){ (char *)self_name,
					  "async-fdpass-recv", sockarg, NULL });
	close(sv[1]);
	m.addr = (uintptr_t)buf;
	m.handle = a.handle;
	expect(send_fd(sv[0], fd, &m), 0, "SCM_RIGHTS: pass the fd");
	close(sv[0]);
	expect_child(pid, "SCM_RIGHTS receiver");
	async_poster_after(who, fd, a.handle, buf, 4);
out_buf:
	fence(fd);	/* whatever an early exit left posted */
	if (buf != MAP_FAILED)
		munmap(buf, ASYNC_SIZE);
out_lmr:
	expect(raw_ioctl(fd, LITE_IOC_FREE, &h), 0, "%s: free the LMR", who);
out:
	if (fd >= 0)
		close(fd);
	free(in);
}

int cmd_async_fdpass(unsigned int node)
{
	int me = me_or_fail();

	if (me < 0)
		return finish();
	/* On this node's own LMR a posted read is copied at once. */
	if ((unsigned int)me == node) {
		fail("NODE must be another node than this one (%d): a posted "
		     "read of a local LMR is copied when posted", me);
		return finish();
	}
	async_fdpass(node, false);
	async_fdpass(node, true);
	return finish();
}
