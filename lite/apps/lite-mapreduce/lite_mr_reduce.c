// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LITE-MapReduce's reduce (lite_mr.h): a node's groups, each into a table
 * by key, reduced by the job, the node's output sorted by key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "lite_mr_priv.h"

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
	const char *p = r->in + mr_inbox_off(r->mr, r->mr->c.me, 0, g);
	const char *end = r->in + mr_inbox_off(r->mr, r->mr->c.me, 0, g + 1);
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
		q = mr_rec_get(q, &key, &klen, &val, &vlen);
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
		q = mr_rec_get(q, &key, &klen, &val, &vlen);
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
uint64_t mr_reduce(struct lite_mr *mr, const char *in, struct mr_text *own)
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
		mr_rec_add(own, all[i].key, all[i].klen,
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

