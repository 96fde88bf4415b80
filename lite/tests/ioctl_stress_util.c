// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The generator, whole output lines, the tables' pickers; the ioctls,
 * the errnos LITE may answer each with, and the check of every result;
 * where an argument struct goes (good, read-only or faulting).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ioctl_stress.h"

/* ---- small helpers ---------------------------------------------------- */

uint64_t rnd(uint64_t n)
{
	return rng_below(&st.r, n);
}

uint64_t rnd64(void)
{
	return rng_next(&st.r);
}

bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep about @ms; a signal may cut it short. */
void nap_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM every @ms (0: never), to interrupt whatever blocks. */
void set_timer(unsigned int ms)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = ms / 1000,
				 .tv_usec = (long)(ms % 1000) * 1000 },
	};

	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* One line, whole: the timer must not cut a write to a pipe short. */
void say(const char *fmt, ...)
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

void unexpected(const char *fmt, ...)
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
int pick_used(const void *tab, size_t stride, unsigned int n)
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
int pick_unused(const void *tab, size_t stride, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (!*(const bool *)((const char *)tab + k * stride))
			return k;
	return -1;
}

/* ---- the ioctls and their errnos --------------------------------------- */

static const char *const ioc_names[] = {
	[1] = "JOIN", "CLUSTER", "ALLOC", "FREE", "UNMAP", "WRITE", "READ",
	"MEMSET", "MEMCPY", "MEMMOVE", "PUBLISH", "ASK", "LMR_INFO",
	"REGISTER", "QUERY_PORT", "CALL", "SEND", "RECV", "REPLY",
	"REPLY_RECV", "ATOMIC", "LOCK_CREATE", "LOCK_ASK", "LOCK", "UNLOCK",
	"BARRIER", "LOCK_DESTROY", "POST", "POLL", "MCALL",
};

const unsigned long ioc_cmds[] = {
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
unsigned int ioc_nr(unsigned long cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (nr && nr < ARRAY_SIZE(ioc_cmds) && ioc_cmds[nr] == cmd)
		return nr;
	return 0;
}

const char *ioc_name(unsigned long cmd)
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
bool errno_ok(int err)
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
void check_mm(const char *what, int err)
{
	switch (err) {
	case EINVAL: case ENOMEM: case EDQUOT: case EAGAIN: case EFAULT:
		return;
	}
	unexpected("%s errno %s", what, errname(err));
}

void check_result(unsigned long cmd, bool faults, bool ro, int ret,
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
uint64_t fault_addr_high(void)
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
int lite_ioctl(int fd, unsigned long cmd, void *arg)
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
