/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the manager's tests and its fuzz harness build on: the JOIN a
 * correct node sends, and nonces that repeat from run to run (a failure,
 * or a fuzz crash, must reproduce from its input).
 */
#ifndef LITE_MANAGER_FIXTURE_H
#define LITE_MANAGER_FIXTURE_H

#include <stddef.h>

#include "proto.h"

/*
 * JOIN from node NAME with K QPs per peer: Ethernet, RoCE v2, a link-local
 * GID (fe80::, the rest zero), mtu 3, rd_atom 16, ib_port 1; no nonce, no
 * MAC, no requested id.
 */
void fixture_join(struct lite_msg *m, const char *name, unsigned int k);

/*
 * lite_cluster_ops.random for a cluster whose ctx is an unsigned int
 * counter: LEN bytes, the counter's first, zeros after; counts up.
 */
int fixture_random(void *ctx, void *buf, size_t len);

#endif /* LITE_MANAGER_FIXTURE_H */
