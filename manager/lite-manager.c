// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * lite-manager: the LITE cluster manager. Nodes connect over TCP and JOIN;
 * the manager hands out node ids, tells every member about every other one
 * and relays the QP numbers they exchange (docs/protocol.md).
 *
 * One thread, one poll() loop, non-blocking sockets. The protocol itself is
 * in cluster.c; this file only moves bytes, keeps time and logs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "auth.h"
#include "cluster.h"
#include "opt_table.h"
#include "outbuf.h"
#include "proto.h"

#define MAX_CONNS	256		/* joined or not */
#define DEFAULT_PER_SOURCE 16		/* a host runs one node */
#define HOST_STRLEN	64		/* a numeric address */
#define DEFAULT_KEY_FILE "/etc/lite/cluster.key"
#define OUT_LIMIT	(1U << 20)	/* a member's unsent bytes */
#define LINGER_MS	2000		/* to deliver a REJECT */
#define READ_CHUNK	4096		/* per wakeup: fairness */
#define ACCEPT_BURST	64

enum drop {
	DROP_NONE,
	DROP_FLUSH,	/* send what is queued (a REJECT), then close */
	DROP_NOW,
};

struct conn {
	int fd;
	enum drop drop;		/* set during an event, done after it */
	bool lingering;		/* left; flushing, then draining */
	bool shut;		/* SHUT_WR sent */
	int64_t deadline;	/* ms, monotonic; 0: none */
	char source[HOST_STRLEN];	/* the peer's address, without port */
	struct outbuf out;
	struct lite_sess sess;
};

struct options {
	const char *address;
	unsigned int port;
	unsigned int ib_port;		/* 0: any */
	unsigned int k;			/* 0: the first node's */
	unsigned int max_nodes;
	unsigned int join_timeout;	/* seconds */
	unsigned int max_per_source;	/* connections from one address */
	const char *pidfile;
	const char *key_file;		/* the cluster key */
};

struct manager {
	struct options opt;
	int listen_fd;
	int sig_fd;
	sigset_t old_mask;
	bool mask_set;
	bool pidfile_written;
	bool stop;
	int64_t accept_paused_until;	/* ms; out of file descriptors */
	struct lite_cluster cluster;
	struct conn *conns[MAX_CONNS];
};

static void vlog_line(const char *fmt, va_list ap)
{
	char line[640];
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n += snprintf(line + n, sizeof(line) - n, ".%03ldZ lite-manager: ",
		      ts.tv_nsec / 1000000);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	/* One write per line, so lines from a crowd never interleave. */
	n = strlen(line);
	line[n++] = '\n';
	line[n] = '\0';
	fputs(line, stderr);
}

static void __attribute__((format(printf, 1, 2))) log_line(const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_line(fmt, ap);
	va_end(ap);
}

static void cluster_log(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vlog_line(fmt, ap);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *conn_label(const struct conn *c, char *buf, size_t len)
{
	return lite_sess_label(&c->sess, buf, len);
}

/* Queue for one connection. Called from inside cluster.c: never re-enter. */
static void cluster_send(void *ctx, struct lite_sess *to, const void *msg,
			 size_t len)
{
	struct conn *c = to->owner;
	char label[LITE_PEER_STRLEN + 32];
	int ret;

	(void)ctx;
	if (c->drop == DROP_NOW || c->lingering)
		return;
	ret = outbuf_append(&c->out, msg, len);
	if (!ret)
		return;
	if (ret == -ENOBUFS)
		log_line("%s: output buffer would exceed %u bytes (not reading?); dropping",
			 conn_label(c, label, sizeof(label)), OUT_LIMIT);
	else
		log_line("%s: %s; dropping",
			 conn_label(c, label, sizeof(label)), strerror(-ret));
	outbuf_discard(&c->out);
	c->drop = DROP_NOW;
}

static int cluster_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return lite_random(buf, len);
}

/* S was replaced by its node's new connection: close the old one. */
static void cluster_drop(void *ctx, struct lite_sess *s)
{
	struct conn *c = s->owner;

	(void)ctx;
	c->drop = DROP_NOW;
}

static const struct lite_cluster_ops cluster_ops = {
	.send = cluster_send,
	.log = cluster_log,
	.random = cluster_random,
	.drop = cluster_drop,
};

