// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Byte layout of what client and server tell each other, big-endian so
 * hosts of either byte order can pair up. Every message starts with
 * VB_MAGIC, which also versions it: a server and a client built from
 * different layouts refuse each other instead of misreading.
 *
 *   hello (connect private data, 48 of the 56 bytes RC allows):
 *     magic 4, session 4, mode 1, op 1, qp_index 2, nqps 2, depth 2,
 *     inline 2, zero 2, max_size 4, mr_count 4, mr_total 8,
 *     reply_addr 8, reply_rkey 4
 *   welcome (SEND):  magic 4, count 4, count * (addr 8, len 8, rkey 4)
 *   reject (reject private data): magic 4, NUL-terminated text
 */
#include <endian.h>
#include <string.h>

#include "verbs.h"

#define VB_MAGIC	0x4d424e31	/* "MBN1" */

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static const uint8_t *get16(const uint8_t *p, uint16_t *v)
{
	memcpy(v, p, sizeof(*v));
	*v = be16toh(*v);
	return p + sizeof(*v);
}

static const uint8_t *get32(const uint8_t *p, uint32_t *v)
{
	memcpy(v, p, sizeof(*v));
	*v = be32toh(*v);
	return p + sizeof(*v);
}

static const uint8_t *get64(const uint8_t *p, uint64_t *v)
{
	memcpy(v, p, sizeof(*v));
	*v = be64toh(*v);
	return p + sizeof(*v);
}

void vb_hello_encode(const struct vb_hello *h, uint8_t *buf)
{
	uint8_t *p = put32(buf, VB_MAGIC);

	p = put32(p, h->session);
	*p++ = h->mode;
	*p++ = h->op;
	p = put16(p, h->qp_index);
	p = put16(p, h->nqps);
	p = put16(p, h->depth);
	p = put16(p, h->inline_max);
	p = put16(p, 0);
	p = put32(p, h->max_size);
	p = put32(p, h->mr_count);
	p = put64(p, h->mr_total);
	p = put64(p, h->reply_addr);
	put32(p, h->reply_rkey);
}

/* 0, or -1 if buf is not a hello of this layout. */
int vb_hello_decode(const void *buf, size_t len, struct vb_hello *h)
{
	const uint8_t *p = buf;
	uint32_t magic;
	uint16_t zero;

	if (!buf || len < VB_HELLO_LEN)
		return -1;
	p = get32(p, &magic);
	if (magic != VB_MAGIC)
		return -1;
	p = get32(p, &h->session);
	h->mode = *p++;
	h->op = *p++;
	p = get16(p, &h->qp_index);
	p = get16(p, &h->nqps);
	p = get16(p, &h->depth);
	p = get16(p, &h->inline_max);
	p = get16(p, &zero);
	p = get32(p, &h->max_size);
	p = get32(p, &h->mr_count);
	p = get64(p, &h->mr_total);
	p = get64(p, &h->reply_addr);
	get32(p, &h->reply_rkey);
	return 0;
}

size_t vb_table_len(unsigned int n)
{
	return VB_TABLE_HDR + (size_t)n * VB_TABLE_ENTRY;
}

void vb_table_encode(const struct vb_region *r, unsigned int n, uint8_t *buf)
{
	uint8_t *p = put32(buf, VB_MAGIC);
	unsigned int i;

	p = put32(p, n);
	for (i = 0; i < n; i++) {
		p = put64(p, r[i].addr);
		p = put64(p, r[i].len);
		p = put32(p, r[i].rkey);
	}
}

/* 0, or -1 if buf is no table or holds more than max entries. */
int vb_table_decode(const void *buf, size_t len, struct vb_region *r,
		    unsigned int max, unsigned int *n)
{
	const uint8_t *p = buf;
	uint32_t magic, count, i;

	if (len < VB_TABLE_HDR)
		return -1;
	p = get32(p, &magic);
	p = get32(p, &count);
	if (magic != VB_MAGIC || count > max || len < vb_table_len(count))
		return -1;
	for (i = 0; i < count; i++) {
		p = get64(p, &r[i].addr);
		p = get64(p, &r[i].len);
		p = get32(p, &r[i].rkey);
	}
	*n = count;
	return 0;
}

/* buf holds 4 + VB_REJECT_MAX bytes; returns the length to send. */
size_t vb_reject_encode(const char *why, uint8_t *buf)
{
	size_t len = strnlen(why, VB_REJECT_MAX - 1);

	put32(buf, VB_MAGIC);
	memcpy(buf + 4, why, len);
	buf[4 + len] = '\0';
	return 4 + len + 1;
}

/* Whether buf is our reject; if so its text goes to why. */
bool vb_reject_decode(const void *buf, size_t len, char *why, size_t size)
{
	uint32_t magic;
	size_t n;

	if (!buf || len < 5 || !size)
		return false;
	get32(buf, &magic);
	if (magic != VB_MAGIC)
		return false;
	n = strnlen((const char *)buf + 4, len - 4);
	if (n >= size)
		n = size - 1;
	memcpy(why, (const char *)buf + 4, n);
	why[n] = '\0';
	return true;
}
