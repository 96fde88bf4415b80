// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The cluster key and the protocol's MACs: see auth.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <lite_key.h>

#include "auth.h"

int lite_key_load(const char *path, uint8_t key[LITE_KEY_LEN], char *err,
		  size_t errlen)
{
	struct stat st;
	int ret = lite_key_read_file(path, key, &st);

	if (ret == -EPERM && st.st_mode & 077)
		snprintf(err, errlen,
			 "%s: mode %03o, but a key must be readable by its owner only (chmod 600)",
			 path, (unsigned int)(st.st_mode & 0777));
	else if (ret == -EPERM)
		snprintf(err, errlen,
			 "%s: owned by uid %u; a key must be root's or ours",
			 path, (unsigned int)st.st_uid);
	else if (ret == -EINVAL && !S_ISREG(st.st_mode))
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (ret == -EINVAL)
		snprintf(err, errlen, "%s: not 64 hex digits", path);
	else if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

/* 0, or -ENOMEM when libcrypto failed (MAC unusable). */
static int msg_mac(const uint8_t key[LITE_KEY_LEN], enum lite_mac_dir dir,
		   const struct lite_mac_state *st, const struct lite_msg *m,
		   uint8_t mac[LITE_MAC_LEN])
{
	size_t len = lite_msg_size(m) - LITE_MAC_LEN;
	uint8_t buf[sizeof(struct lite_mac_input) + LITE_MSG_MAX_SIZE];
	struct lite_mac_input in = {
		.dir = dir,
		.seq = htole64(st->seq),
	};
	unsigned int mac_len = LITE_MAC_LEN;

	memcpy(in.manager_nonce, st->manager_nonce, LITE_NONCE_LEN);
	memcpy(in.node_nonce, st->node_nonce, LITE_NONCE_LEN);
	memcpy(buf, &in, sizeof(in));
	memcpy(buf + sizeof(in), m, len);
	if (!HMAC(EVP_sha256(), key, LITE_KEY_LEN, buf, sizeof(in) + len, mac,
		  &mac_len) || mac_len != LITE_MAC_LEN)
		return -ENOMEM;
	return 0;
}

void lite_msg_seal(const uint8_t key[LITE_KEY_LEN], enum lite_mac_dir dir,
		   struct lite_mac_state *st, struct lite_msg *m)
{
	uint8_t *mac = (uint8_t *)m + lite_msg_size(m) - LITE_MAC_LEN;

	/* Without libcrypto, a MAC no one accepts: the peer hangs up. */
	if (msg_mac(key, dir, st, m, mac))
		memset(mac, 0, LITE_MAC_LEN);
	st->seq++;
}

int lite_msg_verify(const uint8_t key[LITE_KEY_LEN], enum lite_mac_dir dir,
		    struct lite_mac_state *st, const struct lite_msg *m)
{
	uint8_t mac[LITE_MAC_LEN];

	if (msg_mac(key, dir, st, m, mac) ||
	    CRYPTO_memcmp(mac, (const uint8_t *)m + lite_msg_size(m) -
			  LITE_MAC_LEN, LITE_MAC_LEN))
		return -EACCES;
	st->seq++;
	return 0;
}

int lite_random(void *buf, size_t len)
{
	ssize_t n = getrandom(buf, len, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}
