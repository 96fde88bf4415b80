// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* A server's session: bounds and cost; see session.h. */
#include <inttypes.h>

#include "session.h"

void bench_session_init(struct bench_session *s, const struct bench_cfg *cfg)
{
	*s = (struct bench_session){
		.cfg = cfg,
		.first = bench_now_ns() + bench_sec_ns(cfg->timeout),
	};
}

void bench_session_open(struct bench_session *s)
{
	s->open = true;
	s->cpu0 = bench_cpu_ns();
	s->t0 = bench_now_ns();
	s->deadline = s->t0 + bench_sec_ns(s->cfg->session_timeout);
}

void bench_session_check(const struct bench_session *s)
{
	uint64_t now = bench_now_ns();

	if (!s->open && now > s->first)
		bench_die("no client connected within %g s (--timeout)",
			  s->cfg->timeout);
	if (s->open && now > s->deadline)
		bench_die("session still running after %g s "
			  "(--session-timeout)", s->cfg->session_timeout);
}

void bench_session_report(const struct bench_session *s, bool requests)
{
	uint64_t cpu = bench_cpu_ns() - s->cpu0;

	bench_meta("server_seconds", "%.3f", (bench_now_ns() - s->t0) / 1e9);
	bench_meta("server_cpu_seconds", "%.3f", cpu / 1e9);
	if (!requests)
		return;
	bench_meta("server_requests", "%" PRIu64, s->requests);
	if (s->requests)
		bench_meta("server_cpu_us_per_req", "%.3f",
			   cpu / 1e3 / (double)s->requests);
	else
		bench_meta("server_cpu_us_per_req", "nan");
}
