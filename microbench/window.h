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

enum bench_phase { BENCH_WARMUP, BENCH_MEASURE, BENCH_STOP };

struct bench_window {
	atomic_int phase;
};

static inline int bench_phase(struct bench_window *w)
{
	return atomic_load_explicit(&w->phase, memory_order_relaxed);
}

/*
 * Starts n threads running fn(args + i * arg_size), lets them warm up for
 * warmup s, measures for duration s, stops and joins them. Returns the
 * measured window in seconds.
 */
double bench_window_run(struct bench_window *w, unsigned int n,
			void *(*fn)(void *), void *args, size_t arg_size,
			double warmup, double duration);

#endif /* MICROBENCH_WINDOW_H */
