/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The cluster key file, for its user-space readers (liblite, lite-manager):
 * a regular file owned by root or the reader, mode 0600 or tighter, holding
 * 64 hex digits and at most a newline. docs/protocol.md says where it is.
 */
#ifndef LITE_KEY_H
#define LITE_KEY_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * Read the key at @path into @key. 0, or: -errno of open() or read();
 * -EPERM if others may read or write it or it belongs to someone else;
 * -EINVAL if it is no regular file or not a key. @st gets the file's
 * status once it could be opened (zeroed before), for the caller's message.
 */
static inline int lite_key_read_file(const char *path,
				     unsigned char key[LITE_KEY_HEX_LEN / 2],
				     struct stat *st)
{
	char text[LITE_KEY_HEX_LEN + 2];
	ssize_t n;
	int fd, ret = 0;

	memset(st, 0, sizeof(*st));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode))
		ret = -EINVAL;
	else if (st->st_mode & 077 ||
		 (st->st_uid != 0 && st->st_uid != geteuid()))
		ret = -EPERM;	/* a secret others can read or change is none */
	if (!ret) {
		n = read(fd, text, sizeof(text));
		if (n < 0)
			ret = -errno;
		else if (lite_key_from_hex(text, n, key))
			ret = -EINVAL;
	}
	close(fd);
	explicit_bzero(text, sizeof(text));
	return ret;
}

#endif /* LITE_KEY_H */
