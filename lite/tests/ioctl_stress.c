// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioctl_stress: a bounded random sequence of raw /dev/lite ioctls, in the
 * spirit of syzkaller and trinity. Run by tests/debug/40-ioctl-stress as
 * an unprivileged user in group lite on every node of a joined cluster at
 * once (make test-debug: on the debug kernel, KASAN and lockdep).
 *
 *   ioctl_stress SECONDS SEED [PEER_NODE...]
 *
 * For SECONDS it issues every LITE_IOC_* on NR_FDS open files (JOIN only
 * now and then: without CAP_NET_ADMIN it must get EPERM), each choice
 * drawn from a generator seeded with SEED: mostly valid arguments (its
 * handles with their passwords, offsets inside its LMRs, this node's id
 * and the PEER_NODEs, the ports it registered, the descriptors it
 * received, its locks, real buffers), mixed with invalid ones (offsets
 * and lengths past the end, huge or wrapping u64, NULL, unmapped,
 * read-only, kernel and just-unmapped pointers, argument structs that
 * fault or straddle into a guard page, handles of another open file or
 * made up, wrong passwords, bad ports, priorities, flags and reserved
 * fields, unknown ioctl numbers with LITE's magic and known ones with the
 * wrong size or direction). In between, at random: close and reopen (or
 * dup) a file; fork a child that runs a short sequence on the inherited
 * files and _exits (reaped; SIGSTOP/SIGCONT now and then); mmap, munmap,
 * mremap, madvise and split zero-copy buffers of /dev/lite and plain
 * anonymous memory, used as buffers; change the period of a SIGALRM
 * interval timer whose empty handler (no SA_RESTART) interrupts blocking
 * calls with EINTR. Blocking calls are bounded by that timer, by
 * LITE_RECV_NONBLOCK and poll timeouts, and by the module's timeouts.
 *
 * Every ioctl must return 0 (MCALL: how many replied) or fail with an
 * errno LITE returns (errno_ok()); ENOTTY only for an unknown number,
 * EFAULT for an argument struct that faults, EPERM for JOIN. Anything
 * else prints "unexpected: IOCTL errno NAME (...)" and is counted; the
 * run goes on. The last line is
 *   stress: seconds=N seed=S ops=N forks=N closes=N maps=N unexpected=N
 * Exit status: 0 if nothing was unexpected, 1 otherwise, 2 on a usage or
 * setup error. The same SEED replays the same choices (what the kernel
 * answers, and so what follows, may still differ with timing).
 *
 * Its own memory is safe by construction: the kernel gets, for anything
 * it may write, either a buffer of ours with room for every byte, or an
 * address whose first byte faults (NULL, page 0, a PROT_NONE guard, a
 * read-only mapping, kernel and non-canonical addresses) or a scratch page
 * followed by the guard. A posted read is copied when reaped, maybe
 * later: it only ever gets memory that stays mapped for the whole run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../include/uapi/lite.h"
#include "check.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define PAGE			4096ULL
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define NR_FDS			4	/* open files of /dev/lite */
#define MAX_PEERS		16
#define MAX_HANDLES		48
#define MAX_PUBS		16
#define MAX_PORTS		8
#define MAX_DESCS		16
#define MAX_LOCKS		16
#define MAX_MAPS		8
#define MAX_KIDS		2
#define MAX_REPORTS		100	/* unexpected results printed */

#define ARENA_SIZE		(4 * MiB)	/* scratch, mapped for good */
#define ARENA_ROOM		(2 * MiB)	/* room after each pointer */
#define RO_SIZE			(32 * MiB)	/* read-only zeros */
#define GUARD_SIZE		(64 * MiB)	/* PROT_NONE, after the edge */
#define MAP_MAX			(1 * MiB)	/* largest map of ours */
#define LMR_MAX			(1 * MiB)	/* largest LMR it allocates */
#define MSG_MAX			(64 * KiB)	/* largest port it registers */
#define PORT_BASE		48	/* every run registers these ports */
#define NR_PORTS		8
#define IDENT_BASE		0x57e5500000000000ULL
#define NR_IDENTS		32
#define CHILD_MS		2000	/* a child starts no op after this */
#define CHILD_OPS		64
#define KID_KILL_MS		120000	/* a child still running is killed */
#define KID_GONE_MS		60000	/* ... and given up on after this */
#define KERNEL_PTR		0xffff888000000000ULL
#define NONCANON_PTR		0x0000800000000000ULL

