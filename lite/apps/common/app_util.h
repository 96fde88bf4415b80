/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the applications' programs share (lite-graph, lite-mapreduce and
 * their baselines): the error exit, option numbers, the clock and the
 * seeded generator.
 * Header only, so that programs without liblite (the MPI baselines, the
 * references) include it as they are. Each program defines prog.
 */
#ifndef APP_UTIL_H
#define APP_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const char *prog;

/* Print "PROG: WHAT: strerror(|err|)" (err 0: no reason) and exit 1. */
static inline void die(const char *what, int err)
{
	if (err)
		fprintf(stderr, "%s: %s: %s\n", prog, what,
			strerror(err < 0 ? -err : err));
	else
		fprintf(stderr, "%s: %s\n", prog, what);
	exit(1);
}

/*
 * @s as a number of @lo .. @hi (strtoull's base 0: 0x hex, 0 octal) in
 * *@v: 0, or -1 when it is not one (a sign, anything after the digits,
 * out of range) and *@v is untouched.
 */
static inline int app_num(const char *s, uint64_t lo, uint64_t hi,
			  uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || n < lo || n > hi)
		return -1;
	*v = n;
	return 0;
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The next number of a splitmix64 stream whose state is *@s. */
static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#ifdef __cplusplus
}
#endif

#endif /* APP_UTIL_H */
