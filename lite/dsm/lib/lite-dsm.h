/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * liblite-dsm: distributed shared memory over LITE (lite_dsm.ko,
 * /dev/lite_dsm). A region is named, the same memory on every node that
 * attaches the name, zero-filled when created, and owned by the uid that
 * created it. Plain loads and stores; release consistency: writes made
 * before lite_dsm_release() (or a barrier) are seen by a later
 * lite_dsm_acquire() of the same lock (or after the barrier) on any node.
 * A data-race-free program sees sequential consistency. docs/dsm.md.
 *
 * Every int call returns 0 or a negative errno, and sets errno to it.
 */
#ifndef LITE_DSM_LIB_H
#define LITE_DSM_LIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lite_dsm;

/* Attach region @name of @size bytes (created if new): NULL + errno. */
struct lite_dsm *lite_dsm_attach(const char *name, size_t size);
/* Where it is mapped in this process. */
void *lite_dsm_base(struct lite_dsm *d);
/* Its size, as attached. */
size_t lite_dsm_size(struct lite_dsm *d);
/* Take lock @lock (0..1023) of the region; see others' released writes. */
int lite_dsm_acquire(struct lite_dsm *d, unsigned int lock);
/* Make this node's writes visible to the next acquirer, free @lock. */
int lite_dsm_release(struct lite_dsm *d, unsigned int lock);
/* Release, wait until @nr callers cluster-wide arrived, acquire. */
int lite_dsm_barrier(struct lite_dsm *d, unsigned int nr);
/* Unmap, write back, free its locks and @d. */
int lite_dsm_detach(struct lite_dsm *d);

#ifdef __cplusplus
}
#endif

#endif /* LITE_DSM_LIB_H */