struct handle {
	bool		used;
	bool		old;	/* inherited by a child: not its to drop */
	int		slot;	/* the open file that got it */
	uint32_t	lh;
	uint32_t	node;
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

struct pub {
	bool		used;
	uint64_t	ident;
	uint32_t	node;	/* the owner, where it is published */
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

struct port {
	bool		used;
	int		slot;
	uint32_t	port;
};

struct desc {
	bool		used;
	int		slot;
	uint64_t	desc;
};

struct lock {
	bool		used;
	bool		old;
	uint32_t	node;
	uint32_t	id;
};

struct map {
	bool		used;
	bool		zc;	/* a zero-copy buffer of /dev/lite */
	bool		ro;	/* mapped PROT_READ */
	bool		inherit;	/* a forked child has it too */
	uint8_t		*addr;
	size_t		len;
};

struct kid {
	pid_t		pid;	/* 0: none */
	bool		killed;
	uint64_t	start_ms;
};

/* A handle to use: maybe from the table, maybe on another file, made up. */
struct target {
	int		slot;
	uint32_t	lh;
	uint32_t	node;
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

static struct {
	struct rng	r;
	bool		child;
	bool		root;
	int		fds[NR_FDS];
	uint32_t	me;
	uint32_t	peers[MAX_PEERS];
	unsigned int	nr_peers;
	struct handle	h[MAX_HANDLES];
	struct pub	pubs[MAX_PUBS];
	struct port	ports[MAX_PORTS];
	struct desc	descs[MAX_DESCS];
	struct lock	locks[MAX_LOCKS];
	struct map	maps[MAX_MAPS];
	struct kid	kids[MAX_KIDS];
	uint8_t		*arena;
	uint8_t		*ro;
	uint8_t		*ro_arg;	/* a page, read-only but when filled */
	uint8_t		*edge;		/* one RW page, the guard right after */
	uint8_t		*guard;
	uint64_t	stale;		/* just unmapped: the next buffer */
	uint64_t	stale_len;
	uint64_t	cookie;
	unsigned long	ops, forks, closes, maps_done, unexpected;
	unsigned int	reports;
} st;

/* ---- small helpers ---------------------------------------------------- */

static uint64_t rnd(uint64_t n)
{
	return rng_below(&st.r, n);
}

static uint64_t rnd64(void)
{
	return rng_next(&st.r);
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep about @ms; a signal may cut it short. */
static void nap_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM every @ms (0: never), to interrupt whatever blocks. */
static void set_timer(unsigned int ms)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = ms / 1000,
				 .tv_usec = (long)(ms % 1000) * 1000 },
	};

	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* One line, whole: the timer must not cut a write to a pipe short. */
static void say(const char *fmt, ...) CHECK_FMT(1, 2);
static void say(const char *fmt, ...)
{
	sigset_t block, old;
	va_list ap;

	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &old);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void unexpected(const char *fmt, ...) CHECK_FMT(1, 2);
static void unexpected(const char *fmt, ...)
{
	char what[256];
	va_list ap;

	st.unexpected++;
	if (st.reports >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	say("unexpected: %s (pid %d, op %lu)\n", what, (int)getpid(), st.ops);
	if (++st.reports == MAX_REPORTS)
		say("info further unexpected results are only counted\n");
}

/*
 * A random used entry of a table whose entries start with "bool used",
 * or -1 if none is.
 */
static int pick_used(const void *tab, size_t stride, unsigned int n)
{
	unsigned int start = rnd(n), i, k;

	for (i = 0; i < n; i++) {
		k = (start + i) % n;
		if (*(const bool *)((const char *)tab + k * stride))
			return k;
	}
	return -1;
}

/* The first unused entry, or -1. */
static int pick_unused(const void *tab, size_t stride, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!*(const bool *)((const char *)tab + k * stride))
			return k;
	return -1;
}

#define PICK(tab)	pick_used(tab, sizeof((tab)[0]), ARRAY_SIZE(tab))
#define UNUSED(tab)	pick_unused(tab, sizeof((tab)[0]), ARRAY_SIZE(tab))

/* ---- the ioctls and their errnos --------------------------------------- */

static const char *const ioc_names[] = {
	[1] = "JOIN", "CLUSTER", "ALLOC", "FREE", "UNMAP", "WRITE", "READ",
	"MEMSET", "MEMCPY", "MEMMOVE", "PUBLISH", "ASK", "LMR_INFO",
	"REGISTER", "QUERY_PORT", "CALL", "SEND", "RECV", "REPLY",
	"REPLY_RECV", "ATOMIC", "LOCK_CREATE", "LOCK_ASK", "LOCK", "UNLOCK",
	"BARRIER", "LOCK_DESTROY", "POST", "POLL", "MCALL",
};

static const unsigned long ioc_cmds[] = {
	[1] = LITE_IOC_JOIN, LITE_IOC_CLUSTER, LITE_IOC_ALLOC, LITE_IOC_FREE,
	LITE_IOC_UNMAP, LITE_IOC_WRITE, LITE_IOC_READ, LITE_IOC_MEMSET,
	LITE_IOC_MEMCPY, LITE_IOC_MEMMOVE, LITE_IOC_PUBLISH, LITE_IOC_ASK,
	LITE_IOC_LMR_INFO, LITE_IOC_REGISTER, LITE_IOC_QUERY_PORT,
	LITE_IOC_CALL, LITE_IOC_SEND, LITE_IOC_RECV, LITE_IOC_REPLY,
	LITE_IOC_REPLY_RECV, LITE_IOC_ATOMIC, LITE_IOC_LOCK_CREATE,
	LITE_IOC_LOCK_ASK, LITE_IOC_LOCK, LITE_IOC_UNLOCK, LITE_IOC_BARRIER,
	LITE_IOC_LOCK_DESTROY, LITE_IOC_POST, LITE_IOC_POLL, LITE_IOC_MCALL,
};

_Static_assert(ARRAY_SIZE(ioc_names) == ARRAY_SIZE(ioc_cmds),
	       "one name per ioctl");

/* 1..30 for a LITE_IOC_*, else 0. */
static unsigned int ioc_nr(unsigned long cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (nr && nr < ARRAY_SIZE(ioc_cmds) && ioc_cmds[nr] == cmd)
		return nr;
	return 0;
}

static const char *ioc_name(unsigned long cmd)
{
	static char other[32];
	unsigned int nr = ioc_nr(cmd);

	if (nr)
		return ioc_names[nr];
	snprintf(other, sizeof(other), "ioctl 0x%lx", cmd);
	return other;
}

/*
 * What LITE may answer a well-formed call of a known ioctl with: the
 * errnos of include/uapi/lite.h, as chardev.c, api.c and the code behind
 * them return them (ENOSPC: no lock number left, EIO: a transfer or send
 * failed, EFBIG: an LMR above LITE_LMR_MAX_SIZE). Not ENOTTY (unknown
 * numbers only), nor what only JOIN gives (EISCONN, ENODEV...), nor a
 * kernel-internal one (ERESTARTSYS, EPROTO: a malformed answer).
 */
static bool errno_ok(int err)
{
	switch (err) {
	case EINVAL: case EFAULT: case ENOENT: case EKEYREVOKED:
	case EACCES: case EAGAIN: case EDQUOT: case EPERM: case ERANGE:
	case EFBIG: case ENOTCONN: case ETIMEDOUT: case EEXIST: case ENOMEM:
	case ECONNREFUSED: case EADDRINUSE: case EMSGSIZE: case EINTR:
	case EALREADY: case EDEADLK: case EBUSY: case EIO: case ENOSPC:
		return true;
	}
	return false;
}

/* A failed mm call (mmap, munmap, mremap, mprotect, madvise). */
static void check_mm(const char *what, int err)
{
	switch (err) {
	case EINVAL: case ENOMEM: case EDQUOT: case EAGAIN: case EFAULT:
		return;
	}
	unexpected("%s errno %s", what, errname(err));
}

static void check_result(unsigned long cmd, bool faults, bool ro, int ret,
			 int err)
{
	unsigned int nr = ioc_nr(cmd);
	const char *name = ioc_name(cmd);
	bool ok;

	if (ret >= 0) {
		if (!nr)
			unexpected("%s (unknown) succeeded", name);
		else if (faults)
			unexpected("%s succeeded with a faulting argument",
				   name);
		else if (ret > 0 && cmd != LITE_IOC_MCALL)
			unexpected("%s returned %d", name, ret);
		else if (ro && _IOC_DIR(cmd) & _IOC_READ)
			unexpected("%s succeeded with its struct read-only",
				   name);
		return;
	}
	if (!nr)
		ok = err == ENOTTY;
	else if (cmd == LITE_IOC_JOIN)
		ok = err == EPERM;
	else if (faults)
		ok = err == EFAULT;
	else
		ok = errno_ok(err);
	if (!ok)
		unexpected("%s errno %s", name, errname(err));
}

/* A kernel or a non-canonical address: access_ok() refuses both. */
static uint64_t fault_addr_high(void)
{
	return rnd(2) ? KERNEL_PTR + rnd(1ULL << 30) :
			NONCANON_PTR + rnd(1ULL << 40);
}

/* Where the argument struct goes. */
enum place {
	PL_GOOD,	/* the caller's */
	PL_RO,		/* a copy in a read-only page */
	PL_NULL,	/* from here on: every read faults */
	PL_LOW,
	PL_GUARD,
	PL_EDGE,	/* the end of a page, the rest in the guard */
	PL_KERNEL,
};

static enum place pick_place(void)
{
	unsigned int c = rnd(100);

