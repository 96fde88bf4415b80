/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The cluster key file's text, for the user-space readers (liblite,
 * lite-manager): 64 hex digits, then at most a newline. The file's place
 * and permissions are the readers' business; see docs/protocol.md.
 */
#ifndef LITE_KEY_H
#define LITE_KEY_H

#include <stddef.h>

#define LITE_KEY_HEX_LEN	64	/* two digits per byte of LITE_KEY_LEN */

static inline int lite_key_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 0 and the key's 32 bytes in @key, or -1 if @text is not a key. */
static inline int lite_key_from_hex(const char *text, size_t len,
				    unsigned char key[LITE_KEY_HEX_LEN / 2])
{
	if (len == LITE_KEY_HEX_LEN + 1 && text[LITE_KEY_HEX_LEN] == '\n')
		len--;
	if (len != LITE_KEY_HEX_LEN)
		return -1;
	for (size_t i = 0; i < LITE_KEY_HEX_LEN / 2; i++) {
		int hi = lite_key_hex_digit(text[2 * i]);
		int lo = lite_key_hex_digit(text[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		key[i] = hi << 4 | lo;
	}
	return 0;
}

#endif /* LITE_KEY_H */
