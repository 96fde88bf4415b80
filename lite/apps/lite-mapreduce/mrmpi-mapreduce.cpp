// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrmpi-mapreduce: the jobs of mr_job.h on Sandia's MapReduce-MPI
 * (Debian's libmrmpi-dev; its C++ API, the only one the Debian library
 * exports), the established MapReduce that LITE-MapReduce is compared
 * with. Run under mpirun, one rank per node:
 *
 *   mpirun ... mrmpi-mapreduce [--job wordcount|invindex] [-m MIB]
 *              [--chunk KIB] [--vocab N] [-S SEED] [--combine map|compress]
 *              [-o FILE]
 *
 * The same job as LITE-MapReduce's: map (one task per split, MapReduce-MPI's
 * default "chunk" map style: rank r of R gets tasks r * S / R ..
 * (r + 1) * S / R - 1, the splits lite-mapreduce's node r + 1 maps); a
 * combining job (wordcount) folds its pairs in the map callback, in one
 * map-side combine table per rank (mr_ctab of mr_job.h: the same hash,
 * probing and fold as each lite-mapreduce map thread), which is added to
 * the rank's KeyValue once after the map (open, add, close), so one pair
 * per key and rank is shuffled; collate (its all-to-all shuffle), reduce
 * (folding what the ranks sent, as LITE-MapReduce's reducers do), gather
 * to rank 0, and there the pairs scanned out and sorted by key (not
 * sort_keys: once the gathered pairs exceed one of its pages, its
 * out-of-core sort makes collective calls on rank 0 alone and the job
 * aborts). --combine compress runs the job as MapReduce-MPI's examples
 * write it, and as this program did before: the map emits every pair and
 * compress folds them with the job's combine (MapReduce-MPI's combiner)
 * before collate; it measures the job's design, not the runtime. A job
 * without combine (invindex) is the same either way: every pair is
 * emitted and shuffled, as in LITE-MapReduce.
 *
 * Each rank makes its splits before the clock starts at an MPI_Barrier;
 * seconds= ends when rank 0 holds the sorted output in memory. Rank 0
 * prints the "result ..." line of mr_job.h (late_splits=: map tasks whose
 * split was not made before the clock, 0 unless the map style differs
 * from the one assumed; combine=map, compress or none) and writes -o FILE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mrmpi/keyvalue.h>
#include <mrmpi/mapreduce.h>

#include "mr_job.h"

using MAPREDUCE_NS::KeyValue;
using MAPREDUCE_NS::MapReduce;

const char *prog = "mrmpi-mapreduce";

static const char usage[] =
	"usage: mpirun ... mrmpi-mapreduce [--job wordcount|invindex] [-m MIB]\n"
	"                  [--chunk KIB] [--vocab N] [-S SEED]\n"
	"                  [--combine map|compress] [-o FILE]\n";

/* A gathered pair, by offsets into app.pairs. */
struct kvref {
	size_t		k, v;
	int		kb, vb;
};

struct app {
	const struct mr_opts *o;
	MapReduce	*mr;
	struct mr_text	pairs;		/* rank 0: the gathered keys and texts */
	struct kvref	*ref;
	size_t		nref, cref;
	struct mr_ctab	tab;		/* --combine map: the rank's table */
	char		**split;	/* [splits], this rank's made */
	size_t		*len;
	unsigned int	late;
	struct mr_text	out;		/* rank 0: the sorted output */
	struct mr_text	text, big;	/* a reduce's text; a paged multivalue */
	uint64_t	keys;
	const void	**vals;
	size_t		nvals;
};

static void kv_emit(void *kv, const char *key, unsigned int klen,
		    const void *val, unsigned int vlen)
{
	static_cast<KeyValue *>(kv)->add(const_cast<char *>(key), klen,
					 (char *)val, vlen);
}

/* --combine map: a pair folded into the rank's table, not the KeyValue. */
static void ctab_emit(void *ctx, const char *key, unsigned int klen,
		      const void *val, unsigned int vlen)
{
	struct mr_ctab *t = static_cast<struct mr_ctab *>(ctx);

	if (!klen || klen > MR_KEY_MAX || vlen != t->job->value_size)
		die("the job emitted a bad pair", EINVAL);
	mr_ctab_add(t, key, klen, mr_hash(key, klen), val);
}