	if (c < 93)
		return PL_GOOD;
	if (c < 96)
		return PL_RO;
	return PL_NULL + rnd(PL_KERNEL - PL_NULL + 1);
}

static void *place_arg(void *arg, size_t size, enum place *pl)
{
	switch (*pl) {
	case PL_GOOD:
		break;
	case PL_RO:
		if (size > PAGE ||
		    mprotect(st.ro_arg, PAGE, PROT_READ | PROT_WRITE))
			break;
		memcpy(st.ro_arg, arg, size);
		if (mprotect(st.ro_arg, PAGE, PROT_READ))
			break;
		return st.ro_arg;
	case PL_NULL:
		return NULL;
	case PL_LOW:
		return (void *)(uintptr_t)(1 + rnd(PAGE - 1));
	case PL_GUARD:
		return st.guard + rnd(GUARD_SIZE / 2);
	case PL_EDGE:
		return st.edge + PAGE - rnd(size);
	case PL_KERNEL:
		return (void *)(uintptr_t)fault_addr_high();
	}
	*pl = PL_GOOD;
	return arg;
}

/*
 * Issue a known @cmd on @fd with the struct at @arg, or a copy of it
 * somewhere else; check the result. Return: the ioctl's result, or
 * -errno. Out fields are in @arg only on success.
 */
static int lite_ioctl(int fd, unsigned long cmd, void *arg)
{
	enum place pl = pick_place();
	void *p = place_arg(arg, _IOC_SIZE(cmd), &pl);
	int ret, err;

	ret = ioctl(fd, cmd, p);
	err = errno;
	st.ops++;
	check_result(cmd, pl >= PL_NULL, pl == PL_RO, ret, err);
	return ret < 0 ? -err : ret;
}

/* ---- arguments ------------------------------------------------------- */

static int pick_slot(void)
{
	unsigned int start = rnd(NR_FDS), i;

	for (i = 0; i < NR_FDS; i++)
		if (st.fds[(start + i) % NR_FDS] >= 0)
			return (start + i) % NR_FDS;
	return -1;
}

static uint32_t pick_node(void)
{
	unsigned int c = rnd(100);

	if (c < 45 || (c < 90 && !st.nr_peers))
		return st.me;
	if (c < 90)
		return st.peers[rnd(st.nr_peers)];
	switch (rnd(5)) {
	case 0:
		return 0;
	case 1:
		return 64;	/* LITE_MAX_NODES */
	case 2:
		return UINT32_MAX;
	case 3:
		return 1U << (6 + rnd(26));
	default:
		return 1 + rnd(63);	/* a member, or not */
	}
}

static uint32_t pick_port(void)
{
	unsigned int c = rnd(100);

	if (c < 75)
		return PORT_BASE + rnd(NR_PORTS);
	if (c < 90)
		return rnd(LITE_MAX_PORT);
	return rnd(2) ? LITE_MAX_PORT + rnd(1000) : UINT32_MAX - rnd(2);
}

static uint32_t pick_prio(void)
{
	if (chance(92))
		return rnd(3);
	return rnd(2) ? 3 + rnd(100) : UINT32_MAX - rnd(2);
}

static uint32_t pick_reserved(void)
{
	return chance(96) ? 0 : 1U << rnd(32);
}

static int32_t pick_pw(int32_t pw)
{
	if (chance(90))
		return pw;
	return rnd(2) ? (int32_t)((uint32_t)pw ^ (1U << rnd(32))) :
			(int32_t)rnd64();
}

/* Permission bits asked for: mostly within @have, not always. */
static uint32_t pick_perm(uint32_t have)
{
	uint32_t p;

	switch (rnd(12)) {
	case 0:
		return 0;
	case 1:
		return LITE_PERM_ADMIN | LITE_PERM_READ;
	case 2:
		return (uint32_t)(LITE_PERM_ALL + 1) << rnd(27);
	case 3:
		return LITE_PERM_ALL & ~LITE_PERM_ADMIN;
	default:
		p = (1 + rnd(LITE_PERM_ALL)) & have & ~LITE_PERM_ADMIN;
		return p ? p : LITE_PERM_READ;
	}
}

static uint64_t pick_ident(void)
{
	return chance(90) ? IDENT_BASE + rnd(NR_IDENTS) : rnd64();
}

/* An offset into an LMR of @size bytes, or past it. */
static uint64_t pick_off(uint64_t size)
{
	switch (rnd(16)) {
	case 0:
		return size;
	case 1:
		return size + 1 + rnd(PAGE);
	case 2:
		return UINT64_MAX - rnd(PAGE);
	case 3:
		return 1ULL << (20 + rnd(44));
	case 4:
		return size > 8 ? size - 8 : 0;
	default:
		return size ? rnd(size) : 0;
	}
}

/* A length from @off in an object of @size bytes: mostly in it. */
static uint64_t pick_len(uint64_t size, uint64_t off)
{
	uint64_t room = off < size ? size - off : 0;

	switch (rnd(16)) {
	case 0:
		return 0;
	case 1:
		return room;
	case 2:
		return room + 1;
	case 3:
		return LITE_LMR_MAX_SIZE + 1 + rnd(PAGE);
	case 4:
		return UINT64_MAX - rnd(PAGE);	/* addr + len wraps */
	case 5:
		return 1ULL << (20 + rnd(44));
	default:
		return 1 + rnd(room ? min_u64(room, 64 * KiB) : PAGE);
	}
}

/*
 * rnd(@n), returned; for 0 and 1 the edges of a count or size are put in
 * *@v: 0, or anything above @limit. The caller picks for the rest.
 */
static unsigned int pick_count_edges(unsigned int n, uint32_t limit,
				     uint32_t *v)
{
	unsigned int c = rnd(n);

	if (c == 0)
		*v = 0;
	else if (c == 1)
		*v = limit + 1 + rnd(UINT32_MAX - limit - 1);
	return c;
}

/* A message size: mostly small, sometimes at or past the limits. */
static uint32_t pick_msg_size(void)
{
	switch (rnd(16)) {
	case 0:
		return 0;
	case 1:
		return LITE_RPC_MAX_MSG;
	case 2:
		return LITE_RPC_MAX_MSG + 1 + rnd(PAGE);
	case 3:
		return UINT32_MAX - rnd(2);
	case 4:
		return MSG_MAX + 1;
	default:
		return 1 + rnd(rnd(2) ? 256 : 4096);
	}
}

static struct map *pick_map(void)
{
	int i = PICK(st.maps);

	return i < 0 ? NULL : &st.maps[i];
}

/* An address whose first byte faults on any access. */
static uint64_t fault_addr(void)
{
	switch (rnd(4)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd(PAGE - 1);	/* below mmap_min_addr */
	case 2:
		return (uintptr_t)st.guard + rnd(GUARD_SIZE / 2);
	default:
		return fault_addr_high();
	}
}

/*
 * A bad address: one that faults, the edge (a few scratch bytes, then
 * the guard) or, for an ioctl that writes there (@write), the read-only
 * zeros.
 */
static uint64_t bad_addr(bool write)
{
	unsigned int c = rnd(10);

	if (c < 6 || (c >= 8 && !write))
		return fault_addr();
	if (c < 8)
		return (uintptr_t)st.edge + PAGE - rnd(64);
	return (uintptr_t)st.ro + rnd(RO_SIZE / 4);
}

/* The just-unmapped range, once, if there is one. */
static uint64_t take_stale(void)
{
	uint64_t a = st.stale;

	if (a)
		a += rnd(st.stale_len);
	st.stale = 0;
	return a;
}

/*
 * Where an ioctl may write @len bytes (READ, RECV, a reply, completions):
 * our memory with room for all of them, or a bad address. @lasting: the
 * write may come later (a posted read, copied when reaped, maybe by a
 * child): only memory mapped for the whole run, in every process.
 */
static uint64_t dst_addr(uint64_t len, bool lasting)
{
	unsigned int c = rnd(100);
	struct map *m;
	uint64_t a;

	if (!lasting && (a = take_stale()))
		return a;
	if (c < 12 && !lasting && (m = pick_map()) && len <= m->len)
		return (uintptr_t)m->addr + rnd(m->len - len + 1);
	if (c < 85 && len <= ARENA_ROOM)
		return (uintptr_t)st.arena +
		       (rnd(4) ? rnd(ARENA_SIZE - ARENA_ROOM) :
				 rnd(ARENA_SIZE / PAGE / 2) * PAGE);
	return bad_addr(true);
}

/* Where an ioctl may read @len bytes: reading our memory harms nothing. */
static uint64_t src_addr(uint64_t len)
{
	unsigned int c = rnd(100);
	struct map *m;
	uint64_t a = take_stale();

	if (a)
		return a;
	if (c < 12 && (m = pick_map()))
		return (uintptr_t)m->addr + rnd(m->len);
	if (c < 80)
		return (uintptr_t)st.arena +
		       rnd(ARENA_SIZE - min_u64(len, ARENA_ROOM));
	if (c < 88)
		return (uintptr_t)st.ro + rnd(RO_SIZE / 4);
	return bad_addr(false);
}

/* ---- the tables ------------------------------------------------------ */

static void lite_unmap_handle(int slot, uint32_t lh);

static void add_handle(int slot, uint32_t lh, uint32_t node, uint64_t size,
		       int32_t pw, uint32_t perm)
{
	int i = UNUSED(st.h);

	if (i < 0) {	/* full: let one go */
		i = rnd(MAX_HANDLES);
		if (st.fds[st.h[i].slot] >= 0)
			lite_unmap_handle(st.h[i].slot, st.h[i].lh);
	}
	st.h[i] = (struct handle) {
		.used = true, .slot = slot, .lh = lh, .node = node,
		.size = size, .pw = pw, .perm = perm,
	};
}

static void drop_handle(int slot, uint32_t lh)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].used && st.h[i].slot == slot && st.h[i].lh == lh)
			st.h[i].used = false;
}

/* Everything that belonged to the open file in @slot. */
static void forget_slot(int slot)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].slot == slot)
			st.h[i].used = false;
	for (i = 0; i < MAX_PORTS; i++)
		if (st.ports[i].slot == slot)
			st.ports[i].used = false;
	for (i = 0; i < MAX_DESCS; i++)
		if (st.descs[i].slot == slot)
			st.descs[i].used = false;
}

static void add_pub(uint64_t ident, const struct target *t, uint32_t perm,
		    int32_t pw)
{
	int i = UNUSED(st.pubs);

	if (i < 0)
		i = rnd(MAX_PUBS);
	st.pubs[i] = (struct pub) {
		.used = true, .ident = ident, .node = t->node, .perm = perm,
		.pw = pw, .size = t->size,
	};
}

static void add_port(int slot, uint32_t port)
{
	int i = UNUSED(st.ports);

	if (i < 0)
		i = rnd(MAX_PORTS);
	st.ports[i] = (struct port) {
		.used = true, .slot = slot, .port = port,
	};
}

static void add_desc(int slot, uint64_t desc)
{
	int i = UNUSED(st.descs);

	if (i < 0)	/* never answered: its caller times out */
		i = rnd(MAX_DESCS);
	st.descs[i] = (struct desc) {
		.used = true, .slot = slot, .desc = desc,
	};
}

