// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
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
 * time per request.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "session.h"
#include "window.h"

#define TB_MAGIC	0x4d425431	/* "MBT1" */
#define HELLO_LEN	16
#define HDR_LEN		4
#define IO_TIMEOUT_S	10
#define MAX_CONNS	256
#define RETRY_NS	200000000ULL

enum { MODE_LAT = 1, MODE_RPC };
enum { PARAM_NONE, PARAM_THREADS };
enum { KEY_PARAM = BENCH_KEY_PROG };

static const char *const mode_names[] = {
	[MODE_LAT] = "lat", [MODE_RPC] = "rpc",
};
static const char *const param_names[] = {
	[PARAM_NONE] = "none", [PARAM_THREADS] = "threads",
};

struct tb_opts {
	int mode;
	int param;
	bool server;
};

static struct tb_opts opts;

/* ---- socket helpers ------------------------------------------------ */

static void set_int(int fd, int level, int name, int val, const char *what)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)))
		bench_die("setsockopt(%s): %s", what, strerror(errno));
}

/* Every blocking send and recv gives up after IO_TIMEOUT_S seconds. */
static void tune(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		bench_die("setsockopt(timeouts): %s", strerror(errno));
}

static void send_all(int fd, const void *buf, size_t len, const char *step)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			bench_die("%s: send: %s", step, errno == EAGAIN ?
				  "timed out" : strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

static void recv_all(int fd, void *buf, size_t len, const char *step)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			bench_die("%s: recv: %s", step, errno == EAGAIN ?
				  "nothing within 10 s" : strerror(errno));
		if (n == 0)
			bench_die("%s: the peer closed the connection", step);
		p += n;
		len -= (size_t)n;
	}
}

/* Copies, not casts: a struct sockaddr may be less aligned than these. */
static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	struct sockaddr_in a4, b4;
	struct sockaddr_in6 a6, b6;

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET) {
		memcpy(&a4, a, sizeof(a4));
		memcpy(&b4, b, sizeof(b4));
		return a4.sin_addr.s_addr == b4.sin_addr.s_addr;
	}
	if (a->sa_family != AF_INET6)
		return false;
	memcpy(&a6, a, sizeof(a6));
	memcpy(&b6, b, sizeof(b6));
	return !memcmp(&a6.sin6_addr, &b6.sin6_addr, sizeof(a6.sin6_addr));
}

/* An IPv4-mapped IPv6 address as the IPv4 one getifaddrs() lists. */
static void unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in s4 = { .sin_family = AF_INET };

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memcpy(ss, &s4, sizeof(s4));
}

