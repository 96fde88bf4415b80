// SPDX-License-Identifier: GPL-2.0
/*
 * Authentication of the manager connection. The manager and every node
 * share the cluster key; each message from JOIN on (but REJECT) ends in a
 * MAC over both connection nonces, the direction, the message's count and
 * the message. A node thus accepts only what the manager sent on this very
 * connection, in order, and the manager only what this node sent.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/random.h>
#include <linux/string.h>

#include "lite_priv.h"

/**
 * lite_auth_init() - set up @a for a new manager connection
 * @a: the state, zeroed or freed before
 * @key: the cluster key
 *
 * Context: process context.
 * Return: 0, or a negative errno when hmac(sha256) is unavailable.
 */
int lite_auth_init(struct lite_auth *a, const u8 key[LITE_KEY_LEN])
{
	struct crypto_shash *tfm;
	int ret;

	memset(a, 0, sizeof(*a));
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_shash_setkey(tfm, key, LITE_KEY_LEN);
	if (ret) {
		crypto_free_shash(tfm);
		return ret;
	}
	a->tfm = tfm;
	get_random_bytes(a->node_nonce, sizeof(a->node_nonce));
	return 0;
}

/**
 * lite_auth_free() - forget @a's key and nonces
 * @a: the state; safe to call twice
 */
void lite_auth_free(struct lite_auth *a)
{
	crypto_free_shash(a->tfm);	/* zeroes the key; takes NULL */
	memzero_explicit(a, sizeof(*a));
}

/* The MAC of (@hdr, @body without its last LITE_MAC_LEN bytes). */
static int lite_auth_mac(struct lite_auth *a, u8 dir, u64 seq,
			 const struct lite_msg_hdr *hdr, const void *body,
			 u32 len, u8 mac[LITE_MAC_LEN])
{
	struct lite_mac_input in = {
		.dir = dir,
		.seq = cpu_to_le64(seq),
	};
	SHASH_DESC_ON_STACK(desc, a->tfm);
	int ret;

	memcpy(in.manager_nonce, a->manager_nonce, LITE_NONCE_LEN);
	memcpy(in.node_nonce, a->node_nonce, LITE_NONCE_LEN);
	desc->tfm = a->tfm;
	ret = crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, (const u8 *)&in, sizeof(in)) ?:
	      crypto_shash_update(desc, (const u8 *)hdr, sizeof(*hdr)) ?:
	      crypto_shash_finup(desc, body, len - LITE_MAC_LEN, mac);
	shash_desc_zero(desc);
	return ret;
}

/**
 * lite_auth_seal() - write the MAC of a message to the manager
 * @a: the connection's state
 * @hdr: the message's header
 * @body: its payload, whose last LITE_MAC_LEN bytes get the MAC
 * @len: the payload's length, at least LITE_MAC_LEN
 */
void lite_auth_seal(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		    void *body, u32 len)
{
	/* hmac(sha256) over memory cannot fail once keyed. */
	WARN_ON_ONCE(lite_auth_mac(a, LITE_MAC_TO_MANAGER, a->tx_seq++, hdr,
				   body, len, (u8 *)body + len - LITE_MAC_LEN));
}

/**
 * lite_auth_verify() - check the MAC of a message from the manager
 * @a: the connection's state
 * @hdr: the message's header
 * @body: its payload, MAC last
 * @len: the payload's length, at least LITE_MAC_LEN
 *
 * Return: 0, or -EACCES (another key, a replay, a reordering).
 */
int lite_auth_verify(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		     const void *body, u32 len)
{
	u8 mac[LITE_MAC_LEN];

	if (lite_auth_mac(a, LITE_MAC_TO_NODE, a->rx_seq, hdr, body, len, mac) ||
	    crypto_memneq(mac, (const u8 *)body + len - LITE_MAC_LEN,
			  LITE_MAC_LEN))
		return -EACCES;
	a->rx_seq++;
	return 0;
}
