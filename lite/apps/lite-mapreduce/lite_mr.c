// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LITE-MapReduce runtime of lite_mr.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "lite_mr.h"

#define PASSWORD	0x4d5252	/* "MRR" */
#define WINDOW		(1U << 20)	/* bytes per posted op, the most LITE takes */
#define FENCE_MS	120000
#define REC_HDR		8U		/* u32 key length, u32 value length */
#define RPC_HDR		16U		/* u32 source, u32 0, u64 inbox offset */
#define COMBINE_MAX	16U		/* value bytes a combining table holds */

#define G		LITE_MR_GROUPS

struct lite_mr {
	const struct mr_job *job;
	struct lite_mr_conf c;
	int		*ctrl;		/* [nodes]: control LMR handles */
	int		*inbox;		/* [nodes]: inbox LMR handles */
	uint64_t	*matrix;	/* [src][dst][G] bytes */
	uint64_t	ctrl_bytes;
};

/* A key and its folded value, in a map thread's combining table. */
struct centry {
	const char	*key;
	uint32_t	klen;
	uint64_t	hash;
	unsigned char	val[COMBINE_MAX];
};

struct map_thread {
	struct lite_mr	*mr;
	pthread_t	tid;
	char		**splits;
	const size_t	*lens;
	unsigned int	n, first;
	atomic_uint	*next;		/* the next split to take */
	struct mr_text	*part;		/* [nodes * G] records */
	struct centry	*tab;		/* combine only */
	size_t		mask, used;
};

/*
 * A control LMR: the publishing node's run tag (CTRL_TAG bytes), the size
 * matrix, then the output lengths (node 1's only are used).
 */
#define CTRL_TAG	sizeof(uint64_t)

static size_t ctrl_off_matrix(const struct lite_mr *mr, unsigned int src)
{
	return CTRL_TAG + (size_t)src * mr->c.nodes * G * sizeof(uint64_t);
}

static size_t ctrl_off_outlen(const struct lite_mr *mr, unsigned int src)
{
	return CTRL_TAG +
	       ((size_t)mr->c.nodes * mr->c.nodes * G + src) * sizeof(uint64_t);
}

static uint64_t *cell(const struct lite_mr *mr, unsigned int src,
		      unsigned int dst, unsigned int g)
{
	return &mr->matrix[((size_t)src * mr->c.nodes + dst) * G + g];
}

static void barrier(const struct lite_mr *mr, const char *what)
{
	int ret = lite_barrier(mr->c.nodes);

	if (ret < 0) {
		fprintf(stderr, "%s: lite_barrier (%s): %s\n", prog, what,
			strerror(-ret));
		exit(1);
	}
}

/* Post writes (or reads, !@write) of @size bytes in WINDOW pieces. */
static int post_range(int lh, uint64_t off, void *buf, uint64_t size,
		      int write)
{
	uint64_t piece;
	int ret;

	while (size) {
		piece = size < WINDOW ? size : WINDOW;
		ret = write ? lite_post_write(lh, off, buf, piece, PASSWORD, 0)
			    : lite_post_read(lh, off, buf, piece, PASSWORD, 0);
		if (ret == -EAGAIN) {
			/* Too much in flight: let it land, then go on. */
			ret = lite_fence(FENCE_MS);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret < 0)
			return ret;
		off += piece;
		buf = (char *)buf + piece;
		size -= piece;
	}
	return 0;
}

static void rec_add(struct mr_text *t, const char *key, uint32_t klen,
		    const void *val, uint32_t vlen)
{
	uint32_t hdr[2] = { klen, vlen };

	mr_text_add(t, hdr, sizeof(hdr));
	mr_text_add(t, key, klen);
	mr_text_add(t, val, vlen);
}

/* The record at @p: its key, value and the next record. */
static const char *rec_get(const char *p, const char **key, uint32_t *klen,
			   const char **val, uint32_t *vlen)
{
	uint32_t hdr[2];

	memcpy(hdr, p, sizeof(hdr));
	*klen = hdr[0];
	*vlen = hdr[1];
	*key = p + REC_HDR;
	*val = *key + *klen;
	return *val + *vlen;
}

static struct mr_text *part_of(struct map_thread *m, uint64_t h)
{
	unsigned int nodes = m->mr->c.nodes;

	return &m->part[(h % nodes) * G + (h / nodes) % G];
}

