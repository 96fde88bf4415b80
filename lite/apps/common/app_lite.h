/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the applications' LITE programs share on top of liblite (lite.h).
 * Header only, like app_util.h.
 */
#ifndef APP_LITE_H
#define APP_LITE_H

#include <errno.h>
#include <stdint.h>

#include <lite.h>

/*
 * Post writes (@write) or reads of @size bytes at @off from or into @buf,
 * in pieces of at most @window bytes (LITE_ASYNC_MAX_SIZE at most). When
 * too much is in flight (-EAGAIN), let it land (lite_fence, at most
 * @fence_ms) and go on. 0 or a negative errno; the caller fences the rest.
 */
static inline int app_post_range(int lh, uint64_t off, void *buf,
				 uint64_t size, uint64_t window, int password,
				 int write, int fence_ms)
{
	uint64_t piece;
	int ret;

	while (size) {
		piece = size < window ? size : window;
		ret = write ? lite_post_write(lh, off, buf, piece, password, 0)
			    : lite_post_read(lh, off, buf, piece, password, 0);
		if (ret == -EAGAIN) {
			ret = lite_fence(fence_ms);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret < 0)
			return ret;
		off += piece;
		buf = (char *)buf + piece;
		size -= piece;
	}
	return 0;
}

#endif /* APP_LITE_H */
