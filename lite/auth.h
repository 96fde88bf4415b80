/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MACs of the manager connection (include/lite_proto.h says what one
 * covers): HMAC-SHA256 under the cluster key, from the kernel crypto API.
 */
#ifndef LITE_AUTH_H
#define LITE_AUTH_H

#include <linux/types.h>

#include "include/lite_proto.h"

struct crypto_shash;

/* One manager connection's keys, nonces and message counts. */
struct lite_auth {
	struct crypto_shash	*tfm;		/* keyed */
	u8			manager_nonce[LITE_NONCE_LEN];
	u8			node_nonce[LITE_NONCE_LEN];
	u64			tx_seq;
	u64			rx_seq;
};

int lite_auth_init(struct lite_auth *a, const u8 key[LITE_KEY_LEN]);
void lite_auth_free(struct lite_auth *a);
void lite_auth_seal(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		    void *body, u32 len);
int lite_auth_verify(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		     const void *body, u32 len);

#endif /* LITE_AUTH_H */