/* "ADDR:PORT" in @buf, and the address alone in @host (HOST_STRLEN). */
static void format_addr(const struct sockaddr *sa, socklen_t len, char *buf,
			size_t size, char *host)
{
	char serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, HOST_STRLEN, serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, size, "?");
		snprintf(host, HOST_STRLEN, "?");
		return;
	}
	snprintf(buf, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
		 host, serv);
}

static void conn_free(struct manager *m, unsigned int slot)
{
	struct conn *c = m->conns[slot];

	close(c->fd);
	outbuf_cleanup(&c->out);
	free(c);
	m->conns[slot] = NULL;
}

/* Best effort: the node learns why before we hang up. */
static void refuse_overflow(int fd, const char *peer, const char *reason)
{
	struct lite_msg msg;

	lite_msg_init(&msg, LITE_MSG_REJECT);
	msg.reject.error = htole32(EUSERS);
	/* NUL-padded by lite_msg_init(); a long reason is cut short. */
	memcpy(msg.reject.reason, reason,
	       strnlen(reason, sizeof(msg.reject.reason) - 1));
	if (send(fd, &msg, lite_msg_size(&msg),
		 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_line("peer %s: send REJECT: %s", peer, strerror(errno));
	log_line("peer %s: %s; closing", peer, reason);
}

/* Connections from @source, members and lingering ones included. */
static unsigned int conns_from(const struct manager *m, const char *source)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < MAX_CONNS; i++)
		if (m->conns[i] && !strcmp(m->conns[i]->source, source))
			n++;
	return n;
}

static void set_sockopts(int fd)
{
	int one = 1, idle = 10, intvl = 5, cnt = 3;
	unsigned int user_timeout = (idle + intvl * cnt) * 1000;

	/* Joins and QP_INFO are small and latency bound. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* A node that powers off sends no FIN: find out in ~25 s. */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	/*
	 * Keepalive probes only an idle connection: with data unacked (a
	 * QP_INFO relayed to a node whose link is down) the retransmission
	 * timer decides, ~15 min with tcp_retries2. This bounds both by ~25 s.
	 */
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout,
		   sizeof(user_timeout));
}

static void accept_conns(struct manager *m)
{
	struct sockaddr_storage ss;
	char peer[LITE_PEER_STRLEN], source[HOST_STRLEN], reason[128];
	unsigned int slot;
	socklen_t len;
	struct conn *c;
	int fd;

	for (int burst = 0; burst < ACCEPT_BURST; burst++) {
		len = sizeof(ss);
		fd = accept4(m->listen_fd, (struct sockaddr *)&ss, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR || errno == ECONNABORTED)
				return;
			log_line("accept: %s", strerror(errno));
			/*
			 * The pending connection stays pending: without a
			 * pause, poll() would report it again at once.
			 */
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				m->accept_paused_until = now_ms() + 1000;
			return;
		}
		format_addr((struct sockaddr *)&ss, len, peer, sizeof(peer),
			    source);
		/* One host cannot take every slot (a real node needs one). */
		if (conns_from(m, source) >= m->opt.max_per_source) {
			snprintf(reason, sizeof(reason),
				 "too many connections from %s (%u)", source,
				 m->opt.max_per_source);
			refuse_overflow(fd, peer, reason);
			close(fd);
			continue;
		}
		for (slot = 0; slot < MAX_CONNS && m->conns[slot]; slot++)
			;
		c = slot < MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			snprintf(reason, sizeof(reason),
				 "too many connections (%u)", MAX_CONNS);
			refuse_overflow(fd, peer, reason);
			close(fd);
			continue;
		}
		set_sockopts(fd);
		c->fd = fd;
		snprintf(c->source, sizeof(c->source), "%s", source);
		c->deadline = now_ms() + (int64_t)m->opt.join_timeout * 1000;
		outbuf_init(&c->out, OUT_LIMIT);
		lite_sess_init(&c->sess, peer, c);
		m->conns[slot] = c;
		log_line("peer %s connected", peer);
		if (lite_sess_start(&m->cluster, &c->sess)) {
			log_line("peer %s: no random bytes for a nonce; closing",
				 peer);
			c->drop = DROP_NOW;
		}
	}
}