/*
 * A handle: from the table on its own file, on another file, a small
 * number (valid on some file, maybe), or anything.
 */
static bool pick_target(struct target *t, uint32_t want_perm)
{
	int i = -1, j, tries;
	unsigned int c = rnd(100);

	for (tries = 0; want_perm && tries < 4 && i < 0; tries++) {
		j = PICK(st.h);
		if (j >= 0 && (st.h[j].perm & want_perm) == want_perm)
			i = j;
	}
	if (i < 0)
		i = PICK(st.h);
	if (i >= 0 && c < 88) {
		*t = (struct target) {
			.slot = st.h[i].slot, .lh = st.h[i].lh,
			.node = st.h[i].node, .perm = st.h[i].perm,
			.pw = st.h[i].pw, .size = st.h[i].size,
		};
		if (c >= 76 || st.fds[t->slot] < 0)
			t->slot = pick_slot();
	} else {
		*t = (struct target) {
			.slot = pick_slot(), .node = pick_node(),
			.lh = rnd(2) ? 1 + rnd(64) : (uint32_t)rnd64(),
			.pw = (int32_t)rnd64(), .size = PAGE << rnd(9),
		};
	}
	return t->slot >= 0;
}

/* pick_target(), the handle's number in *@handle too. */
static bool pick_handle(struct target *t, uint32_t want_perm,
			uint32_t *handle)
{
	if (!pick_target(t, want_perm))
		return false;
	*handle = t->lh;
	return true;
}

/* ---- the ioctls ------------------------------------------------------ */

static void lite_unmap_handle(int slot, uint32_t lh)
{
	struct lite_ioc_handle a = { .handle = lh };

	lite_ioctl(st.fds[slot], LITE_IOC_UNMAP, &a);
	drop_handle(slot, lh);
}

static void op_cluster(void)
{
	struct lite_ioc_cluster a = { 0 };
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (chance(20))	/* out only: whatever was there before */
		rng_fill(&st.r, &a, sizeof(a));
	lite_ioctl(st.fds[slot], LITE_IOC_CLUSTER, &a);
}

/* Never for root: it could join (somewhere). Without the cap: EPERM. */
static void op_join(void)
{
	struct lite_ioc_join a = { .port = 18500 };
	int slot = pick_slot();

	if (slot < 0 || st.root || !chance(10))
		return;
	snprintf(a.manager, sizeof(a.manager), "198.18.1.%u",
		 (unsigned int)rnd(4));
	if (chance(20))
		rng_fill(&st.r, &a, sizeof(a));
	lite_ioctl(st.fds[slot], LITE_IOC_JOIN, &a);
}

static uint64_t pick_alloc_size(void)
{
	switch (rnd(20)) {
	case 0:
		return 0;
	case 1:
		return LITE_LMR_MAX_SIZE + 1 + rnd(PAGE);
	case 2:
		return UINT64_MAX - rnd(2);
	case 3:
		return 1ULL << (31 + rnd(33));
	case 4:
		return LMR_MAX;
	case 5:
	case 6:
		return 1 + rnd(LMR_MAX);
	case 7:
		return 8;
	default:
		return rnd(2) ? 1 + rnd(4 * KiB) : PAGE * (1 + rnd(16));
	}
}

static void op_alloc(void)
{
	struct lite_ioc_alloc a = {
		.node = pick_node(), .size = pick_alloc_size(),
		.password = (int32_t)rnd64(),
	};
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (chance(25))
		a.flags = LITE_ALLOC_ATOMIC;
	if (chance(3))
		a.flags = 1U << rnd(32);
	if (chance(5))
		a.handle = rnd64();	/* out only */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_ALLOC, &a))
		add_handle(slot, a.handle, a.node, a.size, a.password,
			   a.flags & LITE_ALLOC_ATOMIC ? LITE_PERM_ALL :
			   LITE_PERM_ALL & ~LITE_PERM_ATOMIC);
}

static void op_free(unsigned long cmd)
{
	struct lite_ioc_handle a = { 0 };
	struct target t;

	if (!pick_handle(&t, 0, &a.handle))
		return;
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[t.slot], cmd, &a))
		drop_handle(t.slot, t.lh);
}

static void op_rw(unsigned long cmd)
{
	bool write = cmd == LITE_IOC_WRITE;
	struct lite_ioc_rw a = { 0 };
	struct target t;

	if (!pick_handle(&t, write ? LITE_PERM_WRITE : LITE_PERM_READ,
			 &a.handle))
		return;
	a.password = pick_pw(t.pw);
	a.offset = pick_off(t.size);
	a.size = pick_len(t.size, a.offset);
	a.addr = write ? src_addr(a.size) : dst_addr(a.size, false);
	a.priority = pick_prio();
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], cmd, &a);
}

static void op_memset(void)
{
	struct lite_ioc_memset a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_WRITE, &a.handle))
		return;
	a.value = chance(95) ? rnd(256) : 256 + rnd(UINT32_MAX - 256);
	a.offset = pick_off(t.size);
	a.size = pick_len(t.size, a.offset);
	lite_ioctl(st.fds[t.slot], LITE_IOC_MEMSET, &a);
}

static void op_memcpy(unsigned long cmd)
{
	struct lite_ioc_memcpy a = { 0 };
	struct target d, s;

	if (!pick_target(&d, LITE_PERM_WRITE) ||
	    !pick_target(&s, LITE_PERM_READ))
		return;
	a.dst = d.lh;
	a.src = chance(15) ? d.lh : s.lh;	/* overlap */
	a.dst_offset = pick_off(d.size);
	a.src_offset = pick_off(s.size);
	a.size = pick_len(min_u64(d.size, s.size),
			  rnd(2) ? a.dst_offset : a.src_offset);
	lite_ioctl(st.fds[d.slot], cmd, &a);
}

static void op_publish(void)
{
	struct lite_ioc_publish a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_SHARE, &a.handle))
		return;
	a.identifier = pick_ident();
	a.perm = pick_perm(t.perm);
	a.password = chance(70) ? t.pw : (int32_t)rnd64();
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[t.slot], LITE_IOC_PUBLISH, &a))
		add_pub(a.identifier, &t, a.perm, a.password);
}

static void op_ask(void)
{
	struct lite_ioc_ask a = { 0 };
	int i = PICK(st.pubs), slot = pick_slot();
	uint64_t size = PAGE;

	if (slot < 0)
		return;
	if (i >= 0 && chance(80)) {
		a.node = chance(90) ? st.pubs[i].node : pick_node();
		a.identifier = st.pubs[i].ident;
		a.perm = pick_perm(st.pubs[i].perm);
		a.password = pick_pw(st.pubs[i].pw);
		size = st.pubs[i].size;
	} else {
		a.node = pick_node();
		a.identifier = pick_ident();
		a.perm = pick_perm(LITE_PERM_ALL);
		a.password = (int32_t)rnd64();
	}
	if (chance(5))
		a.handle = rnd64();	/* out only */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_ASK, &a))
		add_handle(slot, a.handle, a.node, size, a.password, a.perm);
}

static void op_lmr_info(void)
{
	struct lite_ioc_lmr_info a = { 0 };
	struct target t;

	if (!pick_target(&t, 0))
		return;
	rng_fill(&st.r, &a, sizeof(a));	/* the out fields: anything */
	a.handle = t.lh;
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_LMR_INFO, &a);
}

static void op_register(void)
{
	struct lite_ioc_register a = { .port = pick_port() };
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (pick_count_edges(12, LITE_RPC_MAX_MSG, &a.max_size) > 1)
		a.max_size = 1 + rnd(MSG_MAX);	/* what RECV may write */
	snprintf(a.name, sizeof(a.name), "stress-%d-%u", (int)getpid(),
		 a.port);
	if (chance(4))
		memset(a.name, 'x', sizeof(a.name));	/* unterminated */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_REGISTER, &a))
		add_port(slot, a.port);
}

static void op_query_port(void)
{
	struct lite_ioc_query_port a = {
		.node = pick_node(), .port = pick_port(),
		.max_size = rnd64(), .reserved = pick_reserved(),
	};
	int slot = pick_slot();

	if (slot >= 0)
		lite_ioctl(st.fds[slot], LITE_IOC_QUERY_PORT, &a);
}

