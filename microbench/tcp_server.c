// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The server: one thread on epoll, dual-stack. The first valid hello opens
 * the session (session.h); the client's other connections must repeat its
 * id. Each connection's input is read without blocking until a whole
 * request is in, which is then echoed back with one blocking send. The
 * session ends when its last connection closes. See tcp.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session.h"
#include "tcp.h"

#define MAX_CONNS	256

/* A connection's input: hello first, then requests, one at a time. */
struct peer {
	int fd;
	bool member;		/* its hello joined the session */
	char *buf;		/* header + payload */
	size_t cap, got;
};

struct server {
	const struct bench_cfg *cfg;
	int lfd, ep;
	struct bench_session sess;
	struct tb_hello h;
	bool joined[MAX_CONNS];	/* by connection index */
	unsigned int nopen, nclosed;
};

/* Dual-stack where IPv6 exists, plain IPv4 where it does not;
 * non-blocking, as a connection epoll announced may be gone by accept. */
static int listen_socket(unsigned int port)
{
	struct sockaddr_in6 s6 = {
		.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in s4 = {
		.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	};
	int type = SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC;
	int fd = socket(AF_INET6, type, 0);
	struct sockaddr *sa = (struct sockaddr *)&s6;
	socklen_t len = sizeof(s6);

	if (fd >= 0)
		tb_set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY");
	else {
		fd = socket(AF_INET, type, 0);
		sa = (struct sockaddr *)&s4;
		len = sizeof(s4);
	}
	if (fd < 0)
		bench_die("socket: %s", strerror(errno));
	tb_set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
	if (bind(fd, sa, len) || listen(fd, 64))
		bench_die("listening on port %u: %s", port, strerror(errno));
	return fd;
}

static void watch(struct server *s, int fd, void *ptr)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ptr };

	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev))
		bench_die("epoll_ctl: %s", strerror(errno));
}

static void accept_peer(struct server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	struct peer *p;

	if (fd < 0)
		return;
	tb_tune(fd);
	p = calloc(1, sizeof(*p));
	if (!p)
		bench_die("out of memory");
	p->fd = fd;
	p->cap = TB_HDR_LEN + 65536;
	p->buf = malloc(p->cap);
	if (!p->buf)
		bench_die("out of memory");
	watch(s, fd, p);
}

static void close_peer(struct server *s, struct peer *p)
{
	if (p->member) {
		s->nopen--;
		s->nclosed++;
	}
	close(p->fd);	/* also leaves the epoll set */
	free(p->buf);
	free(p);
}

static void open_session(struct server *s, const struct tb_hello *h, int fd)
{
	bench_session_open(&s->sess);
	s->h = *h;
	tb_begin(s->cfg, "server", fd);
	bench_meta("session_mode", "%s",
		   h->mode == TB_MODE_RPC ? "rpc" : "lat");
	bench_meta("session_conns", "%u", h->nconns);
}

/*
 * -1 refuses the connection: not ours, another session, or an index seen
 * before. Hellos may be read in any order: epoll reports the client's
 * connections in no particular one.
 */
static int join(struct server *s, struct peer *p)
{
	struct tb_hello h;

	if (tb_hello_decode((const uint8_t *)p->buf, &h) || !h.nconns ||
	    h.nconns > MAX_CONNS || h.index >= h.nconns)
		return -1;
	if (!s->sess.open)
		open_session(s, &h, p->fd);
	else if (h.session != s->h.session || h.nconns != s->h.nconns ||
		 s->joined[h.index])
		return -1;
	s->joined[h.index] = true;
	p->member = true;
	s->nopen++;
	return 0;
}

/* Bytes the unit being read needs: a hello, or a header + payload. */
static size_t unit_len(const struct peer *p)
{
	uint32_t len;

	if (!p->member)
		return TB_HELLO_LEN;
	if (p->got < TB_HDR_LEN)
		return TB_HDR_LEN;
	memcpy(&len, p->buf, TB_HDR_LEN);
	return TB_HDR_LEN + ntohl(len);
}

/* A whole unit is in: act on it and keep what came after it. */
static int consume(struct server *s, struct peer *p, size_t len)
{
	if (!p->member) {
		if (join(s, p))
			return -1;
	} else {
		tb_send_all(p->fd, p->buf + TB_HDR_LEN, len - TB_HDR_LEN,
			    "reply");
		s->sess.requests++;
	}
	memmove(p->buf, p->buf + len, p->got - len);
	p->got -= len;
	return 0;
}

static int grow(struct peer *p, size_t len)
{
	char *buf;

	if (len - TB_HDR_LEN > BENCH_MAX_SIZE)
		return -1;
	buf = realloc(p->buf, len);
	if (!buf)
		bench_die("out of memory");
	p->buf = buf;
	p->cap = len;
	return 0;
}

/* Reads what is there; 0 to go on, -1 to close the connection. */
static int on_input(struct server *s, struct peer *p)
{
	for (;;) {
		size_t want = unit_len(p);
		ssize_t n;

		if (p->got >= want) {
			if (consume(s, p, want))
				return -1;
			continue;
		}
		if (want > p->cap && grow(p, want))
			return -1;
		n = recv(p->fd, p->buf + p->got, p->cap - p->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (n == 0)
			return -1;
		p->got += (size_t)n;
	}
}

int tb_serve(const struct bench_cfg *cfg)
{
	struct server s = { .cfg = cfg };
	struct epoll_event evs[64];

	bench_session_init(&s.sess, cfg);
	s.lfd = listen_socket(cfg->port);
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.ep < 0)
		bench_die("epoll_create1: %s", strerror(errno));
	watch(&s, s.lfd, NULL);
	fprintf(stderr, "tcp_bench: listening on port %u\n", cfg->port);
	while (!s.sess.open || s.nopen) {
		int i, n = epoll_wait(s.ep, evs, 64, 1000);

		if (n < 0 && errno != EINTR)
			bench_die("epoll_wait: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			struct peer *p = evs[i].data.ptr;

			if (!p)
				accept_peer(&s);
			else if (on_input(&s, p))
				close_peer(&s, p);
		}
		bench_session_check(&s.sess);
	}
	bench_session_report(&s.sess, true);
	close(s.ep);
	close(s.lfd);
	return 0;
}
