// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-ref: the single-node reference of LITE-MapReduce. One thread, no
 * runtime: every split of the corpus through the job's map into one table
 * of keys, then the keys sorted and reduced. A combining job's pairs are
 * folded in the map-side combine table the runtimes use (mr_ctab of
 * mr_job.h: the same hash, probing and fold as each lite-mapreduce map
 * thread); without combine, each key's values are appended to its own
 * list. Its output is what lite-mapreduce's and mrmpi-mapreduce's must
 * equal byte for byte, and its time the floor of one thread doing the
 * job's work, with nothing to partition, move or merge.
 *
 *   mr-ref [--job wordcount|invindex] [-m MIB] [--chunk KIB] [--vocab N]
 *          [-S SEED] [-o FILE]
 *
 * The corpus is made before the clock starts; seconds= is map, reduce and
 * the sorted output in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mr_job.h"

const char *prog = "mr-ref";

static const char usage[] =
	"usage: mr-ref [--job wordcount|invindex] [-m MIB] [--chunk KIB] [--vocab N]\n"
	"              [-S SEED] [-o FILE]\n";

/* A key of the lists table (no combine) and its values. */
struct key {
	const char	*key;
	unsigned int	klen;
	size_t		n;		/* values */
	struct mr_text	vals;		/* n * value_size bytes */
};

/* The lists table: keys by mr_hash, open addressing. */
struct table {
	const struct mr_job *job;
	struct key	*keys;
	size_t		nkeys, cap;
	uint32_t	*slot;		/* key index + 1; 0 empty */
	size_t		mask;
};

/* A key of the output, before the sort: its n values at vals. */
struct okey {
	const char	*key;
	unsigned int	klen;
	size_t		n;
	const char	*vals;
};

static void check_pair(const struct mr_job *job, unsigned int klen,
		       unsigned int vlen)
{
	if (!klen || klen > MR_KEY_MAX || vlen != job->value_size)
		die("the job emitted a bad pair", EINVAL);
}

static void grow(struct table *t)
{
	size_t i, j, n = (t->mask + 1) * 2;

	free(t->slot);
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot)
		die("out of memory", ENOMEM);
	t->mask = n - 1;
	for (i = 0; i < t->nkeys; i++) {
		j = mr_hash(t->keys[i].key, t->keys[i].klen) & t->mask;
		while (t->slot[j])
			j = (j + 1) & t->mask;
		t->slot[j] = i + 1;
	}
}

/* emit without combine: the value appended to its key's list. */
static void list_emit(void *ctx, const char *key, unsigned int klen,
		      const void *val, unsigned int vlen)
{
	struct table *t = ctx;
	size_t j = mr_hash(key, klen) & t->mask;
	struct key *k;

	check_pair(t->job, klen, vlen);
	for (; t->slot[j]; j = (j + 1) & t->mask) {
		k = &t->keys[t->slot[j] - 1];
		if (k->klen == klen && !memcmp(k->key, key, klen))
			goto found;
	}
	if (t->nkeys == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->keys = xrealloc(t->keys, t->cap * sizeof(*t->keys));
	}
	k = &t->keys[t->nkeys++];
	*k = (struct key){ .key = key, .klen = klen };
	t->slot[j] = t->nkeys;
	if (2 * t->nkeys > t->mask)
		grow(t);
found:
	mr_text_add(&k->vals, val, vlen);
	k->n++;
}

/* emit with combine: folded in the map-side combine table. */
static void ctab_emit(void *ctx, const char *key, unsigned int klen,
		      const void *val, unsigned int vlen)
{
	struct mr_ctab *t = ctx;

	check_pair(t->job, klen, vlen);
	mr_ctab_add(t, key, klen, mr_hash(key, klen), val);
}

static int okey_cmp(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;

	return mr_key_cmp(x->key, x->klen, y->key, y->klen);
}

int main(int argc, char **argv)
{
	struct mr_text out = { 0 };
	struct table t = { 0 };
	struct mr_ctab ct = { 0 };
	const void **vals = NULL;
	unsigned int s, nsplits;
	size_t *len, i, j, nvals = 0, nkeys = 0;
	struct okey *ok;
	struct mr_opts o;
	char **split;
	uint64_t t0;
	double secs;
	int ret;

	mr_parse_args(argc, argv, &o, MR_PROG_REF, usage);
	mr_vocab_init(&o);
	nsplits = mr_splits(&o);
	split = xmalloc(nsplits * sizeof(*split));
	len = xmalloc(nsplits * sizeof(*len));
	for (s = 0; s < nsplits; s++)
		split[s] = mr_split_make(&o, s, &len[s]);

	t0 = now_ns();
	if (o.job->combine) {
		mr_ctab_init(&ct, o.job);
		for (s = 0; s < nsplits; s++)
			o.job->map(split[s], len[s], s, ctab_emit, &ct);
		ok = xmalloc(ct.used * sizeof(*ok));
		for (j = 0; j <= ct.mask; j++)
			if (ct.e[j].key)
				ok[nkeys++] = (struct okey){
					ct.e[j].key, ct.e[j].klen, 1,
					(const char *)ct.e[j].val };
	} else {
		t.job = o.job;
		t.mask = 1023;
		t.slot = calloc(t.mask + 1, sizeof(*t.slot));
		if (!t.slot)
			die("out of memory", ENOMEM);
		for (s = 0; s < nsplits; s++)
			o.job->map(split[s], len[s], s, list_emit, &t);
		ok = xmalloc(t.nkeys * sizeof(*ok));
		for (i = 0; i < t.nkeys; i++)
			ok[nkeys++] = (struct okey){ t.keys[i].key,
						     t.keys[i].klen,
						     t.keys[i].n,
						     t.keys[i].vals.buf };
	}
	qsort(ok, nkeys, sizeof(*ok), okey_cmp);
	for (i = 0; i < nkeys; i++) {
		if (ok[i].n > nvals) {
			nvals = ok[i].n;
			vals = xrealloc(vals, nvals * sizeof(*vals));
		}
		for (j = 0; j < ok[i].n; j++)
			vals[j] = ok[i].vals + j * o.job->value_size;
		mr_text_add(&out, ok[i].key, ok[i].klen);
		mr_text_add(&out, "\t", 1);
		o.job->reduce(ok[i].key, ok[i].klen, vals, ok[i].n, &out);
		mr_text_add(&out, "\n", 1);
	}
	secs = (now_ns() - t0) / 1e9;

	mr_result(&o, 1, nkeys, &out, secs, "threads=1");
	if (o.out) {
		ret = mr_write_output(o.out, &out);
		if (ret < 0)
			die(o.out, ret);
	}
	for (i = 0; i < t.nkeys; i++)
		mr_text_free(&t.keys[i].vals);
	for (s = 0; s < nsplits; s++)
		free(split[s]);
	mr_ctab_free(&ct);
	free(split);
	free(len);
	free(vals);
	free(ok);
	free(t.keys);
	free(t.slot);
	mr_text_free(&out);
	return 0;
}