static void op_call(unsigned long cmd)
{
	bool one_way = cmd == LITE_IOC_SEND;
	struct lite_ioc_rpc_call a = {
		.node = pick_node(), .port = pick_port(),
	};
	int slot = pick_slot(), ret;

	if (slot < 0)
		return;
	a.size = pick_msg_size();
	a.addr = src_addr(a.size);
	a.priority = pick_prio();
	if (!one_way || chance(5)) {
		a.reply_max = chance(90) ? rnd(rnd(2) ? 256 : MSG_MAX) :
					   pick_msg_size();
		a.reply_addr = dst_addr(a.reply_max, false);
	}
	if (chance(5))
		a.reply_len = rnd64();	/* out only; SEND: must be 0 */
	ret = lite_ioctl(st.fds[slot], cmd, &a);
	if (!ret && !one_way && a.reply_len > a.reply_max)
		unexpected("CALL reply_len %u > reply_max %u", a.reply_len,
			   a.reply_max);
}

/* Where MCALL may write @nr replies of up to @max bytes, @max apart. */
static uint64_t mcall_slots(uint32_t nr, uint32_t max)
{
	uint64_t need = (uint64_t)nr * max;

	if (need <= ARENA_ROOM && chance(90))
		return (uintptr_t)st.arena + rnd(ARENA_SIZE - need + 1);
	switch (rnd(4)) {	/* 16 MiB of faults behind each */
	case 0:
		return (uintptr_t)st.guard + rnd(MiB);
	case 1:
		return (uintptr_t)st.edge + PAGE - rnd(64);
	case 2:
		return (uintptr_t)st.ro + rnd(MiB);
	default:
		return KERNEL_PTR + rnd(1ULL << 30);
	}
}

static void mcall_fill(struct lite_ioc_mcall_dst *d, uint32_t nr)
{
	uint32_t all[MAX_PEERS + 1], n = 0, i;

	all[n++] = st.me;
	for (i = 0; i < st.nr_peers; i++)
		all[n++] = st.peers[i];
	for (i = 0; i < nr; i++) {
		d[i] = (struct lite_ioc_mcall_dst) {
			.node = i < n && chance(90) ? all[i] : pick_node(),
			.status = (int32_t)rnd64(), .reply_len = rnd64(),
			.reserved = pick_reserved(),
		};
	}
}

static void mcall_check(const struct lite_ioc_mcall_dst *d, uint32_t nr,
			uint32_t max, int ret)
{
	int ok = 0;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		if (!d[i].status) {
			ok++;
			if (d[i].reply_len > max)
				unexpected("MCALL reply_len %u > reply_max %u",
					   d[i].reply_len, max);
		} else if (d[i].status > 0 || !errno_ok(-d[i].status)) {
			unexpected("MCALL status errno %s",
				   errname(-d[i].status));
		}
	}
	if (ok != ret)
		unexpected("MCALL returned %d, %d statuses 0", ret, ok);
}

static void op_mcall(void)
{
	struct lite_ioc_mcall_dst d[LITE_MCAST_MAX];
	struct lite_ioc_rpc_mcall a = { .port = pick_port() };
	int slot = pick_slot(), ret;
	bool good_dsts = chance(92);

	if (slot < 0)
		return;
	a.nr = chance(90) ? 1 + rnd(min_u64(st.nr_peers + 1 + rnd(2),
					    LITE_MCAST_MAX)) :
			    (uint32_t[]){ 0, LITE_MCAST_MAX, LITE_MCAST_MAX + 1,
					  UINT32_MAX }[rnd(4)];
	if (a.nr <= LITE_MCAST_MAX)
		mcall_fill(d, a.nr);
	a.dsts = good_dsts ? (uintptr_t)d : fault_addr();
	a.size = pick_msg_size();
	a.addr = src_addr(a.size);
	a.priority = pick_prio();
	a.reply_max = chance(90) ? rnd(rnd(2) ? 256 : MSG_MAX) :
				   pick_msg_size();
	a.reply_addr = mcall_slots(a.nr <= LITE_MCAST_MAX ? a.nr : 1,
				   a.reply_max);
	a.reserved = pick_reserved();
	ret = lite_ioctl(st.fds[slot], LITE_IOC_MCALL, &a);
	if (ret < 0)
		return;
	if (!good_dsts || a.nr > LITE_MCAST_MAX)
		unexpected("MCALL of %u at %#llx succeeded", a.nr,
			   (unsigned long long)a.dsts);
	else
		mcall_check(d, a.nr, a.reply_max, ret);
}

/* A port of ours on its file (mostly), else anything on any file. */
static int pick_recv_port(uint32_t *port)
{
	int i = PICK(st.ports);

	if (i >= 0 && chance(80) && st.fds[st.ports[i].slot] >= 0) {
		*port = st.ports[i].port;
		return st.ports[i].slot;
	}
	*port = pick_port();
	return pick_slot();
}

static void fill_recv(struct lite_ioc_rpc_recv *a, uint32_t port)
{
	rng_fill(&st.r, a, sizeof(*a));	/* the out fields: anything */
	a->port = port;
	a->flags = chance(90) ? LITE_RECV_NONBLOCK :
		   chance(50) ? 0 : 1U << (1 + rnd(31));
	switch (rnd(10)) {
	case 0:
		a->size = 0;
		break;
	case 1:
		a->size = UINT32_MAX - rnd(2);
		break;
	case 2:
		a->size = 1 + rnd(16);
		break;
	default:
		a->size = 1 + rnd(MSG_MAX);
	}
	a->addr = dst_addr(a->size, false);
	a->priority = pick_prio();
}

static void recv_done(int slot, const struct lite_ioc_rpc_recv *a,
		      const char *name)
{
	if (a->len > a->size)
		unexpected("%s len %u > size %u", name, a->len, a->size);
	if (a->descriptor != LITE_DESC_NO_REPLY)
		add_desc(slot, a->descriptor);
}

/* A descriptor received on @*slot's file (mostly), else made up. */
static uint64_t pick_desc(int *slot)
{
	int i = PICK(st.descs);
	uint64_t d;

	if (i >= 0 && chance(85) && st.fds[st.descs[i].slot] >= 0) {
		*slot = chance(90) ? st.descs[i].slot : pick_slot();
		d = st.descs[i].desc;
		if (*slot == st.descs[i].slot)
			st.descs[i].used = false;	/* answered now */
		return d;
	}
	*slot = pick_slot();
	switch (rnd(4)) {
	case 0:
		return LITE_DESC_NO_REPLY;
	case 1:
		return (uint64_t)INT_MAX + 1 + rnd(1000);
	default:
		return rnd(1000);
	}
}

static void fill_reply(struct lite_ioc_rpc_reply *a, uint64_t desc)
{
	a->descriptor = desc;
	a->size = chance(85) ? rnd(rnd(2) ? 64 : PAGE) : pick_msg_size();
	a->addr = src_addr(a->size);
	a->priority = pick_prio();
}

static void op_reply(void)
{
	struct lite_ioc_rpc_reply a;
	int slot;
	uint64_t desc = pick_desc(&slot);

	if (slot < 0)
		return;
	fill_reply(&a, desc);
	lite_ioctl(st.fds[slot], LITE_IOC_REPLY, &a);
}

/* RECV, or REPLY_RECV: an answer to a descriptor, then the receive. */
static void op_recv(unsigned long cmd)
{
	struct lite_ioc_rpc_reply_recv a;
	bool reply = cmd == LITE_IOC_REPLY_RECV;
	uint32_t port;
	int slot = pick_recv_port(&port), dslot;
	uint64_t desc = reply ? pick_desc(&dslot) : 0;

	if (slot < 0)
		return;
	fill_recv(&a.recv, port);
	if (reply)
		fill_reply(&a.reply, desc);
	if (!lite_ioctl(st.fds[slot], cmd, reply ? (void *)&a : &a.recv))
		recv_done(slot, &a.recv, ioc_name(cmd));
}

static void op_atomic(void)
{
	struct lite_ioc_atomic a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_ATOMIC, &a.handle))
		return;
	a.op = chance(92) ? 1 + rnd(3) : (rnd(2) ? 0 : 4 + rnd(UINT32_MAX - 4));
	a.offset = chance(80) && t.size >= 8 ? rnd(t.size / 8) * 8 :
					       pick_off(t.size);
	a.value = rnd(2) ? rnd(16) : rnd64();
	a.compare = rnd(2) ? rnd(16) : rnd64();
	a.old = rnd64();	/* out only */
	a.password = pick_pw(t.pw);
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_ATOMIC, &a);
}

