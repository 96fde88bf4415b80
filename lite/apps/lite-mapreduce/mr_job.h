/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What lite-mapreduce, mrmpi-mapreduce and mr-ref share, so that the three
 * run the identical jobs on the identical input and print the identical
 * output: the corpus generator, the two jobs' map, combine and reduce
 * functions, the output format and the command line.
 *
 * Corpus. SIZE bytes of words in CHUNK-byte splits. The vocabulary is
 * VOCAB words; word i is 3..10 letters drawn from splitmix64(seed ^ i) (two
 * indices may spell the same word: they are then one word everywhere). A
 * split is a sequence of words drawn with Zipf(1) probabilities (word i
 * with weight 1 / (i + 1)) from its own generator, seeded with the seed and
 * the split's number, so any program makes any split alone; words are
 * separated by a space, and every DOC_WORDS-th by a newline, which ends a
 * document. A split ends at the first word boundary at or past CHUNK
 * bytes, and the corpus is the first ceil(SIZE / CHUNK) splits. Split s of
 * S goes to node n of N when n * S / N <= s < (n + 1) * S / N (the
 * contiguous blocks MapReduce-MPI's default map style gives its ranks).
 *
 * Jobs. A map function gets a split and emits (key, value) pairs through
 * an emit callback. A job with a combine function has values of
 * value_size bytes that combine folds together (associative and
 * commutative), so a runtime may fold a key's values anywhere, in any
 * order; reduce then gets one value per key. Without one, reduce gets
 * every value emitted for the key, in any order, and must not depend on
 * the order. reduce writes the key's output text to an mr_text.
 *
 *   wordcount  key: a word; value: its count (u64, combined by adding);
 *              output: the count.
 *   invindex   key: a word; value: the number of a document it occurs in
 *              (u32, once per document; no combine); output: "DF\tD1,D2,..."
 *              with the documents in increasing order. A document's number
 *              is split * DOCS_MAX + its index in the split.
 *
 * Combine. A combining job's pairs are folded per key in a map-side
 * table (struct mr_ctab) wherever they are emitted: in each of
 * lite-mapreduce's map threads, in each mrmpi-mapreduce rank's map
 * callback and in mr-ref, so all three run the same map-side combine (the
 * same hash, the same table, the same fold) and move one pair per key and
 * mapper.
 *
 * Output. One line per key, "KEY\tTEXT\n", keys in memcmp order (a shorter
 * key first when it is a prefix). Keys are 1..MR_KEY_MAX bytes.
 */
#ifndef MR_JOB_H
#define MR_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* prog, die(), now_ns(), splitmix64() */
#include "app_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MR_KEY_MAX	64U
#define MR_DOC_WORDS	512U		/* words per document */
#define MR_DOCS_MAX	(1U << 16)	/* documents per split, at most */
#define MR_COMBINE_MAX	16U		/* a combining job's value bytes, at most */

/* A growable byte buffer (an emitted output text, a record stream). */
struct mr_text {
	char	*buf;
	size_t	len, cap;
};

/* Append @n bytes (exits on ENOMEM), or formatted text. */
void mr_text_add(struct mr_text *t, const void *p, size_t n);
void mr_text_printf(struct mr_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mr_text_free(struct mr_text *t);

typedef void (*mr_emit_fn)(void *ctx, const char *key, unsigned int klen,
			   const void *val, unsigned int vlen);

struct mr_job {
	const char	*name;
	unsigned int	value_size;	/* bytes per emitted value */
	/* Emit the pairs of @split (number @idx, @len bytes). */
	void		(*map)(const char *split, size_t len, unsigned int idx,
			       mr_emit_fn emit, void *ctx);
	/* Fold @val into @acc; NULL: the job has no combine. */
	void		(*combine)(void *acc, const void *val);
	/*
	 * The output text of @key from its @n values (each value_size
	 * bytes; with combine, n is 1). @vals may be reordered.
	 */
	void		(*reduce)(const char *key, unsigned int klen,
				  const void **vals, size_t n,
				  struct mr_text *out);
};

/* What every program is given (mr_parse_args). */
struct mr_opts {
	const struct mr_job *job;	/* --job wordcount|invindex */
	uint64_t	size;		/* -m MIB: corpus bytes */
	unsigned int	chunk_kib;	/* --chunk KIB: split size */
	unsigned int	vocab;		/* --vocab N */
	uint64_t	seed;		/* -S */
	const char	*out;		/* -o FILE: the output (node 1) */
	/* lite-mapreduce only */
	unsigned int	nodes;		/* -n */
	unsigned int	threads;	/* -t: map and reduce threads */
	int		rpc;		/* --shuffle rpc|write (default rpc) */
	unsigned int	inbox_mib;	/* --inbox MIB: shuffle room per node */
	int		heap_copy;	/* --inbox-copy heap (default zerocopy) */
	uint64_t	id;		/* --id: LMR identifier base */
	/* mrmpi-mapreduce only */
	int		compress;	/* --combine compress (default map) */
};

/* Which program parses its command line (mr_parse_args). */
enum mr_prog {
	MR_PROG_REF,		/* mr-ref */
	MR_PROG_LITE,		/* lite-mapreduce */
	MR_PROG_MRMPI,		/* mrmpi-mapreduce */
};

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);

/*
 * Parse the common options (--job -m --chunk --vocab -S -o; with
 * MR_PROG_LITE also -n -t --shuffle --inbox --inbox-copy --id, with
 * MR_PROG_MRMPI --combine); @usage is printed on an error. Exits 2 on a
 * bad command line, another program's option among them.
 */
void mr_parse_args(int argc, char **argv, struct mr_opts *o,
		   enum mr_prog which, const char *usage);

/* The corpus's splits, and the first and last + 1 of node @n of @nodes. */
unsigned int mr_splits(const struct mr_opts *o);
void mr_splits_of(const struct mr_opts *o, unsigned int n, unsigned int nodes,
		  unsigned int *lo, unsigned int *hi);

/*
 * Make split @idx into a malloc'ed buffer, its length into @len. The
 * vocabulary (mr_vocab_init, once per process) must be ready.
 */
void mr_vocab_init(const struct mr_opts *o);
char *mr_split_make(const struct mr_opts *o, unsigned int idx, size_t *len);

/* The job named @name, or NULL. */
const struct mr_job *mr_job_find(const char *name);

/* 64-bit FNV-1a of a key: the partitioning hash of every runtime. */
uint64_t mr_hash(const char *key, size_t len);

/*
 * The map-side combine table: a key and its value folded with the job's
 * combine. Open addressing on mr_hash, linear probing, at most half full
 * (it doubles, from 4096 slots). Keys are kept by pointer: the splits they
 * point into must outlive the table. Walk it as
 *	for (j = 0; j <= t->mask; j++) if (t->e[j].key) ...
 */
struct mr_centry {
	const char	*key;		/* NULL: a free slot */
	uint32_t	klen;
	uint64_t	hash;		/* mr_hash(key, klen) */
	unsigned char	val[MR_COMBINE_MAX];
};

struct mr_ctab {
	const struct mr_job *job;
	struct mr_centry *e;		/* [mask + 1] */
	size_t		mask, used;	/* used: keys in it */
};

/* An empty table for @job, which must have a combine (exits on ENOMEM). */
void mr_ctab_init(struct mr_ctab *t, const struct mr_job *job);
/* Twice the slots, the keys moved (mr_ctab_add's, when half full). */
void mr_ctab_grow(struct mr_ctab *t);
void mr_ctab_free(struct mr_ctab *t);

/*
 * Fold the pair (@key, @val) in: @h is mr_hash(@key, @klen), @val the
 * job's value_size bytes. A new key's value is copied; a known key's is
 * folded with combine(its value, @val). Inline: it runs once per emitted
 * pair, in the map's inner loop of every program.
 */
static inline void mr_ctab_add(struct mr_ctab *t, const char *key,
			       unsigned int klen, uint64_t h, const void *val)
{
	struct mr_centry *e;
	size_t j;

	for (j = h & t->mask; t->e[j].key; j = (j + 1) & t->mask) {
		e = &t->e[j];
		if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen)) {
			t->job->combine(e->val, val);
			return;
		}
	}
	e = &t->e[j];
	e->key = key;
	e->klen = klen;
	e->hash = h;
	memcpy(e->val, val, t->job->value_size);
	if (2 * ++t->used > t->mask)
		mr_ctab_grow(t);
}

/* memcmp order of keys, a prefix first. */
int mr_key_cmp(const char *a, unsigned int alen, const char *b,
	       unsigned int blen);

/*
 * The result line every program prints:
 * "result prog=P job=J bytes=B splits=S nodes=N keys=K out_bytes=O
 *  out_fnv=H seconds=T" and then @extra (may be empty).
 */
void mr_result(const struct mr_opts *o, unsigned int nodes, uint64_t keys,
	       const struct mr_text *output, double seconds,
	       const char *extra);

/* Write @output to @path (0, or a negative errno). */
int mr_write_output(const char *path, const struct mr_text *output);

#ifdef __cplusplus
}
#endif

#endif /* MR_JOB_H */
