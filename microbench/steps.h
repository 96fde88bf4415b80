/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Control-path timing (verbs_bench -m ctrl, lite_bench -m ctrl): one
 * process, one repetition. bench_steps_start() is the first thing main()
 * does; every later step ends with bench_steps_mark(), so the steps are
 * back to back and add up to the time from main() to the last mark. The
 * rows are printed only at the end, so printing is in no step.
 *
 * Before main: the time from the process's creation (its start time in
 * /proc/self/stat, in clock ticks, usually 10 ms, since boot) to main()
 * on CLOCK_BOOTTIME: exec, the dynamic loader, libraries' constructors.
 * Row format (README.md):
 *   bench,step,peer,peers,rep,start_us,us
 */
#ifndef MICROBENCH_STEPS_H
#define MICROBENCH_STEPS_H

#include <stdint.h>

#include "common.h"

#define BENCH_STEPS_MAX		1024

struct bench_step {
	const char *name;
	unsigned int peer;	/* 1..peers for a per-peer step, else 0 */
	uint64_t start, len;	/* ns; start from main() */
};

struct bench_steps {
	uint64_t t0;		/* CLOCK_MONOTONIC at main() */
	uint64_t boot0;		/* CLOCK_BOOTTIME at main() */
	uint64_t last;		/* end of the last step */
	unsigned int n;
	struct bench_step s[BENCH_STEPS_MAX];
};

extern struct bench_steps bench_steps;

void bench_steps_start(void);
/*
 * The sizes of -m ctrl: a client writes one (default 8 bytes), a server's
 * region holds the largest given (default 4096); a usage error otherwise.
 */
void bench_steps_sizes(struct bench_cfg *cfg);
/* The step that began at the previous mark (or main) ends now. */
void bench_steps_mark(const char *name, unsigned int peer);
/* The header and every row: exec (if known), the steps, then total. */
void bench_steps_print(const char *bench, unsigned int peers,
		       unsigned int rep);

#endif /* MICROBENCH_STEPS_H */