static void lock_destroy(int slot, struct lock *l)
{
	struct lite_ioc_lock a = { .node = l->node, .lock = l->id };

	if (!lite_ioctl(st.fds[slot], LITE_IOC_LOCK_DESTROY, &a))
		l->used = false;
}

static void op_lock_create(void)
{
	struct lite_ioc_lock a = { .node = pick_node(), .lock = rnd64() };
	int slot = pick_slot(), i = UNUSED(st.locks);

	if (slot < 0)
		return;
	if (i < 0) {	/* full: destroy one (unless it is busy) */
		i = rnd(MAX_LOCKS);
		lock_destroy(slot, &st.locks[i]);
		if (st.locks[i].used)
			return;
	}
	a.reserved[rnd(2)] = pick_reserved();
	if (!lite_ioctl(st.fds[slot], LITE_IOC_LOCK_CREATE, &a))
		st.locks[i] = (struct lock) {
			.used = true, .node = a.node, .id = a.lock,
		};
}

/* LOCK_ASK, LOCK, UNLOCK, LOCK_DESTROY: LOCK blocks until the timer. */
static void op_lock(unsigned long cmd)
{
	struct lite_ioc_lock a = { 0 };
	int i = PICK(st.locks), slot = pick_slot();

	if (slot < 0)
		return;
	if (i >= 0 && chance(85)) {
		a.node = chance(95) ? st.locks[i].node : pick_node();
		a.lock = st.locks[i].id;
	} else {
		a.node = pick_node();
		a.lock = rnd(2) ? rnd(32) : (uint32_t)rnd64();
	}
	a.reserved[rnd(2)] = pick_reserved();
	if (!lite_ioctl(st.fds[slot], cmd, &a) && cmd == LITE_IOC_LOCK_DESTROY)
		for (i = 0; i < MAX_LOCKS; i++)
			if (st.locks[i].used && st.locks[i].node == a.node &&
			    st.locks[i].id == a.lock)
				st.locks[i].used = false;
}

static void op_barrier(void)
{
	struct lite_ioc_barrier a = { .reserved = pick_reserved() };
	int slot = pick_slot();
	unsigned int c;

	if (slot < 0)
		return;
	c = pick_count_edges(10, 1024, &a.nr);
	if (c == 2)
		a.nr = 1 + rnd(1024);
	else if (c > 2)
		a.nr = 1 + rnd(st.nr_peers + 2);
	lite_ioctl(st.fds[slot], LITE_IOC_BARRIER, &a);
}

static void op_post(void)
{
	struct lite_ioc_post a = { 0 };
	struct target t;

	if (!pick_handle(&t, 0, &a.handle))
		return;
	a.op = chance(94) ? 1 + rnd(2) : (rnd(2) ? 0 : 3 + rnd(100));
	a.password = pick_pw(t.pw);
	a.offset = pick_off(t.size);
	a.size = chance(85) ? 1 + rnd(t.size > a.offset ?
				      min_u64(t.size - a.offset, 64 * KiB) :
				      PAGE) :
			      pick_len(t.size, a.offset);
	/* A read lands when reaped, by whoever reaps: lasting memory. */
	a.addr = a.op == LITE_POST_WRITE ? src_addr(a.size) :
					   dst_addr(a.size, true);
	a.id = ++st.cookie;
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_POST, &a);
}

static int32_t pick_timeout(void)
{
	switch (rnd(10)) {
	case 0:
		return -1;	/* until a signal: the timer */
	case 1:
		return INT32_MIN;
	case 2:
		return 100 + rnd(900);
	case 3:
	case 4:
		return 1 + rnd(20);
	default:
		return 0;
	}
}

static void poll_check(const struct lite_ioc_poll *a)
{
	struct lite_completion c;
	uint32_t i;

	if (a->nr > a->max) {
		unexpected("POLL nr %u > max %u", a->nr, a->max);
		return;
	}
	/* Only the arena is known readable here; maybe not aligned. */
	if (a->addr < (uintptr_t)st.arena ||
	    a->addr >= (uintptr_t)st.arena + ARENA_SIZE)
		return;
	for (i = 0; i < a->nr; i++) {
		memcpy(&c, (const void *)(uintptr_t)(a->addr + i * sizeof(c)),
		       sizeof(c));
		if (c.status > 0 || (c.status && !errno_ok(-c.status)))
			unexpected("POLL completion status errno %s",
				   errname(-c.status));
	}
}

static void op_poll(void)
{
	struct lite_ioc_poll a = { 0 };
	int slot = pick_slot();

	if (slot < 0)
		return;
	a.max = chance(90) ? rnd(65) : (uint32_t[]){ 4096, 4097,
						       UINT32_MAX }[rnd(3)];
	a.addr = dst_addr((uint64_t)a.max * sizeof(struct lite_completion),
			  false);
	a.timeout_ms = pick_timeout();
	if (chance(12)) {
		a.flags = LITE_POLL_FENCE;
		if (chance(80))
			a.max = 0;
	}
	if (chance(3))
		a.flags |= 1U << (1 + rnd(31));
	a.nr = rnd64();	/* out only */
	a.outstanding = rnd64();
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[slot], LITE_IOC_POLL, &a))
		poll_check(&a);
}

/* LITE's magic with an unknown number, or a known one of the wrong shape. */
static unsigned long unknown_cmd(void)
{
	unsigned long cmd;
	unsigned int nr;

	do {
		nr = 1 + rnd(ARRAY_SIZE(ioc_cmds) - 1);
		switch (rnd(4)) {
		case 0:
			cmd = _IOC(rnd(4), LITE_IOC_MAGIC,
				   rnd(2) ? 0 : 31 + rnd(225), rnd(256));
			break;
		case 1:	/* wrong size */
			cmd = _IOC(_IOC_DIR(ioc_cmds[nr]), LITE_IOC_MAGIC, nr,
				   (_IOC_SIZE(ioc_cmds[nr]) + 1 + rnd(64)) &
				   _IOC_SIZEMASK);
			break;
		case 2:	/* wrong direction */
			cmd = _IOC((_IOC_DIR(ioc_cmds[nr]) + 1 + rnd(3)) % 4,
				   LITE_IOC_MAGIC, nr, _IOC_SIZE(ioc_cmds[nr]));
			break;
		default:
			cmd = _IO(LITE_IOC_MAGIC, rnd(256));
		}
	} while (ioc_nr(cmd));
	return cmd;
}

static void op_unknown(void)
{
	unsigned long cmd = unknown_cmd();
	int slot = pick_slot(), ret, err;
	uint64_t arg;

	if (slot < 0)
		return;
	arg = rnd(2) ? (uintptr_t)st.arena + rnd(PAGE) : bad_addr(true);
	ret = ioctl(st.fds[slot], cmd, (void *)(uintptr_t)arg);
	err = errno;
	st.ops++;
	check_result(cmd, false, false, ret, err);
}

/* ---- open files, children, mappings ---------------------------------- */

static int dev_open(void)
{
	return open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
}

/* Close one file (its handles, ports, descriptors go), open another. */
static void act_reopen(void)
{
	unsigned int slot = rnd(NR_FDS);
	int other = pick_slot(), fd;

	if (st.fds[slot] >= 0) {
		close(st.fds[slot]);
		st.closes++;
	}
	st.fds[slot] = -1;
	forget_slot(slot);
	if (other >= 0 && other != (int)slot && chance(20))
		fd = fcntl(st.fds[other], F_DUPFD_CLOEXEC, 0);
	else
		fd = dev_open();
	if (fd < 0 && errno != ENOMEM && errno != EMFILE)
		unexpected("open errno %s", errname(errno));
	st.fds[slot] = fd;
}

static void child_main(uint64_t seed) __attribute__((noreturn));

static void act_fork(void)
{
	uint64_t seed = rnd64();
	int k;
	pid_t pid;

	for (k = 0; k < MAX_KIDS && st.kids[k].pid; k++)
		;
	if (k == MAX_KIDS)
		return;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid)
		child_main(seed);
	st.kids[k] = (struct kid) { .pid = pid, .start_ms = now_ms() };
	st.forks++;
}

