/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * tcp_bench: the kernel TCP baseline for the same request/reply patterns.
 *
 * Each client connection first sends a 16-byte hello (magic, session id,
 * connection count and index, mode); then every request is a 4-byte
 * big-endian length and that many payload bytes in one send(), and the
 * reply is the same number of payload bytes (no header) echoed back. One
 * call is outstanding per connection. TCP_NODELAY on both ends.
 *
 * A sample is the time from just before the request's send() to the
 * return of the recv() that completes its reply. lat: one connection,
 * latency rows over --iters calls. rpc: --threads connections, one per
 * thread; throughput rows over --duration, or latency rows with one thread
 * and no --duration (the same rule as verbs_bench --mode rpc).
 *
 * The server is one thread with epoll and blocking-free reads: it reads a
 * whole request, then send()s the reply. Like verbs_bench it serves one
 * session (all of a client's connections) and exits, printing its CPU
 * time per request. Files:
 *
 *   tcp_bench.c   options and dispatch
 *   tcp_util.c    socket options, whole-buffer send and recv, the hello's
 *                 byte layout, the provenance device
 *   tcp_client.c  the client: connections, lat and rpc rows
 *   tcp_server.c  the epoll server
 */
#ifndef MICROBENCH_TCP_H
#define MICROBENCH_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define TB_HELLO_LEN	16
#define TB_HDR_LEN	4	/* a request's length header */

enum tb_mode { TB_MODE_LAT = 1, TB_MODE_RPC };
enum tb_param { TB_PARAM_NONE, TB_PARAM_THREADS };

struct tb_opts {
	int mode;
	int param;
	bool server;
};

/* What a client's connection says first. */
struct tb_hello {
	uint32_t session;
	uint16_t nconns, index;
	uint8_t mode;
};

/* tcp_util.c */
/* An int socket option, or exit 1 naming it (what). */
void tb_set_int(int fd, int level, int name, int val, const char *what);
/* TCP_NODELAY, and a 10 s bound on every blocking send and recv. */
void tb_tune(int fd);
/* All of buf or exit 1, the message naming step. */
void tb_send_all(int fd, const void *buf, size_t len, const char *step);
void tb_recv_all(int fd, void *buf, size_t len, const char *step);
/* bench_begin() with the interface of fd's local address as the device. */
void tb_begin(const struct bench_cfg *cfg, const char *role, int fd);
void tb_hello_encode(const struct tb_hello *h, uint8_t *buf);
/* -1: not a tcp_bench hello of this version. */
int tb_hello_decode(const uint8_t *buf, struct tb_hello *h);

/* The two sides; each returns the exit status. */
int tb_client(const struct bench_cfg *cfg, const struct tb_opts *o);
int tb_serve(const struct bench_cfg *cfg);

#endif /* MICROBENCH_TCP_H */
