// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Warm-up, measure, stop: see window.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "window.h"

/* Sleeps until an absolute CLOCK_MONOTONIC time in ns. */
static void sleep_until(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void set_phase(struct bench_window *w, int phase)
{
	atomic_store_explicit(&w->phase, phase, memory_order_release);
}

static struct bench_worker *worker(void *args, size_t arg_size,
				   unsigned int i)
{
	return (struct bench_worker *)((char *)args + i * arg_size);
}

void bench_window_point(const struct bench_cfg *cfg,
			const struct bench_point *pt, unsigned int n,
			void *(*fn)(void *), void *args, size_t arg_size)
{
	pthread_t *tids = calloc(n, sizeof(*tids));
	struct bench_window w;
	uint64_t t0, t1, ops = 0;
	unsigned int i;
	int err;

	if (!tids)
		bench_die("out of memory");
	set_phase(&w, BENCH_WARMUP);
	for (i = 0; i < n; i++) {
		struct bench_worker *k = worker(args, arg_size, i);

		k->win = &w;
		k->ops = 0;
		err = pthread_create(&tids[i], NULL, fn, k);
		if (err)
			bench_die("pthread_create: %s", strerror(err));
	}
	sleep_until(bench_now_ns() + bench_sec_ns(cfg->warmup));
	t0 = bench_now_ns();
	set_phase(&w, BENCH_MEASURE);
	sleep_until(t0 + bench_sec_ns(cfg->duration));
	set_phase(&w, BENCH_STOP);
	t1 = bench_now_ns();
	for (i = 0; i < n; i++) {
		pthread_join(tids[i], NULL);
		ops += worker(args, arg_size, i)->ops;
	}
	free(tids);
	bench_tput_row(pt, (double)(t1 - t0) / 1e9, ops);
}