/* The provenance "device": the interface owning the socket's address. */
static void local_ifname(int fd, char *name, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct ifaddrs *ifs, *i;

	snprintf(name, size, "unknown");
	if (getsockname(fd, (struct sockaddr *)&ss, &len) || getifaddrs(&ifs))
		return;
	unmap_v4(&ss);
	for (i = ifs; i; i = i->ifa_next) {
		if (i->ifa_addr &&
		    same_addr(i->ifa_addr, (struct sockaddr *)&ss)) {
			snprintf(name, size, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifs);
}

static void begin(const struct bench_cfg *cfg, const char *role, int fd)
{
	char dev[IF_NAMESIZE + 8];

	local_ifname(fd, dev, sizeof(dev));
	bench_begin(cfg, role, dev);
}

/* ---- wire ---------------------------------------------------------- */

struct hello {
	uint32_t session;
	uint16_t nconns, index;
	uint8_t mode;
};

static void hello_encode(const struct hello *h, uint8_t *buf)
{
	uint32_t v32[2] = { htonl(TB_MAGIC), htonl(h->session) };
	uint16_t v16[2] = { htons(h->nconns), htons(h->index) };

	memset(buf, 0, HELLO_LEN);
	memcpy(buf, v32, sizeof(v32));
	memcpy(buf + 8, v16, sizeof(v16));
	buf[12] = h->mode;
}

static int hello_decode(const uint8_t *buf, struct hello *h)
{
	uint32_t v32[2];
	uint16_t v16[2];

	memcpy(v32, buf, sizeof(v32));
	memcpy(v16, buf + 8, sizeof(v16));
	if (ntohl(v32[0]) != TB_MAGIC)
		return -1;
	h->session = ntohl(v32[1]);
	h->nconns = ntohs(v16[0]);
	h->index = ntohs(v16[1]);
	h->mode = buf[12];
	return 0;
}

/* ---- client -------------------------------------------------------- */

struct conn {
	int fd;
	char *req;		/* header + payload */
	char *rep;
	struct bench_window *win;
	uint64_t size;
	uint64_t calls;
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

static struct conn *open_conns(const struct bench_cfg *cfg, uint64_t max)
{
	struct sockaddr_storage dst;
	socklen_t dst_len = bench_resolve(cfg->peer, cfg->port, &dst);
	struct conn *cs = bench_zalloc(cfg->threads, sizeof(*cs));
	struct hello h = {
		.session = (uint32_t)(bench_now_ns() ^ (uint64_t)getpid() << 16),
		.nconns = (uint16_t)cfg->threads,
		.mode = (uint8_t)opts.mode,
	};
	uint8_t buf[HELLO_LEN];
	unsigned int i;

	for (i = 0; i < cfg->threads; i++) {
		cs[i].fd = connect_one(cfg, &dst, dst_len, i);
		tune(cs[i].fd);
		h.index = (uint16_t)i;
		hello_encode(&h, buf);
		send_all(cs[i].fd, buf, sizeof(buf), "hello");
		cs[i].req = bench_zalloc(1, HDR_LEN + max);
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

	memcpy(c->req, &hdr, HDR_LEN);
	send_all(c->fd, c->req, HDR_LEN + size, "request");
	recv_all(c->fd, c->rep, size, "reply");
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

	while (bench_phase(c->win) != BENCH_STOP) {
		call(c, (uint32_t)c->size);
		if (bench_phase(c->win) == BENCH_MEASURE)
			c->calls++;
	}
	return NULL;
}

static void tput_point(const struct bench_cfg *cfg, struct conn *cs,
		       const struct bench_point *pt)
{
	struct bench_window win;
	uint64_t calls = 0;
	double seconds;
	unsigned int i;

	for (i = 0; i < cfg->threads; i++) {
		cs[i].win = &win;
		cs[i].size = pt->size;
		cs[i].calls = 0;
	}
	seconds = bench_window_run(&win, cfg->threads, run_conn, cs,
				   sizeof(*cs), cfg->warmup, cfg->duration);
	for (i = 0; i < cfg->threads; i++)
		calls += cs[i].calls;
	bench_tput_row(pt, seconds, calls);
}

static int run_client(const struct bench_cfg *cfg)
{
	bool tput = opts.mode == MODE_RPC &&
		    (cfg->threads > 1 || cfg->duration_given);
	struct bench_point pt = {
		.bench = opts.mode == MODE_RPC ? "tcp_rpc" : "tcp_lat",
		.op = "tcp",
		.param = opts.param == PARAM_THREADS ? cfg->threads : 0,
	};
	uint64_t *ns = tput ? NULL : bench_zalloc(cfg->iters, sizeof(*ns));
	struct conn *cs = open_conns(cfg, bench_max_size(cfg));
	unsigned int i;

	begin(cfg, "client", cs[0].fd);
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

/* ---- server -------------------------------------------------------- */

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
	struct hello h;
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
		set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY");
	else {
		fd = socket(AF_INET, type, 0);
		sa = (struct sockaddr *)&s4;
		len = sizeof(s4);
	}
	if (fd < 0)
		bench_die("socket: %s", strerror(errno));
	set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
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
	tune(fd);
	p = calloc(1, sizeof(*p));
	if (!p)
		bench_die("out of memory");
	p->fd = fd;
	p->cap = HDR_LEN + 65536;
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

static void open_session(struct server *s, const struct hello *h, int fd)
{
	bench_session_open(&s->sess);
	s->h = *h;
	begin(s->cfg, "server", fd);
	bench_meta("session_mode", "%s", h->mode == MODE_RPC ? "rpc" : "lat");
	bench_meta("session_conns", "%u", h->nconns);
}

/*
 * -1 refuses the connection: not ours, another session, or an index seen
 * before. Hellos may be read in any order: epoll reports the client's
 * connections in no particular one.
 */
static int join(struct server *s, struct peer *p)
{
	struct hello h;

	if (hello_decode((const uint8_t *)p->buf, &h) || !h.nconns ||
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
		return HELLO_LEN;
	if (p->got < HDR_LEN)
		return HDR_LEN;
	memcpy(&len, p->buf, HDR_LEN);
	return HDR_LEN + ntohl(len);
}

/* A whole unit is in: act on it and keep what came after it. */
static int consume(struct server *s, struct peer *p, size_t len)
{
	if (!p->member) {
		if (join(s, p))
			return -1;
	} else {
		send_all(p->fd, p->buf + HDR_LEN, len - HDR_LEN, "reply");
		s->sess.requests++;
	}
	memmove(p->buf, p->buf + len, p->got - len);
	p->got -= len;
	return 0;
}

static int grow(struct peer *p, size_t len)
{
	char *buf;

	if (len - HDR_LEN > BENCH_MAX_SIZE)
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

static int run_server(const struct bench_cfg *cfg)
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

/* ---- options ------------------------------------------------------- */

static const struct bench_opt tcp_opts[] = {
	{ "mode", 'm', "MODE", "lat or rpc (default lat)" },
	{ "param-name", KEY_PARAM, "NAME", "what the param column holds: "
	  "threads or none (default: 0)" },
	{ NULL, 0, NULL, NULL }
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct tb_opts *o = ctx;
	int i;

	switch (key) {
	case 'm':
		i = bench_parse_choice("mode", arg, mode_names, 3);
		break;
	case KEY_PARAM:
		i = bench_parse_choice("param-name", arg, param_names, 2);
		break;
	default:
		return -1;
	}
	if (i < 0)
		return -1;
	if (key == 'm')
		o->mode = i;
	else
		o->param = i;
	return 0;
}

static void print_params(void *ctx)
{
	const struct tb_opts *o = ctx;

	if (o->server)
		return;
	bench_meta("mode", "%s", mode_names[o->mode]);
	bench_meta("param_name", "%s", param_names[o->param]);
}

static const struct bench_prog prog = {
	.name = "tcp_bench",
	.synopsis = "[OPTIONS]                  server for one session\n"
		    "[OPTIONS] -m lat|rpc PEER  client of the server at PEER",
	.notes = "Modes (a client's rows; the server prints only # comments):\n"
		 "  lat  request/reply ping-pong of size bytes each way, "
		 "one connection\n"
		 "  rpc  the same on --threads connections, one per thread: "
		 "throughput rows,\n"
		 "       or latency rows with one thread and no --duration\n"
		 "Requests carry a 4-byte length header; op is always tcp.\n"
		 "Default sizes: 8,64,512,4096,65536.\n"
		 "Exit status: 0 done, 1 run-time failure, 2 usage error.\n",
	.opts = tcp_opts,
	.set = set_opt,
	.params = print_params,
	.ctx = &opts,
};

static void check(struct bench_cfg *cfg, struct tb_opts *o)
{
	if (cfg->rate)
		bench_usage_error(cfg, "--rate is not supported by tcp_bench");
	if (!cfg->peer) {
		o->server = true;
		return;
	}
	if (!o->mode)
		o->mode = MODE_LAT;
	if (o->mode == MODE_LAT && cfg->threads > 1)
		bench_usage_error(cfg, "--mode lat uses one connection; "
				  "use --mode rpc for --threads");
	bench_default_sizes(cfg, "8,64,512,4096,65536");
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg;

	bench_parse(&cfg, &prog, argc, argv);
	check(&cfg, &opts);
	signal(SIGPIPE, SIG_IGN);
	return opts.server ? run_server(&cfg) : run_client(&cfg);
}
