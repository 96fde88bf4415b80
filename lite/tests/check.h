/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the test programs linked with liblite share: one line per check
 * ("ok   WHAT", "FAIL WHAT: WHY", "info ..."), liblite results held against
 * the errno expected, numbers from the command line, a seeded generator
 * and size names. Safe to call from several threads: a line is printed
 * with one printf, and failures are counted atomically.
 */
#ifndef LITE_TESTS_CHECK_H
#define LITE_TESTS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHECK_FMT(f, a) __attribute__((format(printf, f, a)))

void pass(const char *fmt, ...) CHECK_FMT(1, 2);
void fail(const char *fmt, ...) CHECK_FMT(1, 2);
void info(const char *fmt, ...) CHECK_FMT(1, 2);

/* "EINVAL" for EINVAL; "success" for 0. */
const char *errname(int err);
/* What a liblite call returned, for a failure message. */
const char *got_name(int ret);

/*
 * A liblite result: want 0 is success (>= 0), else the errno expected.
 * Also holds the library to its promise that errno mirrors the result.
 */
bool expect(int ret, int want, const char *fmt, ...) CHECK_FMT(3, 4);
/* Like expect() with any of @n errnos accepted. */
bool expect_any(int ret, const int *wants, unsigned int n,
		const char *fmt, ...) CHECK_FMT(4, 5);
/* Like expect(..., 0, ...) but silent on success: for steps of a check. */
bool step(int ret, const char *fmt, ...) CHECK_FMT(2, 3);
/* @got, read from offset @off of an LMR, should equal @want. */
bool expect_bytes(const uint8_t *got, const uint8_t *want, size_t len,
		  uint64_t off, const char *fmt, ...) CHECK_FMT(5, 6);

/* How many checks failed so far. */
int nr_failures(void);

/* The last line, "PASS: 0 failure(s)" or "FAIL: N failure(s)"; returns
 * the exit status of a command (1 if a check failed). */
int finish(void);

/*
 * First in main(): names the program and its usage text for parse_num(),
 * and makes stdout line-buffered, so that lines reach the script driving
 * the program as they happen, not at exit.
 */
void check_start(const char *prog, void (*usage)(FILE *out));
/*
 * @s, a command-line argument named @what, as a number in [@min, @max];
 * anything else prints "PROG: bad WHAT 'S'" and the usage, and exits 2.
 */
uint64_t parse_num(const char *s, const char *what, uint64_t min,
		   uint64_t max);

/* splitmix64: seeded, so a failing run can be replayed. */
struct rng {
	uint64_t state;
};

uint64_t rng_next(struct rng *r);
uint64_t rng_below(struct rng *r, uint64_t n);
void rng_fill(struct rng *r, void *buf, size_t len);

/* "16 MiB", "1 MiB+5", "64 KiB", "4096 B" into @buf. */
const char *size_name(uint64_t size, char *buf, size_t len);

#endif /* LITE_TESTS_CHECK_H */
