/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The measured window of a throughput point: worker threads run a closed
 * loop from start to stop and count only the operations that complete while
 * the phase is BENCH_MEASURE; the main thread owns the clock, so the window
 * length is one pair of its timestamps, not a sum over threads.
 */
#ifndef MICROBENCH_WINDOW_H
#define MICROBENCH_WINDOW_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

enum bench_phase { BENCH_WARMUP, BENCH_MEASURE, BENCH_STOP };

struct bench_window {
	atomic_int phase;
};

/* The first member of every worker's argument: its window and count. */
struct bench_worker {
	struct bench_window *win;
	uint64_t ops;		/* completed while BENCH_MEASURE */
};

static inline int bench_phase(const struct bench_worker *k)
{
	return atomic_load_explicit(&k->win->phase, memory_order_relaxed);
}

/* n operations completed just now: they count inside the window only. */
static inline void bench_count(struct bench_worker *k, uint64_t n)
{
	if (bench_phase(k) == BENCH_MEASURE)
		k->ops += n;
}

/*
 * One throughput point: starts n threads running fn(args + i * arg_size),
 * each argument beginning with a struct bench_worker, lets them warm up
 * for --warmup s, measures for --duration s, stops and joins them, then
 * prints pt's row: the window as the main thread timed it, the workers'
 * counts summed.
 */
void bench_window_point(const struct bench_cfg *cfg,
			const struct bench_point *pt, unsigned int n,
			void *(*fn)(void *), void *args, size_t arg_size);

#endif /* MICROBENCH_WINDOW_H */