/* How a child ended: it exits with its count of unexpected results. */
static void kid_ended(struct kid *k, int status)
{
	if (WIFEXITED(status))
		st.unexpected += WEXITSTATUS(status);
	else if (WIFSIGNALED(status) && !k->killed)
		unexpected("child %d killed by signal %s", (int)k->pid,
			   strsignal(WTERMSIG(status)));
	k->pid = 0;
}

/* Reap the children that ended; kill one that runs for too long. */
static void reap_kids(void)
{
	uint64_t now = now_ms();
	struct kid *k;
	int status;

	for (k = st.kids; k < st.kids + MAX_KIDS; k++) {
		if (!k->pid)
			continue;
		if (waitpid(k->pid, &status, WNOHANG) == k->pid) {
			kid_ended(k, status);
		} else if (!k->killed && now - k->start_ms > KID_KILL_MS) {
			unexpected("child %d still running after %d s: killed",
				   (int)k->pid, KID_KILL_MS / 1000);
			kill(k->pid, SIGKILL);
			kill(k->pid, SIGCONT);
			k->killed = true;
		} else if (k->killed &&
			   now - k->start_ms > KID_KILL_MS + KID_GONE_MS) {
			unexpected("child %d not gone %d s after SIGKILL",
				   (int)k->pid, KID_GONE_MS / 1000);
			k->pid = 0;	/* unkillable: init may have it */
		}
	}
}

/* Stop a child for a moment, in whatever it is doing. */
static void act_stop_cont(void)
{
	unsigned int i = rnd(MAX_KIDS);

	if (!st.kids[i].pid || st.kids[i].killed)
		return;
	kill(st.kids[i].pid, SIGSTOP);
	nap_ms(1 + rnd(20));
	kill(st.kids[i].pid, SIGCONT);
}

static void act_timer(void)
{
	static const unsigned int ms[] = { 2, 10, 30, 100, 250 };

	set_timer(ms[rnd(ARRAY_SIZE(ms))]);
}

static void map_forget(struct map *m)
{
	m->used = false;
}

static struct map *map_slot(void)
{
	int i = UNUSED(st.maps);

	if (i < 0) {
		i = rnd(MAX_MAPS);
		munmap(st.maps[i].addr, st.maps[i].len);
		st.maps_done++;
	}
	return &st.maps[i];
}

static size_t pick_map_len(void)
{
	switch (rnd(4)) {
	case 0:
		return 1 + rnd(PAGE);		/* rounded up to a page */
	case 1:
		return MAP_MAX;
	default:
		return PAGE * (1 + rnd(MAP_MAX / PAGE));
	}
}

static void map_new(bool zc)
{
	size_t len = pick_map_len();
	int slot = pick_slot(), prot = PROT_READ | PROT_WRITE;
	struct map *m;
	void *p;

	if (zc && slot < 0)
		return;
	if (zc && chance(10))
		prot = PROT_READ;	/* the module may still write it */
	m = map_slot();
	p = zc ? mmap(NULL, len, prot, MAP_SHARED, st.fds[slot], 0) :
		 mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm(zc ? "mmap" : "mmap anon", errno);
		m->used = false;
		return;
	}
	*m = (struct map) {
		.used = true, .zc = zc, .ro = prot == PROT_READ,
		.inherit = !zc, .addr = p, .len = (len + PAGE - 1) & ~(PAGE - 1),
	};
}

/* What the module must refuse: each one a fresh mapping attempt. */
static void map_bad_zc(void)
{
	int slot = pick_slot(), flags = MAP_SHARED;
	size_t len = PAGE;
	off_t off = 0;
	void *p;

	if (slot < 0)
		return;
	switch (rnd(3)) {
	case 0:
		off = PAGE << rnd(20);
		break;
	case 1:
		flags = MAP_PRIVATE;
		break;
	default:
		len = (1ULL << 30) + PAGE;	/* above 1 GiB */
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, st.fds[slot], off);
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm("mmap (bad)", errno);
		return;
	}
	unexpected("mmap of /dev/lite (len %zu, flags %#x, offset %lld) succeeded",
		   len, flags, (long long)off);
	munmap(p, len);
}

/* Unmap a mapping, then hand its address to one ioctl at once. */
static void map_unmap_use(void)
{
	struct map *m = pick_map();

	if (!m)
		return;
	if (munmap(m->addr, m->len)) {
		check_mm("munmap", errno);
		return;
	}
	st.maps_done++;
	map_forget(m);
	st.stale = (uintptr_t)m->addr;
	st.stale_len = m->len;
	switch (rnd(4)) {
	case 0:
		op_rw(LITE_IOC_READ);
		break;
	case 1:
		op_rw(LITE_IOC_WRITE);
		break;
	case 2:
		op_recv(LITE_IOC_RECV);
		break;
	default:
		op_call(LITE_IOC_CALL);
	}
	st.stale = 0;	/* if nothing took it */
}

/* Part of a mapping: refused for a zero-copy buffer, fine for the rest. */
static void map_split(void)
{
	struct map *m = pick_map();
	const char *how;
	size_t half;
	int ret;

	if (!m || m->len < 2 * PAGE)
		return;
	half = (m->len / 2) & ~(PAGE - 1);
	switch (rnd(3)) {
	case 0:
		how = "munmap of the upper half";
		ret = munmap(m->addr + half, m->len - half);
		if (!ret)
			m->len = half;
		break;
	case 1:
		how = "munmap of the first page";
		ret = munmap(m->addr, PAGE);
		if (!ret) {
			m->addr += PAGE;
			m->len -= PAGE;
		}
		break;
	default:
		/*
		 * Another protection than the mapping's, or nothing is split
		 * (mprotect to the same one is a no-op). The module may write
		 * a read-only half: ours.
		 */
		how = "mprotect of the upper half";
		ret = mprotect(m->addr + half, m->len - half,
			       m->ro ? PROT_READ | PROT_WRITE : PROT_READ);
	}
	st.maps_done++;
	if (ret)
		check_mm("split", errno);
	else if (m->zc)
		unexpected("a zero-copy buffer was split: %s", how);
}

/* Grow, shrink or move: refused for a zero-copy buffer. */
static void map_mremap(void)
{
	struct map *m = pick_map();
	size_t len;
	void *p, *spot = NULL;

	if (!m)
		return;
	switch (rnd(3)) {
	case 0:
		len = min_u64(m->len + PAGE * (1 + rnd(16)),
			      MAP_MAX + 16 * PAGE);
		p = mremap(m->addr, m->len, len, rnd(2) ? MREMAP_MAYMOVE : 0);
		break;
	case 1:
		len = m->len > PAGE ? (m->len / 2) & ~(PAGE - 1) :
				      m->len + PAGE;
		p = mremap(m->addr, m->len, len, 0);
		break;
	default:
		len = m->len;
		spot = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		if (spot == MAP_FAILED)
			return;
		p = mremap(m->addr, m->len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   spot);
	}
	st.maps_done++;
	if (p == MAP_FAILED) {
		check_mm("mremap", errno);
		if (spot)	/* maybe already gone: harmless */
			munmap(spot, len);
		return;
	}
	if (m->zc)
		unexpected("a zero-copy buffer was resized or moved");
	m->addr = p;
	m->len = len;
}

/* Whether a forked child gets the mapping (MADV_DOFORK on a zc buffer). */
static void map_madvise(void)
{
	struct map *m = pick_map();
	bool dofork = chance(60);

	if (!m)
		return;
	st.maps_done++;
	if (madvise(m->addr, m->len, dofork ? MADV_DOFORK : MADV_DONTFORK))
		check_mm("madvise", errno);
	else
		m->inherit = dofork;
}

static void act_map(void)
{
	switch (rnd(10)) {
	case 0:
	case 1:
	case 2:
		map_new(true);
		break;
	case 3:
		map_new(false);
		break;
	case 4:
		map_bad_zc();
		break;
	case 5:
	case 6:
		map_unmap_use();
		break;
	case 7:
		map_split();
		break;
	case 8:
		map_mremap();
		break;
	default:
		map_madvise();
	}
}

/* ---- the sequence ---------------------------------------------------- */

/* One step: fn(), or fn_cmd(cmd) for an op that issues one of several ioctls. */
struct op {
	void		(*fn)(void);
	void		(*fn_cmd)(unsigned long cmd);
	unsigned long	cmd;
	unsigned int	weight;
	bool		parent_only;
};

