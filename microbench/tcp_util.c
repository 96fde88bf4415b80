// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Helpers of both sides: sockets, the hello's layout, the provenance device. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp.h"

#define TB_MAGIC	0x4d425431	/* "MBT1" */
#define IO_TIMEOUT_S	10

void tb_set_int(int fd, int level, int name, int val, const char *what)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)))
		bench_die("setsockopt(%s): %s", what, strerror(errno));
}

/* Every blocking send and recv gives up after IO_TIMEOUT_S seconds. */
void tb_tune(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	tb_set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		bench_die("setsockopt(timeouts): %s", strerror(errno));
}

void tb_send_all(int fd, const void *buf, size_t len, const char *step)
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

void tb_recv_all(int fd, void *buf, size_t len, const char *step)
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

void tb_begin(const struct bench_cfg *cfg, const char *role, int fd)
{
	char dev[IF_NAMESIZE + 8];

	local_ifname(fd, dev, sizeof(dev));
	bench_begin(cfg, role, dev);
}

/* ---- wire ---------------------------------------------------------- */

/* Big-endian: magic 4, session 4, nconns 2, index 2, mode 1, zero 3. */
void tb_hello_encode(const struct tb_hello *h, uint8_t *buf)
{
	uint32_t v32[2] = { htonl(TB_MAGIC), htonl(h->session) };
	uint16_t v16[2] = { htons(h->nconns), htons(h->index) };

	memset(buf, 0, TB_HELLO_LEN);
	memcpy(buf, v32, sizeof(v32));
	memcpy(buf + 8, v16, sizeof(v16));
	buf[12] = h->mode;
}

int tb_hello_decode(const uint8_t *buf, struct tb_hello *h)
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
