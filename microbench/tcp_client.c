// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The client: --threads connections (lat: one), each with the hello first,
 * then request/reply calls; latency rows from one connection, throughput
 * rows from one thread per connection (window.h). See tcp.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"
#include "window.h"

#define RETRY_NS	200000000ULL

struct conn {
	struct bench_worker w;	/* first: window.h; counts calls */
	int fd;
	char *req;		/* header + payload */
	char *rep;
	uint64_t size;
} __attribute__((aligned(BENCH_CACHE_LINE)));

/* Non-blocking connect, so the wait is bounded by deadline. */
static int dial(const struct sockaddr_storage *dst, socklen_t dst_len,
		uint64_t deadline)
{
	int fd = socket(dst->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
			SOCK_CLOEXEC, 0);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	uint64_t now = bench_now_ns();
	int err = 0, ms = now < deadline ?
		  (int)((deadline - now) / 1000000) + 1 : 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		bench_die("socket: %s", strerror(errno));
	if (connect(fd, (const struct sockaddr *)dst, dst_len) &&
	    errno != EINPROGRESS)
		err = errno;
	else if (poll(&p, 1, ms) != 1)
		err = ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (!err && fcntl(fd, F_SETFL, 0))
		err = errno;
	if (!err)
		return fd;
	close(fd);
	errno = err;
	return -1;
}

/* The first connection retries while the server is not up yet. */
static int connect_one(const struct bench_cfg *cfg,
		       const struct sockaddr_storage *dst, socklen_t dst_len,
		       unsigned int index)
{
	uint64_t deadline = bench_now_ns() + bench_sec_ns(cfg->timeout);
	struct timespec pause = { .tv_nsec = (long)RETRY_NS };

	for (;;) {
		int fd = dial(dst, dst_len, deadline);

		if (fd >= 0)
			return fd;
		if (index || errno != ECONNREFUSED ||
		    bench_now_ns() + RETRY_NS >= deadline)
			bench_die("connecting to %s port %u: %s", cfg->peer,
				  cfg->port, strerror(errno));
		nanosleep(&pause, NULL);
	}
}

static struct conn *open_conns(const struct bench_cfg *cfg,
			       const struct tb_opts *o, uint64_t max)
{
	struct sockaddr_storage dst;
	socklen_t dst_len = bench_resolve(cfg->peer, cfg->port, &dst);
	struct conn *cs = bench_zalloc(cfg->threads, sizeof(*cs));
	struct tb_hello h = {
		.session = (uint32_t)(bench_now_ns() ^ (uint64_t)getpid() << 16),
		.nconns = (uint16_t)cfg->threads,
		.mode = (uint8_t)o->mode,
	};
	uint8_t buf[TB_HELLO_LEN];
	unsigned int i;

	for (i = 0; i < cfg->threads; i++) {
		cs[i].fd = connect_one(cfg, &dst, dst_len, i);
		tb_tune(cs[i].fd);
		h.index = (uint16_t)i;
		tb_hello_encode(&h, buf);
		tb_send_all(cs[i].fd, buf, sizeof(buf), "hello");
		cs[i].req = bench_zalloc(1, TB_HDR_LEN + max);
		cs[i].rep = bench_zalloc(1, max);
	}
	return cs;
}

static void close_conns(struct conn *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		close(cs[i].fd);
		free(cs[i].req);
		free(cs[i].rep);
	}
	free(cs);
}

static void call(struct conn *c, uint32_t size)
{
	uint32_t hdr = htonl(size);

	memcpy(c->req, &hdr, TB_HDR_LEN);
	tb_send_all(c->fd, c->req, TB_HDR_LEN + size, "request");
	tb_recv_all(c->fd, c->rep, size, "reply");
}

static void warm_up(struct conn *c, uint32_t size, double seconds)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(seconds);

	while (bench_now_ns() < end)
		call(c, size);
}

static void lat_point(const struct bench_cfg *cfg, struct conn *c,
		      const struct bench_point *pt, uint64_t *ns)
{
	uint32_t size = (uint32_t)pt->size;
	uint64_t i, t0;

	warm_up(c, size, cfg->warmup);
	for (i = 0; i < cfg->iters; i++) {
		t0 = bench_now_ns();
		call(c, size);
		ns[i] = bench_now_ns() - t0;
	}
	bench_lat_row(pt, ns, cfg->iters);
}

static void *run_conn(void *arg)
{
	struct conn *c = arg;

	while (bench_phase(&c->w) != BENCH_STOP) {
		call(c, (uint32_t)c->size);
		bench_count(&c->w, 1);
	}
	return NULL;
}

static void tput_point(const struct bench_cfg *cfg, struct conn *cs,
		       const struct bench_point *pt)
{
	unsigned int i;

	for (i = 0; i < cfg->threads; i++)
		cs[i].size = pt->size;
	bench_window_point(cfg, pt, cfg->threads, run_conn, cs, sizeof(*cs));
}

int tb_client(const struct bench_cfg *cfg, const struct tb_opts *o)
{
	bool tput = o->mode == TB_MODE_RPC &&
		    (cfg->threads > 1 || cfg->duration_given);
	struct bench_point pt = {
		.bench = o->mode == TB_MODE_RPC ? "tcp_rpc" : "tcp_lat",
		.op = "tcp",
		.param = o->param == TB_PARAM_THREADS ? cfg->threads : 0,
	};
	uint64_t *ns = tput ? NULL : bench_zalloc(cfg->iters, sizeof(*ns));
	struct conn *cs = open_conns(cfg, o, bench_max_size(cfg));
	unsigned int i;

	tb_begin(cfg, "client", cs[0].fd);
	bench_header(tput ? BENCH_TPUT : BENCH_LAT);
	for (i = 0; i < cfg->nsizes; i++) {
		pt.size = cfg->sizes[i];
		for (pt.rep = 1; pt.rep <= cfg->reps; pt.rep++) {
			if (tput)
				tput_point(cfg, cs, &pt);
			else
				lat_point(cfg, cs, &pt, ns);
		}
	}
	close_conns(cs, cfg->threads);
	free(ns);
	return 0;
}