static void ctab_grow(struct map_thread *m)
{
	size_t n = m->tab ? 2 * (m->mask + 1) : 4096, i, j;
	struct centry *t = calloc(n, sizeof(*t));

	if (!t)
		die("out of memory (map table)", ENOMEM);
	for (i = 0; m->tab && i <= m->mask; i++) {
		if (!m->tab[i].key)
			continue;
		for (j = m->tab[i].hash & (n - 1); t[j].key; j = (j + 1) & (n - 1))
			;
		t[j] = m->tab[i];
	}
	free(m->tab);
	m->tab = t;
	m->mask = n - 1;
}

static void map_emit(void *ctx, const char *key, unsigned int klen,
		     const void *val, unsigned int vlen)
{
	struct map_thread *m = ctx;
	const struct mr_job *job = m->mr->job;
	uint64_t h = mr_hash(key, klen);
	struct centry *e;
	size_t j;

	if (!klen || klen > MR_KEY_MAX || vlen != job->value_size)
		die("the job emitted a bad pair", EINVAL);
	if (!job->combine) {
		rec_add(part_of(m, h), key, klen, val, vlen);
		return;
	}
	for (j = h & m->mask; m->tab[j].key; j = (j + 1) & m->mask) {
		e = &m->tab[j];
		if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen)) {
			job->combine(e->val, val);
			return;
		}
	}
	e = &m->tab[j];
	e->key = key;
	e->klen = klen;
	e->hash = h;
	memcpy(e->val, val, vlen);
	if (2 * ++m->used > m->mask)
		ctab_grow(m);
}

static void *map_main(void *arg)
{
	struct map_thread *m = arg;
	const struct mr_job *job = m->mr->job;
	unsigned int i;
	size_t j;

	if (job->combine)
		ctab_grow(m);
	while ((i = atomic_fetch_add(m->next, 1)) < m->n)
		job->map(m->splits[i], m->lens[i], m->first + i, map_emit, m);
	if (!job->combine)
		return NULL;
	for (j = 0; j <= m->mask; j++)
		if (m->tab[j].key)
			rec_add(part_of(m, m->tab[j].hash), m->tab[j].key,
				m->tab[j].klen, m->tab[j].val, job->value_size);
	free(m->tab);
	m->tab = NULL;
	return NULL;
}