static void conn_read(struct manager *m, struct conn *c)
{
	char label[LITE_PEER_STRLEN + 32];
	unsigned char buf[READ_CHUNK];
	ssize_t n;

	n = recv(c->fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		      errno == EINTR))
		return;
	if (c->lingering) {
		/* Drain until EOF, so closing sends FIN rather than RST. */
		if (n <= 0)
			c->drop = DROP_NOW;
		return;
	}
	if (n < 0) {
		log_line("%s: recv: %s; closing",
			 conn_label(c, label, sizeof(label)), strerror(errno));
		c->drop = DROP_NOW;
		return;
	}
	if (n == 0) {
		if (c->sess.state != LITE_SESS_MEMBER)
			log_line("%s: closed before JOIN",
				 conn_label(c, label, sizeof(label)));
		else if (lite_framer_pending(&c->sess.framer))
			log_line("%s: closed in the middle of a message",
				 conn_label(c, label, sizeof(label)));
		/* A member's leave is logged by the cluster. */
		c->drop = DROP_NOW;
		return;
	}
	if (lite_sess_input(&m->cluster, &c->sess, buf, n) < 0)
		c->drop = DROP_FLUSH;
	else if (c->sess.state == LITE_SESS_MEMBER)
		c->deadline = 0;	/* the join timeout is over */
}

static void conn_flush(struct conn *c)
{
	char label[LITE_PEER_STRLEN + 32];
	int ret;

	if (c->drop == DROP_NOW)
		return;
	ret = outbuf_flush(&c->out, c->fd);
	if (ret) {
		if (!c->lingering)
			log_line("%s: send: %s; closing",
				 conn_label(c, label, sizeof(label)),
				 strerror(-ret));
		c->drop = DROP_NOW;
		return;
	}
	if (c->lingering && !c->shut && !outbuf_pending(&c->out)) {
		shutdown(c->fd, SHUT_WR);
		c->shut = true;
	}
}

/*
 * Act on the drops an event asked for. A member's leave queues PEER_DOWN to
 * the others, which may overflow one of them and drop it too: repeat until
 * nothing changes.
 */
static void sweep(struct manager *m)
{
	bool again = true;

	while (again) {
		again = false;
		for (unsigned int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = m->conns[i];
			enum drop drop;

			if (!c || c->drop == DROP_NONE)
				continue;
			drop = c->drop;
			c->drop = DROP_NONE;
			again = true;
			lite_sess_leave(&m->cluster, &c->sess);
			if (drop == DROP_NOW) {
				conn_free(m, i);
				continue;
			}
			c->lingering = true;
			c->deadline = now_ms() + LINGER_MS;
			conn_flush(c);
		}
	}
}

static void expire(struct manager *m)
{
	int64_t now = now_ms();

	for (unsigned int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = m->conns[i];

		if (!c || !c->deadline || now < c->deadline)
			continue;
		c->deadline = 0;
		if (c->lingering) {
			c->drop = DROP_NOW;
			continue;
		}
		if (c->sess.state != LITE_SESS_NEW)
			continue;
		lite_sess_fail(&m->cluster, &c->sess, -ETIMEDOUT,
			       "no JOIN within %u s", m->opt.join_timeout);
		c->drop = DROP_FLUSH;
	}
}

static int poll_timeout(const struct manager *m)
{
	int64_t next = INT64_MAX, now = now_ms();

	if (m->accept_paused_until)
		next = m->accept_paused_until;
	for (unsigned int i = 0; i < MAX_CONNS; i++) {
		const struct conn *c = m->conns[i];

		if (c && c->deadline && c->deadline < next)
			next = c->deadline;
	}
	if (next == INT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

static void on_signal(struct manager *m)
{
	struct signalfd_siginfo si;

	if (read(m->sig_fd, &si, sizeof(si)) != sizeof(si))
		return;
	log_line("SIG%s; shutting down", sigabbrev_np(si.ssi_signo));
	m->stop = true;
}

static int run(struct manager *m)
{
	struct pollfd pfd[MAX_CONNS + 2];
	struct conn *owner[MAX_CONNS + 2];
	unsigned int n;
	int ret;

	while (!m->stop) {
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = m->sig_fd, .events = POLLIN };
		if (m->accept_paused_until && now_ms() >= m->accept_paused_until)
			m->accept_paused_until = 0;
		pfd[n++] = (struct pollfd){
			.fd = m->listen_fd,
			.events = m->accept_paused_until ? 0 : POLLIN,
		};
		for (unsigned int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = m->conns[i];

			if (!c)
				continue;
			owner[n] = c;
			pfd[n] = (struct pollfd){ .fd = c->fd,
						  .events = POLLIN };
			if (outbuf_pending(&c->out))
				pfd[n].events |= POLLOUT;
			n++;
		}
		ret = poll(pfd, n, poll_timeout(m));
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			log_line("poll: %s", strerror(errno));
			return ret;
		}
		if (pfd[0].revents)
			on_signal(m);
		if (pfd[1].revents)
			accept_conns(m);
		/* Only sweep() frees connections: owner[] stays valid. */
		for (unsigned int i = 2; i < n; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR) &&
			    owner[i]->drop == DROP_NONE)
				conn_read(m, owner[i]);
		expire(m);
		sweep(m);
		for (unsigned int i = 0; i < MAX_CONNS; i++)
			if (m->conns[i] && outbuf_pending(&m->conns[i]->out))
				conn_flush(m->conns[i]);
		sweep(m);
	}
	return 0;
}