#define OP(f, w)		{ .fn = f, .weight = w }
#define CMD_OP(f, c, w)		{ .fn_cmd = f, .cmd = LITE_IOC_##c, .weight = w }
#define PARENT_OP(f, w)		{ .fn = f, .weight = w, .parent_only = true }
static const struct op ops[] = {
	OP(op_cluster, 3), OP(op_join, 3), OP(op_alloc, 12),
	CMD_OP(op_free, FREE, 4), CMD_OP(op_free, UNMAP, 4),
	CMD_OP(op_rw, READ, 10), CMD_OP(op_rw, WRITE, 10), OP(op_memset, 4),
	CMD_OP(op_memcpy, MEMCPY, 3), CMD_OP(op_memcpy, MEMMOVE, 3),
	OP(op_publish, 5), OP(op_ask, 5), OP(op_lmr_info, 4),
	OP(op_register, 4), OP(op_query_port, 4), CMD_OP(op_call, CALL, 8),
	CMD_OP(op_call, SEND, 5), OP(op_mcall, 4), CMD_OP(op_recv, RECV, 10),
	OP(op_reply, 6), CMD_OP(op_recv, REPLY_RECV, 4), OP(op_atomic, 6),
	OP(op_lock_create, 3), CMD_OP(op_lock, LOCK_ASK, 2),
	CMD_OP(op_lock, LOCK, 3), CMD_OP(op_lock, UNLOCK, 3),
	CMD_OP(op_lock, LOCK_DESTROY, 3), OP(op_barrier, 2),
	OP(op_post, 10), OP(op_poll, 8), OP(op_unknown, 4),
	OP(act_reopen, 2), OP(act_timer, 1),
	PARENT_OP(act_fork, 1), PARENT_OP(act_stop_cont, 1),
	PARENT_OP(act_map, 5),
};

static void one_op(void)
{
	unsigned int total = 0, i;
	uint64_t x;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!st.child || !ops[i].parent_only)
			total += ops[i].weight;
	x = rnd(total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (st.child && ops[i].parent_only)
			continue;
		if (x < ops[i].weight) {
			if (ops[i].fn)
				ops[i].fn();
			else
				ops[i].fn_cmd(ops[i].cmd);
			return;
		}
		x -= ops[i].weight;
	}
}

/* What a child made: dropped before it goes, so that nothing piles up. */
static void child_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].used && !st.h[i].old && st.fds[st.h[i].slot] >= 0)
			lite_unmap_handle(st.h[i].slot, st.h[i].lh);
	for (i = 0; i < MAX_LOCKS; i++) {
		struct lite_ioc_lock a = { .node = st.locks[i].node,
					   .lock = st.locks[i].id };
		int slot = pick_slot();

		if (!st.locks[i].used || st.locks[i].old || slot < 0)
			continue;
		lite_ioctl(st.fds[slot], LITE_IOC_UNLOCK, &a);
		lock_destroy(slot, &st.locks[i]);
	}
}

/* A short sequence on the inherited files (maybe a new one), then _exit. */
static void child_main(uint64_t seed)
{
	uint64_t deadline;
	unsigned int i, n;

	st.child = true;
	st.r.state = seed;
	st.unexpected = 0;
	st.reports = 0;
	memset(st.kids, 0, sizeof(st.kids));
	for (i = 0; i < MAX_MAPS; i++)
		if (!st.maps[i].inherit)
			map_forget(&st.maps[i]);
	for (i = 0; i < MAX_HANDLES; i++)
		st.h[i].old = true;
	for (i = 0; i < MAX_LOCKS; i++)
		st.locks[i].old = true;
	act_timer();	/* timers are not inherited */
	deadline = now_ms() + 1 + rnd(CHILD_MS);
	n = 1 + rnd(CHILD_OPS);
	while (n-- && now_ms() < deadline)
		one_op();
	child_cleanup();
	_exit(st.unexpected > 100 ? 100 : st.unexpected);
}

/* Let every child finish (they were stopped at most for a moment). */
static void wait_kids(void)
{
	unsigned int i;

	for (;;) {
		for (i = 0; i < MAX_KIDS && !st.kids[i].pid; i++)
			;
		if (i == MAX_KIDS)
			return;
		for (i = 0; i < MAX_KIDS; i++)
			if (st.kids[i].pid)
				kill(st.kids[i].pid, SIGCONT);
		reap_kids();
		nap_ms(10);
	}
}

/* The locks it created outlive its files: destroy them. */
static void cleanup(void)
{
	unsigned int i;
	int fd;

	wait_kids();
	for (i = 0; i < NR_FDS; i++) {
		if (st.fds[i] >= 0)
			close(st.fds[i]);
		st.fds[i] = -1;
	}
	fd = dev_open();
	for (i = 0; fd >= 0 && i < MAX_LOCKS; i++) {
		struct lite_ioc_lock a = { .node = st.locks[i].node,
					   .lock = st.locks[i].id };
		int ret;

		if (!st.locks[i].used)
			continue;
		ret = ioctl(fd, LITE_IOC_LOCK_DESTROY, &a);
		st.ops++;
		check_result(LITE_IOC_LOCK_DESTROY, false, false, ret, errno);
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < MAX_MAPS; i++)
		if (st.maps[i].used)
			munmap(st.maps[i].addr, st.maps[i].len);
}

/* ---- setup ----------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out, "usage: ioctl_stress SECONDS SEED [PEER_NODE...]\n");
}

static void *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "ioctl_stress: mmap %zu bytes: %s\n", len,
			strerror(errno));
		exit(2);
	}
	return p;
}

static void setup_memory(void)
{
	st.arena = map_or_die(ARENA_SIZE, PROT_READ | PROT_WRITE);
	st.ro = map_or_die(RO_SIZE, PROT_READ);
	st.ro_arg = map_or_die(PAGE, PROT_READ);
	st.edge = map_or_die(PAGE + GUARD_SIZE, PROT_NONE);
	st.guard = st.edge + PAGE;
	if (mprotect(st.edge, PAGE, PROT_READ | PROT_WRITE)) {
		perror("ioctl_stress: mprotect");
		exit(2);
	}
}

/* The open files, the node's id, the timer. */
static void setup_lite(void)
{
	struct lite_ioc_cluster c = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(ioc_cmds); i++) {
		if (_IOC_NR(ioc_cmds[i]) != i) {
			fprintf(stderr,
				"ioctl_stress: ioc_cmds[%u] is not number %u\n",
				i, i);
			exit(2);
		}
	}
	for (i = 0; i < NR_FDS; i++) {
		st.fds[i] = dev_open();
		if (st.fds[i] < 0) {
			perror("ioctl_stress: /dev/" LITE_DEV_NAME);
			exit(2);
		}
	}
	if (ioctl(st.fds[0], LITE_IOC_CLUSTER, &c) || !c.node_id) {
		fprintf(stderr, "ioctl_stress: this node has not joined\n");
		exit(2);
	}
	st.me = c.node_id;
	st.root = geteuid() == 0;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: blocking calls get EINTR */
	sigaction(SIGALRM, &sa, NULL);
	set_timer(30);
}

int main(int argc, char **argv)
{
	uint64_t secs, seed, end;
	int i;

	check_start("ioctl_stress", usage);
	if (argc < 3 || argc - 3 > MAX_PEERS) {
		usage(stderr);
		return 2;
	}
	secs = parse_num(argv[1], "SECONDS", 1, 7 * 24 * 3600);
	seed = parse_num(argv[2], "SEED", 0, UINT64_MAX);
	for (i = 3; i < argc; i++)
		st.peers[st.nr_peers++] = parse_num(argv[i], "PEER_NODE", 1,
						    63);
	st.r.state = seed;
	setup_memory();
	setup_lite();
	say("info ioctl_stress: node %u, %u peer(s), seed %llu, %llu s\n",
	    st.me, st.nr_peers, (unsigned long long)seed,
	    (unsigned long long)secs);
	end = now_ms() + secs * 1000;
	while (now_ms() < end) {
		one_op();
		reap_kids();
	}
	cleanup();
	set_timer(0);
	say("stress: seconds=%llu seed=%llu ops=%lu forks=%lu closes=%lu maps=%lu unexpected=%lu\n",
	    (unsigned long long)secs, (unsigned long long)seed, st.ops,
	    st.forks, st.closes, st.maps_done, st.unexpected);
	return st.unexpected ? 1 : 0;
}
