// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Control-path step timing: steps.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "steps.h"

struct bench_steps bench_steps;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void bench_steps_start(void)
{
	bench_steps.t0 = clock_ns(CLOCK_MONOTONIC);
	bench_steps.boot0 = clock_ns(CLOCK_BOOTTIME);
	bench_steps.last = bench_steps.t0;
	bench_steps.n = 0;
}

void bench_steps_sizes(struct bench_cfg *cfg)
{
	bench_default_sizes(cfg, cfg->peer ? "8" : "4096");
	if (cfg->peer && cfg->nsizes != 1)
		bench_usage_error(cfg, "--mode ctrl writes one size");
}

void bench_steps_mark(const char *name, unsigned int peer)
{
	uint64_t now = bench_now_ns();
	struct bench_step *s;

	if (bench_steps.n == BENCH_STEPS_MAX)
		bench_die("more than %d timed steps", BENCH_STEPS_MAX);
	s = &bench_steps.s[bench_steps.n++];
	s->name = name;
	s->peer = peer;
	s->start = bench_steps.last - bench_steps.t0;
	s->len = now - bench_steps.last;
	bench_steps.last = now;
}

/*
 * ns from this process's creation to main(), or 0 if /proc does not say.
 * Field 22 of /proc/self/stat, counted after the ')' that ends the
 * command name (which may hold spaces and parentheses itself).
 */
static uint64_t exec_ns(void)
{
	char buf[1024], *p;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t start;
	size_t len;
	FILE *f;
	int i;

	f = fopen("/proc/self/stat", "r");
	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');
	if (!p || hz <= 0)
		return 0;
	/* p ends at the space before field i, for i = 3 (state) .. 22. */
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return 0;
	start = (uint64_t)ticks * (1000000000ULL / (uint64_t)hz);
	return bench_steps.boot0 > start ? bench_steps.boot0 - start : 0;
}

void bench_steps_print(const char *bench, unsigned int peers,
		       unsigned int rep)
{
	uint64_t ex = exec_ns();
	unsigned int i;

	bench_meta("clock_ticks_per_sec", "%ld", sysconf(_SC_CLK_TCK));
	puts("bench,step,peer,peers,rep,start_us,us");
	if (ex)
		printf("%s,exec,0,%u,%u,%.3f,%.3f\n", bench, peers, rep,
		       -(double)ex / 1e3, ex / 1e3);
	for (i = 0; i < bench_steps.n; i++) {
		const struct bench_step *s = &bench_steps.s[i];

		printf("%s,%s,%u,%u,%u,%.3f,%.3f\n", bench, s->name, s->peer,
		       peers, rep, s->start / 1e3, s->len / 1e3);
	}
	printf("%s,total,0,%u,%u,0.000,%.3f\n", bench, peers, rep,
	       (bench_steps.last - bench_steps.t0) / 1e3);
}