static int write_pidfile(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int ret = 0;

	/* Write then rename: a reader never sees an empty pidfile. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	if (fprintf(f, "%d\n", (int)getpid()) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static int open_listener(struct manager *m)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
		.ai_socktype = SOCK_STREAM,
	};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct addrinfo *ai;
	char port[8], where[LITE_PEER_STRLEN], host[HOST_STRLEN], k[8], ib_port[8];
	int one = 1, ret;

	snprintf(port, sizeof(port), "%u", m->opt.port);
	ret = getaddrinfo(m->opt.address, port, &hints, &ai);
	if (ret) {
		log_line("address %s: %s", m->opt.address, gai_strerror(ret));
		return -EINVAL;
	}
	m->listen_fd = socket(ai->ai_family,
			      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0) {
		ret = -errno;
		log_line("socket: %s", strerror(errno));
		goto out;
	}
	/* Restart at once after a stop, despite TIME_WAIT connections. */
	setsockopt(m->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(m->listen_fd, ai->ai_addr, ai->ai_addrlen) ||
	    listen(m->listen_fd, 128) ||
	    getsockname(m->listen_fd, (struct sockaddr *)&ss, &len)) {
		ret = -errno;
		log_line("listen on %s port %s: %s", m->opt.address, port,
			 strerror(errno));
		goto out;
	}
	format_addr((struct sockaddr *)&ss, len, where, sizeof(where), host);
	snprintf(k, sizeof(k), "%u", m->opt.k);
	snprintf(ib_port, sizeof(ib_port), "%u", m->opt.ib_port);
	log_line("listening on %s (K %s, ib_port %s, max %u nodes, join timeout %u s, %u connections per source)",
		 where, m->opt.k ? k : "of the first node",
		 m->opt.ib_port ? ib_port : "any", m->opt.max_nodes,
		 m->opt.join_timeout, m->opt.max_per_source);
out:
	freeaddrinfo(ai);
	return ret;
}

