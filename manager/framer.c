// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Stream framer: see framer.h. */
#include <string.h>

#include "framer.h"

void lite_framer_init(struct lite_framer *f)
{
	*f = (struct lite_framer){ .have = 0 };
}

int lite_framer_push(struct lite_framer *f, const void *data, size_t len,
		     size_t *used, const struct lite_msg **msg,
		     const char **why)
{
	const unsigned char *in = data;
	unsigned char *buf = (unsigned char *)&f->msg;
	size_t hdr_len = sizeof(f->msg.hdr);
	size_t want, n;
	int ret;

	*used = 0;
	if (f->err) {
		*why = f->why;
		return f->err;
	}
	if (f->done) {
		f->have = 0;
		f->done = false;
	}
	while (*used < len) {
		/* Never more than the header until the header is checked. */
		want = f->have < hdr_len ? hdr_len : lite_msg_size(&f->msg);
		n = want - f->have;
		if (n > len - *used)
			n = len - *used;
		memcpy(buf + f->have, in + *used, n);
		f->have += n;
		*used += n;
		if (f->have == hdr_len) {
			ret = lite_check_hdr(&f->msg.hdr, &f->why);
			if (ret) {
				f->err = ret;
				*why = f->why;
				return ret;
			}
		}
		if (f->have >= hdr_len && f->have == lite_msg_size(&f->msg)) {
			f->done = true;
			*msg = &f->msg;
			return 1;
		}
	}
	return 0;
}
