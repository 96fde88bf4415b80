// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LITE-MapReduce's shuffle (lite_mr.h): the size matrix every node learns,
 * the inbox layout it gives, and the two ways the pieces move (posted
 * one-sided writes into the receivers' inboxes, or RPC).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "lite_mr_priv.h"

/* Where piece (@src, group @g) goes in @dst's inbox, and @dst's total. */
uint64_t mr_inbox_off(const struct lite_mr *mr, unsigned int dst,
			  unsigned int src, unsigned int g)
{
	uint64_t off = 0;
	unsigned int s, k;

	for (k = 0; k < G; k++)
		for (s = 0; s < mr->c.nodes; s++) {
			if (k == g && s == src)
				return off;
			off += *cell(mr, s, dst, k);
		}
	return off;
}

/*
 * Tell every node what this one sends where; learn the whole matrix and
 * stop (on every node alike) if an inbox is too small.
 */
void mr_exchange_sizes(struct lite_mr *mr, struct map_thread *m)
{
	unsigned int nodes = mr->c.nodes, me = mr->c.me, d, g, t, p;
	uint64_t *row = cell(mr, me, 0, 0), need;
	int ret;

	memset(row, 0, (size_t)nodes * G * sizeof(uint64_t));
	for (d = 0; d < nodes; d++)
		for (g = 0; g < G; g++)
			for (t = 0; t < mr->c.threads; t++)
				*cell(mr, me, d, g) += m[t].part[d * G + g].len;
	for (p = 0; p < nodes; p++) {
		ret = lite_write(mr->ctrl[p], ctrl_off_matrix(mr, me), row,
				 (size_t)nodes * G * sizeof(uint64_t), PASSWORD,
				 LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_write (sizes)", ret);
	}
	mr_barrier(mr, "sizes");
	ret = lite_read(mr->ctrl[me], CTRL_TAG, mr->matrix,
			ctrl_off_outlen(mr, 0) - CTRL_TAG, PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret < 0)
		die("lite_read (sizes)", ret);
	for (d = 0; d < nodes; d++) {
		/* Summed without wrapping: the cells came from other nodes. */
		for (need = 0, p = 0; p < nodes; p++)
			for (g = 0; g < G; g++)
				need += *cell(mr, p, d, g) < mr->c.inbox_bytes ?
					*cell(mr, p, d, g) : mr->c.inbox_bytes + 1;
		if (need > mr->c.inbox_bytes) {
			fprintf(stderr, "%s: node %u's partitions need %llu bytes of shuffle room, --inbox gives %llu: raise --inbox or use more nodes\n",
				prog, d + 1, (unsigned long long)need,
				(unsigned long long)mr->c.inbox_bytes);
			exit(1);
		}
	}
}

/* write shuffle: post every piece into its receiver's inbox. */
void mr_shuffle_write(struct lite_mr *mr, struct map_thread *m)
{
	unsigned int d, g, t;
	struct mr_text *pt;
	uint64_t off;
	int ret;

	for (d = 0; d < mr->c.nodes; d++)
		for (g = 0; g < G; g++) {
			off = mr_inbox_off(mr, d, mr->c.me, g);
			for (t = 0; t < mr->c.threads; t++) {
				pt = &m[t].part[d * G + g];
				ret = mr_post_range(mr->inbox[d], off, pt->buf,
						 pt->len, 1);
				if (ret < 0)
					die("lite_post_write (shuffle)", ret);
				off += pt->len;
			}
		}
	ret = lite_fence(FENCE_MS);
	if (ret < 0)
		die("lite_fence (shuffle)", ret);
}

struct rpc_sender {
	struct lite_mr	*mr;
	struct map_thread *m;
	unsigned int	dst;
	pthread_t	tid;
	int		err;
};

/* rpc shuffle: this node's pieces for one receiver, one message at a time. */
static void *rpc_send_main(void *arg)
{
	struct rpc_sender *s = arg;
	struct lite_mr *mr = s->mr;
	char *msg = xmalloc(LITE_RPC_MAX_MSG), ack;
	uint32_t hdr[2] = { mr->c.me, 0 };
	uint64_t off, piece, done;
	unsigned int g, t;
	struct mr_text *pt;
	int ret;

	memcpy(msg, hdr, sizeof(hdr));
	for (g = 0; g < G && !s->err; g++) {
		off = mr_inbox_off(mr, s->dst, mr->c.me, g);
		for (t = 0; t < mr->c.threads && !s->err; t++) {
			pt = &s->m[t].part[s->dst * G + g];
			for (done = 0; done < pt->len; done += piece) {
				piece = pt->len - done;
				if (piece > LITE_RPC_MAX_MSG - RPC_HDR)
					piece = LITE_RPC_MAX_MSG - RPC_HDR;
				memcpy(msg + 8, &off, sizeof(off));
				memcpy(msg + RPC_HDR, pt->buf + done, piece);
				ret = lite_rpc_call(s->dst + 1, LITE_MR_RPC_PORT,
						    msg, RPC_HDR + piece, &ack,
						    sizeof(ack), LITE_PRIO_NORMAL);
				if (ret < 0) {
					s->err = ret;
					break;
				}
				off += piece;
			}
		}
	}
	free(msg);
	return NULL;
}

/* Where the next shuffle message of a source must go: group g, byte done. */
struct rpc_cursor {
	unsigned int	g;
	uint64_t	done;
};

/* Skip @src's empty and finished pieces; 1 when it sent all it had. */
static int cursor_settle(const struct lite_mr *mr, unsigned int src,
			 struct rpc_cursor *c)
{
	while (c->g < G && c->done == *cell(mr, src, mr->c.me, c->g)) {
		c->g++;
		c->done = 0;
	}
	return c->g == G;
}

/*
 * rpc shuffle: send this node's pieces from one thread per receiver while
 * this thread receives the others' into @in. A source's messages arrive in
 * the order it sent them, group by group, so each must continue that
 * source's current piece exactly; done when every source sent its row of
 * the matrix.
 */
void mr_shuffle_rpc(struct lite_mr *mr, struct map_thread *m, char *in)
{
	unsigned int nodes = mr->c.nodes, me = mr->c.me, d, g, t, src, left = 0;
	struct rpc_sender *s = calloc(nodes, sizeof(*s));
	struct rpc_cursor *cur = calloc(nodes, sizeof(*cur));
	char *msg = xmalloc(LITE_RPC_MAX_MSG);
	const char ack = 0;
	uint64_t desc, off, len;
	struct mr_text *pt;
	uint32_t hdr[2];
	int ret;

	if (!s || !cur)
		die("out of memory", ENOMEM);
	for (d = 0; d < nodes; d++) {
		if (d == me)
			continue;
		s[d] = (struct rpc_sender){ .mr = mr, .m = m, .dst = d };
		ret = pthread_create(&s[d].tid, NULL, rpc_send_main, &s[d]);
		if (ret)
			die("pthread_create", ret);
		left += !cursor_settle(mr, d, &cur[d]);
	}
	for (g = 0; g < G; g++) {
		off = mr_inbox_off(mr, me, me, g);
		for (t = 0; t < mr->c.threads; t++) {
			pt = &m[t].part[me * G + g];
			memcpy(in + off, pt->buf, pt->len);
			off += pt->len;
		}
	}
	while (left) {
		ret = lite_rpc_recv(LITE_MR_RPC_PORT, msg, LITE_RPC_MAX_MSG,
				    &desc, &src, 0, LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_rpc_recv (shuffle)", ret);
		len = (unsigned int)ret - RPC_HDR;
		memcpy(hdr, msg, sizeof(hdr));
		memcpy(&off, msg + 8, sizeof(off));
		src--;
		if ((unsigned int)ret < RPC_HDR || src >= nodes || src == me ||
		    hdr[0] != src || cur[src].g == G ||
		    off != mr_inbox_off(mr, me, src, cur[src].g) + cur[src].done ||
		    len > *cell(mr, src, me, cur[src].g) - cur[src].done) {
			fprintf(stderr, "%s: a shuffle message from node %u does not continue what it sent (%d bytes at %llu)\n",
				prog, src + 1, ret, (unsigned long long)off);
			exit(1);
		}
		memcpy(in + off, msg + RPC_HDR, len);
		cur[src].done += len;
		left -= cursor_settle(mr, src, &cur[src]);
		ret = lite_rpc_reply(desc, &ack, sizeof(ack), LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_rpc_reply (shuffle)", ret);
	}
	for (d = 0; d < nodes; d++) {
		if (d == me)
			continue;
		pthread_join(s[d].tid, NULL);
		if (s[d].err)
			die("lite_rpc_call (shuffle)", s[d].err);
	}
	free(msg);
	free(cur);
	free(s);
}