static int manager_init(struct manager *m, const struct options *opt)
{
	struct lite_cluster_cfg cfg = {
		.max_nodes = opt->max_nodes,
		.k = opt->k,
		.ib_port = opt->ib_port,
	};
	sigset_t mask;
	int ret;

	*m = (struct manager){
		.opt = *opt,
		.listen_fd = -1,
		.sig_fd = -1,
	};
	char err[256];

	ret = lite_key_load(opt->key_file, cfg.key, err, sizeof(err));
	if (ret) {
		log_line("cluster key: %s", err);
		return ret;
	}
	ret = lite_cluster_init(&m->cluster, &cfg, &cluster_ops, m);
	OPENSSL_cleanse(cfg.key, sizeof(cfg.key));
	if (ret)
		return ret;
	/* MSG_NOSIGNAL covers sockets; this covers a closed stderr pipe. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, &m->old_mask))
		return -errno;
	m->mask_set = true;
	m->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (m->sig_fd < 0) {
		ret = -errno;
		log_line("signalfd: %s", strerror(errno));
		return ret;
	}
	ret = open_listener(m);
	if (ret)
		return ret;
	if (opt->pidfile) {
		ret = write_pidfile(opt->pidfile);
		if (ret) {
			log_line("pidfile %s: %s", opt->pidfile,
				 strerror(-ret));
			return ret;
		}
		m->pidfile_written = true;
	}
	return 0;
}

static void manager_cleanup(struct manager *m)
{
	for (unsigned int i = 0; i < MAX_CONNS; i++)
		if (m->conns[i])
			conn_free(m, i);
	lite_cluster_cleanup(&m->cluster);
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	if (m->sig_fd >= 0)
		close(m->sig_fd);
	if (m->mask_set)
		sigprocmask(SIG_SETMASK, &m->old_mask, NULL);
	if (m->pidfile_written)
		unlink(m->opt.pidfile);
}

/* The help texts' numbers, as text. */
#define STR_(x)	#x
#define STR(x)	STR_(x)
_Static_assert(LITE_MAX_NODE_ID == 63, "--max-nodes' help says 1..63");

/* Where the options' values go. */
#define OPTS	struct options

static const struct opt_def opts[] = {
	{ "port", 'p', "PORT", "TCP port (default "
	  STR(LITE_PROTO_DEFAULT_PORT) "; 0: any free port, logged at start)",
	  OPT_UINT(OPTS, port, 0, 65535) },
	{ "address", 'a', "ADDR", "listen address (default 0.0.0.0)",
	  OPT_STR(OPTS, address) },
	{ "ib-port", 'i', "N", "refuse a JOIN for another RDMA port "
	  "(default: any port)", OPT_UINT(OPTS, ib_port, 1, 255) },
	{ "qps-per-peer", 'k', "K", "the cluster's QPs per peer, 1.."
	  STR(LITE_MAX_QPS_PER_PEER) " (default: the first node's)",
	  OPT_UINT(OPTS, k, 1, LITE_MAX_QPS_PER_PEER) },
	{ "max-nodes", 'n', "N", "nodes at once, 1..63 (default 63)",
	  OPT_UINT(OPTS, max_nodes, 1, LITE_MAX_NODE_ID) },
	{ "pidfile", 0, "FILE", "write the pid there; removed on exit",
	  OPT_STR(OPTS, pidfile) },
	{ "key-file", 0, "FILE", "the cluster key: 64 hex digits, mode 0600 "
	  "(default " DEFAULT_KEY_FILE ")", OPT_STR(OPTS, key_file) },
	{ "join-timeout", 0, "SECS", "close a connection without a JOIN "
	  "after SECS (default 10)", OPT_UINT(OPTS, join_timeout, 1, 3600) },
	{ "max-per-source", 0, "N", "connections from one address at once, "
	  "1.." STR(MAX_CONNS) " (default " STR(DEFAULT_PER_SOURCE) ")",
	  OPT_UINT(OPTS, max_per_source, 1, MAX_CONNS) },
	{ "help", 'h', NULL, "this text", .type = OPT_T_OWN },
	{ .name = NULL }
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTION]...\n"
		"The LITE cluster manager: nodes join over TCP, get a node id,\n"
		"learn about each other and exchange QP numbers through it.\n"
		"Runs in the foreground, logs to stderr; SIGTERM/SIGINT stop it.\n"
		"\n", prog);
	opt_help(f, opts, 27);
	fprintf(f, "\nProtocol: docs/protocol.md.\n");
}

/* "PROG: --NAME wants MIN..MAX", then the usage. */
static void bad_value(const struct opt_parser *p, const struct opt_def *o,
		      const char *arg, const char *why)
{
	(void)arg;
	(void)why;
	fprintf(stderr, "%s: --%s wants %" PRIu64 "..%" PRIu64 "%s\n",
		p->prog, o->name, o->min, o->max,
		strcmp(o->arg, "SECS") ? "" : " seconds");
}

static void usage_fail(const struct opt_parser *p)
{
	usage(stderr, p->prog);
}

/* 0: run; 1: help printed; a usage error exits 2. */
static int parse_args(int argc, char **argv, struct options *opt)
{
	struct opt_parser p = {
		.prog = argv[0], .num = OPT_NUM_DIGITS, .bad = bad_value,
		.fail = usage_fail,
	};
	const struct opt_def *d;

	*opt = (struct options){
		.address = "0.0.0.0",
		.port = LITE_PROTO_DEFAULT_PORT,
		.max_nodes = LITE_MAX_NODE_ID,
		.join_timeout = 10,
		.max_per_source = DEFAULT_PER_SOURCE,
		.key_file = DEFAULT_KEY_FILE,
	};
	opt_add(&p, opts, opt);
	while ((d = opt_next(&p, argc, argv))) {
		if (d->key == 'h') {
			usage(stdout, p.prog);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument\n", p.prog);
		usage_fail(&p);
		exit(2);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct manager m;
	int ret;

	if (parse_args(argc, argv, &opt))
		return 0;
	ret = manager_init(&m, &opt);
	if (!ret)
		ret = run(&m);
	manager_cleanup(&m);
	if (ret)
		log_line("exiting: %s", strerror(-ret));
	return ret ? 1 : 0;
}
