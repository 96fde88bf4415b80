/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The cluster key and the MACs of the manager protocol (lite_proto.h says
 * what a MAC covers). HMAC-SHA256 from libcrypto; comparisons take
 * constant time.
 */
#ifndef LITE_MANAGER_AUTH_H
#define LITE_MANAGER_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* One direction of one connection. */
struct lite_mac_state {
	uint8_t manager_nonce[LITE_NONCE_LEN];
	uint8_t node_nonce[LITE_NONCE_LEN];
	uint64_t seq;		/* of the next message */
};

/*
 * Read the key from PATH, a regular file owned by root or by us that
 * nobody else may read or write (mode & 077 == 0). 0, or a negative errno
 * with a message in ERR.
 */
int lite_key_load(const char *path, uint8_t key[LITE_KEY_LEN], char *err,
		  size_t errlen);

/* Fill M's MAC (its last LITE_MAC_LEN payload bytes) and count it. */
void lite_msg_seal(const uint8_t key[LITE_KEY_LEN], enum lite_mac_dir dir,
		   struct lite_mac_state *st, struct lite_msg *m);

/* 0 if M's MAC is right (then counted), else -EACCES. */
int lite_msg_verify(const uint8_t key[LITE_KEY_LEN], enum lite_mac_dir dir,
		    struct lite_mac_state *st, const struct lite_msg *m);

/* LEN bytes from the kernel's random source; 0 or -errno. */
int lite_random(void *buf, size_t len);

#endif /* LITE_MANAGER_AUTH_H */
