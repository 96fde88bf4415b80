/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A connection's bounded output buffer: messages queue here until the
 * non-blocking socket takes them. The bound is what stops a node that never
 * reads from growing the manager without limit.
 */
#ifndef LITE_MANAGER_OUTBUF_H
#define LITE_MANAGER_OUTBUF_H

#include <stddef.h>

struct outbuf {
	unsigned char *buf;
	size_t off;	/* first unsent byte */
	size_t len;	/* unsent bytes from off */
	size_t cap;
	size_t limit;	/* most unsent bytes ever held */
};

void outbuf_init(struct outbuf *b, size_t limit);
void outbuf_cleanup(struct outbuf *b);

/* Queue N bytes: -ENOBUFS above the limit (nothing queued), or -ENOMEM. */
int outbuf_append(struct outbuf *b, const void *data, size_t n);

/* Send what the socket takes: 0 (maybe with bytes left), or -errno. */
int outbuf_flush(struct outbuf *b, int fd);

/* Forget everything queued. */
void outbuf_discard(struct outbuf *b);

static inline size_t outbuf_pending(const struct outbuf *b)
{
	return b->len;
}

#endif /* LITE_MANAGER_OUTBUF_H */
