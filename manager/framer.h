/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Stream framer: turns the bytes of a TCP stream, in reads of any size, into
 * whole validated-header messages. The header is checked the moment its 16
 * bytes are in, so a hostile length or type is refused without waiting for
 * (or buffering) a single payload byte.
 */
#ifndef LITE_MANAGER_FRAMER_H
#define LITE_MANAGER_FRAMER_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

struct lite_framer {
	struct lite_msg msg;	/* the message being assembled */
	size_t have;		/* bytes of msg received so far */
	bool done;		/* msg was handed out: start over next time */
	int err;		/* sticky: a bad header ends the stream */
	const char *why;
};

void lite_framer_init(struct lite_framer *f);

/*
 * Consume bytes from DATA (LEN of them at most) and set *USED to how many.
 * Returns 1 when a message is complete (*MSG points at it until the next
 * call), 0 when all of DATA went into a partial message, or the negative
 * errno of lite_check_hdr() with *WHY set; after an error every call fails
 * the same way and consumes nothing.
 */
int lite_framer_push(struct lite_framer *f, const void *data, size_t len,
		     size_t *used, const struct lite_msg **msg,
		     const char **why);

/* Bytes of an unfinished message held (0 between messages). */
static inline size_t lite_framer_pending(const struct lite_framer *f)
{
	return f->done ? 0 : f->have;
}

#endif /* LITE_MANAGER_FRAMER_H */