struct lite_mr *lite_mr_init(const struct mr_job *job,
			     const struct lite_mr_conf *conf)
{
	struct lite_mr *mr = calloc(1, sizeof(*mr));
	unsigned int p, perm = LITE_PERM_READ | LITE_PERM_WRITE;
	uint64_t size, tag;
	int ret, bad = 0;

	if (!mr)
		die("out of memory", ENOMEM);
	if (job->combine && job->value_size > COMBINE_MAX)
		die("a combining job's values are at most 16 bytes", EINVAL);
	mr->job = job;
	mr->c = *conf;
	mr->ctrl = xmalloc(conf->nodes * sizeof(int));
	mr->inbox = xmalloc(conf->nodes * sizeof(int));
	mr->ctrl_bytes = ctrl_off_outlen(mr, conf->nodes);
	mr->matrix = xmalloc(mr->ctrl_bytes);

	ret = lite_alloc(conf->me + 1, mr->ctrl_bytes, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc (control LMR)", ret);
	mr->ctrl[conf->me] = ret;
	ret = lite_alloc(conf->me + 1, conf->inbox_bytes, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc (inbox LMR; a smaller --inbox?)", ret);
	mr->inbox[conf->me] = ret;
	ret = lite_write(mr->ctrl[conf->me], 0, &conf->tag, CTRL_TAG, PASSWORD,
			 LITE_PRIO_NORMAL);
	if (ret < 0)
		die("lite_write (run tag)", ret);
	ret = lite_publish(mr->ctrl[conf->me], conf->id + 2 * conf->me, perm,
			   PASSWORD);
	if (ret >= 0)
		ret = lite_publish(mr->inbox[conf->me],
				   conf->id + 2 * conf->me + 1, perm, PASSWORD);
	if (ret < 0)
		die("lite_publish", ret);
	if (conf->rpc) {
		ret = lite_rpc_register(LITE_MR_RPC_PORT, LITE_RPC_MAX_MSG,
					"lite-mapreduce");
		if (ret < 0)
			die("lite_rpc_register", ret);
	}
	barrier(mr, "published");

	for (p = 0; p < conf->nodes; p++) {
		if (p == conf->me)
			continue;
		ret = lite_ask(p + 1, conf->id + 2 * p, perm, PASSWORD);
		if (ret >= 0) {
			mr->ctrl[p] = ret;
			ret = lite_ask(p + 1, conf->id + 2 * p + 1, perm,
				       PASSWORD);
		}
		if (ret < 0) {
			fprintf(stderr, "%s: lite_ask node %u: %s\n", prog,
				p + 1, strerror(-ret));
			exit(1);
		}
		mr->inbox[p] = ret;
		ret = lite_lmr_info(mr->ctrl[p], NULL, &size, NULL);
		if (ret < 0)
			die("lite_lmr_info", ret);
		if (size != mr->ctrl_bytes) {
			fprintf(stderr, "%s: node %u's control LMR has %llu bytes, not %llu: another node count?\n",
				prog, p + 1, (unsigned long long)size,
				(unsigned long long)mr->ctrl_bytes);
			bad = 1;
			continue;
		}
		ret = lite_read(mr->ctrl[p], 0, &tag, CTRL_TAG, PASSWORD,
				LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_read (run tag)", ret);
		if (tag != conf->tag) {
			fprintf(stderr, "%s: node %u runs another job, input, shuffle or --inbox than this node (run tag %016llx, ours %016llx)\n",
				prog, p + 1, (unsigned long long)tag,
				(unsigned long long)conf->tag);
			bad = 1;
		}
	}
	/* Every node sees every tag: all of them stop here, or none. */
	if (bad)
		exit(1);
	return mr;
}

/* Where piece (@src, group @g) goes in @dst's inbox, and @dst's total. */
static uint64_t inbox_off(const struct lite_mr *mr, unsigned int dst,
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
static void exchange_sizes(struct lite_mr *mr, struct map_thread *m)
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
	barrier(mr, "sizes");
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
static void shuffle_write(struct lite_mr *mr, struct map_thread *m)
{
	unsigned int d, g, t;
	struct mr_text *pt;
	uint64_t off;
	int ret;

	for (d = 0; d < mr->c.nodes; d++)
		for (g = 0; g < G; g++) {
			off = inbox_off(mr, d, mr->c.me, g);
			for (t = 0; t < mr->c.threads; t++) {
				pt = &m[t].part[d * G + g];
				ret = post_range(mr->inbox[d], off, pt->buf,
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
		off = inbox_off(mr, s->dst, mr->c.me, g);
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
static void shuffle_rpc(struct lite_mr *mr, struct map_thread *m, char *in)
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
		off = inbox_off(mr, me, me, g);
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
		    off != inbox_off(mr, me, src, cur[src].g) + cur[src].done ||
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

/* One output record of a reduce: a key and its text, in a group's arena. */
struct orec {
	const char	*key;
	uint32_t	klen;
	uint32_t	tlen;
	size_t		toff;	/* in text[g] of reduce thread t */
	unsigned int	t, g;
};

/* A key of a reduce group's table. */
struct rentry {
	const char	*key;
	uint32_t	klen;
	uint64_t	hash;
	size_t		n, first;	/* values; first: index into vals */
	unsigned char	acc[COMBINE_MAX];
};

struct reduce_thread {
	struct lite_mr	*mr;
	pthread_t	tid;
	unsigned int	t;
	const char	*in;		/* the node's inbox copy */
	struct mr_text	text[G];	/* output texts per group */
	struct orec	*out;
	size_t		nout, cap;
};

static void out_add(struct reduce_thread *r, struct orec o)
{
	if (r->nout == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->out = xrealloc(r->out, r->cap * sizeof(*r->out));
	}
	r->out[r->nout++] = o;
}

/* Reduce group @g of the inbox copy: a table by key, then reduce per key. */
static void reduce_group(struct reduce_thread *r, unsigned int g)
{
	const struct mr_job *job = r->mr->job;
	const char *p = r->in + inbox_off(r->mr, r->mr->c.me, 0, g);
	const char *end = r->in + inbox_off(r->mr, r->mr->c.me, 0, g + 1);
	const char *key, *val, *q;
	size_t mask = 1023, used = 0, j, i, nvals = 0, *fill;
	struct rentry *tab = calloc(mask + 1, sizeof(*tab)), *e, *old;
	const void **vals;
	uint32_t klen, vlen;
	uint64_t h;

	if (!tab)
		die("out of memory (reduce table)", ENOMEM);
	/* Pass 1: every key once, its value count (or folded value). */
	for (q = p; q < end;) {
		if ((size_t)(end - q) < REC_HDR)
			die("a truncated record in the inbox", EIO);
		q = rec_get(q, &key, &klen, &val, &vlen);
		if (vlen != job->value_size || !klen || klen > MR_KEY_MAX ||
		    q > end)
			die("a corrupt record in the inbox", EIO);
		h = mr_hash(key, klen);
		for (j = h & mask; tab[j].key; j = (j + 1) & mask)
			if (tab[j].hash == h && tab[j].klen == klen &&
			    !memcmp(tab[j].key, key, klen))
				break;
		e = &tab[j];
		if (!e->key) {
			*e = (struct rentry){ .key = key, .klen = klen, .hash = h };
			if (job->combine)
				memcpy(e->acc, val, vlen);
			e->n = 1;
			nvals++;
			if (2 * ++used > mask) {
				old = tab;
				mask = 2 * mask + 1;
				tab = calloc(mask + 1, sizeof(*tab));
				if (!tab)
					die("out of memory (reduce table)", ENOMEM);
				for (i = 0; i <= mask / 2; i++) {
					if (!old[i].key)
						continue;
					for (j = old[i].hash & mask; tab[j].key;
					     j = (j + 1) & mask)
						;
					tab[j] = old[i];
				}
				free(old);
			}
			continue;
		}
		if (job->combine) {
			job->combine(e->acc, val);
		} else {
			e->n++;
			nvals++;
		}
	}
	/* Pass 2 (no combine): every key's values, by pointer. */
	vals = xmalloc((job->combine ? 1 : nvals) * sizeof(*vals));
	fill = xmalloc((mask + 1) * sizeof(*fill));
	for (i = 0, j = 0; j <= mask; j++) {
		tab[j].first = i;
		fill[j] = i;
		i += tab[j].key ? tab[j].n : 0;
	}
	for (q = p; !job->combine && q < end;) {
		q = rec_get(q, &key, &klen, &val, &vlen);
		h = mr_hash(key, klen);
		for (j = h & mask; tab[j].klen != klen || tab[j].hash != h ||
		     memcmp(tab[j].key, key, klen); j = (j + 1) & mask)
			;
		vals[fill[j]++] = val;
	}
	for (j = 0; j <= mask; j++) {
		e = &tab[j];
		if (!e->key)
			continue;
		i = r->text[g].len;
		if (job->combine) {
			vals[0] = e->acc;
			job->reduce(e->key, e->klen, vals, 1, &r->text[g]);
		} else {
			job->reduce(e->key, e->klen, vals + e->first, e->n,
				    &r->text[g]);
		}
		out_add(r, (struct orec){ .key = e->key, .klen = e->klen,
					  .toff = i,
					  .tlen = r->text[g].len - i,
					  .t = r->t, .g = g });
	}
	free(fill);
	free(vals);
	free(tab);
}

static void *reduce_main(void *arg)
{
	struct reduce_thread *r = arg;
	unsigned int g;

	for (g = r->t; g < G; g += r->mr->c.threads)
		reduce_group(r, g);
	return NULL;
}

static int orec_cmp(const void *a, const void *b)
{
	const struct orec *x = a, *y = b;

	return mr_key_cmp(x->key, x->klen, y->key, y->klen);
}

/*
 * Reduce the node's inbox copy @in with its threads; the node's output
 * records, sorted by key, into @own. Returns the number of keys.
 */
static uint64_t reduce(struct lite_mr *mr, const char *in, struct mr_text *own)
{
	unsigned int t, threads = mr->c.threads < G ? mr->c.threads : G;
	struct reduce_thread *r = calloc(threads, sizeof(*r));
	struct orec *all;
	size_t n = 0, i;
	int ret;

	if (!r)
		die("out of memory", ENOMEM);
	for (t = 0; t < threads; t++) {
		r[t] = (struct reduce_thread){ .mr = mr, .t = t, .in = in };
		ret = pthread_create(&r[t].tid, NULL, reduce_main, &r[t]);
		if (ret)
			die("pthread_create", ret);
	}
	for (t = 0; t < threads; t++) {
		pthread_join(r[t].tid, NULL);
		n += r[t].nout;
	}
	all = xmalloc(n * sizeof(*all));
	for (n = 0, t = 0; t < threads; t++) {
		memcpy(all + n, r[t].out, r[t].nout * sizeof(*all));
		n += r[t].nout;
	}
	qsort(all, n, sizeof(*all), orec_cmp);
	for (i = 0; i < n; i++)
		rec_add(own, all[i].key, all[i].klen,
			r[all[i].t].text[all[i].g].buf + all[i].toff,
			all[i].tlen);
	for (t = 0; t < threads; t++) {
		for (i = 0; i < G; i++)
			mr_text_free(&r[t].text[i]);
		free(r[t].out);
	}
	free(all);
	free(r);
	return n;
}

/*
 * The smallest head among the nodes' output streams: -1 when all ended, -2
 * when one is corrupt.
 */
static int merge_next(const char **pos, const char **end, unsigned int n)
{
	const char *key, *val, *bkey = NULL;
	uint32_t klen, vlen, blen = 0;
	unsigned int s;
	int best = -1;

	for (s = 0; s < n; s++) {
		if (pos[s] == end[s])
			continue;
		if ((size_t)(end[s] - pos[s]) < REC_HDR ||
		    rec_get(pos[s], &key, &klen, &val, &vlen) > end[s] ||
		    !klen || klen > MR_KEY_MAX) {
			fprintf(stderr, "%s: node %u's output is corrupt\n",
				prog, s + 1);
			return -2;
		}
		if (best < 0 || mr_key_cmp(key, klen, bkey, blen) < 0) {
			best = s;
			bkey = key;
			blen = klen;
		}
	}
	return best;
}

/*
 * Node 1: read every node's output (lengths in its control LMR) and merge
 * them into @output. Returns the number of keys, or -1 (with a message)
 * when a node's output did not fit its inbox, could not be read or is
 * corrupt: the caller still meets the others at the last barrier.
 */
static int64_t merge(struct lite_mr *mr, const struct mr_text *own,
		     struct mr_text *output)
{
	unsigned int nodes = mr->c.nodes, s;
	const char **pos = xmalloc(nodes * sizeof(*pos));
	const char **end = xmalloc(nodes * sizeof(*end));
	char **buf = calloc(nodes, sizeof(*buf));
	uint64_t *len = xmalloc(nodes * sizeof(*len));
	const char *key, *val;
	uint32_t klen, vlen;
	int64_t keys = 0;
	int ret, best;

	if (!buf)
		die("out of memory", ENOMEM);
	ret = lite_read(mr->ctrl[0], ctrl_off_outlen(mr, 0), len,
			nodes * sizeof(*len), PASSWORD, LITE_PRIO_NORMAL);
	if (ret < 0) {
		fprintf(stderr, "%s: lite_read (output lengths): %s\n", prog,
			strerror(-ret));
		keys = -1;
		memset(len, 0, nodes * sizeof(*len));
	}
	for (s = 0; s < nodes; s++) {
		if (s == 0) {
			pos[0] = own->buf;
			end[0] = own->buf + own->len;
			continue;
		}
		if (len[s] > mr->c.inbox_bytes) {
			fprintf(stderr, "%s: node %u's output could not be stored (too large for its inbox, or a failed write: see its log)\n",
				prog, s + 1);
			keys = -1;
			len[s] = 0;
		}
		buf[s] = xmalloc(len[s]);
		pos[s] = buf[s];
		end[s] = buf[s] + len[s];
		ret = keys < 0 ? 0 : post_range(mr->inbox[s], 0, buf[s], len[s], 0);
		if (ret < 0) {
			fprintf(stderr, "%s: reading node %u's output: %s\n",
				prog, s + 1, strerror(-ret));
			keys = -1;
		}
	}
	/* Also drains what was posted before a failure. */
	ret = lite_fence(FENCE_MS);
	if (ret < 0) {
		fprintf(stderr, "%s: lite_fence (outputs): %s\n", prog,
			strerror(-ret));
		keys = -1;
	}
	while (keys >= 0 && (best = merge_next(pos, end, nodes)) != -1) {
		if (best == -2) {
			keys = -1;
			break;
		}
		pos[best] = rec_get(pos[best], &key, &klen, &val, &vlen);
		mr_text_add(output, key, klen);
		mr_text_add(output, "\t", 1);
		mr_text_add(output, val, vlen);
		mr_text_add(output, "\n", 1);
		keys++;
	}
	for (s = 0; s < nodes; s++)
		free(buf[s]);
	free(buf);
	free(len);
	free(end);
	free(pos);
	return keys;
}

static double secs(uint64_t from, uint64_t to)
{
	return (to - from) / 1e9;
}

void lite_mr_run(struct lite_mr *mr, char **splits, const size_t *lens,
		 unsigned int n, unsigned int first, struct mr_text *output,
		 uint64_t *keys, struct lite_mr_stats *st)
{
	unsigned int t, d, threads = mr->c.threads, me = mr->c.me;
	struct map_thread *m = calloc(threads, sizeof(*m));
	struct mr_text own = { 0 };
	atomic_uint next = 0;
	uint64_t t0, t1, t2, t3, total, outlen = 0;
	int64_t merged = 0;
	char *in;
	int ret;

	if (!m)
		die("out of memory", ENOMEM);
	*st = (struct lite_mr_stats){ 0 };
	barrier(mr, "start");
	t0 = now_ns();
	for (t = 0; t < threads; t++) {
		m[t] = (struct map_thread){ .mr = mr, .splits = splits,
					    .lens = lens, .n = n,
					    .first = first, .next = &next };
		m[t].part = calloc((size_t)mr->c.nodes * G, sizeof(*m[t].part));
		if (!m[t].part)
			die("out of memory", ENOMEM);
		ret = pthread_create(&m[t].tid, NULL, map_main, &m[t]);
		if (ret)
			die("pthread_create", ret);
	}
	for (t = 0; t < threads; t++)
		pthread_join(m[t].tid, NULL);
	t1 = now_ns();

	exchange_sizes(mr, m);
	for (d = 0; d < mr->c.nodes; d++)
		for (t = 0; t < G && d != me; t++)
			st->sent_bytes += *cell(mr, me, d, t);
	total = inbox_off(mr, me, mr->c.nodes, G);
	if (mr->c.rpc) {
		in = xmalloc(total);
		shuffle_rpc(mr, m, in);
	} else {
		shuffle_write(mr, m);
		barrier(mr, "shuffle");
		in = lite_alloc_buffer(total ? total : 1);
		if (!in)
			die("lite_alloc_buffer (inbox copy)", errno);
		if (total) {
			ret = lite_read(mr->inbox[me], 0, in, total, PASSWORD,
					LITE_PRIO_NORMAL);
			if (ret < 0)
				die("lite_read (own inbox)", ret);
		}
	}
	for (t = 0; t < threads; t++) {
		for (d = 0; d < mr->c.nodes * G; d++)
			mr_text_free(&m[t].part[d]);
		free(m[t].part);
	}
	free(m);
	t2 = now_ns();

	st->keys = reduce(mr, in, &own);
	t3 = now_ns();

	/* Every node's sorted output into its inbox, its length to node 1. */
	if (me) {
		ret = 0;
		outlen = own.len <= mr->c.inbox_bytes ? own.len : UINT64_MAX;
		if (outlen == UINT64_MAX)
			fprintf(stderr, "%s: this node's output (%zu bytes) does not fit its inbox (--inbox)\n",
				prog, own.len);
		else if (own.len)
			ret = lite_write(mr->inbox[me], 0, own.buf, own.len,
					 PASSWORD, LITE_PRIO_NORMAL);
		if (ret < 0) {
			fprintf(stderr, "%s: lite_write (output): %s\n", prog,
				strerror(-ret));
			outlen = UINT64_MAX;	/* node 1 then fails the run */
		}
		ret = lite_write(mr->ctrl[0], ctrl_off_outlen(mr, me), &outlen,
				 sizeof(outlen), PASSWORD, LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_write (output length)", ret);
	}
	barrier(mr, "outputs");
	if (!me)
		merged = merge(mr, &own, output);
	*keys = merged < 0 ? 0 : merged;
	barrier(mr, "end");
	st->map_s = secs(t0, t1);
	st->shuffle_s = secs(t1, t2);
	st->reduce_s = secs(t2, t3);
	st->merge_s = secs(t3, now_ns());
	if (mr->c.rpc)
		free(in);
	else
		lite_free_buffer(in, total ? total : 1);
	if (merged < 0 || outlen == UINT64_MAX)
		exit(1);
	mr_text_free(&own);
}

void lite_mr_exit(struct lite_mr *mr)
{
	unsigned int p;
	int ret;

	for (p = 0; p < mr->c.nodes; p++) {
		if (p == mr->c.me)
			continue;
		ret = lite_unmap(mr->ctrl[p]);
		if (ret >= 0)
			ret = lite_unmap(mr->inbox[p]);
		if (ret < 0)
			die("lite_unmap", ret);
	}
	ret = lite_free(mr->ctrl[mr->c.me]);
	if (ret >= 0)
		ret = lite_free(mr->inbox[mr->c.me]);
	if (ret < 0)
		die("lite_free", ret);
	free(mr->matrix);
	free(mr->inbox);
	free(mr->ctrl);
	free(mr);
}
