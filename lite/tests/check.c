// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the test programs share (check.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static atomic_int failures;
static const char *prog_name = "test";
static void (*prog_usage)(FILE *out);

/* One printf per line: threads print too, and lines must not mix. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char what[512];

	vsnprintf(what, sizeof(what), fmt, ap);
	printf("%s%s\n", prefix, what);
}

void pass(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("ok   ", fmt, ap);
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("FAIL ", fmt, ap);
	va_end(ap);
	failures++;
}

void info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("info ", fmt, ap);
	va_end(ap);
}

const char *errname(int err)
{
	static _Thread_local char other[32];

	switch (err) {
	case 0:			return "success";
	case EPERM:		return "EPERM";
	case ENOENT:		return "ENOENT";
	case EINTR:		return "EINTR";
	case EIO:		return "EIO";
	case EAGAIN:		return "EAGAIN";
	case ENOMEM:		return "ENOMEM";
	case EACCES:		return "EACCES";
	case EFAULT:		return "EFAULT";
	case EEXIST:		return "EEXIST";
	case ENODEV:		return "ENODEV";
	case EINVAL:		return "EINVAL";
	case EFBIG:		return "EFBIG";
	case ENOSPC:		return "ENOSPC";
	case ERANGE:		return "ERANGE";
	case EDEADLK:		return "EDEADLK";
	case ENOTTY:		return "ENOTTY";
	case EPROTO:		return "EPROTO";
	case EOVERFLOW:		return "EOVERFLOW";
	case EMSGSIZE:		return "EMSGSIZE";
	case EADDRINUSE:	return "EADDRINUSE";
	case ENOTCONN:		return "ENOTCONN";
	case ETIMEDOUT:		return "ETIMEDOUT";
	case ECONNREFUSED:	return "ECONNREFUSED";
	case EALREADY:		return "EALREADY";
	case EKEYREVOKED:	return "EKEYREVOKED";
	case EDQUOT:		return "EDQUOT";
	case EBUSY:		return "EBUSY";
	}
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

const char *got_name(int ret)
{
	static _Thread_local char buf[96];

	if (ret >= 0)
		snprintf(buf, sizeof(buf), "success (%d)", ret);
	else
		snprintf(buf, sizeof(buf), "%s (%s)", errname(-ret),
			 strerror(-ret));
	return buf;
}

/*
 * @ret should be -wants[i] for one i (a success >= 0 if @n is 0); @err is
 * errno after the call, which the library promises mirrors a failure.
 */
static bool check(int ret, int err, const int *wants, unsigned int n,
		  const char *what)
{
	char list[128] = "";
	unsigned int i;

	if (ret < 0 && err != -ret) {
		fail("%s: returned %s but errno is %s", what, got_name(ret),
		     errname(err));
		return false;
	}
	if (!n && ret >= 0) {
		pass("%s", what);
		return true;
	}
	for (i = 0; i < n; i++) {
		if (ret == -wants[i]) {
			pass("%s -> %s", what, errname(wants[i]));
			return true;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? " or " : "", errname(wants[i]));
	}
	fail("%s: expected %s, got %s", what, n ? list : "success",
	     got_name(ret));
	return false;
}

/* check() of a message made from @fmt; errno is read before anything. */
static bool vcheck(int ret, const int *wants, unsigned int n,
		   const char *fmt, va_list ap)
{
	int err = errno;
	char what[256];

	vsnprintf(what, sizeof(what), fmt, ap);
	return check(ret, err, wants, n, what);
}

bool expect(int ret, int want, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vcheck(ret, &want, want ? 1 : 0, fmt, ap);
	va_end(ap);
	return ok;
}

bool expect_any(int ret, const int *wants, unsigned int n,
		const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vcheck(ret, wants, n, fmt, ap);
	va_end(ap);
	return ok;
}

bool step(int ret, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (ret >= 0)
		return true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail("%s: %s", what, got_name(ret));
	return false;
}

bool expect_bytes(const uint8_t *got, const uint8_t *want, size_t len,
		  uint64_t off, const char *fmt, ...)
{
	size_t i, first = len, bad = 0;
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (i = 0; i < len; i++) {
		if (got[i] == want[i])
			continue;
		if (!bad++)
			first = i;
	}
	if (!bad) {
		pass("%s", what);
		return true;
	}
	fail("%s: %zu of %zu bytes differ in [0x%llx, +%zu), first at "
	     "0x%llx: got 0x%02x, want 0x%02x", what, bad, len,
	     (unsigned long long)off, len, (unsigned long long)(off + first),
	     got[first], want[first]);
	return false;
}

int nr_failures(void)
{
	return failures;
}

int finish(void)
{
	int n = failures;

	printf("%s: %d failure(s)\n", n ? "FAIL" : "PASS", n);
	return n ? 1 : 0;
}

void check_start(const char *prog, void (*usage)(FILE *out))
{
	prog_name = prog;
	prog_usage = usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

uint64_t parse_num(const char *s, const char *what, uint64_t min,
		   uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || *s == '-' || v < min || v > max) {
		fprintf(stderr, "%s: bad %s '%s'\n", prog_name, what, s);
		if (prog_usage)
			prog_usage(stderr);
		exit(2);
	}
	return v;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

void rng_fill(struct rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;
	uint64_t v;

	while (len) {
		size_t n = len < sizeof(v) ? len : sizeof(v);

		v = rng_next(r);
		memcpy(p, &v, n);
		p += n;
		len -= n;
	}
}

const char *size_name(uint64_t size, char *buf, size_t len)
{
	const uint64_t kib = 1ULL << 10, mib = 1ULL << 20;

	if (size >= mib && size % mib)
		snprintf(buf, len, "%llu MiB+%llu",
			 (unsigned long long)(size / mib),
			 (unsigned long long)(size % mib));
	else if (size >= mib)
		snprintf(buf, len, "%llu MiB",
			 (unsigned long long)(size / mib));
	else if (size >= 64 * kib && !(size % kib))
		snprintf(buf, len, "%llu KiB",
			 (unsigned long long)(size / kib));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)size);
	return buf;
}
