// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* A connection's bounded output buffer: see outbuf.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "outbuf.h"

#define OUTBUF_MIN_CAP 4096

void outbuf_init(struct outbuf *b, size_t limit)
{
	*b = (struct outbuf){ .limit = limit };
}

void outbuf_cleanup(struct outbuf *b)
{
	free(b->buf);
	*b = (struct outbuf){ .limit = b->limit };
}

void outbuf_discard(struct outbuf *b)
{
	b->off = 0;
	b->len = 0;
}

int outbuf_append(struct outbuf *b, const void *data, size_t n)
{
	size_t cap;
	void *p;

	if (n > b->limit - b->len)
		return -ENOBUFS;
	if (b->off + b->len + n > b->cap && b->off) {
		/* Slide the unsent bytes down before growing. */
		memmove(b->buf, b->buf + b->off, b->len);
		b->off = 0;
	}
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : OUTBUF_MIN_CAP;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->buf, cap);
		if (!p)
			return -ENOMEM;
		b->buf = p;
		b->cap = cap;
	}
	memcpy(b->buf + b->off + b->len, data, n);
	b->len += n;
	return 0;
}

int outbuf_flush(struct outbuf *b, int fd)
{
	ssize_t n;

	while (b->len) {
		n = send(fd, b->buf + b->off, b->len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		b->off += n;
		b->len -= n;
	}
	b->off = 0;
	return 0;
}