static int map_combines(const struct app *a)
{
	return a->o->job->combine && !a->o->compress;
}

static void map_task(int itask, KeyValue *kv, void *ptr)
{
	struct app *a = static_cast<struct app *>(ptr);

	if (!a->split[itask]) {
		a->split[itask] = mr_split_make(a->o, itask, &a->len[itask]);
		a->late++;
	}
	if (map_combines(a))
		a->o->job->map(a->split[itask], a->len[itask], itask,
			       ctab_emit, &a->tab);
	else
		a->o->job->map(a->split[itask], a->len[itask], itask,
			       kv_emit, kv);
}

/* --combine map, after the map: the rank's table as its KeyValue. */
static void map_flush(struct app *a)
{
	const struct mr_centry *e;
	size_t j;

	a->mr->open();		/* replaces the map's empty KeyValue */
	for (j = 0; j <= a->tab.mask; j++) {
		e = &a->tab.e[j];
		if (e->key)
			a->mr->kv->add(const_cast<char *>(e->key), e->klen,
				       (char *)e->val, a->o->job->value_size);
	}
	a->mr->close();
	mr_ctab_free(&a->tab);
}

/*
 * The values of a key as pointers: into its multivalue @mv (@n values of
 * @sizes bytes), or for n 0 (a multivalue larger than a page) into a copy
 * of its blocks, which MapReduce-MPI pages in one at a time.
 */
static size_t values_of(struct app *a, char *mv, int n, int *sizes)
{
	size_t vs = a->o->job->value_size, k;
	int b, nb, bn, i, *bs;
	char *bmv;

	if (!n) {
		a->big.len = 0;
		a->mr->multivalue_blocks(nb);
		for (b = 0; b < nb; b++) {
			bn = a->mr->multivalue_block(b, &bmv, &bs);
			for (i = 0; i < bn; i++)
				if (bs[i] != (int)vs)
					die("a value of the wrong size", EIO);
			mr_text_add(&a->big, bmv, (size_t)bn * vs);
		}
		n = a->big.len / vs;
		mv = a->big.buf;
		sizes = NULL;
	}
	if ((size_t)n > a->nvals) {
		a->nvals = n;
		a->vals = static_cast<const void **>(
			xrealloc(a->vals, a->nvals * sizeof(*a->vals)));
	}
	for (k = 0; k < (size_t)n; k++) {
		if (sizes && sizes[k] != (int)vs)
			die("a value of the wrong size", EIO);
		a->vals[k] = mv + k * vs;
	}
	return k;
}

/* The job's combine over a key's values, into @acc. */
static void fold_values(struct app *a, size_t k, unsigned char *acc)
{
	size_t i;

	memcpy(acc, a->vals[0], a->o->job->value_size);
	for (i = 1; i < k; i++)
		a->o->job->combine(acc, a->vals[i]);
}

/* --combine compress: a key's values folded into one. */
static void combine(char *key, int kb, char *mv, int n, int *sizes,
		    KeyValue *kv, void *ptr)
{
	struct app *a = static_cast<struct app *>(ptr);
	unsigned char acc[16];

	fold_values(a, values_of(a, mv, n, sizes), acc);
	kv->add(key, kb, (char *)acc, a->o->job->value_size);
}

/* reduce: the key's output text as its new value. */
static void reduce(char *key, int kb, char *mv, int n, int *sizes,
		   KeyValue *kv, void *ptr)
{
	struct app *a = static_cast<struct app *>(ptr);
	size_t k = values_of(a, mv, n, sizes);
	unsigned char acc[16];

	a->text.len = 0;
	if (a->o->job->combine) {
		fold_values(a, k, acc);
		a->vals[0] = acc;
		k = 1;
	}
	a->o->job->reduce(key, kb, a->vals, k, &a->text);
	kv->add(key, kb, a->text.buf, a->text.len);
}

/* Rank 0, after the gather: keep each pair. */
static void keep_kv(char *key, int kb, char *val, int vb, void *ptr)
{
	struct app *a = static_cast<struct app *>(ptr);

	if (a->nref == a->cref) {
		a->cref = a->cref ? 2 * a->cref : 4096;
		a->ref = static_cast<struct kvref *>(
			xrealloc(a->ref, a->cref * sizeof(*a->ref)));
	}
	a->ref[a->nref++] = (struct kvref){ a->pairs.len, a->pairs.len + kb,
					    kb, vb };
	mr_text_add(&a->pairs, key, kb);
	mr_text_add(&a->pairs, val, vb);
}

