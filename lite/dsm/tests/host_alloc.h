/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space checks of lite_dsm's pure code (test_layout.c,
 * wb_count.c): an allocation that cannot fail quietly.
 */
#ifndef LITE_DSM_HOST_ALLOC_H
#define LITE_DSM_HOST_ALLOC_H

#include <stdio.h>
#include <stdlib.h>

/* calloc, or exit 2 (the test's "could not run"). */
static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

#endif /* LITE_DSM_HOST_ALLOC_H */
