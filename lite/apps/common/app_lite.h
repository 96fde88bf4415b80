/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the applications' LITE programs share on top of liblite (lite.h).
 * Header only, like app_util.h.
 */
#ifndef APP_LITE_H
#define APP_LITE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lite.h>

#include "app_util.h"

/*
 * This node's place in a run on nodes 1..*@nodes (0: every node of the
 * cluster, which *@nodes is then set to): its id - 1. Exits with a
 * message when LITE is not loaded or joined, or this node is not among
 * them.
 */
static inline unsigned int app_node_index(unsigned int *nodes)
{
	int id = lite_node_id(), ret;

	if (id < 0)
		die("lite_node_id (is lite.ko loaded and this node joined?)", id);
	if (!*nodes) {
		ret = lite_nr_nodes();
		if (ret < 0)
			die("lite_nr_nodes", ret);
		*nodes = ret;
	}
	if ((unsigned int)id > *nodes) {
		fprintf(stderr, "%s: this is node %d, the run is on nodes 1..%u\n",
			prog, id, *nodes);
		exit(1);
	}
	return id - 1;
}

/* The size of the LMR @lh names; exits when LITE cannot say. */
static inline uint64_t app_lmr_size(int lh)
{
	uint64_t size;
	int ret = lite_lmr_info(lh, NULL, &size, NULL);

	if (ret < 0)
		die("lite_lmr_info", ret);
	return size;
}

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