static const char *sort_base;

static int kvref_cmp(const void *x, const void *y)
{
	const struct kvref *a = static_cast<const struct kvref *>(x);
	const struct kvref *b = static_cast<const struct kvref *>(y);

	return mr_key_cmp(sort_base + a->k, a->kb, sort_base + b->k, b->kb);
}

/* Rank 0: the kept pairs sorted by key, as output lines. */
static void print_sorted(struct app *a)
{
	size_t i;

	sort_base = a->pairs.buf;
	qsort(a->ref, a->nref, sizeof(*a->ref), kvref_cmp);
	for (i = 0; i < a->nref; i++) {
		mr_text_add(&a->out, a->pairs.buf + a->ref[i].k, a->ref[i].kb);
		mr_text_add(&a->out, "\t", 1);
		mr_text_add(&a->out, a->pairs.buf + a->ref[i].v, a->ref[i].vb);
		mr_text_add(&a->out, "\n", 1);
	}
	a->keys = a->nref;
}

int main(int argc, char **argv)
{
	unsigned int s, lo, hi, nsplits, late = 0;
	uint64_t in_mib;
	struct app a = {};
	struct mr_opts o;
	int rank, size, ret;
	double t0, secs;
	char extra[96];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mr_parse_args(argc, argv, &o, MR_PROG_MRMPI, usage);
	if (o.job->combine && o.job->value_size > MR_COMBINE_MAX)
		die("a combining job's values are at most 16 bytes", EINVAL);
	a.o = &o;
	if (map_combines(&a))
		mr_ctab_init(&a.tab, o.job);
	mr_vocab_init(&o);
	nsplits = mr_splits(&o);
	a.split = static_cast<char **>(calloc(nsplits, sizeof(*a.split)));
	a.len = static_cast<size_t *>(calloc(nsplits, sizeof(*a.len)));
	if (!a.split || !a.len)
		die("out of memory", ENOMEM);
	mr_splits_of(&o, rank, size, &lo, &hi);
	for (s = lo; s < hi; s++)
		a.split[s] = mr_split_make(&o, s, &a.len[s]);

	a.mr = new MapReduce(MPI_COMM_WORLD);
	a.mr->verbosity = 0;
	a.mr->mapstyle = 0;	/* chunks: the assignment above */
	/*
	 * In memory, as LITE-MapReduce runs: pages of 8x this rank's input
	 * (every pair of an uncombined job, or of --combine compress, takes
	 * about 4.5x), at least MapReduce-MPI's default 64 MiB; by default
	 * it writes what exceeds one page to files in the working
	 * directory. outofcore -1: it stops rather than spill.
	 */
	for (s = lo, in_mib = 0; s < hi; s++)
		in_mib += a.len[s];
	in_mib = (in_mib >> 20) * 8;
	a.mr->memsize = in_mib > 64 ? (in_mib + 63) / 64 * 64 : 64;
	a.mr->outofcore = -1;
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	a.mr->map(nsplits, map_task, &a);
	if (map_combines(&a))
		map_flush(&a);
	else if (o.job->combine)
		a.mr->compress(combine, &a);
	a.mr->collate(NULL);
	a.mr->reduce(reduce, &a);
	a.mr->gather(1);
	a.mr->scan(keep_kv, &a);	/* collective; only rank 0 has pairs */
	if (!rank)
		print_sorted(&a);
	secs = MPI_Wtime() - t0;

	MPI_Reduce(&a.late, &late, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank) {
		snprintf(extra, sizeof(extra), "late_splits=%u combine=%s", late,
			 !o.job->combine ? "none" :
			 o.compress ? "compress" : "map");
		mr_result(&o, size, a.keys, &a.out, secs, extra);
		if (o.out) {
			ret = mr_write_output(o.out, &a.out);
			if (ret < 0)
				die(o.out, ret);
		}
	}
	delete a.mr;
	for (s = 0; s < nsplits; s++)
		free(a.split[s]);
	free(a.split);
	free(a.len);
	free(a.vals);
	free(a.ref);
	mr_text_free(&a.pairs);
	mr_text_free(&a.out);
	mr_text_free(&a.text);
	mr_text_free(&a.big);
	MPI_Finalize();
	return 0;
}
