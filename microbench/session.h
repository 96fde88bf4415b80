/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The one session a server (tcp_bench, verbs_bench) serves, from its first
 * client's first connection to the last disconnect: the bounds on it
 * (--timeout for a client to come, then --session-timeout for the whole
 * session) and its cost, printed last as the server_* comments (README.md:
 * CPU time per request, the number the rpc figures compare).
 */
#ifndef MICROBENCH_SESSION_H
#define MICROBENCH_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

struct bench_session {
	const struct bench_cfg *cfg;
	bool open;		/* a client has come */
	uint64_t first;		/* when one must have come by, ns */
	uint64_t t0, cpu0;	/* at the opening, ns */
	uint64_t deadline;	/* when the open session must be over, ns */
	uint64_t requests;	/* the server counts what it served */
};

/* Before listening: the --timeout for the first client runs from here. */
void bench_session_init(struct bench_session *s, const struct bench_cfg *cfg);
/* The first client came: the session's clocks start. */
void bench_session_open(struct bench_session *s);
/* Exits 1 (bench_die) once the bound that applies has passed. */
void bench_session_check(const struct bench_session *s);
/* The server_* comments; with requests, also the count and CPU per request. */
void bench_session_report(const struct bench_session *s, bool requests);

#endif /* MICROBENCH_SESSION_H */
